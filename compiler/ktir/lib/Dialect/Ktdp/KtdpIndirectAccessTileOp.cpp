//===- KtdpIndirectAccessTileOp.cpp - gather/scatter access tiles ---------===//
//
// Part of chipless. Custom syntax and verification of
// ktdp.construct_indirect_access_tile:
//
//   intermediate_variables(%b, %h, %t, %d)
//   %X[ind(%Idx[%b, %t floordiv 64]), (%h), (%t mod 64), (%d)] [symbols(%s…)]
//   {variables_space_set = …, variables_space_order = …}
//   : view-type, index-view-type… -> !ktdp.access_tile<…>
//
// Intermediate variables become the arguments of the body block; other SSA names in
// the subscripts are captured values. Every subscript map ranges over
// (captured…, intermediate…) in that order.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::ktdp;

namespace {

/// One parsed subscript: `ind(%view[map])` or `(map)`, with the SSA names of the map
/// (dimensions first, then symbols) as written.
struct ParsedSubscript {
  bool indirect = false;
  OpAsmParser::UnresolvedOperand indexView;
  AffineMap map;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
};

bool sameName(const OpAsmParser::UnresolvedOperand& a, const OpAsmParser::UnresolvedOperand& b) {
  return a.name == b.name && a.number == b.number;
}

} // namespace

bool ConstructIndirectAccessTileOp::isIndirectDim(unsigned dim) {
  return cast<BoolAttr>(getPerDimSubscriptKinds()[dim]).getValue();
}

Value ConstructIndirectAccessTileOp::getIndirectViewForDim(unsigned dim) {
  if (!isIndirectDim(dim)) return {};
  unsigned position = 0;
  for (unsigned d = 0; d < dim; ++d) position += isIndirectDim(d);
  return getIndirectViews()[position];
}

ParseResult ConstructIndirectAccessTileOp::parse(OpAsmParser& parser, OperationState& result) {
  MLIRContext* ctx = parser.getContext();
  SmallVector<OpAsmParser::UnresolvedOperand> variables;
  if (parser.parseKeyword("intermediate_variables") ||
      parser.parseOperandList(variables, OpAsmParser::Delimiter::Paren))
    return failure();
  for (unsigned i = 0; i < variables.size(); ++i)
    for (unsigned j = 0; j < i; ++j)
      if (sameName(variables[i], variables[j]))
        return parser.emitError(variables[i].location, "intermediate variable ")
               << variables[i].name << " is declared twice";

  OpAsmParser::UnresolvedOperand view;
  SmallVector<ParsedSubscript> subscripts;
  if (parser.parseOperand(view)) return failure();
  auto parseSubscript = [&]() -> ParseResult {
    ParsedSubscript& s = subscripts.emplace_back();
    NamedAttrList scratch;
    Attribute map;
    if (succeeded(parser.parseOptionalKeyword("ind"))) {
      s.indirect = true;
      if (parser.parseLParen() || parser.parseOperand(s.indexView) ||
          parser.parseAffineMapOfSSAIds(s.operands, map, "subscript", scratch,
                                        OpAsmParser::Delimiter::Square) ||
          parser.parseRParen())
        return failure();
    } else if (parser.parseAffineMapOfSSAIds(s.operands, map, "subscript", scratch,
                                             OpAsmParser::Delimiter::Paren)) {
      return failure();
    }
    s.map = cast<AffineMapAttr>(map).getValue();
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseSubscript))
    return failure();

  SmallVector<OpAsmParser::UnresolvedOperand> symbols;
  if (succeeded(parser.parseOptionalKeyword("symbols")) &&
      parser.parseOperandList(symbols, OpAsmParser::Delimiter::Paren))
    return failure();
  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes)) return failure();
  for (StringRef name : {"per_dim_subscript_kinds", "per_dim_subscript_maps"})
    if (result.attributes.get(name))
      return parser.emitError(attrLoc, "'") << name << "' is given by the subscripts";

  // Captured values: names in the subscripts that are not intermediate variables.
  SmallVector<OpAsmParser::UnresolvedOperand> captured;
  auto isVariable = [&](const OpAsmParser::UnresolvedOperand& o) {
    return llvm::any_of(variables, [&](auto& v) { return sameName(v, o); });
  };
  for (ParsedSubscript& s : subscripts)
    for (auto& o : s.operands)
      if (!isVariable(o) && llvm::none_of(captured, [&](auto& c) { return sameName(c, o); }))
        captured.push_back(o);
  unsigned numUnified = captured.size() + variables.size();
  auto unifiedPosition = [&](const OpAsmParser::UnresolvedOperand& o) -> unsigned {
    for (unsigned i = 0; i < captured.size(); ++i)
      if (sameName(captured[i], o)) return i;
    for (unsigned i = 0; i < variables.size(); ++i)
      if (sameName(variables[i], o)) return captured.size() + i;
    llvm_unreachable("every subscript name is captured or a variable");
  };

  // Rewrite every subscript map over (captured…, intermediate…).
  SmallVector<Attribute> kinds, maps;
  for (ParsedSubscript& s : subscripts) {
    SmallVector<AffineExpr> dims, syms;
    unsigned numDims = s.map.getNumDims();
    for (unsigned i = 0; i < s.operands.size(); ++i) {
      AffineExpr e = getAffineDimExpr(unifiedPosition(s.operands[i]), ctx);
      (i < numDims ? dims : syms).push_back(e);
    }
    SmallVector<AffineExpr> results;
    // Simplified after the renumbering, so that terms print in upstream's order (`%offset
    // + %i` for `%i + %offset` with %offset captured).
    for (AffineExpr r : s.map.getResults())
      results.push_back(simplifyAffineExpr(r.replaceDimsAndSymbols(dims, syms), numUnified, 0));
    kinds.push_back(BoolAttr::get(ctx, s.indirect));
    maps.push_back(AffineMapAttr::get(AffineMap::get(numUnified, 0, results, ctx)));
  }
  result.addAttribute("per_dim_subscript_kinds", ArrayAttr::get(ctx, kinds));
  result.addAttribute("per_dim_subscript_maps", ArrayAttr::get(ctx, maps));

  SMLoc typesLoc = parser.getCurrentLocation();
  SmallVector<Type> viewTypes;
  AccessTileType tileType;
  if (parser.parseColonTypeList(viewTypes) || parser.parseArrow() ||
      parser.parseCustomTypeWithFallback(tileType))
    return failure();
  SmallVector<OpAsmParser::UnresolvedOperand> indexViews;
  for (ParsedSubscript& s : subscripts)
    if (s.indirect) indexViews.push_back(s.indexView);
  if (viewTypes.size() != indexViews.size() + 1)
    return parser.emitError(typesLoc, "expected ")
           << indexViews.size() + 1 << " view types (the view, then one per ind(...)), got "
           << viewTypes.size();

  Type index = parser.getBuilder().getIndexType();
  if (parser.resolveOperand(view, viewTypes[0], result.operands) ||
      parser.resolveOperands(indexViews, ArrayRef(viewTypes).drop_front(), typesLoc,
                             result.operands) ||
      parser.resolveOperands(captured, index, result.operands) ||
      parser.resolveOperands(symbols, index, result.operands))
    return failure();
  auto& segments = result.getOrAddProperties<Properties>().operandSegmentSizes;
  segments = {1, static_cast<int32_t>(indexViews.size()), static_cast<int32_t>(captured.size()),
              static_cast<int32_t>(symbols.size())};
  result.addTypes(tileType);

  // The body declares the intermediate variables.
  Region* body = result.addRegion();
  auto* block = new Block();
  body->push_back(block);
  for (auto& v : variables) block->addArgument(index, parser.getEncodedSourceLoc(v.location));
  ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void ConstructIndirectAccessTileOp::print(OpAsmPrinter& printer) {
  Block& body = getBody().front();
  printer << " intermediate_variables(";
  printer.printOperands(body.getArguments());
  printer << ") " << getView() << '[';
  SmallVector<Value> unified(getCapturedVariables());
  llvm::append_range(unified, body.getArguments());
  for (unsigned d = 0, e = getPerDimSubscriptMaps().size(); d < e; ++d) {
    if (d) printer << ", ";
    auto map = cast<AffineMapAttr>(getPerDimSubscriptMaps()[d]);
    if (isIndirectDim(d)) {
      printer << "ind(" << getIndirectViewForDim(d) << '[';
      printer.printAffineMapOfSSAIds(map, unified);
      printer << "])";
    } else {
      printer << '(';
      printer.printAffineMapOfSSAIds(map, unified);
      printer << ')';
    }
  }
  printer << ']';
  if (!getSymbolOperands().empty()) {
    printer << " symbols(";
    printer.printOperands(getSymbolOperands());
    printer << ')';
  }
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      /*elidedAttrs=*/{"per_dim_subscript_kinds", "per_dim_subscript_maps", "operandSegmentSizes"});
  printer << " : " << getView().getType();
  for (Value v : getIndirectViews()) printer << ", " << v.getType();
  printer << " -> ";
  printer.printType(getType());
}

LogicalResult ConstructIndirectAccessTileOp::verify() {
  auto viewType = cast<ShapedType>(getView().getType());
  int64_t rank = viewType.getRank();
  ArrayAttr kinds = getPerDimSubscriptKinds(), maps = getPerDimSubscriptMaps();
  if (kinds.size() != maps.size())
    return emitOpError("per_dim_subscript_kinds has ")
           << kinds.size() << " entries but per_dim_subscript_maps has " << maps.size();
  if (static_cast<int64_t>(kinds.size()) != rank)
    return emitOpError("has ") << kinds.size() << " subscripts but the view has rank " << rank;
  unsigned numIndirect =
      llvm::count_if(kinds, [](Attribute a) { return cast<BoolAttr>(a).getValue(); });
  if (numIndirect != getIndirectViews().size())
    return emitOpError("has ") << numIndirect << " ind(...) subscripts but "
                               << getIndirectViews().size() << " index views";

  if (getBody().empty()) return emitOpError("needs a body declaring the intermediate variables");
  unsigned numVariables = getBody().front().getNumArguments();
  unsigned numUnified = getCapturedVariables().size() + numVariables;
  for (unsigned d = 0; d < maps.size(); ++d) {
    AffineMap map = cast<AffineMapAttr>(maps[d]).getValue();
    if (map.getNumDims() != numUnified)
      return emitOpError("subscript map #")
             << d << " must range over the " << numUnified
             << " captured and intermediate variables, got " << AffineMapAttr::get(map);
    if (!isIndirectDim(d)) {
      if (map.getNumResults() != 1)
        return emitOpError("direct subscript #")
               << d << " must be one expression, got " << map.getNumResults();
      continue;
    }
    auto indexType = cast<ShapedType>(getIndirectViewForDim(d).getType());
    if (map.getNumResults() != indexType.getRank())
      return emitOpError("ind(...) subscript #")
             << d << " has " << map.getNumResults() << " subscripts but its index view has rank "
             << indexType.getRank();
  }

  IntegerSet set = getVariablesSpaceSet().getValue();
  if (set.getNumDims() != numVariables)
    return emitOpError("has ") << numVariables
                               << " intermediate variables but variables_space_set has "
                               << set.getNumDims() << " dimensions";
  if (set.getNumSymbols() != getSymbolOperands().size())
    return emitOpError("variables_space_set has ")
           << set.getNumSymbols() << " symbols but " << getSymbolOperands().size()
           << " symbol values are given";
  AffineMap order = getVariablesSpaceOrder();
  if (order.getNumDims() != numVariables || order.getNumResults() != numVariables)
    return emitOpError("variables_space_order ")
           << AffineMapAttr::get(order) << " must map the " << numVariables
           << " intermediate variables to as many results";
  if (getType().getRank() != static_cast<int64_t>(numVariables))
    return emitOpError("result access tile has rank ")
           << getType().getRank() << " but there are " << numVariables << " intermediate variables";
  return success();
}

LogicalResult ConstructIndirectAccessTileOp::verifyStrict() {
  int64_t rank = cast<ShapedType>(getView().getType()).getRank();
  ArrayAttr maps = getPerDimSubscriptMaps();
  unsigned numVariables = getBody().front().getNumArguments();
  for (unsigned d = 0; d < maps.size(); ++d) {
    AffineMap map = cast<AffineMapAttr>(maps[d]).getValue();
    if (map.getNumSymbols() != 0)
      return emitOpError("subscript map #")
             << d << " must not have symbols, got " << AffineMapAttr::get(map);
    if (!isIndirectDim(d)) continue;
    auto indexType = cast<ShapedType>(getIndirectViewForDim(d).getType());
    if (!indexType.getElementType().isIntOrIndex())
      return emitOpError("index view of subscript #")
             << d << " must hold integers, got " << indexType.getElementType();
  }
  if (getType().getRank() != rank)
    return emitOpError("result access tile has rank ")
           << getType().getRank() << " but the view has rank " << rank;
  AffineMap order = getVariablesSpaceOrder();
  if (!order.isPermutation())
    return emitOpError("variables_space_order ")
           << AffineMapAttr::get(order) << " must be a permutation of the " << numVariables
           << " intermediate variables";
  IntegerSet set = getVariablesSpaceSet().getValue();
  SetBounds bounds = getSetBounds(set);
  if (bounds.isBox)
    for (unsigned k = 0; k < numVariables; ++k) {
      int64_t expected = *bounds.extent(order.getDimPosition(k));
      if (!getType().isDynamicDim(k) && getType().getDimSize(k) != expected)
        return emitOpError("result access tile dimension ")
               << k << " is " << getType().getDimSize(k)
               << " but variables_space_set, in variables_space_order, spans " << expected;
    }
  return success();
}

LogicalResult ConstructIndirectAccessTileOp::verifyRegions() {
  Block& body = getBody().front();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError("intermediate variables must be 'index', got ") << arg.getType();
  if (!llvm::hasSingleElement(body))
    return emitOpError("body may only declare the intermediate variables and end with "
                       "ktdp.region_terminator");
  return success();
}

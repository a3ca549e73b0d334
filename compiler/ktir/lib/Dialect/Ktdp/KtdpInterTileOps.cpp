//===- KtdpInterTileOps.cpp - inter-tile produce and delivery ops ---------===//
//
// Part of chipless. ktdp.inter_tile_produce and its six delivery ops. The delivery
// ops share one syntax, parser, printer and verifier, driven by a DeliverySpec that
// says what is specific to each op:
//
//   op        combine  placement  dimension attributes
//   consume   none     replicate  —
//   reduce    fold     replicate  —
//   reduce_scatter fold split     scatter_dimensions
//   gather    none     concat     gather_dimensions
//   all_to_all none    permute    split_dimensions, concat_dimensions
//   scatter   none     split      scatter_dimensions (no producer dependency)
//
// The verifiers check what upstream KTIR's do (R1 over the tiles the sets' own constant
// bounds give); verifyStrict (the ktdp-strict pass) checks the rest over the function's
// grid: here the producer's single use (R2) and R1 over the grid, in
// KtdpDeliveryLegality.cpp the delivery ops' group structure.
//
//===----------------------------------------------------------------------===//

#include "KtdpInterTile.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::ktdp;
using namespace mlir::ktdp::intertile;

/// Verifies that a tile set attribute has the shape (i)[symbols…].
LogicalResult intertile::verifyTileSetShape(Operation* op, StringRef name, IntegerSet set,
                                            unsigned minSymbols, unsigned maxSymbols,
                                            StringRef form) {
  if (set.getNumDims() != 1 || set.getNumSymbols() < minSymbols || set.getNumSymbols() > maxSymbols)
    return op->emitOpError() << name << " must be an integer set " << form << ", got "
                             << set.getNumDims() << " dimension(s) and " << set.getNumSymbols()
                             << " symbol(s)";
  return success();
}

DimensionLists intertile::dimensionLists(Operation* op, const DeliverySpec& spec) {
  DimensionLists lists;
  for (StringRef name : spec.dimAttrs) {
    ArrayRef<int64_t> dims = op->getAttrOfType<DenseI64ArrayAttr>(name).asArrayRef();
    bool concat = name == "gather_dimensions" || name == "concat_dimensions";
    (concat ? lists.concat : lists.split).assign(dims.begin(), dims.end());
    llvm::append_range(lists.touched, dims);
  }
  return lists;
}

//===----------------------------------------------------------------------===//
// inter_tile_produce
//===----------------------------------------------------------------------===//

ParseResult InterTileProduceOp::parse(OpAsmParser& parser, OperationState& result) {
  Attribute producers;
  SmallVector<Type> partialTypes;
  TileFutureType future;
  if (parser.parseKeyword("producer_tiles_per_group") || parser.parseEqual() ||
      parser.parseAttribute(producers, "producer_tiles_per_group", result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  SMLoc typesLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalColon()) && parser.parseTypeList(partialTypes))
    return failure();
  if (parser.parseArrow() || parser.parseCustomTypeWithFallback(future)) return failure();
  if (!partialTypes.empty() && ArrayRef(partialTypes) != future.getPartialTypes())
    return parser.emitError(typesLoc, "partial types do not match the tile_future type ") << future;
  result.addTypes(future);
  Region* body = result.addRegion();
  return parser.parseRegion(*body, /*arguments=*/{});
}

void InterTileProduceOp::print(OpAsmPrinter& printer) {
  printer << " producer_tiles_per_group = ";
  printer.printAttribute(getProducerTilesPerGroupAttr());
  printer.printOptionalAttrDict((*this)->getAttrs(), {"producer_tiles_per_group"});
  // Upstream's form: no `: T ->` (still accepted), the future type without its prefix.
  printer << " -> ";
  printer.printStrippedAttrOrType(getFuture().getType());
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/true, /*printBlockTerminators=*/true);
}

/// R1: no tile produces for two groups, over the groups `groupsOf` gives and the tiles
/// `tilesOf(g)` gives (nullopt: not enumerable, not checked).
template <typename Groups, typename Tiles>
static LogicalResult verifyDisjointProducers(InterTileProduceOp op, Groups groupsOf,
                                             Tiles tilesOf) {
  std::optional<SmallVector<int64_t>> groups = groupsOf();
  if (!groups) return success();
  DenseMap<int64_t, int64_t> groupOfTile;
  for (int64_t g : *groups) {
    std::optional<SmallVector<int64_t>> tiles = tilesOf(g);
    if (!tiles) return success();
    for (int64_t tile : *tiles) {
      auto [it, inserted] = groupOfTile.try_emplace(tile, g);
      if (!inserted)
        return op.emitOpError("producer groups must be disjoint, but tile ")
               << tile << " produces for groups " << it->second << " and " << g;
    }
  }
  return success();
}

LogicalResult InterTileProduceOp::verify() {
  // Upstream's rules: the producer set takes the group as its one symbol; R1 over the
  // groups and tiles the sets' own constant bounds give.
  IntegerSet producers = getProducerTilesPerGroup().getValue();
  if (producers.getNumSymbols() != 1)
    return emitOpError("producer_tiles_per_group must have exactly one symbol (the group "
                       "index g), got ")
           << producers.getNumSymbols();
  IntegerSet groups = getFuture().getType().getGroupSet();
  return verifyDisjointProducers(
      *this, [&] { return enumerateBoundedTiles(groups, {}, kMaxEnumeratedTiles); },
      [&](int64_t g) { return enumerateBoundedTiles(producers, {g}, kMaxEnumeratedTiles); });
}

LogicalResult InterTileProduceOp::verifyStrict() {
  IntegerSet producers = getProducerTilesPerGroup().getValue();
  if (failed(verifyTileSetShape(*this, "producer_tiles_per_group", producers, 1, 1,
                                "(i)[g] over tile ids with the group as symbol")))
    return failure();

  // R2: exactly one user, the delivery op.
  Value future = getFuture();
  unsigned uses = std::distance(future.use_begin(), future.use_end());
  if (uses != 1) {
    InFlightDiagnostic diag = emitOpError("tile future must have exactly one user (its delivery "
                                          "op), but it has ")
                              << uses;
    for (OpOperand& use : future.getUses())
      diag.attachNote(use.getOwner()->getLoc()) << "used here";
    return diag;
  }
  Operation* user = *future.user_begin();
  if (!isDeliveryOp(user))
    return emitOpError("tile future must be consumed by a ktdp delivery op, not by '")
           << user->getName() << "'";

  // R1 over the grid's tiles.
  int64_t numTiles = getEnclosingTileCount(*this);
  if (numTiles > kMaxEnumeratedTiles) return success();
  IntegerSet groups = getFuture().getType().getGroupSet();
  return verifyDisjointProducers(
      *this, [&] { return std::optional(enumerateGroups(groups, numTiles)); },
      [&](int64_t g) { return std::optional(enumerateTiles(producers, {g}, numTiles)); });
}

LogicalResult InterTileProduceOp::verifyRegions() {
  Block& body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("body must take exactly one 'index' argument (the group index)");
  auto yield = body.empty() ? YieldPartialOp() : dyn_cast<YieldPartialOp>(body.back());
  if (!yield) return emitOpError("body must end with ktdp.yield_partial");
  ArrayRef<Type> partials = getFuture().getType().getPartialTypes();
  if (TypeRange(yield.getValues()) != TypeRange(partials))
    return emitOpError("yield_partial yields ") // at this op, as upstream reports it
           << yield.getValues().size() << " value(s) of types "
           << formatList(yield.getValues().getTypes()) << " but the tile future carries "
           << formatList(partials);
  return success();
}

//===----------------------------------------------------------------------===//
// Delivery ops: syntax
//===----------------------------------------------------------------------===//

static ParseResult parseDimensionList(OpAsmParser& parser, Attribute& attr) {
  SmallVector<int64_t> dims;
  if (succeeded(parser.parseOptionalLSquare())) {
    if (failed(parser.parseOptionalRSquare())) {
      if (parser.parseCommaSeparatedList(
              [&]() { return parser.parseInteger(dims.emplace_back()); }) ||
          parser.parseRSquare())
        return failure();
    }
    attr = parser.getBuilder().getDenseI64ArrayAttr(dims);
    return success();
  }
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(attr)) return failure();
  if (!isa<DenseI64ArrayAttr>(attr)) return parser.emitError(loc, "expected a list of dimensions");
  return success();
}

/// `identity(%a : T1, %b : T2)` or `identity(%a, %b : T1, T2)`, after `identity`.
static ParseResult parseIdentityList(OpAsmParser& parser,
                                     SmallVectorImpl<OpAsmParser::UnresolvedOperand>& operands,
                                     SmallVectorImpl<Type>& types) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLParen()) return failure();
  if (succeeded(parser.parseOptionalRParen())) return success();
  do {
    if (parser.parseOperand(operands.emplace_back())) return failure();
    if (succeeded(parser.parseOptionalColon())) {
      if (parser.parseType(types.emplace_back())) return failure();
      while (types.size() < operands.size() && succeeded(parser.parseOptionalComma()))
        if (parser.parseType(types.emplace_back())) return failure();
    }
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseRParen()) return failure();
  if (types.size() != operands.size())
    return parser.emitError(loc, "identity has ")
           << operands.size() << " values but " << types.size() << " types";
  return success();
}

static ParseResult parseDelivery(OpAsmParser& parser, OperationState& result,
                                 const DeliverySpec& spec) {
  OpAsmParser::UnresolvedOperand future;
  Attribute consumers;
  SmallVector<OpAsmParser::UnresolvedOperand> identity;
  SmallVector<Type> identityTypes, resultTypes;
  TileFutureType futureType;
  if (parser.parseLParen() || parser.parseOperand(future) || parser.parseRParen() ||
      parser.parseKeyword("consumer_tiles_per_group") || parser.parseEqual() ||
      parser.parseAttribute(consumers, "consumer_tiles_per_group", result.attributes))
    return failure();
  bool sawIdentity = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key)) return failure();
    if (key == "identity" && spec.combine && !sawIdentity) {
      sawIdentity = true;
      if (parseIdentityList(parser, identity, identityTypes)) return failure();
      continue;
    }
    bool isDims = llvm::is_contained(spec.dimAttrs, key);
    bool isDependency = key == "producer_dependency_per_consumer" && spec.allowsDependency;
    if (!isDims && !isDependency) {
      std::string expected;
      for (StringRef k : spec.dimAttrs) expected += "'" + k.str() + "', ";
      if (spec.allowsDependency) expected += "'producer_dependency_per_consumer', ";
      if (spec.combine) expected += "'identity', ";
      return parser.emitError(loc, "unexpected '")
             << key << "'; expected "
             << (expected.empty() ? std::string("nothing")
                                  : expected.substr(0, expected.size() - 2));
    }
    if (result.attributes.get(key)) return parser.emitError(loc, "'") << key << "' given twice";
    Attribute value;
    if (parser.parseEqual()) return failure();
    if (isDims ? parseDimensionList(parser, value) : parser.parseAttribute(value)) return failure();
    result.addAttribute(key, value);
  }
  if (spec.combine && !sawIdentity)
    return parser.emitError(parser.getCurrentLocation(), "expected 'identity(...)'");
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseCustomTypeWithFallback(futureType) || parser.parseArrow())
    return failure();
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (parser.parseTypeList(resultTypes) || parser.parseRParen()))
      return failure();
  } else if (parser.parseTypeList(resultTypes)) {
    return failure();
  }
  if (parser.resolveOperand(future, futureType, result.operands) ||
      parser.resolveOperands(identity, identityTypes, parser.getCurrentLocation(), result.operands))
    return failure();
  result.addTypes(resultTypes);
  if (spec.combine && parser.parseRegion(*result.addRegion(), /*arguments=*/{})) return failure();
  return success();
}

static void printDelivery(OpAsmPrinter& printer, Operation* op, const DeliverySpec& spec) {
  printer << '(' << op->getOperand(0) << ") consumer_tiles_per_group = ";
  printer.printAttribute(op->getAttr("consumer_tiles_per_group"));
  SmallVector<StringRef> elided = {"consumer_tiles_per_group", "producer_dependency_per_consumer"};
  for (StringRef name : spec.dimAttrs) {
    elided.push_back(name);
    auto dims = dyn_cast_or_null<DenseI64ArrayAttr>(op->getAttr(name));
    printer << ", " << name << " = [";
    if (dims) llvm::interleaveComma(dims.asArrayRef(), printer);
    printer << ']';
  }
  if (Attribute dependency = op->getAttr("producer_dependency_per_consumer")) {
    printer << ", producer_dependency_per_consumer = ";
    printer.printAttribute(dependency);
  }
  if (spec.combine) {
    auto identity = op->getOperands().drop_front();
    printer << ", identity(";
    printer.printOperands(identity);
    if (!identity.empty()) {
      printer << " : ";
      llvm::interleaveComma(identity.getTypes(), printer);
    }
    printer << ')';
  }
  printer.printOptionalAttrDict(op->getAttrs(), elided);
  printer << " : ";
  printer.printStrippedAttrOrType(cast<TileFutureType>(op->getOperand(0).getType()));
  printer << " -> ";
  llvm::interleaveComma(op->getResultTypes(), printer);
  if (spec.combine) {
    printer << ' ';
    printer.printRegion(op->getRegion(0), /*printEntryBlockArgs=*/true,
                        /*printBlockTerminators=*/true);
  }
}

//===----------------------------------------------------------------------===//
// Delivery ops: verification
//===----------------------------------------------------------------------===//

/// Dimension lists: non-empty, strictly ascending, valid axes of every partial type.
static LogicalResult verifyDimensionList(Operation* op, StringRef name, ArrayRef<int64_t> dims,
                                         ArrayRef<Type> partials) {
  if (dims.empty()) return op->emitOpError() << name << " must name at least one dimension";
  for (unsigned i = 1; i < dims.size(); ++i)
    if (dims[i] <= dims[i - 1])
      return op->emitOpError() << name << " must be strictly ascending, got " << formatList(dims);
  for (Type t : partials) {
    int64_t rank = cast<RankedTensorType>(t).getRank();
    if (dims.front() < 0 || dims.back() >= rank)
      return op->emitOpError() << name << " " << formatList(dims)
                               << " names a dimension outside the partial type " << t;
  }
  return success();
}

/// Result types that do not depend on the number of tiles: rank, element type, the
/// axes no dimension list touches; for `replicate`, the partial type or a reshape.
static LogicalResult verifyResultShapes(Operation* op, const DeliverySpec& spec,
                                        ArrayRef<Type> partials, ArrayRef<int64_t> touched) {
  for (auto [i, pair] : llvm::enumerate(llvm::zip(partials, op->getResultTypes()))) {
    auto partial = cast<RankedTensorType>(std::get<0>(pair));
    auto result = cast<RankedTensorType>(std::get<1>(pair));
    if (spec.placement == Placement::Replicate) {
      bool reshape = partial.hasStaticShape() && result.hasStaticShape() &&
                     partial.getElementType() == result.getElementType() &&
                     partial.getNumElements() == result.getNumElements();
      if (result != partial && !reshape)
        return op->emitOpError("result #")
               << i << " has type " << result << " but the partial type is " << partial
               << " (a result has the partial's type, or is a reshape of it)";
      continue;
    }
    if (result.getRank() != partial.getRank() ||
        result.getElementType() != partial.getElementType())
      return op->emitOpError("result #")
             << i << " has type " << result << " but must keep the rank and element type of "
             << partial;
    for (int64_t d = 0; d < partial.getRank(); ++d)
      if (!llvm::is_contained(touched, d) && !result.isDynamicDim(d) && !partial.isDynamicDim(d) &&
          result.getDimSize(d) != partial.getDimSize(d))
        return op->emitOpError("result #")
               << i << " changes dimension " << d << " (" << partial.getDimSize(d) << " -> "
               << result.getDimSize(d) << "), which no dimension list names";
  }
  return success();
}

/// The identity operands and the combiner of reduce and reduce_scatter.
static LogicalResult verifyCombiner(Operation* op, ArrayRef<Type> partials) {
  auto identity = op->getOperands().drop_front();
  if (identity.size() != partials.size())
    return op->emitOpError("needs one identity per partial role (")
           << partials.size() << "), got " << identity.size();
  for (auto [i, value] : llvm::enumerate(identity))
    if (value.getType() != partials[i])
      return op->emitOpError("identity #")
             << i << " has type " << value.getType() << " but the partial type is " << partials[i];

  Region& combiner = op->getRegion(0);
  Block& body = combiner.front();
  SmallVector<Type> expected(partials);
  llvm::append_range(expected, partials);
  if (TypeRange(body.getArgumentTypes()) != TypeRange(expected))
    return op->emitOpError("combiner must take ")
           << expected.size() << " arguments (lhs then rhs of each partial role) of types "
           << formatList(expected) << ", got " << formatList(body.getArgumentTypes());
  auto yield = body.empty() ? YieldReducedOp() : dyn_cast<YieldReducedOp>(body.back());
  if (!yield) return op->emitOpError("combiner must end with ktdp.yield_reduced");
  if (TypeRange(yield.getValues()) != TypeRange(partials))
    return op->emitOpError("yield_reduced yields ") // at this op, as upstream reports it
           << formatList(yield.getValues().getTypes()) << " but the partial types are "
           << formatList(partials);
  return success();
}

static LogicalResult verifyDelivery(Operation* op, const DeliverySpec& spec) {
  auto futureType = cast<TileFutureType>(op->getOperand(0).getType());
  ArrayRef<Type> partials = futureType.getPartialTypes();
  if (op->getNumResults() != partials.size())
    return op->emitOpError("has ") << op->getNumResults() << " results but the tile future carries "
                                   << partials.size() << " partial role(s)";

  // Upstream's rules on the sets: the consumer set takes the group as its one symbol, a
  // dependency set the consumer (and the group).
  IntegerSet consumerSet = op->getAttrOfType<IntegerSetAttr>("consumer_tiles_per_group").getValue();
  if (consumerSet.getNumSymbols() != 1)
    return op->emitOpError("consumer_tiles_per_group must have exactly one symbol (the group "
                           "index g), got ")
           << consumerSet.getNumSymbols();
  if (isa<InterTileConsumeOp>(op) && consumerSet.getNumDims() != 1) // upstream checks it here
    return op->emitOpError("consumer_tiles_per_group must have exactly one dimension (the tile "
                           "id i), got ")
           << consumerSet.getNumDims();
  if (auto attr = op->getAttrOfType<IntegerSetAttr>("producer_dependency_per_consumer"))
    if (failed(verifyTileSetShape(op, "producer_dependency_per_consumer", attr.getValue(), 1, 2,
                                  "(p)[c] or (p)[c, g] over producer tile ids")))
      return failure();

  if (spec.combine && failed(verifyCombiner(op, partials))) return failure();

  for (StringRef name : spec.dimAttrs)
    if (failed(verifyDimensionList(
            op, name, op->getAttrOfType<DenseI64ArrayAttr>(name).asArrayRef(), partials)))
      return failure();
  return verifyResultShapes(op, spec, partials, dimensionLists(op, spec).touched);
}

//===----------------------------------------------------------------------===//
// Delivery ops: hooks
//===----------------------------------------------------------------------===//

ParseResult InterTileConsumeOp::parse(OpAsmParser& parser, OperationState& result) {
  return parseDelivery(parser, result, deliverySpec<InterTileConsumeOp>());
}
void InterTileConsumeOp::print(OpAsmPrinter& p) {
  printDelivery(p, *this, deliverySpec<InterTileConsumeOp>());
}
LogicalResult InterTileConsumeOp::verify() {
  return verifyDelivery(*this, deliverySpec<InterTileConsumeOp>());
}
LogicalResult InterTileConsumeOp::verifyStrict() {
  return verifyDeliveryStrict(*this, deliverySpec<InterTileConsumeOp>());
}

ParseResult InterTileReduceOp::parse(OpAsmParser& parser, OperationState& result) {
  return parseDelivery(parser, result, deliverySpec<InterTileReduceOp>());
}
void InterTileReduceOp::print(OpAsmPrinter& p) {
  printDelivery(p, *this, deliverySpec<InterTileReduceOp>());
}
LogicalResult InterTileReduceOp::verify() {
  return verifyDelivery(*this, deliverySpec<InterTileReduceOp>());
}
LogicalResult InterTileReduceOp::verifyStrict() {
  return verifyDeliveryStrict(*this, deliverySpec<InterTileReduceOp>());
}

ParseResult InterTileReduceScatterOp::parse(OpAsmParser& parser, OperationState& result) {
  return parseDelivery(parser, result, deliverySpec<InterTileReduceScatterOp>());
}
void InterTileReduceScatterOp::print(OpAsmPrinter& p) {
  printDelivery(p, *this, deliverySpec<InterTileReduceScatterOp>());
}
LogicalResult InterTileReduceScatterOp::verify() {
  return verifyDelivery(*this, deliverySpec<InterTileReduceScatterOp>());
}
LogicalResult InterTileReduceScatterOp::verifyStrict() {
  return verifyDeliveryStrict(*this, deliverySpec<InterTileReduceScatterOp>());
}

ParseResult InterTileGatherOp::parse(OpAsmParser& parser, OperationState& result) {
  return parseDelivery(parser, result, deliverySpec<InterTileGatherOp>());
}
void InterTileGatherOp::print(OpAsmPrinter& p) {
  printDelivery(p, *this, deliverySpec<InterTileGatherOp>());
}
LogicalResult InterTileGatherOp::verify() {
  return verifyDelivery(*this, deliverySpec<InterTileGatherOp>());
}
LogicalResult InterTileGatherOp::verifyStrict() {
  return verifyDeliveryStrict(*this, deliverySpec<InterTileGatherOp>());
}

ParseResult InterTileAllToAllOp::parse(OpAsmParser& parser, OperationState& result) {
  return parseDelivery(parser, result, deliverySpec<InterTileAllToAllOp>());
}
void InterTileAllToAllOp::print(OpAsmPrinter& p) {
  printDelivery(p, *this, deliverySpec<InterTileAllToAllOp>());
}
LogicalResult InterTileAllToAllOp::verify() {
  return verifyDelivery(*this, deliverySpec<InterTileAllToAllOp>());
}
LogicalResult InterTileAllToAllOp::verifyStrict() {
  return verifyDeliveryStrict(*this, deliverySpec<InterTileAllToAllOp>());
}

ParseResult InterTileScatterOp::parse(OpAsmParser& parser, OperationState& result) {
  return parseDelivery(parser, result, deliverySpec<InterTileScatterOp>());
}
void InterTileScatterOp::print(OpAsmPrinter& p) {
  printDelivery(p, *this, deliverySpec<InterTileScatterOp>());
}
LogicalResult InterTileScatterOp::verify() {
  return verifyDelivery(*this, deliverySpec<InterTileScatterOp>());
}
LogicalResult InterTileScatterOp::verifyStrict() {
  return verifyDeliveryStrict(*this, deliverySpec<InterTileScatterOp>());
}

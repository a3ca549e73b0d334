//===- KtdpTypes.cpp - ktdp types -----------------------------------------===//
//
// Part of chipless. Parsing, printing and verification of !ktdp.access_tile,
// !ktdp.runtime_arg and !ktdp.tile_future.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Ktdp/KtdpTypes.h"

#include "ktir/Dialect/Ktdp/KtdpDialect.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ktdp;

#define GET_TYPEDEF_CLASSES
#include "ktir/Dialect/Ktdp/KtdpTypes.cpp.inc"

void KtdpDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ktir/Dialect/Ktdp/KtdpTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// !ktdp.access_tile<d0 x d1 x … x index>
//===----------------------------------------------------------------------===//

Type AccessTileType::parse(AsmParser& parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true, /*withTrailingX=*/true) ||
      parser.parseType(element) || parser.parseGreater())
    return {};
  if (!element.isIndex()) {
    parser.emitError(loc, "access tile elements must be 'index', got ") << element;
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), shape);
}

void AccessTileType::print(AsmPrinter& printer) const {
  printer << '<';
  printer.printDimensionList(getShape());
  if (!getShape().empty()) printer << 'x';
  printer << "index>";
}

LogicalResult AccessTileType::verify(function_ref<InFlightDiagnostic()> emitError,
                                     ArrayRef<int64_t> shape) {
  for (int64_t d : shape)
    if (d < 0 && !ShapedType::isDynamic(d))
      return emitError() << "access tile dimensions must be non-negative or '?', got " << d;
  return success();
}

Type AccessTileType::getElementType() const {
  return IndexType::get(getContext());
}

ShapedType AccessTileType::cloneWith(std::optional<ArrayRef<int64_t>> shape, Type) const {
  return AccessTileType::get(getContext(), shape.value_or(getShape()));
}

//===----------------------------------------------------------------------===//
// !ktdp.runtime_arg<T[, granularity = G][, upperbound = U]>
//===----------------------------------------------------------------------===//

Type RuntimeArgType::parse(AsmParser& parser) {
  SMLoc loc = parser.getCurrentLocation();
  Type underlying;
  std::optional<int64_t> granularity, upperbound;
  if (parser.parseLess() || parser.parseType(underlying)) return {};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    int64_t value = 0;
    if (parser.parseKeyword(&key) || parser.parseEqual() || parser.parseInteger(value)) return {};
    std::optional<int64_t>* slot = key == "granularity"  ? &granularity
                                   : key == "upperbound" ? &upperbound
                                                         : nullptr;
    if (!slot) {
      parser.emitError(keyLoc, "expected 'granularity' or 'upperbound', got '") << key << "'";
      return {};
    }
    if (*slot) {
      parser.emitError(keyLoc, "'") << key << "' given twice";
      return {};
    }
    *slot = value;
  }
  if (parser.parseGreater()) return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), underlying,
                    granularity, upperbound);
}

void RuntimeArgType::print(AsmPrinter& printer) const {
  printer << '<' << getUnderlyingType();
  // As upstream prints it: `granularity=64`, no spaces.
  if (getGranularity()) printer << ", granularity=" << *getGranularity();
  if (getUpperbound()) printer << ", upperbound=" << *getUpperbound();
  printer << '>';
}

LogicalResult RuntimeArgType::verify(function_ref<InFlightDiagnostic()> emitError,
                                     Type underlyingType, std::optional<int64_t> granularity,
                                     std::optional<int64_t> upperbound) {
  if (!underlyingType.isIntOrIndexOrFloat())
    return emitError() << "runtime_arg must wrap an integer, index or float type, got "
                       << underlyingType;
  if (granularity && *granularity <= 0)
    return emitError() << "runtime_arg granularity must be positive, got " << *granularity;
  if (upperbound && *upperbound <= 0)
    return emitError() << "runtime_arg upperbound must be positive, got " << *upperbound;
  return success();
}

//===----------------------------------------------------------------------===//
// !ktdp.tile_future<T | (T, …), [groups =] set>
//===----------------------------------------------------------------------===//

/// The text of an inline `affine_set<…>` at `at` whose `>=` the source preparation
/// (ktir/ParseGuard.h) wrote as `->` so that MLIR's scan of a `!ktdp.tile_future<…>` body
/// can balance its brackets, with the `>=` restored; nullopt for any other text.
static std::optional<std::string> rewrittenInlineSet(const char* at) {
  llvm::StringRef text(at);
  if (!text.starts_with("affine_set<")) return std::nullopt;
  int depth = 0;
  bool arrow = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      arrow = true;
      ++i;
    } else if (c == '<' || c == '(') {
      ++depth;
    } else if (c == '>' || c == ')') {
      if (--depth == 0) {
        if (!arrow) return std::nullopt;
        std::string set = text.take_front(i + 1).str();
        for (size_t p = set.find("->"); p != std::string::npos; p = set.find("->", p + 2))
          set.replace(p, 2, ">=");
        return set;
      }
    } else if (c == '\0' || c == '\n') {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Type TileFutureType::parse(AsmParser& parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<Type> partials;
  IntegerSetAttr groups;
  // Set when the group set was read from the source text (see rewrittenInlineSet): the
  // rest of the body is then not read token by token.
  bool fromText = false;
  // An integer set with `>=` written inline in `!ktdp.tile_future<…>` (MLIR's lexer
  // cannot balance it), as ktir-cpu's kernels write it: read from the text at `setLoc`.
  auto parseTextSet = [&](SMLoc setLoc, const std::string& text) -> ParseResult {
    std::string diagnostic;
    Attribute attr;
    {
      ScopedDiagnosticHandler capture(parser.getContext(), [&](Diagnostic& d) {
        diagnostic = d.str();
        return success();
      });
      attr = mlir::parseAttribute(text, parser.getContext());
    }
    groups = llvm::dyn_cast_or_null<IntegerSetAttr>(attr);
    if (!groups)
      return parser.emitError(setLoc, "expected an integer set of group indices")
             << (diagnostic.empty() ? "" : ": ") << diagnostic;
    fromText = true;
    return success();
  };
  // The group set, after an optional `groups =`.
  auto parseGroups = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalKeyword("groups")) && parser.parseEqual()) return failure();
    SMLoc setLoc = parser.getCurrentLocation();
    if (std::optional<std::string> text = rewrittenInlineSet(setLoc.getPointer()))
      return parseTextSet(setLoc, *text);
    Attribute attr;
    if (parser.parseAttribute(attr)) return failure();
    groups = llvm::dyn_cast<IntegerSetAttr>(attr);
    if (!groups) return parser.emitError(setLoc, "expected an integer set of group indices");
    return success();
  };
  if (parser.parseLess()) return {};
  if (succeeded(parser.parseOptionalLParen())) {
    // (T1, T2, …), groups
    if (parser.parseTypeList(partials) || parser.parseRParen() || parser.parseComma() ||
        parseGroups())
      return {};
  } else {
    // T1[, T2 …], groups: elements are types until the set (or `groups =`).
    while (!groups) {
      if (!partials.empty() && parser.parseComma()) return {};
      if (!partials.empty() && succeeded(parser.parseOptionalKeyword("groups"))) {
        if (parser.parseEqual()) return {};
      }
      SMLoc elementLoc = parser.getCurrentLocation();
      if (std::optional<std::string> text = rewrittenInlineSet(elementLoc.getPointer())) {
        if (parseTextSet(elementLoc, *text)) return {};
        break;
      }
      Attribute attr;
      if (parser.parseAttribute(attr)) return {};
      if (auto set = llvm::dyn_cast<IntegerSetAttr>(attr)) {
        groups = set;
      } else if (auto type = llvm::dyn_cast<TypeAttr>(attr)) {
        partials.push_back(type.getValue());
      } else {
        parser.emitError(elementLoc, "expected a partial type or the group set");
        return {};
      }
    }
  }
  if (!fromText && parser.parseGreater()) return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), partials, groups);
}

void TileFutureType::print(AsmPrinter& printer) const {
  // Upstream's form: the partial types always in parentheses.
  printer << "<(";
  llvm::interleaveComma(getPartialTypes(), printer);
  printer << "), groups = ";
  printer.printAttribute(getGroups());
  printer << '>';
}

LogicalResult TileFutureType::verify(function_ref<InFlightDiagnostic()> emitError,
                                     ArrayRef<Type> partialTypes, IntegerSetAttr groups) {
  if (partialTypes.empty()) return emitError() << "tile_future needs at least one partial type";
  for (Type t : partialTypes)
    if (!llvm::isa<RankedTensorType>(t))
      return emitError() << "tile_future partial types must be ranked tensors, got " << t;
  if (!groups) return emitError() << "tile_future needs a group set";
  IntegerSet set = groups.getValue();
  if (set.getNumDims() != 1 || set.getNumSymbols() != 0)
    return emitError() << "tile_future groups must be a set over one dimension (g) without "
                          "symbols, got "
                       << set.getNumDims() << " dimension(s) and " << set.getNumSymbols()
                       << " symbol(s)";
  return success();
}

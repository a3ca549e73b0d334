//===- KtdpAttrs.cpp - ktdp attributes ------------------------------------===//
//
// Part of chipless. Parsing, printing and verification of the two memory-space
// spellings, and the memory-space interface over both.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Ktdp/KtdpAttrs.h"

#include "ktir/Dialect/Ktdp/KtdpDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ktdp;

#include "ktir/Dialect/Ktdp/KtdpAttrInterfaces.cpp.inc"
#include "ktir/Dialect/Ktdp/KtdpEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ktir/Dialect/Ktdp/KtdpAttrs.cpp.inc"

void KtdpDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ktir/Dialect/Ktdp/KtdpAttrs.cpp.inc"
      >();
}

namespace {

/// Parses `<` keyword [`,` idKey `=` integer] `>` into (keyword, id).
ParseResult parseKindAndId(AsmParser& parser, StringRef idKey, StringRef& kind,
                           std::optional<int64_t>& id) {
  if (parser.parseLess() || parser.parseKeyword(&kind)) return failure();
  if (succeeded(parser.parseOptionalComma())) {
    int64_t value = 0;
    if (parser.parseKeyword(idKey) || parser.parseEqual() || parser.parseInteger(value))
      return failure();
    id = value;
  }
  return parser.parseGreater();
}

} // namespace

//===----------------------------------------------------------------------===//
// #ktdp.memory_space<global | ct_local[, ct_id = N]>
//===----------------------------------------------------------------------===//

Attribute MemorySpaceAttr::parse(AsmParser& parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  std::optional<int64_t> ctId;
  if (parseKindAndId(parser, "ct_id", keyword, ctId)) return {};
  std::optional<MemorySpaceKind> kind = symbolizeMemorySpaceKind(keyword);
  if (!kind) {
    parser.emitError(loc, "expected 'global' or 'ct_local', got '") << keyword << "'";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), *kind, ctId);
}

void MemorySpaceAttr::print(AsmPrinter& printer) const {
  printer << '<' << stringifyMemorySpaceKind(getKind());
  if (getCtId()) printer << ", ct_id = " << *getCtId();
  printer << '>';
}

LogicalResult MemorySpaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      MemorySpaceKind kind, std::optional<int64_t> ctId) {
  if (ctId && kind != MemorySpaceKind::CtLocal)
    return emitError() << "'ct_id' is only valid with 'ct_local' memory";
  if (ctId && *ctId < 0) return emitError() << "'ct_id' must be non-negative, got " << *ctId;
  return success();
}

bool MemorySpaceAttr::isGlobal() const {
  return getKind() == MemorySpaceKind::Global;
}

std::optional<int64_t> MemorySpaceAttr::getOwnerTileId() const {
  return getCtId();
}

//===----------------------------------------------------------------------===//
// #ktdp.spyre_memory_space<HBM | LX | L0 | unspecified[, core = N]>
//===----------------------------------------------------------------------===//

Attribute SpyreMemorySpaceAttr::parse(AsmParser& parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  std::optional<int64_t> core;
  if (parseKindAndId(parser, "core", keyword, core)) return {};
  std::optional<SpyreMemorySpaceKind> kind = symbolizeSpyreMemorySpaceKind(keyword);
  if (!kind) {
    parser.emitError(loc, "expected 'HBM', 'LX', 'L0' or 'unspecified', got '") << keyword << "'";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), *kind, core);
}

void SpyreMemorySpaceAttr::print(AsmPrinter& printer) const {
  printer << '<' << stringifySpyreMemorySpaceKind(getKind());
  if (getCore()) printer << ", core = " << *getCore();
  printer << '>';
}

LogicalResult SpyreMemorySpaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           SpyreMemorySpaceKind kind, std::optional<int64_t> core) {
  if (core && kind != SpyreMemorySpaceKind::LX && kind != SpyreMemorySpaceKind::L0)
    return emitError() << "'core' is only valid with 'LX' or 'L0' memory";
  if (core && *core < 0) return emitError() << "'core' must be non-negative, got " << *core;
  return success();
}

bool SpyreMemorySpaceAttr::isGlobal() const {
  return getKind() == SpyreMemorySpaceKind::HBM;
}

std::optional<int64_t> SpyreMemorySpaceAttr::getOwnerTileId() const {
  return getCore();
}

//===- SpyreopDialect.cpp - the spyreop dialect ---------------------------===//
//
// Part of chipless. Registers the intrinsics, number formats and enum attributes.
//
//===----------------------------------------------------------------------===//

#include "ktir/Dialect/Spyreop/SpyreopOps.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::spyreop;

#include "ktir/Dialect/Spyreop/SpyreopDialect.cpp.inc"
#include "ktir/Dialect/Spyreop/SpyreopEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ktir/Dialect/Spyreop/SpyreopTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ktir/Dialect/Spyreop/SpyreopAttrs.cpp.inc"

void SpyreopDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ktir/Dialect/Spyreop/SpyreopOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

void SpyreopDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ktir/Dialect/Spyreop/SpyreopTypes.cpp.inc"
      >();
}

void SpyreopDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ktir/Dialect/Spyreop/SpyreopAttrs.cpp.inc"
      >();
}

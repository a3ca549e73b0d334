//===- DfirDialect.h - the dfir (DataflowIR) dialect ------------*- C++ -*-===//
//
// Part of chipless. See DfirDialect.td.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_DIALECT_DFIR_DFIRDIALECT_H
#define DATAFLOW_DIALECT_DFIR_DFIRDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

// clang-format off
#include "dataflow/Dialect/Dfir/DfirDialect.h.inc"
// clang-format on

#endif // DATAFLOW_DIALECT_DFIR_DFIRDIALECT_H

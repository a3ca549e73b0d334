//===- tpu_opt_main.cpp - tpu-opt: the TPU compiler's passes one by one ---===//
//
// Part of chipless. The MlirOptMain driver over tensor graphs (docs/graph-ir.md) and the tpu
// dialect: `tpu-opt g.mlir --tpu-target=arch=v4 --tpu-verify-graph --tpu-decompose ...` runs
// the passes of tpu-compile one at a time (for the lit tests of each pass);
// `-verify-diagnostics` and `-split-input-file` work as in mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tpuc/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  chipless::tpuc::registerTpuDialects(registry);
  chipless::tpuc::registerTpuPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tpu-opt: the TPU compiler's passes over tensor graphs\n", registry));
}

//===- tpu_opt_main.cpp - tpu-opt: the TPU compiler's passes one by one ---===//
//
// Part of chipless. The MlirOptMain driver over tensor graphs (docs/graph-ir.md) and the tpu
// dialect: `tpu-opt g.mlir --tpu-target=arch=v4 --tpu-verify-graph --tpu-decompose ...` runs
// the passes of tpu-compile one at a time (for the lit tests of each pass);
// `-verify-diagnostics` and `-split-input-file` work as in mlir-opt. Each input chunk goes
// through the ParseGuard check first (GuardedOptMain.h), as in ktir-opt and tpu-compile, so
// text that would crash MLIR 19's parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#include "ktir/GuardedOptMain.h"
#include "mlir/IR/DialectRegistry.h"
#include "tpuc/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  chipless::tpuc::registerTpuDialects(registry);
  chipless::tpuc::registerTpuPasses();
  return chipless::ktir::guardedOptMain(
      argc, argv, "tpu-opt: the TPU compiler's passes over tensor graphs\n", registry);
}

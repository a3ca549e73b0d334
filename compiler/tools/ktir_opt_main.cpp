//===- ktir_opt_main.cpp - ktir-opt: parse, verify, transform, print KTIR -===//
//
// Part of chipless. The MlirOptMain driver over the ktdp and spyreop dialects and the
// upstream dialects KTIR uses: `ktir-opt kernel.mlir` parses, verifies and prints;
// `-verify-diagnostics`, `-split-input-file` and upstream passes work as in mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "ktir/KtirRegistration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  chipless::ktir::registerKtirDialects(registry);
  chipless::ktir::registerKtirPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ktir-opt: KTIR (ktdp, spyreop) optimizer driver\n", registry));
}

//===- ktir_opt_main.cpp - ktir-opt: parse, verify, transform, print KTIR -===//
//
// Part of chipless. The MlirOptMain driver over the ktdp and spyreop dialects and the
// upstream dialects KTIR uses: `ktir-opt kernel.mlir` parses, verifies and prints;
// `-verify-diagnostics`, `-split-input-file` and upstream passes work as in mlir-opt.
// Each input chunk goes through the ParseGuard check first (GuardedOptMain.h), so text that
// would crash MLIR 19's parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#include "ktir/GuardedOptMain.h"
#include "ktir/KtirRegistration.h"
#include "mlir/IR/DialectRegistry.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  chipless::ktir::registerKtirDialects(registry);
  chipless::ktir::registerKtirPasses();
  return chipless::ktir::guardedOptMain(
      argc, argv, "ktir-opt: KTIR (ktdp, spyreop) optimizer driver\n", registry);
}

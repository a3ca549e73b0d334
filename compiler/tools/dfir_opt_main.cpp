//===- dfir_opt_main.cpp - dfir-opt: parse, verify, transform, emit -------===//
//
// Part of chipless. The MlirOptMain driver over DataflowIR (dfir, arith, scf):
// `dfir-opt k.mlir` parses, verifies and prints; `-verify-diagnostics`,
// `-split-input-file` and upstream passes work as in mlir-opt. `--emit-spyrecode=DIR`
// also writes the SpyreCode directory of the job (after any passes given), for
// `spyre-sim run DIR/job.plan`; `--arch FILE` and `--set key.path=value` choose the chip.
// Each input chunk goes through the ParseGuard check first (GuardedOptMain.h), so text
// that would crash MLIR 19's parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#include "dataflow/DfirRegistration.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "ktir/GuardedOptMain.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CommandLine.h"

static llvm::cl::opt<std::string>
    emitDir("emit-spyrecode", llvm::cl::value_desc("DIR"),
            llvm::cl::desc("write the SpyreCode directory of the dfir.job to DIR"));
static llvm::cl::opt<std::string>
    archFile("arch", llvm::cl::value_desc("FILE"),
             llvm::cl::desc("architecture description for --emit-spyrecode (default: "
                            "models/hw/spyre.yaml)"));
static llvm::cl::list<std::string>
    archOverrides("set", llvm::cl::value_desc("key.path=value"),
                  llvm::cl::desc("override one architecture parameter (repeatable)"));

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  chipless::dataflow::registerDfirDialects(registry);
  chipless::dataflow::registerDfirPasses();
  return chipless::ktir::guardedOptMain(
      argc, argv, "dfir-opt: DataflowIR (dfir) optimizer driver and SpyreCode emitter\n", registry,
      [](mlir::MlirOptMainConfig& config) {
        if (emitDir.empty()) return;
        chipless::dataflow::EmitSpyreCodeOptions options;
        options.dir = emitDir;
        options.archFile = archFile;
        options.overrides.assign(archOverrides.begin(), archOverrides.end());
        mlir::MlirOptMainConfig base = config;
        config.setPassPipelineSetupFn([base, options](mlir::PassManager& pm) {
          if (mlir::failed(base.setupPassPipeline(pm))) return mlir::failure();
          pm.addPass(chipless::dataflow::createEmitSpyreCodePass(options));
          return mlir::success();
        });
      });
}

//===- EmitSpyreCodePass.cpp - the dfir-emit-spyrecode pass ---------------===//
//
// Part of chipless. Emits every dfir.job of the module and writes its SpyreCode
// directory: `dfir-opt k.mlir --emit-spyrecode=DIR`, or in a pipeline
// `dfir-emit-spyrecode{dir=DIR arch=FILE set=chip.cores=16}`.
//
//===----------------------------------------------------------------------===//

#include "dataflow/Emit/EmitSpyreCode.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "support/spyrecode/directory.h"

using namespace mlir;

namespace {

struct EmitSpyreCodePass : PassWrapper<EmitSpyreCodePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitSpyreCodePass)

  EmitSpyreCodePass() = default;
  EmitSpyreCodePass(const EmitSpyreCodePass& other) : PassWrapper(other) {}
  explicit EmitSpyreCodePass(const chipless::dataflow::EmitSpyreCodeOptions& options) {
    dir = options.dir;
    arch = options.archFile;
    overrides = options.overrides;
  }

  StringRef getArgument() const final { return "dfir-emit-spyrecode"; }
  StringRef getDescription() const final {
    return "Emit every dfir.job as a SpyreCode directory (job.plan + init.bin)";
  }

  Option<std::string> dir{*this, "dir",
                          llvm::cl::desc("output directory (several jobs: DIR/NAME)")};
  Option<std::string> arch{*this, "arch",
                           llvm::cl::desc("architecture description (default: spyre.yaml)")};
  ListOption<std::string> overrides{*this, "set",
                                    llvm::cl::desc("key.path=value architecture overrides")};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (dir.empty()) {
      mlir::emitError(module.getLoc(), "dfir-emit-spyrecode needs dir=DIR");
      return signalPassFailure();
    }
    auto jobs = llvm::to_vector(module.getOps<dfir::JobOp>());
    if (jobs.empty()) {
      mlir::emitError(module.getLoc(), "no dfir.job to emit");
      return signalPassFailure();
    }
    try {
      std::vector<std::string> sets(overrides.begin(), overrides.end());
      chipless::SpyreArch description =
          chipless::SpyreArch::load(chipless::SpyreArch::resolveFile(arch), sets);
      for (dfir::JobOp job : jobs) {
        FailureOr<chipless::spyrecode::Job> emitted =
            chipless::dataflow::emitSpyreCode(job, description);
        if (failed(emitted)) {
          signalPassFailure();
          continue;
        }
        std::string path =
            jobs.size() == 1 ? std::string(dir) : std::string(dir) + "/" + job.getSymName().str();
        chipless::spyrecode::writeJob(path, *emitted);
      }
    } catch (const std::exception& e) {
      mlir::emitError(module.getLoc()) << e.what();
      signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass>
chipless::dataflow::createEmitSpyreCodePass(const EmitSpyreCodeOptions& options) {
  return std::make_unique<EmitSpyreCodePass>(options);
}

void chipless::dataflow::registerEmitSpyreCodePass() {
  PassRegistration<EmitSpyreCodePass>();
}

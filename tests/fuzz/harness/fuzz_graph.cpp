/// libFuzzer harness: tensor graphs (docs/graph-ir.md), through both graph compilers as
/// spyre-compile and tpu-compile run them: the ParseGuard, MLIR's parser and verifiers,
/// then on what verifies the Spyre front end (grouping, division, KTIR, the Dataflow
/// Scheduler, linking) for the bundled Spyre card and the TPU compiler's whole pass
/// pipeline, assembly emitter and assembler for the bundled TPU v5e.
#include "frontend/Frontend.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "tests/fuzz/harness/fuzz_mlir.h"
#include "tests/fuzz/harness/fuzz_util.h"
#include "tpuc/Passes.h"

namespace {

/// spyre-compile on a graph.
void compileForSpyre(const std::string& text) {
  using namespace chipless;
  fuzz::MlirInput input(fuzz::spyreCompileDialects(), text, "fuzz_graph (spyre)");
  mlir::OwningOpRef<mlir::ModuleOp> module = input.parse();
  input.requireErrorIf(!module, "parsing");
  if (!module || !frontend::isTensorGraph(*module)) return;
  auto job = frontend::compileGraph(*module, fuzz::bundledSpyre(), {});
  input.requireErrorIf(mlir::failed(job), "the Spyre front end");
}

/// tpu-compile on a graph.
void compileForTpu(const std::string& text) {
  using namespace chipless;
  static const mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    tpuc::registerTpuDialects(r);
    return r;
  }();
  static const TpuArch arch = TpuArch::load(TpuArch::defaultFile());
  fuzz::MlirInput input(registry, text, "fuzz_graph (tpu)");
  mlir::OwningOpRef<mlir::ModuleOp> module = input.parse();
  input.requireErrorIf(!module, "parsing");
  if (!module) return;
  for (auto& [name, pass] : tpuc::tpuPipeline("", {})) {
    mlir::PassManager pm(&input.context());
    pm.addPass(std::move(pass));
    const bool failed = mlir::failed(pm.run(*module));
    input.requireErrorIf(failed, name.c_str());
    if (failed) return;
  }
  mlir::FailureOr<std::string> assembly = tpuc::emitTpuAssembly(*module);
  input.requireErrorIf(mlir::failed(assembly), "the TPU assembly emitter");
  if (mlir::failed(assembly)) return;
  // The compiler's own assembly must assemble: an error here is the compiler's bug.
  try {
    (void)tpuprog::assemble(*assembly, "generated program.s",
                            tpuprog::AssembleOptions::forArch(arch));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_graph: tpu-compile's assembly does not assemble: %s\n", e.what());
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless;
  const std::string text = fuzz::asText(data, size);
  fuzz::expectCleanError("fuzz_graph", [&] { compileForSpyre(text); });
  fuzz::expectCleanError("fuzz_graph", [&] { compileForTpu(text); });
  return 0;
}

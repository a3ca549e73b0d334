/// libFuzzer harness: KTIR kernels, through everything spyre-compile does with one: the
/// ParseGuard, MLIR's parser and the ktdp/spyreop verifiers, then (on what verifies) the
/// printed form parsed back as ktir-opt's output would be, and the whole compile: strict
/// legality, the Dataflow Scheduler and the SpyreCode emitter, for the bundled Spyre card.
#include "dataflow/Emit/EmitSpyreCode.h"
#include "dataflow/Scheduler/Scheduler.h"
#include "tests/fuzz/harness/fuzz_mlir.h"
#include "tests/fuzz/harness/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless;
  const mlir::DialectRegistry& registry = fuzz::spyreCompileDialects();
  const SpyreArch& arch = fuzz::bundledSpyre();
  const std::string text = fuzz::asText(data, size);
  fuzz::expectCleanError("fuzz_ktir", [&] {
    fuzz::MlirInput input(registry, text, "fuzz_ktir");
    mlir::OwningOpRef<mlir::ModuleOp> module = input.parse();
    input.requireErrorIf(!module, "parsing");
    if (!module) return;
    {
      // What verifies prints as text that parses and verifies again.
      fuzz::MlirInput again(registry, fuzz::printed(*module), "fuzz_ktir (printed form)");
      if (!again.parse()) {
        std::fprintf(stderr, "fuzz_ktir: the printed form of a valid kernel does not parse:\n%s\n",
                     fuzz::printed(*module).c_str());
        std::abort();
      }
    }
    dataflow::SchedulerOptions options;
    options.sources = &input.sources(); // as spyre-compile names arguments
    auto job = dataflow::scheduleKernel(*module, arch, options);
    input.requireErrorIf(mlir::failed(job), "the Dataflow Scheduler");
    if (mlir::failed(job)) return;
    auto jobs = (*job)->getOps<mlir::dfir::JobOp>();
    if (jobs.empty()) std::abort();
    auto emitted = dataflow::emitSpyreCode(*jobs.begin(), arch);
    input.requireErrorIf(mlir::failed(emitted), "the SpyreCode emitter");
  });
  return 0;
}

/// libFuzzer harness: DataflowIR (the dfir dialect, docs/dataflow-ir.md), as dfir-opt
/// --emit-spyrecode reads it: the ParseGuard, MLIR's parser and the dfir verifiers, then
/// the SpyreCode emitter on every dfir.job of what verifies, for the bundled Spyre card.
#include "dataflow/DfirRegistration.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "mlir/IR/DialectRegistry.h"
#include "tests/fuzz/harness/fuzz_mlir.h"
#include "tests/fuzz/harness/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless;
  static const mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    dataflow::registerDfirDialects(r);
    return r;
  }();
  const SpyreArch& arch = fuzz::bundledSpyre();
  const std::string text = fuzz::asText(data, size);
  fuzz::expectCleanError("fuzz_dfir", [&] {
    fuzz::MlirInput input(registry, text, "fuzz_dfir");
    mlir::OwningOpRef<mlir::ModuleOp> module = input.parse();
    input.requireErrorIf(!module, "parsing");
    if (!module) return;
    for (mlir::dfir::JobOp job : module->getOps<mlir::dfir::JobOp>()) {
      auto emitted = dataflow::emitSpyreCode(job, arch);
      input.requireErrorIf(mlir::failed(emitted), "the SpyreCode emitter");
    }
  });
  return 0;
}

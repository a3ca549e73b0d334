/// libFuzzer harness: assembly (SpyreCode's or the TPU's, by CHIPLESS_FUZZ_TPU), assembled
/// as spyre-as / tpu-as do for the default architecture. What assembles disassembles, and
/// its binary and plan pass the checks the runtime makes on reading a directory.
#include "tests/fuzz/harness/fuzz_chip.h"
#include "tests/fuzz/harness/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless::fuzz;
  const std::string text = asText(data, size);
  expectCleanError("fuzz_asm", [&] {
    auto options = format::AssembleOptions::forArch(defaultArch());
    format::Job job = format::assemble(text, "input.s", options);
    (void)format::disassemble(job);
    const std::string encoded = format::encodeBinary(job.binary);
    (void)format::decodeBinary(encoded, "assembled binary");
    (void)format::parsePlan(format::planToJson(job.plan), "assembled job.plan");
  });
  return 0;
}

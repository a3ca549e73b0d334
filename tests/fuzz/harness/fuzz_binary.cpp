/// libFuzzer harness: job binaries (SpyreCode's init.bin or the TPU's program.bin, by
/// CHIPLESS_FUZZ_TPU), decoded and validated by decodeBinary as the runtime loads them, then
/// disassembled. A binary that decodes encodes to bytes that decode to the same encoding.
#include "tests/fuzz/harness/fuzz_chip.h"
#include "tests/fuzz/harness/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless::fuzz;
  const std::string bytes = asText(data, size);
  expectCleanError("fuzz_binary", [&] {
    format::Job job;
    job.binary = format::decodeBinary(bytes, "job binary");
    (void)format::disassemble(job);
    const std::string encoded = format::encodeBinary(job.binary);
    if (format::encodeBinary(format::decodeBinary(encoded, "job binary (re-encoded)")) != encoded)
      std::abort();
  });
  return 0;
}

/// libFuzzer harness: job.plan (JSON; SpyreCode's or the TPU's, by CHIPLESS_FUZZ_TPU), read
/// by parsePlan as the runtime and the simulators read it. A plan that parses prints back
/// as JSON that parses to the same plan.
#include "tests/fuzz/harness/fuzz_chip.h"
#include "tests/fuzz/harness/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless::fuzz;
  const std::string text = asText(data, size);
  expectCleanError("fuzz_plan", [&] {
    auto plan = format::parsePlan(text, "job.plan");
    const std::string json = format::planToJson(plan);
    if (!(format::parsePlan(json, "job.plan (printed)") == plan)) std::abort();
  });
  return 0;
}

/// libFuzzer harness: architecture descriptions (models/hw/*.yaml) and --set values, read
/// as every tool reads them (SpyreArch::load, TpuArch::load: the schema, the relations
/// between parameters, the overrides). The input is a YAML file, optionally followed by a
/// line "@@set" and one key.path=value override per line; the first byte of the file
/// decides the chip when the YAML does not ('chip:' is what the readers check).
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"
#include "tests/fuzz/harness/fuzz_util.h"

#include <sstream>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless;
  const std::string input = fuzz::asText(data, size);
  const size_t split = input.find("\n@@set\n");
  const std::string yaml = input.substr(0, split);
  std::vector<std::string> sets;
  if (split != std::string::npos) {
    std::istringstream lines(input.substr(split + 7));
    for (std::string line; std::getline(lines, line);) sets.push_back(line);
  }
  const std::string path = fuzz::writeScratch("arch.yaml", yaml);
  fuzz::expectCleanError("fuzz_arch", [&] {
    SpyreArch arch = SpyreArch::load(path, sets);
    // A description that loads writes back as YAML that loads to the same values.
    const std::string again = fuzz::writeScratch("again.yaml", arch.description.toYaml());
    if (SpyreArch::load(again).description.fingerprint() != arch.description.fingerprint())
      std::abort();
  });
  fuzz::expectCleanError("fuzz_arch", [&] {
    TpuArch arch = TpuArch::load(path, sets);
    const std::string again = fuzz::writeScratch("again.yaml", arch.description.toYaml());
    if (TpuArch::load(again).description.fingerprint() != arch.description.fingerprint())
      std::abort();
  });
  return 0;
}

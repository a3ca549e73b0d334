/// libFuzzer harness: a whole program directory (SpyreCode's or the TPU's, by
/// CHIPLESS_FUZZ_TPU) prepared and launched as `spyre-sim run --timing-only` / `tpu-sim run
/// --timing-only` would: the device opened for the plan (Device::openFor), the plan and
/// binaries read and checked, the preparation plan run, one launch simulated and its
/// statistics gathered. Every run is bounded (--max-cycles 2e7, --timeout 20), so a
/// program that will not finish ends with the engine report, an error like any other.
///
/// The input is the directory in fuzz_util.h's one-input form: job.plan, the binaries it
/// names, and optionally `scalars` (NAME=VALUE lines, the --scalar values) and arch.yaml
/// (the chip's bundled description when absent).
#include "tests/fuzz/harness/fuzz_chip.h"
#include "tests/fuzz/harness/fuzz_util.h"

#include <sstream>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  // Device locks in this process's own folder: parallel fuzzing jobs never meet.
  setenv("CHIPLESS_LOCK_DIR", chipless::fuzz::scratchDir().c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless;
  using namespace chipless::fuzz;
  std::map<std::string, std::string> files =
      splitDirectory({reinterpret_cast<const char*>(data), size});
  if (!files.count("job.plan")) return 0;
  clearScratch();
  if (!files.count("arch.yaml")) files["arch.yaml"] = defaultArch().description.toYaml();
  runtime::LaunchArgs args;
  for (const auto& [name, bytes] : files) {
    if (name != "scalars") {
      writeScratch(name, bytes);
      continue;
    }
    std::istringstream lines(bytes);
    for (std::string line; std::getline(lines, line);) {
      const size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      try {
        args.scalars[line.substr(0, eq)] = std::stoll(line.substr(eq + 1));
      } catch (const std::exception&) {
      }
    }
  }
  const std::string plan = scratchDir() + "/job.plan";
  expectCleanError("fuzz_launch", [&] {
    runtime::DeviceOptions options;
    options.timingOnly = true;
    options.maxCycles = 2e7;
    options.timeoutSeconds = 20;
    auto device = runtime::Device::openFor(kChip, plan, "", {}, options);
    auto program = device->prepare(plan);
    runtime::LaunchReport report = device->launch(*program, args);
    (void)device->stats(report);
  });
  return 0;
}

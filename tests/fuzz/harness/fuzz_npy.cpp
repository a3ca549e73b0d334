/// libFuzzer harness: .npy files (support/npy.h readNpy, the reader of spyre-sim and tpu-sim
/// --input), and writing back what was read.
#include "support/npy.h"
#include "tests/fuzz/harness/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace chipless;
  const std::string path =
      fuzz::writeScratch("input.npy", {reinterpret_cast<const char*>(data), size});
  fuzz::expectCleanError("fuzz_npy", [&] {
    NpyArray array = readNpy(path);
    if (array.data.size() != array.elements() * dtypeSize(array.dtype)) std::abort();
    // What was read is a valid array: it encodes, and reads back the same.
    const std::string bytes = encodeNpy(array, path);
    const std::string again = fuzz::writeScratch("again.npy", bytes);
    NpyArray back = readNpy(again);
    if (back.shape != array.shape || back.dtype != array.dtype || back.data != array.data)
      std::abort();
  });
  return 0;
}

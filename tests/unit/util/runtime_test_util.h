#pragma once
/// Helpers shared by the runtime tests: a small emulated chip, running assembled SpyreCode
/// text, filling host arrays and checking error messages.
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/error.h"
#include "support/numerics.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <cstring>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace chipless::runtime::test {

#define EXPECT_CONTAINS(text, part)                                                                \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                       \
      << "expected \"" << (part) << "\" in: " << (text)

/// C = A (f16 [4, 64], sticks) through core 0's scratchpad.
inline const char* kCopy = R"(
.kernel copy
.input  A f16 [4, 64]
.output C f16 [4, 64]
.program dma_in cores=0
    dma.load sp=0, mem=@A, bytes=512, done=0
.end
.program dma_out cores=0
    twait 0
    dma.store sp=0, mem=@C, bytes=512
.end
)";

/// A fresh directory for the current test: BUILD/test-tmp/SUITE.NAME.
inline std::string workDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path d = std::filesystem::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
                            (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

/// The shipped Spyre description with `overrides`.
inline SpyreArch archWith(const std::vector<std::string>& overrides = {}) {
  return SpyreArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml", overrides);
}

/// A two-core chip: quick to elaborate, enough for ring traffic between cores.
inline SpyreArch smallArch(std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "chip.cores=2");
  return archWith(extra);
}

inline std::unique_ptr<SpyreDevice> openDevice(const SpyreArch& arch, bool timingOnly = false) {
  return SpyreDevice::open(arch, DeviceOptions{-1, timingOnly});
}

inline spyrecode::Job assembleText(const std::string& text) {
  spyrecode::Job job =
      spyrecode::assemble(text, "test.s", spyrecode::AssembleOptions::forArch(archWith()));
  job.arch.reset(); // runs on whichever test architecture the device has
  return job;
}

/// The message of the chipless::Error `f` throws ("" and a test failure if none).
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a chipless::Error";
  return "";
}

/// A host array of `dtype` and `shape` whose flat element i is value(i).
template <typename F>
NpyArray hostArray(DType dtype, std::vector<int64_t> shape, F value) {
  NpyArray a = makeNpy(dtype, std::move(shape));
  for (size_t i = 0; i < a.elements(); ++i) {
    double v = static_cast<double>(value(i));
    if (dtype == DType::F16) {
      uint16_t h = floatToHalf(static_cast<float>(v));
      std::memcpy(&a.data[2 * i], &h, 2);
    } else if (dtype == DType::F32) {
      float f = static_cast<float>(v);
      std::memcpy(&a.data[4 * i], &f, 4);
    } else {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(&a.data[4 * i], &x, 4);
    }
  }
  return a;
}

/// Element i of a host array as a double (f16, f32 or i32).
inline double at(const NpyArray& a, size_t i) {
  if (a.dtype == DType::F16) {
    uint16_t h;
    std::memcpy(&h, &a.data[2 * i], 2);
    return halfToFloat(h);
  }
  if (a.dtype == DType::F32) {
    float f;
    std::memcpy(&f, &a.data[4 * i], 4);
    return f;
  }
  int32_t x;
  std::memcpy(&x, &a.data[4 * i], 4);
  return x;
}

/// Assembles `text`, prepares it on `device` and launches it once.
inline LaunchReport runText(SpyreDevice& device, const std::string& text, LaunchArgs args = {}) {
  SpyreJob job(device, assembleText(text), "test.s");
  return job.launch(args);
}

} // namespace chipless::runtime::test

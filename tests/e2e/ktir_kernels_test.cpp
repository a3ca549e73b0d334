// The KTIR kernels of models/kernels/*.mlir compiled with spyre-compile and run on the
// emulated chip: outputs against fp32 references computed here from the same inputs, and
// cycles against the bounds of the modelled hardware (PT-array peak, DRAM bandwidth) that
// no run may beat. docs/performance.md ("KTIR compiler") reports the same runs.
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/numerics.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

class KtirKernels : public ::testing::Test {
public:
  void SetUp() override {
    work = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(work);
    fs::create_directories(work);
  }

  /// Compiles models/kernels/<file> into work/job; false (with a failure) if it fails.
  bool compile(const std::string& file, const std::string& flags = "") {
    std::string cmd = std::string(CHIPLESS_BINARY_DIR) + "/bin/spyre-compile " +
                      (fs::path(CHIPLESS_SOURCE_DIR) / "models" / "kernels" / file).string() +
                      " -o " + (work / "job").string() + " " + flags;
    ShellResult r = sh(cmd);
    EXPECT_EQ(r.status, 0) << cmd << "\n" << r.output;
    return r.status == 0;
  }

  /// Runs work/job with `inputs` (timing only when empty); returns outputs and cycles.
  runtime::LaunchReport launch(std::map<std::string, NpyArray> inputs, bool timingOnly) {
    auto device = runtime::SpyreDevice::open(archWith(), {-1, timingOnly});
    runtime::SpyreJob prepared(*device, (work / "job" / "job.plan").string());
    runtime::LaunchArgs args;
    args.inputs = std::move(inputs);
    return prepared.launch(args);
  }

protected:
  fs::path work;
};

/// PT-array peak of the whole chip: MACs per cycle over every corelet (fp16).
double ptMacsPerCycle(const SpyreArch& a) {
  return static_cast<double>(a.chip.cores) * a.chip.corelets_per_core * a.pt.rows * a.pt.cols *
         a.pt.macs_per_pe_fp16;
}

/// Checks C = A x B (fp32 result) on `rows` rows against an fp32 reference.
void checkMatmul(const NpyArray& A, const NpyArray& B, const NpyArray& C, int64_t m, int64_t n,
                 int64_t k, const std::vector<int64_t>& rows) {
  std::vector<float> a = floats(A), b = floats(B), c = floats(C);
  ASSERT_EQ(c.size(), static_cast<size_t>(m * n));
  size_t bad = 0;
  double worst = 0;
  std::vector<float> ref(static_cast<size_t>(n));
  for (int64_t i : rows) {
    std::fill(ref.begin(), ref.end(), 0.0f);
    for (int64_t kk = 0; kk < k; ++kk) {
      const float av = a[static_cast<size_t>(i * k + kk)];
      const float* br = b.data() + kk * n;
      for (int64_t j = 0; j < n; ++j) ref[static_cast<size_t>(j)] += av * br[j];
    }
    for (int64_t j = 0; j < n; ++j) {
      double err = std::fabs(c[static_cast<size_t>(i * n + j)] - ref[static_cast<size_t>(j)]);
      worst = std::max(worst, err);
      if (!(err <= 1e-3 + 1e-4 * std::fabs(ref[static_cast<size_t>(j)]))) ++bad;
    }
  }
  EXPECT_EQ(bad, 0u) << "largest error " << worst;
}

/// The DRAM bytes of the matmul kernels: every tile reads its row block of A and its
/// column block of B once and writes its fp32 block of C.
double matmulDramBytes(int64_t m, int64_t n, int64_t k, int64_t gi, int64_t gj) {
  return static_cast<double>(gi * gj) * ((m / gi) * k + k * (n / gj)) * 2.0 + m * n * 4.0;
}

/// Compiles and runs matmul_<s>.mlir on random inputs, checks every `rowStep`-th row of C
/// (rows of every tile) and the bounds; returns the cycles (0 if it did not run).
double runMatmul(KtirKernels& t, int64_t s, int64_t rowStep) {
  if (!t.compile("matmul_" + std::to_string(s) + ".mlir")) return 0;
  std::map<std::string, NpyArray> in{{"a", randomArray(DType::F16, {s, s}, 1)},
                                     {"b", randomArray(DType::F16, {s, s}, 2)}};
  runtime::LaunchReport out = t.launch(in, false);
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < s; i += rowStep) rows.push_back(i);
  checkMatmul(in["a"], in["b"], out.outputs.at("c"), s, s, s, rows);
  const SpyreArch arch = archWith();
  const double cycles = static_cast<double>(out.cycles);
  EXPECT_GE(cycles, static_cast<double>(s * s * s) / ptMacsPerCycle(arch));
  EXPECT_GE(cycles, matmulDramBytes(s, s, s, 4, 8) / arch.dramBytesPerCycle());
  return cycles;
}

TEST_F(KtirKernels, Matmul1024IsCorrectAndWithinBounds) {
  runMatmul(*this, 1024, 7);
}

TEST_F(KtirKernels, Matmul2048IsCorrectAndWithinBounds) {
  const double cycles = runMatmul(*this, 2048, 29);
  const double peak = 2048.0 * 2048 * 2048 / ptMacsPerCycle(archWith());
  std::printf("matmul 2048^3: %.0f cycles, %.1f%% of the PT-array peak\n", cycles,
              100.0 * peak / cycles);
  EXPECT_GE(peak / cycles, 0.80) << "below 80% of the PT-array peak (issue 3's target)";
}

TEST_F(KtirKernels, Add4096x4096IsCorrectAndStreamsAtTheDramBound) {
  if (!compile("add_4096x4096.mlir")) return;
  const int64_t s = 4096;
  std::map<std::string, NpyArray> in{{"a", randomArray(DType::F16, {s, s}, 5)},
                                     {"b", randomArray(DType::F16, {s, s}, 6)}};
  runtime::LaunchReport out = launch(in, false);
  std::vector<float> a = floats(in["a"]), b = floats(in["b"]), c = floats(out.outputs.at("c"));
  ASSERT_EQ(c.size(), a.size());
  size_t bad = 0;
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i] != halfToFloat(floatToHalf(a[i] + b[i]))) ++bad; // one rounding, as the SFU
  EXPECT_EQ(bad, 0u);
  const SpyreArch arch = archWith();
  const double cycles = static_cast<double>(out.cycles);
  const double bound = 3.0 * s * s * 2 / arch.dramBytesPerCycle();
  EXPECT_GE(cycles, bound);
  EXPECT_LE(cycles, bound / 0.85) << "below 85% of the DRAM bound (issue 3's target)";
}

} // namespace
} // namespace chipless::test

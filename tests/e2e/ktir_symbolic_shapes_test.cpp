// Symbolic shapes at launch: a KTIR kernel whose sizes, loop bounds, steps and addresses
// depend on plain `index` arguments compiles once (`spyre-compile --bound n=MAX/G`) into a
// program whose symbolic operands the runtime binds at every launch ("program correction").
// One prepared program runs several lengths, each byte-identical to a compile specialised
// for that length with --const, and a length outside the bounds is refused before anything
// runs.
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/error.h"
#include "support/numerics.h"
#include "support/spyrecode/directory.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/ktir_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

const fs::path kKernels = fs::path(CHIPLESS_SOURCE_DIR) / "tests" / "e2e" / "kernels";

/// Compiles axpb_symbolic.mlir into `work`/job with `flags`; counts the compiles.
int compiles = 0;
bool compileAxpb(const fs::path& work, const std::vector<std::string>& flags) {
  ++compiles;
  return compileKtir(kKernels, KtirCase{"axpb_symbolic.mlir", flags, nullptr, nullptr}, work);
}

runtime::LaunchArgs argsFor(int64_t n, const NpyArray& x) {
  runtime::LaunchArgs args;
  args.inputs = {{"x", x}};
  args.scalars = {{"n", n}, {"BLOCK", 1024}};
  args.reals = {{"a", 0.75}};
  return args;
}

TEST(KtirSymbolicShapes, OneProgramRunsEveryLengthInItsBounds) {
  const fs::path work = testWorkDir();
  compiles = 0;
  ASSERT_TRUE(compileAxpb(work / "symbolic", {"--bound n=1048576/1024"}));
  spyrecode::Job job = spyrecode::readJob((work / "symbolic" / "job" / "job.plan").string());
  ASSERT_EQ(job.plan.scalars.size(), 3u);
  EXPECT_EQ(job.plan.scalars[0], (ScalarArg{"n", 1024, 0, 1048576}));
  EXPECT_EQ(job.plan.scalars[1], (ScalarArg{"BLOCK", 1, 1, std::nullopt})); // a loop step
  EXPECT_EQ(job.plan.scalars[2].real, DType::F32);

  // One device, one prepared program, three lengths. (A device owns the process's
  // simulation context: the specialised runs below use a fresh one after it is closed.)
  const std::vector<int64_t> lengths = {32768, 102400, 1048576};
  std::vector<NpyArray> xs, ys;
  {
    auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
    runtime::SpyreJob prepared(*device, (work / "symbolic" / "job" / "job.plan").string());
    for (int64_t n : lengths) {
      SCOPED_TRACE("n = " + std::to_string(n));
      xs.push_back(randomArray(DType::F32, {n}, static_cast<uint64_t>(n)));
      runtime::LaunchReport r = prepared.launch(argsFor(n, xs.back()));
      ys.push_back(r.outputs.at("y"));
      ASSERT_EQ(ys.back().shape, std::vector<int64_t>{n});
      std::vector<float> x = floats(xs.back()), y = floats(ys.back());
      const float shift = static_cast<float>(n) * 9.5367431640625e-07f;
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] * 0.75f + shift) << i;
    }
  }
  // The program specialised for each length gives the same bytes.
  for (size_t k = 0; k < lengths.size(); ++k) {
    const int64_t n = lengths[k];
    SCOPED_TRACE("n = " + std::to_string(n));
    const fs::path fixed = work / ("n" + std::to_string(n));
    ASSERT_TRUE(compileAxpb(
        fixed, {"--const n=" + std::to_string(n), "--const BLOCK=1024", "--const a=0.75"}));
    auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
    runtime::SpyreJob specialised(*device, (fixed / "job" / "job.plan").string());
    runtime::LaunchArgs plain;
    plain.inputs = {{"x", xs[k]}};
    EXPECT_EQ(specialised.launch(plain).outputs.at("y").data, ys[k].data);
  }
  // One compile served the three lengths (the other three were the specialised ones).
  EXPECT_EQ(compiles, 4);
}

/// row_length_symbolic.mlir: x [64, n] whose row stride %n is a launch value. One prepared
/// program runs three row lengths read off the input's shape, each the bytes of a compile
/// specialised with --const; a length off the granularity is refused.
TEST(KtirSymbolicShapes, ARowLengthGivenAtLaunchIsAStrideOfTheProgram) {
  const fs::path work = testWorkDir();
  auto compileRows = [&](const fs::path& dir, const std::vector<std::string>& flags) {
    return compileKtir(kKernels, KtirCase{"row_length_symbolic.mlir", flags, nullptr, nullptr},
                       dir);
  };
  ASSERT_TRUE(compileRows(work / "symbolic", {"--bound n_in=512/32"}));
  const std::vector<int64_t> lengths = {32, 96, 512};
  std::vector<NpyArray> xs, ys;
  {
    auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
    runtime::SpyreJob prepared(*device, (work / "symbolic" / "job" / "job.plan").string());
    for (int64_t n : lengths) {
      SCOPED_TRACE("n = " + std::to_string(n));
      xs.push_back(randomArray(DType::F16, {64, n}, static_cast<uint64_t>(n)));
      runtime::LaunchArgs args;
      args.inputs = {{"x", xs.back()}};
      ys.push_back(prepared.launch(args).outputs.at("y"));
      ASSERT_EQ(ys.back().shape, (std::vector<int64_t>{64, n}));
      std::vector<float> x = floats(xs.back()), y = floats(ys.back());
      for (size_t i = 0; i < x.size(); ++i)
        ASSERT_EQ(y[i], halfToFloat(floatToHalf(x[i] * 2.0f + 1.0f))) << i;
    }
    runtime::LaunchArgs off;
    off.inputs = {{"x", randomArray(DType::F16, {64, 48}, 1)}};
    try {
      prepared.launch(off);
      ADD_FAILURE() << "n = 48 was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("multiples of 32 from 0 to 512"), std::string::npos)
          << e.what();
    }
  }
  for (size_t k = 0; k < lengths.size(); ++k) {
    const int64_t n = lengths[k];
    SCOPED_TRACE("n = " + std::to_string(n));
    const fs::path fixed = work / ("n" + std::to_string(n));
    ASSERT_TRUE(compileRows(fixed, {"--const n_in=" + std::to_string(n)}));
    auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
    runtime::SpyreJob specialised(*device, (fixed / "job" / "job.plan").string());
    runtime::LaunchArgs plain;
    plain.inputs = {{"x", xs[k]}};
    EXPECT_EQ(specialised.launch(plain).outputs.at("y").data, ys[k].data);
  }
}

TEST(KtirSymbolicShapes, ALengthOutsideTheBoundsIsRefusedBeforeAnythingRuns) {
  const fs::path work = testWorkDir();
  ASSERT_TRUE(compileAxpb(work, {"--bound n=65536/1024"}));
  auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
  runtime::SpyreJob prepared(*device, (work / "job" / "job.plan").string());
  for (int64_t n : {int64_t{131072}, int64_t{1500}}) {
    try {
      prepared.launch(argsFor(n, randomArray(DType::F32, {n}, 1)));
      ADD_FAILURE() << "n = " << n << " was accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("scalar 'n' of axpb"), std::string::npos) << msg;
      EXPECT_NE(msg.find("multiples of 1024 from 0 to 65536"), std::string::npos) << msg;
    }
  }
  // The step must be at least 1.
  try {
    runtime::LaunchArgs args = argsFor(4096, randomArray(DType::F32, {4096}, 1));
    args.scalars["BLOCK"] = 0;
    prepared.launch(args);
    ADD_FAILURE() << "BLOCK = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'BLOCK' of axpb (from --scalar BLOCK) is 0, below its "
                                         "minimum 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(KtirSymbolicShapes, TilesPastTheEndOfAViewSizedAtLaunchAreMasked) {
  // Four 1024-element tiles over a vector of n elements: the tile that holds the end is
  // clamped to it, those after it move nothing; loads leave 0 where they reach past n (the
  // sum over the tile sees only the vector), stores write nothing there.
  const fs::path work = testWorkDir();
  ASSERT_TRUE(compileKtir(
      kKernels, KtirCase{"masked_tail.mlir", {"--bound n_elements=4096"}, nullptr, nullptr}, work));
  auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
  runtime::SpyreJob prepared(*device, (work / "job" / "job.plan").string());
  for (int64_t n : {int64_t{1}, int64_t{1500}, int64_t{3000}, int64_t{4096}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    NpyArray x = randomArray(DType::F32, {n}, static_cast<uint64_t>(n) + 3);
    runtime::LaunchArgs args;
    args.inputs = {{"x", x}};
    args.scalars = {{"n_elements", n}};
    runtime::LaunchReport r = prepared.launch(args);
    std::vector<float> xs = floats(x), y = floats(r.outputs.at("y")),
                       sums = floats(r.outputs.at("s"));
    ASSERT_EQ(y.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(y[i], 2 * xs[i]) << i;
    for (size_t t = 0; t < 4; ++t) {
      double want = 0;
      for (size_t i = t * 1024; i < std::min<size_t>(xs.size(), (t + 1) * 1024); ++i) want += xs[i];
      EXPECT_NEAR(sums[t], want, 1e-3 * (1 + std::abs(want))) << "tile " << t;
    }
  }
}

TEST(KtirSymbolicShapes, MaskedTilesTooLargeForOneTransferAreLoadedInChunks) {
  // Two 256 x 1024 f16 tiles (512 KB each) over x [n, 1024], loaded in chunks of rows: the
  // rows past n hold -inf for the column maximum that reads them, and the copy of the tile
  // (strip-mined through a reused chunk buffer) writes nothing past n.
  const fs::path work = testWorkDir();
  ASSERT_TRUE(compileKtir(
      kKernels, KtirCase{"masked_chunks.mlir", {"--bound n_rows=512"}, nullptr, nullptr}, work));
  auto device = runtime::SpyreDevice::open(archWith(), {-1, false});
  runtime::SpyreJob prepared(*device, (work / "job" / "job.plan").string());
  for (int64_t n : {int64_t{1}, int64_t{200}, int64_t{300}, int64_t{512}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    NpyArray x = randomArray(DType::F16, {n, 1024}, static_cast<uint64_t>(n) + 5);
    runtime::LaunchArgs args;
    args.inputs = {{"x", x}};
    runtime::LaunchReport r = prepared.launch(args);
    EXPECT_EQ(r.outputs.at("y").data, x.data);
    std::vector<float> xs = floats(x), m = floats(r.outputs.at("m"));
    for (int64_t t = 0; t < 2; ++t)
      for (int64_t c = 0; c < 1024; ++c) {
        float want = -INFINITY;
        for (int64_t row = 256 * t; row < std::min<int64_t>(n, 256 * t + 256); ++row)
          want = std::max(want, xs[static_cast<size_t>(row * 1024 + c)]);
        ASSERT_EQ(m[static_cast<size_t>(t * 1024 + c)], want) << "tile " << t << " column " << c;
      }
  }
}

TEST(KtirSymbolicShapes, BoundErrorsNameTheArgument) {
  const fs::path work = testWorkDir();
  auto compileError = [&](const std::vector<std::string>& flags) {
    std::string cmd = std::string(CHIPLESS_BINARY_DIR) + "/bin/spyre-compile " +
                      (kKernels / "axpb_symbolic.mlir").string() + " -o " + (work / "job").string();
    for (const auto& f : flags) cmd += " " + f;
    int status = 0;
    std::string out = shell(cmd, status);
    EXPECT_NE(status, 0) << cmd;
    EXPECT_FALSE(fs::exists(work / "job")) << "an output was written";
    return out;
  };
  // Without a bound the view sized by n cannot be planned.
  EXPECT_NE(compileError({}).find("bound the scalar a size is (spyre-compile --bound NAME=MAX"),
            std::string::npos);
  EXPECT_NE(compileError({"--bound m=64"}).find("has no integer argument named 'm' (--bound)"),
            std::string::npos);
  EXPECT_NE(compileError({"--bound a=64"}).find("--bound a: the argument is not an integer"),
            std::string::npos);
  EXPECT_NE(compileError({"--bound n=10..4"}).find("--bound n=10..4: the bounds 10..4 are empty"),
            std::string::npos);
  EXPECT_NE(compileError({"--bound n=4096/0"}).find("is not a positive integer"),
            std::string::npos);
  EXPECT_NE(compileError({"--bound n=4096", "--const n=4096"})
                .find("--bound n: the argument is fixed with --const"),
            std::string::npos);
}

} // namespace
} // namespace chipless::test

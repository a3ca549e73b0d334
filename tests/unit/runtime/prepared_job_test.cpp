/// Tests of preparing a SpyreCode job once and launching it: argument binding and its
/// error messages, preparation and execution plan errors, job buffers that persist
/// between steps, and plans with ComputeOnHost steps.
#include "support/spyrecode/plan.h"
#include "tests/unit/util/runtime_test_util.h"

namespace chipless::runtime {
namespace {

using namespace test;
using spyrecode::Job;
using spyrecode::PlanCommand;

/// C = A for f16 tensors of shape [4, N]: dma_in loads A into core 0's scratchpad,
/// dma_out stores it to C.
const char* kCopy = R"(
.kernel copy
.scalar N
.input  A f16 [4, N]
.output C f16 [4, N]
.program dma_in cores=0
    li   r1, @A.d1
    add  r1, r1, 63
    shr  r1, r1, 6          ; sticks per row
    mul  r1, r1, @A.d0
    mul  r1, r1, 128        ; bytes
    dma.load sp=0, mem=@A, bytes=r1, done=0
.end
.program dma_out cores=0
    li   r1, @C.d1
    add  r1, r1, 63
    shr  r1, r1, 6
    mul  r1, r1, @C.d0
    mul  r1, r1, 128
    twait 0
    dma.store sp=0, mem=@C, bytes=r1
.end
)";

NpyArray input(std::vector<int64_t> shape) {
  return hostArray(DType::F16, std::move(shape), [](size_t i) { return (i % 97) * 0.5 - 20; });
}

class PreparedJobTest : public ::testing::Test {
protected:
  void SetUp() override { device_ = openDevice(smallArch()); }
  std::unique_ptr<SpyreDevice> device_;
};

TEST_F(PreparedJobTest, CopyKernelRoundTrips) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  for (int64_t n : {64, 200, 8}) {
    NpyArray a = input({4, n});
    LaunchReport out = job.launch({{{"A", a}}, {}, nullptr});
    ASSERT_EQ(out.outputs.count("C"), 1u);
    EXPECT_EQ(out.outputs["C"].shape, a.shape);
    EXPECT_EQ(out.outputs["C"].data, a.data) << "N = " << n;
    EXPECT_GT(out.cycles, 0);
    EXPECT_GT(out.issued, 0u);
  }
  // Launch allocations are released afterwards; the program stays.
  EXPECT_FALSE(device_->memory().contains(0, 1));
  EXPECT_TRUE(device_->memory().contains(device_->segmentBase(7), 1));
}

TEST_F(PreparedJobTest, InOutArgumentsGoBothWays) {
  // A (4 sticks) is read, then written back shifted by one stick: [r0, r0, r1, r2].
  const char* text = R"(
.kernel shift
.inout A f16 [4, 64]
.program dma_in cores=0
    dma.load sp=0, mem=@A, bytes=512, done=0
.end
.program dma_out cores=0
    twait 0
    dma.store sp=0, mem=@A+128, bytes=384
.end
)";
  SpyreJob job(*device_, assembleText(text), "shift.s");
  NpyArray a = input({4, 64});
  LaunchReport out = job.launch({{{"A", a}}, {}, nullptr});
  ASSERT_EQ(out.outputs.count("A"), 1u);
  const NpyArray& b = out.outputs.at("A");
  const int from[4] = {0, 0, 1, 2};
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 64; ++j)
      ASSERT_EQ(at(b, static_cast<size_t>(r * 64 + j)),
                at(a, static_cast<size_t>(from[r] * 64 + j)));
  // An inout argument must be given.
  EXPECT_CONTAINS(errorOf([&] { job.launch({}); }), "input 'A' (f16 (4, 64)) is not bound");
}

TEST_F(PreparedJobTest, MissingInput) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "input 'A' (f16 (4, N)) is not bound");
  EXPECT_CONTAINS(e, "--input A=");
  // The same when the scalar is given.
  e = errorOf([&] { job.launch({{}, {{"N", 64}}, nullptr}); });
  EXPECT_CONTAINS(e, "input 'A' (f16 (4, N)) is not bound");
}

TEST_F(PreparedJobTest, WrongShapeNamesBothShapes) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"A", input({3, 64})}}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "input 'A'");
  EXPECT_CONTAINS(e, "(3, 64)");
  EXPECT_CONTAINS(e, "expects (4, 64)");
  EXPECT_CONTAINS(e, "(4, N)");
}

TEST_F(PreparedJobTest, WrongRankNamesBothShapes) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"A", input({256})}}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "input 'A'");
  EXPECT_CONTAINS(e, "(256,)");
  EXPECT_CONTAINS(e, "(4, N)");
}

TEST_F(PreparedJobTest, UnknownInputName) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"X", input({4, 64})}}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "'X' is not an argument of copy");
}

TEST_F(PreparedJobTest, OutputPassedAsInput) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] {
    job.launch({{{"A", input({4, 64})}, {"C", input({4, 64})}}, {}, nullptr});
  });
  EXPECT_CONTAINS(e, "'C' is an output of copy, not an input");
}

TEST_F(PreparedJobTest, UnknownScalar) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"A", input({4, 64})}}, {{"M", 3}}, nullptr}); });
  EXPECT_CONTAINS(e, "scalar 'M' is not an argument of copy");
}

TEST_F(PreparedJobTest, UnboundScalar) {
  std::string text = kCopy;
  text.replace(text.find(".scalar N"), 9, ".scalar N\n.scalar ALPHA");
  SpyreJob job(*device_, assembleText(text), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"A", input({4, 64})}}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "scalar 'ALPHA' of copy is not bound");
  EXPECT_CONTAINS(e, "--scalar ALPHA=");
  // With the scalar it runs.
  LaunchReport out = job.launch({{{"A", input({4, 64})}}, {{"ALPHA", 3}}, nullptr});
  EXPECT_EQ(out.outputs["C"].data, input({4, 64}).data);
}

TEST_F(PreparedJobTest, ScalarInconsistentWithAShape) {
  SpyreJob job(*device_, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"A", input({4, 64})}}, {{"N", 128}}, nullptr}); });
  EXPECT_CONTAINS(e, "input 'A' dimension 1 is 64, but scalar N is 128 (from --scalar N)");
  // Consistent values are accepted.
  LaunchReport out = job.launch({{{"A", input({4, 64})}}, {{"N", 64}}, nullptr});
  EXPECT_EQ(out.outputs["C"].data, input({4, 64}).data);
}

TEST_F(PreparedJobTest, ScalarOutsideItsConstraintsIsRefused) {
  // The program handles N in multiples of 64 up to 128 (as a KTIR runtime_arg's
  // granularity and upperbound say): other values are refused before anything runs,
  // named with where they came from; accepted ones run.
  std::string text = kCopy;
  text.replace(text.find(".scalar N"), 9, ".scalar N multiple_of=64 min=0 max=128");
  SpyreJob job(*device_, assembleText(text), "copy.s");
  std::string e = errorOf([&] { job.launch({{{"A", input({4, 96})}}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "scalar 'N' of copy (from input 'A' dimension 1) is 96, not a multiple of 64 "
                     "(the program accepts multiples of 64 from 0 to 128)");
  e = errorOf([&] { job.launch({{{"A", input({4, 192})}}, {{"N", 192}}, nullptr}); });
  EXPECT_CONTAINS(e, "scalar 'N' of copy (from --scalar N) is 192, above its maximum 128");
  LaunchReport out = job.launch({{{"A", input({4, 128})}}, {}, nullptr});
  EXPECT_EQ(out.outputs["C"].data, input({4, 128}).data);
}

TEST_F(PreparedJobTest, TwoInputsDisagreeOnAScalar) {
  std::string text = kCopy;
  text.replace(text.find(".output"), 7, ".input  B f16 [N]\n.output");
  SpyreJob job(*device_, assembleText(text), "copy.s");
  std::string e = errorOf([&] {
    job.launch({{{"A", input({4, 64})}, {"B", input({32})}}, {}, nullptr});
  });
  EXPECT_CONTAINS(e, "dimension");
  EXPECT_CONTAINS(e, "scalar N is ");
}

TEST_F(PreparedJobTest, ZeroDimensionalInputCountsAsShapeOne) {
  const char* text = R"(
.kernel one
.scalar N
.input  S f32 [N]
.output T f32 [N]
.program dma_in cores=0
    dma.load sp=0, mem=@S, bytes=128, done=0
.end
.program dma_out cores=0
    twait 0
    dma.store sp=0, mem=@T, bytes=128
.end
)";
  SpyreJob job(*device_, assembleText(text), "one.s");
  NpyArray s = hostArray(DType::F32, {}, [](size_t) { return 2.5; });
  LaunchReport out = job.launch({{{"S", s}}, {}, nullptr}); // N = 1 from the 0-d array
  ASSERT_EQ(out.outputs.at("T").shape, (std::vector<int64_t>{1}));
  EXPECT_EQ(at(out.outputs.at("T"), 0), 2.5);
}

TEST_F(PreparedJobTest, NonPositiveDimension) {
  // Timing-only, so that no input data is needed.
  auto timing = openDevice(smallArch(), true);
  SpyreJob job(*timing, assembleText(kCopy), "copy.s");
  std::string e = errorOf([&] { job.launch({{}, {{"N", 0}}, nullptr}); });
  EXPECT_CONTAINS(e, "argument 'A' would have dimension 0 (from (4, N))");
}

TEST_F(PreparedJobTest, TimingOnlyLaunchNeedsNoInputs) {
  auto timing = openDevice(smallArch(), true);
  SpyreJob job(*timing, assembleText(kCopy), "copy.s");
  LaunchReport out = job.launch({{}, {{"N", 64}}, nullptr});
  EXPECT_TRUE(out.outputs.empty());
  EXPECT_GT(out.cycles, 0);
}

// ---- preparation errors ----------------------------------------------------------------

/// Preparing `job` fails with a message containing every part; afterwards the unmodified
/// job still prepares (nothing was left allocated).
void expectPrepareError(SpyreDevice& device, Job job, const std::vector<std::string>& parts) {
  std::string e = errorOf([&] { SpyreJob p(device, std::move(job), "bad.plan"); });
  EXPECT_CONTAINS(e, "bad.plan");
  for (const auto& p : parts) EXPECT_CONTAINS(e, p);
  SpyreJob good(device, assembleText(kCopy), "copy.s");
  EXPECT_EQ(good.launch({{{"A", input({4, 64})}}, {}, nullptr}).outputs["C"].data,
            input({4, 64}).data);
}

TEST_F(PreparedJobTest, DevPtrOutsideTheSpyreCodeSegment) {
  Job job = assembleText(kCopy);
  ASSERT_EQ(job.plan.prepare[0].kind, PlanCommand::Kind::Allocate);
  job.plan.prepare[0].devPtr = "0x1000";
  expectPrepareError(
      *device_, job,
      {"prepare[0] (Allocate)", "dev_ptr 0x1000", "outside the SpyreCode segment 7"});
  // A range that starts inside but runs past the segment's end.
  job = assembleText(kCopy);
  job.plan.prepare[0].devPtr = "0x1FFFFFFF80";
  expectPrepareError(*device_, job, {"prepare[0]", "outside the SpyreCode segment"});
  // A malformed address.
  job = assembleText(kCopy);
  job.plan.prepare[1].devPtr = "nowhere";
  expectPrepareError(*device_, job, {"prepare[1] (InitTransfer).dev_ptr"});
}

TEST_F(PreparedJobTest, InitTransferSizeMismatch) {
  Job job = assembleText(kCopy);
  ASSERT_EQ(job.plan.prepare[1].kind, PlanCommand::Kind::InitTransfer);
  const int64_t size = job.plan.prepare[1].size;
  job.plan.prepare[0].size = size + 128;
  job.plan.prepare[1].size = size + 128;
  expectPrepareError(*device_, job,
                     {"prepare[1] (InitTransfer)", "size " + std::to_string(size + 128),
                      "the binary has " + std::to_string(size) + " bytes"});
}

TEST_F(PreparedJobTest, UndeclaredBuffer) {
  Job job = assembleText(kCopy);
  PlanCommand extra;
  extra.kind = PlanCommand::Kind::Allocate;
  extra.name = "scratch";
  extra.size = 256;
  extra.devPtr = "0x1C00100000";
  job.plan.prepare.push_back(extra);
  expectPrepareError(*device_, job,
                     {"prepare[2] (Allocate)", "'scratch' is not a declared buffer of that size"});
  // A declared buffer that the preparation plan never allocates.
  job = assembleText(kCopy);
  job.plan.buffers.push_back({"tmp", 256});
  expectPrepareError(*device_, job, {"buffer 'tmp' is never allocated"});
  // A plan that never loads the binary.
  job = assembleText(kCopy);
  job.plan.prepare.pop_back();
  expectPrepareError(*device_, job, {"never loads the job binary"});
}

TEST_F(PreparedJobTest, ExecutionPlanErrors) {
  Job job = assembleText(kCopy);
  ASSERT_EQ(job.plan.execute[1].kind, PlanCommand::Kind::ComputeOnDevice);
  job.plan.execute[1].devPtr = "0x1C00001000";
  std::string e;
  {
    SpyreJob p(*device_, job, "bad.plan");
    e = errorOf([&] { p.launch({{{"A", input({4, 64})}}, {}, nullptr}); });
  }
  EXPECT_CONTAINS(e, "bad.plan: execute[1] (ComputeOnDevice)");
  EXPECT_CONTAINS(e, "is not where a job binary was loaded (0x1C00000000)");

  Job job2 = assembleText(kCopy);
  ASSERT_EQ(job2.plan.execute[0].kind, PlanCommand::Kind::DataTransfer);
  job2.plan.execute[0].devPtr = "@C";
  SpyreJob p2(*device_, job2, "bad2.plan");
  e = errorOf([&] { p2.launch({{{"A", input({4, 64})}}, {}, nullptr}); });
  EXPECT_CONTAINS(e, "bad2.plan: execute[0] (DataTransfer)");
  EXPECT_CONTAINS(e, "is not where 'A' is bound");
}

TEST_F(PreparedJobTest, TwoPreparedJobsShareADeviceByRelocating) {
  // Both plans ask for the same SpyreCode address; the second job moves, and both run.
  SpyreJob first(*device_, assembleText(kCopy), "first.s");
  SpyreJob second(*device_, assembleText(kCopy), "second.s");
  NpyArray a = input({4, 64});
  EXPECT_EQ(first.launch({{{"A", a}}, {}, nullptr}).outputs["C"].data, a.data);
  EXPECT_EQ(second.launch({{{"A", a}}, {}, nullptr}).outputs["C"].data, a.data);
}

// ---- buffers and host steps --------------------------------------------------------------

TEST_F(PreparedJobTest, JobBuffersPersistBetweenDeviceSteps) {
  // A -> scratchpad -> @tmp -> scratchpad (elsewhere) -> C.
  const char* text = R"(
.kernel viabuffer
.input  A f16 [4, 64]
.output C f16 [4, 64]
.buffer tmp 512
.program dma_in cores=0
    dma.load sp=0, mem=@A, bytes=512, done=0
    twait 1
    dma.load sp=4096, mem=@tmp, bytes=512, done=2
.end
.program dma_out cores=0
    twait 0
    dma.store sp=0, mem=@tmp, bytes=512, done=1
    twait 2
    dma.store sp=4096, mem=@C, bytes=512
.end
)";
  Job job = assembleText(text);
  ASSERT_EQ(job.plan.buffers.size(), 1u);
  SpyreJob p(*device_, job, "viabuffer.s");
  NpyArray a = input({4, 64});
  EXPECT_EQ(p.launch({{{"A", a}}, {}, nullptr}).outputs["C"].data, a.data);
}

TEST_F(PreparedJobTest, PlanWithComputeOnHostSteps) {
  // Device: C = A. Host: D = 2 * C (f32), E = A + C (f16).
  std::string text = kCopy;
  text.replace(text.find(".program"), 8, ".output D f32 [4, N]\n.output E f16 [4, N]\n.program");
  Job job = assembleText(text);
  auto& ex = job.plan.execute;
  ASSERT_EQ(ex.size(), 5u); // A in, run, C out, D out, E out
  ASSERT_EQ(ex[1].kind, PlanCommand::Kind::ComputeOnDevice);
  PlanCommand scale;
  scale.kind = PlanCommand::Kind::ComputeOnHost;
  scale.function = "scale";
  scale.inputs = {"C"};
  scale.outputs = {"D"};
  scale.metadata = {{"alpha", 2.0}};
  PlanCommand add;
  add.kind = PlanCommand::Kind::ComputeOnHost;
  add.function = "add";
  add.inputs = {"A", "C"};
  add.outputs = {"E"};
  add.metadata = nlohmann::json::object();
  ex.insert(ex.begin() + 2, {scale, add});
  NpyArray a = input({4, 64});
  {
    SpyreJob p(*device_, job, "host.plan");
    LaunchReport out = p.launch({{{"A", a}}, {}, nullptr});
    ASSERT_EQ(out.outputs.size(), 3u);
    const NpyArray &d = out.outputs["D"], &e = out.outputs["E"];
    EXPECT_EQ(d.dtype, DType::F32);
    EXPECT_EQ(e.dtype, DType::F16);
    for (size_t i = 0; i < a.elements(); ++i) {
      ASSERT_EQ(at(d, i), 2 * at(a, i)) << i;
      ASSERT_EQ(at(e, i), halfToFloat(floatToHalf(static_cast<float>(2 * at(a, i))))) << i;
    }
  }
  // A failing host step fails the launch and names the function.
  Job bad = job;
  bad.plan.execute[2].function = "nosuch";
  SpyreJob pb(*device_, bad, "badhost.plan");
  std::string err = errorOf([&] { pb.launch({{{"A", a}}, {}, nullptr}); });
  EXPECT_CONTAINS(err, "ComputeOnHost nosuch");
}

} // namespace
} // namespace chipless::runtime

// The command-line tools on bad input: every error names the file and line or field, or
// the engine, core, program counter and address; nothing is written when a run fails.
#include "support/atomic_file.h"
#include "support/npy.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"

#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

using Result = ShellResult;

class Cli : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
    kernels = std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/";
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    writeFileAtomically(path(name), text);
  }
  /// Assembles a bundled kernel into DIR/<name>; returns its plan path.
  std::string assembled(const std::string& kernel) const {
    Result r = sh(tool("spyre-as") + " " + kernels + kernel + ".s -o " + path(kernel));
    EXPECT_EQ(r.status, 0) << r.output;
    return path(kernel + "/job.plan");
  }
  void addInputs() const {
    writeNpy(path("a.npy"), randomArray(DType::F16, {32, 4096}, 1));
    writeNpy(path("b.npy"), randomArray(DType::F16, {32, 4096}, 2));
  }
  std::string runAdd(const std::string& plan, const std::string& extra = "") const {
    return tool("spyre-sim") + " run " + plan + " --input A=" + path("a.npy") +
           " --input B=" + path("b.npy") + " --output C=" + path("c.npy") + " " + extra;
  }
  fs::path dir;
  std::string kernels;
};

void expectMentions(const Result& r, std::initializer_list<const char*> words) {
  EXPECT_EQ(r.status, 1) << r.output;
  for (const char* w : words)
    EXPECT_NE(r.output.find(w), std::string::npos) << "missing '" << w << "' in:\n" << r.output;
}

TEST_F(Cli, SuccessfulRunWritesOutputsStatsTraceAndTheResolvedArchitecture) {
  addInputs();
  Result r = sh(runAdd(assembled("add"), "--stats " + path("stats.json") + " --trace " +
                                             path("trace.json") + " --set dram.channels=4"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("simulated cycles"), std::string::npos);
  EXPECT_NE(r.output.find("simulated cycles/s"), std::string::npos);
  EXPECT_NE(r.output.find("ui.perfetto.dev"), std::string::npos);
  EXPECT_TRUE(fs::exists(path("c.npy")));
  EXPECT_TRUE(fs::exists(path("stats.json")));
  EXPECT_TRUE(fs::exists(path("trace.json")));
  std::string resolved = readFile(path("arch.resolved.yaml"));
  EXPECT_NE(resolved.find("dram.channels=4"), std::string::npos) << resolved;
}

TEST_F(Cli, AssemblyErrorNamesFileAndLine) {
  write("bad.s", ".kernel k\n.program dma_in cores=0\n  li r1, 5\n  frobnicate r1\n.end\n");
  Result r = sh(tool("spyre-as") + " " + path("bad.s") + " -o " + path("out"));
  expectMentions(r, {"bad.s:4", "unknown instruction 'frobnicate'"});
  EXPECT_FALSE(fs::exists(path("out/job.plan")));
}

TEST_F(Cli, MalformedJobPlanNamesFileAndLine) {
  std::string plan = assembled("add");
  std::string text = readFile(plan);
  text.insert(text.find("\"kernel\""), "\"oops\" ");
  writeFileAtomically(plan, text);
  addInputs();
  expectMentions(sh(runAdd(plan)), {"job.plan:", "malformed JSON"});
  EXPECT_FALSE(fs::exists(path("c.npy")));
}

TEST_F(Cli, JobPlanWithWrongFieldNamesTheField) {
  std::string plan = assembled("add");
  std::string text = readFile(plan);
  text.replace(text.find("\"direction\": 0"), 14, "\"direction\": 7");
  writeFileAtomically(plan, text);
  addInputs();
  expectMentions(sh(runAdd(plan)), {"job.plan", "execute[0].direction", "expected 0"});
}

TEST_F(Cli, CorruptJobBinaryIsRejected) {
  std::string plan = assembled("add");
  writeFileAtomically(path("add/init.bin"), "SPYRBIN");
  addInputs();
  expectMentions(sh(runAdd(plan)), {"init.bin", "truncated"});
}

TEST_F(Cli, MalformedNpyNamesFileAndField) {
  std::string plan = assembled("add");
  addInputs();
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (64,), }";
  header.resize(117, ' ');
  header += '\n';
  write("a.npy", std::string("\x93NUMPY\x01\x00", 8) + std::string("\x76\x00", 2) + header);
  expectMentions(sh(runAdd(plan)), {"a.npy", "descr"});
}

TEST_F(Cli, WrongInputShapeNamesBothShapes) {
  std::string plan = assembled("add");
  writeNpy(path("a.npy"), randomArray(DType::F16, {16, 4096}, 1));
  writeNpy(path("b.npy"), randomArray(DType::F16, {16, 4096}, 2));
  expectMentions(sh(runAdd(plan)), {"input 'A'", "(16, 4096)", "(32, 4096)"});
}

TEST_F(Cli, InconsistentSymbolicDimensionsAreNamed) {
  std::string plan = assembled("matmul");
  writeNpy(path("a.npy"), randomArray(DType::F16, {256, 128}, 1));
  writeNpy(path("b.npy"), randomArray(DType::F16, {256, 256}, 2));
  Result r = sh(tool("spyre-sim") + " run " + plan + " --input A=" + path("a.npy") +
                " --input B=" + path("b.npy"));
  expectMentions(r,
                 {"input 'B' dimension 0 is 256", "scalar K is 128 (from input 'A' dimension 1)"});
}

TEST_F(Cli, MissingInputSaysHowToBindIt) {
  std::string plan = assembled("matmul");
  writeNpy(path("a.npy"), randomArray(DType::F16, {256, 256}, 1));
  expectMentions(sh(tool("spyre-sim") + " run " + plan + " --input A=" + path("a.npy")),
                 {"input 'B'", "--input B="});
}

TEST_F(Cli, BindingsGivenTwiceOrMalformedAreRejectedBeforeSimulating) {
  addInputs();
  std::string plan = assembled("add");
  expectMentions(sh(runAdd(plan, "--output C=" + path("d.npy"))), {"--output C given twice"});
  expectMentions(sh(runAdd(plan, "--scalar n=1 --scalar n=2")), {"--scalar n given twice"});
  expectMentions(sh(runAdd(plan, "--scalar n=12x")), {"--scalar n=12x", "'12x' is not a number"});
  expectMentions(sh(runAdd(plan, "--input A")), {"--input A", "expected NAME=VALUE"});
  EXPECT_FALSE(fs::exists(path("c.npy")));
  EXPECT_FALSE(fs::exists(path("d.npy")));
}

TEST_F(Cli, BadArchitectureFileNamesFileLineAndKey) {
  std::string plan = assembled("add");
  std::string yaml = readFile(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml");
  yaml.replace(yaml.find("hop_latency_cycles"), 18, "hop_latency_cycels");
  write("arch.yaml", yaml);
  addInputs();
  expectMentions(sh(runAdd(plan, "--arch " + path("arch.yaml"))),
                 {"arch.yaml:", "hop_latency_cycels", "hop_latency_cycles"});
}

TEST_F(Cli, BadOverrideNamesTheKey) {
  std::string plan = assembled("add");
  addInputs();
  expectMentions(sh(runAdd(plan, "--set chip.cores=abc")), {"chip.cores", "integer"});
}

TEST_F(Cli, OutOfBoundsAccessNamesEngineCorePcAndAddressAndWritesNothing) {
  write("oob.s", R"(.kernel oob
.input A f16 [64]
.output C f16 [64]
.program dma_in cores=0
    li r1, 4096
    dma.load sp=0, mem=@A+r1, bytes=128
.end
)");
  ASSERT_EQ(sh(tool("spyre-as") + " " + path("oob.s") + " -o " + path("oob")).status, 0);
  writeNpy(path("a.npy"), randomArray(DType::F16, {64}, 1));
  write("c.npy", "previous contents");
  Result r = sh(tool("spyre-sim") + " run " + path("oob/job.plan") + " --input A=" + path("a.npy") +
                " --output C=" + path("c.npy") + " --stats " + path("s.json"));
  expectMentions(
      r, {"core 0 dma_in pc 1", "dma.load", "device address 0x", "outside every allocation"});
  EXPECT_EQ(readFile(path("c.npy")), "previous contents");
  EXPECT_FALSE(fs::exists(path("s.json")));
}

TEST_F(Cli, MisalignedScratchpadAccessIsReported) {
  write("mis.s", R"(.kernel mis
.input A f16 [64]
.program load cores=0 corelet=0
    ld.stream n0=1, fifo=in0, addr=64
.end
)");
  ASSERT_EQ(sh(tool("spyre-as") + " " + path("mis.s") + " -o " + path("mis")).status, 0);
  writeNpy(path("a.npy"), randomArray(DType::F16, {64}, 1));
  expectMentions(
      sh(tool("spyre-sim") + " run " + path("mis/job.plan") + " --input A=" + path("a.npy")),
      {"core 0 load0 pc 0", "not stick-aligned"});
}

TEST_F(Cli, DeadlockReportsEveryBlockedEngineAndNeverHangs) {
  write("dead.s", R"(.kernel dead
.input A f16 [64]
.program dma_in cores=0-1
    twait 3
.end
.program compute cores=0 corelet=0
    sfu.exp.f16 4, out0, in0
.end
)");
  ASSERT_EQ(sh(tool("spyre-as") + " " + path("dead.s") + " -o " + path("dead")).status, 0);
  writeNpy(path("a.npy"), randomArray(DType::F16, {64}, 1));
  Result r = sh("timeout 60 " + tool("spyre-sim") + " run " + path("dead/job.plan") +
                " --input A=" + path("a.npy"));
  expectMentions(r, {"deadlock", "core 0 dma_in pc 0: waiting for token 3",
                     "core 1 dma_in pc 0: waiting for token 3",
                     "core 0 compute0 pc 0: waiting for data in core 0 corelet 0 in0"});
}

TEST_F(Cli, TraceCapIsReported) {
  addInputs();
  Result r = sh(runAdd(assembled("add"), "--trace " + path("t.json") + " --trace-limit 50"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("trace capped at 50 events"), std::string::npos) << r.output;
  EXPECT_NE(readFile(path("t.json")).find("\"truncated\":true"), std::string::npos);
}

TEST_F(Cli, DisassemblyRoundTripsThroughTheTools) {
  std::string plan = assembled("softmax");
  Result d = sh(tool("spyre-as") + " -d " + plan + " -o " + path("softmax.s"));
  ASSERT_EQ(d.status, 0) << d.output;
  Result a = sh(tool("spyre-as") + " " + path("softmax.s") + " -o " + path("again"));
  ASSERT_EQ(a.status, 0) << a.output;
  EXPECT_EQ(readFile(path("softmax/init.bin")), readFile(path("again/init.bin")));
  EXPECT_EQ(readFile(plan), readFile(path("again/job.plan")));
}

} // namespace
} // namespace chipless::test

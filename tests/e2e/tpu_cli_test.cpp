// The TPU command-line tools on good and bad input: tpu-as and tpu-sim write results only on
// success, and every error names the file and line or field, or the chip, core, unit,
// program counter and address.
#include "support/atomic_file.h"
#include "support/npy.h"
#include "tests/e2e/shell.h"
#include "tests/e2e/tpu_kernel_harness.h"

#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

using Result = ShellResult;

class TpuCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir =
        fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
        (std::string("TpuCli.") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    kernels = std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels/";
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    writeFileAtomically(path(name), text);
  }
  /// Assembles a kernel file into DIR/<name>; returns its plan path.
  std::string assembled(const std::string& source, const std::string& name) const {
    Result r = sh(tool("tpu-as") + " " + source + " -o " + path(name));
    EXPECT_EQ(r.status, 0) << r.output;
    return path(name + "/job.plan");
  }
  void gemmInputs() const {
    writeNpy(path("a.npy"), randomF32Array({200, 300}, 1));
    writeNpy(path("b.npy"), randomF32Array({300, 260}, 2));
  }
  std::string runGemm(const std::string& plan, const std::string& extra = "") const {
    return tool("tpu-sim") + " run " + plan + " --input A=" + path("a.npy") +
           " --input B=" + path("b.npy") + " --output C=" + path("c.npy") + " --scalar MB=200 " +
           extra;
  }
  fs::path dir;
  std::string kernels;
};

void expectError(const Result& r, std::initializer_list<const char*> words) {
  EXPECT_EQ(r.status, 1) << r.output;
  for (const char* w : words)
    EXPECT_NE(r.output.find(w), std::string::npos) << "missing '" << w << "' in:\n" << r.output;
}

TEST_F(TpuCli, SuccessfulRunWritesOutputsStatsTraceAndTheResolvedArchitecture) {
  gemmInputs();
  std::string plan = assembled(kernels + "gemm.s", "gemm");
  Result r = sh(runGemm(plan, "--stats " + path("stats.json") + " --trace " + path("trace.json") +
                                  " --set hbm.channels=8 --launches 2"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* s : {"tpu-sim: gemm on 1 chip(s) x 1 TensorCore(s), tpu-v5e", "simulated cycles",
                        "every launch took the same cycles", "utilization", "MXU", "HBM", "ICI",
                        "bytes moved", "host seconds", "simulated cycles/s", "timeline"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << " in\n" << r.output;
  EXPECT_EQ(readNpy(path("c.npy")).shape, (std::vector<int64_t>{200, 260}));
  EXPECT_NE(readFile(path("stats.json")).find("\"utilization\""), std::string::npos);
  EXPECT_NE(readFile(path("trace.json")).find("traceEvents"), std::string::npos);
  std::string resolved = readFile(path("arch.resolved.yaml"));
  EXPECT_NE(resolved.find("hbm.channels=8"), std::string::npos);
  EXPECT_NE(resolved.find("channels: 8"), std::string::npos);
}

TEST_F(TpuCli, GenerationNamesAndChips) {
  Result r = sh(tool("tpu-as") + " " + kernels + "allreduce.s --arch v4 -o " + path("ar"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = sh(tool("tpu-sim") + " run " + path("ar/job.plan") +
         " --chips 8 --timing-only --scalar L=65536");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("on 8 chip(s) x 2 TensorCore(s), tpu-v4"), std::string::npos) << r.output;
}

TEST_F(TpuCli, AssemblerRoundTripAndIsaReference) {
  std::string plan = assembled(kernels + "add.s", "add");
  Result d = sh(tool("tpu-as") + " -d " + plan + " -o " + path("add.dis.s"));
  ASSERT_EQ(d.status, 0) << d.output;
  std::string again = assembled(path("add.dis.s"), "again");
  EXPECT_EQ(readFile(path("add/program.bin")), readFile(path("again/program.bin")));
  EXPECT_EQ(readFile(path("add/job.plan")), readFile(path("again/job.plan")));
  Result isa = sh(tool("tpu-as") + " --isa-reference");
  EXPECT_EQ(isa.status, 0);
  EXPECT_NE(isa.output.find("#### `mxu.matmul.T`"), std::string::npos);
}

TEST_F(TpuCli, BadProgramNamesFileAndLine) {
  write("bad.s", ".kernel k\n.program cores=all\n    vadd.f32 v0, v1\n.end\n");
  Result r = sh(tool("tpu-as") + " " + path("bad.s") + " -o " + path("out"));
  expectError(r, {"bad.s:3:", "vadd: missing operand 'vb'"});
  EXPECT_FALSE(fs::exists(path("out/job.plan")));
}

TEST_F(TpuCli, BadPlanAndBinaryNameTheFileAndField) {
  gemmInputs();
  std::string plan = assembled(kernels + "gemm.s", "gemm");
  std::string text = readFile(plan);
  write("gemm/job.plan", text.substr(0, text.size() / 2));
  expectError(sh(runGemm(plan)), {"job.plan:", "malformed JSON"});
  std::string field = text;
  field.replace(field.find("\"placement\""), 11, "\"placemant\"");
  write("gemm/job.plan", field);
  expectError(sh(runGemm(plan)), {"job.plan: arguments[0].placemant: unknown field"});
  write("gemm/job.plan", text);
  std::string bin = readFile(path("gemm/program.bin"));
  write("gemm/program.bin", bin.substr(0, bin.size() - 7));
  expectError(sh(runGemm(plan)), {"program.bin: truncated"});
  EXPECT_FALSE(fs::exists(path("c.npy")));
}

TEST_F(TpuCli, BadNpyAndWrongShapes) {
  gemmInputs();
  std::string plan = assembled(kernels + "gemm.s", "gemm");
  write("a.npy", "not a numpy file");
  expectError(sh(runGemm(plan)), {"a.npy", "magic"});
  writeNpy(path("a.npy"), randomF32Array({200, 301}, 1));
  expectError(sh(runGemm(plan)),
              {"input 'B' dimension 0 is 300, but scalar K is 301 (from input 'A' dimension 1)"});
  writeNpy(path("a.npy"), makeNpy(DType::I32, {200, 300}));
  expectError(sh(runGemm(plan)), {"input 'A'", "cannot feed a tensor of bf16"});
  EXPECT_FALSE(fs::exists(path("c.npy")));
}

TEST_F(TpuCli, AFailedPreconditionSaysWhichScalarAndWhichCheck) {
  gemmInputs();
  std::string plan = assembled(kernels + "gemm.s", "gemm");
  std::string run = tool("tpu-sim") + " run " + plan + " --input A=" + path("a.npy") +
                    " --input B=" + path("b.npy") + " --output C=" + path("c.npy");
  expectError(sh(run + " --scalar MB=7"),
              {"pc ", "trap 1",
               "scalar MB (7) must be at least 1 and divide M padded to a "
               "multiple of 8 (200)"});
  expectError(sh(run + " --scalar MB=0"), {"trap 1", "scalar MB (0) must be at least 1"});
  EXPECT_FALSE(fs::exists(path("c.npy")));
  ShellResult r = sh(run + " --scalar MB=40");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(TpuCli, BadArchitectureNamesFileLineAndKey) {
  gemmInputs();
  std::string plan = assembled(kernels + "gemm.s", "gemm");
  std::string yaml = readFile(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/tpu-v5e.yaml");
  yaml.replace(yaml.find("  rows: 128"), 11, "  rowz: 128");
  write("arch.yaml", yaml);
  expectError(sh(runGemm(plan, "--arch " + path("arch.yaml"))),
              {"arch.yaml:", "mxu.rowz", "did you mean 'mxu.rows'"});
  expectError(sh(runGemm(plan, "--set mxu.count=zero")), {"--set mxu.count=zero", "integer"});
  expectError(sh(runGemm(plan, "--arch v9")), {"v9"});
  EXPECT_FALSE(fs::exists(path("c.npy")));
}

TEST_F(TpuCli, OutOfBoundsAndMisalignedAccessesNameCoreUnitPcAndAddress) {
  write("oob.s", ".kernel oob\n.input X f32 [8, 128]\n.output Y f32 [8, 128]\n"
                 ".program cores=0\n"
                 "    dma.in dst=0, src=@X, bytes=4096, sem=0\n"
                 "    sem.wait 0\n"
                 "    dma.out dst=@Y+4096, src=0, bytes=4096, sem=1\n"
                 "    sem.wait 1\n.end\n");
  write("mis.s", ".kernel mis\n.input X f32 [8, 128]\n.output Y f32 [8, 128]\n"
                 ".program cores=0\n"
                 "    dma.in dst=16, src=@X, bytes=4096, sem=0\n"
                 "    sem.wait 0\n.end\n");
  writeNpy(path("x.npy"), randomF32Array({8, 128}, 3));
  for (auto [name, words] :
       {std::pair<std::string, std::vector<const char*>>{
            "oob",
            {"chip 0 core 0 dma pc 2 (dma.out)", "HBM address 0x", "outside every allocation"}},
        {"mis", {"chip 0 core 0 dma pc 0 (dma.in)", "misaligned DMA", "VMEM address 0x10"}}}) {
    std::string plan = assembled(path(name + ".s"), name);
    Result r = sh(tool("tpu-sim") + " run " + plan + " --input X=" + path("x.npy") +
                  " --output Y=" + path("y.npy") + " --stats " + path("s.json"));
    EXPECT_EQ(r.status, 1) << r.output;
    for (const char* w : words)
      EXPECT_NE(r.output.find(w), std::string::npos) << w << "\n" << r.output;
    EXPECT_FALSE(fs::exists(path("y.npy")));
    EXPECT_FALSE(fs::exists(path("s.json")));
  }
}

TEST_F(TpuCli, DeadlockIsReportedAndNothingIsWritten) {
  write("dead.s", ".kernel dead\n.input X f32 [2, 128] placement=split\n"
                  ".output Y f32 [2, 128] placement=split\n"
                  ".program cores=0 chips=1\n"
                  "    ici.allreduce.f32 src=@X, dst=@Y, bytes=1024, sem=0\n"
                  "    sem.wait 0\n.end\n");
  writeNpy(path("x.npy"), randomF32Array({4, 128}, 3));
  std::string plan = assembled(path("dead.s"), "dead");
  Result r = sh(tool("tpu-sim") + " run " + plan + " --chips 2 --input X=" + path("x.npy") +
                " --output Y=" + path("y.npy"));
  expectError(r, {"deadlock: the program can never finish",
                  "chip 1 core 0 pc 1: waiting for semaphore 0",
                  "chip 1 ici: waiting for all-reduce #0", "data from chip 0"});
  EXPECT_FALSE(fs::exists(path("y.npy")));
}

} // namespace
} // namespace chipless::test

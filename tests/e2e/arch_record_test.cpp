// Programs that describe themselves: every compiler and assembler records the architecture
// a program was made for (DIR/arch.yaml, its fingerprint in job.plan); spyre-sim and tpu-sim
// run on it by default, let a run change timing parameters and refuse a change to a
// parameter the compiler planned with, naming each key and both values.
#include "support/atomic_file.h"
#include "support/npy.h"
#include "support/spyre_arch.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

class ArchRecord : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
          (std::string("ArchRecord.") +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string source(const std::string& rel) const {
    return std::string(CHIPLESS_SOURCE_DIR) + "/" + rel;
  }
  /// Runs `command`, expecting it to succeed; returns its output.
  std::string ok(const std::string& command) const {
    ShellResult r = sh(command);
    EXPECT_EQ(r.status, 0) << command << "\n" << r.output;
    return r.output;
  }
  /// Runs `command`, expecting it to fail with every one of `words` in its message.
  std::string fails(const std::string& command, std::initializer_list<const char*> words) const {
    ShellResult r = sh(command);
    EXPECT_EQ(r.status, 1) << command << "\n" << r.output;
    for (const char* w : words)
      EXPECT_NE(r.output.find(w), std::string::npos) << "missing '" << w << "' in:\n" << r.output;
    return r.output;
  }
  /// A statistic of a stats.json file.
  double stat(const std::string& file, const std::string& key) const {
    nlohmann::json j = nlohmann::json::parse(readFile(file));
    nlohmann::json* node = &j;
    size_t start = 0;
    while (true) {
      size_t dot = key.find('.', start);
      node =
          &(*node)[key.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return node->is_object() ? (*node)["value"].get<double>() : node->get<double>();
  }
  fs::path dir;
};

TEST_F(ArchRecord, AV5pProgramRunsOnV5pWithoutArch) {
  ok(tool("tpu-compile") + " " + source("models/graphs/gemm_4096.mlir") + " --arch v5p -o " +
     path("g"));
  EXPECT_TRUE(fs::exists(path("g/arch.yaml")));
  nlohmann::json plan = nlohmann::json::parse(readFile(path("g/job.plan")));
  EXPECT_EQ(plan["arch"]["file"], "arch.yaml");
  EXPECT_EQ(plan["arch"]["fingerprint"].get<std::string>().rfind("fnv1a64:", 0), 0u);
  std::string out = ok(tool("tpu-sim") + " run " + path("g/job.plan") + " --timing-only --stats " +
                       path("s.json"));
  EXPECT_NE(out.find("2 TensorCore(s), tpu-v5p"), std::string::npos) << out;
  // What the run used is what it was compiled for.
  std::string resolved = readFile(path("arch.resolved.yaml"));
  EXPECT_NE(resolved.find("generation: v5p"), std::string::npos) << resolved;
  // Another generation differs in planned parameters: refused, naming each.
  fails(tool("tpu-sim") + " run " + path("g/job.plan") + " --timing-only --arch v5e",
        {"chip.tensorcores: compiled for 2, requested 1", "tpu-v5e.yaml", "Recompile",
         "tpu-compile"});
}

TEST_F(ArchRecord, AnAssembledSpyreProgramRunsOnTheCoresItWasAssembledFor) {
  ok(tool("spyre-as") + " " + source("models/kernels/add.s") + " --set chip.cores=16 -o " +
     path("add16"));
  ok(tool("spyre-sim") + " run " + path("add16/job.plan") +
     " --timing-only --scalar N=4096 --stats " + path("s.json"));
  nlohmann::json s = nlohmann::json::parse(readFile(path("s.json")));
  EXPECT_EQ(s["chip"]["core"].size(), 16u);
  fails(tool("spyre-sim") + " run " + path("add16/job.plan") +
            " --timing-only --scalar N=4096 --set chip.cores=32",
        {"chip.cores: compiled for 16, requested 32 (--set chip.cores=32)", "spyre-as"});
}

TEST_F(ArchRecord, AKtirKernelKeepsItsScratchpadAndMayChangeTimingParameters) {
  const std::string kernel = source("models/kernels/layernorm.mlir");
  ok(tool("spyre-compile") + " " + kernel + " --set scratchpad.bytes=1048576 -o " + path("ln"));
  std::string recorded = readFile(path("ln/arch.yaml"));
  EXPECT_NE(recorded.find("bytes: 1048576"), std::string::npos) << recorded;
  const std::string run = tool("spyre-sim") + " run " + path("ln/job.plan") + " --timing-only ";
  ok(run + "--stats " + path("base.json"));
  fails(
      run + "--set scratchpad.bytes=2097152",
      {"scratchpad.bytes: compiled for 1048576, requested 2097152 (--set scratchpad.bytes=2097152)",
       "spyre-compile or spyre-as ... --set scratchpad.bytes=2097152"});
  ok(run + "--set dram.bandwidth_gb_s=400");
  // The timing parameter is really applied: a quarter of the bandwidth takes longer.
  ok(run + "--set dram.bandwidth_gb_s=51.2 --stats " + path("slow.json"));
  EXPECT_GT(stat(path("slow.json"), "chip.cycles"), stat(path("base.json"), "chip.cycles"));
  // A whole other file may be given too, as long as it agrees on what was planned.
  fails(run + "--arch spyre",
        {"scratchpad.bytes: compiled for 1048576, requested 2097152", "spyre.yaml:"});
  ok(run + "--arch spyre --set scratchpad.bytes=1048576 --set dram.latency_ns=50");
}

TEST_F(ArchRecord, AnEditedRecordIsRefused) {
  ok(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " + path("add"));
  std::string text = readFile(path("add/arch.yaml"));
  size_t at = text.find("cores: 32");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "cores: 30");
  writeFileAtomically(path("add/arch.yaml"), text);
  fails(tool("spyre-sim") + " run " + path("add/job.plan") + " --timing-only --scalar N=4096",
        {"arch.yaml", "do not match the fingerprint", "job.plan"});
}

TEST_F(ArchRecord, AProgramWithoutARecordRunsOnTheDefaultWithAWarning) {
  ok(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " + path("old"));
  nlohmann::json plan = nlohmann::json::parse(readFile(path("old/job.plan")));
  plan.erase("arch");
  writeFileAtomically(path("old/job.plan"), plan.dump(2) + "\n");
  fs::remove(path("old/arch.yaml"));
  std::string out =
      ok(tool("spyre-sim") + " run " + path("old/job.plan") + " --timing-only --scalar N=4096");
  EXPECT_NE(out.find("does not record the architecture"), std::string::npos) << out;
  EXPECT_NE(out.find("spyre.yaml"), std::string::npos) << out;
}

TEST_F(ArchRecord, EveryToolAcceptsTheBundledNamesAndListsThemForAWrongOne) {
  const std::string add = source("models/kernels/add.s");
  ok(tool("spyre-as") + " " + add + " --arch spyre -o " + path("a"));
  fails(tool("spyre-as") + " " + add + " --arch v7 -o " + path("b"),
        {"--arch v7", "spyre, v4, v5e, v5p, v6e"});
  fails(tool("spyre-as") + " " + add + " --arch v5e -o " + path("b"),
        {"--arch v5e", "tpu architecture", "spyre"});
  fails(tool("spyre-compile") + " " + source("models/kernels/layernorm.mlir") + " --arch v7 -o " +
            path("c"),
        {"spyre, v4, v5e, v5p, v6e"});
  ok(tool("tpu-as") + " " + source("models/tpu-kernels/add.s") + " --arch tpu-v6e -o " + path("t"));
  fails(tool("tpu-as") + " " + source("models/tpu-kernels/add.s") + " --arch v7 -o " + path("u"),
        {"spyre, v4, v5e, v5p, v6e"});
  fails(tool("tpu-compile") + " " + source("models/graphs/softmax.mlir") + " --arch spyre -o " +
            path("v"),
        {"spyre architecture", "tpu"});
  fails(tool("tpu-sim") + " run " + path("t/job.plan") + " --timing-only --arch v7",
        {"spyre, v4, v5e, v5p, v6e"});
  fails(tool("spyre-sim") + " run " + path("a/job.plan") + " --timing-only --arch v7",
        {"spyre, v4, v5e, v5p, v6e"});
  for (const std::string& checked : {path("b"), path("c"), path("u"), path("v")})
    EXPECT_FALSE(fs::exists(checked)) << checked;
}

TEST_F(ArchRecord, ChiplessArchShowsDescriptionsAndChecksRuns) {
  std::string shown = ok(tool("chipless-arch") + " show v5p --set hbm.bandwidth_gb_s=3000");
  EXPECT_NE(shown.find("bandwidth_gb_s: 3000.0"), std::string::npos) << shown;
  ok(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " + path("add"));
  std::string checked = ok(tool("chipless-arch") + " check " + path("add/job.plan") +
                           " --set dram.bandwidth_gb_s=400");
  EXPECT_NE(checked.find("dram.bandwidth_gb_s: 204.8 -> 400.0 (timing)"), std::string::npos)
      << checked;
  fails(tool("chipless-arch") + " check " + path("add/job.plan") + " --set chip.cores=8",
        {"chip.cores: compiled for 32, requested 8"});
  // --json: what the study runner reads, every parameter with its value, type and role
  nlohmann::json json = nlohmann::json::parse(
      ok(tool("chipless-arch") + " show v5p --json --set hbm.bandwidth_gb_s=3000"));
  EXPECT_EQ(json["chip"], "tpu");
  EXPECT_EQ(json["overrides"][0], "hbm.bandwidth_gb_s=3000");
  EXPECT_EQ(json["params"]["hbm.bandwidth_gb_s"]["value"], 3000.0);
  EXPECT_EQ(json["params"]["hbm.bandwidth_gb_s"]["role"], "timing");
  EXPECT_EQ(json["params"]["mxu.rows"]["role"], "planned");
  EXPECT_EQ(json["params"]["mxu.rows"]["type"], "int");
  EXPECT_TRUE(json["params"]["mxu.rows"]["value"].is_number_integer());
  EXPECT_EQ(json["params"]["chip.generation"]["value"], "v5p");
  nlohmann::json spyre = nlohmann::json::parse(ok(tool("chipless-arch") + " show spyre --json"));
  EXPECT_EQ(spyre["chip"], "spyre");
  EXPECT_EQ(spyre["params"]["chip.cores"]["value"], 32);
  EXPECT_EQ(spyre["params"].size(), SpyreArch::schema().size());
  fails(tool("chipless-arch") + " show spyre --json --set chip.cores=0",
        {"--set chip.cores=0", "out of range"});
  fails(tool("chipless-arch") + " show v9 --json", {"--arch v9: no such file, and not a bundled "
                                                    "architecture (spyre, v4, v5e, v5p, v6e)"});
  std::string reference = ok(tool("chipless-arch") + " reference");
  EXPECT_EQ(reference, readFile(source("docs/arch-parameters.md")))
      << "docs/arch-parameters.md is stale: run build/bin/chipless-arch reference -o "
         "docs/arch-parameters.md";
}

} // namespace
} // namespace chipless::test

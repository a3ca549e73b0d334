// A disk that fills up in the middle of a command's outputs (--output, --stats, --trace,
// -o, --dump-dir, the reference files): the command fails naming the file and the OS error,
// every output an earlier run left stays as it was, and no partial or temporary file is
// left. The full disk is fault/write_fault.c, preloaded into the tool: writes under the
// test's output folder fail with ENOSPC after a given number of bytes.
#include "support/atomic_file.h"
#include "support/npy.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

/// One command and the folder it writes into.
struct OutputCommand {
  const char* name;
  /// The command, with OUT standing for the output folder and IN for the input folder.
  std::string command;
};

/// Test names and failure messages show the command's name.
void PrintTo(const OutputCommand& c, std::ostream* os) {
  *os << c.name;
}

class FullDisk : public ::testing::TestWithParam<OutputCommand> {
protected:
  void SetUp() override {
    std::string name = GetParam().name;
    dir = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" / ("FullDisk." + name);
    fs::remove_all(dir);
    fs::create_directories(dir / "in");
    fs::create_directories(dir / "out");
    // Inputs of the simulator runs: the add kernels (Spyre [32, 4096] f16, TPU [64, 256] f32).
    ShellResult r = sh(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " +
                       (dir / "in/spyre").string());
    ASSERT_EQ(r.status, 0) << r.output;
    r = sh(tool("tpu-as") + " " + source("models/tpu-kernels/add.s") + " -o " +
           (dir / "in/tpu").string());
    ASSERT_EQ(r.status, 0) << r.output;
    writeNpy((dir / "in/a.npy").string(), randomArray(DType::F16, {32, 4096}, 1));
    writeNpy((dir / "in/b.npy").string(), randomArray(DType::F16, {32, 4096}, 2));
    writeNpy((dir / "in/x.npy").string(), randomArray(DType::F32, {64, 256}, 3));
    writeNpy((dir / "in/y.npy").string(), randomArray(DType::F32, {64, 256}, 4));
  }
  std::string source(const std::string& rel) const {
    return std::string(CHIPLESS_SOURCE_DIR) + "/" + rel;
  }
  /// The command with OUT and IN replaced, run with at most `limit` bytes of room in the
  /// output folder (-1: as much as it needs).
  ShellResult run(long long limit) const {
    std::string command = GetParam().command;
    for (const auto& [key, value] :
         {std::pair<std::string, std::string>{"OUT", (dir / "out").string()},
          {"IN", (dir / "in").string()}})
      for (size_t at = command.find(key); at != std::string::npos; at = command.find(key, at))
        command.replace(at, key.size(), value);
    std::string env = "LD_PRELOAD=" + std::string(CHIPLESS_WRITE_FAULT_LIB) +
                      " ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 CHIPLESS_FAULT_DIR=" +
                      (dir / "out").string() + " ";
    if (limit >= 0) env += "CHIPLESS_FAULT_BYTES=" + std::to_string(limit) + " ";
    return sh(env + command);
  }
  /// Every file and folder under the output folder with its bytes ("" for a folder).
  std::map<std::string, std::string> outputs() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir / "out"))
      out[fs::relative(e.path(), dir / "out").string()] =
          e.is_regular_file() ? readFile(e.path().string()) : "";
    return out;
  }
  fs::path dir;
};

TEST_P(FullDisk, LeavesEarlierOutputsAsTheyWere) {
  // A first run writes every output; its total size is how much room the command needs.
  ShellResult first = run(-1);
  ASSERT_EQ(first.status, 0) << first.output;
  long long total = 0;
  for (const auto& [name, bytes] : outputs()) total += static_cast<long long>(bytes.size());
  ASSERT_GT(total, 0);
  // Mark every output as the earlier run's, so that a rewrite would show.
  for (const auto& [name, bytes] : outputs())
    if (fs::is_regular_file(dir / "out" / name))
      writeFileAtomically((dir / "out" / name).string(), bytes + "\nearlier run\n");
  const std::map<std::string, std::string> before = outputs();

  for (long long limit : {0LL, 1LL, total / 3, total - 1}) {
    ShellResult r = run(limit);
    EXPECT_EQ(r.status, 1) << "room for " << limit << " of " << total << " bytes:\n" << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find((dir / "out").string()), std::string::npos)
        << "the error names the file: " << r.output;
    EXPECT_EQ(outputs(), before) << "room for " << limit << " of " << total << " bytes";
  }
  // With room for every byte the command succeeds: the full disk above was the only fault.
  ShellResult enough = run(total);
  EXPECT_EQ(enough.status, 0) << enough.output;
  EXPECT_NE(outputs(), before);
}

INSTANTIATE_TEST_SUITE_P(
    EveryOutput, FullDisk,
    ::testing::Values(
        OutputCommand{"SpyreSimRun", tool("spyre-sim") +
                                         " run IN/spyre/job.plan --input A=IN/a.npy "
                                         "--input B=IN/b.npy --scalar N=4096 "
                                         "--output C=OUT/c.npy --stats OUT/stats.json "
                                         "--trace OUT/trace.json"},
        OutputCommand{"TpuSimRun", tool("tpu-sim") +
                                       " run IN/tpu/job.plan --input A=IN/x.npy "
                                       "--input B=IN/y.npy --scalar R=64 --scalar N=256 "
                                       "--output C=OUT/c.npy --stats OUT/stats.json "
                                       "--trace OUT/trace.json"},
        OutputCommand{"SpyreCompileGraph",
                      tool("spyre-compile") + " " + CHIPLESS_SOURCE_DIR +
                          "/models/graphs/softmax.mlir -o OUT/prog --dump-dir OUT/dump"},
        OutputCommand{"SpyreCompileKtir",
                      tool("spyre-compile") + " " + CHIPLESS_SOURCE_DIR +
                          "/models/kernels/matmul_1024.mlir -o OUT/prog --dump-dir OUT/dump"},
        OutputCommand{"TpuCompile", tool("tpu-compile") + " " + CHIPLESS_SOURCE_DIR +
                                        "/models/graphs/softmax.mlir -o OUT/prog --dump-dir "
                                        "OUT/dump"},
        OutputCommand{"SpyreAs", tool("spyre-as") + " " + CHIPLESS_SOURCE_DIR +
                                     "/models/kernels/matmul.s -o OUT/prog"},
        OutputCommand{"SpyreDisassemble", tool("spyre-as") + " -d IN/spyre/job.plan -o OUT/add.s"},
        OutputCommand{"TpuAs", tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR +
                                   "/models/tpu-kernels/gemm.s -o OUT/prog"},
        OutputCommand{"ArchReference", tool("chipless-arch") + " reference -o OUT/ref.md"}),
    [](const ::testing::TestParamInfo<OutputCommand>& info) { return info.param.name; });

} // namespace
} // namespace chipless::test

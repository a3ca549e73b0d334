// What a command writes, it writes whole and together: a run whose --stats or --trace cannot
// be written leaves no --output behind either, a failed compile leaves no -o or --dump-dir
// folder (but the KTIR of a graph's kernel that the KTIR compiler refused, kept on purpose
// in --dump-dir/failed/), and missing parent folders of an output are created.
#include "support/atomic_file.h"
#include "support/npy.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <iterator>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

class Outputs : public ::testing::Test {
protected:
  void SetUp() override {
    dir =
        fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
        (std::string("Outputs.") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    writeFileAtomically(path("not-a-dir"), "a file where a folder is expected\n");
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string source(const std::string& rel) const {
    return std::string(CHIPLESS_SOURCE_DIR) + "/" + rel;
  }
  /// The files and folders under the test's directory, relative to it.
  std::vector<std::string> contents() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      out.push_back(fs::relative(e.path(), dir).string());
    std::sort(out.begin(), out.end());
    return out;
  }
  /// The add kernel assembled into DIR/add, with inputs a.npy and b.npy.
  std::string addJob() const {
    ShellResult r =
        sh(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " + path("add"));
    EXPECT_EQ(r.status, 0) << r.output;
    writeNpy(path("a.npy"), randomArray(DType::F16, {32, 4096}, 1));
    writeNpy(path("b.npy"), randomArray(DType::F16, {32, 4096}, 2));
    return tool("spyre-sim") + " run " + path("add/job.plan") + " --input A=" + path("a.npy") +
           " --input B=" + path("b.npy");
  }
  fs::path dir;
};

TEST_F(Outputs, ARunWhoseStatsOrTraceCannotBeWrittenWritesNothing) {
  const std::string run = addJob();
  const std::vector<std::string> before = contents();
  for (const std::string& bad :
       {"--stats " + path("not-a-dir/s.json"),
        "--stats " + path("s.json") + " --trace " + path("not-a-dir/t.json")}) {
    ShellResult r = sh(run + " --output C=" + path("c.npy") + " " + bad);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("not-a-dir"), std::string::npos) << r.output;
    EXPECT_EQ(contents(), before) << "a failed run left files behind (" << bad << ")";
  }
  // The same run with writable paths writes everything, creating missing folders.
  ShellResult r = sh(run + " --output C=" + path("new/out/c.npy") + " --stats " +
                     path("new/stats/s.json") + " --trace " + path("new/t.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f :
       {"new/out/c.npy", "new/stats/s.json", "new/t.json", "new/stats/arch.resolved.yaml"})
    EXPECT_TRUE(fs::exists(path(f))) << f;
}

TEST_F(Outputs, AFailedKtirCompileLeavesNoProgramAndNoDumps) {
  // Parses and verifies, then fails in the Dataflow Scheduler, after the first dumps.
  writeFileAtomically(path("too_large.mlir"), R"(func.func @too_large(%x_ptr: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x_ptr, sizes: [1024, 1024], strides: [1024, 1] {
    memory_space = #ktdp.memory_space<global>
  } : memref<1024x1024xf16>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 1023 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
  } : memref<1024x1024xf16> -> !ktdp.access_tile<1024x1024xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1024x1024xindex> -> tensor<1024x1024xf16>
  %e = math.exp %d : tensor<1024x1024xf16>
  ktdp.store %e, %t : tensor<1024x1024xf16>, !ktdp.access_tile<1024x1024xindex>
  return
}
)");
  const std::vector<std::string> before = contents();
  ShellResult r = sh(tool("spyre-compile") + " " + path("too_large.mlir") + " -o " + path("out/k") +
                     " --dump-dir " + path("out/dump"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("too_large.mlir:10:"), std::string::npos) << r.output;
  EXPECT_EQ(contents(), before) << "a failed compile left files behind";
  // A good kernel into a nested, missing folder: the program and every dump appear.
  r = sh(tool("spyre-compile") + " " + source("models/kernels/layernorm.mlir") + " -o " +
         path("deep/er/k") + " --dump-dir " + path("deep/dump"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"deep/er/k/job.plan", "deep/er/k/init.bin", "deep/er/k/arch.yaml",
                        "deep/dump/00-ktir.mlir", "deep/dump/05-spyrecode.s"})
    EXPECT_TRUE(fs::exists(path(f))) << f;
}

TEST_F(Outputs, AFailedGraphCompileLeavesNoProgramAndNoDumps) {
  const std::vector<std::string> before = contents();
  // Fails at the matmul in a later pass, after the first dumps.
  ShellResult r =
      sh(tool("tpu-compile") + " " + source("models/graphs/gemm_200x300x260.mlir") +
         " --set vmem.bytes=65536 -o " + path("out/g") + " --dump-dir " + path("out/dump"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("does not fit in VMEM"), std::string::npos) << r.output;
  EXPECT_EQ(contents(), before) << "a failed compile left files behind";
  r = sh(tool("tpu-compile") + " " + source("models/graphs/softmax.mlir") + " -o " +
         path("deep/er/g") + " --dump-dir " + path("deep/dump"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"deep/er/g/job.plan", "deep/er/g/program.bin", "deep/er/g/arch.yaml",
                        "deep/dump/00-graph.mlir", "deep/dump/program.s"})
    EXPECT_TRUE(fs::exists(path(f))) << f;
}

TEST_F(Outputs, AGraphKernelTheKtirCompilerRefusesIsNamedAndKeptToReproduce) {
  // Two synchronisation tokens per core: the scheduler refuses the MLP's first kernel, an
  // error at no place of the graph; a note names the kernel at the graph op it starts at.
  const std::string graph = source("models/graphs/spyre_mlp.mlir");
  const std::string tokens = " --set sync.tokens_per_core=2";
  ShellResult r = sh(tool("spyre-compile") + " " + graph + tokens + " -o " + path("out/g"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("synchronisation tokens"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("spyre_mlp.mlir:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": note: in kernel k1_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("which the KTIR compiler refused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rerun with --dump-dir DIR to keep kernel k1_"), std::string::npos)
      << r.output;
  // With --dump-dir, the refused kernel's KTIR and nothing else.
  const std::vector<std::string> before = contents();
  r = sh(tool("spyre-compile") + " " + graph + tokens + " -o " + path("out/g") + " --dump-dir " +
         path("out/dump"));
  EXPECT_EQ(r.status, 1) << r.output;
  std::vector<std::string> after = contents();
  std::vector<std::string> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  ASSERT_EQ(added.size(), 4u) << r.output; // out, out/dump, out/dump/failed, the kernel
  ASSERT_EQ(added.back().rfind("out/dump/failed/k1_", 0), 0u) << added.back();
  const std::string kept = path(added.back());
  EXPECT_NE(r.output.find("'s KTIR is in " + kept), std::string::npos) << r.output;
  // Compiled alone it fails the same way; with the tokens the chip has, it compiles.
  r = sh(tool("spyre-compile") + " " + kept + tokens + " -o " + path("alone"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("synchronisation tokens"), std::string::npos) << r.output;
  r = sh(tool("spyre-compile") + " " + kept + " -o " + path("alone"));
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(Outputs, AssemblersCreateMissingParentFolders) {
  ShellResult r =
      sh(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " + path("a/b/add"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("a/b/add/job.plan")));
  r = sh(tool("tpu-as") + " " + source("models/tpu-kernels/add.s") + " -o " + path("c/d/add"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("c/d/add/job.plan")));
  // A folder that cannot be made is an error naming it, and nothing is left.
  const std::vector<std::string> before = contents();
  r = sh(tool("spyre-as") + " " + source("models/kernels/add.s") + " -o " + path("not-a-dir/add"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("not-a-dir"), std::string::npos) << r.output;
  EXPECT_EQ(contents(), before);
}

TEST_F(Outputs, AnInputOfTheWrongElementTypeIsNamed) {
  const std::string run = addJob();
  NpyArray i8 = makeNpy(DType::I8, {32, 4096});
  writeNpy(path("i8.npy"), i8);
  ShellResult r =
      sh(tool("spyre-sim") + " run " + path("add/job.plan") + " --input A=" + path("i8.npy") +
         " --input B=" + path("b.npy") + " --output C=" + path("c.npy"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("input 'A': i8 data cannot feed a tensor of f16"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("c.npy")));
}

} // namespace
} // namespace chipless::test

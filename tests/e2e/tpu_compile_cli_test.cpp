// tpu-compile as a tool: unsupported graphs and bad options give an error naming the file,
// line and column (or the option) and exit status 1 without writing the program directory;
// compiling twice gives byte-identical programs; --dump-dir holds the IR after every pass and
// the assembly, and the assembly round-trips through tpu-as.
#include "support/atomic_file.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"
#include "tests/e2e/tpu_compile_harness.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

void expectError(const std::string& graphText, const std::string& needle,
                 const std::vector<std::string>& flags = {}) {
  std::string g = writeGraph("bad", graphText);
  CompileResult r = tpuCompile(g, "bad", flags);
  EXPECT_EQ(r.status, 1) << r.log;
  EXPECT_NE(r.log.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << r.log;
  EXPECT_FALSE(fs::exists(r.dir + "/job.plan")) << "a failed compile wrote " << r.dir;
}

TEST(TpuCompileCli, UnsupportedGraphsAreReportedAtTheOp) {
  expectError(R"(func.func @f(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
})",
              "bad.mlir:1:14: error: argument 0 must be a tensor of static shape");
  expectError(R"(func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  return %x : tensor<8x8xf32>
})",
              "bad.mlir:2:8: error: non-splat constant tensors are not supported");
  expectError(R"(func.func @f(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.reduce ins(%x : tensor<8x16xf32>) outs(%f : tensor<16xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<16xf32>
})",
              "bad.mlir:5:8: error: linalg.reduce is supported over the innermost dimension only");
  expectError(R"(func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = math.sin %a : f32
      linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
})",
              "bad.mlir:7:12: error: 'math.sin' is not supported in a linalg body");
  // Too little VMEM for even the smallest unit: an error at the matmul.
  expectError(readFile(graphFile("gemm_200x300x260")),
              "bad.mlir:8:8: error: kernel k0_matmul does not fit in VMEM",
              {"--set", "vmem.bytes=65536"});
}

TEST(TpuCompileCli, BadOptionsAndFiles) {
  CompileResult r = tpuCompile(compileWorkDir() + "/missing.mlir", "missing");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("missing.mlir"), std::string::npos) << r.log;
  r = tpuCompile(graphFile("softmax"), "badarch", {"--arch", "v9"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("tpu-compile: error:"), std::string::npos) << r.log;
  r = tpuCompile(graphFile("softmax"), "badset", {"--set", "mxu.rowz=4"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("mxu.rowz"), std::string::npos) << r.log;
  r = tpuCompile(writeGraph("syntax", "func.func @f(%x: tensor<8xf32>) {\n  retur %x\n}\n"),
                 "syntax");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.log.find("syntax.mlir:2:"), std::string::npos) << r.log;
}

TEST(TpuCompileCli, DeterministicDumpsAndAssemblyThatRoundTrips) {
  CompileResult a = tpuCompile(graphFile("mha"), "first"),
                b = tpuCompile(graphFile("mha"), "second");
  ASSERT_EQ(a.status, 0) << a.log;
  ASSERT_EQ(b.status, 0) << b.log;
  EXPECT_EQ(readFile(a.dir + "/program.bin"), readFile(b.dir + "/program.bin"));
  EXPECT_EQ(readFile(a.dir + "/job.plan"), readFile(b.dir + "/job.plan"));
  EXPECT_TRUE(fs::exists(a.dir + "/arch.resolved.yaml"));
  for (const char* f :
       {"00-graph.mlir", "01-tpu-target.mlir", "02-tpu-verify-graph.mlir", "03-tpu-decompose.mlir",
        "04-tpu-form-kernels.mlir", "05-tpu-alloc-hbm.mlir", "06-tpu-tile-mxu.mlir",
        "07-tpu-alloc-vmem.mlir", "08-tpu-split-cores.mlir", "program.s"})
    EXPECT_TRUE(fs::exists(a.dumpDir + "/" + f)) << f;
  // The program directory disassembles, and the disassembly assembles to the same job.
  tpuprog::Job job = tpuprog::readJob(a.dir + "/job.plan");
  std::string text = tpuprog::disassemble(job);
  tpuprog::AssembleOptions o;
  tpuprog::Job again = tpuprog::assemble(text, "disassembled.s", o);
  EXPECT_TRUE(again.binary == job.binary);
}

} // namespace
} // namespace chipless::test

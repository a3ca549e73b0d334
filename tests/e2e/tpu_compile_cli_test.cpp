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

/// A program directory from an earlier, successful compile, to check that failures leave it
/// alone (its files, byte for byte).
std::map<std::string, std::string> previousProgram(const std::string& tag) {
  CompileResult ok = tpuCompile(graphFile("softmax"), tag);
  EXPECT_EQ(ok.status, 0) << ok.log;
  return directoryFiles(ok.dir);
}

/// Compiles `graphText` (written to bad.mlir) and expects exit status 1 with `needle` in the
/// messages: first with no output directory (none may appear), then over an existing program
/// (it must stay as it was).
void expectError(const std::string& graphText, const std::string& needle,
                 const std::vector<std::string>& flags = {}) {
  std::string g = writeGraph("bad", graphText);
  CompileResult r = tpuCompile(g, "bad", flags);
  EXPECT_EQ(r.status, 1) << r.log;
  EXPECT_NE(r.log.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << r.log;
  EXPECT_FALSE(fs::exists(r.dir)) << "a failed compile wrote " << r.dir;
  EXPECT_EQ(r.log.find("see current operation"), std::string::npos) << r.log;
  const auto before = previousProgram("bad");
  r = tpuCompile(g, "bad", flags, true);
  EXPECT_EQ(r.status, 1) << r.log;
  EXPECT_EQ(directoryFiles(r.dir), before) << "a failed compile changed " << r.dir;
}

TEST(TpuCompileCli, UnsupportedGraphsAreReportedAtTheOp) {
  expectError(R"(func.func @f(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
})",
              "bad.mlir:1:14: error: argument 0 must be a tensor of static shape");
  // A zero-size tensor (PyTorch's empty samples) is refused, not divided by
  expectError(R"(func.func @f(%x: tensor<1x0x3xf32>) -> tensor<1x0x3xf32> {
  return %x : tensor<1x0x3xf32>
})",
              "bad.mlir:1:14: error: argument 0 must be a tensor with elements (no dimension of "
              "size 0)");
  expectError(R"(func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  return %x : tensor<8x8xf32>
})",
              "bad.mlir:2:8: error: non-splat constant tensors are not supported");
  expectError(R"(func.func @f(%x: tensor<2x8x16xf32>) -> tensor<8x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.reduce ins(%x : tensor<2x8x16xf32>) outs(%f : tensor<8x16xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8x16xf32>
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
  expectError(R"(func.func @f(%x: tensor<8x128xi32>) -> tensor<8x128xi32> {
  %e = tensor.empty() : tensor<8x128xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x128xi32>) outs(%e : tensor<8x128xi32>) {
    ^bb0(%a: i32, %o: i32):
      %s = arith.andi %a, %a : i32
      linalg.yield %s : i32
  } -> tensor<8x128xi32>
  return %r : tensor<8x128xi32>
})",
              "bad.mlir:7:12: error: 'arith.andi' is supported on i1 (comparison results) only");
  // Too little VMEM for even the smallest unit: an error at the matmul.
  expectError(readFile(graphFile("gemm_200x300x260")),
              "bad.mlir:8:8: error: kernel k0_matmul does not fit in VMEM",
              {"--set", "vmem.bytes=65536"});
  // Too few vector registers for a fused epilogue: an error at the kernel, not a crash (with
  // fewer registers than a register block, the emitter indexed an empty slot pool; 3 or more
  // registers compile with smaller blocks).
  for (const char* regs : {"vpu.registers=1", "vpu.registers=2"})
    expectError(readFile(graphFile("mlp_gelu")),
                "the fused element-wise program of kernel k0_matmul needs more than vpu.registers",
                {"--set", regs});
}

TEST(TpuCompileCli, WrongTypesAreReportedAtTheArgumentOrOp) {
  expectError(R"(func.func @f(%x: tensor<8x128xf16> {graph.name = "X"}) -> tensor<8x128xf32> {
  %e = tensor.empty() : tensor<8x128xf32>
  return %e : tensor<8x128xf32>
})",
              "bad.mlir:1:14: error: argument 0 must be a tensor of bf16, f32, i8 or i32 (got "
              "element type f16)");
  const std::string fill = R"(  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
)";
  expectError(
      "func.func @f(%a: tensor<8x128xbf16>, %b: tensor<128x128xf32>) -> tensor<8x128xf32> {\n" +
          fill +
          "  %c = linalg.matmul ins(%a, %b : tensor<8x128xbf16>, tensor<128x128xf32>) outs(%i : "
          "tensor<8x128xf32>) -> tensor<8x128xf32>\n  return %c : tensor<8x128xf32>\n}\n",
      "bad.mlir:5:8: error: matmul operands must have one element type (got 'bf16' and 'f32')");
  expectError(
      "func.func @f(%a: tensor<8x128xi8>, %b: tensor<128x128xi8>) -> tensor<8x128xf32> {\n" + fill +
          "  %c = linalg.matmul ins(%a, %b : tensor<8x128xi8>, tensor<128x128xi8>) outs(%i : "
          "tensor<8x128xf32>) -> tensor<8x128xf32>\n  return %c : tensor<8x128xf32>\n}\n",
      "bad.mlir:5:8: error: matmul of 'i8' must produce i32 (got 'f32')");
  // i32 x i32 is refused as such, whatever the result type (was: "must produce f32 or bf16").
  const std::string ifill = R"(
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x128xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<8x128xi32>) -> tensor<8x128xi32>
)";
  expectError(
      "func.func @f(%a: tensor<8x128xi32>, %b: tensor<128x128xi32>) -> tensor<8x128xi32> {\n" +
          ifill +
          "  %c = linalg.matmul ins(%a, %b : tensor<8x128xi32>, tensor<128x128xi32>) outs(%i : "
          "tensor<8x128xi32>) -> tensor<8x128xi32>\n  return %c : tensor<8x128xi32>\n}\n",
      "bad.mlir:6:8: error: matmul of i32 is not supported (bf16, f32 and i8 are)");
  expectError(R"(func.func @f(%a: tensor<8x128xf32> {graph.name = "A"},
               %b: tensor<8x128xf32> {graph.name = "A"}) -> tensor<8x128xf32> {
  return %a : tensor<8x128xf32>
})",
              "bad.mlir:2:16: error: argument 1: name 'A' is used twice");
}

TEST(TpuCompileCli, OpsOutsideTheGraphFormAreReportedAtTheOp) {
  expectError(R"(func.func @f(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %y = arith.addf %x, %x : tensor<8x128xf32>
  return %y : tensor<8x128xf32>
})",
              "bad.mlir:2:8: error: 'arith.addf' is not part of the graph form (docs/graph-ir.md)");
  expectError(
      R"(func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>)
                                outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %c : tensor<1x8x6x6xf32>
})",
      "bad.mlir:3:8: error: 'linalg.conv_2d_nchw_fchw' is not part of the graph form");
  expectError(
      R"(func.func @f(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  return %a : tensor<8x128xf32>
}
func.func @g(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  return %a : tensor<8x128xf32>
})",
      "bad.mlir:4:1: error: a graph module holds exactly one func.func; this is the second");
}

TEST(TpuCompileCli, MalformedMlirIsReportedByTheParserOrVerifier) {
  // Syntax, an undefined value, an unknown dialect, and ops whose shapes do not agree.
  expectError("func.func @f(%x: tensor<8xf32>) {\n  retur %x\n}\n", "bad.mlir:2:3: error:");
  expectError("func.func @f(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {\n  return %b : "
              "tensor<8x128xf32>\n}\n",
              "bad.mlir:2:10: error: use of undeclared SSA value name");
  expectError("func.func @f(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {\n  %y = foo.bar %a : "
              "tensor<8x128xf32>\n  return %y : tensor<8x128xf32>\n}\n",
              "bad.mlir:2:8: error: Dialect `foo' not found");
  expectError(
      R"(func.func @f(%a: tensor<8x128xbf16>, %b: tensor<64x128xbf16>) -> tensor<8x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8x128xbf16>, tensor<64x128xbf16>)
                     outs(%i : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %c : tensor<8x128xf32>
})",
      "bad.mlir:5:8: error: 'linalg.matmul' op inferred input/output operand #1 has shape's "
      "dimension #0 to be 128, but found 64");
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
  // A bad option leaves an existing program alone too.
  const auto before = previousProgram("badset");
  r = tpuCompile(graphFile("softmax"), "badset", {"--set", "mxu.rows=0"}, true);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(directoryFiles(r.dir), before);
}

TEST(TpuCompileCli, DeterministicDumpsAndAssemblyThatRoundTrips) {
  CompileResult a = tpuCompile(graphFile("mha"), "first"),
                b = tpuCompile(graphFile("mha"), "second");
  ASSERT_EQ(a.status, 0) << a.log;
  ASSERT_EQ(b.status, 0) << b.log;
  // Every file of the program directory and of the dumps, byte for byte.
  EXPECT_EQ(directoryFiles(a.dir), directoryFiles(b.dir));
  EXPECT_EQ(directoryFiles(a.dumpDir), directoryFiles(b.dumpDir));
  EXPECT_TRUE(fs::exists(a.dir + "/arch.yaml"));
  for (const char* f :
       {"00-graph.mlir", "01-tpu-target.mlir", "02-tpu-verify-graph.mlir", "03-tpu-decompose.mlir",
        "04-tpu-form-kernels.mlir", "05-tpu-alloc-hbm.mlir", "06-tpu-tile-mxu.mlir",
        "07-tpu-alloc-vmem.mlir", "08-tpu-split-cores.mlir", "program.s"})
    EXPECT_TRUE(fs::exists(a.dumpDir + "/" + f)) << f;
  // The program directory disassembles, and the disassembly assembles to the same job.
  tpuprog::Job job = tpuprog::readJob(a.dir + "/job.plan");
  std::string text = tpuprog::disassemble(job);
  auto o = tpuprog::AssembleOptions::forArch(TpuArch::fromDescription(*job.arch));
  tpuprog::Job again = tpuprog::assemble(text, "disassembled.s", o);
  EXPECT_TRUE(again.binary == job.binary);
}

TEST(TpuCompileCli, CompiledProgramsRunDeterministically) {
  // The MLP on v4 (two TensorCores sharing HBM): two compiles, each run on a fresh device with
  // a trace, give the same results, statistics and timeline byte for byte.
  const TpuArch v4 = tpuArchWith({}, "v4");
  std::map<std::string, NpyArray> in = {{"x", randomF32Array({64, 256}, 1)},
                                        {"W1", randomF32Array({256, 1024}, 2, 1.0f / 16)},
                                        {"b1", randomF32Array({1024}, 3)},
                                        {"W2", randomF32Array({1024, 256}, 4, 1.0f / 32)},
                                        {"b2", randomF32Array({256}, 5)}};
  TpuKernelRun first = runProgram(compileOrFail(graphFile("mlp_gelu"), "run1", {"--arch", "v4"}),
                                  in, v4, false, true);
  TpuKernelRun second = runProgram(compileOrFail(graphFile("mlp_gelu"), "run2", {"--arch", "v4"}),
                                   in, v4, false, true);
  EXPECT_EQ(first.outputs.at("y").data, second.outputs.at("y").data);
  EXPECT_EQ(first.statsJson, second.statsJson);
  EXPECT_EQ(first.traceJson, second.traceJson);
  EXPECT_GT(first.stats.get("chip[0].core[1].mxu_flops"), 0) << "both TensorCores ran";
  EXPECT_NE(first.traceJson.find("\"chip 0 core 1\""), std::string::npos);
}

} // namespace
} // namespace chipless::test

// The DataflowIR ports of the bundled kernels (models/dataflow/*.mlir) against the
// assembly kernels they were ported from (models/kernels/*.s): emitted by the DataflowIR
// emitter and run on the emulated chip, they give bit for bit the same outputs, and take
// exactly the same cycles when scalar instructions cost nothing, so every DMA, stream,
// SFU and token instruction is the same and in the same order.
//
// With the default cost of one cycle per scalar instruction the emitted kernels are a
// few cycles faster, never slower: an operand can name a symbol or `corelet` plus a
// constant directly, so where the assembly spends an instruction on `li r1, @A.d1` before
// `shr r1, r1, 6`, or on `add r13, corelet, 4` before `tsend r13`, the emitted program
// writes `shr r0, @A.d1, 6` and `tsend corelet+4`.
#include "dataflow/Emit/EmitFile.h"
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "tests/e2e/kernel_harness.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <utility>

namespace chipless::test {
namespace {

struct Run {
  std::map<std::string, NpyArray> outputs;
  double cycles = 0;
};

Run launch(const spyrecode::Job& job, const std::map<std::string, NpyArray>& inputs,
           const SpyreArch& arch) {
  auto device = runtime::SpyreDevice::open(arch);
  runtime::SpyreJob prepared(*device, job, job.plan.kernel);
  runtime::LaunchArgs args;
  args.inputs = inputs;
  runtime::LaunchReport out = prepared.launch(args);
  return {out.outputs, out.cycles};
}

spyrecode::Job emitKernel(const std::string& name, const SpyreArch& arch) {
  return dataflow::emitSpyreCodeFile(
      std::string(CHIPLESS_SOURCE_DIR) + "/models/dataflow/" + name + ".mlir", arch);
}

/// Runs the emitted and the assembled kernel on the same inputs and compares outputs and
/// cycles; then compares cycles again with free scalar instructions.
void expectSameAsAssembly(const std::string& name, const std::map<std::string, NpyArray>& in,
                          SpyreArch arch) {
  Run emitted = launch(emitKernel(name, arch), in, arch);
  Run assembled = launch(assembleKernel(name, arch), in, arch);
  ASSERT_EQ(emitted.outputs.size(), assembled.outputs.size());
  for (const auto& [output, array] : assembled.outputs) {
    const NpyArray& mine = emitted.outputs.at(output);
    EXPECT_EQ(mine.dtype, array.dtype) << output;
    EXPECT_EQ(mine.shape, array.shape) << output;
    EXPECT_TRUE(mine.data == array.data) << output << " differs from the assembly kernel's";
  }
  EXPECT_LE(emitted.cycles, assembled.cycles) << name << ": the emitted kernel is slower";
  EXPECT_GE(emitted.cycles, assembled.cycles - 8) << name << ": unexpectedly much faster";
  std::printf("%s: emitted %.0f cycles, assembly %.0f\n", name.c_str(), emitted.cycles,
              assembled.cycles);

  // Scalar instructions free (a what-if the description's range does not offer, set
  // here directly): everything else the two kernels do is the same, so are the cycles.
  arch.scalar.cycles_per_instruction = 0;
  Run emittedFree = launch(emitKernel(name, arch), in, arch);
  Run assembledFree = launch(assembleKernel(name, arch), in, arch);
  EXPECT_EQ(emittedFree.cycles, assembledFree.cycles) << name << ": with free scalar instructions";
  EXPECT_TRUE(emittedFree.outputs.begin()->second.data ==
              assembledFree.outputs.begin()->second.data);
}

TEST(DataflowKernels, AddMatchesTheAssemblyOn32Cores) {
  SpyreArch arch = archWith();
  expectSameAsAssembly("add",
                       {{"A", randomArray(DType::F16, {32, 4096}, 1)},
                        {"B", randomArray(DType::F16, {32, 4096}, 2)}},
                       arch);
}

TEST(DataflowKernels, AddMatchesTheAssemblyOverSeveralDoubleBufferedChunks) {
  // 4 cores: 2048 sticks per core, two chunks of 1024, so both buffers and every
  // loop-carried value are used.
  SpyreArch arch = archWith({"chip.cores=4"});
  expectSameAsAssembly("add",
                       {{"A", randomArray(DType::F16, {32, 16384}, 3)},
                        {"B", randomArray(DType::F16, {32, 16384}, 4)}},
                       arch);
}

TEST(DataflowKernels, SoftmaxMatchesTheAssemblyOn32Cores) {
  SpyreArch arch = archWith();
  expectSameAsAssembly("softmax", {{"X", randomArray(DType::F16, {64, 1024}, 21, 2.0f)}}, arch);
}

TEST(DataflowKernels, SoftmaxMatchesTheAssemblyWithSeveralRowsPerCorelet) {
  // 16 cores, 256 rows: 8 rows per corelet, so the row loop runs 8 times.
  SpyreArch arch = archWith({"chip.cores=16"});
  expectSameAsAssembly("softmax", {{"X", randomArray(DType::F16, {256, 512}, 22, 3.0f)}}, arch);
}

/// Emits the DataflowIR `text` from a file `bad.mlir` in a new temporary folder; returns
/// that file's path and the message of the error thrown ("" when there was none).
std::pair<std::string, std::string> emitFileError(const std::string& text) {
  char dir[] = "/tmp/dfir_e2e_XXXXXX";
  if (mkdtemp(dir) == nullptr) return {"", "mkdtemp failed"};
  std::string path = std::string(dir) + "/bad.mlir";
  writeFileAtomically(path, text);
  std::string message;
  try {
    dataflow::emitSpyreCodeFile(path, archWith());
  } catch (const Error& e) {
    message = e.what();
  }
  std::remove(path.c_str());
  rmdir(dir);
  return {path, message};
}

TEST(DataflowKernels, EmitterErrorsNameTheFileLineAndColumn) {
  auto [path, message] =
      emitFileError("dfir.job @bad {\n"
                    "  dfir.program unit = \"load\", cores = all, corelet = -1 {\n"
                    "    %c1 = arith.constant 1 : index\n"
                    "    dfir.ld_stream n0 = %c1, fifo = \"in9\", addr = %c1\n"
                    "  }\n"
                    "}\n");
  ASSERT_FALSE(message.empty()) << "no error";
  EXPECT_NE(message.find(path + ":4:5: error: operand 'fifo' names in9"), std::string::npos)
      << message;
}

TEST(DataflowKernels, EmitterReportsAForwardReferenceIntoARegionInsteadOfCrashing) {
  // MLIR 19's parser crashes on a use of a value defined later inside a region
  // (ParseGuard.h); the file is checked first and the use gets a located error.
  auto [path, message] =
      emitFileError("dfir.job @bad {\n"
                    "  dfir.program unit = \"load\", cores = all, corelet = -1 {\n"
                    "    %c0 = arith.constant 0 : index\n"
                    "    %c1 = arith.constant 1 : index\n"
                    "    scf.for %i = %c0 to %n step %c1 {\n"
                    "      %n = arith.constant 3 : index\n"
                    "    }\n"
                    "  }\n"
                    "}\n");
  ASSERT_FALSE(message.empty()) << "no error";
  EXPECT_NE(message.find(path + ":5:25: error: use of '%n' before its definition, which is "
                                "inside a region opened after it"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(path + ":6:7: note: '%n' is defined here"), std::string::npos) << message;
}

} // namespace
} // namespace chipless::test

// Runs that would not finish stop: a DMA descriptor whose count makes it run for ever is an
// error at once (issue 14's two runaway programs, reproduced from the bundled matmul), a
// program that loops for ever stops at --max-cycles or --timeout with a report of where each
// engine is.
#include "support/atomic_file.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/ktir_harness.h"
#include "tests/e2e/shell.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;

class BoundedRun : public ::testing::Test {
protected:
  void SetUp() override { dir = testWorkDir(); }
  /// Assembles `text` into DIR/prog; returns the plan.
  std::string assemble(const std::string& text) const {
    writeFileAtomically((dir / "k.s").string(), text);
    ShellResult r =
        sh(tool("spyre-as") + " " + (dir / "k.s").string() + " -o " + (dir / "prog").string());
    EXPECT_EQ(r.status, 0) << r.output;
    return (dir / "prog" / "job.plan").string();
  }
  /// The bundled matmul with `from` replaced by `to`.
  std::string matmulWith(const std::string& from, const std::string& to) const {
    std::string text = readFile(std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/matmul.s");
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  }
  static void expectMentions(const ShellResult& r, std::initializer_list<const char*> words) {
    EXPECT_EQ(r.status, 1) << r.output;
    for (const char* w : words)
      EXPECT_NE(r.output.find(w), std::string::npos) << "missing '" << w << "' in:\n" << r.output;
  }
  fs::path dir;
};

constexpr const char* kMatmulScalars =
    " --timing-only --scalar K=256 --scalar M=256 --scalar N=256";

TEST_F(BoundedRun, AnAbsurdDmaCountIsAnErrorAtOnce) {
  // The loop count issue 14 found in a mutated init.bin: 193,273,528,321 runs.
  std::string plan =
      assemble(matmulWith("bytes=r15, done=2", "bytes=r15, n3=193273528321, done=2"));
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + kMatmulScalars);
  expectMentions(r, {"dma_in pc 21 (dma.load): n3 = 193273528321", "runs of 32768 bytes",
                     "past --max-cycles 100000000000"});
}

TEST_F(BoundedRun, AnAbsurdStrideIsAnErrorAtOnce) {
  // A multiplier of 962,072,674,432 in the A stride: the first run outside memory faults.
  std::string plan = assemble(matmulWith("mul  r8, @A.d0, STICK", "mul  r8, @A.d0, 962072674432"));
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + kMatmulScalars);
  expectMentions(r, {"dma_in pc 14 (dma.load): device address", "is outside every allocation"});
}

TEST_F(BoundedRun, AbsurdCountsOfStreamsRingsAndDmaStridesAreErrorsAtOnce) {
  // A load stream of 10^12 sticks from one place; a DMA whose count times its scratchpad
  // stride passes 64 bits; a ring transfer whose address plus size would wrap around.
  std::string plan = assemble(
      ".kernel absurd\n.program load cores=0 corelet=0\n"
      "    ld.stream n0=1000000, fifo=in0, addr=0, s0=0, s1=0, s2=0, n1=1000, n2=1000\n.end\n");
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + " --timing-only");
  expectMentions(
      r, {"core 0 load0 pc 0 (ld.stream)", "a stream of 1000000000000 items", "past --max-cycles"});
  plan = assemble(".kernel absurd\n.program dma_in cores=0\n"
                  "    dma.load sp=0, mem=0, bytes=128, n1=4611686018427387904, ss1=128\n.end\n");
  r = sh(tool("spyre-sim") + " run " + plan + " --timing-only");
  expectMentions(r, {"core 0 dma_in pc 0 (dma.load): scratchpad range 0..(beyond 64 bits)"});
  plan =
      assemble(".kernel absurd\n.program ring cores=0\n"
               "    ring.send core=1, src=9223372036854775680, dst=0, bytes=256, dir=cw\n.end\n");
  r = sh(tool("spyre-sim") + " run " + plan + " --timing-only");
  expectMentions(r, {"core 0 ring pc 0", "src range", "outside the scratchpad"});
}

TEST_F(BoundedRun, AnAbsurdLoopCountIsAnErrorWhenTheLoopStarts) {
  // The matmul's slice loop raised to 193,273,528,321 iterations: each issues at least five
  // scalar instructions (min, li, bne, add, endloop; the branch skips one li, pt.mm is the
  // unit's own), so it could not end within the bound and fails before its first iteration.
  std::string plan =
      assemble(matmulWith("    loop r7\n      min  r5", "    loop 193273528321\n      min  r5"));
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + kMatmulScalars);
  expectMentions(r,
                 {"compute0 pc 9 (loop): count = 193273528321",
                  "each iteration issues at least 5 scalar instructions (5 cycles)",
                  "so the loop takes at least 9.664e+11 cycles, past --max-cycles 100000000000"});
  // Under a tighter bound a smaller count fails the same way; within it, the run is the
  // matmul's as before.
  r = sh(tool("spyre-sim") + " run " + plan + kMatmulScalars + " --max-cycles 1000000");
  expectMentions(r, {"count = 193273528321", "past --max-cycles 1000000"});
  plan = assemble(matmulWith("    loop r7\n      min  r5", "    loop 100000\n      min  r5"));
  r = sh(tool("spyre-sim") + " run " + plan + kMatmulScalars + " --max-cycles 400000");
  expectMentions(r, {"count = 100000", "at least 5e+05 cycles, past --max-cycles 400000"});
}

TEST_F(BoundedRun, ALoopThatMayBeLeftEarlyIsNotRefused) {
  // 10^12 iterations, but a branch out of the body ends it in the first: it runs.
  std::string plan = assemble(".kernel leave\n.program dma_in cores=0\n"
                              "    loop 1000000000000\n      beq r0, 0, out\n      nop\n"
                              "    endloop\nout:\n    nop\n.end\n");
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + " --timing-only");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(BoundedRun, AnAbsurdTpuLoopCountIsAnErrorWhenTheLoopStarts) {
  writeFileAtomically((dir / "t.s").string(), ".kernel many\n.program cores=0\n"
                                              "    loop 1000000000000\n    nop\n    nop\n"
                                              "    endloop\n.end\n");
  ShellResult a =
      sh(tool("tpu-as") + " " + (dir / "t.s").string() + " -o " + (dir / "tp").string());
  ASSERT_EQ(a.status, 0) << a.output;
  ShellResult r = sh(tool("tpu-sim") + " run " + (dir / "tp" / "job.plan").string());
  expectMentions(r, {"chip 0 core 0 scalar pc 0 (loop): count = 1000000000000",
                     "each iteration issues at least 3 bundles (3 cycles)",
                     "past --max-cycles 100000000000"});
}

TEST_F(BoundedRun, ALoopThatNeverEndsStopsAtMaxCycles) {
  std::string plan = assemble(".kernel spin\n.program dma_in cores=0\ntop: nop\n  jmp top\n.end\n"
                              ".program dma_out cores=3\n  nop 10\n.end\n");
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + " --max-cycles 100000");
  expectMentions(r, {"the run passed --max-cycles 100000 without finishing",
                     "core 0 dma_in pc 1 reached cycle 100001",
                     "engines still running:", "core 0 dma_in pc"});
  // Every engine that has not finished is in the report, where it is (a thread that only
  // computes runs ahead of the others, which may not have started).
  EXPECT_NE(r.output.find("core 3 dma_out pc 0: at cycle"), std::string::npos) << r.output;
}

TEST_F(BoundedRun, ALoopThatNeverEndsStopsAtTheTimeout) {
  std::string plan = assemble(".kernel spin\n.program dma_in cores=0\ntop: nop\n  jmp top\n.end\n");
  ShellResult r = sh(tool("spyre-sim") + " run " + plan + " --max-cycles 0 --timeout 0.5");
  expectMentions(r, {"the run passed --timeout 0.5 s of host time", "core 0 dma_in pc"});
}

TEST_F(BoundedRun, ATpuLoopThatNeverEndsStopsAtMaxCycles) {
  writeFileAtomically((dir / "t.s").string(),
                      ".kernel spin\n.program cores=0\ntop:\n    nop\n    jmp top\n.end\n");
  ShellResult a =
      sh(tool("tpu-as") + " " + (dir / "t.s").string() + " -o " + (dir / "tp").string());
  ASSERT_EQ(a.status, 0) << a.output;
  ShellResult r =
      sh(tool("tpu-sim") + " run " + (dir / "tp" / "job.plan").string() + " --max-cycles 5000");
  expectMentions(r, {"the run passed --max-cycles 5000 without finishing",
                     "chip 0 core 0 pc 0 reached cycle 5001", "engines still running:"});
}

TEST_F(BoundedRun, ATpuTransferOfAbsurdRowsIsAnErrorAtOnceOrStopsAtTheTimeout) {
  auto program = [&](const char* rows) {
    writeFileAtomically((dir / "d.s").string(),
                        std::string(".kernel big\n.input A f32 [8, 128]\n.program cores=0\n"
                                    "    dma.in dst=0, src=@A, bytes=512, rows=") +
                            rows + ", src_stride=0, dst_stride=0, sem=0\n    sem.wait 0\n.end\n");
    ShellResult a =
        sh(tool("tpu-as") + " " + (dir / "d.s").string() + " -o " + (dir / "dp").string());
    EXPECT_EQ(a.status, 0) << a.output;
    return tool("tpu-sim") + " run " + (dir / "dp" / "job.plan").string() + " --timing-only";
  };
  expectMentions(sh(program("1000000000000")),
                 {"core 0 dma pc 0 (dma.in): rows = 1000000000000", "past --max-cycles"});
  // Under the cycle bound but hours of host time: the timeout reaches into the transfer.
  expectMentions(sh(program("90000000000") + " --timeout 0.5"),
                 {"the run passed --timeout 0.5 s of host time", "chip 0 core 0 pc 0"});
}

} // namespace
} // namespace chipless::test

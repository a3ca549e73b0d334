/// Engine behaviour through small assembled programs on a two-core chip: the scalar ALU,
/// loops and branches; every fault class (each message names the engine, its core, the
/// program counter and the address or operand at fault); deadlock detection; and the
/// device staying usable after a failed launch.
#include "tests/unit/util/runtime_test_util.h"

#include <sstream>

namespace chipless::runtime {
namespace {

using namespace test;

/// A program whose dma_out engine computes scalar values and reports each through the
/// data: A (i32, 64 rows of one stick) holds row number v in every element of row v and
/// is loaded into the scratchpad, so storing the stick at v * 128 to row k of C reports
/// the value v (0..63).
class ScalarProgram {
public:
  /// Appends assembly lines to the dma_out program.
  ScalarProgram& code(const std::string& lines) {
    body_ << lines << "\n";
    return *this;
  }
  /// Reports register `reg` (0 <= value < 64) as output row `row`.
  ScalarProgram& report(const std::string& reg, int row) {
    body_ << "    mul r15, " << reg << ", 128\n"
          << "    dma.store sp=r15, mem=@C+" << row * 128 << ", bytes=128\n";
    rows_ = std::max(rows_, row + 1);
    return *this;
  }
  std::string text() const {
    std::ostringstream s;
    s << ".kernel scalar\n"
      << ".input  A i32 [64, 32]\n"
      << ".output C i32 [" << std::max(rows_, 1) << ", 32]\n"
      << ".program dma_in cores=0\n"
      << "    dma.load sp=0, mem=@A, bytes=8192, done=0\n"
      << ".end\n"
      << ".program dma_out cores=0\n"
      << "    twait 0\n"
      << body_.str() << ".end\n";
    return s.str();
  }
  /// Runs the program and returns the reported values.
  std::vector<int> run(SpyreDevice& device) const {
    NpyArray a = hostArray(DType::I32, {64, 32}, [](size_t i) { return i / 32; });
    LaunchReport out = runText(device, text(), {{{"A", a}}, {}, nullptr});
    const NpyArray& c = out.outputs.at("C");
    std::vector<int> values;
    for (int r = 0; r < rows_; ++r) {
      int v = static_cast<int>(at(c, static_cast<size_t>(r) * 32));
      for (int k = 1; k < 32; ++k) EXPECT_EQ(at(c, static_cast<size_t>(r) * 32 + k), v);
      values.push_back(v);
    }
    return values;
  }

private:
  std::ostringstream body_;
  int rows_ = 0;
};

class EngineTest : public ::testing::Test {
protected:
  void SetUp() override { device_ = openDevice(smallArch()); }

  /// Runs `text` (no tensor arguments) and returns the launch error.
  std::string launchError(const std::string& text, LaunchArgs args = {}) {
    return errorOf([&] { runText(*device_, text, args); });
  }

  /// A correct launch after a failed one gives correct results.
  void expectDeviceUsable() {
    ScalarProgram p;
    p.code("    li r1, 42").report("r1", 0);
    EXPECT_EQ(p.run(*device_), std::vector<int>{42});
  }

  std::unique_ptr<SpyreDevice> device_;
};

TEST_F(EngineTest, ScalarAlu) {
  ScalarProgram p;
  p.code("    li r1, 5").report("r1", 0);
  p.code("    add r2, r1, 12").report("r2", 1);                        // 17
  p.code("    sub r3, r2, 4").report("r3", 2);                         // 13
  p.code("    mul r4, r1, 8").report("r4", 3);                         // 40
  p.code("    div r5, -15, 4\n    add r5, r5, 10").report("r5", 4);    // truncates: -3 + 10
  p.code("    rem r6, -15, 4\n    add r6, r6, 10").report("r6", 5);    // sign of a: -3 + 10
  p.code("    shl r7, 3, 4").report("r7", 6);                          // 48
  p.code("    shr r8, -64, 2\n    add r8, r8, 20").report("r8", 7);    // arithmetic: -16 + 20
  p.code("    and r9, 0x3C, 0x0F").report("r9", 8);                    // 12
  p.code("    or  r10, 0x30, 0x05").report("r10", 9);                  // 53
  p.code("    xor r11, 0x3F, 0x15").report("r11", 10);                 // 42
  p.code("    min r12, 9, -2\n    add r12, r12, 5").report("r12", 11); // 3
  p.code("    max r13, 9, -2").report("r13", 12);                      // 9
  p.code("    add r14, ncores, 0").report("r14", 13);                  // 2
  p.code("    add r14, core, 30").report("r14", 14);                   // 30
  p.code("    add r14, corelet, 31").report("r14", 15);                // per-core engine: 0
  p.code("    li r1, 7\n    add r1, r1+3, 2").report("r1", 16);        // register + constant: 12
  p.code("    li r2, 1\n    shl r2, r2, 62\n    shr r2, r2, 58").report("r2", 17); // 64-bit: 16
  p.code("    div r3, 7, -2\n    add r3, r3, 20").report("r3", 18);                // -3 + 20
  EXPECT_EQ(p.run(*device_), (std::vector<int>{5, 17, 13, 40, 7, 7, 48, 4, 12, 53, 42, 3, 9, 2, 30,
                                               31, 12, 16, 17}));
}

TEST_F(EngineTest, LoopsAndBranches) {
  ScalarProgram p;
  // Nested counted loops.
  p.code(R"(
    li r1, 0
    loop 3
      loop 4
        add r1, r1, 1
      endloop
      add r1, r1, 2
    endloop)")
      .report("r1", 0); // 3 * (4 + 2)
  // A count <= 0 skips the body; a register count.
  p.code(R"(
    li r2, 5
    loop 0
      add r2, r2, 100
    endloop
    li r3, -4
    loop r3
      add r2, r2, 100
    endloop
    li r3, 6
    loop r3
      add r2, r2, 2
    endloop)")
      .report("r2", 1); // 5 + 12
  // A backward branch as a loop.
  p.code(R"(
    li r4, 0
    li r5, 0
again:
    add r4, r4, 1
    add r5, r5, 3
    blt r4, 5, again)")
      .report("r5", 2); // 15
  // Forward branches: taken and not taken.
  p.code(R"(
    li r6, 1
    beq r6, 1, yes
    li r6, 50
yes:
    bne r6, 1, bad
    bge r6, 2, bad
    bge r6, 1, good
bad:
    li r6, 60
    jmp done
good:
    add r6, r6, 10
done:)")
      .report("r6", 3); // 11
  // A loop whose body branches out of the loop count early is still counted.
  p.code(R"(
    li r7, 0
    li r8, 0
    loop 10
      add r8, r8, 1
      blt r8, 4, skip
      add r7, r7, 1
skip:
    endloop)")
      .report("r7", 4); // iterations 4..10
  EXPECT_EQ(p.run(*device_), (std::vector<int>{18, 17, 15, 11, 7}));
}

TEST_F(EngineTest, LoopDurationCountsInstructions) {
  // nop N advances time by N cycles; each scalar instruction costs one cycle.
  auto cycles = [&](const std::string& body) {
    std::string text = ".kernel t\n.program ring cores=0\n" + body + "\n.end\n";
    return runText(*device_, text).cycles;
  };
  double base = cycles("    nop 0");
  EXPECT_DOUBLE_EQ(cycles("    nop 1000") - base, 1000);
  EXPECT_DOUBLE_EQ(cycles("    li r1, 1000\n    nop r1") - base, 1000 + 1);
  // loop, then 10 x (nop 5: 5 + 1 cycles; endloop: 1 cycle), less the base's nop 0.
  EXPECT_DOUBLE_EQ(cycles("    loop 10\n    nop 5\n    endloop") - base, 1 + 10 * (6 + 1) - 1);
}

TEST_F(EngineTest, ScalarSymbolsAreBoundAtEachLaunch) {
  // One prepared job, launched with different values of a scalar that only the program
  // reads: nop @K spends K cycles.
  SpyreJob job(*device_,
               assembleText(".kernel k\n.scalar K\n.program ring cores=1\n"
                            "    nop @K\n    nop @K+10\n.end\n"),
               "k.s");
  double c100 = job.launch({{}, {{"K", 100}}, nullptr}).cycles;
  double c1000 = job.launch({{}, {{"K", 1000}}, nullptr}).cycles;
  double again = job.launch({{}, {{"K", 100}}, nullptr}).cycles;
  EXPECT_DOUBLE_EQ(c1000 - c100, 2 * 900);
  EXPECT_DOUBLE_EQ(again, c100);
  EXPECT_DOUBLE_EQ(c100, 2 * 100 + 10 + 2); // two nops of one cycle each
}

TEST(Tokens, RemoteTokensCrossTheRing) {
  // On the 32-core chip core 1 is one hop from core 0 and core 16 twenty (stop 20 of 40,
  // either way); each hop costs ring.hop_latency_cycles = 2.
  auto device = openDevice(archWith());
  auto cycles = [&](int to) {
    std::string k = std::to_string(to);
    return runText(*device, ".kernel t\n.program ring cores=0\n    tsend 7, core=" + k +
                                "\n.end\n.program dma_in cores=" + k + "\n    twait 7\n.end\n")
        .cycles;
  };
  double near = cycles(1), far = cycles(16);
  EXPECT_DOUBLE_EQ(far - near, (20 - 1) * 2);
  // tsend issues at 0 and takes a cycle; the token arrives token_latency (1) + 2 cycles
  // later; twait takes its cycle after that.
  EXPECT_DOUBLE_EQ(near, 0 + 1 + 2 + 1);
}

// ---- faults ------------------------------------------------------------------------------

TEST_F(EngineTest, DivisionByZero) {
  std::string e = launchError(R"(
.kernel t
.program dma_out cores=1
    li  r1, 0
    li  r2, 9
    div r3, r2, r1
.end
)");
  EXPECT_CONTAINS(e, "core 1 dma_out pc 2 (div): division by zero");
  e = launchError(".kernel t\n.program ring cores=0\n    rem r1, 4, 0\n.end\n");
  EXPECT_CONTAINS(e, "core 0 ring pc 0 (rem): division by zero");
  expectDeviceUsable();
}

TEST_F(EngineTest, NegativeNopAndDeepLoops) {
  std::string e = launchError(".kernel t\n.program ring cores=0\n    nop -3\n.end\n");
  EXPECT_CONTAINS(e, "core 0 ring pc 0 (nop): nop with negative cycles -3");
  std::string deep = ".kernel t\n.program ring cores=0\n";
  for (int i = 0; i < 17; ++i) deep += "    loop 2\n";
  for (int i = 0; i < 17; ++i) deep += "    endloop\n";
  deep += ".end\n";
  e = launchError(deep);
  EXPECT_CONTAINS(e, "core 0 ring pc 16 (loop): loops nested deeper than 16");
}

const char* kDmaArgs = ".kernel t\n.input A f16 [4, 64]\n";

LaunchArgs dmaInput() {
  return {{{"A", hostArray(DType::F16, {4, 64}, [](size_t i) { return i % 10; })}}, {}, nullptr};
}

TEST_F(EngineTest, DmaOutsideEveryAllocation) {
  std::string e = launchError(std::string(kDmaArgs) + R"(
.program dma_in cores=1
    li r1, 0
    dma.load sp=0, mem=@A+0x40000000, bytes=128
.end
)",
                              dmaInput());
  EXPECT_CONTAINS(e, "core 1 dma_in pc 1 (dma.load)");
  EXPECT_CONTAINS(e, "device address 0x40000000");
  EXPECT_CONTAINS(e, "outside every allocation");
  EXPECT_CONTAINS(e, "'A'"); // the nearest allocation
  // A run that starts inside A and runs past its end.
  e = launchError(std::string(kDmaArgs) + R"(
.program dma_out cores=0
    dma.store sp=0, mem=@A, bytes=128, n1=5, ms1=128, ss1=128
.end
)",
                  dmaInput());
  EXPECT_CONTAINS(e, "core 0 dma_out pc 0 (dma.store)");
  EXPECT_CONTAINS(e, "device address 0x200 (128 bytes, run 4,0,0) is outside every allocation");
  expectDeviceUsable();
}

TEST_F(EngineTest, MisalignedDma) {
  std::string e =
      launchError(std::string(kDmaArgs) + ".program dma_in cores=0\n    dma.load sp=64, mem=@A, "
                                          "bytes=128\n.end\n",
                  dmaInput());
  EXPECT_CONTAINS(e, "core 0 dma_in pc 0 (dma.load)");
  EXPECT_CONTAINS(e, "misaligned transfer: scratchpad address 64");
  e = launchError(std::string(kDmaArgs) +
                      ".program dma_in cores=0\n    dma.load sp=0, mem=@A+8, bytes=128\n.end\n",
                  dmaInput());
  EXPECT_CONTAINS(e, "misaligned transfer");
  EXPECT_CONTAINS(e, "device address 0x8");
  e = launchError(std::string(kDmaArgs) +
                      ".program dma_in cores=0\n    dma.load sp=0, mem=@A, bytes=100\n.end\n",
                  dmaInput());
  EXPECT_CONTAINS(e, "bytes = 100 is not a positive whole number of sticks (128 bytes)");
  e = launchError(std::string(kDmaArgs) +
                      ".program dma_in cores=0\n    dma.load sp=0, mem=@A, bytes=128, n1=2, "
                      "ms1=64, ss1=128\n.end\n",
                  dmaInput());
  EXPECT_CONTAINS(e, "stride of dimension 1 is not a multiple of the stick");
  expectDeviceUsable();
}

TEST_F(EngineTest, DmaScratchpadOutOfRange) {
  std::string e = launchError(std::string(kDmaArgs) +
                                  ".program dma_in cores=0\n    dma.load sp=2096896, mem=@A, "
                                  "bytes=512\n.end\n",
                              dmaInput());
  EXPECT_CONTAINS(e, "core 0 dma_in pc 0 (dma.load)");
  EXPECT_CONTAINS(e, "scratchpad range 2096896..2097408 outside the scratchpad (0..2097152)");
  // Through a negative stride.
  e = launchError(std::string(kDmaArgs) +
                      ".program dma_out cores=0\n    dma.store sp=0, mem=@A, bytes=128, n1=2, "
                      "ms1=128, ss1=-128\n.end\n",
                  dmaInput());
  EXPECT_CONTAINS(e, "scratchpad range -128..128 outside the scratchpad");
}

TEST_F(EngineTest, StreamsOutsideTheScratchpad) {
  std::string e = launchError(R"(
.kernel t
.program load cores=1 corelet=1
    ld.stream n0=4, fifo=in0, addr=2096896
.end
)");
  EXPECT_CONTAINS(e, "core 1 load1 pc 0 (ld.stream)");
  EXPECT_CONTAINS(e, "lane a: scratchpad addresses 2096896..2097408 outside the scratchpad");
  e = launchError(R"(
.kernel t
.program load cores=0 corelet=0
    ld.stream n0=2, fifo=in0, addr=0, fifo_b=in1, addr_b=-256
.end
)");
  EXPECT_CONTAINS(e, "core 0 load0 pc 0 (ld.stream)");
  EXPECT_CONTAINS(e, "lane b: scratchpad addresses -256..0");
  e = launchError(R"(
.kernel t
.program load cores=0 corelet=0
    ld.stream n0=2, fifo=in0, addr=64
.end
)");
  EXPECT_CONTAINS(e, "lane a: scratchpad address 64 is not stick-aligned");
  e = launchError(R"(
.kernel t
.program store cores=0 corelet=1
    li r3, 1
    st.stream n0=3, fifo=out1, addr=0, s0=128, n1=2, s1=2097152
.end
)");
  EXPECT_CONTAINS(e, "core 0 store1 pc 1 (st.stream)");
  EXPECT_CONTAINS(e, "st.stream: scratchpad addresses 0..2097536 outside the scratchpad");
  expectDeviceUsable();
}

TEST_F(EngineTest, RingSendOutsideTheScratchpad) {
  std::string e = launchError(R"(
.kernel t
.program ring cores=0
    ring.send core=1, src=2097152, dst=0, bytes=128
.end
)");
  EXPECT_CONTAINS(e, "core 0 ring pc 0 (ring.send)");
  EXPECT_CONTAINS(e, "src range 2097152..2097280 outside the scratchpad (0..2097152)");
  e = launchError(R"(
.kernel t
.program ring cores=1
    ring.send core=0, src=0, dst=2097024, bytes=256
.end
)");
  EXPECT_CONTAINS(e, "core 1 ring pc 0 (ring.send)");
  EXPECT_CONTAINS(e, "dst range 2097024..2097280");
  e = launchError(".kernel t\n.program ring cores=0\n    ring.send core=2, src=0, dst=0, "
                  "bytes=128\n.end\n");
  EXPECT_CONTAINS(e, "destination core 2 does not exist (0..1)");
  e = launchError(".kernel t\n.program ring cores=0\n    ring.send core=1, src=0, dst=64, "
                  "bytes=128\n.end\n");
  EXPECT_CONTAINS(e, "misaligned scratchpad address (src 0, dst 64");
  expectDeviceUsable();
}

TEST_F(EngineTest, BadFifoPort) {
  std::string e = launchError(R"(
.kernel t
.program load cores=0 corelet=0
    ld.stream n0=1, fifo=in4, addr=0
.end
)");
  EXPECT_CONTAINS(e, "core 0 load0 pc 0 (ld.stream)");
  EXPECT_CONTAINS(e, "'in4' is not an input FIFO (this corelet has in0..in3)");
  e = launchError(R"(
.kernel t
.program store cores=1 corelet=0
    st.stream n0=1, fifo=out2, addr=0
.end
)");
  EXPECT_CONTAINS(e, "core 1 store0 pc 0 (st.stream)");
  EXPECT_CONTAINS(e, "'out2' is not an output FIFO (this corelet has out0..out1)");
  e = launchError(R"(
.kernel t
.program compute cores=0 corelet=1
    sfu.add.f16 1, out0, in0, in0
.end
)");
  EXPECT_CONTAINS(e, "core 0 compute1 pc 0 (sfu.add)");
  EXPECT_CONTAINS(e, "reads core 0 corelet 1 in0 twice in one instruction");
  e = launchError(R"(
.kernel t
.program compute cores=0 corelet=0
    sfu.add.f16 1, in1, in0, v0
.end
)");
  EXPECT_CONTAINS(e, "'in1' is not an output FIFO");
  e = launchError(R"(
.kernel t
.program load cores=0 corelet=0
    ld.stream n0=1, fifo=in2, addr=0, fifo_b=in2, addr_b=0
.end
)");
  EXPECT_CONTAINS(e, "both lanes push into core 0 corelet 0 in2");
  expectDeviceUsable();
}

TEST_F(EngineTest, BadSfuRegister) {
  std::string e = launchError(R"(
.kernel t
.program compute cores=1 corelet=1
    sfu.splat.f32 v3, 1.5
    sfu.add.f32 1, v16, v3, v3
.end
)");
  EXPECT_CONTAINS(e, "core 1 compute1 pc 1 (sfu.add)");
  EXPECT_CONTAINS(e, "'v16' is not an SFU register (v0..v15)");
  e = launchError(
      ".kernel t\n.program compute cores=0 corelet=0\n    sfu.splat.f16 v40, 0\n.end\n");
  EXPECT_CONTAINS(e, "core 0 compute0 pc 0 (sfu.splat)");
  EXPECT_CONTAINS(e, "'v40' is not an SFU register");
  e = launchError(
      ".kernel t\n.program compute cores=0 corelet=0\n    sfu.acc.add.f16 1, out0, v1\n.end\n");
  EXPECT_CONTAINS(e, "accumulates into a register (v0..), not 'out0'");
}

TEST_F(EngineTest, TokenOutOfRange) {
  std::string e = launchError(".kernel t\n.program ring cores=1\n    tsend 64\n.end\n");
  EXPECT_CONTAINS(e, "core 1 ring pc 0 (tsend): token 64 out of range (0..63)");
  e = launchError(
      ".kernel t\n.program load cores=0 corelet=1\n    li r1, -1\n    twait r1\n.end\n");
  EXPECT_CONTAINS(e, "core 0 load1 pc 1 (twait): token -1 out of range (0..63)");
  e = launchError(".kernel t\n.program ring cores=0\n    tsend 0, core=2\n.end\n");
  EXPECT_CONTAINS(e, "core 0 ring pc 0 (tsend): tsend to core 2 of 2");
  e = launchError(".kernel t\n.program ring cores=0\n    tsend 70, core=1\n.end\n");
  EXPECT_CONTAINS(e, "token 70 out of range");
  e = launchError(std::string(kDmaArgs) +
                      ".program dma_in cores=0\n    dma.load sp=0, mem=@A, bytes=128, "
                      "done=64\n.end\n",
                  dmaInput());
  EXPECT_CONTAINS(e, "core 0 dma_in pc 0 (dma.load): token 64 out of range");
  e = launchError(".kernel t\n.program ring cores=0\n    ring.send core=1, src=0, dst=0, "
                  "bytes=128, token=99\n.end\n");
  EXPECT_CONTAINS(e, "core 0 ring pc 0 (ring.send): token 99 out of range");
  expectDeviceUsable();
}

TEST_F(EngineTest, MatmulAccumulatorOverflow) {
  std::string e = launchError(R"(
.kernel t
.program compute cores=0 corelet=0
    pt.mm.f16 m=128, k=64, n=256, a=in0, b=in1, dst=out0
.end
)");
  EXPECT_CONTAINS(e, "core 0 compute0 pc 0 (pt.mm)");
  EXPECT_CONTAINS(e, "an 128x256 fp32 tile needs 131072 bytes of accumulators; the PT array "
                     "has 65536 (pt.accumulator_bytes)");
  // k and n need not be whole sticks, but the accumulators hold whole sticks of n.
  e = launchError(".kernel t\n.program compute cores=0 corelet=0\n    pt.mm.f16 m=257, k=32, "
                  "n=48, a=in0, b=in1, dst=out0\n.end\n");
  EXPECT_CONTAINS(e, "an 257x48 fp32 tile needs 65792 bytes of accumulators");
  e = launchError(".kernel t\n.program compute cores=0 corelet=0\n    pt.mm.f16 m=8, k=64, "
                  "n=64, a=in0, b=in0, dst=out0\n.end\n");
  EXPECT_CONTAINS(e, "a and b must be different FIFOs");
  e = launchError(".kernel t\n.program compute cores=0 corelet=0\n    pt.mm.f16 m=8, k=64, "
                  "n=64, a=in0, b=in1\n.end\n");
  EXPECT_CONTAINS(e, "emit=1 needs dst=out<N>");
  e = launchError(".kernel t\n.program compute cores=0 corelet=0\n    pt.mm.f16 m=0, k=64, "
                  "n=64, a=in0, b=in1, dst=out0\n.end\n");
  EXPECT_CONTAINS(e, "tile 0x64x64 must have positive sizes");
}

TEST_F(EngineTest, MatmulAccumulatorShapeMismatch) {
  // acc=1 on a fresh compute unit: nothing was accumulated.
  std::string e = launchError(R"(
.kernel t
.program compute cores=1 corelet=0
    pt.mm.f16 m=16, k=64, n=64, a=in0, b=in1, dst=out0, acc=1
.end
)");
  EXPECT_CONTAINS(e, "core 1 compute0 pc 0 (pt.mm)");
  EXPECT_CONTAINS(e, "acc=1 but the accumulators hold a 0x0 tile, not 16x64");
  // acc=1 after a 16x64 tile with an 8x64 one.
  e = launchError(R"(
.kernel t
.program load cores=0 corelet=0
    ld.stream n0=16, fifo=in0, addr=0
    ld.stream n0=64, fifo=in1, addr=0
.end
.program compute cores=0 corelet=0
    pt.mm.f16 m=16, k=64, n=64, a=in0, b=in1, emit=0
    pt.mm.f16 m=8, k=64, n=64, a=in0, b=in1, dst=out0, acc=1
.end
)");
  EXPECT_CONTAINS(e, "core 0 compute0 pc 1 (pt.mm)");
  EXPECT_CONTAINS(e, "acc=1 but the accumulators hold a 16x64 tile, not 8x64");
  expectDeviceUsable();
}

TEST_F(EngineTest, ProgramThatDoesNotFitTheChip) {
  std::string e = launchError(".kernel t\n.program ring cores=0-3\n    nop\n.end\n");
  EXPECT_CONTAINS(e, "is for cores 0-3 but the chip has 2 cores (chip.cores)");
  e = launchError(".kernel t\n.program load cores=0 corelet=2\n    nop\n.end\n");
  EXPECT_CONTAINS(e, "is for corelet 2 but a core has 2");
  e = launchError(".kernel t\n.program ring cores=0-1\n    nop\n.end\n.program ring cores=1\n"
                  "    nop\n.end\n");
  EXPECT_CONTAINS(e, "both target core 1 ring");
  expectDeviceUsable();
}

TEST_F(EngineTest, EmptyTransfersStillSignalDone) {
  // A DMA with a zero count moves nothing but has still "landed": its done token fires,
  // so a consumer waiting for it is not deadlocked (a loop's tail may well be empty).
  LaunchReport out = runText(*device_, std::string(kDmaArgs) + R"(
.program dma_in cores=0
    li r1, 0
    dma.load sp=0, mem=@A, bytes=128, n1=r1, done=3
.end
.program dma_out cores=0
    twait 3
    dma.store sp=0, mem=@A, bytes=128, n2=0, done=4
    twait 4
.end
.program load cores=0 corelet=0
    ld.stream n0=0, fifo=in0, addr=0
.end
)",
                             dmaInput());
  EXPECT_GT(out.issued, 0u);
}

TEST_F(EngineTest, NegativeTokenOperandsAreFaults) {
  // -1 means "no token"; other negative values are program errors, as for tsend/twait.
  std::string e = launchError(std::string(kDmaArgs) + R"(
.program dma_in cores=0
    dma.load sp=0, mem=@A, bytes=128, done=-2
.end
)",
                              dmaInput());
  EXPECT_CONTAINS(e, "core 0 dma_in pc 0 (dma.load): token -2 out of range");
  e = launchError(R"(
.kernel t
.program ring cores=0
    ring.send core=1, src=0, dst=0, bytes=128, token=-3
.end
)");
  EXPECT_CONTAINS(e, "core 0 ring pc 0 (ring.send): token -3 out of range");
  e = launchError(R"(
.kernel t
.program ring cores=1
    ring.send core=0, src=0, dst=0, bytes=128, done=-7
.end
)");
  EXPECT_CONTAINS(e, "core 1 ring pc 0 (ring.send): token -7 out of range");
}

// ---- deadlocks ---------------------------------------------------------------------------

TEST_F(EngineTest, DeadlockOnATokenNeverSent) {
  std::string e = launchError(R"(
.kernel t
.program dma_out cores=0
    li r1, 3
    twait r1
.end
.program ring cores=1
    nop 10
.end
)");
  EXPECT_CONTAINS(e, "deadlock: the program can never finish; 1 engine(s) are blocked:");
  EXPECT_CONTAINS(e, "core 0 dma_out pc 1: waiting for token 3 (none sent)");
  expectDeviceUsable();
}

TEST_F(EngineTest, DeadlockOnAnEmptyFifo) {
  std::string e = launchError(R"(
.kernel t
.program compute cores=1 corelet=0
    sfu.mov.f16 4, out0, in0
.end
.program store cores=1 corelet=0
    st.stream n0=4, fifo=out0, addr=0
.end
)");
  EXPECT_CONTAINS(e, "2 engine(s) are blocked");
  EXPECT_CONTAINS(e, "core 1 compute0 pc 0: waiting for data in core 1 corelet 0 in0 (needs 1 "
                     "stick(s), has 0)");
  EXPECT_CONTAINS(e, "core 1 store0 pc 0: waiting for data in core 1 corelet 0 out0");
  expectDeviceUsable();
}

TEST_F(EngineTest, DeadlockOnAFullFifo) {
  // 20 sticks into a FIFO of depth 16 that nobody pops.
  std::string e = launchError(R"(
.kernel t
.program load cores=0 corelet=1
    ld.stream n0=20, fifo=in3, addr=0
.end
)");
  EXPECT_CONTAINS(e, "1 engine(s) are blocked");
  EXPECT_CONTAINS(e, "core 0 load1 pc 0: waiting for space in core 0 corelet 1 in3 (consumer has "
                     "popped 0 of 20 sticks)");
  // Exactly the depth fits without a consumer.
  EXPECT_NO_THROW(runText(*device_, ".kernel t\n.program load cores=0 corelet=1\n    ld.stream "
                                    "n0=16, fifo=in3, addr=0\n.end\n"));
  expectDeviceUsable();
}

TEST_F(EngineTest, DeadlockListsEveryBlockedEngine) {
  // Core 0 waits for core 1, core 1 waits for core 0.
  std::string e = launchError(R"(
.kernel t
.program ring cores=0-1
    twait 5
    tsend 5, core=1
.end
.program dma_in cores=0-1
    twait 6
.end
)");
  EXPECT_CONTAINS(e, "4 engine(s) are blocked");
  EXPECT_CONTAINS(e, "core 0 ring pc 0: waiting for token 5");
  EXPECT_CONTAINS(e, "core 1 ring pc 0: waiting for token 5");
  EXPECT_CONTAINS(e, "core 0 dma_in pc 0: waiting for token 6");
  EXPECT_CONTAINS(e, "core 1 dma_in pc 0: waiting for token 6");
  expectDeviceUsable();
}

} // namespace
} // namespace chipless::runtime

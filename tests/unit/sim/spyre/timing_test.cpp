/// Timing behaviour seen through whole launches: engines overlap through their FIFOs, a
/// slow consumer holds its producer back (back-pressure), corelets work in parallel, and
/// a launch after a failed one takes exactly as long as on a fresh device.
#include "support/atomic_file.h"
#include "support/stats.h"
#include "support/trace.h"
#include "tests/unit/util/runtime_test_util.h"

#include <sstream>

namespace chipless::runtime {
namespace {

using namespace test;

/// load -> compute (sfu.mov) -> store of `sticks` sticks on the given corelets of core 0;
/// the data is already in the scratchpad, so no DMA is involved.
std::string pipeline(int sticks, const std::string& corelets) {
  std::ostringstream s;
  s << ".kernel pipe\n"
    << ".program load cores=0 corelet=" << corelets << "\n"
    << "    ld.stream n0=" << sticks << ", fifo=in0, addr=0\n.end\n"
    << ".program compute cores=0 corelet=" << corelets << "\n"
    << "    sfu.mov.f16 " << sticks << ", out0, in0\n.end\n"
    << ".program store cores=0 corelet=" << corelets << "\n"
    << "    st.stream n0=" << sticks << ", fifo=out0, addr=1048576\n.end\n";
  return s.str();
}

/// Runs `text` and returns its statistics.
Stats runWithStats(SpyreDevice& device, const std::string& text, double* cycles) {
  SpyreJob job(device, assembleText(text), "t.s");
  LaunchReport out = job.launch({});
  *cycles = out.cycles;
  Stats stats = device.stats(out);
  return stats;
}

TEST(Timing, EnginesOverlapThroughFifos) {
  auto device = openDevice(smallArch());
  const int n = 512;
  double cycles = 0;
  Stats s = runWithStats(*device, pipeline(n, "0"), &cycles);
  // One stick per cycle through all three engines at once, plus pipeline latencies; run
  // one after the other they would take three times as long.
  EXPECT_GE(cycles, n);
  EXPECT_LT(cycles, n + 50);
  EXPECT_DOUBLE_EQ(s.get("chip.core[0].load0.busy_cycles"), n);
  EXPECT_DOUBLE_EQ(s.get("chip.core[0].store0.busy_cycles"), n);
  EXPECT_DOUBLE_EQ(s.get("chip.core[0].compute0.sfu_sticks"), n);
  EXPECT_DOUBLE_EQ(s.get("chip.core[0].load0.sticks"), n);
}

TEST(Timing, SlowConsumerHoldsTheProducerBack) {
  // The SFU takes 4 cycles a stick: the whole pipeline runs at its pace and the load unit,
  // at most a FIFO depth (16 sticks) ahead, spends most of its time stalled.
  auto device = openDevice(smallArch({"sfu.sticks_per_cycle=0.25"}));
  const int n = 512;
  double cycles = 0;
  Stats s = runWithStats(*device, pipeline(n, "0"), &cycles);
  EXPECT_GE(cycles, 4.0 * n);
  EXPECT_LT(cycles, 4.0 * n + 50);
  const double loadBusy = s.get("chip.core[0].load0.busy_cycles");
  const double loadStall = s.get("chip.core[0].load0.stall_cycles");
  EXPECT_DOUBLE_EQ(loadBusy, n);
  // The load unit finishes about 16 sticks (64 cycles) before the SFU does.
  EXPECT_GT(loadBusy + loadStall, 4.0 * n - 16 * 4 - 50);
  EXPECT_LT(loadBusy + loadStall, 4.0 * n);
  EXPECT_GT(s.get("chip.core[0].store0.stall_cycles"), 2.0 * n);
}

TEST(Timing, SlowStoreBacksUpTheWholePipeline) {
  // A narrow scratchpad port (32 bytes a cycle: 4 cycles a stick) slows the load and store
  // units; the SFU waits for both.
  auto device = openDevice(smallArch({"scratchpad.port_bytes_per_cycle=32"}));
  const int n = 256;
  double cycles = 0;
  Stats s = runWithStats(*device, pipeline(n, "0"), &cycles);
  EXPECT_GE(cycles, 4.0 * n);
  EXPECT_LT(cycles, 4.0 * n + 60);
  EXPECT_GT(s.get("chip.core[0].compute0.stall_cycles"), 2.0 * n);
}

TEST(Timing, CoreletsWorkInParallel) {
  auto device = openDevice(smallArch());
  const int n = 512;
  double one = 0, both = 0;
  runWithStats(*device, pipeline(n, "0"), &one);
  Stats s = runWithStats(*device, pipeline(n, "all"), &both);
  EXPECT_DOUBLE_EQ(both, one);
  EXPECT_DOUBLE_EQ(s.get("chip.core[0].compute1.sfu_sticks"), n);
}

// ---- DMA ----------------------------------------------------------------------------------

/// Each core of `cores` loads `bytes` from its own part of X (all at the same time).
std::string dmaLoads(const std::string& cores, int64_t bytes) {
  std::ostringstream s;
  s << ".kernel loads\n.input X f16 [" << bytes / 64 << ", 64]\n"
    << ".program dma_in cores=" << cores << "\n"
    << "    mul r1, core, " << bytes / 2 << "\n"
    << "    dma.load sp=0, mem=@X+r1, bytes=" << bytes / 2 << "\n.end\n";
  return s.str();
}

TEST(Timing, DmaCountsBytesPerChannelAndPerHop) {
  // Two cores and eight channels: stops core 0, dram 0-3, core 1, dram 4-7. 64 KB in 4 KB
  // pages spread evenly: 8 KB per channel, travelling 1+2+3+4+4+3+2+1 = 20 hops to core 0.
  auto device = openDevice(smallArch(), true);
  double cycles = 0;
  Stats s = runWithStats(*device, dmaLoads("0", 2 * 65536), &cycles);
  EXPECT_DOUBLE_EQ(s.get("chip.core[0].dma_in.bytes"), 65536);
  EXPECT_DOUBLE_EQ(s.get("chip.dram.bytes"), 65536);
  for (int c = 0; c < 8; ++c)
    EXPECT_DOUBLE_EQ(s.get("chip.dram.channel[" + std::to_string(c) + "].bytes"), 8192) << c;
  EXPECT_DOUBLE_EQ(s.get("chip.ring.bytes"), 20 * 8192);
  // The link into core 0 from each side carries four channels' data.
  EXPECT_DOUBLE_EQ(s.get("chip.ring.link[1].ccw.bytes"), 4 * 8192);
  EXPECT_DOUBLE_EQ(s.get("chip.ring.link[9].cw.bytes"), 4 * 8192);
  // The DMA engine issues 128 bytes a cycle after an 8-cycle setup; DRAM (25.6 bytes a
  // cycle per channel, 100 cycles latency) keeps up.
  EXPECT_GE(cycles, 8 + 65536 / 128);
  EXPECT_LT(cycles, 8 + 65536 / 128 + 150);
}

TEST(Timing, CoresContendForDram) {
  // Both cores load 64 KB at once: 16 KB per channel at 25.6 bytes a cycle is 640 cycles
  // of channel time, more than either DMA engine needs to issue its requests.
  auto device = openDevice(smallArch(), true);
  double one = 0, both = 0;
  runWithStats(*device, dmaLoads("0", 2 * 65536), &one);
  runWithStats(*device, dmaLoads("0-1", 2 * 65536), &both);
  EXPECT_LT(one, 8 + 65536 / 128 + 150);
  EXPECT_GE(both, 8 + 16384 / 25.6 + 100);
  EXPECT_LT(both, 8 + 16384 / 25.6 + 100 + 150);
}

// ---- launches after failures -----------------------------------------------------------

const char* kAfterFailure = R"(
.kernel scale
.input  X f16 [64, 64]
.output Y f16 [64, 64]
.program dma_in cores=0-1
    mul r1, core, 4096
    dma.load sp=0, mem=@X+r1, bytes=4096, done=0
.end
.program load cores=0-1 corelet=0
    twait 0
    ld.stream n0=32, fifo=in0, addr=0
.end
.program compute cores=0-1 corelet=0
    sfu.splat.f16 v1, 3
    sfu.mul.f16 32, out0, in0, v1
.end
.program store cores=0-1 corelet=0
    st.stream n0=32, fifo=out0, addr=65536
    tsend 1
.end
.program dma_out cores=0-1
    twait 1
    mul r1, core, 4096
    dma.store sp=65536, mem=@Y+r1, bytes=4096
    tsend 2, core=0
.end
.program ring cores=0
    twait 2
    twait 2
    ring.send core=1, src=0, dst=8192, bytes=4096
.end
)";

LaunchReport runGood(SpyreDevice& device) {
  NpyArray x = hostArray(DType::F16, {64, 64}, [](size_t i) { return (i % 13) - 6; });
  LaunchReport out = runText(device, kAfterFailure, {{{"X", x}}, {}, nullptr});
  const NpyArray& y = out.outputs.at("Y");
  for (size_t i = 0; i < x.elements(); ++i) EXPECT_EQ(at(y, i), 3 * at(x, i)) << i;
  return out;
}

TEST(Timing, LaunchAfterAFailureTakesAsLongAsOnAFreshDevice) {
  double fresh = 0;
  {
    auto device = openDevice(smallArch());
    fresh = runGood(*device).cycles;
  }
  const std::vector<std::string> failures = {
      // a fault while other engines are busy with shared resources
      ".kernel f\n.input A f16 [64, 64]\n.program dma_in cores=0-1\n    dma.load sp=0, "
      "mem=@A, bytes=8192\n    dma.load sp=0, mem=@A, bytes=8192\n    li r1, 0\n    div r1, "
      "r1, r1\n.end\n.program ring cores=0-1\n    ring.send core=1, src=0, dst=0, "
      "bytes=65536\n    nop 100000\n.end\n",
      // a deadlock with data left in FIFOs and tokens pending
      ".kernel d\n.program load cores=0-1 corelet=0\n    ld.stream n0=40, fifo=in0, "
      "addr=0\n.end\n.program compute cores=0 corelet=0\n    sfu.mov.f16 8, out0, in0\n.end\n"
      ".program ring cores=1\n    tsend 1\n    tsend 2\n    twait 9\n.end\n",
  };
  for (const auto& failure : failures) {
    auto device = openDevice(smallArch());
    LaunchArgs args;
    if (failure.find(".input A") != std::string::npos)
      args.inputs["A"] = hostArray(DType::F16, {64, 64}, [](size_t) { return 1; });
    std::string e = errorOf([&] { runText(*device, failure, args); });
    EXPECT_FALSE(e.empty());
    EXPECT_EQ(runGood(*device).cycles, fresh) << "after: " << e;
    EXPECT_EQ(runGood(*device).cycles, fresh) << "twice after: " << e;
  }
}

TEST(Timing, RepeatedLaunchesTakeTheSameTimeWhateverTheClock) {
  // With a clock and a bandwidth whose cycle times are not exact in binary, times counted
  // from elaboration rounded differently in later launches (the 12th launch of add took
  // 3105.5840000000317 cycles, the first 3105.5839999999994). Every launch starts at 0.
  SpyreArch arch = smallArch({"chip.clock_ghz=1.1", "dram.bandwidth_gb_s=300"});
  auto device = openDevice(arch);
  SpyreJob job(
      *device,
      spyrecode::assemble(readFile(std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels/add.s"),
                          "add.s", spyrecode::AssembleOptions::forArch(arch)),
      "add.s");
  LaunchArgs args;
  args.scalars["N"] = 4096;
  args.inputs["A"] = hostArray(DType::F16, {32, 4096}, [](size_t i) { return i % 7; });
  args.inputs["B"] = hostArray(DType::F16, {32, 4096}, [](size_t i) { return i % 5; });
  std::string firstStats, firstTrace;
  double firstCycles = 0;
  for (int launch = 0; launch < 12; ++launch) {
    TraceWriter trace(1'000'000);
    args.trace = &trace;
    LaunchReport out = job.launch(args);
    const std::string stats = device->stats(out).jsonText(), timeline = trace.toString();
    if (launch == 0) {
      firstCycles = out.cycles;
      firstStats = stats;
      firstTrace = timeline;
      continue;
    }
    EXPECT_EQ(out.cycles, firstCycles) << "launch " << launch + 1;
    EXPECT_EQ(stats, firstStats) << "launch " << launch + 1;
    EXPECT_EQ(timeline, firstTrace) << "launch " << launch + 1;
  }
}

} // namespace
} // namespace chipless::runtime

#include "runtime/remote/ring_collectives.h"

#include "support/error.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"

#include <algorithm>

namespace chipless::runtime::remote {

RingCollectives::RingCollectives(const ArchDescription& arch, int index, std::string workDirectory)
    : CollectiveService(CollectiveNetwork::Ring), arch_(SpyreArch::fromDescription(arch)),
      index_(index), workDirectory_(std::move(workDirectory)) {}

RingCollectives::~RingCollectives() = default;

/// The ring engines combine f16, f32 and i32 as they deliver (bf16 too, but no host array
/// carries it).
bool RingCollectives::sums(DType dtype) const {
  return dtype == DType::F16 || dtype == DType::F32 || dtype == DType::I32;
}

/// A broadcast is a sum of the root's block with the others' zeros, as raw 32-bit integers
/// (exact for every bit pattern) and at an all-reduce's cost, which a ring's pipelined
/// broadcast does not beat by much; a barrier is a sum of one stick.
CollectiveKind RingCollectives::programKind(CollectiveKind kind) const {
  if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Barrier)
    return CollectiveKind::AllReduce;
  return kind;
}

namespace {
/// A block is moved in at least this many rounds where it has enough sticks, so that one
/// round's DMA overlaps another's ring steps (two buffers per core)...
constexpr int64_t kPipelineRounds = 8;
/// ... but no round moves fewer sticks per core than this, where a transfer's fixed costs
/// (descriptor setup, hop latencies, token round trips) would outweigh its bytes.
constexpr int64_t kMinChunkSticks = 16;
} // namespace

RingCollectives::Division RingCollectives::divide(CollectiveKind program, int ranks,
                                                  int64_t sticks) const {
  const int64_t cores = arch_.chip.cores;
  const bool send = program == CollectiveKind::Send;
  const int64_t group = send ? 2 : ranks;
  if (group > cores)
    throw Error(std::string("spyre_dist: a group of ") + std::to_string(ranks) +
                " ranks needs a core for each on the ring, and the card has " +
                std::to_string(cores) + " (chip.cores)");
  // Each core keeps one chunk per rank of every piece (a send: its own chunk), in two
  // buffers (a send: one).
  const int64_t resident = send ? 1 : 2 * ranks;
  const int64_t maxChunk =
      arch_.planningScratchpadBytes() / static_cast<int64_t>(arch_.chip.stick_bytes) / resident;
  if (maxChunk < 1)
    throw Error("spyre_dist: the planning scratchpad cannot hold two sticks for each of " +
                std::to_string(ranks) + " ranks");
  Division d;
  d.cores = std::min(cores / group, std::max<int64_t>(sticks, 1));
  const int64_t perCore = (std::max<int64_t>(sticks, 1) + d.cores - 1) / d.cores;
  d.rounds = (perCore + maxChunk - 1) / maxChunk;
  if (!send)
    d.rounds = std::max(
        d.rounds, std::min(kPipelineRounds, (perCore + kMinChunkSticks - 1) / kMinChunkSticks));
  d.chunk = (perCore + d.rounds - 1) / d.rounds;
  return d;
}

int64_t RingCollectives::blockSticks(CollectiveKind program, int ranks, int64_t elements,
                                     DType wire) const {
  const int64_t stick = arch_.chip.stick_bytes;
  const int64_t sticks = (elements * static_cast<int64_t>(dtypeSize(wire)) + stick - 1) / stick;
  return program == CollectiveKind::AllReduce ? (sticks + ranks - 1) / ranks : sticks;
}

int64_t RingCollectives::paddedPart(CollectiveKind program, DType wire, int ranks,
                                    int64_t elements) const {
  const int64_t perStick = arch_.chip.stick_bytes / static_cast<int64_t>(dtypeSize(wire));
  const int64_t blocks = program == CollectiveKind::AllReduce ? ranks : 1;
  return divide(program, ranks, blockSticks(program, ranks, elements, wire)).sticks() * blocks *
         perStick;
}

int64_t RingCollectives::maxPart(CollectiveKind program, DType wire, int ranks) const {
  // The largest part whose padded row fits (a row holds `ranks` parts for a reduce-scatter's
  // input and an all-gather's output, else one).
  const int64_t rowParts =
      program == CollectiveKind::ReduceScatter || program == CollectiveKind::AllGather ? ranks : 1;
  const int64_t size = static_cast<int64_t>(dtypeSize(wire));
  auto fits = [&](int64_t elements) {
    return paddedPart(program, wire, ranks, elements) * rowParts * size <=
           arch_.dram.core_span_bytes;
  };
  int64_t lo = 0, hi = arch_.dram.core_span_bytes / rowParts / size;
  if (fits(hi)) return hi;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return std::max<int64_t>(lo, 1);
}

namespace {

const char* typeSuffix(DType wire) {
  return wire == DType::F16 ? "f16" : wire == DType::F32 ? "f32" : "i32";
}

/// The all-reduce, reduce-scatter or all-gather over `n` ranks of `g` cores each, in
/// SpyreCode assembly (docs/spyrecode.md). Core c is core j = c % g of rank r = c / g; in
/// each of R rounds it moves piece p = round * g + j of every block: KB bytes per block at
/// byte p * KB of the block (a block is TPB bytes). Its scratchpad has two buffers of n
/// chunks (rounds alternate between them, so that one round's DMA overlaps the next one's
/// ring steps); chunk q (rank q's share of the piece) is at q * KB of its buffer. Cores j of
/// all ranks form ring j: even rings send clockwise to the next rank, odd ones
/// counter-clockwise to the previous one, so each ring's hops cover every link once per step
/// and both directions of every link carry data. Tokens: 0 a piece landed, 1 a chunk arrived
/// from the predecessor, 2 the ring is done with a piece, 3 a buffer may be reloaded, 4 the
/// successor is ready to receive.
std::string groupProgram(CollectiveKind program, DType wire, int n, int64_t g) {
  const bool reduce = program != CollectiveKind::AllGather;
  const bool gather = program != CollectiveKind::ReduceScatter;
  const int in = program == CollectiveKind::AllGather ? 1 : n; // blocks per row of X
  const int out = program == CollectiveKind::ReduceScatter ? 1 : n;
  const std::string N = std::to_string(n), G = std::to_string(g);
  const std::string last = std::to_string(n * g - 1);
  const std::string T = typeSuffix(wire);
  std::string s = std::string(".kernel ring_") + collectiveName(program) + "\n" +
                  ".scalar XW\n.scalar YW\n.scalar KB\n.scalar TPB\n.scalar R\n"
                  ".input  X " +
                  T + " [" + N + ", XW] row_major\n.output Y " + T + " [" + N +
                  ", YW] row_major\n\n";
  // Where this core's pieces lie in a row of `blocks` blocks, into r3; r1 rank, r2 core j,
  // r5 the step from one round's piece to the next, r6 the rank's own chunk, r9 a buffer.
  auto place = [&](int blocks) {
    return "    div  r1, core, " + G + "\n    rem  r2, core, " + G + "\n    mul  r3, r1, @TPB\n" +
           "    mul  r3, r3, " + std::to_string(blocks) + "\n    mul  r4, r2, @KB\n" +
           "    add  r3, r3, r4\n    mul  r5, @KB, " + G + "\n    mul  r6, r1, @KB\n" +
           "    mul  r9, @KB, " + N + "\n    li   r12, 0                 ; this round's buffer\n";
  };
  // dma.load / dma.store of this round's piece, then on to the next piece and buffer.
  auto transfer = [&](const std::string& op, const std::string& tensor, int blocks,
                      const std::string& doneToken) {
    const bool own = blocks == 1; // one block per row: the rank's own chunk of the buffer
    return std::string(own ? "      add  r13, r12, r6\n" : "") + "      " + op +
           " sp=" + (own ? "r13" : "r12") + ", mem=@" + tensor +
           "+r3, bytes=@KB, n1=" + std::to_string(blocks) +
           ", ms1=@TPB, ss1=@KB, done=" + doneToken +
           "\n      add  r3, r3, r5\n      sub  r12, r9, r12\n";
  };
  s += ".program dma_in cores=0-" + last + "\n" + place(in) +
       "    tsend 3\n    tsend 3                        ; both buffers are free\n"
       "    loop @R\n      twait 3\n" +
       transfer("dma.load", "X", in, "0") + "    endloop\n.end\n\n";
  // One direction's rounds: `forward` and `back` are the steps to the successor and the
  // predecessor (mod n). Reduce-scatter step t sends chunk r + back (t+1) and ends holding
  // chunk r complete; all-gather step t sends chunk r + back t.
  auto rounds = [&](int forward, int back, const std::string& dir) {
    auto core = [&](const std::string& reg, int step) {
      return "    add  " + reg + ", r1, " + std::to_string(step) + "\n    rem  " + reg + ", " +
             reg + ", " + N + "\n    mul  " + reg + ", " + reg + ", " + G + "\n    add  " + reg +
             ", " + reg + ", r2\n";
    };
    auto steps = [&](const std::string& op) {
      return "      loop " + std::to_string(n - 1) + "\n        mul  r7, r10, @KB\n" +
             "        add  r7, r7, r12\n        ring.send." + T +
             " core=r3, src=r7, dst=r7, bytes=@KB, dir=" + dir + op + ", token=1\n" +
             "        twait 1\n        add  r10, r10, " + std::to_string(back) +
             "\n        rem  r10, r10, " + N + "\n      endloop\n";
    };
    std::string text = core("r3", forward) + core("r4", back) +
                       "    loop @R\n      twait 0\n      tsend 4, core=r4\n      twait 4\n";
    if (reduce)
      text += "      add  r10, r1, " + std::to_string(back) + "\n      rem  r10, r10, " + N + "\n" +
              steps(", op=add");
    if (gather) text += "      li   r10, r1\n" + steps("");
    return text + "      tsend 2\n      sub  r12, r9, r12\n    endloop\n";
  };
  s += ".program ring cores=0-" + last + "\n    div  r1, core, " + G + "\n    rem  r2, core, " + G +
       "\n    mul  r9, @KB, " + N + "\n    li   r12, 0\n    and  r8, r2, 1\n" +
       "    bne  r8, 0, counter\n" + rounds(1, n - 1, "cw") + "    jmp  finished\ncounter:\n" +
       rounds(n - 1, 1, "ccw") + "finished:\n.end\n\n";
  s += ".program dma_out cores=0-" + last + "\n" + place(out) + "    loop @R\n      twait 2\n" +
       transfer("dma.store", "Y", out, "3") + "    endloop\n.end\n";
  return s;
}

/// A send from rank 0's `g` cores to rank 1's: core j of the sender moves its pieces into
/// core g + j's scratchpad, which stores them into row 1 of Y. Tokens: 0 the piece landed,
/// 1 it arrived, 2 the receiver may store, 3 the receiver's scratchpad is free, 4 the
/// receiver is ready, 5 the sender's scratchpad is free.
std::string sendProgram(int64_t g) {
  const std::string G = std::to_string(g), S = "0-" + std::to_string(g - 1),
                    D = G + "-" + std::to_string(2 * g - 1);
  return ".kernel ring_send\n.scalar XW\n.scalar YW\n.scalar KB\n.scalar TPB\n.scalar R\n"
         ".input  X i32 [2, XW] row_major\n.output Y i32 [2, YW] row_major\n\n"
         ".program dma_in cores=" +
         S + "\n    mul  r3, core, @KB\n    mul  r5, @KB, " + G +
         "\n    tsend 5\n    loop @R\n      twait 5\n"
         "      dma.load sp=0, mem=@X+r3, bytes=@KB, done=0\n      add  r3, r3, r5\n"
         "    endloop\n.end\n\n"
         ".program ring cores=" +
         S + "\n    add  r3, core, " + G +
         "\n    loop @R\n      twait 0\n      twait 4\n"
         "      ring.send.i32 core=r3, src=0, dst=0, bytes=@KB, dir=short, token=1, done=5\n"
         "    endloop\n.end\n\n"
         ".program ring cores=" +
         D + "\n    sub  r4, core, " + G +
         "\n    tsend 3\n    loop @R\n      twait 3\n      tsend 4, core=r4\n"
         "      twait 1\n      tsend 2\n    endloop\n.end\n\n"
         ".program dma_out cores=" +
         D + "\n    sub  r3, core, " + G + "\n    mul  r3, r3, @KB\n    add  r3, r3, @TPB\n" +
         "    mul  r5, @KB, " + G +
         "\n    loop @R\n      twait 2\n"
         "      dma.store sp=0, mem=@Y+r3, bytes=@KB, done=3\n      add  r3, r3, r5\n"
         "    endloop\n.end\n";
}

} // namespace

Program& RingCollectives::prepared(CollectiveKind program, DType wire, int ranks, int64_t cores) {
  auto& p = programs_[{static_cast<int>(program), wire, ranks, cores}];
  if (!p) {
    if (!card_) {
      DeviceOptions o;
      o.index = index_;
      card_ = Device::openLocal(ChipKind::Spyre, arch_.description, o);
    }
    std::string name = std::string(collectiveName(program)) + "-" + typeSuffix(wire) + "-" +
                       std::to_string(ranks) + "x" + std::to_string(cores);
    std::string text = program == CollectiveKind::Send ? sendProgram(cores)
                                                       : groupProgram(program, wire, ranks, cores);
    spyrecode::Job job =
        spyrecode::assemble(text, name + ".s", spyrecode::AssembleOptions::forArch(arch_));
    std::string dir = workDirectory_ + "/" + name;
    spyrecode::writeJob(dir, job);
    p = card_->prepare(dir + "/job.plan");
  }
  return *p;
}

CollectiveService::Ran RingCollectives::launch(CollectiveKind program, DType wire,
                                               const NpyArray& x, int64_t part) {
  const int n = static_cast<int>(x.shape.at(0));
  const int64_t stick = arch_.chip.stick_bytes;
  const int64_t blocks = program == CollectiveKind::AllReduce ? n : 1;
  const int64_t blockBytes = part * static_cast<int64_t>(dtypeSize(wire)) / blocks;
  const Division d = divide(program, n, blockBytes / stick);
  const int64_t outBlocks = program == CollectiveKind::AllGather ? n : 1;
  LaunchArgs args;
  args.inputs = {{"X", x}};
  args.scalars = {
      {"YW", part * outBlocks}, {"KB", d.chunk * stick}, {"TPB", blockBytes}, {"R", d.rounds}};
  args.statistics = false;
  Program& prog = prepared(program, wire, n, d.cores); // opens the card the first time
  LaunchReport report = card_->launch(prog, args);
  Ran ran;
  ran.y = report.outputs.at("Y");
  ran.cycles = report.cycles;
  ran.seconds = report.cycles / (arch_.chip.clock_ghz * 1e9);
  return ran;
}

} // namespace chipless::runtime::remote

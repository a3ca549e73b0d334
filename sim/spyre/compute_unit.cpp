#include "sim/spyre/compute_unit.h"

#include "sim/spyre/chip.h"
#include "sim/spyre/pt_math.h"
#include "sim/spyre/sfu_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace chipless::sim::spyre {

using namespace spyrecode;

ComputeUnit::ComputeUnit(sc_core::sc_module_name name, Chip& chip, Core& core, int corelet)
    : CoreletEngine(name, chip, core, Unit::Compute, corelet),
      lanesMax_(chip.arch().elementsPerStick(static_cast<int>(dtypeSize(DType::F16)))) {
  regs_.assign(static_cast<size_t>(chip.arch().sfu.registers),
               std::vector<uint32_t>(static_cast<size_t>(lanesMax_), 0));
  regResult_.assign(static_cast<size_t>(lanesMax_), 0);
  activation_.assign(static_cast<size_t>(lanesMax_), 0.0f);
}

void ComputeUnit::resetUnit() {
  ptBusy_ = sfuBusy_ = 0;
  macs_ = 0;
  sfuSticks_ = 0;
  accM_ = accN_ = 0;
  weightsPortFree_ = streamEnd_[0] = streamEnd_[1] = lastStreamStart_ = local_;
  tile_ = 0;
}

void ComputeUnit::addUnitStats(Stats& stats, const std::string& prefix) const {
  stats.set(prefix + "pt_busy_cycles", ptBusy_, "cycles", "PT array computing");
  stats.set(prefix + "pt_macs", macs_, "MACs");
  stats.set(prefix + "sfu_busy_cycles", sfuBusy_, "cycles", "SFU computing");
  stats.set(prefix + "sfu_sticks", static_cast<double>(sfuSticks_), "sticks");
}

uint32_t* ComputeUnit::reg(int64_t port) {
  int64_t n = static_cast<int64_t>(regs_.size());
  if (port < kPortReg || port >= kPortReg + n)
    fault("'" + portName(port) + "' is not an SFU register (v0..v" + std::to_string(n - 1) + ")");
  return regs_[static_cast<size_t>(port - kPortReg)].data();
}

void ComputeUnit::executeUnitOp(const Instruction& ins) {
  if (ins.op == Opcode::PtMm) return matmul(ins);
  if (ins.op == Opcode::SfuSplat) return splat(ins);
  if (ins.op == Opcode::SfuLaneMask) return laneMask(ins);
  if (ins.op == Opcode::SfuSplatInt) return splatInt(ins);
  if (ins.op == Opcode::SfuCvt) return convert(ins);
  sfu(ins);
}

namespace {

/// One lane from element type `from` to `to`, as 32-bit lane patterns (fp32 bits or int32):
/// floats stay fp32 (the stick encoding rounds them), an int32 becomes the nearest fp32, a
/// float becomes an int32 truncated toward zero, saturated, 0 for NaN.
uint32_t convertLane(DType from, DType to, uint32_t v) {
  const bool fromInt = from == DType::I32, toInt = to == DType::I32;
  if (fromInt == toInt) return v;
  if (fromInt) {
    const float f = static_cast<float>(static_cast<int32_t>(v));
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  float f;
  std::memcpy(&f, &v, 4);
  int32_t i;
  if (std::isnan(f))
    i = 0;
  else if (f >= 2147483648.0f)
    i = std::numeric_limits<int32_t>::max();
  else if (f < -2147483648.0f)
    i = std::numeric_limits<int32_t>::min();
  else
    i = static_cast<int32_t>(f);
  return static_cast<uint32_t>(i);
}

} // namespace

void ComputeUnit::convert(const Instruction& ins) {
  static const DType kFrom[4] = {DType::F16, DType::BF16, DType::F32, DType::I32};
  const DType to = *ins.dtype, from = kFrom[ins.operands[4].imm];
  const int64_t items = arg(ins, 0), part = arg(ins, 5);
  if (items < 0) fault("negative stick count " + std::to_string(items));
  const int64_t stick = stickBytes();
  const int lanesTo = lanesOf(to, stick), lanesFrom = lanesOf(from, stick);
  const bool widen = lanesFrom == 2 * lanesTo, narrow = lanesTo == 2 * lanesFrom;
  const int64_t bPort = ins.operands[3].imm;
  if (part < 0 || part > (widen ? 1 : 0))
    fault("part = " + std::to_string(part) + ": " +
          (widen ? "a widening takes half 0 or 1 of each stick" : "only a widening takes a part"));
  if (bPort != kPortNone && !narrow)
    fault("only a narrowing (32 to 16 bits) reads b, the second half of each result stick");
  if (items == 0) return;
  const int64_t dst = ins.operands[1].imm;
  if (dst >= kPortReg) fault("sfu.cvt writes an output FIFO, not '" + portName(dst) + "'");
  StreamFifo& out = outputFifo(dst);
  // Sources: FIFOs (a stick per item) or registers (the same stick every item).
  Ports inPorts;
  int fifoOf[2] = {-1, -1};
  const uint32_t* regOf[2] = {nullptr, nullptr};
  const int64_t ports[2] = {ins.operands[2].imm, bPort};
  for (int k = 0; k < 2; ++k) {
    if (ports[k] == kPortNone) continue;
    if (ports[k] >= kPortReg) {
      regOf[k] = reg(ports[k]);
      continue;
    }
    StreamFifo& f = inputFifo(ports[k]);
    if (inPorts.size() == 1 && inPorts[0].fifo == &f) fault("reads " + f.name() + " twice");
    fifoOf[k] = static_cast<int>(inPorts.size());
    inPorts.add({&f, 1});
  }
  const Fp16Format fmt = chip_.fp16Format();
  auto work = [&](int64_t, int64_t count, const uint8_t* const* in, uint8_t* const* outs) {
    std::vector<uint32_t> src[2], res(static_cast<size_t>(lanesTo));
    for (int k = 0; k < 2; ++k) src[k].assign(static_cast<size_t>(lanesMax_), 0);
    for (int64_t it = 0; it < count; ++it) {
      for (int k = 0; k < 2; ++k) {
        if (fifoOf[k] >= 0)
          decodeStick(from, fmt, in[fifoOf[k]] + it * stick, src[k].data(),
                      static_cast<size_t>(lanesFrom));
        else if (regOf[k])
          std::copy(regOf[k], regOf[k] + lanesFrom, src[k].data());
      }
      for (int l = 0; l < lanesTo; ++l) {
        uint32_t v;
        if (widen)
          v = src[0][static_cast<size_t>(part * lanesTo + l)];
        else if (narrow)
          v = l < lanesFrom ? src[0][static_cast<size_t>(l)]
                            : src[1][static_cast<size_t>(l - lanesFrom)];
        else
          v = src[0][static_cast<size_t>(l)];
        res[static_cast<size_t>(l)] = convertLane(from, to, v);
      }
      encodeStick(to, fmt, res.data(), outs[0] + it * stick, static_cast<size_t>(lanesTo));
    }
  };
  Ports outPorts;
  outPorts.add({&out, 1});
  const Cycles interval = 1.0 / chip_.arch().sfu.sticks_per_cycle;
  const Cycles start =
      stream(items, interval, chip_.arch().sfu.latency_cycles, inPorts, outPorts, work);
  if (chip_.tracing()) traceSpan(std::string("sfu.cvt.") + dtypeName(to), start, local_);
  sfuBusy_ += static_cast<Cycles>(items) * interval;
  sfuSticks_ += static_cast<uint64_t>(items);
}

void ComputeUnit::laneMask(const Instruction& ins) {
  uint32_t* r = reg(ins.operands[0].imm);
  const int64_t below = arg(ins, 1);
  const int lanes = lanesOf(*ins.dtype, stickBytes());
  if (below < 0 || below > lanes)
    fault("lanes = " + std::to_string(below) + " outside 0.." + std::to_string(lanes));
  uint32_t one;
  if (*ins.dtype == DType::I32) {
    one = 1;
  } else {
    const float f = 1.0f;
    std::memcpy(&one, &f, 4);
  }
  std::fill(r, r + lanesMax_, 0u);
  std::fill(r, r + below, one);
  local_ += 1;
}

void ComputeUnit::splatInt(const Instruction& ins) {
  const int64_t v = arg(ins, 1);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    fault("value = " + std::to_string(v) + " outside the i32 range of a lane");
  const auto i = static_cast<int32_t>(v);
  uint32_t* r = reg(ins.operands[0].imm);
  std::fill(r, r + lanesMax_, convertLane(DType::I32, *ins.dtype, static_cast<uint32_t>(i)));
  local_ += 1;
}

void ComputeUnit::splat(const Instruction& ins) {
  uint32_t* r = reg(ins.operands[0].imm);
  const double v = floatOperand(ins.operands[1].imm, ins.operands[1].sym);
  uint32_t bits;
  if (*ins.dtype == DType::I32) {
    bits = static_cast<uint32_t>(static_cast<int32_t>(v));
  } else {
    float fv = static_cast<float>(v);
    std::memcpy(&bits, &fv, 4);
  }
  std::fill(r, r + lanesMax_, bits);
  local_ += 1;
}

void ComputeUnit::sfu(const Instruction& ins) {
  const OpcodeInfo& info = opcodeInfo(ins.op);
  const DType dt = *ins.dtype;
  const int64_t items = arg(ins, 0);
  if (items < 0) fault("negative stick count " + std::to_string(items));
  if (items == 0) return;
  const int lanes = lanesOf(dt, stickBytes());
  const Fp16Format fmt = chip_.fp16Format();
  const bool accumulate =
      ins.op == Opcode::SfuAccAdd || ins.op == Opcode::SfuAccMax || ins.op == Opcode::SfuAccMin;
  const bool laneReduce =
      ins.op == Opcode::SfuLaneAdd || ins.op == Opcode::SfuLaneMax || ins.op == Opcode::SfuLaneMin;

  // Sources: FIFO streams (one stick per item) or registers (the same stick every item).
  const size_t nsrc = info.operands.size() - 2;
  Ports inPorts;
  int srcFifo[3] = {-1, -1, -1};
  const uint32_t* srcReg[3] = {nullptr, nullptr, nullptr};
  for (size_t k = 0; k < nsrc; ++k) {
    int64_t p = ins.operands[2 + k].imm;
    if (p >= kPortReg) {
      srcReg[k] = reg(p);
    } else {
      StreamFifo& f = inputFifo(p);
      for (size_t j = 0; j < inPorts.size(); ++j)
        if (inPorts[j].fifo == &f) fault("reads " + f.name() + " twice in one instruction");
      srcFifo[k] = static_cast<int>(inPorts.size());
      inPorts.add({&f, 1});
    }
  }
  const int64_t dst = ins.operands[1].imm;
  uint32_t* dstReg = nullptr;
  StreamFifo* dstFifo = nullptr;
  if (dst >= kPortReg)
    dstReg = reg(dst);
  else if (accumulate)
    fault("sfu.acc.* accumulates into a register (v0..), not '" + portName(dst) + "'");
  else
    dstFifo = &outputFifo(dst);

  const Cycles interval = 1.0 / chip_.arch().sfu.sticks_per_cycle;
  const Cycles latency = isTranscendental(ins.op) ? chip_.arch().sfu.transcendental_latency_cycles
                                                  : chip_.arch().sfu.latency_cycles;
  const int64_t stick = stickBytes();
  const bool laneBroadcast = ins.op == Opcode::SfuLaneBcast;
  // sfu.lane.bcast: result stick i (of the instruction) is lane i mod lanes of a.
  auto broadcastLane = [&](int64_t item, const uint32_t* a, uint32_t* res) {
    std::fill(res, res + lanes, a[item % lanes]);
  };
  auto work = [&](int64_t piece, int64_t count, const uint8_t* const* in, uint8_t* const* out) {
    // Runs of up to kSfuRun sticks: each stream source decoded in bulk, the op applied to
    // the whole run, the results encoded in bulk. Registers are read as the same stick for
    // every item.
    // One set of run buffers serves every SFU of the process: the work of a piece never
    // yields to another engine (SystemC threads are coroutines on one OS thread).
    static thread_local std::vector<uint32_t> runSrc[3], runDst;
    const size_t runCapacity = static_cast<size_t>(kSfuRun * lanes);
    for (auto* b : {&runSrc[0], &runSrc[1], &runSrc[2], &runDst})
      if (b->size() < runCapacity) b->resize(runCapacity);
    for (int64_t first = 0; first < count; first += kSfuRun) {
      const int64_t m = std::min<int64_t>(kSfuRun, count - first);
      const size_t runLanes = static_cast<size_t>(m) * static_cast<size_t>(lanes);
      const uint32_t* src[3] = {nullptr, nullptr, nullptr};
      int64_t stride[3] = {0, 0, 0};
      for (size_t k = 0; k < nsrc; ++k) {
        if (srcReg[k]) {
          src[k] = srcReg[k];
        } else {
          decodeStick(dt, fmt, in[srcFifo[k]] + first * stick, runSrc[k].data(), runLanes);
          src[k] = runSrc[k].data();
          stride[k] = lanes;
        }
      }
      if (accumulate) {
        for (int64_t it = 0; it < m; ++it)
          applyAccumulate(ins.op, dt, lanes, src[0] + it * stride[0], dstReg);
        continue;
      }
      if (dstFifo) {
        // No register changes during the run: every item's result is independent.
        uint32_t* res = runDst.data();
        if (laneBroadcast)
          for (int64_t it = 0; it < m; ++it)
            broadcastLane(piece + first + it, src[0] + it * stride[0], res + it * lanes);
        else if (laneReduce)
          for (int64_t it = 0; it < m; ++it)
            applyLaneReduce(ins.op, dt, lanes, src[0] + it * stride[0], res + it * lanes);
        else
          applyElementwiseRun(ins.op, dt, lanes, m, src[0], stride[0], src[1], stride[1], src[2],
                              stride[2], res);
        encodeStick(dt, fmt, res, out[0] + first * stick, runLanes);
        continue;
      }
      // A register destination may also be a source: item by item, as the SFU does it.
      uint32_t* res = regResult_.data();
      for (int64_t it = 0; it < m; ++it) {
        if (laneBroadcast)
          broadcastLane(piece + first + it, src[0] + it * stride[0], res);
        else if (laneReduce)
          applyLaneReduce(ins.op, dt, lanes, src[0] + it * stride[0], res);
        else
          applyElementwiseRun(ins.op, dt, lanes, 1, src[0] + it * stride[0], 0,
                              src[1] + it * stride[1], 0, src[2] + it * stride[2], 0, res);
        std::memcpy(dstReg, res, static_cast<size_t>(lanes) * 4);
      }
    }
  };
  Ports outPorts;
  if (dstFifo) outPorts.add({dstFifo, 1});
  const Cycles start = stream(items, interval, latency, inPorts, outPorts, work);
  if (chip_.tracing()) traceSpan(std::string(info.mnemonic) + "." + dtypeName(dt), start, local_);
  sfuBusy_ += static_cast<Cycles>(items) * interval;
  sfuSticks_ += static_cast<uint64_t>(items);
}

void ComputeUnit::matmul(const Instruction& ins) {
  const SpyreArch& arch = chip_.arch();
  const int64_t m = arg(ins, 0), k = arg(ins, 1), n = arg(ins, 2);
  const bool accumulate = arg(ins, 6) != 0, emit = arg(ins, 7) != 0;
  static const DType outTypes[3] = {DType::F16, DType::BF16, DType::F32};
  const DType inType = *ins.dtype, outType = outTypes[ins.operands[8].imm];
  const int64_t stick = stickBytes();
  const int64_t eps = stick / static_cast<int64_t>(dtypeSize(inType));
  const int64_t epsOut = stick / static_cast<int64_t>(dtypeSize(outType));
  if (m <= 0 || k <= 0 || n <= 0)
    fault("tile " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
          " must have positive sizes");
  // k and n need not be whole sticks: rows stream whole sticks, the array ignores A's lanes
  // past k and leaves the result's lanes past n zero (it works on the whole sticks).
  const int64_t kSticks = (k + eps - 1) / eps, rowSticks = (n + eps - 1) / eps;
  const int64_t np = rowSticks * eps; // the weights' and accumulators' row width
  if (m * np * 4 > arch.pt.accumulator_bytes)
    fault("an " + std::to_string(m) + "x" + std::to_string(n) + " fp32 tile needs " +
          std::to_string(m * np * 4) + " bytes of accumulators; the PT array has " +
          std::to_string(arch.pt.accumulator_bytes) + " (pt.accumulator_bytes)");
  if (accumulate && (accM_ != m || accN_ != n))
    fault("acc=1 but the accumulators hold a " + std::to_string(accM_) + "x" +
          std::to_string(accN_) + " tile, not " + std::to_string(m) + "x" + std::to_string(n));
  StreamFifo& a = inputFifo(ins.operands[3].imm);
  StreamFifo& b = inputFifo(ins.operands[4].imm);
  if (&a == &b) fault("a and b must be different FIFOs");
  StreamFifo* out = nullptr;
  if (emit) {
    if (ins.operands[5].imm == kPortNone) fault("emit=1 needs dst=out<N>");
    out = &outputFifo(ins.operands[5].imm);
  }
  const Fp16Format fmt = chip_.fp16Format();
  const bool fn = functional();
  if (fn) {
    weights_.resize(static_cast<size_t>(k * np));
    if (!accumulate) acc_.assign(static_cast<size_t>(m * np), 0.0f);
  }
  accM_ = m;
  accN_ = n;
  float* act = activation_.data(); // one decoded stick of A

  // 1. Weights (B, k x n) enter the array's idle weight buffer and stay; this may overlap
  //    the previous tile's streaming.
  const int buffer = tile_++ % 2;
  const Cycles issued = local_;
  local_ = std::min(issued, std::max({weightsPortFree_, streamEnd_[buffer], lastStreamStart_}));
  Cycles start =
      stream(k * rowSticks, 1.0, 0, {{&b, 1}}, {},
             [&](int64_t first, int64_t count, const uint8_t* const* in, uint8_t* const*) {
               for (int64_t s = 0; s < count; ++s) {
                 int64_t idx = first + s, r = idx / rowSticks, c = idx % rowSticks;
                 float* w = weights_.data() + r * np + c * eps;
                 decodeStick(inType, fmt, in[0] + s * stick, reinterpret_cast<uint32_t*>(w),
                             static_cast<size_t>(eps));
               }
             });
  // 2. Activations (A, m x k) stream through; the array does rows*cols*macs MACs a cycle.
  // The array works on whole sticks of k and n.
  const double macs =
      static_cast<double>(m) * static_cast<double>(kSticks * eps) * static_cast<double>(np);
  const double perCycle =
      static_cast<double>(arch.pt.rows) * arch.pt.cols * arch.pt.macs_per_pe_fp16;
  const Cycles computeCycles = std::ceil(macs / perCycle);
  const Cycles interval = std::max(1.0, computeCycles / static_cast<double>(m * kSticks));
  weightsPortFree_ = local_;
  local_ = std::max(local_, issued);
  lastStreamStart_ = local_;
  stream(m * kSticks, interval, 0, {{&a, 1}}, {},
         [&](int64_t first, int64_t count, const uint8_t* const* in, uint8_t* const*) {
           for (int64_t s = 0; s < count; ++s) {
             int64_t idx = first + s, row = idx / kSticks, chunk = idx % kSticks;
             decodeStick(inType, fmt, in[0] + s * stick, reinterpret_cast<uint32_t*>(act),
                         static_cast<size_t>(eps));
             const int64_t valid = std::min(eps, k - chunk * eps); // lanes past k: ignored
             macStick(acc_.data() + row * np, act, weights_.data() + chunk * eps * np, valid, n,
                      np);
           }
         });
  ptBusy_ += computeCycles;
  macs_ += macs;
  streamEnd_[buffer] = local_;
  // 3. Results drain out of the array after its pipeline latency.
  if (emit) {
    const int64_t outRowSticks = (n + epsOut - 1) / epsOut;
    stream(m * outRowSticks, 1.0, arch.pt.latency_cycles, {}, {{out, 1}},
           [&](int64_t first, int64_t count, const uint8_t* const*, uint8_t* const* o) {
             for (int64_t s = 0; s < count; ++s) {
               int64_t idx = first + s, row = idx / outRowSticks, c = idx % outRowSticks;
               // The accumulators' lanes past n stay zero (only the first n are added to).
               const float* src = acc_.data() + row * np + c * epsOut;
               encodeStick(outType, fmt, reinterpret_cast<const uint32_t*>(src), o[0] + s * stick,
                           static_cast<size_t>(epsOut));
             }
           });
  }
  if (chip_.tracing()) traceSpan(std::string("pt.mm.") + dtypeName(inType), start, local_);
}

} // namespace chipless::sim::spyre

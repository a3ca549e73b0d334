/// The TensorCore's vector unit: vld/vst between VMEM and the vector registers, and the
/// vector ALU (scoreboarded register by register; the numbers are in vector_math.cpp).
#include "sim/tpu/system.h"
#include "sim/tpu/tensor_core.h"
#include "sim/tpu/vector_math.h"

#include <algorithm>
#include <cstring>

namespace chipless::sim::tpu {

using namespace tpuprog;

// ---- vector unit ------------------------------------------------------------------------

int64_t TensorCore::vregIndex(const Op& op, size_t operand, int64_t n) {
  int64_t v = op.operands[operand].imm;
  const int regs = system_.arch().vpu.registers;
  if (v < 0 || v + n > regs)
    fault("vector registers v" + std::to_string(v) + "..v" + std::to_string(v + n - 1) +
          " beyond v" + std::to_string(regs - 1) + " (vpu.registers)");
  return v;
}

void TensorCore::vectorLoadStore(const Op& op, bool load) {
  const TpuArch& arch = system_.arch();
  const DType type = *op.dtype;
  const int64_t esize = static_cast<int64_t>(dtypeSize(type));
  const int S = arch.vpu.sublanes, L = arch.vpu.lanes;
  const int64_t n = arg(op, 2);
  if (n < 1) fault("n = " + std::to_string(n) + ": at least one register");
  const int64_t v = vregIndex(op, 0, n);
  const int64_t addr = arg(op, 1);
  const int64_t rowBytes = L * esize;
  int64_t stride = arg(op, 3), vstride = arg(op, 4);
  if (stride == -1) stride = rowBytes;
  if (vstride == -1) vstride = S * stride;
  if (addr % esize != 0 || stride % esize != 0 || vstride % esize != 0)
    fault("misaligned VMEM access: address " + hex(addr) + ", stride " + std::to_string(stride) +
          ", vstride " + std::to_string(vstride) + " must be multiples of the element size (" +
          std::to_string(esize) + ")");
  const char* what = load ? "vld" : "vst";
  // The rows as strided blocks: one block when registers follow each other, else one each.
  StridedBlock blocks[kMaxVRegs];
  size_t nblocks = 0;
  if (vstride == S * stride) {
    blocks[nblocks++] = {addr, rowBytes, stride, n * S};
  } else {
    for (int64_t i = 0; i < n; ++i) blocks[nblocks++] = {addr + i * vstride, rowBytes, stride, S};
  }
  for (size_t i = 0; i < nblocks; ++i) checkVmem(what, blocks[i]);

  const Cycles c = quantize(std::max(1.0, static_cast<double>(S * rowBytes) /
                                              static_cast<double>(arch.vmem.bytes_per_cycle)));
  Cycles start = std::max(local_, load ? vldFree_ : vstFree_);
  for (int64_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(v + i);
    if (load)
      start = std::max({start, vread_[r] - i * c, vready_[r] - i * c});
    else
      start = std::max(start, vready_[r] - i * c);
  }
  start = vmemReady(blocks, nblocks, start, !load, kVectorUnit, what);
  const Cycles end = start + n * c;

  if (!system_.timingOnly()) {
    uint8_t* mem = vmem_.get();
    for (int64_t i = 0; i < n; ++i)
      for (int r = 0; r < S; ++r) {
        uint8_t* row = mem + addr + i * vstride + r * stride;
        uint32_t* lanes = vreg(v + i) + r * L;
        if (load)
          loadRow(type, row, lanes, L);
        else
          storeRow(type, lanes, row, L);
      }
  }
  for (int64_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(v + i);
    if (load)
      vready_[r] = start + i * c + arch.vpu.latency_cycles;
    else
      vread_[r] = std::max(vread_[r], start + (i + 1) * c);
  }
  for (size_t i = 0; i < nblocks; ++i) noteAccess(blocks[i], start, end, !load, kVectorUnit, what);
  const double bytes = static_cast<double>(n * S * rowBytes);
  if (load) {
    vldFree_ = end;
    counters_.vldBusy += end - start;
    counters_.vmemBytesLoaded += bytes;
  } else {
    vstFree_ = end;
    counters_.vstBusy += end - start;
    counters_.vmemBytesStored += bytes;
  }
  if (system_.tracing())
    traceSpan(load ? System::kTrackVld : System::kTrackVst,
              std::string(what) + "." + dtypeName(type), start, end);
}

void TensorCore::vectorAlu(const Op& op) {
  const TpuArch& arch = system_.arch();
  const OpcodeInfo& info = opcodeInfo(op.op);
  const DType type = *op.dtype;
  const int64_t n = arg(op, info.operands.size() - 1);
  if (n < 1) fault("n = " + std::to_string(n) + ": at least one register");
  const int64_t vd = vregIndex(op, 0, n);
  int64_t src[3] = {-1, -1, -1};
  size_t nsrc = 0;
  for (size_t k = 1; k + 1 < info.operands.size(); ++k)
    if (info.operands[k].kind == OperandKind::VReg) src[nsrc++] = vregIndex(op, k, n);
  double scalar = 0;
  if (op.op == Opcode::VSplat)
    scalar = LaunchHost::floatBits(op.operands[1].sym >= 0
                                       ? (*symbols_)[static_cast<size_t>(op.operands[1].sym)]
                                       : op.operands[1].imm);
  else if (op.op == Opcode::VBcast)
    scalar = static_cast<double>(arg(op, 1));

  const bool trans = isTranscendental(op.op);
  const Cycles interval = trans ? arch.vpu.transcendental_interval_cycles : 1;
  const Cycles latency = trans ? arch.vpu.transcendental_latency_cycles : arch.vpu.latency_cycles;
  Cycles start = std::max(local_, valuFree_);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t s = 0; s < nsrc; ++s)
      start = std::max(start, vready_[static_cast<size_t>(src[s] + i)] - i * interval);
    const size_t d = static_cast<size_t>(vd + i);
    start =
        std::max({start, vread_[d] - i * interval - latency, vready_[d] - i * interval - latency});
  }
  const Cycles end = start + n * interval;

  if (!system_.timingOnly()) {
    // Sources are read before any result is written, also when the ranges overlap.
    bool staged = false;
    for (size_t s = 0; s < nsrc; ++s) staged |= src[s] != vd && src[s] < vd + n && vd < src[s] + n;
    std::vector<uint32_t> tmp;
    if (staged) tmp.resize(static_cast<size_t>(n) * laneCount_);
    // Operand order in the table: vsel is (vd, vc, va, vb); binary (vd, va, vb); unary (vd, va).
    const bool sel = op.op == Opcode::VSel;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t* d = staged ? &tmp[static_cast<size_t>(i) * laneCount_] : vreg(vd + i);
      const uint32_t* x = nsrc > (sel ? 1 : 0) ? vreg(src[sel ? 1 : 0] + i) : nullptr;
      const uint32_t* y = nsrc > (sel ? 2 : 1) ? vreg(src[sel ? 2 : 1] + i) : nullptr;
      const uint32_t* cond = sel ? vreg(src[0] + i) : nullptr;
      if (op.op == Opcode::VIota)
        iota(type, d, op.operands[1].imm == 1, i, arch.vpu.sublanes, arch.vpu.lanes);
      else
        valu(op.op, type, d, x, y, cond, scalar, arch.vpu.sublanes, arch.vpu.lanes);
    }
    if (staged) std::copy(tmp.begin(), tmp.end(), vreg(vd));
  }
  for (int64_t i = 0; i < n; ++i) {
    for (size_t s = 0; s < nsrc; ++s) {
      Cycles& r = vread_[static_cast<size_t>(src[s] + i)];
      r = std::max(r, start + i * interval + 1);
    }
    vready_[static_cast<size_t>(vd + i)] = start + i * interval + latency;
  }
  valuFree_ = end;
  counters_.valuBusy += end - start;
  counters_.vregOps += static_cast<uint64_t>(n);
  if (system_.tracing())
    traceSpan(System::kTrackValu, std::string(info.mnemonic) + "." + dtypeName(type), start, end);
}

} // namespace chipless::sim::tpu

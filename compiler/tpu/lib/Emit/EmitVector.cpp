// The vector phase of a unit: the kernel's vector program over the unit's rows in blocks of
// U vector registers, pass by pass over the column tiles (element-wise epilogues, reductions
// into per-row values, the stores of the outputs).
#include "KernelEmitter.h"
#include "tpuc/Plan.h"

#include <optional>
#include <set>

namespace chipless::tpuc::emitter {

bool KernelEmitter::feasible(int U, bool hoist) {
  Asm dry;
  Asm* saved = out_;
  out_ = &dry;
  BlockContext ctx;
  for (int b : allBuffers()) ctx.tilePtr[b] = ctx.blockPtr[b] = "s0";
  const bool ok = block(U, hoist, ctx);
  out_ = saved;
  return ok;
}

void KernelEmitter::chooseRegisterBlock() {
  prog_ = planPasses(k_, L_);
  for (const VOp& o : k_.ops) hasIndex_ |= o.kind == VKind::Index;
  if (prog_.passes.empty()) return;
  const int uMax = maxRegisterBlock(p_.rowsPerUnit, static_cast<int>(S_));
  for (int U : {8, 4, 2, 1}) {
    // A block of U registers per value needs room for at least one value.
    if (U > uMax || U > arch_.vpu.registers || p_.bufferRows % (int64_t{U} * S_) != 0) continue;
    for (bool hoist : {true, false}) {
      if (feasible(U, hoist)) {
        U_ = U;
        hoist_ = hoist;
        return;
      }
    }
  }
  throw CompileError(k_.where, "the fused element-wise program of kernel " + k_.name +
                                   " needs more than vpu.registers (" + num(arch_.vpu.registers) +
                                   ") vector registers");
}

std::vector<int> KernelEmitter::allBuffers() const {
  std::vector<int> b;
  if (k_.matmul) b.push_back(kAccBuffer);
  for (size_t i = 0; i < k_.inputs.size(); ++i) b.push_back(static_cast<int>(i));
  for (size_t j = 0; j < k_.outputs.size(); ++j)
    if (p_.outputOffsets[j] >= 0) b.push_back(kOutputBase + static_cast<int>(j));
  return b;
}

int64_t KernelEmitter::bufferOffset(int b) const {
  if (b == kAccBuffer) return p_.accOffset;
  if (b >= kOutputBase) return p_.outputOffsets[static_cast<size_t>(b - kOutputBase)];
  return p_.inputOffsets[static_cast<size_t>(b)];
}

int64_t KernelEmitter::bufferRowBytes(int b) const {
  if (b == kAccBuffer) return p_.accRowBytes;
  if (b >= kOutputBase) return p_.outputRowBytes[static_cast<size_t>(b - kOutputBase)];
  return p_.inputRowBytes[static_cast<size_t>(b)];
}

bool KernelEmitter::bufferIsRowVector(int b) const {
  return b >= 0 && b < kOutputBase && k_.inputs[static_cast<size_t>(b)].rowVector;
}

std::string KernelEmitter::bufferType(int b) const {
  if (b == kAccBuffer) return k_.matmul->dtype == DType::I8 ? "i32" : "f32";
  if (b >= kOutputBase)
    return dtypeName(k_.outputs[static_cast<size_t>(b - kOutputBase)].access.dtype);
  return dtypeName(k_.inputs[static_cast<size_t>(b)].access.dtype);
}

std::vector<int> KernelEmitter::passBuffers(const VPass& p) const {
  std::set<int> s;
  for (int v : p.tileValues) {
    const VOp& o = k_.ops[static_cast<size_t>(v)];
    if (o.kind == VKind::Acc) s.insert(kAccBuffer);
    if (o.kind == VKind::Load) s.insert(o.input);
  }
  for (int j : p.outputs)
    if (p_.outputOffsets[static_cast<size_t>(j)] >= 0) s.insert(kOutputBase + j);
  return {s.begin(), s.end()};
}

template <typename F>
void KernelEmitter::emitValueOp(Asm& a, const VOp& o, const std::string& dst, F&& operand,
                                const std::string& n) {
  const std::string t = typeSuffix(o.isInt);
  switch (o.kind) {
  case VKind::Unary:
    a.op(std::string(mnemonic(o.op)) + "." + t + " " + dst + ", " + operand(o.a) + n);
    return;
  case VKind::Binary:
    a.op(std::string(mnemonic(o.op)) + "." + t + " " + dst + ", " + operand(o.a) + ", " +
         operand(o.b) + n);
    return;
  case VKind::Select:
    a.op("vsel." + t + " " + dst + ", " + operand(o.c) + ", " + operand(o.a) + ", " + operand(o.b) +
         n);
    return;
  default:
    throw CompileError(o.where, "internal: unexpected vector value kind");
  }
}

bool KernelEmitter::block(int U, bool hoist, BlockContext& ctx) {
  Asm& a = *out_;
  const int slots = arch_.vpu.registers / U;
  Slots pool(slots);
  const std::string n = ", n=" + num(U);
  std::map<int, int> colSlot;
  for (int v : prog_.columnValues) colSlot[v] = pool.take();
  for (size_t pi = 0; pi < prog_.passes.size(); ++pi) {
    const VPass& pass = prog_.passes[pi];
    // Column values ready now.
    for (int v : pass.columnOps) {
      const VOp& o = k_.ops[static_cast<size_t>(v)];
      if (o.kind == VKind::Load) {
        columnLoad(U, o.input, vr(colSlot.at(v), U), pool, ctx);
        continue;
      }
      std::vector<int> temps;
      auto operand = [&](int x) -> std::string {
        const VOp& src = k_.ops[static_cast<size_t>(x)];
        if (src.kind == VKind::Const) {
          int s = pool.take();
          temps.push_back(s);
          a.op(std::string("vsplat.") + typeSuffix(src.isInt) + " " + vr(s, U) + ", " +
               fnum(src.value) + n);
          return vr(s, U);
        }
        return vr(colSlot.at(x), U);
      };
      emitValueOp(a, o, vr(colSlot.at(v), U), operand, n);
      for (int s : temps) pool.give(s);
    }
    // Hoisted constants of the tile body.
    std::map<int, int> constSlot;
    if (hoist)
      for (int v : pass.tileValues) {
        const VOp& o = k_.ops[static_cast<size_t>(v)];
        if (o.kind != VKind::Const) continue;
        constSlot[v] = pool.take();
        a.op(std::string("vsplat.") + typeSuffix(o.isInt) + " " + vr(constSlot[v], U) + ", " +
             fnum(o.value) + n);
      }
    // Accumulators.
    std::map<int, int> accSlot;
    for (int r : pass.reductions) {
      const VOp& o = k_.ops[static_cast<size_t>(r)];
      accSlot[r] = pool.take();
      a.op(std::string("vsplat.") + typeSuffix(o.isInt) + " " + vr(accSlot[r], U) + ", " +
           fnum(identityOf(o.op)) + n);
    }
    // The tiles.
    const std::vector<int> bufs = passBuffers(pass);
    for (int b : bufs) {
      const std::string& ptr = ctx.tilePtr.at(b);
      const std::string& blockPtr = ctx.blockPtr.count(b) ? ctx.blockPtr.at(b) : ptr;
      if (bufferIsRowVector(b))
        a.op("add " + ptr + ", " + shalf_ + ", " + num(bufferOffset(b)));
      else
        a.op("li " + ptr + ", " + blockPtr);
    }
    if (hasIndex_) a.op("li " + idxCol_ + ", 0");
    const int64_t full = pass.masked ? ct_ - 1 : ct_;
    if (full > 0) {
      if (full > 1) a.op("loop " + num(full));
      tile(U, pass, constSlot, accSlot, colSlot, pool, ctx, false);
      if (full > 1 || pass.masked) {
        for (int b : bufs)
          a.op("add " + ctx.tilePtr.at(b) + ", " + ctx.tilePtr.at(b) + ", " +
               num(L_ * bufferElement(b)));
        if (hasIndex_) a.op("add " + idxCol_ + ", " + idxCol_ + ", " + num(L_));
      }
      if (full > 1) a.op("endloop");
    }
    if (pass.masked) tile(U, pass, constSlot, accSlot, colSlot, pool, ctx, true);
    // Lane reductions into the column values.
    for (int r : pass.reductions) {
      const VOp& o = k_.ops[static_cast<size_t>(r)];
      const std::string t = typeSuffix(o.isInt);
      const std::string acc = vr(accSlot[r], U), col = vr(colSlot.at(r), U);
      if (o.op == Opcode::VAdd) {
        a.op("vsum.lanes." + t + " " + col + ", " + acc + n);
      } else if (o.op == Opcode::VMax) {
        a.op("vmax.lanes." + t + " " + col + ", " + acc + n);
      } else { // min = -max(-x)
        a.op("vneg." + t + " " + acc + ", " + acc + n);
        a.op("vmax.lanes." + t + " " + col + ", " + acc + n);
        a.op("vneg." + t + " " + col + ", " + col + n);
      }
      if (o.hasInit) {
        a.op("vsplat." + t + " " + acc + ", " + fnum(o.value) + n);
        a.op(std::string(mnemonic(o.op)) + "." + t + " " + col + ", " + col + ", " + acc + n);
      }
      pool.give(accSlot[r]);
    }
    for (auto& [v, s] : constSlot) pool.give(s);
  }
  return !pool.overflow();
}

void KernelEmitter::columnLoad(int U, int input, const std::string& dst, Slots& pool,
                               BlockContext& ctx) {
  // Packed: register i, sublane r (row i * sublanes + r of the block) keeps lane
  // i * sublanes + r of the elements from the block's first row on, loaded into every
  // sublane; else each sublane its row's chunk, and keeps lane 0. The other lanes give way to
  // the smallest value, and the lanes' maximum is the row's element, in every lane.
  Asm& a = *out_;
  const std::string n = ", n=" + num(U), t = typeSuffix(false);
  const bool packed = k_.inputs[static_cast<size_t>(input)].packed();
  const int keep = pool.take(), laneIdx = pool.take();
  a.op("vld." + bufferType(input) + " " + dst + ", " + ctx.blockPtr.at(input) + n +
       ", stride=" + num(packed ? 0 : bufferRowBytes(input)));
  if (packed)
    a.op("viota." + t + " " + vr(keep, U) + ", sublanes" + n);
  else
    a.op("vsplat." + t + " " + vr(keep, U) + ", 0" + n);
  a.op("viota." + t + " " + vr(laneIdx, U) + ", lanes" + n);
  a.op("vcmp.eq." + t + " " + vr(keep, U) + ", " + vr(keep, U) + ", " + vr(laneIdx, U) + n);
  a.op("vsplat." + t + " " + vr(laneIdx, U) + ", " + fnum(identityOf(Opcode::VMax)) + n);
  a.op("vsel." + t + " " + dst + ", " + vr(keep, U) + ", " + dst + ", " + vr(laneIdx, U) + n);
  a.op("vmax.lanes." + t + " " + dst + ", " + dst + n);
  pool.give(keep);
  pool.give(laneIdx);
}

void KernelEmitter::tile(int U, const VPass& pass, const std::map<int, int>& constSlot,
                         const std::map<int, int>& accSlot, const std::map<int, int>& colSlot,
                         Slots& pool, BlockContext& ctx, bool masked) {
  Asm& a = *out_;
  const std::string n = ", n=" + num(U);
  // Uses of each tile value within this tile.
  std::map<int, int> uses;
  for (int v : pass.tileValues) {
    const VOp& o = k_.ops[static_cast<size_t>(v)];
    for (int x : {o.a, o.b, o.c})
      if (x >= 0) ++uses[x];
  }
  for (int r : pass.reductions) ++uses[k_.ops[static_cast<size_t>(r)].a];
  for (int j : pass.outputs) ++uses[k_.outputs[static_cast<size_t>(j)].value];
  std::map<int, int> slotOf;
  int maskSlot = -1, identSlot = -1;
  if (masked) {
    maskSlot = pool.take();
    identSlot = pool.take();
    a.op("viota.f32 " + vr(maskSlot, U) + ", lanes" + n);
    a.op("vsplat.f32 " + vr(identSlot, U) + ", " + num(k_.n % L_) + n);
    a.op("vcmp.lt.f32 " + vr(maskSlot, U) + ", " + vr(maskSlot, U) + ", " + vr(identSlot, U) + n);
  }
  auto release = [&](int x) {
    if (x < 0) return;
    const VOp& src = k_.ops[static_cast<size_t>(x)];
    if (src.column && src.kind != VKind::Const) return;
    if (constSlot.count(x)) return;
    if (--uses[x] == 0 && slotOf.count(x)) pool.give(slotOf[x]);
  };
  auto reg = [&](int x) -> std::string {
    const VOp& src = k_.ops[static_cast<size_t>(x)];
    if (constSlot.count(x)) return vr(constSlot.at(x), U);
    if (src.column && src.kind != VKind::Const) return vr(colSlot.at(x), U);
    return vr(slotOf.at(x), U);
  };
  for (int v : pass.tileValues) {
    const VOp& o = k_.ops[static_cast<size_t>(v)];
    if (constSlot.count(v)) continue;
    const std::string t = typeSuffix(o.isInt);
    switch (o.kind) {
    case VKind::Const: {
      slotOf[v] = pool.take();
      a.op("vsplat." + t + " " + vr(slotOf[v], U) + ", " + fnum(o.value) + n);
      break;
    }
    case VKind::Index: {
      // The lane (N) or row (M) index within the tile, plus the tile's column or row base.
      slotOf[v] = pool.take();
      const int base = pool.take();
      const bool alongN = o.value == 0;
      a.op("viota." + t + " " + vr(slotOf[v], U) + (alongN ? ", lanes" : ", sublanes") + n);
      a.op("vbcast." + t + " " + vr(base, U) + ", " + (alongN ? idxCol_ : idxRow_) + n);
      a.op("vadd." + t + " " + vr(slotOf[v], U) + ", " + vr(slotOf[v], U) + ", " + vr(base, U) + n);
      pool.give(base);
      break;
    }
    case VKind::Load:
    case VKind::Acc: {
      const int b = o.kind == VKind::Acc ? kAccBuffer : o.input;
      slotOf[v] = pool.take();
      a.op("vld." + bufferType(b) + " " + vr(slotOf[v], U) + ", " + ctx.tilePtr.at(b) + n +
           ", stride=" + num(bufferIsRowVector(b) ? 0 : bufferRowBytes(b)));
      break;
    }
    default: {
      // Operands are read before the result is written, so the result may reuse a slot of an
      // operand that dies here.
      std::vector<int> ops;
      for (int x : {o.a, o.b, o.c})
        if (x >= 0) ops.push_back(x);
      std::string opnd[3];
      int idx = 0;
      for (int x : {o.a, o.b, o.c}) opnd[idx++] = x >= 0 ? reg(x) : "";
      for (int x : ops) release(x);
      slotOf[v] = pool.take();
      auto byIndex = [&](int x) {
        if (x == o.a) return opnd[0];
        if (x == o.b) return opnd[1];
        return opnd[2];
      };
      emitValueOp(a, o, vr(slotOf[v], U), byIndex, n);
      break;
    }
    }
    // Stores and reductions that use v.
    for (int j : pass.outputs) {
      const VOutput& out = k_.outputs[static_cast<size_t>(j)];
      if (out.value != v) continue;
      if (p_.outputOffsets[static_cast<size_t>(j)] >= 0) {
        const int b = kOutputBase + j;
        a.op("vst." + bufferType(b) + " " + reg(v) + ", " + ctx.tilePtr.at(b) + n +
             ", stride=" + num(bufferRowBytes(b)));
      }
      release(v);
    }
    for (int r : pass.reductions) {
      const VOp& ro = k_.ops[static_cast<size_t>(r)];
      if (ro.a != v) continue;
      const std::string rt = typeSuffix(ro.isInt);
      std::string x = reg(v);
      int tmp = -1;
      if (masked) {
        tmp = pool.take();
        a.op("vsplat." + rt + " " + vr(identSlot, U) + ", " + fnum(identityOf(ro.op)) + n);
        a.op("vsel." + rt + " " + vr(tmp, U) + ", " + vr(maskSlot, U) + ", " + x + ", " +
             vr(identSlot, U) + n);
        x = vr(tmp, U);
      }
      const std::string acc = vr(accSlot.at(r), U);
      a.op(std::string(mnemonic(ro.op)) + "." + rt + " " + acc + ", " + acc + ", " + x + n);
      if (tmp >= 0) pool.give(tmp);
      release(v);
    }
  }
  for (auto& [v, s] : slotOf)
    if (uses[v] > 0) pool.give(s);
  if (masked) {
    pool.give(maskSlot);
    pool.give(identSlot);
  }
}

void KernelEmitter::vectorPhase(const Geometry& g) {
  if (prog_.passes.empty()) return;
  // Blocks of U register rows.
  const int64_t rowsPerBlock = int64_t{U_} * S_;
  std::optional<SReg> nb;
  std::string count;
  if (g.rows.isConst()) {
    count = num(ceilDiv(g.rows.c, rowsPerBlock));
  } else {
    nb.emplace(regs_);
    a_.op("add " + nb->str() + ", " + g.rows.str() + ", " + num(rowsPerBlock - 1));
    a_.op("div " + nb->str() + ", " + nb->str() + ", " + num(rowsPerBlock));
    count = nb->str();
  }
  BlockContext ctx;
  std::vector<SReg> held;
  for (int b : allBuffers()) {
    if (b >= 0 && b < kOutputBase && k_.inputs[static_cast<size_t>(b)].columnVector) {
      // Read once per block (columnLoad), never per tile.
      held.emplace_back(regs_);
      ctx.blockPtr[b] = held.back().str();
      a_.op("add " + ctx.blockPtr[b] + ", " + shalf_ + ", " + num(bufferOffset(b)));
      continue;
    }
    bool used = false;
    for (const VPass& p : prog_.passes)
      for (int x : passBuffers(p)) used |= x == b;
    if (!used) continue;
    held.emplace_back(regs_);
    ctx.tilePtr[b] = held.back().str();
    if (!bufferIsRowVector(b)) {
      held.emplace_back(regs_);
      ctx.blockPtr[b] = held.back().str();
      a_.op("add " + ctx.blockPtr[b] + ", " + shalf_ + ", " + num(bufferOffset(b)));
    }
  }
  // Index values: the block's first row and the tile's first column.
  std::optional<SReg> row, col;
  if (hasIndex_) {
    row.emplace(regs_);
    col.emplace(regs_);
    idxRow_ = row->str();
    idxCol_ = col->str();
    if (g.m0.isConst())
      a_.op("li " + idxRow_ + ", " + num(g.m0.c));
    else
      a_.op("add " + idxRow_ + ", " + g.m0.reg + ", " + num(g.m0.c));
  }
  a_.comment("vector program: " + num(prog_.passes.size()) + " pass(es) over " + num(ct_) +
             " column tile(s) per block of " + num(rowsPerBlock) + " rows");
  a_.op("loop " + count);
  block(U_, hoist_, ctx);
  for (auto& [b, ptr] : ctx.blockPtr)
    a_.op("add " + ptr + ", " + ptr + ", " + num(rowsPerBlock * bufferRowBytes(b)));
  if (hasIndex_) a_.op("add " + idxRow_ + ", " + idxRow_ + ", " + num(rowsPerBlock));
  a_.op("endloop");
}

} // namespace chipless::tpuc::emitter

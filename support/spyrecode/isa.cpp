#include "support/spyrecode/isa.h"

#include "support/dtype.h"
#include "support/progformat/scalar_ops.h"

namespace chipless::spyrecode {

const std::vector<std::string> kRingDirections = {"short", "cw", "ccw"};
const std::vector<std::string> kRingOps = {"none", "add", "max", "min"};

namespace {

using namespace progformat;

constexpr uint32_t bit(Unit u) {
  return 1u << static_cast<unsigned>(u);
}
constexpr uint32_t kAllUnits = (1u << kUnitCount) - 1;
constexpr uint32_t kCompute = bit(Unit::Compute);
constexpr uint32_t kFloats = dtypeBit(DType::F16) | dtypeBit(DType::BF16) | dtypeBit(DType::F32);
constexpr uint32_t kNumeric = kFloats | dtypeBit(DType::I32);

using K = OperandKind;

std::vector<OperandDecl> branch() {
  return {req("a", K::Expr), req("b", K::Expr), req("target", K::Label)};
}
std::vector<OperandDecl> sfuUnary() {
  return {req("n", K::Expr), req("dst", K::Port), req("a", K::Port)};
}
std::vector<OperandDecl> sfuBinary() {
  return {req("n", K::Expr), req("dst", K::Port), req("a", K::Port), req("b", K::Port)};
}
/// Up to three nested counts with a stride each; the innermost is dimension 0.
void addStreamDims(std::vector<OperandDecl>& ops, const char* stridePrefix) {
  static const char* const strideNames[2][3] = {{"s0", "s1", "s2"}, {"sb0", "sb1", "sb2"}};
  int which = std::string(stridePrefix) == "s" ? 0 : 1;
  ops.push_back(optArch(strideNames[which][0], K::Expr, "chip.stick_bytes")); // one stick
  for (int i = 1; i < 3; ++i) ops.push_back(opt(strideNames[which][i], K::Expr, 0));
}

std::vector<OpcodeInfo> buildTable() {
  std::vector<OpcodeInfo> t;
  auto add = [&](Opcode op, const char* m, uint32_t units, DtypeRule rule, uint32_t types,
                 std::vector<OperandDecl> ops, int pos, const char* summary) {
    t.push_back({{op, m, rule, types, std::move(ops), pos, summary}, units});
  };
  auto scalar = [&](Opcode op, const char* m, std::vector<OperandDecl> ops, int pos,
                    const char* summary) {
    add(op, m, kAllUnits, DtypeRule::None, 0, std::move(ops), pos, summary);
  };
  for (size_t i = 0; i < scalarAluOps().size(); ++i) {
    const ScalarAluOp& s = scalarAluOps()[i];
    scalar(static_cast<Opcode>(static_cast<size_t>(Opcode::Li) + i), s.mnemonic, s.operands,
           s.positional, s.summary);
  }
  static_assert(static_cast<int>(Opcode::Max) - static_cast<int>(Opcode::Li) == 12);
  scalar(Opcode::Jmp, "jmp", {req("target", K::Label)}, 1, "jump to target");
  scalar(Opcode::Beq, "beq", branch(), 3, "jump to target if a == b");
  scalar(Opcode::Bne, "bne", branch(), 3, "jump to target if a != b");
  scalar(Opcode::Blt, "blt", branch(), 3, "jump to target if a < b");
  scalar(Opcode::Bge, "bge", branch(), 3, "jump to target if a >= b");
  scalar(Opcode::Loop, "loop", {req("count", K::Expr), req("end", K::Hidden)}, 1,
         "run the body up to the matching endloop count times (count <= 0 skips it)");
  scalar(Opcode::EndLoop, "endloop", {req("start", K::Hidden)}, 0, "end of a loop body");
  scalar(Opcode::Nop, "nop", {opt("cycles", K::Expr, 1)}, 1, "spend cycles doing nothing");
  scalar(Opcode::TSend, "tsend", {req("token", K::Expr), opt("core", K::Expr, -1)}, 1,
         "send one token on token id `token` of `core` (default: this core); a remote "
         "token travels the ring");
  scalar(Opcode::TWait, "twait", {req("token", K::Expr)}, 1,
         "wait until a token is available on id `token` of this core, then consume it");

  std::vector<OperandDecl> dma = {req("sp", K::Expr), req("mem", K::Expr), req("bytes", K::Expr)};
  for (int d = 1; d <= 3; ++d) {
    static const char* const names[3][3] = {
        {"n1", "ms1", "ss1"}, {"n2", "ms2", "ss2"}, {"n3", "ms3", "ss3"}};
    dma.push_back(opt(names[d - 1][0], K::Expr, 1));
    dma.push_back(opt(names[d - 1][1], K::Expr, 0));
    dma.push_back(opt(names[d - 1][2], K::Expr, 0));
  }
  dma.push_back(opt("done", K::Expr, -1));
  add(Opcode::DmaLoad, "dma.load", bit(Unit::DmaIn), DtypeRule::None, 0, dma, 0,
      "copy device memory to the scratchpad: runs of `bytes` (whole sticks) at "
      "mem/sp, repeated over up to three outer dimensions (count n, memory stride "
      "ms, scratchpad stride ss); token `done` fires when the data has landed");
  add(Opcode::DmaStore, "dma.store", bit(Unit::DmaOut), DtypeRule::None, 0, dma, 0,
      "copy the scratchpad to device memory (operands as dma.load); token `done` "
      "fires when the data is in device memory");

  add(Opcode::RingSend, "ring.send", bit(Unit::Ring), DtypeRule::Optional, kNumeric,
      {req("core", K::Expr), req("src", K::Expr), req("dst", K::Expr), req("bytes", K::Expr),
       choice("dir", kRingDirections, 0), choice("op", kRingOps, 0), opt("token", K::Expr, -1),
       opt("done", K::Expr, -1)},
      0,
      "send `bytes` from this core's scratchpad at src to core `core`'s scratchpad "
      "at dst over the ring (shortest way, or cw/ccw); op add/max/min combines with "
      "what is there (reduce as you go, element type from the suffix); `token` "
      "fires on the destination core on arrival, `done` here once src was read");

  std::vector<OperandDecl> ld = {req("n0", K::Expr), req("fifo", K::Port), req("addr", K::Expr)};
  addStreamDims(ld, "s");
  ld.push_back(opt("n1", K::Expr, 1));
  ld.push_back(opt("n2", K::Expr, 1));
  ld.push_back(opt("fifo_b", K::Port, kPortNone));
  ld.push_back(opt("addr_b", K::Expr, 0));
  addStreamDims(ld, "sb");
  add(Opcode::LdStream, "ld.stream", bit(Unit::Load), DtypeRule::None, 0, ld, 0,
      "push n0*n1*n2 sticks from the scratchpad into an input FIFO; stick (i0,i1,i2) "
      "is read at addr + i0*s0 + i1*s1 + i2*s2; an optional second lane (fifo_b, "
      "addr_b, sb*) is pushed in lockstep");
  std::vector<OperandDecl> st = {req("n0", K::Expr), req("fifo", K::Port), req("addr", K::Expr)};
  addStreamDims(st, "s");
  st.push_back(opt("n1", K::Expr, 1));
  st.push_back(opt("n2", K::Expr, 1));
  add(Opcode::StStream, "st.stream", bit(Unit::Store), DtypeRule::None, 0, st, 0,
      "pop n0*n1*n2 sticks from an output FIFO into the scratchpad at addr + "
      "i0*s0 + i1*s1 + i2*s2");

  auto sfu = [&](Opcode op, const char* m, std::vector<OperandDecl> ops, uint32_t types,
                 const char* summary) {
    int pos = static_cast<int>(ops.size());
    add(op, m, kCompute, DtypeRule::Required, types, std::move(ops), pos, summary);
  };
  sfu(Opcode::SfuMov, "sfu.mov", sfuUnary(), kNumeric, "dst = a, n sticks");
  sfu(Opcode::SfuNeg, "sfu.neg", sfuUnary(), kNumeric, "dst = -a");
  sfu(Opcode::SfuAbs, "sfu.abs", sfuUnary(), kNumeric, "dst = |a|");
  sfu(Opcode::SfuExp, "sfu.exp", sfuUnary(), kFloats, "dst = exp(a)");
  sfu(Opcode::SfuLog, "sfu.log", sfuUnary(), kFloats, "dst = log(a)");
  sfu(Opcode::SfuRecip, "sfu.recip", sfuUnary(), kFloats, "dst = 1 / a");
  sfu(Opcode::SfuRsqrt, "sfu.rsqrt", sfuUnary(), kFloats, "dst = 1 / sqrt(a)");
  sfu(Opcode::SfuSqrt, "sfu.sqrt", sfuUnary(), kFloats, "dst = sqrt(a)");
  sfu(Opcode::SfuSigmoid, "sfu.sigmoid", sfuUnary(), kFloats, "dst = 1 / (1 + exp(-a))");
  sfu(Opcode::SfuTanh, "sfu.tanh", sfuUnary(), kFloats, "dst = tanh(a)");
  sfu(Opcode::SfuGelu, "sfu.gelu", sfuUnary(), kFloats,
      "dst = gelu(a) = a * Phi(a) (erf form, as torch.nn.GELU)");
  sfu(Opcode::SfuSilu, "sfu.silu", sfuUnary(), kFloats, "dst = a * sigmoid(a)");
  sfu(Opcode::SfuRelu, "sfu.relu", sfuUnary(), kNumeric, "dst = max(a, 0)");
  sfu(Opcode::SfuAdd, "sfu.add", sfuBinary(), kNumeric, "dst = a + b");
  sfu(Opcode::SfuSub, "sfu.sub", sfuBinary(), kNumeric, "dst = a - b");
  sfu(Opcode::SfuMul, "sfu.mul", sfuBinary(), kNumeric, "dst = a * b");
  sfu(Opcode::SfuDiv, "sfu.div", sfuBinary(), kNumeric,
      "dst = a / b (i32: truncated toward zero; a / 0 = -1, INT_MIN / -1 = INT_MIN, as "
      "RISC-V's div)");
  sfu(Opcode::SfuMax, "sfu.max", sfuBinary(), kNumeric, "dst = max(a, b)");
  sfu(Opcode::SfuMin, "sfu.min", sfuBinary(), kNumeric, "dst = min(a, b)");
  sfu(Opcode::SfuEq, "sfu.eq", sfuBinary(), kNumeric, "dst = a == b ? 1 : 0");
  sfu(Opcode::SfuNe, "sfu.ne", sfuBinary(), kNumeric, "dst = a != b ? 1 : 0");
  sfu(Opcode::SfuLt, "sfu.lt", sfuBinary(), kNumeric, "dst = a < b ? 1 : 0");
  sfu(Opcode::SfuLe, "sfu.le", sfuBinary(), kNumeric, "dst = a <= b ? 1 : 0");
  sfu(Opcode::SfuGt, "sfu.gt", sfuBinary(), kNumeric, "dst = a > b ? 1 : 0");
  sfu(Opcode::SfuGe, "sfu.ge", sfuBinary(), kNumeric, "dst = a >= b ? 1 : 0");
  sfu(Opcode::SfuFma, "sfu.fma",
      {req("n", K::Expr), req("dst", K::Port), req("a", K::Port), req("b", K::Port),
       req("c", K::Port)},
      kNumeric, "dst = a * b + c (one rounding)");
  sfu(Opcode::SfuSelect, "sfu.select",
      {req("n", K::Expr), req("dst", K::Port), req("cond", K::Port), req("a", K::Port),
       req("b", K::Port)},
      kNumeric, "dst = cond != 0 ? a : b");
  sfu(Opcode::SfuSplat, "sfu.splat", {req("dst", K::Port), req("value", K::Float)}, kNumeric,
      "fill SFU register dst with value in every lane");
  sfu(Opcode::SfuAccAdd, "sfu.acc.add", sfuUnary(), kNumeric,
      "register dst += each of n sticks of a, lane by lane (reduce across sticks)");
  sfu(Opcode::SfuAccMax, "sfu.acc.max", sfuUnary(), kNumeric,
      "register dst = max(dst, each stick of a), lane by lane");
  sfu(Opcode::SfuAccMin, "sfu.acc.min", sfuUnary(), kNumeric,
      "register dst = min(dst, each stick of a), lane by lane");
  sfu(Opcode::SfuLaneAdd, "sfu.lane.add", sfuUnary(), kNumeric,
      "for each of n sticks: the sum of its lanes, in every lane of the result stick");
  sfu(Opcode::SfuLaneMax, "sfu.lane.max", sfuUnary(), kNumeric,
      "for each of n sticks: the max of its lanes, in every lane of the result stick");
  sfu(Opcode::SfuLaneMin, "sfu.lane.min", sfuUnary(), kNumeric,
      "for each of n sticks: the min of its lanes, in every lane of the result stick");

  add(Opcode::PtMm, "pt.mm", kCompute, DtypeRule::Required,
      dtypeBit(DType::F16) | dtypeBit(DType::BF16),
      {req("m", K::Expr), req("k", K::Expr), req("n", K::Expr), req("a", K::Port),
       req("b", K::Port), opt("dst", K::Port, kPortNone), opt("acc", K::Expr, 0),
       opt("emit", K::Expr, 1), choice("out", {"f16", "bf16", "f32"}, 0)},
      0,
      "matmul tile on the PT array: load B (k x n, row-major, ceil(n/stick) sticks "
      "per row) from FIFO b as stationary weights, stream A (m x k, ceil(k/stick) "
      "sticks per row) from FIFO a, accumulate in fp32 (acc=1 adds to the previous "
      "tile's accumulators, acc=0 starts from zero); emit=1 pushes the m x n result "
      "to dst in element type `out`, ceil(n/stick) sticks per row. k and n need not "
      "be whole sticks: A's lanes past k are ignored and the result's lanes past n "
      "are zero (the array works on whole sticks, and takes their time)");

  // Appended opcodes: their numbers follow the table above.
  add(Opcode::DmaLoadB, "dma.loadb", bit(Unit::DmaIn), DtypeRule::None, 0, dma, 0,
      "dma.load at byte granularity: runs of any positive number of bytes at any "
      "scratchpad and device address and stride (for data that is not laid out in "
      "whole sticks: short rows, element gathers); it moves, and costs, every stick "
      "each run touches in device memory; token `done` fires when the data has "
      "landed");
  add(Opcode::DmaStoreB, "dma.storeb", bit(Unit::DmaOut), DtypeRule::None, 0, dma, 0,
      "dma.store at byte granularity (operands as dma.loadb): writes exactly the "
      "bytes of each run, read-modify-writing the sticks it touches; token `done` "
      "fires when the data is in device memory");
  add(Opcode::LdScalar, "ld.scalar", kAllUnits, DtypeRule::Required, dtypeBit(DType::I32),
      {req("rd", K::Reg), req("addr", K::Expr)}, 2,
      "rd = the element of type T at scratchpad byte address addr (a multiple of the "
      "element size), sign-extended: how an engine reads an index that the "
      "kernel computed or loaded (gather and scatter addresses)");
  sfu(Opcode::SfuLaneBcast, "sfu.lane.bcast", sfuUnary(), kNumeric,
      "for each of n result sticks i: lane i mod lanes of a, in every lane (a register: "
      "one element per result stick, how a vector of per-row values is broadcast along "
      "the rows)");
  sfu(Opcode::SfuLaneMask, "sfu.lane.mask", {req("dst", K::Port), req("lanes", K::Expr)}, kNumeric,
      "register dst = 1 in the lanes below `lanes`, 0 in the others (with sfu.select: "
      "writing the lanes past a row's last element)");
  sfu(Opcode::SfuCvt, "sfu.cvt",
      {req("n", K::Expr), req("dst", K::Port), req("a", K::Port), opt("b", K::Port, kPortNone),
       choice("from", {"f16", "bf16", "f32", "i32"}, 0), opt("part", K::Expr, 0)},
      kNumeric,
      "dst = a converted from element type `from` to T, n result sticks: between types of "
      "one size lane by lane; widening (16 to 32 bits) takes lanes [part*L, part*L + L) of "
      "each stick of a, L the result's lanes (part 0 or 1); narrowing (32 to 16 bits) "
      "puts a's lanes in the first half of each result stick and b's (0 when b is none) in "
      "the second. Floats round to nearest even; a float to i32 truncates toward zero, "
      "saturates, and gives 0 for NaN; an i32 to a float rounds to nearest even");
  sfu(Opcode::SfuSplatInt, "sfu.splat.int", {req("dst", K::Port), req("value", K::Expr)}, kNumeric,
      "register dst = the integer `value` evaluates to (imm + reg + symbol), as a T, in every "
      "lane (floats round to nearest even): how a loop counter, a tile's position or an "
      "integer launch value enters the SFU");
  return t;
}

} // namespace

const progformat::OpcodeTable<OpcodeInfo>& opcodeTable() {
  static const progformat::OpcodeTable<OpcodeInfo> table(buildTable(), "spyrecode");
  return table;
}

const std::vector<OpcodeInfo>& allOpcodes() {
  return opcodeTable().all();
}

const OpcodeInfo& opcodeInfo(Opcode op) {
  return opcodeTable()[op];
}

const OpcodeInfo* findOpcode(std::string_view mnemonic) {
  return opcodeTable().find(mnemonic);
}

const char* unitName(Unit u) {
  static const char* const names[kUnitCount] = {"dma_in", "dma_out", "ring",
                                                "load",   "compute", "store"};
  return names[static_cast<int>(u)];
}

bool parseUnit(std::string_view s, Unit& out) {
  for (int i = 0; i < kUnitCount; ++i) {
    if (s == unitName(static_cast<Unit>(i))) {
      out = static_cast<Unit>(i);
      return true;
    }
  }
  return false;
}

std::string portName(int64_t port) {
  if (port == kPortNone) return "none";
  if (port >= kPortReg && port < kPortReg + 64) return "v" + std::to_string(port - kPortReg);
  if (port >= kPortOut && port < kPortOut + 16) return "out" + std::to_string(port - kPortOut);
  if (port >= kPortIn && port < kPortIn + 16) return "in" + std::to_string(port - kPortIn);
  return "port?" + std::to_string(port);
}

bool parsePort(std::string_view s, int64_t& out) {
  int64_t i = 0;
  if (s == "none") {
    out = kPortNone;
    return true;
  }
  if (progformat::parseIndexed(s, "in", 16, i)) {
    out = kPortIn + i;
    return true;
  }
  if (progformat::parseIndexed(s, "out", 16, i)) {
    out = kPortOut + i;
    return true;
  }
  if (progformat::parseIndexed(s, "v", 64, i)) {
    out = kPortReg + i;
    return true;
  }
  return false;
}

const progformat::RegisterNames& registerNames() {
  static const progformat::RegisterNames names{
      "register", 'r', kNumGeneralRegs, {"core", "corelet", "ncores"}};
  return names;
}

std::string regName(int reg) {
  return registerNames().name(reg);
}

bool parseReg(std::string_view s, int& out) {
  return registerNames().parse(s, out);
}

} // namespace chipless::spyrecode

#include "support/tpuprog/isa.h"

#include "support/dtype.h"
#include "support/error.h"
#include "support/progformat/scalar_ops.h"

namespace chipless::tpuprog {

const std::vector<std::string> kMemSpaces = {"vmem", "smem"};
const std::vector<std::string> kIotaAxes = {"lanes", "sublanes"};

const char* slotName(Slot s) {
  switch (s) {
  case Slot::Scalar:
    return "scalar";
  case Slot::VLoad:
    return "vld";
  case Slot::VStore:
    return "vst";
  case Slot::VAlu:
    return "valu";
  case Slot::Mxu:
    return "mxu";
  case Slot::Dma:
    return "dma";
  }
  return "?";
}

namespace {

using namespace progformat;

constexpr uint32_t kF32 = dtypeBit(DType::F32);
constexpr uint32_t kArith = dtypeBit(DType::F32) | dtypeBit(DType::I32);
constexpr uint32_t kMemTypes =
    dtypeBit(DType::F32) | dtypeBit(DType::BF16) | dtypeBit(DType::I32) | dtypeBit(DType::I8);

using K = OperandKind;

std::vector<OperandDecl> branch() {
  return {req("a", K::Expr), req("b", K::Expr), req("target", K::Label)};
}
std::vector<OperandDecl> vUnary() {
  return {req("vd", K::VReg), req("va", K::VReg), opt("n", K::Expr, 1)};
}
std::vector<OperandDecl> vBinary() {
  return {req("vd", K::VReg), req("va", K::VReg), req("vb", K::VReg), opt("n", K::Expr, 1)};
}
/// Rows of a vector load or store: vreg i, sublane r is the row at
/// addr + i*vstride + r*stride (defaults: rows packed one after another).
std::vector<OperandDecl> vMem(const char* reg) {
  return {req(reg, K::VReg), req("addr", K::Expr), opt("n", K::Expr, 1), opt("stride", K::Expr, -1),
          opt("vstride", K::Expr, -1)};
}

std::vector<OpcodeInfo> buildTable() {
  std::vector<OpcodeInfo> t;
  auto add = [&](Opcode op, const char* m, Slot slot, DtypeRule rule, uint32_t types,
                 std::vector<OperandDecl> ops, int pos, bool async, const char* summary) {
    t.push_back({{op, m, rule, types, std::move(ops), pos, summary}, slot, async});
  };
  auto scalar = [&](Opcode op, const char* m, std::vector<OperandDecl> ops, int pos,
                    const char* summary) {
    add(op, m, Slot::Scalar, DtypeRule::None, 0, std::move(ops), pos, false, summary);
  };
  for (size_t i = 0; i < scalarAluOps().size(); ++i) {
    const ScalarAluOp& s = scalarAluOps()[i];
    scalar(static_cast<Opcode>(static_cast<size_t>(Opcode::Li) + i), s.mnemonic, s.operands,
           s.positional, s.summary);
  }
  static_assert(static_cast<int>(Opcode::Max) - static_cast<int>(Opcode::Li) == 12);
  scalar(Opcode::Sld, "sld", {req("rd", K::Reg), req("addr", K::Expr)}, 2,
         "rd = the signed 32-bit word of SMEM at byte addr (a multiple of 4); the value is "
         "usable scalar.smem_latency_cycles later");
  scalar(Opcode::Sst, "sst", {req("addr", K::Expr), req("value", K::Expr)}, 2,
         "store the low 32 bits of value to SMEM at byte addr (a multiple of 4)");
  scalar(Opcode::Jmp, "jmp", {req("target", K::Label)}, 1, "continue at target after this bundle");
  scalar(Opcode::Beq, "beq", branch(), 3, "continue at target after this bundle if a == b");
  scalar(Opcode::Bne, "bne", branch(), 3, "continue at target after this bundle if a != b");
  scalar(Opcode::Blt, "blt", branch(), 3, "continue at target after this bundle if a < b");
  scalar(Opcode::Bge, "bge", branch(), 3, "continue at target after this bundle if a >= b");
  scalar(Opcode::Loop, "loop", {req("count", K::Expr), req("end", K::Hidden)}, 1,
         "run the bundles up to the matching endloop count times (count <= 0 skips them)");
  scalar(Opcode::EndLoop, "endloop", {req("start", K::Hidden)}, 0,
         "end of a loop body: the other operations of this bundle run every iteration");
  scalar(Opcode::Nop, "nop", {opt("cycles", K::Expr, 1)}, 1,
         "spend cycles doing nothing (the bundle itself takes one issue slot)");
  scalar(Opcode::SemSignal, "sem.signal",
         {req("sem", K::Expr), opt("count", K::Expr, 1), opt("core", K::Expr, -1)}, 1,
         "add count tokens to semaphore sem of TensorCore core of this chip (default: this "
         "core), available from the next cycle");
  scalar(Opcode::SemWait, "sem.wait", {req("sem", K::Expr), opt("count", K::Expr, 1)}, 1,
         "stall issue until semaphore sem holds count tokens, then take them; the unit "
         "resumes when the last of them became available");
  scalar(Opcode::Fence, "fence", {}, 0,
         "stall issue until every vector, MXU, DMA and ICI operation this core issued is "
         "complete");
  scalar(Opcode::Trap, "trap", {req("code", K::Expr)}, 1,
         "stop the launch with an error naming this core, the pc and `code`: a program's "
         "check of its own preconditions failed");

  add(Opcode::Vld, "vld", Slot::VLoad, DtypeRule::Required, kMemTypes, vMem("vd"), 2, true,
      "load n vector registers vd.. from VMEM: sublane r of register vd+i is the row of "
      "`lanes` elements at addr + i*vstride + r*stride (stride default lanes * element "
      "size, vstride default sublanes * stride; stride 0 broadcasts one row). bf16 "
      "widens to f32, i8 sign-extends to i32");
  add(Opcode::Vst, "vst", Slot::VStore, DtypeRule::Required, kMemTypes, vMem("vs"), 2, true,
      "store n vector registers vs.. to VMEM, rows as for vld. f32 rounds to bf16 "
      "(nearest even), i32 saturates to i8");

  auto valu = [&](Opcode op, const char* m, std::vector<OperandDecl> ops, uint32_t types,
                  const char* summary) {
    int pos = 0;
    for (const auto& o : ops) pos += o.optional ? 0 : 1;
    add(op, m, Slot::VAlu, DtypeRule::Required, types, std::move(ops), pos, true, summary);
  };
  valu(Opcode::VMov, "vmov", vUnary(), kArith, "vd+i = va+i for i < n");
  valu(Opcode::VNeg, "vneg", vUnary(), kArith, "vd+i = -(va+i)");
  valu(Opcode::VAbs, "vabs", vUnary(), kArith, "vd+i = |va+i|");
  valu(Opcode::VRelu, "vrelu", vUnary(), kArith, "vd+i = max(va+i, 0)");
  valu(Opcode::VExp, "vexp", vUnary(), kF32, "vd+i = exp(va+i) (transcendental)");
  valu(Opcode::VLog, "vlog", vUnary(), kF32, "vd+i = log(va+i) (transcendental)");
  valu(Opcode::VRcp, "vrcp", vUnary(), kF32, "vd+i = 1 / (va+i) (transcendental)");
  valu(Opcode::VRsqrt, "vrsqrt", vUnary(), kF32, "vd+i = 1 / sqrt(va+i) (transcendental)");
  valu(Opcode::VSqrt, "vsqrt", vUnary(), kF32, "vd+i = sqrt(va+i) (transcendental)");
  valu(Opcode::VTanh, "vtanh", vUnary(), kF32, "vd+i = tanh(va+i) (transcendental)");
  valu(Opcode::VAdd, "vadd", vBinary(), kArith, "vd+i = (va+i) + (vb+i)");
  valu(Opcode::VSub, "vsub", vBinary(), kArith, "vd+i = (va+i) - (vb+i)");
  valu(Opcode::VMul, "vmul", vBinary(), kArith, "vd+i = (va+i) * (vb+i) (i32: wraps)");
  valu(Opcode::VDiv, "vdiv", vBinary(), kF32, "vd+i = (va+i) / (vb+i) (transcendental)");
  valu(Opcode::VMax, "vmax", vBinary(), kArith, "vd+i = max(va+i, vb+i)");
  valu(Opcode::VMin, "vmin", vBinary(), kArith, "vd+i = min(va+i, vb+i)");
  valu(Opcode::VCmpEq, "vcmp.eq", vBinary(), kArith, "vd+i = (va+i == vb+i) ? 1 : 0");
  valu(Opcode::VCmpLt, "vcmp.lt", vBinary(), kArith, "vd+i = (va+i < vb+i) ? 1 : 0");
  valu(Opcode::VCmpLe, "vcmp.le", vBinary(), kArith, "vd+i = (va+i <= vb+i) ? 1 : 0");
  valu(Opcode::VSel, "vsel",
       {req("vd", K::VReg), req("vc", K::VReg), req("va", K::VReg), req("vb", K::VReg),
        opt("n", K::Expr, 1)},
       kArith, "vd+i = (vc+i != 0) ? va+i : vb+i");
  valu(Opcode::VSplat, "vsplat", {req("vd", K::VReg), req("value", K::Float), opt("n", K::Expr, 1)},
       kArith, "fill vd.. (n registers) with a constant (i32: truncated toward zero)");
  valu(Opcode::VBcast, "vbcast", {req("vd", K::VReg), req("value", K::Expr), opt("n", K::Expr, 1)},
       kArith, "fill vd.. (n registers) with a scalar value (f32: converted from the integer)");
  valu(Opcode::VSumLanes, "vsum.lanes", vUnary(), kArith,
       "for each sublane of va+i: the sum of its lanes, in every lane of vd+i");
  valu(Opcode::VMaxLanes, "vmax.lanes", vUnary(), kArith,
       "for each sublane of va+i: the max of its lanes, in every lane of vd+i");
  valu(Opcode::VSumSublanes, "vsum.sublanes", vUnary(), kArith,
       "for each lane of va+i: the sum over its sublanes, in every sublane of vd+i");
  valu(Opcode::VMaxSublanes, "vmax.sublanes", vUnary(), kArith,
       "for each lane of va+i: the max over its sublanes, in every sublane of vd+i");

  const std::vector<OperandDecl> fold = {req("mxu", K::Expr),
                                         req("lhs", K::Expr),
                                         req("rows", K::Expr),
                                         req("k", K::Expr),
                                         opt("lhs_stride", K::Expr, -1),
                                         req("rhs", K::Expr),
                                         req("n", K::Expr),
                                         opt("rhs_stride", K::Expr, -1),
                                         req("out", K::Expr),
                                         opt("out_stride", K::Expr, -1),
                                         opt("acc", K::Expr, 0),
                                         opt("sem", K::Expr, -1)};
  const uint32_t foldTypes = dtypeBit(DType::BF16) | dtypeBit(DType::F32) | dtypeBit(DType::I8);
  add(Opcode::MxuMatmul, "mxu.matmul", Slot::Mxu, DtypeRule::Required, foldTypes, fold, 0, true,
      "one fold on MXU mxu: load the k x n weights (k <= mxu.rows, n <= mxu.cols; row i at "
      "VMEM rhs + i*rhs_stride) into the array, stream rows activation rows of k elements "
      "(row r at lhs + r*lhs_stride) through it and write the rows x n results as f32 (i32 "
      "for i8) to out + r*out_stride, adding to what is there when acc != 0. Strides default "
      "to packed rows. Signals semaphore sem when the last result is written");

  std::vector<OperandDecl> dma = {req("dst", K::Expr),
                                  req("src", K::Expr),
                                  req("bytes", K::Expr),
                                  opt("rows", K::Expr, 1),
                                  opt("src_stride", K::Expr, -1),
                                  opt("dst_stride", K::Expr, -1),
                                  opt("sem", K::Expr, -1),
                                  choice("mem", kMemSpaces, 0)};
  add(Opcode::DmaIn, "dma.in", Slot::Dma, DtypeRule::None, 0, dma, 0, true,
      "copy HBM to VMEM (or SMEM with mem=smem): rows runs of bytes, run j from HBM src + "
      "j*src_stride to dst + j*dst_stride (strides default to bytes); semaphore sem "
      "gets a token when the data has landed");
  add(Opcode::DmaOut, "dma.out", Slot::Dma, DtypeRule::None, 0, dma, 0, true,
      "copy VMEM (or SMEM with mem=smem) to HBM, operands as dma.in with dst in HBM; "
      "semaphore sem gets a token when the data is in HBM");
  add(Opcode::IciSend, "ici.send", Slot::Dma, DtypeRule::None, 0,
      {req("chip", K::Expr), req("dst", K::Expr), req("src", K::Expr), req("bytes", K::Expr),
       opt("sem", K::Expr, -1), opt("done", K::Expr, -1)},
      0, true,
      "copy bytes from this chip's HBM at src to chip `chip`'s HBM at dst over the ICI "
      "links on the way; semaphore sem of the same TensorCore index on the destination "
      "chip gets a token on arrival, semaphore done here once src has been read");
  uint32_t reduceTypes = dtypeBit(DType::F32) | dtypeBit(DType::BF16) | dtypeBit(DType::I32);
  std::vector<OperandDecl> coll = {req("src", K::Expr), req("dst", K::Expr), req("bytes", K::Expr),
                                   opt("sem", K::Expr, -1)};
  add(Opcode::IciAllReduce, "ici.allreduce", Slot::Dma, DtypeRule::Required, reduceTypes, coll, 0,
      true,
      "every chip: dst (bytes) = the element-wise sum over all chips of src (bytes), "
      "by the ring algorithm (reduce-scatter, then all-gather) over the ICI links; "
      "every chip must issue it; semaphore sem gets a token when this chip's dst is "
      "complete");
  add(Opcode::IciAllGather, "ici.allgather", Slot::Dma, DtypeRule::None, 0, coll, 0, true,
      "every chip: dst (nchips x bytes) = the src (bytes) of chip 0, 1, ... in order, "
      "by the ring algorithm; semaphore sem as for ici.allreduce");
  add(Opcode::IciReduceScatter, "ici.reducescatter", Slot::Dma, DtypeRule::Required, reduceTypes,
      coll, 0, true,
      "every chip c: dst (bytes) = the element-wise sum over all chips of block c of "
      "src (nchips blocks of bytes), by the ring algorithm; semaphore sem as for "
      "ici.allreduce");

  // Opcodes added after the first release of the table (appended, so the numbers above stay).
  add(Opcode::MxuMatmulNT, "mxu.matmul.nt", Slot::Mxu, DtypeRule::Required, foldTypes, fold, 0,
      true,
      "one fold as mxu.matmul, with the weights loaded transposed: the rhs block holds n "
      "rows of k elements (row j at VMEM rhs + j*rhs_stride) and weight (i, j) is "
      "element i of row j, so the fold computes lhs x rhs^T. Used for A x B^T without "
      "transposing B in memory (attention scores Q K^T)");
  valu(Opcode::VIota, "viota",
       {req("vd", K::VReg), {"axis", K::Enum, false, 0, kIotaAxes}, opt("n", K::Expr, 1)}, kArith,
       "vd+i: every element holds its lane index 0..lanes-1 (axis=lanes) or its row index "
       "i*sublanes "
       "+ r (axis=sublanes); f32 holds the index as a float. For masks and index arithmetic");
  valu(Opcode::VCvt, "vcvt", vUnary(), kArith,
       "vd+i = va+i converted to the suffix type: f32 from i32 (rounded to nearest even), i32 "
       "from f32 (truncated toward zero, saturated to the i32 range, NaN gives 0)");
  return t;
}

} // namespace

const progformat::OpcodeTable<OpcodeInfo>& opcodeTable() {
  static const progformat::OpcodeTable<OpcodeInfo> table(buildTable(), "tpuprog");
  return table;
}

const OpcodeInfo& opcodeInfo(Opcode op) {
  return opcodeTable()[op];
}

const std::vector<OpcodeInfo>& allOpcodes() {
  return opcodeTable().all();
}

const OpcodeInfo* findOpcode(std::string_view mnemonic) {
  return opcodeTable().find(mnemonic);
}

bool isControl(Opcode op) {
  return op == Opcode::Jmp || op == Opcode::Beq || op == Opcode::Bne || op == Opcode::Blt ||
         op == Opcode::Bge || op == Opcode::Loop || op == Opcode::EndLoop;
}

const progformat::RegisterNames& registerNames() {
  static const progformat::RegisterNames names{
      "scalar register", 's', kMaxGeneralRegs, {"core", "ncores", "chip", "nchips", "nmxu"}};
  return names;
}

std::string regName(int reg) {
  return registerNames().name(reg);
}

bool parseReg(std::string_view s, int& out) {
  return registerNames().parse(s, out);
}

std::string vregName(int64_t v) {
  return "v" + std::to_string(v);
}

bool parseVReg(std::string_view s, int64_t& out) {
  return progformat::parseIndexed(s, "v", kMaxVRegs, out);
}

} // namespace chipless::tpuprog

#pragma once
/// The SpyreCode instruction set: one table that the assembler, the disassembler, the
/// binary reader and the simulator all read, so the four cannot disagree.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chipless::spyrecode {

/// The engines that run programs. DmaIn, DmaOut and Ring exist once per core; Load,
/// Compute and Store once per corelet.
enum class Unit : uint8_t { DmaIn = 0, DmaOut = 1, Ring = 2, Load = 3, Compute = 4, Store = 5 };
constexpr int kUnitCount = 6;

/// Assembly name of a unit: "dma_in", "dma_out", "ring", "load", "compute", "store".
const char* unitName(Unit u);
/// Parses a unit name; returns false if unknown.
bool parseUnit(std::string_view s, Unit& out);
/// True for units that exist once per corelet.
inline bool isCoreletUnit(Unit u) {
  return u == Unit::Load || u == Unit::Compute || u == Unit::Store;
}

/// Every instruction. Grouped by engine; scalar, control and token ops run on every engine.
enum class Opcode : uint16_t {
  // scalar ALU and control (every engine)
  Li,
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Shl,
  Shr,
  And,
  Or,
  Xor,
  Min,
  Max,
  Jmp,
  Beq,
  Bne,
  Blt,
  Bge,
  Loop,
  EndLoop,
  Nop,
  // synchronisation (every engine)
  TSend,
  TWait,
  // DMA engines
  DmaLoad,
  DmaStore,
  // ring engine
  RingSend,
  // load and store units
  LdStream,
  StStream,
  // compute unit: SFU elementwise
  SfuMov,
  SfuNeg,
  SfuAbs,
  SfuExp,
  SfuLog,
  SfuRecip,
  SfuRsqrt,
  SfuSqrt,
  SfuSigmoid,
  SfuTanh,
  SfuGelu,
  SfuSilu,
  SfuRelu,
  SfuAdd,
  SfuSub,
  SfuMul,
  SfuDiv,
  SfuMax,
  SfuMin,
  SfuEq,
  SfuNe,
  SfuLt,
  SfuLe,
  SfuGt,
  SfuGe,
  SfuFma,
  SfuSelect,
  SfuSplat,
  // compute unit: SFU reductions across sticks (into a register) and within a stick
  SfuAccAdd,
  SfuAccMax,
  SfuAccMin,
  SfuLaneAdd,
  SfuLaneMax,
  SfuLaneMin,
  // compute unit: PT array
  PtMm,
  // appended later (numbers of the opcodes above stay fixed)
  DmaLoadB,  ///< dma.loadb: byte-granular dma.load (any size, alignment and stride)
  DmaStoreB, ///< dma.storeb: byte-granular dma.store
  LdScalar,  ///< ld.scalar: read one scratchpad element into a register (every engine)
  Count
};

/// How an operand is written in assembly and what its 64-bit value means.
enum class OperandKind : uint8_t {
  Reg,   ///< destination register r0..r15
  Expr,  ///< integer: sum of a register, a symbol (@name, bound at launch) and a constant
  Port,  ///< compute operand: in0.., out0.., v0.. (SFU register) or none
  Label, ///< branch target; the value is a program counter
  Float, ///< floating-point immediate (stored as IEEE double bits)
  Enum,  ///< one of a fixed list of words; the value is its index
  Hidden ///< filled in by the assembler (loop pairing); never written in assembly
};

/// One operand of an opcode: its keyword name, kind and default (if it may be omitted).
struct OperandDecl {
  const char* name;
  OperandKind kind;
  bool optional;
  int64_t defaultValue;
  std::vector<std::string> choices; ///< words of an Enum operand
};

/// Whether the mnemonic carries an element-type suffix such as ".f16".
enum class DtypeRule : uint8_t { None, Required, Optional };

/// Static description of one opcode.
struct OpcodeInfo {
  Opcode op;
  const char* mnemonic;
  uint32_t unitMask; ///< bit (1 << Unit) for each engine that may run it
  DtypeRule dtype;
  uint32_t dtypeMask; ///< bit (1 << DType) for each allowed element type
  std::vector<OperandDecl> operands;
  int positional; ///< how many leading operands the disassembler prints without "name="
  const char* summary;
};

/// The table entry for an opcode.
const OpcodeInfo& opcodeInfo(Opcode op);
/// Looks up a mnemonic (without dtype suffix); nullptr if unknown.
const OpcodeInfo* findOpcode(std::string_view mnemonic);
/// All opcodes in table order (for docs and tests).
const std::vector<OpcodeInfo>& allOpcodes();

/// Port encodings used by Port operands.
constexpr int64_t kPortNone = 0;
constexpr int64_t kPortIn = 0x10;  ///< in0 = 0x10, in1 = 0x11, ...
constexpr int64_t kPortOut = 0x20; ///< out0 = 0x20, ...
constexpr int64_t kPortReg = 0x40; ///< v0 = 0x40, ... v63
/// Formats a port value as "in0", "out1", "v3" or "none".
std::string portName(int64_t port);
/// Parses a port name; returns false if malformed.
bool parsePort(std::string_view s, int64_t& out);

/// Register numbers: r0..r15 are general purpose; these are read-only.
constexpr int kNumGeneralRegs = 16;
constexpr int kRegCore = 16;    ///< index of the core running the program
constexpr int kRegCorelet = 17; ///< index of the corelet (0 on per-core engines)
constexpr int kRegNumCores = 18;
constexpr int kNumRegs = 19;
/// Formats a register number ("r3", "core", "corelet", "ncores").
std::string regName(int reg);
/// Parses a register name; returns false if it is not one.
bool parseReg(std::string_view s, int& out);

/// Enum operand word lists.
extern const std::vector<std::string> kRingDirections; ///< short, cw, ccw
extern const std::vector<std::string> kRingOps;        ///< none, add, max, min

} // namespace chipless::spyrecode

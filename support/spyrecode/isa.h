#pragma once
/// The SpyreCode instruction set: one table that the assembler, the disassembler, the
/// binary reader and the simulator all read, so the four cannot disagree. It is written in
/// the terms both chips share (support/progformat/operand.h); what is SpyreCode's own are
/// the units, the opcodes, the ports and the register names.
#include "support/progformat/isa_table.h"
#include "support/progformat/operand.h"
#include "support/progformat/registers.h"
#include "support/progformat/scalar_ops.h"

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
  // scalar ALU and control (every engine): li .. max, jmp .. nop
  CHIPLESS_SCALAR_ALU_OPCODES,
  CHIPLESS_CONTROL_OPCODES,
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
  DmaLoadB,     ///< dma.loadb: byte-granular dma.load (any size, alignment and stride)
  DmaStoreB,    ///< dma.storeb: byte-granular dma.store
  LdScalar,     ///< ld.scalar: read one scratchpad element into a register (every engine)
  SfuLaneBcast, ///< sfu.lane.bcast: lane i of a stick, in every lane of result stick i
  SfuLaneMask,  ///< sfu.lane.mask: a register of 1 in the first lanes, 0 in the others
  SfuCvt,       ///< sfu.cvt: sticks of another element type converted (widened, narrowed)
  SfuSplatInt,  ///< sfu.splat.int: the integer an expression evaluates to, in every lane
  Count
};

/// How operands and element-type suffixes are declared, as both tables do.
using progformat::DtypeRule;
using progformat::OperandDecl;
using progformat::OperandKind;

/// Static description of one opcode: the entry both chips have (mnemonic, element types,
/// operands, summary) and the engines that may run it.
struct OpcodeInfo : progformat::OpcodeEntry<Opcode> {
  uint32_t unitMask; ///< bit (1 << Unit) for each engine that may run it
};

/// The opcode table.
const progformat::OpcodeTable<OpcodeInfo>& opcodeTable();
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
/// The register names: r0..r15, then core, corelet, ncores.
const progformat::RegisterNames& registerNames();
/// Formats a register number ("r3", "core", "corelet", "ncores").
std::string regName(int reg);
/// Parses a register name; returns false if it is not one.
bool parseReg(std::string_view s, int& out);

/// Enum operand word lists.
extern const std::vector<std::string> kRingDirections; ///< short, cw, ccw
extern const std::vector<std::string> kRingOps;        ///< none, add, max, min

} // namespace chipless::spyrecode

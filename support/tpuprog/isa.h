#pragma once
/// The TensorCore instruction set of the TPU program format: one table that the assembler,
/// the disassembler, the binary reader, the ISA reference and the simulator all read, so
/// none of them can disagree. See docs/tpu-program.md.
///
/// A TensorCore program is a sequence of VLIW bundles issued by the scalar unit. Each
/// bundle holds at most one operation per slot (scalar.slots scalar operations). Operations
/// are coarse: a whole fold on an MXU, a whole vector op over a range of registers, a whole
/// (strided) DMA, a whole collective; asynchronous units report completion on semaphores.
/// The table is written in the terms both chips share (support/progformat/operand.h); what
/// is the TPU's own are the slots, the opcodes and the scalar and vector register names.
#include "support/progformat/isa_table.h"
#include "support/progformat/operand.h"
#include "support/progformat/registers.h"
#include "support/progformat/scalar_ops.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chipless::tpuprog {

/// The slots of a bundle, one per issuing unit.
enum class Slot : uint8_t { Scalar = 0, VLoad = 1, VStore = 2, VAlu = 3, Mxu = 4, Dma = 5 };
constexpr int kSlotCount = 6;
/// Most scalar operations one bundle may carry (the architecture may allow fewer).
constexpr int kMaxScalarSlots = 8;
/// Most operations in one bundle.
constexpr int kMaxOpsPerBundle = kMaxScalarSlots + kSlotCount - 1;

/// Slot name as written in docs and errors: "scalar", "vld", "vst", "valu", "mxu", "dma".
const char* slotName(Slot s);

/// Every operation, grouped by slot.
enum class Opcode : uint16_t {
  // scalar slot: ALU, li .. max
  CHIPLESS_SCALAR_ALU_OPCODES,
  // scalar slot: SMEM
  Sld,
  Sst,
  // scalar slot: control, jmp .. nop
  CHIPLESS_CONTROL_OPCODES,
  // scalar slot: synchronisation
  SemSignal,
  SemWait,
  Fence,
  Trap,
  // vector load / store slots
  Vld,
  Vst,
  // vector ALU slot: unary
  VMov,
  VNeg,
  VAbs,
  VRelu,
  VExp,
  VLog,
  VRcp,
  VRsqrt,
  VSqrt,
  VTanh,
  // vector ALU slot: binary
  VAdd,
  VSub,
  VMul,
  VDiv,
  VMax,
  VMin,
  VCmpEq,
  VCmpLt,
  VCmpLe,
  VSel,
  // vector ALU slot: fill and reductions
  VSplat,
  VBcast,
  VSumLanes,
  VMaxLanes,
  VSumSublanes,
  VMaxSublanes,
  // MXU slot
  MxuMatmul,
  // DMA slot: local DMA and ICI
  DmaIn,
  DmaOut,
  IciSend,
  IciAllReduce,
  IciAllGather,
  IciReduceScatter,
  // Added after the first release of the table, so earlier opcode numbers stay the same:
  // MXU slot
  MxuMatmulNT, ///< a fold whose weights are read transposed (rhs holds n rows of k)
  // vector ALU slot
  VIota, ///< lane or row indices
  VCvt,  ///< f32 <-> i32 conversion
  Count
};

/// How operands and element-type suffixes are declared, as both tables do.
using progformat::DtypeRule;
using progformat::OperandDecl;
using progformat::OperandKind;

/// Static description of one opcode: the entry both chips have (mnemonic, element types,
/// operands, summary), the slot that issues it and whether it completes asynchronously.
struct OpcodeInfo : progformat::OpcodeEntry<Opcode> {
  Slot slot;
  bool async; ///< runs on its unit after issue; completion on a semaphore or the scoreboard
};

/// The opcode table.
const progformat::OpcodeTable<OpcodeInfo>& opcodeTable();
/// The table entry for an opcode.
const OpcodeInfo& opcodeInfo(Opcode op);
/// Looks up a mnemonic (without element-type suffix); nullptr if unknown.
const OpcodeInfo* findOpcode(std::string_view mnemonic);
/// All opcodes in table order (for docs and tests).
const std::vector<OpcodeInfo>& allOpcodes();
/// Whether an opcode changes control flow (jmp, branches, loop, endloop).
bool isControl(Opcode op);

/// Scalar register numbers: s0..s63 are general purpose (the architecture has
/// scalar.registers of them); these are read-only.
constexpr int kMaxGeneralRegs = 64;
constexpr int kRegCore = 64;   ///< index of the TensorCore in its chip
constexpr int kRegNCores = 65; ///< TensorCores per chip
constexpr int kRegChip = 66;   ///< index of the chip
constexpr int kRegNChips = 67; ///< chips in the system
constexpr int kRegNMxu = 68;   ///< MXUs per TensorCore
constexpr int kNumRegs = 69;
/// The scalar register names: s0..s63, then core, ncores, chip, nchips, nmxu.
const progformat::RegisterNames& registerNames();
/// Formats a register number ("s3", "core", "nchips").
std::string regName(int reg);
/// Parses a register name; returns false if it is not one.
bool parseReg(std::string_view s, int& out);

/// Vector registers v0..v255 are accepted by the format; the architecture has
/// vpu.registers of them.
constexpr int kMaxVRegs = 256;
/// Formats a vector register ("v7").
std::string vregName(int64_t v);
/// Parses "v7"; returns false if malformed.
bool parseVReg(std::string_view s, int64_t& out);

/// Enum operand word lists.
extern const std::vector<std::string> kMemSpaces; ///< vmem, smem
extern const std::vector<std::string> kIotaAxes;  ///< lanes, sublanes

} // namespace chipless::tpuprog

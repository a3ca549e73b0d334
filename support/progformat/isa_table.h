#pragma once
/// The per-chip interface of the shared toolchain: a chip's opcode table, and the traits
/// struct through which the one assembler (asm_core.h), disassembler (disasm_core.h),
/// binary codec (binary_codec.h), plan reader (plan_json.h), program directory
/// (job_directory.h) and ISA reference (isa_reference.h) read what differs per chip.
///
/// A chip provides one `Traits` struct (support/spyrecode/traits.h, support/tpuprog/traits.h)
/// with these members:
///
/// The ISA table (most chips take these from IsaTraits, chip_traits.h)
///   Opcode, OpcodeInfo (derives from OpcodeEntry<Opcode>), Op (= progformat::Op<Opcode>)
///   table()                     the chip's OpcodeTable<OpcodeInfo>
///   registers()                 the chip's RegisterNames
///   kElementTypes               dtypeBit mask of the element types tensors and suffixes use
///   kDefaultDtype               what an omitted Optional suffix stands for
///   kOpNoun                     "instruction" / "operation": one op of a line, in errors
///   kStepNoun, kPcNoun          a program's unit of issue, counted ("instruction" / "bundle")
///                               and as a position ("pc" / "bundle")
///   kDimLetters                 dimension symbols ARG.<letter>K: "d" or "dp"
///   parseValue, formatValue     the chip-only operand kinds (Port, VReg) in assembly
///   validValue, expectedText    which values they take, and how errors describe them
/// The program shape
///   kBundles                    false: a step is one op (SpyreCode's instruction stream);
///                               true: a step is a bundle of ops written `op | op`
///   Program, Step, JobBinary, JobPlan, TensorArg, Job, AssembleOptions
///   steps(Program&), ops(Step&) a program's steps, and a step's ops as an OpSpan
///   makeStep(ops)               the step holding ops parsed from one line
///   placementError, stepError   where an op may run (units), what a step may hold (slots)
/// Each core header names the further hooks it reads (program headers, argument options,
/// plan fields, magic strings); the ISA reference takes the chip's own words as arguments.
#include "support/error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace chipless::progformat {

/// The shared assembler (asm_core.h), which a chip's assembly hooks receive.
template <typename Chip>
class Assembler;

/// The last index of a core or chip range meaning "through the last one of the system"
/// (assembly: cores=all, chips=all).
constexpr int32_t kThroughLast = 0x7FFFFFFF;

/// A range as assembly writes it: "all" (0 through the last), "3" or "0-15".
std::string formatRange(int32_t first, int32_t last);

/// A chip's opcode table: one entry per opcode, indexed by opcode number, with a mnemonic
/// index. Building it checks that the entries are complete and in opcode order, so the
/// numbers in binaries are the table's order.
template <typename Info>
class OpcodeTable {
public:
  /// The chip's Opcode enum (ending in Count).
  using Opcode = decltype(Info::op);

  /// `chip` names the table in the error thrown when it is out of order or incomplete.
  OpcodeTable(std::vector<Info> entries, const char* chip) : entries_(std::move(entries)) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (static_cast<size_t>(entries_[i].op) != i)
        throw Error(std::string(chip) + ": opcode table out of order");
    if (entries_.size() != static_cast<size_t>(Opcode::Count))
      throw Error(std::string(chip) + ": opcode table incomplete");
    for (const Info& info : entries_) byName_[info.mnemonic] = &info;
  }
  OpcodeTable(const OpcodeTable&) = delete;
  OpcodeTable& operator=(const OpcodeTable&) = delete;

  /// The entry of `op`.
  const Info& operator[](Opcode op) const { return entries_[static_cast<size_t>(op)]; }
  /// The entry of a mnemonic (without element-type suffix); nullptr if unknown.
  const Info* find(std::string_view mnemonic) const {
    auto it = byName_.find(mnemonic);
    return it == byName_.end() ? nullptr : it->second;
  }
  /// Every entry in opcode order.
  const std::vector<Info>& all() const { return entries_; }

private:
  std::vector<Info> entries_;
  std::unordered_map<std::string_view, const Info*> byName_;
};

/// The ops of one step, as a range: a SpyreCode instruction is a step of one op, a TPU
/// bundle a step of its ops.
template <typename Op>
struct OpSpan {
  Op* first;    ///< the first op
  size_t count; ///< how many
  /// The range, for range-for.
  Op* begin() const { return first; }
  /// The range, for range-for.
  Op* end() const { return first + count; }
  /// How many ops the step holds.
  size_t size() const { return count; }
  /// Op `i` of the step.
  Op& operator[](size_t i) const { return first[i]; }
};

} // namespace chipless::progformat

#pragma once
/// Register names as a chip's table declares them: `general` registers written as a letter
/// and an index (SpyreCode r0..r15, TPU s0..s63), then read-only registers by name (core,
/// ncores, ...) numbered from `general` on. The assembler, the disassembler, the binary
/// reader and the ISA reference all name registers through this one description.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chipless::progformat {

/// Parses `prefix` followed by a decimal index below `limit` ("in3", "v7"): digits only,
/// no leading zero, so every index has one spelling (the one the disassembler writes).
bool parseIndexed(std::string_view s, std::string_view prefix, int64_t limit, int64_t& out);

/// A chip's scalar register file as assembly names it.
struct RegisterNames {
  const char* noun;                 ///< "register" / "scalar register", as errors say it
  char letter;                      ///< 'r' / 's': general registers are letter + index
  int general;                      ///< how many general registers there are
  std::vector<const char*> special; ///< names of the read-only registers general, general+1, ...

  /// Registers in all: general and read-only.
  int count() const { return general + static_cast<int>(special.size()); }
  /// "r3", "core"; letter + "?" for a number outside the file.
  std::string name(int reg) const;
  /// Parses a register name; false if it is none.
  bool parse(std::string_view s, int& out) const;
  /// "a register r0..r15": what a Reg operand must name, for errors.
  std::string generalText() const;
};

} // namespace chipless::progformat

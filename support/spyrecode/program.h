#pragma once
/// In-memory form of a SpyreCode job: the core programs (job binary) and the plan.
#include "support/dtype.h"
#include "support/scalar_arg.h"
#include "support/spyrecode/isa.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace chipless::spyrecode {

/// An operand value: constant + register + symbol. Registers are read when the
/// instruction runs; symbols (tensor addresses, dimension sizes, scalars) are bound by the
/// runtime at launch, so one binary serves many launches.
struct Operand {
  int64_t imm = 0;
  int8_t reg = -1;  ///< register number, or -1
  int32_t sym = -1; ///< index into JobBinary::symbols, or -1
  bool operator==(const Operand& o) const { return imm == o.imm && reg == o.reg && sym == o.sym; }
};

/// One instruction: opcode, element type (when the opcode takes one) and one operand per
/// declared operand of the opcode, in table order.
struct Instruction {
  Opcode op = Opcode::Nop;
  std::optional<DType> dtype;
  std::vector<Operand> operands;
  bool operator==(const Instruction& o) const {
    return op == o.op && dtype == o.dtype && operands == o.operands;
  }
};

/// coreLast value meaning "through the last core of the chip" (assembly: cores=all).
constexpr int32_t kAllCores = 0x7FFFFFFF;

/// A program and the engines that run it: unit `unit` on every core in [coreFirst,
/// coreLast], on corelet `corelet` (or on all corelets when -1; per-core units use -1).
struct Program {
  Unit unit = Unit::DmaIn;
  int32_t corelet = -1;
  int32_t coreFirst = 0;
  int32_t coreLast = 0;
  std::vector<Instruction> code;
  bool operator==(const Program& o) const {
    return unit == o.unit && corelet == o.corelet && coreFirst == o.coreFirst &&
           coreLast == o.coreLast && code == o.code;
  }
};

/// The job binary (init.bin): every program of the job and the symbol names its operands
/// refer to.
struct JobBinary {
  std::vector<std::string> symbols;
  std::vector<Program> programs;
  bool operator==(const JobBinary& o) const {
    return symbols == o.symbols && programs == o.programs;
  }
};

/// A tensor dimension: a fixed size, or the name of a scalar bound at launch.
using Dim = std::variant<int64_t, std::string>;

/// Whether a tensor argument is read, written or both by the job.
enum class ArgRole : uint8_t { Input, Output, InOut };
const char* argRoleName(ArgRole r);

/// How a tensor argument lies in device memory.
enum class Layout : uint8_t {
  Stick,   ///< the last dimension padded to whole sticks and split off as the outermost
  RowMajor ///< the host bytes as they are (row-major), the allocation padded to a whole stick
};
/// "stick" or "row_major".
const char* layoutName(Layout l);
/// Parses a layout name; returns false if unknown.
bool parseLayout(std::string_view s, Layout& out);

/// A tensor argument of the job. On the device it is stored in its layout: by default the
/// stick layout, the last dimension padded to whole sticks and split off as the outermost
/// dimension; or row-major (KTIR kernels address global memory element by element).
struct TensorArg {
  std::string name;
  ArgRole role = ArgRole::Input;
  DType dtype = DType::F16;
  std::vector<Dim> shape;
  Layout layout = Layout::Stick;
  bool operator==(const TensorArg& o) const {
    return name == o.name && role == o.role && dtype == o.dtype && shape == o.shape &&
           layout == o.layout;
  }
};

/// A scalar argument, bound at launch (spyre-sim run --scalar NAME=VALUE) or inferred from
/// a tensor shape that names it, with the values the program accepts.
using chipless::ScalarArg;

/// Device memory the job keeps between launches (program and intermediates), allocated
/// at preparation in the SpyreCode segment.
struct Buffer {
  std::string name;
  int64_t size = 0;
  bool operator==(const Buffer& o) const { return name == o.name && size == o.size; }
};

} // namespace chipless::spyrecode

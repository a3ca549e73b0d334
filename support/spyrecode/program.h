#pragma once
/// In-memory form of a SpyreCode job: the core programs (job binary) and what the plan says
/// of its tensors. The shape of a SpyreCode program: one program per engine (unit, corelet,
/// core range), holding a stream of instructions. Operands, operations and the plan's
/// commands are the ones both formats share (support/progformat/).
#include "support/dtype.h"
#include "support/progformat/isa_table.h"
#include "support/progformat/job.h"
#include "support/progformat/operand.h"
#include "support/progformat/plan.h"
#include "support/scalar_arg.h"
#include "support/spyrecode/isa.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chipless::spyrecode {

/// The operand and plan vocabulary both formats share (support/progformat/).
using progformat::ArgRole;
using progformat::argRoleName;
using progformat::Buffer;
using progformat::Dim;
using progformat::Operand;

/// One instruction: opcode, element type (when the opcode takes one) and one operand per
/// declared operand of the opcode, in table order.
using Instruction = progformat::Op<Opcode>;

/// coreLast value meaning "through the last core of the chip" (assembly: cores=all).
constexpr int32_t kAllCores = progformat::kThroughLast;

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
using JobBinary = progformat::JobBinary<Program>;

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
  /// Stick layout only: rows of device memory per stick column, at least the tensor's rows
  /// (0: exactly its rows). Padding that moves each stick column to another DRAM channel.
  int64_t paddedRows = 0;
  bool operator==(const TensorArg& o) const {
    return name == o.name && role == o.role && dtype == o.dtype && shape == o.shape &&
           layout == o.layout && paddedRows == o.paddedRows;
  }
};

/// A scalar argument, bound at launch (spyre-sim run --scalar NAME=VALUE) or inferred from
/// a tensor shape that names it, with the values the program accepts.
using chipless::ScalarArg;

} // namespace chipless::spyrecode

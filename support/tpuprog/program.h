#pragma once
/// In-memory form of a TPU program: the TensorCore programs (program.bin) and the plan
/// (job.plan). The plan concepts are SpyreCode's (support/spyrecode/plan.h): arguments bound
/// at launch through symbols, buffers kept between launches, a preparation plan run once and
/// an execution plan run per launch.
#include "support/dtype.h"
#include "support/spyrecode/plan.h"
#include "support/tpuprog/isa.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace chipless::tpuprog {

/// An operand value: constant + scalar register + symbol. Registers are read when the
/// operation issues; symbols (tensor addresses, dimensions, scalars, buffers) are bound by
/// the runtime at launch, so one binary serves many launches.
struct Operand {
  int64_t imm = 0;
  int8_t reg = -1;  ///< scalar register number (isa.h), or -1
  int32_t sym = -1; ///< index into JobBinary::symbols, or -1
  bool operator==(const Operand& o) const { return imm == o.imm && reg == o.reg && sym == o.sym; }
};

/// One operation of a bundle: opcode, element type (when the opcode takes one) and one
/// operand per declared operand of the opcode, in table order.
struct Op {
  Opcode op = Opcode::Nop;
  std::optional<DType> dtype;
  std::vector<Operand> operands;
  bool operator==(const Op& o) const {
    return op == o.op && dtype == o.dtype && operands == o.operands;
  }
};

/// One VLIW bundle: at most one operation per slot (scalar.slots scalar operations), in the
/// order written. They issue together; a control operation takes effect after the others.
struct Bundle {
  std::vector<Op> ops;
  bool operator==(const Bundle& o) const { return ops == o.ops; }
};

/// Core and chip ranges meaning "through the last one" (assembly: cores=all, chips=all).
constexpr int32_t kAll = 0x7FFFFFFF;

/// A program and the TensorCores that run it: every core in [coreFirst, coreLast] of every
/// chip in [chipFirst, chipLast]. Each runs its own copy with its own registers.
struct Program {
  int32_t chipFirst = 0;
  int32_t chipLast = kAll;
  int32_t coreFirst = 0;
  int32_t coreLast = kAll;
  std::vector<Bundle> bundles;
  bool operator==(const Program& o) const {
    return chipFirst == o.chipFirst && chipLast == o.chipLast && coreFirst == o.coreFirst &&
           coreLast == o.coreLast && bundles == o.bundles;
  }
};

/// The job binary (program.bin): every program and the symbol names its operands use.
struct JobBinary {
  std::vector<std::string> symbols;
  std::vector<Program> programs;
  bool operator==(const JobBinary& o) const {
    return symbols == o.symbols && programs == o.programs;
  }
};

using spyrecode::ArgRole;
using spyrecode::argRoleName;
using spyrecode::Buffer;
using spyrecode::Dim;
using spyrecode::ScalarArg;

/// How a tensor argument is spread over the chips of a multi-chip system.
enum class Placement : uint8_t {
  Replicated, ///< every chip holds the whole tensor; outputs come from chip 0
  Split, ///< dimension 0 is split evenly: chip c holds block c (host shape: the blocks stacked)
};
/// "replicated" or "split".
const char* placementName(Placement p);

/// A tensor argument of the job. In HBM it is row-major with its last two dimensions padded
/// up to multiples of `tile` (zeros on the way in; a rank-1 tensor pads its only dimension
/// to tile[1]). ARG.dK symbols give the logical dimensions, ARG.pK the padded ones.
struct TensorArg {
  std::string name;
  ArgRole role = ArgRole::Input;
  DType dtype = DType::F32;
  std::vector<Dim> shape; ///< per chip (for Split: the block of one chip)
  int64_t tile[2] = {1, 1};
  Placement placement = Placement::Replicated;
  bool operator==(const TensorArg& o) const {
    return name == o.name && role == o.role && dtype == o.dtype && shape == o.shape &&
           tile[0] == o.tile[0] && tile[1] == o.tile[1] && placement == o.placement;
  }
};

} // namespace chipless::tpuprog

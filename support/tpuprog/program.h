#pragma once
/// In-memory form of a TPU program: the TensorCore programs (program.bin) and what the plan
/// says of its tensors. The shape of a TPU program: one program per (chip range, core
/// range), holding VLIW bundles of operations. Operands, operations and the plan's commands
/// are the ones both formats share (support/progformat/).
#include "support/dtype.h"
#include "support/progformat/isa_table.h"
#include "support/progformat/job.h"
#include "support/progformat/operand.h"
#include "support/progformat/plan.h"
#include "support/scalar_arg.h"
#include "support/tpuprog/isa.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless::tpuprog {

/// An operand value, as both formats have it (support/progformat/operand.h).
using progformat::Operand;

/// One operation of a bundle: opcode, element type (when the opcode takes one) and one
/// operand per declared operand of the opcode, in table order.
using Op = progformat::Op<Opcode>;

/// One VLIW bundle: at most one operation per slot (scalar.slots scalar operations), in the
/// order written. They issue together; a control operation takes effect after the others.
struct Bundle {
  std::vector<Op> ops;
  bool operator==(const Bundle& o) const { return ops == o.ops; }
};

/// Core and chip ranges meaning "through the last one" (assembly: cores=all, chips=all).
constexpr int32_t kAll = progformat::kThroughLast;

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
using JobBinary = progformat::JobBinary<Program>;

/// The plan vocabulary both formats share (support/progformat/plan.h).
using chipless::ScalarArg;
using progformat::ArgRole;
using progformat::argRoleName;
using progformat::Buffer;
using progformat::Dim;

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

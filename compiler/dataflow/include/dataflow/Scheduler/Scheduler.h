//===- Scheduler.h - the Dataflow Scheduler: KTIR to DataflowIR -*- C++ -*-===//
//
// Part of chipless. Compiles a KTIR kernel (ktdp + upstream dialects) into a DataflowIR
// job (dfir) for the chip an architecture description gives:
//
//   1. constants      --const NAME=VALUE replaces integer arguments by constants
//   2. specialise     one copy of the function per grid tile, with its tile id folded in
//                     (canonicalize + cse): every core's schedule is static
//   3. arguments      pointer arguments and constant addresses that are bases of global
//                     memory views become row-major tensor arguments; other integer
//                     arguments become launch scalars
//   4. lower          each tile's ops become engine steps on its core (Lowering.h)
//   5. allocate       scratchpad addresses from buffer lifetimes (planning budget)
//   6. synchronise    token handshakes from data dependencies
//   7. write          one dfir.program per engine and core (identical ones shared)
//
// Every stage can be dumped (`spyre-compile --dump-dir`). Unsupported constructs are
// errors at the op with the reason.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_SCHEDULER_SCHEDULER_H
#define DATAFLOW_SCHEDULER_SCHEDULER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "support/spyre_arch.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace chipless::dataflow {

/// The values an integer argument may take at launch (`spyre-compile --bound`): the
/// program is planned for all of them, and the runtime refuses any other.
struct ArgumentBounds {
  int64_t min = 0;
  std::optional<int64_t> max; ///< absent: no maximum (a view it sizes cannot be planned)
  int64_t multipleOf = 1;
};

/// Reads the value of `--bound NAME=VALUE`: "MAX", "MIN..MAX", either with "/G" (multiples
/// of G), e.g. "4194304/4096" or "1..512". Sets `why` and returns nullopt when it is not one.
std::optional<ArgumentBounds> parseArgumentBounds(const std::string& text, std::string& why);

/// What the scheduler is told besides the kernel and the chip.
struct SchedulerOptions {
  /// The function to compile; "" = the only func.func of the module.
  std::string entry;
  /// Integer arguments fixed at compile time, by source name ("n_iters") or "argN".
  std::map<std::string, int64_t> constants;
  /// Float arguments (`%eps: f16`) fixed at compile time, by source name or "argN"; an
  /// integer in `constants` fixes one too.
  std::map<std::string, double> realConstants;
  /// Integer arguments left symbolic, with the values they may take, by source name or
  /// "argN": sizes, strides, loop bounds and steps that depend on them are computed at
  /// launch, and the scratchpad plan holds for every value in the bounds.
  std::map<std::string, ArgumentBounds> bounds;
  /// Overrides the kernel's `grid` attribute when not empty (a kernel without one runs on
  /// a single tile).
  std::vector<int64_t> grid;
  /// Called with a stage's name ("01-specialized.mlir") and its text, when set.
  std::function<void(const std::string&, const std::string&)> dump;
  /// Called with a stage's name and the seconds it took, when set.
  std::function<void(const std::string&, double)> timing;
  /// The source the kernel was parsed from, when set: tensor and scalar names are read from
  /// its buffers, so that text given in memory or a `--split-input-file` chunk is named from
  /// its own lines. A location naming no buffer of it is read from its file.
  const llvm::SourceMgr* sources = nullptr;
};

/// Compiles `ktir` into a module holding one dfir.job named after the entry function.
/// Errors are reported through the context's diagnostic handler.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
scheduleKernel(mlir::ModuleOp ktir, const SpyreArch& arch, const SchedulerOptions& options);

} // namespace chipless::dataflow

#endif // DATAFLOW_SCHEDULER_SCHEDULER_H

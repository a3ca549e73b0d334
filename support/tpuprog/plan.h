#pragma once
/// The TPU job plan (job.plan, JSON): argument metadata plus the preparation plan (run once)
/// and the execution plan (run per launch), with SpyreCode's commands. See
/// docs/tpu-program.md.
#include "support/arch_record.h"
#include "support/tpuprog/program.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace chipless::tpuprog {

using spyrecode::commandName;
using spyrecode::formatDevPtr;
using spyrecode::parseDevPtr;
using spyrecode::PlanCommand;

/// What a `trap CODE` of the program means: shown with the trap's error. `@NAME` in the
/// message stands for the value of a scalar or dimension symbol at the failed launch.
struct TrapMessage {
  int64_t code = 0;
  std::string message;
  bool operator==(const TrapMessage& o) const { return code == o.code && message == o.message; }
};

/// Everything in job.plan.
struct JobPlan {
  std::string kernel;
  std::string binaryFile = "program.bin";
  std::vector<TensorArg> args;
  std::vector<ScalarArg> scalars;
  std::vector<Buffer> buffers;
  std::vector<PlanCommand> prepare;
  std::vector<PlanCommand> execute;
  /// The architecture the program was compiled for (DIR/arch.yaml); absent in programs
  /// written before chipless recorded it.
  std::optional<ArchRecord> arch;
  std::vector<TrapMessage> traps; ///< meanings of the program's trap codes
  bool operator==(const JobPlan& o) const;

  /// The argument with this name, or nullptr.
  const TensorArg* findArg(const std::string& name) const;
};

/// Format name written into and required from job.plan.
constexpr const char* kPlanFormat = "tpuprog";
/// Version written into and required from job.plan.
constexpr int kPlanVersion = 1;

/// Parses job.plan text; errors name `path` and the field ("arguments[1].tile") or, for
/// malformed JSON, the line.
JobPlan parsePlan(const std::string& text, const std::string& path);
/// Serialises a plan as pretty JSON with sorted keys (deterministic).
std::string planToJson(const JobPlan& plan);

/// Fills `prepare` and `execute` with the standard steps: allocate the program at
/// `programPtr` in HBM and load the binary there; allocate each buffer after it
/// (`alignment`-aligned); per launch copy inputs in, run, copy outputs out.
void addStandardSteps(JobPlan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment);

/// What a symbol name refers to (docs/tpu-program.md, "Symbols").
struct SymbolRef {
  enum class Kind { Address, Dim, PaddedDim, Scalar, Buffer } kind = Kind::Address;
  std::string base; ///< argument, scalar or buffer name
  int dim = 0;      ///< for Dim and PaddedDim
};
/// Resolves `name` against `plan`; nullopt (with `why` set) if it names nothing.
std::optional<SymbolRef> resolveSymbol(const JobPlan& plan, const std::string& name,
                                       std::string& why);

} // namespace chipless::tpuprog

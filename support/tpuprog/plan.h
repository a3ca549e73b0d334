#pragma once
/// The TPU job plan (job.plan, JSON): argument metadata plus the preparation plan (run once)
/// and the execution plan (run per launch), with the commands both formats share
/// (support/progformat/plan.h, plan_json.h). See docs/tpu-program.md. The TPU's own are the
/// tensors' tile and placement, the meanings of trap codes and the binary's name,
/// program.bin.
#include "support/arch_record.h"
#include "support/progformat/plan.h"
#include "support/progformat/plan_json.h"
#include "support/progformat/symbols.h"
#include "support/tpuprog/program.h"

#include <optional>
#include <string>
#include <vector>

namespace chipless::tpuprog {

/// The plan's commands and device addresses, as both formats have them.
using progformat::commandName;
using progformat::formatDevPtr;
using progformat::kPlanVersion;
using progformat::parseDevPtr;
using progformat::PlanCommand;

/// What a `trap CODE` of the program means: shown with the trap's error. `@NAME` in the
/// message stands for the value of a scalar or dimension symbol at the failed launch.
struct TrapMessage {
  int64_t code = 0;
  std::string message;
  bool operator==(const TrapMessage& o) const { return code == o.code && message == o.message; }
};

/// Everything in job.plan.
struct JobPlan : progformat::PlanBase<TensorArg> {
  /// An empty plan whose binary is program.bin.
  JobPlan() : PlanBase("program.bin") {}
  std::vector<TrapMessage> traps; ///< meanings of the program's trap codes
  /// Every field equal, traps included.
  bool operator==(const JobPlan& o) const { return samePlan(o) && traps == o.traps; }
};

/// Format name written into and required from job.plan.
constexpr const char* kPlanFormat = "tpuprog";

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
using progformat::SymbolRef;
/// Resolves `name` against `plan`; nullopt (with `why` set) if it names nothing.
std::optional<SymbolRef> resolveSymbol(const JobPlan& plan, const std::string& name,
                                       std::string& why);

} // namespace chipless::tpuprog

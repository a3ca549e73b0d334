#pragma once
/// The job plan (job.plan, JSON): argument metadata plus the preparation plan (run once)
/// and the execution plan (run per launch). See docs/spyrecode.md. The plan, its commands
/// and its JSON are the ones both formats share (support/progformat/plan.h, plan_json.h);
/// SpyreCode's own are the tensors' layout and the binary's name, init.bin.
#include "support/arch_record.h"
#include "support/progformat/plan.h"
#include "support/progformat/plan_json.h"
#include "support/spyrecode/program.h"

#include <nlohmann/json.hpp>
#include <string>

namespace chipless::spyrecode {

/// The plan's commands and device addresses, as both formats have them.
using progformat::commandName;
using progformat::formatDevPtr;
using progformat::kPlanVersion;
using progformat::parseDevPtr;
using progformat::PlanCommand;
using progformat::planCommandToJson;
using progformat::readPlanCommands;

/// Everything in job.plan.
struct JobPlan : progformat::PlanBase<TensorArg> {
  /// An empty plan whose binary is init.bin.
  JobPlan() : PlanBase("init.bin") {}
  /// Every field equal.
  bool operator==(const JobPlan& o) const { return samePlan(o); }
};

/// Parses job.plan text; errors name `path` and the field ("execute[2].direction").
JobPlan parsePlan(const std::string& text, const std::string& path);
/// Serialises a plan as pretty JSON (deterministic).
std::string planToJson(const JobPlan& plan);

/// Fills `prepare` and `execute` with the standard steps: allocate the program at
/// `programPtr` and load the binary there; allocate each buffer after it (`alignment`
/// aligned); per launch copy inputs in, run, copy outputs out.
void addStandardSteps(JobPlan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment);

} // namespace chipless::spyrecode

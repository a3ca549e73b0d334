#pragma once
/// The job plan (job.plan, JSON): argument metadata plus the preparation plan (run once)
/// and the execution plan (run per launch). See docs/spyrecode.md.
#include "support/arch_record.h"
#include "support/spyrecode/program.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace chipless::spyrecode {

/// One step of a plan. Which fields matter depends on the kind (docs/spyrecode.md).
struct PlanCommand {
  enum class Kind { Allocate, InitTransfer, DataTransfer, ComputeOnDevice, ComputeOnHost };
  Kind kind = Kind::Allocate;
  std::string name;       ///< Allocate: buffer name ("program" for the job binary)
  int64_t size = 0;       ///< Allocate, InitTransfer, DataTransfer: bytes
  std::string devPtr;     ///< "0x..." absolute device address or "@name" (bound at launch)
  std::string filePath;   ///< InitTransfer: file in the SpyreCode directory
  int direction = 0;      ///< DataTransfer: 0 = host to device, 1 = device to host
  std::string hostHandle; ///< DataTransfer: tensor argument name
  std::string function;   ///< ComputeOnHost: host function name
  std::vector<std::string> inputs, outputs; ///< ComputeOnHost: tensor argument names
  nlohmann::json metadata;                  ///< ComputeOnHost: function parameters
  bool operator==(const PlanCommand& o) const;
};

/// Name of a command kind as written in JSON ("Allocate", ...).
const char* commandName(PlanCommand::Kind k);

/// Everything in job.plan.
struct JobPlan {
  std::string kernel;
  std::string binaryFile = "init.bin";
  std::vector<TensorArg> args;
  std::vector<ScalarArg> scalars;
  std::vector<Buffer> buffers;
  std::vector<PlanCommand> prepare;
  std::vector<PlanCommand> execute;
  /// The architecture the program was compiled for (DIR/arch.yaml); absent in programs
  /// written before chipless recorded it.
  std::optional<ArchRecord> arch;
  bool operator==(const JobPlan& o) const;

  /// The argument with this name, or nullptr.
  const TensorArg* findArg(const std::string& name) const;
};

/// Version written into and required from job.plan.
constexpr int kPlanVersion = 1;

/// Parses job.plan text; errors name `path` and the field ("execute[2].direction").
JobPlan parsePlan(const std::string& text, const std::string& path);
/// Serialises a plan as pretty JSON (deterministic).
std::string planToJson(const JobPlan& plan);

/// Fills `prepare` and `execute` with the standard steps: allocate the program at
/// `programPtr` and load the binary there; allocate each buffer after it (128-byte
/// aligned); per launch copy inputs in, run, copy outputs out.
void addStandardSteps(JobPlan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment);

/// Reads the command list `key` ("prepare" when `preparation`, else "execute") of a plan's
/// JSON root; errors name `file` and the field ("execute[2].direction"). Shared with the TPU
/// program format (support/tpuprog/plan.h), whose plans use the same commands.
std::vector<PlanCommand> readPlanCommands(const nlohmann::json& root, const std::string& file,
                                          const char* key, bool preparation);
/// One command as planToJson writes it.
nlohmann::json planCommandToJson(const PlanCommand& command);

/// Parses "0x1C00000000" (or decimal) device addresses; throws chipless::Error with `what`.
uint64_t parseDevPtr(const std::string& s, const std::string& what);
/// Formats a device address as "0x..." (upper-case hex, as in the public examples).
std::string formatDevPtr(uint64_t p);

} // namespace chipless::spyrecode

#pragma once
/// The job plan (job.plan) as both program formats have it: tensor arguments bound at
/// launch through symbols, scalars, buffers kept between launches, a preparation plan run
/// once and an execution plan run per launch, and the architecture record. Each chip's
/// JobPlan (support/spyrecode/plan.h, support/tpuprog/plan.h) derives from PlanBase with
/// its own TensorArg (SpyreCode: layout; TPU: tile and placement) and extra fields (TPU:
/// traps). See docs/spyrecode.md and docs/tpu-program.md.
#include "support/arch_record.h"
#include "support/scalar_arg.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace chipless::progformat {

/// A tensor dimension: a fixed size, or the name of a scalar bound at launch.
using Dim = std::variant<int64_t, std::string>;

/// Whether a tensor argument is read, written or both by the job.
enum class ArgRole : uint8_t { Input, Output, InOut };
/// "input", "output" or "inout".
const char* argRoleName(ArgRole r);

/// Device memory the job keeps between launches (program and intermediates), allocated at
/// preparation after the program.
struct Buffer {
  std::string name;
  int64_t size = 0;
  bool operator==(const Buffer& o) const { return name == o.name && size == o.size; }
};

/// One step of a plan. Which fields matter depends on the kind (docs/spyrecode.md).
struct PlanCommand {
  enum class Kind { Allocate, InitTransfer, DataTransfer, ComputeOnDevice, ComputeOnHost };
  Kind kind = Kind::Allocate;
  std::string name;       ///< Allocate: buffer name ("program" for the job binary)
  int64_t size = 0;       ///< Allocate, InitTransfer, DataTransfer: bytes
  std::string devPtr;     ///< "0x..." absolute device address or "@name" (bound at launch)
  std::string filePath;   ///< InitTransfer: file in the program directory
  int direction = 0;      ///< DataTransfer: 0 = host to device, 1 = device to host
  std::string hostHandle; ///< DataTransfer: tensor argument name
  std::string function;   ///< ComputeOnHost: host function name
  std::vector<std::string> inputs, outputs; ///< ComputeOnHost: tensor argument names
  nlohmann::json metadata;                  ///< ComputeOnHost: function parameters
  bool operator==(const PlanCommand& o) const;
};

/// Name of a command kind as written in JSON ("Allocate", ...).
const char* commandName(PlanCommand::Kind k);

/// Parses "0x1C00000000" (or decimal) device addresses; throws chipless::Error with `what`.
uint64_t parseDevPtr(const std::string& s, const std::string& what);
/// Formats a device address as "0x..." (upper-case hex, as in the public examples).
std::string formatDevPtr(uint64_t p);

/// What job.plan holds on every chip, over the chip's TensorArg (which has at least name,
/// role, dtype and shape).
template <typename TensorArg>
struct PlanBase {
  /// `binaryFile` is the chip's default job binary name ("init.bin", "program.bin").
  explicit PlanBase(std::string binaryFile) : binaryFile(std::move(binaryFile)) {}

  std::string kernel;               ///< the kernel's name
  std::string binaryFile;           ///< the job binary, in the plan's directory
  std::vector<TensorArg> args;      ///< tensor arguments, bound at launch
  std::vector<ScalarArg> scalars;   ///< scalar arguments, bound at launch
  std::vector<Buffer> buffers;      ///< device memory kept between launches
  std::vector<PlanCommand> prepare; ///< run once, at preparation
  std::vector<PlanCommand> execute; ///< run per launch
  /// The architecture the program was compiled for (DIR/arch.yaml); absent in programs
  /// written before chipless recorded it.
  std::optional<ArchRecord> arch;

  /// The argument with this name, or nullptr.
  const TensorArg* findArg(const std::string& name) const {
    for (const auto& a : args)
      if (a.name == name) return &a;
    return nullptr;
  }
  /// Whether every field above is equal (each chip's operator== adds its own fields).
  bool samePlan(const PlanBase& o) const {
    return kernel == o.kernel && binaryFile == o.binaryFile && args == o.args &&
           scalars == o.scalars && buffers == o.buffers && prepare == o.prepare &&
           execute == o.execute && arch == o.arch;
  }
};

/// The version written into and required from job.plan (both formats).
constexpr int kPlanVersion = 1;

/// A job binary the preparation plan loads: its file in the program directory and its size.
struct BinaryFile {
  std::string file;
  int64_t size = 0;
};

/// Fills `plan.prepare` and `plan.execute` (replacing what they held) with the steps of a
/// job that runs `binaries` one after another: allocate each binary from `programPtr` on
/// and load it there, then each buffer (`alignment`-aligned); per launch copy inputs in,
/// run each binary in order, copy outputs out.
template <typename Plan>
void addSteps(Plan& plan, const std::vector<BinaryFile>& binaries, uint64_t programPtr,
              uint64_t alignment) {
  auto align = [&](uint64_t v) { return (v + alignment - 1) / alignment * alignment; };
  plan.prepare.clear();
  plan.execute.clear();
  auto allocate = [&](const std::string& name, int64_t size, uint64_t at) {
    PlanCommand a;
    a.kind = PlanCommand::Kind::Allocate;
    a.name = name;
    a.size = size;
    a.devPtr = formatDevPtr(at);
    plan.prepare.push_back(a);
  };
  uint64_t next = programPtr;
  std::vector<uint64_t> loadedAt;
  for (const BinaryFile& b : binaries) {
    allocate("program", b.size, next);
    PlanCommand init;
    init.kind = PlanCommand::Kind::InitTransfer;
    init.filePath = b.file;
    init.size = b.size;
    init.devPtr = formatDevPtr(next);
    plan.prepare.push_back(init);
    loadedAt.push_back(next);
    next = align(next + static_cast<uint64_t>(b.size));
  }
  for (const auto& b : plan.buffers) {
    allocate(b.name, b.size, next);
    next = align(next + static_cast<uint64_t>(b.size));
  }
  auto transfer = [&](const std::string& name, int direction) {
    PlanCommand t;
    t.kind = PlanCommand::Kind::DataTransfer;
    t.direction = direction;
    t.hostHandle = name;
    t.devPtr = "@" + name;
    plan.execute.push_back(t);
  };
  for (const auto& a : plan.args)
    if (a.role != ArgRole::Output) transfer(a.name, 0);
  for (uint64_t at : loadedAt) {
    PlanCommand run;
    run.kind = PlanCommand::Kind::ComputeOnDevice;
    run.devPtr = formatDevPtr(at);
    plan.execute.push_back(run);
  }
  for (const auto& a : plan.args)
    if (a.role != ArgRole::Input) transfer(a.name, 1);
}

/// addSteps for the plan's one binary (`plan.binaryFile`, `binarySize` bytes): the standard
/// steps.
template <typename Plan>
void addStandardSteps(Plan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment) {
  addSteps(plan, {{plan.binaryFile, binarySize}}, programPtr, alignment);
}

} // namespace chipless::progformat

#pragma once
/// A SpyreCode job prepared on a device once and launched many times: preparation loads
/// the binary and allocates the job's own memory in the SpyreCode segment; each launch
/// binds tensors and scalars, patches the symbolic operands and runs the execution plan.
#include "runtime/device.h"
#include "runtime/stick_layout.h"
#include "support/npy.h"
#include "support/spyrecode/assembler.h"
#include "support/trace.h"

#include <map>
#include <string>
#include <vector>

namespace chipless::runtime {

/// What a launch binds.
struct LaunchArgs {
  std::map<std::string, NpyArray> inputs; ///< host arrays by argument name
  std::map<std::string, int64_t> scalars; ///< scalar arguments by name
  TraceWriter* trace = nullptr;           ///< timeline of the device steps (optional)
};

/// What a launch returns.
struct LaunchOutput {
  std::map<std::string, NpyArray> outputs; ///< output (and inout) arguments
  sim::spyre::LaunchResult device;         ///< summed over the plan's device steps
};

class PreparedJob {
public:
  /// Prepares the job at `planPath` (DIR/job.plan) on `device`.
  PreparedJob(Device& device, const std::string& planPath);
  /// Prepares an in-memory job (e.g. straight from the assembler).
  PreparedJob(Device& device, spyrecode::Job job, const std::string& name);
  ~PreparedJob();
  PreparedJob(const PreparedJob&) = delete;
  PreparedJob& operator=(const PreparedJob&) = delete;

  /// Runs the execution plan once. Inputs are required except in timing-only mode; every
  /// error names the argument, step or field at fault, and nothing is returned on failure.
  LaunchOutput launch(const LaunchArgs& args);

  const spyrecode::JobPlan& plan() const { return job_.plan; }
  const spyrecode::JobBinary& binary() const { return job_.binary; }

private:
  void prepare();
  std::map<std::string, int64_t> bindScalars(const LaunchArgs& args) const;
  StickLayout layoutOf(const spyrecode::TensorArg& a,
                       const std::map<std::string, int64_t>& scalars) const;

  Device& device_;
  spyrecode::Job job_;
  std::string name_;
  uint64_t binaryPtr_ = 0;
  /// Added to the plan's SpyreCode addresses: another job may already sit where this
  /// plan would like to go; its buffers are reached through symbols, so it can move.
  uint64_t relocation_ = 0;
  std::map<std::string, uint64_t> buffers_; ///< buffer name → device address
  std::vector<uint64_t> allocations_;
};

} // namespace chipless::runtime

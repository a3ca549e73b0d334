#pragma once
/// A TPU program prepared on a device once and launched many times: preparation loads the
/// binary into every chip's HBM and allocates the job's buffers; each launch binds tensors
/// and scalars, patches the symbolic operands and runs the execution plan. Several jobs can
/// be prepared on one device: when the region a plan asks for is taken, the job's program
/// and buffers move to a free region (programs refer to buffers through symbols).
#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_layout.h"
#include "support/npy.h"
#include "support/tpuprog/assembler.h"
#include "support/trace.h"

#include <map>
#include <string>
#include <vector>

namespace chipless::runtime {

/// What a TPU launch binds.
struct TpuLaunchArgs {
  std::map<std::string, NpyArray> inputs; ///< host arrays by argument name
  std::map<std::string, int64_t> scalars; ///< scalar arguments by name
  TraceWriter* trace = nullptr;           ///< timeline of the device steps (optional)
};

/// What a TPU launch returns.
struct TpuLaunchOutput {
  std::map<std::string, NpyArray> outputs; ///< output (and inout) arguments
  sim::tpu::LaunchResult device;           ///< summed over the plan's device steps
};

class TpuPreparedJob {
public:
  /// Prepares the job at `planPath` (DIR/job.plan) on `device`.
  TpuPreparedJob(TpuDevice& device, const std::string& planPath);
  /// Prepares an in-memory job (e.g. straight from the assembler).
  TpuPreparedJob(TpuDevice& device, tpuprog::Job job, const std::string& name);
  ~TpuPreparedJob();
  TpuPreparedJob(const TpuPreparedJob&) = delete;
  TpuPreparedJob& operator=(const TpuPreparedJob&) = delete;

  /// Runs the execution plan once. Inputs are required except in timing-only mode; every
  /// error names the argument, step or field at fault, and nothing is returned on failure.
  /// A split argument's host array stacks the chips' blocks along dimension 0.
  TpuLaunchOutput launch(const TpuLaunchArgs& args);

  const tpuprog::JobPlan& plan() const { return job_.plan; }
  const tpuprog::JobBinary& binary() const { return job_.binary; }

private:
  void prepare();
  std::map<std::string, int64_t> bindScalars(const TpuLaunchArgs& args) const;
  TiledLayout layoutOf(const tpuprog::TensorArg& a,
                       const std::map<std::string, int64_t>& scalars) const;
  /// The host shape of an argument: the per-chip shape, dimension 0 times the chips when split.
  std::vector<int64_t> hostShape(const tpuprog::TensorArg& a, const TiledLayout& l) const;
  /// The trap's error with what the plan says its code means, `@NAME` replaced by the
  /// value symbol NAME had at the launch.
  std::string explainTrap(const ProgramTrap& trap, const std::vector<int64_t>& symbols) const;

  TpuDevice& device_;
  tpuprog::Job job_;
  std::string name_;
  uint64_t binaryPtr_ = 0;
  int64_t relocation_ = 0; ///< added to the plan's preparation addresses (region was taken)
  bool binaryLoaded_ = false;
  std::map<std::string, uint64_t> buffers_; ///< buffer name → HBM address
  std::vector<uint64_t> allocations_;
};

} // namespace chipless::runtime

#pragma once
/// A program prepared on a device once and launched many times, written once for every chip
/// over chip traits (`Chip`: runtime/spyre/spyre_chip.h, runtime/tpu/tpu_chip.h, which say
/// how the chip's device lays out tensors, where a plan's program region may go, how a
/// symbol is bound and how the model runs). Preparation places the plan's program region
/// (moved as a whole when another job holds part of it: programs reach their buffers through
/// symbols), allocates the job's buffers and loads the binary; each launch checks and binds
/// the tensors and scalars, patches the symbolic operands and runs the execution plan.
#include "runtime/device.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace chipless::runtime {

template <typename Chip>
class PreparedJob final : public Program {
public:
  using DeviceType = typename Chip::Device;
  using Job = typename Chip::Job;
  using Arg = typename Chip::Arg;
  using Layout = typename Chip::Layout;
  using Binary = decltype(Job::binary);

  /// Reads the program directory `planPath` (DIR/job.plan) and prepares it on `device`.
  PreparedJob(DeviceType& device, const std::string& planPath);
  /// Prepares an in-memory job (e.g. straight from the assembler) named `name`.
  PreparedJob(DeviceType& device, Job job, std::string name);
  ~PreparedJob() override;
  PreparedJob(const PreparedJob&) = delete;
  PreparedJob& operator=(const PreparedJob&) = delete;

  const ProgramInfo& info() const override { return info_; }
  /// Runs the execution plan once. Inputs are required except in timing-only mode; every
  /// error names the argument, step or field at fault, and nothing is returned on failure.
  LaunchReport launch(const LaunchArgs& args);

  const auto& plan() const { return job_.plan; }
  const auto& binary() const { return job_.binary; }
  DeviceType& device() const { return device_; }

private:
  /// A tensor argument bound for one launch: its address and layout.
  using Bound = std::map<std::string, std::pair<uint64_t, Layout>>;
  void prepare();
  std::map<std::string, int64_t> bindScalars(const LaunchArgs& args) const;
  Layout layoutOf(const Arg& a, const std::map<std::string, int64_t>& scalars) const;
  /// The address of device tensor `t` bound to `a` (laid out as `layout` by the program),
  /// after checking its type, shape, layout and allocation.
  uint64_t bindResident(const Arg& a, const DeviceTensor& t, const Layout& layout) const;
  std::vector<int64_t> symbolValues(const Binary& binary, const Bound& bound,
                                    const std::map<std::string, int64_t>& scalars) const;
  /// -1 for the plan's binary, i for extraBinaries[i], -2 for a file the job does not have.
  int binaryIndex(const std::string& file) const;
  /// The binary binaryIndex() numbered `index` (-1 or an index of extraBinaries).
  const Binary& binaryAt(int index) const;
  /// "NAME: prepare[3] (Allocate)", for errors.
  std::string where(const char* list, size_t i) const;

  DeviceType& device_;
  Job job_;
  std::string name_;
  ProgramInfo info_;
  /// Where each job binary was loaded → its binaryIndex(); ComputeOnDevice names one.
  std::map<uint64_t, int> loadedBinaries_;
  /// Added to the plan's preparation addresses: another job may hold the region it asks for.
  int64_t relocation_ = 0;
  std::map<std::string, uint64_t> buffers_; ///< buffer name → device address
  std::vector<uint64_t> allocations_;       ///< of the preparation, given back at the end
};

} // namespace chipless::runtime

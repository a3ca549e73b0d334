#pragma once
/// What every chip's device does the same way with its programs: prepare a program
/// directory or an in-memory job as PreparedJob<Chip> (runtime/prepared_job.h), and launch a
/// Program only on the device that prepared it. `Chip::Device` derives from ChipDevice<Chip>
/// and adds memory, copies and statistics; the definitions are instantiated with
/// PreparedJob<Chip> (runtime/prepared_job_impl.h).
#include "runtime/device.h"

#include <memory>
#include <string>

namespace chipless::runtime {

template <typename Chip>
class PreparedJob;

/// `Job` is Chip::Job (named here because Chip is still incomplete where its device derives
/// from this class).
template <typename Chip, typename Job>
class ChipDevice : public Device {
public:
  /// Reads the program directory `planPath` and prepares it here.
  std::unique_ptr<Program> prepare(const std::string& planPath) override;
  /// Prepares an in-memory job (e.g. straight from the assembler) named `name`.
  std::unique_ptr<PreparedJob<Chip>> prepare(Job job, const std::string& name);
  /// Launches `program`, which must have been prepared on this device.
  LaunchReport launch(Program& program, const LaunchArgs& args) override;

  uint64_t tensorBytes(DType dtype, const std::vector<int64_t>& shape) const override;
  double writeTensor(const DeviceTensor& tensor, const NpyArray& host,
                     const std::string& what) override;
  NpyArray readTensor(const DeviceTensor& tensor, double& seconds) override;
  /// Fails, naming `what`, unless `tensor` has a usable shape and its canonical layout lies
  /// inside one allocation of this device.
  void checkTensor(const DeviceTensor& tensor, const std::string& what) const;
};

} // namespace chipless::runtime

#pragma once
/// A job as both program formats have it: the job binary (the programs and their symbols),
/// and the whole job: plan, binary and the architecture it was made for.
#include "support/arch_schema.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace chipless::progformat {

/// Directory part of a path ("." when there is none): where a plan's binary and
/// architecture record lie.
std::string directoryOf(const std::string& path);

/// A job binary: every program of the job and the symbol names its operands refer to.
template <typename Program>
struct JobBinary {
  std::vector<std::string> symbols; ///< what operands' `sym` indexes name
  std::vector<Program> programs;    ///< in file order
  /// Same symbols and programs.
  bool operator==(const JobBinary& o) const {
    return symbols == o.symbols && programs == o.programs;
  }
};

/// A whole job, as an assembler or compiler produces it and a program directory stores it.
template <typename Plan, typename Binary>
struct Job {
  Plan plan;     ///< job.plan
  Binary binary; ///< the job binary (plan.binaryFile)
  /// The further job binaries of a job that runs several kernels one after another (a
  /// compiled tensor graph), as (file name in the directory, binary), in the order the
  /// preparation plan loads them: each has its own InitTransfer, and each ComputeOnDevice
  /// runs the binary loaded at its `job_bin_ptr`.
  std::vector<std::pair<std::string, Binary>> extraBinaries;
  /// The resolved architecture the job was made for; writeJob records it in the directory
  /// (arch.yaml) and readJob reads it back.
  std::optional<ArchDescription> arch;
};

} // namespace chipless::progformat

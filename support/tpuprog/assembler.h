#pragma once
/// The TPU assembly language: text in, job plan + job binary out. The language is described
/// in docs/tpu-program.md; disassembler.h prints it back. The assembler is the one both
/// formats share (support/progformat/asm_core.h) over the TPU's traits.
#include "support/progformat/job.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/plan.h"
#include "support/tpuprog/program.h"

#include <optional>
#include <string>

namespace chipless::tpuprog {

/// A whole job, as the assembler produces it and a TPU program directory stores it.
using Job = progformat::Job<JobPlan, JobBinary>;

/// Where the assembler places the job in HBM and how wide bundles may be (from the
/// architecture description: hbm.alignment_bytes, scalar.slots), and the description the
/// job records as the one it was made for.
/// Made only by forArch, so that no placement number is written here.
struct AssembleOptions {
  uint64_t programPtr;                 ///< where programs start in HBM
  uint64_t alignment;                  ///< hbm.alignment_bytes
  int scalarSlots;                     ///< scalar.slots: scalar operations one bundle may hold
  std::optional<ArchDescription> arch; ///< the description the job records
  /// The options for `arch`: its alignment, bundle width and description.
  static AssembleOptions forArch(const TpuArch& arch);

private:
  AssembleOptions() {} // user-provided, so that `{}` cannot make one either
};

/// Assembles `text` read from `path`. Errors throw chipless::Error naming path and line.
Job assemble(const std::string& text, const std::string& path, const AssembleOptions& options);

} // namespace chipless::tpuprog

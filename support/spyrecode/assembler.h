#pragma once
/// The SpyreCode assembly language: text in, job plan + job binary out. The language is
/// described in docs/spyrecode.md; disassembler.h prints it back. The assembler is the one
/// both formats share (support/progformat/asm_core.h) over SpyreCode's traits.
#include "support/progformat/job.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/plan.h"
#include "support/spyrecode/program.h"

#include <optional>
#include <string>

namespace chipless::spyrecode {

/// A whole job, as the assembler produces it and a SpyreCode directory stores it.
using Job = progformat::Job<JobPlan, JobBinary>;

/// Where the assembler places the job in device memory (from the architecture
/// description: the SpyreCode segment and the allocation alignment), and the description
/// the job records as the one it was made for.
/// Made only by forArch, so that no placement number is written here.
struct AssembleOptions {
  uint64_t programPtr; ///< memory.program_segment's start
  uint64_t alignment;  ///< memory.alignment_bytes
  /// The description the job records; the defaults of operands the ISA ties to an
  /// architecture parameter (a stream's one-stick stride) come from it. Cleared, omitting
  /// such an operand is an error.
  std::optional<ArchDescription> arch;
  /// The options for `arch`: its program segment, alignment and description.
  static AssembleOptions forArch(const SpyreArch& arch);

private:
  AssembleOptions() {} // user-provided, so that `{}` cannot make one either
};

/// Assembles `text` read from `path`. Errors throw chipless::Error naming path and line.
Job assemble(const std::string& text, const std::string& path, const AssembleOptions& options);

} // namespace chipless::spyrecode

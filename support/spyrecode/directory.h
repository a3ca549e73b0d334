#pragma once
/// A SpyreCode directory on disk: job.plan next to the job binary it names.
#include "support/atomic_file.h"
#include "support/spyrecode/assembler.h"

#include <string>

namespace chipless::spyrecode {

/// Reads `planPath` (DIR/job.plan) and the binary it names (relative to DIR). Errors name
/// the file and the field, line or program counter.
Job readJob(const std::string& planPath);

/// Stages DIR/job.plan, DIR/<binary> and, when the job names its architecture, DIR/arch.yaml
/// recorded in the plan, into `out` (creating DIR and its parents, removed again if `out`
/// is not committed).
void stageJob(OutputSet& out, const std::string& dir, const Job& job);

/// stageJob and commit: the directory's files appear together, or none do.
void writeJob(const std::string& dir, const Job& job);

/// Directory part of a path ("." when there is none).
std::string directoryOf(const std::string& path);

} // namespace chipless::spyrecode

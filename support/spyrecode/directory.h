#pragma once
/// A SpyreCode directory on disk: job.plan next to the job binary it names, read and
/// written as both formats do (support/progformat/job_directory.h).
#include "support/atomic_file.h"
#include "support/progformat/job.h"
#include "support/spyrecode/assembler.h"

#include <string>

namespace chipless::spyrecode {

/// Reads `planPath` (DIR/job.plan) and the binary it names (relative to DIR), and checks
/// them against each other: the preparation plan loads that binary, and every symbol of
/// the binary names an argument, an ARG.dK dimension, a scalar or a buffer of the plan.
/// Errors name the file and the field, line or program counter.
Job readJob(const std::string& planPath);

/// Stages DIR/job.plan, DIR/<binary> and, when the job names its architecture, DIR/arch.yaml
/// recorded in the plan, into `out` (creating DIR and its parents, removed again if `out`
/// is not committed).
void stageJob(OutputSet& out, const std::string& dir, const Job& job);

/// stageJob and commit: the directory's files appear together, or none do.
void writeJob(const std::string& dir, const Job& job);

using progformat::directoryOf;

} // namespace chipless::spyrecode

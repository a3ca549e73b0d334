#pragma once
/// A SpyreCode directory on disk: job.plan next to the job binary it names.
#include "support/spyrecode/assembler.h"

#include <string>

namespace chipless::spyrecode {

/// Reads `planPath` (DIR/job.plan) and the binary it names (relative to DIR). Errors name
/// the file and the field, line or program counter.
Job readJob(const std::string& planPath);

/// Writes DIR/job.plan and DIR/<binary> (creating DIR). Each file appears whole or not at
/// all.
void writeJob(const std::string& dir, const Job& job);

/// Directory part of a path ("." when there is none).
std::string directoryOf(const std::string& path);

} // namespace chipless::spyrecode

#pragma once
/// A TPU program directory on disk: job.plan next to the job binary it names.
#include "support/tpuprog/assembler.h"

#include <string>

namespace chipless::tpuprog {

/// Reads `planPath` (DIR/job.plan) and the binary it names (relative to DIR), and checks
/// them against each other: the preparation plan loads that binary, and every symbol of
/// the binary names an argument, an ARG.dK / ARG.pK dimension, a scalar or a buffer of the
/// plan. Errors name the file and the field, line or bundle.
Job readJob(const std::string& planPath);

/// Checks a job's binary symbols against its plan (as readJob does); `binaryName` is used
/// in messages.
void checkSymbols(const Job& job, const std::string& binaryName, const std::string& planName);

/// Writes DIR/job.plan and DIR/<binary> (creating DIR). Each file appears whole or not at all.
void writeJob(const std::string& dir, const Job& job);

} // namespace chipless::tpuprog

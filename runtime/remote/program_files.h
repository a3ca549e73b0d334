#pragma once
/// How a Prepare request carries a program directory: the client reads and checks the job
/// as an in-process prepare would (so reading errors are the in-process ones, naming the
/// client's files) and sends the files the job is made of — the plan, every binary it loads
/// and its recorded architecture; the worker writes them into a private directory and
/// prepares from there.
#include "support/arch_files.h"
#include "support/wire.h"

#include <string>

namespace chipless::runtime::remote {

/// Appends to `w`: the client's directory, the plan's file name and each file of the job
/// at `planPath` (name, bytes).
void putProgramFiles(WireWriter& w, ChipKind kind, const std::string& planPath);

/// What a worker unpacked.
struct UnpackedProgram {
  std::string clientDirectory; ///< the directory as the client named it
  std::string planPath;        ///< the plan in the worker's directory
};
/// Writes the files of a Prepare request into `directory` (which exists and is empty). A file
/// name must be a plain name in the directory; errors start with the reader's `what`.
UnpackedProgram getProgramFiles(WireReader& r, const std::string& directory);

} // namespace chipless::runtime::remote

#pragma once
/// Whole-file reads and all-or-nothing writes: outputs appear only when they are complete.
#include <cstddef>
#include <string>

namespace chipless {

/// Writes `size` bytes to `path` so that readers see either the old file or the complete new
/// one, never a partial write: the bytes go to a temporary file `.<name>.tmp.<pid>` in the same
/// directory, which is then renamed over `path`. On any failure the temporary file is removed
/// and chipless::Error is thrown naming `path` and the OS error; an existing `path` is left
/// untouched. Not for concurrent writers of the same path from one process.
void writeFileAtomically(const std::string& path, const void* data, size_t size);

/// Convenience overload of writeFileAtomically for text or byte strings.
void writeFileAtomically(const std::string& path, const std::string& contents);

/// Returns the whole content of `path`. Throws chipless::Error "path: cannot open: <reason>"
/// (or "cannot read") so that the user learns which input is at fault.
std::string readFile(const std::string& path);

} // namespace chipless

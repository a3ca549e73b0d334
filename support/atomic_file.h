#pragma once
/// Whole-file reads and all-or-nothing writes: outputs appear only when they are complete,
/// and a command's outputs appear together or not at all.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace chipless {

/// An output file written in pieces that appears at its path only when complete: the bytes
/// go to the hidden sibling `.<name>.tmp.<pid>`, which commit() renames over the path. If
/// commit() is never reached, the destructor removes the temporary file and an existing
/// file at the path is left untouched. Errors are chipless::Error naming the path and the
/// OS error. Not for concurrent writers of the same path from one process.
class StagedFile {
public:
  /// Creates the temporary file for `path`.
  explicit StagedFile(const std::string& path);
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile();

  /// Appends `bytes`, retrying short writes and EINTR.
  void append(std::string_view bytes);
  /// Closes the temporary file, reporting a failed flush; nothing is visible yet.
  void close();
  /// close() if still open, then renames the temporary file over the path.
  void commit();
  const std::string& path() const { return path_; }

private:
  [[noreturn]] void fail(const std::string& what, int err) const;
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

/// The files one command writes, all or nothing: each is staged (StagedFile) next to its
/// target, parent directories are created as needed, and commit() puts them all in place
/// once every one was written whole. Destroyed without commit(), it removes the staged
/// files and the directories it created, so a failed command leaves nothing behind.
class OutputSet {
public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();

  /// Stages `path`, creating its missing parent directories; write it with append().
  StagedFile& stage(const std::string& path);
  /// Stages `path` with `contents`.
  void add(const std::string& path, std::string_view contents);
  /// Creates `dir` (and its parents) unless it exists, to be removed again without commit().
  void makeDirectory(const std::string& dir);
  /// Removes `path` (a file, or a directory and what it holds) once the staged files are in
  /// place: what an earlier output had that the new one does not; a failure to remove it is
  /// ignored.
  void removeAfterCommit(const std::string& path);
  /// Closes every staged file (any failure throws before a file is in place), then renames
  /// each into place, then removes what removeAfterCommit() named.
  void commit();

private:
  std::vector<std::unique_ptr<StagedFile>> files_;
  std::vector<std::string> stale_;       ///< removed after the commit
  std::vector<std::string> createdDirs_; ///< in creation order (parents first)
  bool committed_ = false;
};

/// Writes `size` bytes to `path` so that readers see either the old file or the complete new
/// one, never a partial write (a StagedFile committed at once).
void writeFileAtomically(const std::string& path, const void* data, size_t size);

/// Convenience overload of writeFileAtomically for text or byte strings.
void writeFileAtomically(const std::string& path, const std::string& contents);

/// Returns the whole content of `path`. Throws chipless::Error "path: cannot open: <reason>"
/// (or "cannot read") so that the user learns which input is at fault.
std::string readFile(const std::string& path);

} // namespace chipless

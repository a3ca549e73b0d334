#include "support/atomic_file.h"

#include <filesystem>

#include "support/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chipless {
namespace {

/// "path: what: strerror(err)", the shape of every OS failure reported here.
Error osError(const std::string& path, const std::string& what, int err) {
  return Error(located(path, 0, what + ": " + std::strerror(err)));
}

/// The temporary sibling of `path`: same directory, hidden, tagged with our pid.
std::string temporaryPathFor(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + ".tmp." + std::to_string(static_cast<long>(::getpid()));
}

} // namespace

StagedFile::StagedFile(const std::string& path) : path_(path) {
  if (path.empty() || path.back() == '/')
    throw Error(located(path, 0, "cannot write: not a file name"));
  tmp_ = temporaryPathFor(path);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot create temporary file " + tmp_, errno);
}

StagedFile::~StagedFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

void StagedFile::fail(const std::string& what, int err) const {
  throw osError(path_, what, err);
}

void StagedFile::append(std::string_view bytes) {
  const char* data = bytes.data();
  size_t size = bytes.size();
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void StagedFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write", errno);
}

void StagedFile::commit() {
  close();
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    fail("cannot rename " + tmp_ + " into place", errno);
  committed_ = true;
}

OutputSet::~OutputSet() {
  if (committed_) return;
  files_.clear(); // removes the staged files
  for (auto it = createdDirs_.rbegin(); it != createdDirs_.rend(); ++it) ::rmdir(it->c_str());
}

void OutputSet::makeDirectory(const std::string& path) {
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.empty()) return;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw Error(located(dir, 0, "cannot create directory: a file of that name exists"));
    return;
  }
  const size_t slash = dir.rfind('/');
  if (slash != std::string::npos && slash > 0) makeDirectory(dir.substr(0, slash));
  if (::mkdir(dir.c_str(), 0777) != 0) throw osError(dir, "cannot create directory", errno);
  createdDirs_.push_back(dir);
}

StagedFile& OutputSet::stage(const std::string& path) {
  for (const auto& f : files_)
    if (f->path() == path) throw Error(located(path, 0, "cannot write the same file twice"));
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) makeDirectory(path.substr(0, slash));
  files_.push_back(std::make_unique<StagedFile>(path));
  return *files_.back();
}

void OutputSet::add(const std::string& path, std::string_view contents) {
  stage(path).append(contents);
}

void OutputSet::removeAfterCommit(const std::string& path) {
  stale_.push_back(path);
}

void OutputSet::commit() {
  for (auto& f : files_) f->close();
  for (auto& f : files_) f->commit();
  committed_ = true;
  for (const std::string& p : stale_) {
    std::error_code ignored;
    std::filesystem::remove_all(p, ignored);
  }
}

void writeFileAtomically(const std::string& path, const void* data, size_t size) {
  StagedFile file(path);
  file.append(std::string_view(static_cast<const char*>(data), size));
  file.commit();
}

void writeFileAtomically(const std::string& path, const std::string& contents) {
  writeFileAtomically(path, contents.data(), contents.size());
}

std::string readFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw osError(path, "cannot open", errno);
  std::string contents;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    contents.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw osError(path, "cannot read", err);
    }
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

} // namespace chipless

#include "support/atomic_file.h"

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

/// Writes all of `size` bytes to `fd`, retrying short writes and EINTR; returns 0 or errno.
int writeAll(int fd, const char* bytes, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

} // namespace

void writeFileAtomically(const std::string& path, const void* data, size_t size) {
  if (path.empty() || path.back() == '/')
    throw Error(located(path, 0, "cannot write: not a file name"));
  const std::string tmp = temporaryPathFor(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw osError(path, "cannot create temporary file " + tmp, errno);

  int err = writeAll(fd, static_cast<const char*>(data), size);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw osError(path, "cannot write", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw osError(path, "cannot rename " + tmp + " into place", err);
  }
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

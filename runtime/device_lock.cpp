#include "runtime/device_lock.h"

#include "support/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace chipless::runtime {

namespace {

std::string lockDir() {
  for (const char* var : {"CHIPLESS_LOCK_DIR", "XDG_RUNTIME_DIR"})
    if (const char* d = std::getenv(var); d && *d) return d;
  return "/tmp";
}

std::string lockPath(const std::string& kind, int index) {
  return lockDir() + "/chipless-" + kind + "-" + std::to_string(index) + ".lock";
}

} // namespace

int DeviceLock::tryLock(const std::string& path, std::string& owner) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(path + ": cannot open device lock file: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[64] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    owner = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "another owner";
    while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
    ::close(fd);
    return -1;
  }
  std::string me = "pid " + std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    ssize_t w = ::pwrite(fd, me.data(), me.size(), 0);
    (void)w;
  }
  return fd;
}

DeviceLock DeviceLock::acquire(const std::string& kind, int index) {
  std::string path = lockPath(kind, index), owner;
  int fd = tryLock(path, owner);
  if (fd < 0)
    throw Error("device " + kind + ":" + std::to_string(index) + " is already open (" + owner +
                ", lock " + path + "); close it first or pick another device");
  return DeviceLock(fd, index, path);
}

DeviceLock DeviceLock::acquireAny(const std::string& kind, int maxDevices) {
  for (int i = 0; i < maxDevices; ++i) {
    std::string path = lockPath(kind, i), owner;
    int fd = tryLock(path, owner);
    if (fd >= 0) return DeviceLock(fd, i, path);
  }
  throw Error("all " + std::to_string(maxDevices) + " emulated " + kind +
              " devices are open (locks in " + lockDir() + ")");
}

DeviceLock::DeviceLock(DeviceLock&& other) noexcept
    : fd_(other.fd_), index_(other.index_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

DeviceLock::~DeviceLock() {
  if (fd_ < 0) return;
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

} // namespace chipless::runtime

#include "runtime/device.h"

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

std::string lockPath(int index) {
  return lockDir() + "/chipless-spyre-" + std::to_string(index) + ".lock";
}

/// Tries to take device `index`; returns the lock fd or -1 if another owner has it
/// (then `owner` says who).
int tryLock(int index, std::string& owner) {
  std::string path = lockPath(index);
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

constexpr int kMaxDevices = 64;

} // namespace

std::unique_ptr<Device> Device::open(const SpyreArch& arch, const DeviceOptions& options) {
  std::string owner;
  if (options.index >= 0) {
    int fd = tryLock(options.index, owner);
    if (fd < 0)
      throw Error("device spyre:" + std::to_string(options.index) + " is already open (" + owner +
                  ", lock " + lockPath(options.index) + "); close it first or pick another device");
    return std::unique_ptr<Device>(new Device(arch, options, options.index, fd));
  }
  for (int i = 0; i < kMaxDevices; ++i) {
    int fd = tryLock(i, owner);
    if (fd >= 0) return std::unique_ptr<Device>(new Device(arch, options, i, fd));
  }
  throw Error("all " + std::to_string(kMaxDevices) + " emulated Spyre devices are open (locks in " +
              lockDir() + ")");
}

Device::Device(const SpyreArch& arch, const DeviceOptions& options, int index, int lockFd)
    : arch_(arch), options_(options), index_(index), lockFd_(lockFd), memory_(!options.timingOnly) {
  try {
    context_ = std::make_unique<sim::SimContext>();
    chip_ = std::make_unique<sim::spyre::Chip>(arch_, memory_, options.timingOnly);
  } catch (...) {
    ::close(lockFd_);
    throw;
  }
}

Device::~Device() {
  if (context_) context_->enter(); // the chip's modules are destroyed in their own context
  chip_.reset();
  context_.reset();
  ::flock(lockFd_, LOCK_UN);
  ::close(lockFd_);
}

uint64_t Device::placeRange(int segment, uint64_t preferred, uint64_t size) const {
  const uint64_t align = static_cast<uint64_t>(arch_.memory.alignment_bytes);
  const uint64_t base = segmentBase(segment);
  const uint64_t end = base + static_cast<uint64_t>(arch_.memory.segment_bytes);
  size = std::max<uint64_t>(size, 1);
  auto isFree = [&](uint64_t at) {
    auto next = used_.lower_bound(at);
    if (next != used_.end() && next->first < at + size) return false;
    if (next != used_.begin() && std::prev(next)->first + std::prev(next)->second > at)
      return false;
    return true;
  };
  if (preferred >= base && preferred + size <= end && isFree(preferred)) return preferred;
  uint64_t candidate = base;
  for (auto it = used_.lower_bound(base); it != used_.end() && it->first < end; ++it) {
    if (candidate + size <= it->first) break;
    candidate = std::max(candidate, (it->first + it->second + align - 1) / align * align);
  }
  if (candidate + size > end)
    throw Error("device memory: no room for " + std::to_string(size) + " bytes in segment " +
                std::to_string(segment));
  return candidate;
}

uint64_t Device::allocate(int segment, uint64_t size, const std::string& name) {
  uint64_t at = 0;
  try {
    at = placeRange(segment, segmentBase(segment), size);
  } catch (const Error&) {
    throw Error("device memory: no room for '" + name + "' (" + std::to_string(size) +
                " bytes) in segment " + std::to_string(segment));
  }
  allocateAt(at, std::max<uint64_t>(size, 1), name);
  return at;
}

void Device::allocateAt(uint64_t address, uint64_t size, const std::string& name) {
  if (address % static_cast<uint64_t>(arch_.memory.alignment_bytes) != 0)
    throw Error("device memory: '" + name + "' at " + std::to_string(address) +
                " is not aligned to " + std::to_string(arch_.memory.alignment_bytes) + " bytes");
  uint64_t limit = segmentBase(arch_.memory.segments);
  if (address + size > limit || address + size < address)
    throw Error("device memory: '" + name + "' ends beyond the " +
                std::to_string(arch_.memory.segments) + " segments of the job address space");
  memory_.allocate(address, std::max<uint64_t>(size, 1), name);
  used_[address] = std::max<uint64_t>(size, 1);
}

void Device::release(uint64_t address) {
  memory_.release(address);
  used_.erase(address);
}

} // namespace chipless::runtime

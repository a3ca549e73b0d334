#pragma once
/// Exclusive ownership of an emulated device by one process: a lock file per device kind and
/// number (in $CHIPLESS_LOCK_DIR, else $XDG_RUNTIME_DIR, else /tmp), held with flock(2) so
/// that a crashed owner releases it. Used by the Spyre and TPU devices.
#include <string>

namespace chipless::runtime {

class DeviceLock {
public:
  /// Takes device `kind`:`index` ("tpu", 0); throws chipless::Error naming the owner if it
  /// is taken.
  static DeviceLock acquire(const std::string& kind, int index);
  /// Takes the first free device of `kind` (0, 1, ...); throws when all `maxDevices` are.
  static DeviceLock acquireAny(const std::string& kind, int maxDevices = 64);

  DeviceLock(DeviceLock&& other) noexcept;
  DeviceLock& operator=(DeviceLock&&) = delete;
  DeviceLock(const DeviceLock&) = delete;
  ~DeviceLock();

  int index() const { return index_; }
  /// The lock file.
  const std::string& path() const { return path_; }

private:
  DeviceLock(int fd, int index, std::string path)
      : fd_(fd), index_(index), path_(std::move(path)) {}
  /// Tries to lock; returns the fd or -1 (with `owner` saying who holds it).
  static int tryLock(const std::string& path, std::string& owner);

  int fd_;
  int index_;
  std::string path_;
};

} // namespace chipless::runtime

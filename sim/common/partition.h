#pragma once
/// A partition of an emulated device: the cores a launch's programs run on and the window of
/// device memory they may touch. A share of a device served by chipless-device-server
/// (`--share`) is a partition, so that several clients' launches run in one simulation, each
/// on its own cores, contending for the memory and the interconnect they share.
#include "support/error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless::sim {

/// Cores [coreFirst, coreFirst + cores) (of every chip of a TPU system), which the programs
/// see as cores 0 .. cores-1, and device memory [memoryBase, memoryBase + memoryBytes), which
/// they see as addresses 0 .. memoryBytes-1: an address past the window is a fault naming it.
/// The default, every core and all memory untranslated, is the whole device.
struct Partition {
  int coreFirst = 0;
  int cores = 0;            ///< 0: every core of the device
  uint64_t memoryBase = 0;  ///< device address of the window's address 0
  uint64_t memoryBytes = 0; ///< 0: all of device memory, untranslated
  /// Whether this is the whole device (nothing relocated, no window).
  bool whole() const { return coreFirst == 0 && cores == 0 && memoryBase == 0 && memoryBytes == 0; }
  /// "cores 2-3, memory 0x40000000+0x40000000", for errors.
  std::string describe() const;
  /// The cores its programs see: `cores`, or `all` (the device's) for every core.
  int coreCount(int all) const { return cores > 0 ? cores : all; }
  /// The device address of the programs' address `address`.
  uint64_t deviceAddress(uint64_t address) const { return memoryBase + address; }
  /// Why the programs' bytes [lo, hi) of `memory` ("HBM") are not in the window: "" when they
  /// are, or when there is no window.
  std::string outsideWindow(const char* memory, __int128 lo, __int128 hi) const;
};

/// One program's part of a launch that runs several at once: its binary, the values of its
/// symbols and its partition.
template <class Binary>
struct LaunchPart {
  const Binary* binary = nullptr;
  const std::vector<int64_t>* symbols = nullptr;
  Partition partition;
};

/// Fails unless there is a part and each binds a value to every symbol of its binary
/// ("launch: part 1: 2 symbol values for 3 symbols").
template <class Binary>
void checkLaunchParts(const std::vector<LaunchPart<Binary>>& parts) {
  if (parts.empty()) throw Error("launch: no program to run");
  for (size_t part = 0; part < parts.size(); ++part)
    if (parts[part].symbols->size() != parts[part].binary->symbols.size())
      throw Error(
          "launch: " + std::string(parts.size() > 1 ? "part " + std::to_string(part) + ": " : "") +
          std::to_string(parts[part].symbols->size()) + " symbol values for " +
          std::to_string(parts[part].binary->symbols.size()) + " symbols");
}

} // namespace chipless::sim

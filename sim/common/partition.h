#pragma once
/// A partition of an emulated device: the cores a launch's programs run on and the window of
/// device memory they may touch. A share of a device served by chipless-device-server
/// (`--share`) is a partition, so that several clients' launches run in one simulation, each
/// on its own cores, contending for the memory and the interconnect they share.
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
};

/// One program's part of a launch that runs several at once: its binary, the values of its
/// symbols and its partition.
template <class Binary>
struct LaunchPart {
  const Binary* binary = nullptr;
  const std::vector<int64_t>* symbols = nullptr;
  Partition partition;
};

} // namespace chipless::sim

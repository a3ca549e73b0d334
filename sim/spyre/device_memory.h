#pragma once
/// The Spyre model uses the common device memory (sim/common/device_memory.h).
#include "sim/common/device_memory.h"

namespace chipless::sim::spyre {
using sim::DeviceMemory;
} // namespace chipless::sim::spyre

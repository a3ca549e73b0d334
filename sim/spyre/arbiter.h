#pragma once
/// The Spyre model uses the common arbiter (sim/common/arbiter.h).
#include "sim/common/arbiter.h"

namespace chipless::sim::spyre {
using sim::Arbiter;
} // namespace chipless::sim::spyre

#pragma once
/// The Spyre model uses the common reservation timelines (sim/common/timeline.h).
#include "sim/common/timeline.h"

namespace chipless::sim::spyre {
using sim::Cycles;
using sim::reservePath;
using sim::Timeline;
} // namespace chipless::sim::spyre

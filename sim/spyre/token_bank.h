#pragma once
/// The Spyre model uses the common token bank (sim/common/token_bank.h).
#include "sim/common/token_bank.h"

namespace chipless::sim::spyre {
using sim::TokenBank;
} // namespace chipless::sim::spyre

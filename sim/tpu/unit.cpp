#include "sim/tpu/unit.h"

#include "sim/tpu/system.h"

namespace chipless::sim::tpu {

Unit::Unit(sc_core::sc_module_name name, System& system, std::string label, int order)
    : LaunchThread(name, system, std::move(label), order), system_(system) {}

} // namespace chipless::sim::tpu

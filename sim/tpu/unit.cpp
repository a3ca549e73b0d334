#include "sim/tpu/unit.h"

#include "sim/tpu/system.h"

namespace chipless::sim::tpu {

Unit::Unit(sc_core::sc_module_name name, System& system, int order)
    : sc_module(name), system_(system), order_(order) {}

void Unit::block(sc_core::sc_event& event, const std::string& what) {
  blockedOn_ = what;
  wait(event | system_.abortEvent());
  blockedOn_.clear();
  if (system_.aborting()) throw LaunchAborted{};
}

void Unit::syncToLocal() {
  Cycles now = system_.now();
  if (local_ > now) {
    blockedOn_ = "time";
    wait(system_.toScTime(local_ - now), system_.abortEvent());
    blockedOn_.clear();
    if (system_.aborting()) throw LaunchAborted{};
    system_.progress();
  }
}

void Unit::reserveShared(const std::function<void()>& reserve) {
  syncToLocal();
  bool done = false;
  system_.arbiter().submit(order_, reserve, &done, &granted_);
  while (!done) block(granted_, "the HBM/ICI arbiter");
}

} // namespace chipless::sim::tpu

#include "sim/common/arbiter.h"

#include <algorithm>

namespace chipless::sim {

Arbiter::Arbiter(sc_core::sc_module_name name) : sc_module(name), trigger_("arbitrate") {
  SC_METHOD(run);
  sensitive << trigger_;
  dont_initialize();
}

void Arbiter::submit(int order, std::function<void()> work, bool* done, sc_core::sc_event* wake) {
  pending_.push_back({order, std::move(work), done, wake});
  trigger_.notify(sc_core::SC_ZERO_TIME);
}

void Arbiter::run() {
  std::vector<Request> batch;
  batch.swap(pending_);
  std::stable_sort(batch.begin(), batch.end(),
                   [](const Request& a, const Request& b) { return a.order < b.order; });
  for (Request& r : batch) {
    r.work();
    *r.done = true;
    r.wake->notify(sc_core::SC_ZERO_TIME);
  }
}

} // namespace chipless::sim

#pragma once
/// Orders simultaneous requests for shared resources. Engines that want ring links, DRAM
/// or HBM channels or ICI links at the same simulated time hand their reservation work to the
/// arbiter, which runs it once per delta cycle sorted by engine number. Without it the order would
/// be SystemC's runnable-queue order, which depends on the history of the simulation, and
/// a second launch of the same job could differ from the first.
#include <functional>
#include <systemc>
#include <vector>

namespace chipless::sim {

class Arbiter : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(Arbiter);
  explicit Arbiter(sc_core::sc_module_name name);

  /// Queues `work` for this delta cycle under priority `order` (lower first); `done` is set
  /// and `wake` notified once it ran.
  void submit(int order, std::function<void()> work, bool* done, sc_core::sc_event* wake);

private:
  void run();
  struct Request {
    int order;
    std::function<void()> work;
    bool* done;
    sc_core::sc_event* wake;
  };
  std::vector<Request> pending_;
  sc_core::sc_event trigger_;
};

} // namespace chipless::sim

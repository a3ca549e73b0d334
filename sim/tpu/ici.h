#pragma once
/// The inter-chip interconnect of a multi-chip system: N chips arranged as `ici.topology`
/// (a ring, a 2-D or a 3-D torus, dimensions chosen as close to equal as N allows), each
/// joined to its neighbours by one directed link per direction of every dimension longer
/// than 1. Each link is a reservation timeline with `ici.bandwidth_gb_s` (one way) and
/// `ici.latency_ns` per hop. Routes are dimension-ordered, the shorter way round each ring.
/// Collectives run around `ringOrder()`, a cycle through every chip whose hops are single
/// links whenever a dimension of even length exists (always for a ring).
#include "sim/common/timeline.h"
#include "support/tpu_arch.h"

#include <string>
#include <vector>

namespace chipless::sim::tpu {

class IciNetwork {
public:
  IciNetwork(const TpuArch& arch, int chips);

  int chips() const { return chips_; }
  /// Extent of each dimension (product = chips); innermost first.
  const std::vector<int>& dims() const { return dims_; }
  /// Coordinates of a chip (innermost first).
  std::vector<int> coords(int chip) const;
  /// The links from chip a to chip b, in order (empty when a == b).
  std::vector<Timeline*> route(int a, int b);
  /// Number of hops from a to b.
  int hops(int a, int b) const;
  /// Chips in collective ring order; ringOrder()[p] is the chip at ring position p.
  const std::vector<int>& ringOrder() const { return ring_; }
  /// Ring position of a chip.
  int ringPosition(int chip) const { return position_[chip]; }
  /// All links (for statistics and traces), in a fixed order.
  std::vector<Timeline>& links() { return links_; }
  const std::vector<Timeline>& links() const { return links_; }
  /// "2x2 torus2d" etc.
  std::string describe() const;
  /// Clears link counters at the start of a launch.
  void resetCounters();

private:
  /// Index of the link leaving `chip` along dimension d in direction dir (+1/-1), or -1.
  int linkIndex(int chip, int d, int dir) const;
  int neighbour(int chip, int d, int dir) const;

  int chips_;
  std::string topology_;
  std::vector<int> dims_;
  std::vector<Timeline> links_;
  std::vector<int> linkOf_; ///< (chip * dims + d) * 2 + (dir > 0) -> link index or -1
  std::vector<int> ring_, position_;
};

} // namespace chipless::sim::tpu

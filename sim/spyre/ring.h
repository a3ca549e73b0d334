#pragma once
/// The bidirectional ring joining the cores and the DRAM channel ports. Each link carries
/// `ring.bytes_per_cycle` in each direction; a transfer occupies every link it crosses.
#include "sim/common/timeline.h"
#include "support/spyre_arch.h"

#include <string>
#include <vector>

namespace chipless::sim::spyre {

/// Direction of travel around the ring.
enum class RingDir { Cw, Ccw };

class Ring {
public:
  explicit Ring(const SpyreArch& arch);

  /// Number of stops (cores plus DRAM channel ports).
  int stops() const { return static_cast<int>(kinds_.size()); }
  /// Stop of a core / of a DRAM channel port. Ports sit evenly between the cores.
  int coreStop(int core) const { return coreStop_[core]; }
  int channelStop(int channel) const { return channelStop_[channel]; }
  /// Hops from stop a to stop b going in direction d.
  int hops(int a, int b, RingDir d) const;
  /// The shorter direction from a to b (clockwise on a tie).
  RingDir shortest(int a, int b) const;
  /// Appends the links crossed from a to b in direction d to `path`.
  void appendPath(int a, int b, RingDir d, std::vector<Timeline*>& path);
  /// The link leaving stop `from` in direction d.
  Timeline& link(int from, RingDir d) { return d == RingDir::Cw ? cw_[from] : ccw_[from]; }
  const Timeline& link(int from, RingDir d) const {
    return d == RingDir::Cw ? cw_[from] : ccw_[from];
  }
  /// "ring cw 3>4": how traces and stats name a link.
  std::string linkName(int from, RingDir d) const;
  /// Short description of a stop ("core 3", "dram 1").
  std::string stopName(int stop) const;
  /// Clears link counters at the start of a launch.
  void resetCounters();

private:
  std::vector<int> coreStop_, channelStop_;
  std::vector<std::string> kinds_;
  std::vector<Timeline> cw_, ccw_;
};

} // namespace chipless::sim::spyre

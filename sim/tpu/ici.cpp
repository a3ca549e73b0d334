#include "sim/tpu/ici.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace chipless::sim::tpu {

namespace {

/// The most nearly equal factorisation of n into k factors, largest first.
std::vector<int> factorise(int n, int k) {
  if (k == 1) return {n};
  std::vector<int> best;
  int bestSpread = -1;
  for (int f = 1; f <= n; ++f) {
    if (n % f != 0) continue;
    std::vector<int> rest = factorise(n / f, k - 1);
    rest.insert(rest.begin(), f);
    int spread =
        *std::max_element(rest.begin(), rest.end()) - *std::min_element(rest.begin(), rest.end());
    if (bestSpread < 0 || spread < bestSpread) bestSpread = spread, best = rest;
  }
  std::sort(best.begin(), best.end(), std::greater<int>());
  return best;
}

} // namespace

IciNetwork::IciNetwork(const TpuArch& arch, int chips)
    : chips_(chips), topology_(arch.ici.topology) {
  int k = topology_ == "ring" ? 1 : topology_ == "torus2d" ? 2 : 3;
  dims_ = factorise(chips, k);
  const double bw = arch.iciBytesPerCycle();
  const double lat = arch.iciLatencyCycles();
  const int nd = static_cast<int>(dims_.size());
  linkOf_.assign(static_cast<size_t>(chips) * nd * 2, -1);
  for (int c = 0; c < chips; ++c)
    for (int d = 0; d < nd; ++d) {
      if (dims_[d] < 2) continue;
      for (int dir : {+1, -1}) {
        int to = neighbour(c, d, dir);
        linkOf_[(static_cast<size_t>(c) * nd + d) * 2 + (dir > 0)] =
            static_cast<int>(links_.size());
        std::string name = "ici " + std::to_string(c) + ">" + std::to_string(to) + " " +
                           (dir > 0 ? "+" : "-") + std::string(1, "xyz"[d]);
        links_.emplace_back(name, bw, lat);
      }
    }

  // Collective ring: a reflected mixed-radix Gray code (boustrophedon) with an even dimension
  // outermost, so that every hop, the closing one included, is a single link.
  std::vector<int> order(nd);
  for (int d = 0; d < nd; ++d) order[d] = d; // order[0] innermost
  for (int d = nd - 1; d >= 0; --d)
    if (dims_[d] % 2 == 0) {
      std::swap(order[d], order[nd - 1]);
      break;
    }
  std::vector<int> digit(nd, 0), dirs(nd, +1);
  for (int step = 0; step < chips; ++step) {
    int chip = 0, stride = 1;
    std::vector<int> coord(nd);
    for (int i = 0; i < nd; ++i) coord[order[i]] = digit[i];
    for (int d = 0; d < nd; ++d) {
      chip += coord[d] * stride;
      stride *= dims_[d];
    }
    ring_.push_back(chip);
    // Advance the reflected counter.
    for (int i = 0; i < nd; ++i) {
      int size = dims_[order[i]];
      if (digit[i] + dirs[i] >= 0 && digit[i] + dirs[i] < size) {
        digit[i] += dirs[i];
        break;
      }
      dirs[i] = -dirs[i];
    }
  }
  position_.assign(chips, 0);
  for (int p = 0; p < chips; ++p) position_[ring_[p]] = p;
}

std::vector<int> IciNetwork::coords(int chip) const {
  std::vector<int> c(dims_.size());
  for (size_t d = 0; d < dims_.size(); ++d) {
    c[d] = chip % dims_[d];
    chip /= dims_[d];
  }
  return c;
}

int IciNetwork::neighbour(int chip, int d, int dir) const {
  std::vector<int> c = coords(chip);
  c[d] = (c[d] + dir + dims_[d]) % dims_[d];
  int out = 0, stride = 1;
  for (size_t i = 0; i < dims_.size(); ++i) {
    out += c[i] * stride;
    stride *= dims_[i];
  }
  return out;
}

int IciNetwork::linkIndex(int chip, int d, int dir) const {
  return linkOf_[(static_cast<size_t>(chip) * dims_.size() + d) * 2 + (dir > 0)];
}

std::vector<Timeline*> IciNetwork::route(int a, int b) {
  std::vector<Timeline*> path;
  int at = a;
  std::vector<int> to = coords(b);
  for (size_t d = 0; d < dims_.size(); ++d) {
    int n = dims_[d];
    int from = coords(at)[d];
    int fwd = (to[d] - from + n) % n;
    int dir = fwd <= n - fwd ? +1 : -1;
    int steps = dir > 0 ? fwd : n - fwd;
    for (int s = 0; s < steps; ++s) {
      path.push_back(&links_[linkIndex(at, static_cast<int>(d), dir)]);
      at = neighbour(at, static_cast<int>(d), dir);
    }
  }
  return path;
}

int IciNetwork::hops(int a, int b) const {
  std::vector<int> x = coords(a), y = coords(b);
  int h = 0;
  for (size_t d = 0; d < dims_.size(); ++d) {
    int fwd = (y[d] - x[d] + dims_[d]) % dims_[d];
    h += std::min(fwd, dims_[d] - fwd);
  }
  return h;
}

std::string IciNetwork::describe() const {
  std::string s;
  for (size_t d = 0; d < dims_.size(); ++d) s += (d ? "x" : "") + std::to_string(dims_[d]);
  return s + " " + topology_;
}

void IciNetwork::resetCounters() {
  for (auto& l : links_) l.resetCounters();
}

} // namespace chipless::sim::tpu

//===- Sync.cpp - token handshakes from data dependencies -----------------===//
//
// Part of chipless. Engines only meet through FIFOs and tokens. For every pair of steps
// on different engines that touch the same bytes (scratchpad or global memory), one of
// them writing, the later waits for the earlier:
//
//  * Within one pass of a region (the function body, or one iteration of a loop body) the
//    edge P -> S lives at the lowest region holding both: the sender's engine sends a
//    token after the child of that region containing P (after the whole loop, if P is in
//    one), the waiter's engine waits before the child containing S (before the whole
//    loop, if S is in one).
//  * Around a loop (S in iteration i needs P of iteration i - 1, P at or after S in the
//    body), the sender pre-sends one credit per item before the loop and the waiter takes
//    the rest after it.
//
// Tokens are counting semaphores. Each channel (sender engine, waiting engine, and for
// loop-carried edges the loop) has its own token, so a waiter takes the channel's tokens
// in the order they were sent; when it needs a later one it takes every earlier one first
// (cumulative waits). An engine that consumes a channel inside a loop first takes what was
// sent before the loop, so passes never mix. DMA steps complete after they issue: a step
// that others wait for signals its engine's own token and the engine waits for it before
// it sends (in order, so the send means "done").
//
//===----------------------------------------------------------------------===//

#include "Stages.h"
#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;

namespace chipless::sched {

namespace {

struct Edge {
  Node* p;
  Node* s;
  Node* region;     ///< lowest common region (a loop node; the root for the whole program)
  bool carried;     ///< loop-carried (around `region`)
  int distance = 0; ///< carried: iterations between P and S (2 past a double buffer)
};

Node* childOf(Node* region, Node* n) {
  while (n->parent != region) n = n->parent;
  return n;
}

Node* lowestCommon(Node* a, Node* b) {
  // (Called for every pair of steps: walked up by depth rather than through a set.)
  Node* x = a->parent;
  Node* y = b->parent;
  while (x && y && x->depth > y->depth) x = x->parent;
  while (x && y && y->depth > x->depth) y = y->parent;
  while (x != y && x && y) {
    x = x->parent;
    y = y->parent;
  }
  return x == y ? x : nullptr;
}

bool mayOverlap(const Expr& alo, const Expr& ahi, const Expr& blo, const Expr& bhi,
                const std::map<int, Range>& ranges) {
  Expr d1 = ahi - blo, d2 = bhi - alo;
  auto r1 = rangeOf(d1, ranges), r2 = rangeOf(d2, ranges);
  if (r1 && r1->hi <= 0) return false;
  if (r2 && r2->hi <= 0) return false;
  return true;
}

/// Whether P's accesses (in the previous iteration of loop `loop` when `carried`) and S's
/// accesses touch the same bytes with one writing.
bool conflict(const CoreSchedule& s, const Node& loopNode, const Step& p, const Step& q,
              int distance) {
  const bool carried = distance > 0;
  for (const Access& a : p.accesses)
    for (const Access& b : q.accesses) {
      if (!a.write && !b.write) continue;
      if (a.space != b.space) continue;
      if (a.space == Access::Space::Scratch) {
        const Buffer& ba = s.buffers[static_cast<size_t>(a.buffer)];
        const Buffer& bb = s.buffers[static_cast<size_t>(b.buffer)];
        if (a.buffer == b.buffer && ba.phases > 1) {
          // Both steps are inside the loop that selects the copy. An odd number of its
          // iterations apart they use different copies; otherwise (the same iteration of
          // it, or an even distance) the same one: compare the offsets.
          if (distance % 2 == 1 && ba.phaseLoop == loopNode.loop) continue;
          if (!mayOverlap(a.lo, a.hi, b.lo, b.hi, s.loopRanges)) continue;
          return true;
        }
        Expr alo = Expr(ba.addr) + a.lo, ahi = Expr(ba.addr + (ba.phases - 1) * ba.bytes) + a.hi;
        Expr blo = Expr(bb.addr) + b.lo, bhi = Expr(bb.addr + (bb.phases - 1) * bb.bytes) + b.hi;
        if (!mayOverlap(alo, ahi, blo, bhi, s.loopRanges)) continue;
        return true;
      }
      if (a.arg != b.arg) continue;
      Expr alo = a.lo, ahi = a.hi;
      if (carried) {
        std::string key = "v:" + std::to_string(loopNode.loop);
        Expr prev = Expr::var(loopNode.loop) - loopNode.stride * Expr(distance);
        alo = alo.substitute(key, prev);
        ahi = ahi.substitute(key, prev);
      }
      if (mayOverlap(alo, ahi, b.lo, b.hi, s.loopRanges)) return true;
    }
  return false;
}

void collectSteps(Node& n, std::vector<Node*>& out) {
  if (!n.isLoop()) {
    out.push_back(&n);
    return;
  }
  for (auto& c : n.body) collectSteps(*c, out);
}

/// Drops the carried edges at distance 2 (P in iteration i - 2, S in iteration i) that
/// another edge of the same loop between the same engines already implies: an edge
/// P' -> S' within one iteration, or carried at distance 1 with P' at or after P in the
/// body. In iteration i - 1, S' waits for P' of iteration i - 1 (or i - 2), which its
/// engine completes after P of iteration i - 2; S of iteration i follows S' of i - 1 on
/// its engine. Each distance needs a channel of its own, so this saves tokens.
void dropImpliedDistanceTwo(std::vector<Edge>& edges) {
  std::vector<Edge> kept;
  for (const Edge& e : edges) {
    bool implied = false;
    if (e.carried && e.distance == 2)
      for (const Edge& o : edges) {
        if (&o == &e || o.region != e.region || (o.carried && o.distance != 1)) continue;
        if (o.p->step->engine != e.p->step->engine || o.s->step->engine != e.s->step->engine)
          continue;
        if (!o.carried || o.p->pos >= e.p->pos) {
          implied = true;
          break;
        }
      }
    if (!implied) kept.push_back(e);
  }
  edges.swap(kept);
}

int indexIn(Node* region, Node* child) {
  for (size_t i = 0; i < region->body.size(); ++i)
    if (region->body[i].get() == child) return static_cast<int>(i);
  return -1;
}

} // namespace

LogicalResult synchronize(CoreSchedule& s, int tokensPerCore, int reservedTokens,
                          MLIRContext* ctx) {
  std::vector<Node*> steps;
  collectSteps(s.root, steps);
  std::vector<Edge> edges;
  for (size_t i = 0; i < steps.size(); ++i) {
    for (size_t j = 0; j < steps.size(); ++j) {
      if (i == j) continue;
      Node* p = steps[i];
      Node* q = steps[j];
      const Step& ps = *p->step;
      const Step& qs = *q->step;
      if (ps.engine == qs.engine) {
        // One engine runs its steps in order, but a DMA completes after it issues: a later
        // step of the same engine that reads what it wrote (a gather reading its indices)
        // needs it complete.
        if (ps.async && p->pos < q->pos && (ps.group < 0 || ps.group != qs.group) &&
            conflict(s, *lowestCommon(p, q), ps, qs, 0))
          s.sync[p][ps.engine].selfWait = true;
        continue;
      }
      // The steps of one op meet through FIFOs (an in-place op reads each stick before it
      // writes it); in different iterations they are ordered like any others.
      const bool sameOp = ps.group >= 0 && ps.group == qs.group;
      Node* region = lowestCommon(p, q);
      if (sameOp && p->pos < q->pos) continue;
      if (p->pos < q->pos) {
        if (conflict(s, *region, ps, qs, 0)) edges.push_back({p, q, region, false, 0});
      } else if (region->loop >= 0 && !region->conditional) { // (0 or 1 iterations carry nothing)
        if (conflict(s, *region, ps, qs, 1))
          edges.push_back({p, q, region, true, 1});
        else if (conflict(s, *region, ps, qs, 2))
          edges.push_back({p, q, region, true, 2});
      }
    }
  }

  // Edges implied by others: within one region, P -> S is not needed when S already
  // follows P through other edges and program order (engines run their steps in order; a
  // DMA step others depend on waits for its own completion before anything that follows).
  {
    std::map<Node*, std::vector<size_t>> byRegion;
    for (size_t k = 0; k < edges.size(); ++k)
      if (!edges[k].carried && edges[k].p->parent == edges[k].region &&
          edges[k].s->parent == edges[k].region)
        byRegion[edges[k].region].push_back(k);
    std::vector<bool> removed(edges.size(), false);
    // Per node (by DFS position): its successors, and the edge whose search last saw it
    // (a stamp rather than a set per search: there is a search per edge).
    const size_t nodes = static_cast<size_t>(s.root.end) + 1;
    std::vector<std::vector<std::pair<Node*, size_t>>> succ(nodes);
    std::vector<size_t> seenBy(nodes, SIZE_MAX);
    for (auto& [region, ks] : byRegion) {
      // Successors of a step: its edges and the next step of its engine in this body.
      for (auto& child : region->body) succ[static_cast<size_t>(child->pos)].clear();
      std::map<int, Node*> lastOnEngine;
      auto succOf = [&](Node* n) -> std::vector<std::pair<Node*, size_t>>& {
        return succ[static_cast<size_t>(n->pos)];
      };
      for (auto& child : region->body) {
        if (child->isLoop()) {
          lastOnEngine.clear(); // a loop in between: keep it simple, no order through it
          continue;
        }
        int e = child->step->engine;
        if (lastOnEngine.count(e)) succOf(lastOnEngine[e]).push_back({child.get(), SIZE_MAX});
        lastOnEngine[e] = child.get();
      }
      // Within one op, a corelet's store unit writes only after its load unit read (FIFOs).
      std::map<std::pair<int, int>, Node*> loads; // (group, corelet) -> load step
      for (auto& child : region->body) {
        if (child->isLoop() || child->step->group < 0) continue;
        int e = child->step->engine, l = Engines::coreletOf(e);
        if (l < 0) continue;
        if (e == Engines::load(l)) loads[{child->step->group, l}] = child.get();
        if (e == Engines::store(l)) {
          auto it = loads.find({child->step->group, l});
          if (it != loads.end()) succOf(it->second).push_back({child.get(), SIZE_MAX});
        }
      }
      for (size_t k : ks) succOf(edges[k].p).push_back({edges[k].s, k});
      std::vector<Node*> work;
      for (size_t k : ks) {
        // Is S reachable from P without edge k?
        work.assign(1, edges[k].p);
        bool found = false;
        while (!work.empty() && !found) {
          Node* n = work.back();
          work.pop_back();
          for (auto [next, via] : succOf(n)) {
            if (via == k || (via != SIZE_MAX && removed[via])) continue;
            if (next == edges[k].s) {
              found = true;
              break;
            }
            size_t& seen = seenBy[static_cast<size_t>(next->pos)];
            if (next->pos < edges[k].s->pos && seen != k) {
              seen = k;
              work.push_back(next);
            }
          }
        }
        if (found) removed[k] = true;
      }
    }
    std::vector<Edge> kept;
    for (size_t k = 0; k < edges.size(); ++k)
      if (!removed[k]) kept.push_back(edges[k]);
    edges.swap(kept);
  }

  // Async steps others wait for signal their own completion (also those whose edges the
  // next stage finds implied: what implies them counts on their completion).
  for (const Edge& e : edges)
    if (e.p->step->async) s.sync[e.p][e.p->step->engine].selfWait = true;
  dropImpliedDistanceTwo(edges);

  // Channels and their tokens. The loop-carried channels of two loops at the same depth
  // share a token: neither loop is inside the other, so every engine runs all of one before
  // the other, the waiter has taken all of the first's tokens (waitAfter) by the time it
  // needs the second's, and a waiter takes the earliest token first, which is the first
  // loop's while any is left. Kernels with many loops fit the core's token bank so.
  int nextToken = 0;
  // (from, to, depth of the loop or -1, distance)
  std::map<std::tuple<int, int, int, int>, int> channelToken;
  auto tokenFor = [&](int from, int to, Node* loop, int distance) {
    auto key = std::make_tuple(from, to, loop ? loop->depth : -1, distance);
    auto it = channelToken.find(key);
    if (it != channelToken.end()) return it->second;
    int t = nextToken++;
    channelToken[key] = t;
    return t;
  };
  for (Node* step : steps) { // in schedule order (s.sync is ordered by address)
    auto it = s.sync.find(step);
    if (it == s.sync.end()) continue;
    for (auto& [engine, ops] : it->second)
      if (ops.selfWait && !s.selfToken.count(engine)) s.selfToken[engine] = nextToken++;
  }

  // Needs per (region, channel): child index of the waiter -> highest item needed.
  struct Level {
    std::set<int> items;          ///< child indices after which the sender sends
    std::map<int, int> needs;     ///< waiter child index -> max item child index
    std::set<int> consumedInside; ///< child loops where the waiter consumes deeper
  };
  struct Key {
    Node* region;
    int from, to;
    bool carried;
    int distance;
    /// By the region's position, not its address: token numbers (the order channels get
    /// them) must not depend on where the heap put the nodes.
    bool operator<(const Key& o) const {
      return std::tie(region->pos, from, to, carried, distance) <
             std::tie(o.region->pos, o.from, o.to, o.carried, o.distance);
    }
  };
  std::map<Key, Level> levels;
  for (const Edge& e : edges) {
    Node* ap = childOf(e.region, e.p);
    Node* as = childOf(e.region, e.s);
    int from = e.p->step->engine, to = e.s->step->engine;
    Level& lv = levels[{e.region, from, to, e.carried, e.distance}];
    int ip = indexIn(e.region, ap), is = indexIn(e.region, as);
    lv.items.insert(ip);
    auto& need = lv.needs[is];
    need = std::max(need, ip);
    if (!e.carried) {
      // Every enclosing region consumes this channel inside the child holding the edge.
      for (Node* inner = e.region; inner->parent; inner = inner->parent) {
        Node* outer = inner->parent;
        levels[{outer, from, to, false, 0}].consumedInside.insert(indexIn(outer, inner));
      }
    }
  }

  for (auto& [key, lv] : levels) {
    Node* region = key.region;
    const int from = key.from, to = key.to;
    std::vector<int> items(lv.items.begin(), lv.items.end());
    if (items.empty() && lv.consumedInside.empty()) continue;
    const int token = tokenFor(from, to, key.carried ? region : nullptr, key.distance);
    auto rank = [&](int child) { // number of items at or before child
      return static_cast<int>(std::upper_bound(items.begin(), items.end(), child) - items.begin());
    };
    for (int item : items)
      s.sync[region->body[static_cast<size_t>(item)].get()][from].after.push_back(token);
    int consumed = 0;
    const int total = static_cast<int>(items.size());
    for (size_t j = 0; j < region->body.size(); ++j) {
      const int child = static_cast<int>(j);
      int want = consumed;
      if (lv.consumedInside.count(child)) want = std::max(want, rank(child - 1));
      auto it = lv.needs.find(child);
      // Carried: the same ranks, of the items of an earlier iteration (or credits).
      if (it != lv.needs.end()) want = std::max(want, rank(it->second));
      for (; consumed < want; ++consumed) s.sync[region->body[j].get()][to].before.push_back(token);
    }
    if (region->loop >= 0 && consumed < total)
      for (; consumed < total; ++consumed) s.sync[region][to].bodyEnd.push_back(token);
    if (key.carried) {
      // `distance` iterations of credits; the waiter takes what is left after the loop.
      for (int k = 0; k < total * key.distance; ++k) {
        s.sync[region][from].sendBefore.push_back(token);
        s.sync[region][to].waitAfter.push_back(token);
      }
    }
  }

  s.tokensUsed = nextToken;
  if (nextToken + reservedTokens > tokensPerCore) {
    emitError(UnknownLoc::get(ctx))
        << "core " << s.core << " needs " << nextToken + reservedTokens
        << " synchronisation tokens, but a core has " << tokensPerCore
        << " (sync.tokens_per_core); the kernel has too many engine-to-engine dependencies for "
           "one core";
    return failure();
  }
  return success();
}

} // namespace chipless::sched

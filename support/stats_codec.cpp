// Stats in binary form, node for node, for statistics that cross a process boundary (the
// device server's protocol): support/stats.h encode and decode.
#include "support/stats.h"
#include "support/wire.h"

#include <cmath>

namespace chipless {

std::string Stats::encode() const {
  WireWriter w;
  w.put<uint64_t>(leaves_);
  w.put<uint32_t>(static_cast<uint32_t>(nodes_.size()));
  for (const Node& n : nodes_) {
    w.put<uint8_t>(static_cast<uint8_t>(n.kind));
    w.put<uint32_t>(static_cast<uint32_t>(n.members.size()));
    for (const auto& [name, child] : n.members) {
      w.putString(name);
      w.put<uint64_t>(child);
    }
    w.put<uint32_t>(static_cast<uint32_t>(n.elements.size()));
    for (size_t child : n.elements) w.put<uint64_t>(child);
    w.put<double>(n.value);
    w.putString(n.unit);
    w.putString(n.description);
  }
  return w.take();
}

Stats Stats::decode(std::string_view encoded, const std::string& what) {
  WireReader r(encoded, what);
  Stats s;
  s.leaves_ = r.get<uint64_t>("leaves");
  uint32_t count = r.getCount("nodes", 33);
  if (count == 0) r.fail("nodes", "no root");
  s.nodes_.assign(count, Node{});
  size_t leaves = 0;
  // A child always comes after its parent (nodes are appended as paths are created), so
  // requiring it rules out cycles in a corrupt message.
  auto child = [&](size_t parent, uint64_t index) {
    if (index != kNone && (index <= parent || index >= count))
      r.fail("child", "index " + std::to_string(index) + " out of order");
    return static_cast<size_t>(index);
  };
  for (size_t i = 0; i < count; ++i) {
    Node& n = s.nodes_[i];
    uint8_t kind = r.get<uint8_t>("kind");
    if (kind > static_cast<uint8_t>(Kind::Leaf)) r.fail("kind", "unknown");
    n.kind = static_cast<Kind>(kind);
    for (uint32_t m = r.getCount("members", 16); m > 0; --m) {
      std::string name = r.getString("member name");
      n.members[name] = child(i, r.get<uint64_t>("member"));
      if (n.members[name] == kNone) r.fail("member", "missing");
    }
    uint32_t elements = r.getCount("elements", 8);
    n.elements.reserve(elements);
    for (uint32_t e = 0; e < elements; ++e)
      n.elements.push_back(child(i, r.get<uint64_t>("element")));
    n.value = r.get<double>("value");
    if (!std::isfinite(n.value)) r.fail("value", "not finite");
    n.unit = r.getString("unit");
    n.description = r.getString("description");
    if (n.kind == Kind::Leaf) ++leaves;
  }
  r.expectEnd();
  if (leaves != s.leaves_) r.fail("leaves", "count does not match the nodes");
  return s;
}

} // namespace chipless

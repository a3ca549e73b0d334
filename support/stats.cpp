#include "support/stats.h"

#include "support/atomic_file.h"
#include "support/error.h"

#include <cmath>
#include <cstdint>

namespace chipless {
namespace {

/// One parsed path segment: "name" or "name[index]".
struct Segment {
  std::string name;
  bool indexed = false;
  size_t index = 0;
};

/// Throws the error for a malformed `path`, with `why` saying what is wrong.
[[noreturn]] void malformed(const std::string& path, const std::string& why) {
  throw Error("stats: malformed path '" + path + "': " + why);
}

/// Whether `c` may appear in a segment name.
bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

/// Parses one segment `text` of `path`.
Segment parseSegment(const std::string& path, const std::string& text) {
  if (text.empty()) malformed(path, "empty segment");
  Segment seg;
  size_t open = text.find('[');
  seg.name = text.substr(0, open);
  if (seg.name.empty()) malformed(path, "segment '" + text + "' has no name");
  for (char c : seg.name) {
    if (!isNameChar(c))
      malformed(path, "segment '" + text + "' contains '" + std::string(1, c) +
                          "' (names use letters, digits, '_' and '-')");
  }
  if (open == std::string::npos) return seg;
  std::string digits = text.substr(open + 1);
  if (digits.empty() || digits.back() != ']') malformed(path, "segment '" + text + "' lacks ']'");
  digits.pop_back();
  if (digits.empty()) malformed(path, "segment '" + text + "' has an empty index");
  for (char c : digits) {
    if (c < '0' || c > '9') malformed(path, "segment '" + text + "' has a bad index");
  }
  if (digits.size() > 1 && digits[0] == '0')
    malformed(path, "segment '" + text + "' has an index with a leading zero");
  if (digits.size() > 7 || std::stoul(digits) > Stats::kMaxIndex)
    malformed(path,
              "segment '" + text + "' has an index above " + std::to_string(Stats::kMaxIndex));
  seg.indexed = true;
  seg.index = std::stoul(digits);
  return seg;
}

/// Splits `path` into its segments, rejecting malformed paths.
std::vector<Segment> parsePath(const std::string& path) {
  if (path.empty()) malformed(path, "empty path");
  std::vector<Segment> segs;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    segs.push_back(parseSegment(path, path.substr(start, dot - start)));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return segs;
}

/// The canonical path of the first `count` segments; `withIndex` keeps the last one's index.
std::string prefixOf(const std::vector<Segment>& segs, size_t count, bool withIndex) {
  std::string out;
  for (size_t k = 0; k < count; ++k) {
    if (k) out += '.';
    out += segs[k].name;
    if (segs[k].indexed && (withIndex || k + 1 < count))
      out += "[" + std::to_string(segs[k].index) + "]";
  }
  return out;
}

/// Whether `v` is a whole number that fits an int64 and so is written as a JSON integer.
bool isIntegral(double v) {
  return v == std::trunc(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0;
}

} // namespace

size_t Stats::newNode(Kind kind) {
  nodes_.emplace_back();
  nodes_.back().kind = kind;
  return nodes_.size() - 1;
}

Stats::Node& Stats::leafFor(const std::string& path, const std::string& unit,
                            const std::string& description) {
  std::vector<Segment> segs = parsePath(path);
  if (unit.empty()) throw Error("stats: statistic '" + path + "' needs a unit");
  auto kindName = [](Kind k) {
    return k == Kind::Leaf ? "a statistic" : k == Kind::Array ? "an array" : "a group";
  };
  // Nothing is created before the first conflict can be found: a conflict needs an existing
  // node, and once one node is missing every node after it is new.
  auto check = [&](size_t node, Kind want, size_t count, bool withIndex) {
    Kind have = nodes_[node].kind;
    if (have == want) return;
    throw Error("stats: cannot register '" + path + "': '" + prefixOf(segs, count, withIndex) +
                "' is already " + kindName(have) + ", so it cannot also be " + kindName(want));
  };
  size_t cur = 0;
  for (size_t k = 0; k < segs.size(); ++k) {
    const Segment& seg = segs[k];
    Kind want = k + 1 == segs.size() ? Kind::Leaf : Kind::Group;
    auto found = nodes_[cur].members.find(seg.name);
    size_t member = found == nodes_[cur].members.end() ? kNone : found->second;
    if (!seg.indexed) {
      if (member == kNone) {
        member = newNode(want);
        nodes_[cur].members.emplace(seg.name, member);
      }
      check(member, want, k + 1, false);
      cur = member;
      continue;
    }
    if (member == kNone) {
      member = newNode(Kind::Array);
      nodes_[cur].members.emplace(seg.name, member);
    }
    check(member, Kind::Array, k + 1, false);
    if (nodes_[member].elements.size() <= seg.index)
      nodes_[member].elements.resize(seg.index + 1, kNone);
    size_t element = nodes_[member].elements[seg.index];
    if (element == kNone) {
      element = newNode(want);
      nodes_[member].elements[seg.index] = element;
    }
    check(element, want, k + 1, true);
    cur = element;
  }
  Node& leaf = nodes_[cur];
  if (leaf.unit.empty()) {
    leaf.unit = unit;
    ++leaves_;
  } else if (leaf.unit != unit) {
    throw Error("stats: statistic '" + path + "' has unit '" + leaf.unit + "', not '" + unit + "'");
  }
  if (!description.empty()) leaf.description = description;
  return leaf;
}

void Stats::set(const std::string& path, double value, const std::string& unit,
                const std::string& description) {
  if (!std::isfinite(value))
    throw Error("stats: statistic '" + path + "' set to a non-finite value");
  leafFor(path, unit, description).value = value;
}

void Stats::add(const std::string& path, double delta, const std::string& unit,
                const std::string& description) {
  if (!std::isfinite(delta))
    throw Error("stats: statistic '" + path + "' increased by a non-finite value");
  Node& leaf = leafFor(path, unit, description);
  double sum = leaf.value + delta;
  if (!std::isfinite(sum)) throw Error("stats: statistic '" + path + "' overflowed");
  leaf.value = sum;
}

const Stats::Node* Stats::findLeaf(const std::string& path) const {
  std::vector<Segment> segs = parsePath(path);
  size_t cur = 0;
  for (const Segment& seg : segs) {
    const Node& node = nodes_[cur];
    if (node.kind != Kind::Group) return nullptr;
    auto found = node.members.find(seg.name);
    if (found == node.members.end()) return nullptr;
    cur = found->second;
    if (seg.indexed) {
      const Node& array = nodes_[cur];
      if (array.kind != Kind::Array || seg.index >= array.elements.size()) return nullptr;
      cur = array.elements[seg.index];
      if (cur == kNone) return nullptr;
    }
  }
  return nodes_[cur].kind == Kind::Leaf ? &nodes_[cur] : nullptr;
}

const Stats::Node& Stats::requireLeaf(const std::string& path) const {
  const Node* leaf = findLeaf(path);
  if (!leaf) throw Error("stats: no statistic '" + path + "'");
  return *leaf;
}

double Stats::get(const std::string& path) const {
  return requireLeaf(path).value;
}

const std::string& Stats::unit(const std::string& path) const {
  return requireLeaf(path).unit;
}

const std::string& Stats::description(const std::string& path) const {
  return requireLeaf(path).description;
}

Stats Stats::sequential(const std::vector<Stats>& runs, const std::vector<double>& weights) {
  Stats out;
  double total = 0;
  for (double w : weights) total += w;
  for (size_t r = 0; r < runs.size(); ++r)
    for (const auto& [path, value] : runs[r].flatten()) {
      const std::string& unit = runs[r].unit(path);
      const bool averaged = unit == "fraction" || unit.find('/') != std::string::npos;
      const double w = total > 0 && r < weights.size() ? weights[r] / total : 0;
      out.add(path, averaged ? value * w : value, unit, runs[r].description(path));
    }
  return out;
}

bool Stats::has(const std::string& path) const {
  return findLeaf(path) != nullptr;
}

size_t Stats::size() const {
  return leaves_;
}

nlohmann::json Stats::nodeToJson(size_t index) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
  case Kind::Group: {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, child] : node.members) out[name] = nodeToJson(child);
    return out;
  }
  case Kind::Array: {
    nlohmann::json out = nlohmann::json::array();
    for (size_t child : node.elements)
      out.push_back(child == kNone ? nlohmann::json::object() : nodeToJson(child));
    return out;
  }
  case Kind::Leaf:
    break;
  }
  nlohmann::json out = nlohmann::json::object();
  if (isIntegral(node.value))
    out["value"] = static_cast<int64_t>(node.value);
  else
    out["value"] = node.value;
  out["unit"] = node.unit;
  if (!node.description.empty()) out["description"] = node.description;
  return out;
}

nlohmann::json Stats::toJson() const {
  return nodeToJson(0);
}

void Stats::writeJson(const std::string& path) const {
  writeFileAtomically(path, jsonText());
}

std::string Stats::jsonText() const {
  // Units and descriptions are free text: replace invalid UTF-8 rather than fail the run.
  std::string text = toJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  return text;
}

void Stats::flattenInto(size_t index, const std::string& prefix,
                        std::vector<std::pair<std::string, double>>& out) const {
  const Node& node = nodes_[index];
  if (node.kind == Kind::Leaf) {
    out.emplace_back(prefix, node.value);
    return;
  }
  for (const auto& [name, child] : node.members) {
    std::string path = prefix.empty() ? name : prefix + "." + name;
    if (nodes_[child].kind != Kind::Array) {
      flattenInto(child, path, out);
      continue;
    }
    const std::vector<size_t>& elements = nodes_[child].elements;
    for (size_t i = 0; i < elements.size(); ++i) {
      if (elements[i] != kNone) flattenInto(elements[i], path + "[" + std::to_string(i) + "]", out);
    }
  }
}

std::vector<std::pair<std::string, double>> Stats::flatten() const {
  std::vector<std::pair<std::string, double>> out;
  out.reserve(leaves_);
  flattenInto(0, "", out);
  return out;
}

} // namespace chipless

#pragma once
/// Hierarchical simulation statistics with units (gem5 style), written as stats.json.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chipless {

/// A tree of named numeric statistics. Each component registers its statistics once, under
/// its own prefix ("chip.core[3].load0"), with a unit and a description, and updates them by
/// path; the run writes the whole tree as one JSON document whose shape mirrors the chip.
///
/// Path syntax: segments separated by '.', each a name of letters, digits, '_' or '-',
/// optionally followed by one index "[i]" (decimal, no sign, no leading zeros). A segment
/// "name[i]" makes "name" a JSON array whose element i is an object (missing elements are
/// empty objects). A path names either a statistic (a leaf) or a group, never both.
/// Every malformed or conflicting path is a chipless::Error that names the path.
class Stats {
public:
  /// Largest index accepted in "name[i]"; guards against a typo allocating a huge array.
  static constexpr size_t kMaxIndex = 1u << 20;

  /// Sets the statistic at `path` to `value`, creating it with `unit` and `description`
  /// if needed. `unit` must be non-empty ("cycles", "bytes", "ratio", ...) and must match
  /// the unit the statistic was created with; a non-empty `description` replaces the
  /// stored one. `value` must be finite, since JSON cannot represent NaN or infinity.
  void set(const std::string& path, double value, const std::string& unit,
           const std::string& description = "");

  /// Adds `delta` to the statistic at `path`, creating it at 0 first; same rules as set().
  void add(const std::string& path, double delta, const std::string& unit,
           const std::string& description = "");

  /// The value of the statistic at `path`; chipless::Error if `path` is not a statistic.
  double get(const std::string& path) const;

  /// The unit of the statistic at `path`; chipless::Error if `path` is not a statistic.
  const std::string& unit(const std::string& path) const;

  /// The description of the statistic at `path` (may be empty); chipless::Error if `path`
  /// is not a statistic.
  const std::string& description(const std::string& path) const;

  /// The statistics of several runs one after another on one device (the kernels of a
  /// multi-kernel job): every statistic summed, except fractions and rates (units "fraction"
  /// or with a '/'), which are averaged weighted by each run's `weights` (its cycles), so
  /// a utilisation stays busy cycles over all cycles. Every run has the same statistics.
  static Stats sequential(const std::vector<Stats>& runs, const std::vector<double>& weights);

  /// Whether `path` names a statistic (false for groups and unknown paths). A malformed
  /// path is still a chipless::Error, so typos do not silently read as "absent".
  bool has(const std::string& path) const;

  /// Number of statistics (leaves) registered.
  size_t size() const;

  /// The tree as JSON: each statistic is {"value": v, "unit": "...", "description": "..."}
  /// (description omitted when empty); integral values are JSON integers, others doubles.
  /// Object keys are sorted, so equal statistics always give byte-identical dumps.
  nlohmann::json toJson() const;

  /// Writes toJson() to `path` (indent 2, trailing newline) via a temporary file and a
  /// rename, so a failed run never leaves a half-written stats file.
  void writeJson(const std::string& path) const;
  /// The text writeJson writes.
  std::string jsonText() const;

  /// Every statistic as (canonical path, value), in tree order: names sorted as in the JSON
  /// dump, array indices in numeric order. For printed summaries and tests.
  std::vector<std::pair<std::string, double>> flatten() const;

  /// The whole tree in a compact binary form (for the device server's protocol).
  std::string encode() const;
  /// The tree encode() wrote: equal to the original in every statistic, unit, description
  /// and order. chipless::Error starting with `what` when `encoded` is malformed.
  static Stats decode(std::string_view encoded, const std::string& what);

private:
  /// What a node of the tree is.
  enum class Kind { Group, Array, Leaf };

  /// One node; children are indices into nodes_, so Stats stays cheaply copyable.
  struct Node {
    Kind kind = Kind::Group;
    std::map<std::string, size_t> members; ///< Group: name -> child node.
    std::vector<size_t> elements;          ///< Array: index -> child node, or kNone.
    double value = 0;                      ///< Leaf value.
    std::string unit;                      ///< Leaf unit.
    std::string description;               ///< Leaf description (may be empty).
  };

  /// Marks an array element that was never set (written as {}).
  static constexpr size_t kNone = static_cast<size_t>(-1);

  /// Finds or creates the leaf for `path`, checking unit and description rules.
  Node& leafFor(const std::string& path, const std::string& unit, const std::string& description);
  /// Finds the leaf for `path`; nullptr when absent or a group. Throws when malformed.
  const Node* findLeaf(const std::string& path) const;
  /// Like findLeaf(), but a missing statistic is a chipless::Error.
  const Node& requireLeaf(const std::string& path) const;
  /// Appends a node of `kind` and returns its index.
  size_t newNode(Kind kind);
  /// Converts the subtree at `node` to JSON.
  nlohmann::json nodeToJson(size_t node) const;
  /// Appends the leaves under `node` to `out`, with `prefix` as their path so far.
  void flattenInto(size_t node, const std::string& prefix,
                   std::vector<std::pair<std::string, double>>& out) const;

  std::vector<Node> nodes_{Node{}}; ///< nodes_[0] is the root group.
  size_t leaves_ = 0;               ///< Number of Leaf nodes.
};

} // namespace chipless

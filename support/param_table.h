#pragma once
/// A chip's parameter table: every parameter declared once, in a .def file of the chip
/// (support/spyre_params.def, support/tpu_params.def), with its name, type, range, unit,
/// source, role and meaning. From that one declaration come the fields of the chip's struct
/// (support/arch_fields.inc), the schema that the YAML reader, the `--set` checker and the
/// resolved-file writer use, the copy of each value into its field (support/arch_table.inc)
/// and the generated parameter reference (docs/arch-parameters.md).
///
/// A .def file is a list of
///   CHIPLESS_SECTION(section, "what the section holds")
///   CHIPLESS_INT(section, name, int or int64_t, min, max, "unit", Source, Role, "meaning")
///   CHIPLESS_REAL(section, name, min, max, "unit", Source, Role, "meaning")
///   CHIPLESS_BOOL(section, name, Source, Role, "meaning")
///   CHIPLESS_CHOICE(section, name, ("word", ...) or (), Source, Role, "meaning")
///   CHIPLESS_END_SECTION(section)
/// where Source is Public, Derived or Estimate and Role is Planned or Timing (ParamRole).
#include "support/arch_schema.h"
#include "support/error.h"

#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace chipless {

namespace archparams {

constexpr double kKiB = 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// True for 1, 2, 4, 8, ...
inline bool isPowerOfTwo(int64_t x) {
  return x > 0 && (x & (x - 1)) == 0;
}

/// Copies the value of `path` into a field of the matching C++ type.
inline void readInto(int& field, const ArchDescription& d, const std::string& path) {
  field = static_cast<int>(d.getInt(path));
}
inline void readInto(int64_t& field, const ArchDescription& d, const std::string& path) {
  field = d.getInt(path);
}
inline void readInto(double& field, const ArchDescription& d, const std::string& path) {
  field = d.getFloat(path);
}
inline void readInto(bool& field, const ArchDescription& d, const std::string& path) {
  field = d.getBool(path);
}
inline void readInto(std::string& field, const ArchDescription& d, const std::string& path) {
  field = d.getString(path);
}

/// The range a field of type T can hold, so a declared range can be checked against it.
template <typename T>
constexpr double fieldMax() {
  return std::is_same_v<T, int> ? static_cast<double>(INT_MAX) : 9.2e18;
}

} // namespace archparams

/// A section of a description (a YAML mapping) and what it holds.
struct ParamSection {
  std::string name;
  std::string description;
};

/// One chip's table, built from its .def file by support/arch_table.inc.
template <typename Arch>
class ParamTable {
public:
  /// Declares one parameter and the field it fills. A declared range wider than the field
  /// can hold is a bug in the .def file, thrown when the table is built.
  template <typename T>
  void add(ParamDecl decl, T& (*field)(Arch&)) {
    if ((decl.type == ParamType::Int) && decl.max > archparams::fieldMax<T>())
      throw Error("parameter table: '" + decl.path + "' allows values its field cannot hold");
    std::string path = decl.path;
    schema_.push_back(std::move(decl));
    assign_.push_back([field, path](Arch& a, const ArchDescription& d) {
      archparams::readInto(field(a), d, path);
    });
  }
  /// Starts a section; the parameters declared next belong to it.
  void section(std::string name, std::string description) {
    sections_.push_back({std::move(name), std::move(description)});
  }

  /// Every parameter in declaration order (= file order).
  const std::vector<ParamDecl>& schema() const { return schema_; }
  /// Every section in declaration order.
  const std::vector<ParamSection>& sections() const { return sections_; }
  /// Copies every value of `d` (read against schema()) into its field of `a`.
  void fill(Arch& a, const ArchDescription& d) const {
    for (const auto& assign : assign_) assign(a, d);
  }

private:
  std::vector<ParamDecl> schema_;
  std::vector<ParamSection> sections_;
  std::vector<std::function<void(Arch&, const ArchDescription&)>> assign_;
};

} // namespace chipless

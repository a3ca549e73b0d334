#pragma once
/// Chip-independent reading of an architecture description (models/hw/<chip>.yaml).
///
/// A chip declares its parameters once as a schema (a list of ParamDecl); ArchDescription
/// reads a YAML file against that schema, applies `--set key.path=value` overrides and
/// keeps the resolved values. There are no defaults: every declared key must be in the
/// file, every key in the file must be declared, and every value is type- and
/// range-checked, so a study always knows exactly which numbers it ran with.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace chipless {

/// The kind of value a parameter holds; decides how its text is parsed and checked.
enum class ParamType { Int, Float, Bool, String };

/// Where a parameter's value comes from, as the description files' comments say in words:
/// a published figure, one computed from published figures, or a chosen value.
enum class ParamSource { Public, Derived, Estimate };

/// What a parameter means to a compiled program. The compiler plans with Planned ones (core
/// counts, memory sizes, FIFO depths, array shapes, register counts): a program runs only on
/// the values it was compiled for. Timing ones (bandwidths, latencies, clock, throughputs)
/// change only how long a program takes, so a run may set other values than the compile did.
enum class ParamRole { Planned, Timing };

/// One parameter of a chip's schema. The path is dotted ("ring.hop_latency_cycles"): every
/// segment but the last is a YAML section. min/max bound Int and Float values (inclusive);
/// choices, when not empty, lists the only values a String may take. unit and description
/// end up as comments in the resolved file; source and role in the parameter reference.
struct ParamDecl {
  std::string path;
  ParamType type;
  double min;
  double max;
  std::vector<std::string> choices;
  std::string unit;
  std::string description;
  ParamSource source = ParamSource::Estimate;
  ParamRole role = ParamRole::Timing;
};

/// Human name of a type for messages: "an integer", "a number", "true or false", "a string".
const char* paramTypeName(ParamType type);
/// "public", "derived" or "estimate", as the description files' comments begin.
const char* paramSourceName(ParamSource source);
/// "planned" or "timing".
const char* paramRoleName(ParamRole role);

/// A planned-with parameter whose value differs between two descriptions.
struct ParamDifference {
  std::string path;
  std::string compiled;  ///< value in the description a program was compiled for
  std::string requested; ///< value in the description a run asks for
  std::string origin;    ///< where the requested value came from ("--set k=v", "file:line")
};

/// The resolved values of one architecture description, keyed by dotted path. Built only
/// by load(); read with the typed getters. Copyable, immutable after loading.
class ArchDescription {
public:
  /// Reads `file` against `schema`, then applies `overrides` ("key.path=value", as given
  /// to `--set`, later ones win). Throws chipless::Error naming the file, the line and the
  /// key for: unreadable file, YAML syntax error, unknown or duplicate key, a value where a
  /// section is expected or vice versa, wrong type, value out of range or not one of the
  /// choices, missing key; and naming the `--set` argument for a malformed override, an
  /// unknown key or a bad value. A malformed schema is a programming error, also thrown.
  static ArchDescription load(const std::string& file, const std::vector<ParamDecl>& schema,
                              const std::vector<std::string>& overrides);

  /// This description with `overrides` applied as load() applies them (a device's share
  /// describes its part of the chip this way). Throws like load() for a bad override.
  ArchDescription withOverrides(const std::vector<std::string>& overrides) const;

  /// Integer parameter. Unknown path or other type: throws chipless::Error (a bug).
  int64_t getInt(const std::string& path) const;
  /// Float parameter; Int parameters are accepted and converted. Throws like getInt.
  double getFloat(const std::string& path) const;
  /// Bool parameter. Throws like getInt.
  bool getBool(const std::string& path) const;
  /// String parameter. Throws like getInt.
  std::string getString(const std::string& path) const;

  /// Prefixes `message` with where the value of `path` came from, for cross-field checks
  /// done by a chip's own loader: "file:line: message" for a value from the file, "file:
  /// --set key=value: message" for an overridden one.
  std::string locate(const std::string& path, const std::string& message) const;
  /// Where the value of `path` came from: "--set key=value" or "file:line".
  std::string origin(const std::string& path) const;

  /// The resolved description as YAML: a header naming the source file and the overrides,
  /// then every parameter in schema order grouped by section, each with a comment giving
  /// its description and unit. Loading this text with the same schema gives the same values.
  std::string toYaml() const;
  /// Writes toYaml() to `path` atomically (temporary file, then rename), so a run's
  /// results directory never holds a half-written description.
  void writeResolved(const std::string& path) const;

  /// The value of `path` as the resolved file writes it ("16", "1.0", "true", "ieee").
  std::string valueText(const std::string& path) const;
  /// "fnv1a64:" and 16 hex digits of a hash over every "path=value" line in schema order:
  /// equal for equal values, whatever file, comments or overrides they came from.
  std::string fingerprint() const;
  /// The Planned parameters whose values differ from `compiled`'s (same schema), in schema
  /// order: a program compiled for `compiled` cannot run on this description when any do.
  std::vector<ParamDifference> plannedDifferences(const ArchDescription& compiled) const;

  /// The file the description was read from, as given to load().
  const std::string& sourceFile() const { return file_; }
  /// The `--set` arguments applied, in the order given.
  const std::vector<std::string>& overrides() const { return overrides_; }
  /// The schema the description was checked against, in declaration order.
  const std::vector<ParamDecl>& schema() const { return schema_; }

  /// Storage of one resolved value; only the field matching `type` is meaningful. Public
  /// only so that the loader's file-local helpers can fill it; use the getters instead.
  struct Value {
    ParamType type = ParamType::Int;
    int64_t i = 0;
    double f = 0;
    bool b = false;
    std::string s;
    int line = 0;            ///< 1-based line in the source file; 0 when overridden.
    std::string overrideArg; ///< The `--set` argument that set the value, if any.
  };

private:
  /// Finds the value of `path`, checking its type is `want` (or Int, when `intAsFloat`).
  const Value& lookup(const std::string& path, ParamType want, bool intAsFloat) const;

  std::string file_;
  std::vector<std::string> overrides_;
  std::vector<ParamDecl> schema_;
  std::map<std::string, Value> values_;
};

} // namespace chipless

#pragma once
/// A scalar argument of a job plan (SpyreCode and TPU programs alike) and the constraints
/// its program was compiled for: a KTIR `!ktdp.runtime_arg<index, granularity = G,
/// upperbound = U>` becomes a scalar that must be a multiple of G between 0 and U. The
/// runtime checks them at launch, so a length the program cannot handle (whose loop would
/// run only the whole chunks, or whose footprint was planned smaller) is an error, not a
/// silently wrong result. One definition for the JSON field, the `.scalar` directive of
/// both assembly forms and the launch check.
#include "support/json_fields.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace chipless {

/// A scalar argument, bound at launch (`--scalar NAME=VALUE`) or read off a tensor shape
/// that names it, with the values its program accepts.
struct ScalarArg {
  std::string name;
  /// The value must be a multiple of this (a runtime_arg's granularity); 1: any.
  int64_t multipleOf = 1;
  /// Inclusive bounds (a runtime_arg's 0 and upperbound); absent: unbounded.
  std::optional<int64_t> min, max;

  bool operator==(const ScalarArg& o) const {
    return name == o.name && multipleOf == o.multipleOf && min == o.min && max == o.max;
  }
};

/// The plan's JSON object: {"name": N} plus "multiple_of", "min", "max" when set.
nlohmann::json scalarArgToJson(const ScalarArg& s);
/// Reads one element of a plan's "scalars" array (unknown keys, a non-positive
/// multiple_of and min > max are errors naming the field).
ScalarArg scalarArgFromJson(const JsonFields& fields);

/// The operand text of a `.scalar` directive: "N" plus " multiple_of=G min=A max=B" when
/// set (the assemblers read it back with AsmSource::scalarDirective).
std::string scalarArgAsm(const ScalarArg& s);
/// Why the constraints contradict themselves ("" when they do not): a non-positive
/// multiple_of, min > max.
std::string scalarConstraintError(const ScalarArg& s);

/// The values `s` accepts in words: "multiples of 4096 from 0 to 4194304".
std::string scalarAccepts(const ScalarArg& s);
/// Why `value` breaks `s`'s constraints ("" when it satisfies them), e.g. "is 5000, not a
/// multiple of 4096".
std::string scalarViolation(const ScalarArg& s, int64_t value);
/// Throws an Error naming the scalar, the kernel and where the value came from (`source`,
/// e.g. "--scalar n" or "input 'A' dimension 0") when `value` breaks `s`'s constraints.
void checkScalarValue(const ScalarArg& s, int64_t value, const std::string& kernel,
                      const std::string& source);
/// The launch check of both runtimes: every scalar of `scalars` has a value in `values`
/// (else the error says to pass --scalar) that keeps its constraints; `sources` says where
/// each value came from.
void checkBoundScalars(const std::vector<ScalarArg>& scalars,
                       const std::map<std::string, int64_t>& values,
                       const std::map<std::string, std::string>& sources,
                       const std::string& kernel);

} // namespace chipless

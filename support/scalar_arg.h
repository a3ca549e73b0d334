#pragma once
/// A scalar argument of a job plan (SpyreCode and TPU programs alike) and the constraints
/// its program was compiled for: a KTIR `!ktdp.runtime_arg<index, granularity = G,
/// upperbound = U>` becomes a scalar that must be a multiple of G between 0 and U. The
/// runtime checks them at launch, so a length the program cannot handle (whose loop would
/// run only the whole chunks, or whose footprint was planned smaller) is an error, not a
/// silently wrong result. A scalar may also be a real number (a KTIR `%eps: f16` argument):
/// it is converted to its float type at launch and reaches the program as the bits of an
/// IEEE double (a float operand bound to the symbol). One definition for the JSON field,
/// the `.scalar` directive of both assembly forms and the launch check.
#include "support/dtype.h"
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
  /// A real-valued scalar: the float type (f16, bf16, f32) its value is rounded to at
  /// launch. Absent: an integer. A real scalar has no constraints and sizes no tensor.
  std::optional<DType> real;

  bool operator==(const ScalarArg& o) const {
    return name == o.name && multipleOf == o.multipleOf && min == o.min && max == o.max &&
           real == o.real;
  }
};

/// Parses a real number as written on a command line ("1e-5", "0.5", "-inf", "nan");
/// nullopt when the whole text is not one.
std::optional<double> parseReal(const std::string& text);

/// The value a real scalar `s` passes to its program: `value` rounded to s.real (IEEE
/// binary16, bfloat16 or binary32), as the bits of an IEEE double.
int64_t realScalarBits(const ScalarArg& s, double value);

/// The plan's JSON object: {"name": N} plus "multiple_of", "min", "max" and "type" (a real
/// scalar's float type) when set.
nlohmann::json scalarArgToJson(const ScalarArg& s);
/// Reads one element of a plan's "scalars" array (unknown keys, a non-positive
/// multiple_of and min > max are errors naming the field).
ScalarArg scalarArgFromJson(const JsonFields& fields);

/// The operand text of a `.scalar` directive: "N" plus " multiple_of=G min=A max=B" or
/// " type=f32" when set (the assemblers read it back with AsmSource::scalarDirective).
std::string scalarArgAsm(const ScalarArg& s);
/// Why the constraints contradict themselves ("" when they do not): a non-positive
/// multiple_of, min > max, a real scalar with integer constraints or a type that is not
/// a float type.
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
/// each value came from. Real scalars are checked when they are bound (bindRealScalars).
void checkBoundScalars(const std::vector<ScalarArg>& scalars,
                       const std::map<std::string, int64_t>& values,
                       const std::map<std::string, std::string>& sources,
                       const std::string& kernel);

/// Binds the real scalars of `scalars` into `values` (as realScalarBits): each from `reals`
/// or, written as an integer, from `values` itself; a real value given for an integer
/// scalar, or a real scalar left unbound, is an Error naming the scalar and the kernel.
void bindRealScalars(const std::vector<ScalarArg>& scalars,
                     const std::map<std::string, double>& reals,
                     std::map<std::string, int64_t>& values, const std::string& kernel);

} // namespace chipless

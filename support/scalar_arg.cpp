// Part of chipless. Scalar arguments of job plans: JSON, assembly text, launch check.
#include "support/scalar_arg.h"

#include "support/error.h"

namespace chipless {

nlohmann::json scalarArgToJson(const ScalarArg& s) {
  nlohmann::json j = {{"name", s.name}};
  if (s.multipleOf != 1) j["multiple_of"] = s.multipleOf;
  if (s.min) j["min"] = *s.min;
  if (s.max) j["max"] = *s.max;
  return j;
}

ScalarArg scalarArgFromJson(const JsonFields& f) {
  f.only({"name", "multiple_of", "min", "max"});
  ScalarArg s;
  s.name = f.str("name");
  if (f.has("multiple_of")) s.multipleOf = f.integer("multiple_of");
  if (f.has("min")) s.min = f.integer("min");
  if (f.has("max")) s.max = f.integer("max");
  if (std::string why = scalarConstraintError(s); !why.empty())
    f.fail("scalar '" + s.name + "': " + why);
  return s;
}

std::string scalarArgAsm(const ScalarArg& s) {
  std::string out = s.name;
  if (s.multipleOf != 1) out += " multiple_of=" + std::to_string(s.multipleOf);
  if (s.min) out += " min=" + std::to_string(*s.min);
  if (s.max) out += " max=" + std::to_string(*s.max);
  return out;
}

std::string scalarConstraintError(const ScalarArg& s) {
  if (s.multipleOf <= 0) return "multiple_of must be positive, got " + std::to_string(s.multipleOf);
  if (s.min && s.max && *s.min > *s.max)
    return "min " + std::to_string(*s.min) + " is greater than max " + std::to_string(*s.max);
  return "";
}

std::string scalarAccepts(const ScalarArg& s) {
  std::string out = s.multipleOf != 1 ? "multiples of " + std::to_string(s.multipleOf) : "values";
  if (s.min && s.max)
    out += " from " + std::to_string(*s.min) + " to " + std::to_string(*s.max);
  else if (s.min)
    out += " from " + std::to_string(*s.min);
  else if (s.max)
    out += " up to " + std::to_string(*s.max);
  return out;
}

std::string scalarViolation(const ScalarArg& s, int64_t value) {
  const std::string v = std::to_string(value);
  if (s.min && value < *s.min) return "is " + v + ", below its minimum " + std::to_string(*s.min);
  if (s.max && value > *s.max) return "is " + v + ", above its maximum " + std::to_string(*s.max);
  if (s.multipleOf > 1 && value % s.multipleOf != 0)
    return "is " + v + ", not a multiple of " + std::to_string(s.multipleOf);
  return "";
}

void checkScalarValue(const ScalarArg& s, int64_t value, const std::string& kernel,
                      const std::string& source) {
  std::string why = scalarViolation(s, value);
  if (why.empty()) return;
  throw Error("scalar '" + s.name + "' of " + kernel + " (from " + source + ") " + why +
              " (the program accepts " + scalarAccepts(s) + ")");
}

void checkBoundScalars(const std::vector<ScalarArg>& scalars,
                       const std::map<std::string, int64_t>& values,
                       const std::map<std::string, std::string>& sources,
                       const std::string& kernel) {
  for (const auto& s : scalars) {
    auto v = values.find(s.name);
    if (v == values.end())
      throw Error("scalar '" + s.name + "' of " + kernel + " is not bound (pass --scalar " +
                  s.name + "=VALUE)");
    auto source = sources.find(s.name);
    checkScalarValue(s, v->second, kernel, source == sources.end() ? "launch" : source->second);
  }
}

} // namespace chipless

// Part of chipless. Scalar arguments of job plans: JSON, assembly text, launch check.
#include "support/scalar_arg.h"

#include "support/error.h"
#include "support/numerics.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace chipless {

nlohmann::json scalarArgToJson(const ScalarArg& s) {
  nlohmann::json j = {{"name", s.name}};
  if (s.multipleOf != 1) j["multiple_of"] = s.multipleOf;
  if (s.min) j["min"] = *s.min;
  if (s.max) j["max"] = *s.max;
  if (s.real) j["type"] = dtypeName(*s.real);
  return j;
}

ScalarArg scalarArgFromJson(const JsonFields& f) {
  f.only({"name", "multiple_of", "min", "max", "type"});
  ScalarArg s;
  s.name = f.str("name");
  if (f.has("multiple_of")) s.multipleOf = f.integer("multiple_of");
  if (f.has("min")) s.min = f.integer("min");
  if (f.has("max")) s.max = f.integer("max");
  if (f.has("type")) {
    const std::string t = f.str("type");
    auto dt = parseDType(t);
    if (!dt || !isFloatType(*dt))
      f.fail("scalar '" + s.name + "': type must be f16, bf16 or f32 (a real scalar), got '" + t +
             "'");
    s.real = dt;
  }
  if (std::string why = scalarConstraintError(s); !why.empty())
    f.fail("scalar '" + s.name + "': " + why);
  return s;
}

std::string scalarArgAsm(const ScalarArg& s) {
  std::string out = s.name;
  if (s.multipleOf != 1) out += " multiple_of=" + std::to_string(s.multipleOf);
  if (s.min) out += " min=" + std::to_string(*s.min);
  if (s.max) out += " max=" + std::to_string(*s.max);
  if (s.real) out += std::string(" type=") + dtypeName(*s.real);
  return out;
}

std::string scalarConstraintError(const ScalarArg& s) {
  if (s.multipleOf <= 0) return "multiple_of must be positive, got " + std::to_string(s.multipleOf);
  if (s.min && s.max && *s.min > *s.max)
    return "min " + std::to_string(*s.min) + " is greater than max " + std::to_string(*s.max);
  if (s.real && !isFloatType(*s.real))
    return std::string("type must be f16, bf16 or f32, got ") + dtypeName(*s.real);
  if (s.real && (s.multipleOf != 1 || s.min || s.max))
    return "a real scalar takes no multiple_of, min or max";
  return "";
}

std::optional<double> parseReal(const std::string& text) {
  if (text == "inf" || text == "+inf") return INFINITY;
  if (text == "-inf") return -INFINITY;
  if (text == "nan") return NAN;
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

int64_t realScalarBits(const ScalarArg& s, double value) {
  double rounded = value;
  switch (s.real.value_or(DType::F32)) {
  case DType::F16:
    rounded = halfToFloat(floatToHalf(static_cast<float>(value)));
    break;
  case DType::BF16:
    rounded = bf16ToFloat(floatToBf16(static_cast<float>(value)));
    break;
  default:
    rounded = static_cast<float>(value);
    break;
  }
  int64_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  return bits;
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
    if (s.real) continue; // bound and converted by bindRealScalars
    auto v = values.find(s.name);
    if (v == values.end())
      throw Error("scalar '" + s.name + "' of " + kernel + " is not bound (pass --scalar " +
                  s.name + "=VALUE)");
    auto source = sources.find(s.name);
    checkScalarValue(s, v->second, kernel, source == sources.end() ? "launch" : source->second);
  }
}

void bindRealScalars(const std::vector<ScalarArg>& scalars,
                     const std::map<std::string, double>& reals,
                     std::map<std::string, int64_t>& values, const std::string& kernel) {
  for (const auto& [name, v] : reals) {
    const ScalarArg* s = nullptr;
    for (const auto& x : scalars)
      if (x.name == name) s = &x;
    if (!s) throw Error("scalar '" + name + "' is not an argument of " + kernel);
    if (!s->real) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", v);
      throw Error("scalar '" + name + "' of " + kernel + " is an integer, but --scalar " + name +
                  " is " + text);
    }
    if (values.count(name)) throw Error("scalar '" + name + "' of " + kernel + " is given twice");
  }
  for (const auto& s : scalars) {
    if (!s.real) continue;
    auto r = reals.find(s.name);
    auto i = values.find(s.name);
    if (r == reals.end() && i == values.end())
      throw Error("scalar '" + s.name + "' (" + dtypeName(*s.real) + ") of " + kernel +
                  " is not bound (pass --scalar " + s.name + "=VALUE)");
    const double v = r != reals.end() ? r->second : static_cast<double>(i->second);
    values[s.name] = realScalarBits(s, v);
  }
}

} // namespace chipless

#include "support/tpuprog/plan.h"

#include "support/error.h"
#include "support/json_fields.h"
#include "support/plan_common.h"

#include <set>

namespace chipless::tpuprog {

using nlohmann::json;

const char* placementName(Placement p) {
  return p == Placement::Split ? "split" : "replicated";
}

bool JobPlan::operator==(const JobPlan& o) const {
  return kernel == o.kernel && binaryFile == o.binaryFile && args == o.args &&
         scalars == o.scalars && buffers == o.buffers && prepare == o.prepare &&
         execute == o.execute && arch == o.arch && traps == o.traps;
}

const TensorArg* JobPlan::findArg(const std::string& name) const {
  for (const auto& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

using Fields = JsonFields;

TensorArg readArg(const json& j, const std::string& file, const std::string& where) {
  Fields r(j, file, where);
  r.only({"name", "role", "dtype", "shape", "tile", "placement"});
  TensorArg a;
  a.name = r.str("name");
  std::string role = r.str("role");
  if (role == "input")
    a.role = ArgRole::Input;
  else if (role == "output")
    a.role = ArgRole::Output;
  else if (role == "inout")
    a.role = ArgRole::InOut;
  else
    r.failField("role", "expected input, output or inout, got '" + role + "'");
  std::string dt = r.str("dtype");
  auto parsed = parseDType(dt);
  if (!parsed || *parsed == DType::F16)
    r.failField("dtype", "expected bf16, f32, i32 or i8, got '" + dt + "'");
  a.dtype = *parsed;
  const json& shape = r.raw("shape");
  if (!shape.is_array() || shape.empty())
    r.failField("shape", "expected a non-empty array of sizes or scalar names");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_number_integer() && shape[i].get<int64_t>() > 0)
      a.shape.emplace_back(std::in_place_type<int64_t>, shape[i].get<int64_t>());
    else if (shape[i].is_string() && !shape[i].get_ref<const std::string&>().empty())
      a.shape.emplace_back(std::in_place_type<std::string>, shape[i].get_ref<const std::string&>());
    else
      r.failField(indexedField("shape", i),
                  "expected a positive size or a scalar name, got " + shape[i].dump());
  }
  if (r.has("tile")) {
    const json& t = r.raw("tile");
    if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() || !t[1].is_number_integer() ||
        t[0].get<int64_t>() <= 0 || t[1].get<int64_t>() <= 0 || t[0].get<int64_t>() > (1 << 20) ||
        t[1].get<int64_t>() > (1 << 20))
      r.failField("tile", "expected [rows, cols] of two positive sizes, got " + t.dump());
    a.tile[0] = t[0].get<int64_t>();
    a.tile[1] = t[1].get<int64_t>();
  }
  if (r.has("placement")) {
    std::string p = r.str("placement");
    if (p == "replicated")
      a.placement = Placement::Replicated;
    else if (p == "split")
      a.placement = Placement::Split;
    else
      r.failField("placement", "expected replicated or split, got '" + p + "'");
  }
  return a;
}

int lineOfByte(const std::string& text, size_t byte) {
  int line = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

/// "d3" / "p0" → (letter, index) when well formed.
bool parseDimSuffix(const std::string& s, char& letter, int& index) {
  if (s.size() < 2 || s.size() > 4 || (s[0] != 'd' && s[0] != 'p') ||
      s.find_first_not_of("0123456789", 1) != std::string::npos)
    return false;
  letter = s[0];
  index = std::stoi(s.substr(1));
  return true;
}

} // namespace

std::optional<SymbolRef> resolveSymbol(const JobPlan& plan, const std::string& name,
                                       std::string& why) {
  auto dot = name.find('.');
  SymbolRef ref;
  ref.base = name.substr(0, dot);
  if (dot != std::string::npos) {
    const TensorArg* a = plan.findArg(ref.base);
    if (!a) {
      why = "'" + ref.base + "' is not a tensor argument";
      return std::nullopt;
    }
    char letter;
    int index;
    std::string last = std::to_string(a->shape.size() - 1);
    if (!parseDimSuffix(name.substr(dot + 1), letter, index) ||
        index >= static_cast<int>(a->shape.size())) {
      why = "expected " + ref.base + ".d0 .. " + ref.base + ".d" + last + " (dimensions) or " +
            ref.base + ".p0 .. " + ref.base + ".p" + last + " (padded dimensions)";
      return std::nullopt;
    }
    ref.kind = letter == 'd' ? SymbolRef::Kind::Dim : SymbolRef::Kind::PaddedDim;
    ref.dim = index;
    return ref;
  }
  if (plan.findArg(name)) {
    ref.kind = SymbolRef::Kind::Address;
    return ref;
  }
  for (const auto& s : plan.scalars)
    if (s.name == name) {
      ref.kind = SymbolRef::Kind::Scalar;
      return ref;
    }
  for (const auto& b : plan.buffers)
    if (b.name == name) {
      ref.kind = SymbolRef::Kind::Buffer;
      return ref;
    }
  why = "'" + name + "' is not a declared argument, scalar or buffer";
  return std::nullopt;
}

JobPlan parsePlan(const std::string& text, const std::string& path) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("syntax error");
    throw Error(located(path, lineOfByte(text, e.byte),
                        "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos))));
  }
  Fields r(root, path, "");
  r.only({"format", "version", "kernel", "binary", "arguments", "scalars", "buffers", "prepare",
          "execute", "arch", "traps"});
  if (r.str("format") != kPlanFormat)
    r.failField("format",
                std::string("expected \"") + kPlanFormat + "\", got \"" + r.str("format") + "\"" +
                    (r.str("format") == "spyrecode" ? " (a SpyreCode job: use spyre-sim)" : ""));
  if (r.integer("version") != kPlanVersion)
    r.failField("version", "unsupported version " + std::to_string(r.integer("version")) +
                               " (this build reads version " + std::to_string(kPlanVersion) + ")");
  JobPlan plan;
  plan.kernel = r.str("kernel");
  plan.binaryFile = r.str("binary");
  if (r.has("arch")) plan.arch = archRecordFromJson(JsonFields(r.raw("arch"), path, "arch"));
  if (plan.binaryFile.empty() || plan.binaryFile.find('/') != std::string::npos)
    r.failField("binary",
                "expected a file name in the plan's directory, got '" + plan.binaryFile + "'");
  readDeclarations(r, path, plan, readArg);
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const TensorArg& a = plan.args[i];
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        bool found = false;
        for (const auto& sc : plan.scalars) found |= sc.name == *s;
        if (!found)
          throw Error(located(path, 0,
                              indexedField("arguments", i) + ".shape[" + std::to_string(d) +
                                  "]: '" + *s + "' is not a declared scalar"));
      }
  }
  if (r.has("traps")) {
    const json& traps = r.raw("traps");
    if (!traps.is_array()) r.failField("traps", "expected an array");
    for (size_t i = 0; i < traps.size(); ++i) {
      Fields t(traps[i], path, indexedField("traps", i));
      t.only({"code", "message"});
      TrapMessage m{t.integer("code"), t.str("message")};
      for (const auto& other : plan.traps)
        if (other.code == m.code)
          t.failField("code", "code " + std::to_string(m.code) + " is given twice");
      plan.traps.push_back(m);
    }
  }
  plan.prepare = spyrecode::readPlanCommands(root, path, "prepare", true);
  plan.execute = spyrecode::readPlanCommands(root, path, "execute", false);
  for (size_t i = 0; i < plan.execute.size(); ++i) {
    const auto& c = plan.execute[i];
    auto check = [&](const std::string& name, const char* field) {
      if (!plan.findArg(name))
        throw Error(located(path, 0,
                            indexedField("execute", i) + "." + field + ": '" + name +
                                "' is not a tensor argument"));
    };
    if (c.kind == PlanCommand::Kind::DataTransfer) check(c.hostHandle, "host_handle");
    if (c.kind == PlanCommand::Kind::ComputeOnHost) {
      for (const auto& n : c.inputs) check(n, "inputs");
      for (const auto& n : c.outputs) check(n, "outputs");
    }
  }
  return plan;
}

std::string planToJson(const JobPlan& plan) {
  nlohmann::json traps = nlohmann::json::array();
  for (const auto& t : plan.traps) traps.push_back({{"code", t.code}, {"message", t.message}});
  return planJson(plan, kPlanFormat, kPlanVersion, traps.empty() ? nullptr : &traps,
                  [](const TensorArg& a) {
                    return json{{"name", a.name},
                                {"role", argRoleName(a.role)},
                                {"dtype", dtypeName(a.dtype)},
                                {"shape", shapeToJson(a.shape)},
                                {"tile", {a.tile[0], a.tile[1]}},
                                {"placement", placementName(a.placement)}};
                  });
}

void addStandardSteps(JobPlan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment) {
  fillStandardSteps(plan, programPtr, binarySize, alignment);
}

} // namespace chipless::tpuprog

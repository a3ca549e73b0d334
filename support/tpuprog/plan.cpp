#include "support/tpuprog/plan.h"

#include "support/error.h"

#include <set>

namespace chipless::tpuprog {

using nlohmann::json;

const char* placementName(Placement p) {
  return p == Placement::Split ? "split" : "replicated";
}

bool JobPlan::operator==(const JobPlan& o) const {
  return kernel == o.kernel && binaryFile == o.binaryFile && args == o.args &&
         scalars == o.scalars && buffers == o.buffers && prepare == o.prepare &&
         execute == o.execute;
}

const TensorArg* JobPlan::findArg(const std::string& name) const {
  for (const auto& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

/// Reads fields of one JSON object with errors naming the file and the field path.
class Fields {
public:
  Fields(const json& j, std::string file, std::string where)
      : j_(j), file_(std::move(file)), where_(std::move(where)) {
    if (!j_.is_object()) fail("expected an object, got " + j_.dump());
  }
  [[noreturn]] void fail(const std::string& msg) const {
    throw Error(located(file_, 0, (where_.empty() ? "" : where_ + ": ") + msg));
  }
  [[noreturn]] void failField(const std::string& key, const std::string& msg) const {
    throw Error(located(file_, 0, path(key) + ": " + msg));
  }
  std::string path(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  bool has(const std::string& key) const { return j_.contains(key); }
  const json& raw(const std::string& key) const {
    if (!j_.contains(key)) fail("missing field '" + key + "'");
    return j_.at(key);
  }
  std::string str(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_string()) failField(key, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  int64_t integer(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_number_integer()) failField(key, "expected an integer, got " + v.dump());
    return v.get<int64_t>();
  }
  int64_t nonNegative(const std::string& key) const {
    int64_t v = integer(key);
    if (v < 0) failField(key, "must not be negative, got " + std::to_string(v));
    return v;
  }
  /// Rejects keys not in `known`, so typos do not pass silently.
  void only(std::initializer_list<const char*> known) const {
    std::set<std::string> k(known.begin(), known.end());
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!k.count(it.key())) {
        std::string list;
        for (const auto& s : k) list += (list.empty() ? "" : ", ") + s;
        failField(it.key(), "unknown field (expected one of: " + list + ")");
      }
  }

private:
  const json& j_;
  std::string file_;
  std::string where_;
};

std::string indexed(const std::string& base, size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

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
      r.failField(indexed("shape", i),
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
          "execute"});
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
  if (plan.binaryFile.empty() || plan.binaryFile.find('/') != std::string::npos)
    r.failField("binary",
                "expected a file name in the plan's directory, got '" + plan.binaryFile + "'");
  std::set<std::string> names;
  auto unique = [&](const std::string& name, const std::string& where) {
    if (!names.insert(name).second)
      throw Error(located(path, 0, where + ": name '" + name + "' is used twice"));
  };
  const json& args = r.raw("arguments");
  if (!args.is_array()) r.failField("arguments", "expected an array");
  for (size_t i = 0; i < args.size(); ++i) {
    plan.args.push_back(readArg(args[i], path, indexed("arguments", i)));
    unique(plan.args.back().name, indexed("arguments", i));
  }
  if (r.has("scalars")) {
    const json& sc = r.raw("scalars");
    if (!sc.is_array()) r.failField("scalars", "expected an array");
    for (size_t i = 0; i < sc.size(); ++i) {
      Fields s(sc[i], path, indexed("scalars", i));
      s.only({"name"});
      plan.scalars.push_back({s.str("name")});
      unique(plan.scalars.back().name, indexed("scalars", i));
    }
  }
  if (r.has("buffers")) {
    const json& bf = r.raw("buffers");
    if (!bf.is_array()) r.failField("buffers", "expected an array");
    for (size_t i = 0; i < bf.size(); ++i) {
      Fields b(bf[i], path, indexed("buffers", i));
      b.only({"name", "size"});
      plan.buffers.push_back({b.str("name"), b.nonNegative("size")});
      unique(plan.buffers.back().name, indexed("buffers", i));
    }
  }
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const TensorArg& a = plan.args[i];
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        bool found = false;
        for (const auto& sc : plan.scalars) found |= sc.name == *s;
        if (!found)
          throw Error(located(path, 0,
                              indexed("arguments", i) + ".shape[" + std::to_string(d) + "]: '" +
                                  *s + "' is not a declared scalar"));
      }
  }
  plan.prepare = spyrecode::readPlanCommands(root, path, "prepare", true);
  plan.execute = spyrecode::readPlanCommands(root, path, "execute", false);
  for (size_t i = 0; i < plan.execute.size(); ++i) {
    const auto& c = plan.execute[i];
    auto check = [&](const std::string& name, const char* field) {
      if (!plan.findArg(name))
        throw Error(located(path, 0,
                            indexed("execute", i) + "." + field + ": '" + name +
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
  json root;
  root["format"] = kPlanFormat;
  root["version"] = kPlanVersion;
  root["kernel"] = plan.kernel;
  root["binary"] = plan.binaryFile;
  json args = json::array();
  for (const auto& a : plan.args) {
    json shape = json::array();
    for (const auto& d : a.shape) {
      if (auto* v = std::get_if<int64_t>(&d))
        shape.push_back(*v);
      else
        shape.push_back(std::get<std::string>(d));
    }
    args.push_back({{"name", a.name},
                    {"role", argRoleName(a.role)},
                    {"dtype", dtypeName(a.dtype)},
                    {"shape", shape},
                    {"tile", {a.tile[0], a.tile[1]}},
                    {"placement", placementName(a.placement)}});
  }
  root["arguments"] = args;
  json scalars = json::array();
  for (const auto& s : plan.scalars) scalars.push_back({{"name", s.name}});
  root["scalars"] = scalars;
  json buffers = json::array();
  for (const auto& b : plan.buffers) buffers.push_back({{"name", b.name}, {"size", b.size}});
  root["buffers"] = buffers;
  json prep = json::array(), exec = json::array();
  for (const auto& c : plan.prepare) prep.push_back(spyrecode::planCommandToJson(c));
  for (const auto& c : plan.execute) exec.push_back(spyrecode::planCommandToJson(c));
  root["prepare"] = prep;
  root["execute"] = exec;
  return root.dump(2) + "\n";
}

void addStandardSteps(JobPlan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment) {
  auto align = [&](uint64_t v) { return (v + alignment - 1) / alignment * alignment; };
  plan.prepare.clear();
  plan.execute.clear();
  PlanCommand alloc;
  alloc.kind = PlanCommand::Kind::Allocate;
  alloc.name = "program";
  alloc.size = binarySize;
  alloc.devPtr = formatDevPtr(programPtr);
  plan.prepare.push_back(alloc);
  PlanCommand init;
  init.kind = PlanCommand::Kind::InitTransfer;
  init.filePath = plan.binaryFile;
  init.size = binarySize;
  init.devPtr = formatDevPtr(programPtr);
  plan.prepare.push_back(init);
  uint64_t next = align(programPtr + static_cast<uint64_t>(binarySize));
  for (const auto& b : plan.buffers) {
    PlanCommand a;
    a.kind = PlanCommand::Kind::Allocate;
    a.name = b.name;
    a.size = b.size;
    a.devPtr = formatDevPtr(next);
    plan.prepare.push_back(a);
    next = align(next + static_cast<uint64_t>(b.size));
  }
  for (const auto& a : plan.args) {
    if (a.role == ArgRole::Output) continue;
    PlanCommand t;
    t.kind = PlanCommand::Kind::DataTransfer;
    t.direction = 0;
    t.hostHandle = a.name;
    t.devPtr = "@" + a.name;
    plan.execute.push_back(t);
  }
  PlanCommand run;
  run.kind = PlanCommand::Kind::ComputeOnDevice;
  run.devPtr = formatDevPtr(programPtr);
  plan.execute.push_back(run);
  for (const auto& a : plan.args) {
    if (a.role == ArgRole::Input) continue;
    PlanCommand t;
    t.kind = PlanCommand::Kind::DataTransfer;
    t.direction = 1;
    t.hostHandle = a.name;
    t.devPtr = "@" + a.name;
    plan.execute.push_back(t);
  }
}

} // namespace chipless::tpuprog

#include "support/spyrecode/plan.h"

#include "support/error.h"

#include <cctype>
#include <cstdio>
#include <set>

namespace chipless::spyrecode {

using nlohmann::json;

const char* argRoleName(ArgRole r) {
  switch (r) {
  case ArgRole::Input:
    return "input";
  case ArgRole::Output:
    return "output";
  case ArgRole::InOut:
    return "inout";
  }
  return "?";
}

const char* layoutName(Layout l) {
  return l == Layout::RowMajor ? "row_major" : "stick";
}

bool parseLayout(std::string_view s, Layout& out) {
  if (s == "stick")
    out = Layout::Stick;
  else if (s == "row_major")
    out = Layout::RowMajor;
  else
    return false;
  return true;
}

const char* commandName(PlanCommand::Kind k) {
  switch (k) {
  case PlanCommand::Kind::Allocate:
    return "Allocate";
  case PlanCommand::Kind::InitTransfer:
    return "InitTransfer";
  case PlanCommand::Kind::DataTransfer:
    return "DataTransfer";
  case PlanCommand::Kind::ComputeOnDevice:
    return "ComputeOnDevice";
  case PlanCommand::Kind::ComputeOnHost:
    return "ComputeOnHost";
  }
  return "?";
}

bool PlanCommand::operator==(const PlanCommand& o) const {
  return kind == o.kind && name == o.name && size == o.size && devPtr == o.devPtr &&
         filePath == o.filePath && direction == o.direction && hostHandle == o.hostHandle &&
         function == o.function && inputs == o.inputs && outputs == o.outputs &&
         metadata == o.metadata;
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

uint64_t parseDevPtr(const std::string& s, const std::string& what) {
  if (s.empty()) throw Error(what + ": expected a device address, got an empty string");
  // Hexadecimal with 0x, else decimal (not octal: "010" is ten); no sign or blanks.
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  size_t pos = 0;
  uint64_t v = 0;
  try {
    if (std::isxdigit(static_cast<unsigned char>(s[hex ? 2 : 0])))
      v = std::stoull(s, &pos, hex ? 16 : 10);
  } catch (...) {
    pos = 0;
  }
  if (pos != s.size())
    throw Error(what + ": expected a device address like 0x1C00000000, got '" + s + "'");
  return v;
}

std::string formatDevPtr(uint64_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(p));
  return buf;
}

namespace {

/// Reads fields of one JSON object with errors that name the file and the field path.
class Reader {
public:
  Reader(const json& j, std::string file, std::string where)
      : j_(j), file_(std::move(file)), where_(std::move(where)) {
    if (!j_.is_object()) fail("expected an object");
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
  std::vector<std::string> strings(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_array()) failField(key, "expected an array of names");
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string())
        failField(key + "[" + std::to_string(i) + "]", "expected a string, got " + v[i].dump());
      out.push_back(v[i].get<std::string>());
    }
    return out;
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
  Reader r(j, file, where);
  r.only({"name", "role", "dtype", "shape", "layout"});
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
  if (!parsed) r.failField("dtype", "expected f16, bf16, f32 or i32, got '" + dt + "'");
  a.dtype = *parsed;
  if (r.has("layout") && !parseLayout(r.str("layout"), a.layout))
    r.failField("layout", "expected \"stick\" or \"row_major\", got '" + r.str("layout") + "'");
  const json& shape = r.raw("shape");
  if (!shape.is_array() || shape.empty())
    r.failField("shape", "expected a non-empty array of sizes or scalar names");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_number_integer() && shape[i].get<int64_t>() > 0)
      a.shape.push_back(shape[i].get<int64_t>());
    else if (shape[i].is_string() && !shape[i].get<std::string>().empty())
      a.shape.push_back(shape[i].get<std::string>());
    else
      r.failField(indexed("shape", i),
                  "expected a positive size or a scalar name, got " + shape[i].dump());
  }
  return a;
}

PlanCommand readCommand(const json& j, const std::string& file, const std::string& where,
                        bool preparation) {
  Reader r(j, file, where);
  PlanCommand c;
  std::string kind = r.str("command");
  if (preparation) {
    if (kind == "Allocate") {
      r.only({"command", "name", "size", "dev_ptr"});
      c.kind = PlanCommand::Kind::Allocate;
      c.name = r.str("name");
      c.size = r.nonNegative("size");
      c.devPtr = r.str("dev_ptr");
      parseDevPtr(c.devPtr, located(file, 0, r.path("dev_ptr")));
    } else if (kind == "InitTransfer") {
      r.only({"command", "file_path", "size", "dev_ptr"});
      c.kind = PlanCommand::Kind::InitTransfer;
      c.filePath = r.str("file_path");
      c.size = r.nonNegative("size");
      c.devPtr = r.str("dev_ptr");
      parseDevPtr(c.devPtr, located(file, 0, r.path("dev_ptr")));
    } else {
      r.failField("command",
                  "expected Allocate or InitTransfer in the preparation plan, got '" + kind + "'");
    }
    return c;
  }
  if (kind == "DataTransfer") {
    r.only({"command", "direction", "host_handle", "size", "dev_ptr"});
    c.kind = PlanCommand::Kind::DataTransfer;
    int64_t d = r.integer("direction");
    if (d != 0 && d != 1)
      r.failField("direction",
                  "expected 0 (host to device) or 1 (device to host), got " + std::to_string(d));
    c.direction = static_cast<int>(d);
    c.hostHandle = r.str("host_handle");
    c.size = r.has("size") ? r.nonNegative("size") : 0;
    c.devPtr = r.str("dev_ptr");
  } else if (kind == "ComputeOnDevice") {
    r.only({"command", "job_bin_ptr"});
    c.kind = PlanCommand::Kind::ComputeOnDevice;
    c.devPtr = r.str("job_bin_ptr");
    parseDevPtr(c.devPtr, located(file, 0, r.path("job_bin_ptr")));
  } else if (kind == "ComputeOnHost") {
    r.only({"command", "function", "inputs", "outputs", "metadata"});
    c.kind = PlanCommand::Kind::ComputeOnHost;
    c.function = r.str("function");
    c.inputs = r.strings("inputs");
    c.outputs = r.strings("outputs");
    c.metadata = r.has("metadata") ? r.raw("metadata") : json::object();
  } else {
    r.failField("command", "expected DataTransfer, ComputeOnDevice or ComputeOnHost in the "
                           "execution plan, got '" +
                               kind + "'");
  }
  return c;
}

json commandToJson(const PlanCommand& c) {
  json j;
  j["command"] = commandName(c.kind);
  switch (c.kind) {
  case PlanCommand::Kind::Allocate:
    j["name"] = c.name;
    j["size"] = c.size;
    j["dev_ptr"] = c.devPtr;
    break;
  case PlanCommand::Kind::InitTransfer:
    j["file_path"] = c.filePath;
    j["size"] = c.size;
    j["dev_ptr"] = c.devPtr;
    break;
  case PlanCommand::Kind::DataTransfer:
    j["direction"] = c.direction;
    j["host_handle"] = c.hostHandle;
    j["size"] = c.size;
    j["dev_ptr"] = c.devPtr;
    break;
  case PlanCommand::Kind::ComputeOnDevice:
    j["job_bin_ptr"] = c.devPtr;
    break;
  case PlanCommand::Kind::ComputeOnHost:
    j["function"] = c.function;
    j["inputs"] = c.inputs;
    j["outputs"] = c.outputs;
    j["metadata"] = c.metadata;
    break;
  }
  return j;
}

std::vector<PlanCommand> readCommands(const json& root, const std::string& file, const char* key,
                                      bool preparation) {
  std::vector<PlanCommand> out;
  if (!root.contains(key))
    throw Error(located(file, 0, std::string("missing field '") + key + "'"));
  const json& list = root.at(key);
  if (!list.is_array()) throw Error(located(file, 0, std::string(key) + ": expected an array"));
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(readCommand(list[i], file, indexed(key, i), preparation));
  return out;
}

int lineOfByte(const std::string& text, size_t byte) {
  int line = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

} // namespace

std::vector<PlanCommand> readPlanCommands(const json& root, const std::string& file,
                                          const char* key, bool preparation) {
  return readCommands(root, file, key, preparation);
}

json planCommandToJson(const PlanCommand& command) {
  return commandToJson(command);
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
  Reader r(root, path, "");
  r.only({"format", "version", "kernel", "binary", "arguments", "scalars", "buffers", "prepare",
          "execute"});
  if (r.str("format") != "spyrecode")
    r.failField("format", "expected \"spyrecode\", got \"" + r.str("format") + "\"");
  if (r.integer("version") != kPlanVersion)
    r.failField("version", "unsupported version " + std::to_string(r.integer("version")) +
                               " (this build reads version " + std::to_string(kPlanVersion) + ")");
  JobPlan plan;
  plan.kernel = r.str("kernel");
  plan.binaryFile = r.str("binary");
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
      Reader s(sc[i], path, indexed("scalars", i));
      s.only({"name"});
      plan.scalars.push_back({s.str("name")});
      unique(plan.scalars.back().name, indexed("scalars", i));
    }
  }
  if (r.has("buffers")) {
    const json& bf = r.raw("buffers");
    if (!bf.is_array()) r.failField("buffers", "expected an array");
    for (size_t i = 0; i < bf.size(); ++i) {
      Reader b(bf[i], path, indexed("buffers", i));
      b.only({"name", "size"});
      plan.buffers.push_back({b.str("name"), b.nonNegative("size")});
      unique(plan.buffers.back().name, indexed("buffers", i));
    }
  }
  for (const auto& a : plan.args)
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        bool found = false;
        for (const auto& sc : plan.scalars) found |= sc.name == *s;
        if (!found)
          throw Error(located(path, 0,
                              "arguments '" + a.name + "' shape[" + std::to_string(d) + "]: '" +
                                  *s + "' is not a declared scalar"));
      }
  plan.prepare = readCommands(root, path, "prepare", true);
  plan.execute = readCommands(root, path, "execute", false);
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
  root["format"] = "spyrecode";
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
                    {"layout", layoutName(a.layout)}});
  }
  root["arguments"] = args;
  json scalars = json::array();
  for (const auto& s : plan.scalars) scalars.push_back({{"name", s.name}});
  root["scalars"] = scalars;
  json buffers = json::array();
  for (const auto& b : plan.buffers) buffers.push_back({{"name", b.name}, {"size", b.size}});
  root["buffers"] = buffers;
  json prep = json::array(), exec = json::array();
  for (const auto& c : plan.prepare) prep.push_back(commandToJson(c));
  for (const auto& c : plan.execute) exec.push_back(commandToJson(c));
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

} // namespace chipless::spyrecode

#include "support/spyrecode/plan.h"

#include "support/error.h"
#include "support/json_fields.h"
#include "support/plan_common.h"

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
         execute == o.execute && arch == o.arch;
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

using Reader = JsonFields;

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
      r.failField(indexedField("shape", i),
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
    out.push_back(readCommand(list[i], file, indexedField(key, i), preparation));
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
          "execute", "arch"});
  if (r.str("format") != "spyrecode")
    r.failField("format", "expected \"spyrecode\", got \"" + r.str("format") + "\"");
  if (r.integer("version") != kPlanVersion)
    r.failField("version", "unsupported version " + std::to_string(r.integer("version")) +
                               " (this build reads version " + std::to_string(kPlanVersion) + ")");
  JobPlan plan;
  plan.kernel = r.str("kernel");
  plan.binaryFile = r.str("binary");
  if (r.has("arch")) plan.arch = archRecordFromJson(JsonFields(r.raw("arch"), path, "arch"));
  readDeclarations(r, path, plan, readArg);
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
  return planJson(plan, "spyrecode", kPlanVersion, nullptr, [](const TensorArg& a) {
    return json{{"name", a.name},
                {"role", argRoleName(a.role)},
                {"dtype", dtypeName(a.dtype)},
                {"shape", shapeToJson(a.shape)},
                {"layout", layoutName(a.layout)}};
  });
}

void addStandardSteps(JobPlan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment) {
  fillStandardSteps(plan, programPtr, binarySize, alignment);
}

} // namespace chipless::spyrecode

#include "support/progformat/plan_json.h"

#include "support/error.h"
#include "support/progformat/operand.h"

#include <cstring>

namespace chipless::progformat {

using nlohmann::json;

namespace {

PlanCommand readCommand(const json& j, const std::string& file, const std::string& where,
                        bool preparation) {
  JsonFields r(j, file, where);
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

int lineOfByte(const std::string& text, size_t byte) {
  int line = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

/// The plan formats chipless knows, and what to say when one is read by the other's tools.
struct KnownFormat {
  const char* format;
  const char* hint;
};
constexpr KnownFormat kKnownFormats[] = {{"spyrecode", "a SpyreCode job: use spyre-sim"},
                                         {"tpuprog", "a TPU program: use tpu-sim"}};

} // namespace

ChipKind planChip(const json& root, const std::string& path) {
  if (!root.is_object() || !root.contains("format"))
    throw Error(path + ": not a job plan (no \"format\" field)");
  return root["format"] == kKnownFormats[1].format ? ChipKind::Tpu : ChipKind::Spyre;
}

std::vector<PlanCommand> readPlanCommands(const json& root, const std::string& file,
                                          const char* key, bool preparation) {
  std::vector<PlanCommand> out;
  if (!root.contains(key))
    throw Error(located(file, 0, std::string("missing field '") + key + "'"));
  const json& list = root.at(key);
  if (!list.is_array()) throw Error(located(file, 0, std::string(key) + ": expected an array"));
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(readCommand(list[i], file, indexedField(key, i), preparation));
  return out;
}

json planCommandToJson(const PlanCommand& c) {
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

json parsePlanJson(const std::string& text, const std::string& path) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("syntax error");
    throw Error(located(path, lineOfByte(text, e.byte),
                        "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos))));
  } catch (const json::out_of_range& e) {
    // A number beyond every JSON number type ("number overflow parsing '1E999'"): located
    // at the first occurrence of the number the message quotes.
    const std::string what = e.what();
    const size_t open = what.find('\''), close = what.rfind('\'');
    size_t at = std::string::npos;
    if (open != std::string::npos && close > open + 1)
      at = text.find(what.substr(open + 1, close - open - 1));
    const size_t message = what.find("number overflow");
    throw Error(
        located(path, at == std::string::npos ? 0 : lineOfByte(text, at + 1),
                "malformed JSON: " + (message == std::string::npos ? what : what.substr(message))));
  }
}

void checkPlanFormat(const JsonFields& r, const char* format) {
  std::string got = r.str("format");
  if (got != format) {
    std::string hint;
    for (const auto& k : kKnownFormats)
      if (got == k.format) hint = std::string(" (") + k.hint + ")";
    r.failField("format", std::string("expected \"") + format + "\", got \"" + got + "\"" + hint);
  }
  if (r.integer("version") != kPlanVersion)
    r.failField("version", "unsupported version " + std::to_string(r.integer("version")) +
                               " (this build reads version " + std::to_string(kPlanVersion) + ")");
}

ArgRole readArgRole(const JsonFields& r) {
  std::string role = r.str("role");
  if (role == "input") return ArgRole::Input;
  if (role == "output") return ArgRole::Output;
  if (role == "inout") return ArgRole::InOut;
  r.failField("role", "expected input, output or inout, got '" + role + "'");
}

DType readArgDtype(const JsonFields& r, uint32_t types) {
  std::string dt = r.str("dtype");
  auto parsed = parseDType(dt);
  if (!parsed || !(types & dtypeBit(*parsed)))
    r.failField("dtype", "expected " + dtypeListText(types) + ", got '" + dt + "'");
  return *parsed;
}

std::vector<Dim> readArgShape(const JsonFields& r) {
  const json& shape = r.raw("shape");
  if (!shape.is_array() || shape.empty())
    r.failField("shape", "expected a non-empty array of sizes or scalar names");
  std::vector<Dim> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_number_integer() && shape[i].get<int64_t>() > 0)
      out.emplace_back(std::in_place_type<int64_t>, shape[i].get<int64_t>());
    else if (shape[i].is_string() && !shape[i].get_ref<const std::string&>().empty())
      out.emplace_back(std::in_place_type<std::string>, shape[i].get_ref<const std::string&>());
    else
      r.failField(indexedField("shape", i),
                  "expected a positive size or a scalar name, got " + shape[i].dump());
  }
  return out;
}

json shapeToJson(const std::vector<Dim>& shape) {
  json out = json::array();
  for (const auto& d : shape) {
    if (auto* v = std::get_if<int64_t>(&d))
      out.push_back(*v);
    else
      out.push_back(std::get<std::string>(d));
  }
  return out;
}

} // namespace chipless::progformat

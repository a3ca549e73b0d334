#pragma once
/// job.plan as JSON, read and written once for both program formats: format and version,
/// kernel, binary, the arguments, scalars and buffers (names unique across all three),
/// the architecture record, the preparation and execution commands, and the checks that
/// tie them together (shape scalars declared, transfers naming arguments). Errors name the
/// file and the field ("job.plan: arguments[1].dtype: expected ..."), or the line for
/// malformed JSON. What differs per chip comes from `Chip` (isa_table.h) and these hooks:
///
///   kPlanFormat                                 the "format" value ("spyrecode", "tpuprog")
///   argKeys(), readArgFields(r, arg), argFieldsToJson(arg, j)   a tensor's own fields
///   planKeys(), readPlanFields(r, path, plan), planFieldsToJson(plan, root)
///                                               the plan's own fields (TPU: traps)
#include "support/arch_files.h"
#include "support/dtype.h"
#include "support/json_fields.h"
#include "support/progformat/plan.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace chipless::progformat {

/// Reads the command list `key` ("prepare" when `preparation`, else "execute") of a plan's
/// JSON root; errors name `file` and the field ("execute[2].direction").
std::vector<PlanCommand> readPlanCommands(const nlohmann::json& root, const std::string& file,
                                          const char* key, bool preparation);
/// One command as planToJson writes it.
nlohmann::json planCommandToJson(const PlanCommand& command);

/// Parses JSON text; a syntax error names `path` and its line.
nlohmann::json parsePlanJson(const std::string& text, const std::string& path);
/// The chip a job.plan's JSON root is for: a TPU for "format": "tpuprog", else Spyre (whose
/// reader names the right tool for any other format). chipless::Error naming `path` when the
/// root is not an object with a "format".
ChipKind planChip(const nlohmann::json& root, const std::string& path);
/// Checks the root's "format" (naming the tool for another chip's plan) and "version".
void checkPlanFormat(const JsonFields& root, const char* format);

/// A tensor argument's role ("input", "output", "inout").
ArgRole readArgRole(const JsonFields& r);
/// A tensor argument's element type, one of `types` (a dtypeBit mask).
DType readArgDtype(const JsonFields& r, uint32_t types);
/// A tensor argument's shape: positive sizes and scalar names.
std::vector<Dim> readArgShape(const JsonFields& r);
/// A shape as JSON: sizes as numbers, scalar dimensions as their names.
nlohmann::json shapeToJson(const std::vector<Dim>& shape);

/// Reads a plan's declarations: "arguments" (each with `readArg(json, path, where)`), and
/// the optional "scalars" and "buffers"; names must be unique across all three.
template <typename Plan, typename ReadArg>
void readDeclarations(const JsonFields& r, const std::string& path, Plan& plan, ReadArg readArg) {
  std::set<std::string> names;
  auto unique = [&](const std::string& name, const std::string& where) {
    if (!names.insert(name).second)
      throw Error(located(path, 0, where + ": name '" + name + "' is used twice"));
  };
  const nlohmann::json& args = r.raw("arguments");
  if (!args.is_array()) r.failField("arguments", "expected an array");
  for (size_t i = 0; i < args.size(); ++i) {
    plan.args.push_back(readArg(args[i], path, indexedField("arguments", i)));
    unique(plan.args.back().name, indexedField("arguments", i));
  }
  if (r.has("scalars")) {
    const nlohmann::json& sc = r.raw("scalars");
    if (!sc.is_array()) r.failField("scalars", "expected an array");
    for (size_t i = 0; i < sc.size(); ++i) {
      plan.scalars.push_back(
          scalarArgFromJson(JsonFields(sc[i], path, indexedField("scalars", i))));
      unique(plan.scalars.back().name, indexedField("scalars", i));
    }
  }
  if (r.has("buffers")) {
    const nlohmann::json& bf = r.raw("buffers");
    if (!bf.is_array()) r.failField("buffers", "expected an array");
    for (size_t i = 0; i < bf.size(); ++i) {
      JsonFields b(bf[i], path, indexedField("buffers", i));
      b.only({"name", "size"});
      plan.buffers.push_back({b.str("name"), b.nonNegative("size")});
      unique(plan.buffers.back().name, indexedField("buffers", i));
    }
  }
}

/// One tensor argument: the fields every chip has, then the chip's own.
template <typename Chip>
typename Chip::TensorArg readArg(const nlohmann::json& j, const std::string& file,
                                 const std::string& where) {
  JsonFields r(j, file, where);
  std::vector<const char*> keys = {"name", "role", "dtype", "shape"};
  for (const char* k : Chip::argKeys()) keys.push_back(k);
  r.only(keys);
  typename Chip::TensorArg a;
  a.name = r.str("name");
  a.role = readArgRole(r);
  a.dtype = readArgDtype(r, Chip::kElementTypes);
  a.shape = readArgShape(r);
  Chip::readArgFields(r, a);
  return a;
}

/// Parses job.plan text.
template <typename Chip>
typename Chip::JobPlan parsePlan(const std::string& text, const std::string& path) {
  nlohmann::json root = parsePlanJson(text, path);
  JsonFields r(root, path, "");
  std::vector<const char*> keys = {"format",  "version", "kernel",  "binary",  "arguments",
                                   "scalars", "buffers", "prepare", "execute", "arch"};
  for (const char* k : Chip::planKeys()) keys.push_back(k);
  r.only(keys);
  checkPlanFormat(r, Chip::kPlanFormat);
  typename Chip::JobPlan plan;
  plan.kernel = r.str("kernel");
  plan.binaryFile = r.str("binary");
  if (r.has("arch")) plan.arch = archRecordFromJson(JsonFields(r.raw("arch"), path, "arch"));
  if (plan.binaryFile.empty() || plan.binaryFile.find('/') != std::string::npos)
    r.failField("binary",
                "expected a file name in the plan's directory, got '" + plan.binaryFile + "'");
  readDeclarations(r, path, plan, readArg<Chip>);
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const auto& a = plan.args[i];
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        const ScalarArg* found = nullptr;
        for (const auto& sc : plan.scalars)
          if (sc.name == *s) found = &sc;
        if (!found)
          throw Error(located(path, 0,
                              indexedField("arguments", i) + ".shape[" + std::to_string(d) +
                                  "]: '" + *s + "' is not a declared scalar"));
        if (found->real)
          throw Error(located(path, 0,
                              indexedField("arguments", i) + ".shape[" + std::to_string(d) +
                                  "]: '" + *s + "' is a real scalar and cannot size a tensor"));
      }
  }
  Chip::readPlanFields(r, path, plan);
  plan.prepare = readPlanCommands(root, path, "prepare", true);
  plan.execute = readPlanCommands(root, path, "execute", false);
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

/// Serialises a plan as pretty JSON with sorted keys (deterministic).
template <typename Chip>
std::string planToJson(const typename Chip::JobPlan& plan) {
  nlohmann::json root;
  root["format"] = Chip::kPlanFormat;
  root["version"] = kPlanVersion;
  root["kernel"] = plan.kernel;
  root["binary"] = plan.binaryFile;
  nlohmann::json args = nlohmann::json::array(), scalars = nlohmann::json::array(),
                 buffers = nlohmann::json::array(), prep = nlohmann::json::array(),
                 exec = nlohmann::json::array();
  for (const auto& a : plan.args) {
    nlohmann::json j = {{"name", a.name},
                        {"role", argRoleName(a.role)},
                        {"dtype", dtypeName(a.dtype)},
                        {"shape", shapeToJson(a.shape)}};
    Chip::argFieldsToJson(a, j);
    args.push_back(j);
  }
  for (const auto& s : plan.scalars) scalars.push_back(scalarArgToJson(s));
  for (const auto& b : plan.buffers) buffers.push_back({{"name", b.name}, {"size", b.size}});
  for (const auto& c : plan.prepare) prep.push_back(planCommandToJson(c));
  for (const auto& c : plan.execute) exec.push_back(planCommandToJson(c));
  root["arguments"] = args;
  root["scalars"] = scalars;
  root["buffers"] = buffers;
  root["prepare"] = prep;
  root["execute"] = exec;
  if (plan.arch) root["arch"] = archRecordToJson(*plan.arch);
  Chip::planFieldsToJson(plan, root);
  return root.dump(2) + "\n";
}

} // namespace chipless::progformat

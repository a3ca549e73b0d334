#pragma once
/// What both job-plan formats (SpyreCode and TPU programs) share beyond spyrecode's commands:
/// the standard preparation and execution steps, and the JSON of the parts their plans have
/// in common. Templates over spyrecode::JobPlan and tpuprog::JobPlan.
#include "support/error.h"
#include "support/json_fields.h"
#include "support/scalar_arg.h"
#include "support/spyrecode/plan.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <variant>

namespace chipless {

/// A shape as JSON: sizes as numbers, scalar dimensions as their names.
template <typename Shape>
nlohmann::json shapeToJson(const Shape& shape) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : shape) {
    if (auto* v = std::get_if<int64_t>(&d))
      out.push_back(*v);
    else
      out.push_back(std::get<std::string>(d));
  }
  return out;
}

/// The plan as JSON: format, version, kernel, binary, `arguments` (one object per argument,
/// from `argToJson`), scalars, buffers, both step lists, the architecture record and, when
/// not null, `traps`. Pretty-printed with sorted keys.
template <typename Plan, typename ArgToJson>
std::string planJson(const Plan& plan, const char* format, int version, const nlohmann::json* traps,
                     ArgToJson argToJson) {
  nlohmann::json root;
  root["format"] = format;
  root["version"] = version;
  root["kernel"] = plan.kernel;
  root["binary"] = plan.binaryFile;
  nlohmann::json args = nlohmann::json::array(), scalars = nlohmann::json::array(),
                 buffers = nlohmann::json::array(), prep = nlohmann::json::array(),
                 exec = nlohmann::json::array();
  for (const auto& a : plan.args) args.push_back(argToJson(a));
  for (const auto& s : plan.scalars) scalars.push_back(scalarArgToJson(s));
  for (const auto& b : plan.buffers) buffers.push_back({{"name", b.name}, {"size", b.size}});
  for (const auto& c : plan.prepare) prep.push_back(spyrecode::planCommandToJson(c));
  for (const auto& c : plan.execute) exec.push_back(spyrecode::planCommandToJson(c));
  root["arguments"] = args;
  root["scalars"] = scalars;
  root["buffers"] = buffers;
  root["prepare"] = prep;
  root["execute"] = exec;
  if (plan.arch) root["arch"] = archRecordToJson(*plan.arch);
  if (traps) root["traps"] = *traps;
  return root.dump(2) + "\n";
}

/// Reads a plan's declarations: "arguments" (each with `readArg(json, path, where)`), and
/// the optional "scalars" and "buffers"; names must be unique across all three. Errors name
/// `path` and the field.
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

/// Fills `plan.prepare` and `plan.execute` (replacing what they held). `Plan` is
/// spyrecode::JobPlan or tpuprog::JobPlan: both have binaryFile, buffers and args with name
/// and role, and spyrecode's PlanCommand.
template <typename Plan>
void fillStandardSteps(Plan& plan, uint64_t programPtr, int64_t binarySize, uint64_t alignment) {
  using spyrecode::ArgRole;
  using spyrecode::formatDevPtr;
  using spyrecode::PlanCommand;
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
  auto transfer = [&](const std::string& name, int direction) {
    PlanCommand t;
    t.kind = PlanCommand::Kind::DataTransfer;
    t.direction = direction;
    t.hostHandle = name;
    t.devPtr = "@" + name;
    plan.execute.push_back(t);
  };
  for (const auto& a : plan.args)
    if (a.role != ArgRole::Output) transfer(a.name, 0);
  PlanCommand run;
  run.kind = PlanCommand::Kind::ComputeOnDevice;
  run.devPtr = formatDevPtr(programPtr);
  plan.execute.push_back(run);
  for (const auto& a : plan.args)
    if (a.role != ArgRole::Input) transfer(a.name, 1);
}

} // namespace chipless

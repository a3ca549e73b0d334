#include "support/arch_json.h"

namespace chipless {

namespace {

/// "int", "float", "bool" or "string": the JSON name of a parameter's type.
const char* jsonTypeName(ParamType type) {
  switch (type) {
  case ParamType::Int:
    return "int";
  case ParamType::Float:
    return "float";
  case ParamType::Bool:
    return "bool";
  case ParamType::String:
    return "string";
  }
  return "string";
}

/// The value of `decl` in `description`, with its own JSON type.
nlohmann::ordered_json valueJson(const ArchDescription& description, const ParamDecl& decl) {
  switch (decl.type) {
  case ParamType::Int:
    return description.getInt(decl.path);
  case ParamType::Float:
    return description.getFloat(decl.path);
  case ParamType::Bool:
    return description.getBool(decl.path);
  case ParamType::String:
    return description.getString(decl.path);
  }
  return nullptr;
}

} // namespace

nlohmann::ordered_json archDescriptionJson(const ArchDescription& description, ChipKind chip) {
  nlohmann::ordered_json root;
  root["chip"] = chipKindName(chip);
  root["file"] = description.sourceFile();
  root["overrides"] = description.overrides();
  root["fingerprint"] = description.fingerprint();
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const ParamDecl& d : description.schema()) {
    nlohmann::ordered_json p;
    p["value"] = valueJson(description, d);
    p["type"] = jsonTypeName(d.type);
    p["unit"] = d.unit;
    p["role"] = paramRoleName(d.role);
    p["source"] = paramSourceName(d.source);
    if (d.type == ParamType::Int || d.type == ParamType::Float) {
      p["min"] = d.min;
      p["max"] = d.max;
    }
    if (!d.choices.empty()) p["choices"] = d.choices;
    p["description"] = d.description;
    params[d.path] = std::move(p);
  }
  root["params"] = std::move(params);
  return root;
}

} // namespace chipless

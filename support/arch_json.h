#pragma once
/// A resolved architecture description as JSON, for tools that drive chipless from outside
/// (the study runner, scripts): every parameter's value with its type, unit and role, so a
/// caller can tell planned-with from timing-only parameters without parsing the .def tables.
#include "support/arch_files.h"
#include "support/arch_schema.h"

#include <nlohmann/json.hpp>

namespace chipless {

/// {"chip": "spyre"|"tpu", "file", "overrides", "fingerprint", "params": {path: {"value",
/// "type", "unit", "role", "source", "min", "max", "description"}}}, params in schema order.
/// Values keep their type: integers as JSON integers, reals as numbers, bools, strings.
nlohmann::ordered_json archDescriptionJson(const ArchDescription& description, ChipKind chip);

} // namespace chipless

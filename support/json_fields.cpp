#include "support/json_fields.h"

#include <set>

namespace chipless {

using nlohmann::json;

JsonFields::JsonFields(const json& j, std::string file, std::string where)
    : j_(j), file_(std::move(file)), where_(std::move(where)) {
  if (!j_.is_object()) fail("expected an object, got " + j_.dump());
}

void JsonFields::fail(const std::string& msg) const {
  throw Error(located(file_, 0, (where_.empty() ? "" : where_ + ": ") + msg));
}

void JsonFields::failField(const std::string& key, const std::string& msg) const {
  throw Error(located(file_, 0, path(key) + ": " + msg));
}

std::string JsonFields::path(const std::string& key) const {
  return where_.empty() ? key : where_ + "." + key;
}

const json& JsonFields::raw(const std::string& key) const {
  if (!j_.contains(key)) fail("missing field '" + key + "'");
  return j_.at(key);
}

std::string JsonFields::str(const std::string& key) const {
  const json& v = raw(key);
  if (!v.is_string()) failField(key, "expected a string, got " + v.dump());
  return v.get<std::string>();
}

int64_t JsonFields::integer(const std::string& key) const {
  const json& v = raw(key);
  if (!v.is_number_integer()) failField(key, "expected an integer, got " + v.dump());
  return v.get<int64_t>();
}

int64_t JsonFields::nonNegative(const std::string& key) const {
  int64_t v = integer(key);
  if (v < 0) failField(key, "must not be negative, got " + std::to_string(v));
  return v;
}

std::vector<std::string> JsonFields::strings(const std::string& key) const {
  const json& v = raw(key);
  if (!v.is_array()) failField(key, "expected an array of names");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) failField(indexedField(key, i), "expected a string, got " + v[i].dump());
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

void JsonFields::only(std::initializer_list<const char*> known) const {
  only(std::vector<const char*>(known));
}

void JsonFields::only(const std::vector<const char*>& known) const {
  std::set<std::string> k(known.begin(), known.end());
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!k.count(it.key())) {
      std::string list;
      for (const auto& s : k) list += (list.empty() ? "" : ", ") + s;
      failField(it.key(), "unknown field (expected one of: " + list + ")");
    }
}

std::string indexedField(const std::string& base, size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

} // namespace chipless

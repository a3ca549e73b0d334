#pragma once
/// Reads the fields of one JSON object with errors that name the file and the field path
/// ("job.plan: arguments[1].dtype: expected ..."): the reader behind both job-plan formats
/// (SpyreCode and TPU programs), so both reject bad plans the same way.
#include "support/error.h"

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace chipless {

class JsonFields {
public:
  /// `where` is the object's path in the file ("" for the root); fails if `j` is no object.
  JsonFields(const nlohmann::json& j, std::string file, std::string where);

  [[noreturn]] void fail(const std::string& msg) const;
  [[noreturn]] void failField(const std::string& key, const std::string& msg) const;
  /// The dotted path of `key` in the file.
  std::string path(const std::string& key) const;

  bool has(const std::string& key) const { return j_.contains(key); }
  /// The field's value; fails when it is missing.
  const nlohmann::json& raw(const std::string& key) const;
  std::string str(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  int64_t nonNegative(const std::string& key) const;
  /// An array of strings.
  std::vector<std::string> strings(const std::string& key) const;
  /// Rejects keys not in `known`, so typos do not pass silently.
  void only(std::initializer_list<const char*> known) const;
  /// The same, for a list put together at run time (a format's keys plus a chip's own).
  void only(const std::vector<const char*>& known) const;

private:
  const nlohmann::json& j_;
  std::string file_;
  std::string where_;
};

/// "base[i]", for field paths.
std::string indexedField(const std::string& base, size_t i);

} // namespace chipless

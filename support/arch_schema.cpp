#include "support/arch_schema.h"

#include "support/atomic_file.h"
#include "support/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace chipless {
namespace {

/// A node of the section tree implied by the schema's dotted paths: a section (children)
/// or a parameter (decl). Children keep schema order so output follows the declaration.
struct SchemaNode {
  std::string name;
  std::string path;
  const ParamDecl* decl = nullptr;
  std::vector<std::unique_ptr<SchemaNode>> children;

  /// The child called `key`, or nullptr.
  const SchemaNode* child(const std::string& key) const {
    for (const auto& c : children)
      if (c->name == key) return c.get();
    return nullptr;
  }
};

/// "a.b" + "c" → "a.b.c"; "" + "c" → "c".
std::string joinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

/// Splits a dotted path; empty segments are kept so callers can reject them.
std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

/// Builds the section tree, rejecting malformed schemas (a bug in a chip's declaration).
std::unique_ptr<SchemaNode> buildTree(const std::vector<ParamDecl>& schema) {
  auto root = std::make_unique<SchemaNode>();
  for (const ParamDecl& d : schema) {
    auto bad = [&](const std::string& why) {
      return Error("architecture schema: parameter '" + d.path + "': " + why);
    };
    if ((d.type == ParamType::Int || d.type == ParamType::Float) && !(d.min <= d.max))
      throw bad("min is greater than max");
    if (d.type != ParamType::String && !d.choices.empty())
      throw bad("choices are only allowed for strings");
    SchemaNode* node = root.get();
    std::vector<std::string> parts = splitPath(d.path);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].empty()) throw bad("empty path segment");
      if (node->decl) throw bad("'" + node->path + "' is both a value and a section");
      SchemaNode* next = const_cast<SchemaNode*>(node->child(parts[i]));
      if (!next) {
        node->children.push_back(std::make_unique<SchemaNode>());
        next = node->children.back().get();
        next->name = parts[i];
        next->path = joinPath(node->path, parts[i]);
      }
      node = next;
    }
    if (node->decl) throw bad("declared twice");
    if (!node->children.empty()) throw bad("is both a value and a section");
    node->decl = &d;
  }
  return root;
}

/// Edit distance, for "did you mean" suggestions.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// Collects every parameter node under `node` (depth first, schema order).
void collectLeaves(const SchemaNode& node, std::vector<const SchemaNode*>& out) {
  if (node.decl) out.push_back(&node);
  for (const auto& c : node.children) collectLeaves(*c, out);
}

/// Comma-separated names of a section's children.
std::string childNames(const SchemaNode& node) {
  std::string s;
  for (const auto& c : node.children) s += (s.empty() ? "" : ", ") + c->name;
  return s;
}

/// "unknown key 'chip.coress'" plus the closest sibling, a same-named key in another
/// section, or the list of valid keys at that level.
std::string unknownKeyMessage(const SchemaNode& root, const SchemaNode& parent,
                              const std::string& key) {
  std::string msg = "unknown key '" + joinPath(parent.path, key) + "'";
  const SchemaNode* best = nullptr;
  size_t bestDist = 0;
  for (const auto& c : parent.children) {
    size_t d = editDistance(key, c->name);
    if (!best || d < bestDist) best = c.get(), bestDist = d;
  }
  // Close enough: a few edits (never replacing the whole key), or one key extends the other.
  if (best && ((bestDist <= std::max<size_t>(1, key.size() / 3) && bestDist < key.size()) ||
               (std::min(key.size(), best->name.size()) >= 3 &&
                (best->name.rfind(key, 0) == 0 || key.rfind(best->name, 0) == 0))))
    return msg + "; did you mean '" + best->path + "'?";
  std::vector<const SchemaNode*> leaves;
  collectLeaves(root, leaves);
  for (const SchemaNode* leaf : leaves)
    if (leaf->name == key) return msg + "; did you mean '" + leaf->path + "'?";
  if (parent.path.empty()) return msg + "; valid sections: " + childNames(parent);
  return msg + "; valid keys in '" + parent.path + "': " + childNames(parent);
}

/// True when `text` is an optional sign followed by one or more decimal digits.
bool looksLikeInteger(const std::string& text) {
  size_t i = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

/// Shortest text that reads back as exactly `x`; integral values print without exponent.
std::string formatNumber(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e18) return std::to_string(static_cast<int64_t>(x));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

/// Checks an Int or Float against the declared bounds; empty when inside.
std::string rangeError(const ParamDecl& d, double v, const std::string& text) {
  if (v >= d.min && v <= d.max) return "";
  return text + " is out of range: must be between " + formatNumber(d.min) + " and " +
         formatNumber(d.max);
}

/// Parses `text` as the declared type of `d` into `out`; returns the error (without
/// location or key) or "" on success. `quoted` marks a YAML string written in quotes,
/// which is never accepted as a number or a bool.
std::string parseValue(const ParamDecl& d, const std::string& text, bool quoted,
                       ArchDescription::Value& out) {
  std::string got = quoted ? "the string \"" + text + "\"" : "'" + text + "'";
  switch (d.type) {
  case ParamType::Int: {
    if (quoted || !looksLikeInteger(text)) return "expected an integer, got " + got;
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) return text + " is too large for an integer";
    out.i = v;
    return rangeError(d, static_cast<double>(v), text);
  }
  case ParamType::Float: {
    bool ok =
        !quoted && !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
    char* end = nullptr;
    double v = ok ? std::strtod(text.c_str(), &end) : 0;
    if (!ok || end != text.c_str() + text.size()) return "expected a number, got " + got;
    if (!std::isfinite(v)) return text + " is not a finite number";
    out.f = v;
    return rangeError(d, v, text);
  }
  case ParamType::Bool: {
    if (!quoted && (text == "true" || text == "True" || text == "TRUE")) {
      out.b = true;
      return "";
    }
    if (!quoted && (text == "false" || text == "False" || text == "FALSE")) {
      out.b = false;
      return "";
    }
    return "expected true or false, got " + got;
  }
  case ParamType::String: {
    if (!d.choices.empty() &&
        std::find(d.choices.begin(), d.choices.end(), text) == d.choices.end()) {
      std::string list;
      for (const auto& c : d.choices) list += (list.empty() ? "" : ", ") + c;
      return "'" + text + "' is not one of: " + list;
    }
    out.s = text;
    return "";
  }
  }
  return "unknown parameter type";
}

/// 1-based line of a node, 0 when yaml-cpp has none.
int lineOf(const YAML::Node& n) {
  return n.Mark().line + 1;
}

/// What a non-scalar or empty YAML node is, for "expected X, got Y".
std::string describeNode(const YAML::Node& n) {
  if (n.IsMap()) return "a section (mapping)";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  return "the value '" + n.Scalar() + "'";
}

/// State of one file walk: where things are and what has been read.
struct Walk {
  const std::string& file;
  const SchemaNode& root;
  std::map<std::string, ArchDescription::Value>& values;
  std::map<std::string, int> sectionLines; ///< Section path → line of its key.
};

/// Reads the mapping `map` as the section `node`, recursing into subsections.
void walkSection(const YAML::Node& map, const SchemaNode& node, Walk& w) {
  std::map<std::string, int> seen;
  for (const auto& entry : map) {
    // Copies (cheap handles): yaml-cpp's iterator proxies die at the end of the statement.
    const YAML::Node k = entry.first;
    const YAML::Node v = entry.second;
    if (!k.IsScalar())
      throw Error(located(w.file, lineOf(k),
                          "keys must be plain names inside '" +
                              (node.path.empty() ? "<top level>" : node.path) + "'"));
    const std::string key = k.Scalar();
    const std::string path = joinPath(node.path, key);
    auto [prev, fresh] = seen.emplace(key, lineOf(k));
    if (!fresh)
      throw Error(located(w.file, lineOf(k),
                          "duplicate key '" + path + "' (first at line " +
                              std::to_string(prev->second) + ")"));
    const SchemaNode* c = node.child(key);
    if (!c) throw Error(located(w.file, lineOf(k), unknownKeyMessage(w.root, node, key)));
    if (c->decl) {
      if (!v.IsScalar())
        throw Error(located(w.file, lineOf(v.IsNull() ? k : v),
                            path + ": expected " + paramTypeName(c->decl->type) + ", got " +
                                describeNode(v)));
      ArchDescription::Value val;
      val.type = c->decl->type;
      val.line = lineOf(v);
      std::string err = parseValue(*c->decl, v.Scalar(), v.Tag() == "!", val);
      if (!err.empty()) throw Error(located(w.file, lineOf(v), path + ": " + err));
      w.values[path] = val;
    } else {
      if (!v.IsMap())
        throw Error(located(w.file, lineOf(v.IsNull() ? k : v),
                            path + ": expected a section with keys " + childNames(*c) + ", got " +
                                describeNode(v)));
      w.sectionLines[path] = lineOf(k);
      walkSection(v, *c, w);
    }
  }
}

/// Throws for every declared parameter the file did not give, located at the nearest
/// section that is present.
void checkComplete(const std::vector<ParamDecl>& schema, const Walk& w) {
  std::vector<std::string> missing;
  int line = 0;
  for (const ParamDecl& d : schema) {
    if (w.values.count(d.path)) continue;
    if (missing.empty()) {
      std::string section = d.path;
      while (line == 0 && section.find('.') != std::string::npos) {
        section = section.substr(0, section.rfind('.'));
        auto it = w.sectionLines.find(section);
        if (it != w.sectionLines.end()) line = it->second;
      }
    }
    missing.push_back("'" + d.path + "'");
  }
  if (missing.empty()) return;
  std::string list;
  for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
  throw Error(located(w.file, line,
                      std::string(missing.size() == 1 ? "missing key " : "missing keys ") + list +
                          " (every parameter must be given; there are no defaults)"));
}

/// Finds the parameter named by a `--set` key, or throws naming the argument.
const SchemaNode& resolveOverrideKey(const SchemaNode& root, const std::string& key,
                                     const std::string& arg) {
  const SchemaNode* node = &root;
  for (const std::string& part : splitPath(key)) {
    if (node->decl)
      throw Error("--set " + arg + ": '" + node->path + "' is a value, not a section");
    const SchemaNode* next = node->child(part);
    if (!next) throw Error("--set " + arg + ": " + unknownKeyMessage(root, *node, part));
    node = next;
  }
  if (!node->decl)
    throw Error("--set " + arg + ": '" + node->path +
                "' is a section; give one of its keys: " + childNames(*node));
  return *node;
}

/// A string as YAML: plain when it cannot be misread as another type, else double-quoted.
std::string yamlString(const std::string& s) {
  bool plain = !s.empty() && std::isalpha(static_cast<unsigned char>(s[0]));
  for (char ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.' &&
        ch != '/')
      plain = false;
  std::string lower = s;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "null", "y", "n"})
    if (lower == word) plain = false;
  if (plain) return s;
  std::string out = "\"";
  for (char ch : s) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

/// A value as the resolved file writes it: integers in decimal, reals with a point or an
/// exponent (so they read back as reals), strings plain or quoted as YAML needs.
std::string formatValue(const ArchDescription::Value& v) {
  switch (v.type) {
  case ParamType::Int:
    return std::to_string(v.i);
  case ParamType::Float: {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v.f);
    std::string text(buf, res.ptr);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
  }
  case ParamType::Bool:
    return v.b ? "true" : "false";
  case ParamType::String:
    return yamlString(v.s);
  }
  return "";
}

/// One line of a single-line comment: newlines become spaces.
std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

/// Applies `overrides` ("key.path=value", as `--set` gives them) to `values`.
void applyOverrides(const SchemaNode& root, const std::vector<std::string>& overrides,
                    std::map<std::string, ArchDescription::Value>& values) {
  for (const std::string& arg : overrides) {
    size_t eq = arg.find('=');
    auto trim = [](std::string s) {
      size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    std::string key = eq == std::string::npos ? "" : trim(arg.substr(0, eq));
    if (key.empty())
      throw Error("--set " + arg + ": expected key.path=value (e.g. --set chip.cores=16)");
    const SchemaNode& node = resolveOverrideKey(root, key, arg);
    ArchDescription::Value val;
    val.type = node.decl->type;
    val.overrideArg = arg;
    std::string err = parseValue(*node.decl, trim(arg.substr(eq + 1)), false, val);
    if (!err.empty()) throw Error("--set " + arg + ": " + node.path + ": " + err);
    values[node.path] = val;
  }
}

} // namespace

const char* paramSourceName(ParamSource source) {
  switch (source) {
  case ParamSource::Public:
    return "public";
  case ParamSource::Derived:
    return "derived";
  case ParamSource::Estimate:
    return "estimate";
  }
  return "?";
}

const char* paramRoleName(ParamRole role) {
  return role == ParamRole::Planned ? "planned" : "timing";
}

const char* paramTypeName(ParamType type) {
  switch (type) {
  case ParamType::Int:
    return "an integer";
  case ParamType::Float:
    return "a number";
  case ParamType::Bool:
    return "true or false";
  case ParamType::String:
    return "a string";
  }
  return "a value";
}

ArchDescription ArchDescription::load(const std::string& file, const std::vector<ParamDecl>& schema,
                                      const std::vector<std::string>& overrides) {
  std::unique_ptr<SchemaNode> root = buildTree(schema);
  ArchDescription a;
  a.file_ = file;
  a.overrides_ = overrides;
  a.schema_ = schema;

  std::string text = readFile(file);
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(located(file, e.mark.line + 1, "YAML syntax error: " + e.msg));
  }
  if (doc.IsNull())
    throw Error(
        located(file, 0, "empty architecture description; expected sections " + childNames(*root)));
  if (!doc.IsMap())
    throw Error(located(file, lineOf(doc),
                        "expected a mapping of sections (" + childNames(*root) + "), got " +
                            describeNode(doc)));
  Walk w{file, *root, a.values_, {}};
  walkSection(doc, *root, w);
  checkComplete(schema, w);
  applyOverrides(*root, overrides, a.values_);
  return a;
}

ArchDescription ArchDescription::withOverrides(const std::vector<std::string>& overrides) const {
  ArchDescription a = *this;
  a.overrides_.insert(a.overrides_.end(), overrides.begin(), overrides.end());
  applyOverrides(*buildTree(schema_), overrides, a.values_);
  return a;
}

const ArchDescription::Value& ArchDescription::lookup(const std::string& path, ParamType want,
                                                      bool intAsFloat) const {
  auto it = values_.find(path);
  if (it == values_.end())
    throw Error("architecture description " + file_ + ": no parameter '" + path + "'");
  ParamType have = it->second.type;
  if (have != want && !(intAsFloat && have == ParamType::Int))
    throw Error("architecture description " + file_ + ": parameter '" + path + "' is " +
                paramTypeName(have) + ", not " + paramTypeName(want));
  return it->second;
}

int64_t ArchDescription::getInt(const std::string& path) const {
  return lookup(path, ParamType::Int, false).i;
}

double ArchDescription::getFloat(const std::string& path) const {
  const Value& v = lookup(path, ParamType::Float, true);
  return v.type == ParamType::Int ? static_cast<double>(v.i) : v.f;
}

bool ArchDescription::getBool(const std::string& path) const {
  return lookup(path, ParamType::Bool, false).b;
}

std::string ArchDescription::getString(const std::string& path) const {
  return lookup(path, ParamType::String, false).s;
}

std::string ArchDescription::locate(const std::string& path, const std::string& message) const {
  auto it = values_.find(path);
  if (it == values_.end())
    throw Error("architecture description " + file_ + ": no parameter '" + path + "'");
  if (!it->second.overrideArg.empty())
    return file_ + ": --set " + it->second.overrideArg + ": " + message;
  return located(file_, it->second.line, message);
}

std::string ArchDescription::origin(const std::string& path) const {
  auto it = values_.find(path);
  if (it == values_.end())
    throw Error("architecture description " + file_ + ": no parameter '" + path + "'");
  if (!it->second.overrideArg.empty()) return "--set " + it->second.overrideArg;
  return file_ + ":" + std::to_string(it->second.line);
}

std::string ArchDescription::toYaml() const {
  std::unique_ptr<SchemaNode> root = buildTree(schema_);
  std::ostringstream out;
  out << "# Resolved architecture description, written by chipless.\n";
  out << "# Resolved from: " << oneLine(file_) << "\n";
  if (overrides_.empty()) {
    out << "# Overrides: none\n";
  } else {
    out << "# Overrides:";
    for (const auto& o : overrides_) out << " --set " << oneLine(o);
    out << "\n";
  }
  out << "# Every value below is the one the run used; comments give description and unit.\n";

  // Emits one section: value lines of a section share a comment column.
  struct Emitter {
    const std::map<std::string, Value>& values;
    std::ostringstream& out;
    void section(const SchemaNode& node, int depth) {
      std::string indent(2 * depth, ' ');
      std::vector<std::pair<std::string, const SchemaNode*>> lines;
      size_t width = 0;
      for (const auto& c : node.children) {
        if (!c->decl) continue;
        lines.emplace_back(indent + c->name + ": " + formatValue(values.at(c->path)), c.get());
        width = std::max(width, lines.back().first.size());
      }
      size_t li = 0;
      for (const auto& c : node.children) {
        if (c->decl) {
          const auto& [line, leaf] = lines[li++];
          const Value& v = values.at(leaf->path);
          std::string comment = oneLine(leaf->decl->description);
          if (!leaf->decl->unit.empty()) comment += " [" + oneLine(leaf->decl->unit) + "]";
          if (!v.overrideArg.empty()) comment += " (--set " + oneLine(v.overrideArg) + ")";
          out << line << std::string(width - line.size() + 2, ' ') << "# " << comment << "\n";
        } else {
          if (depth == 0) out << "\n";
          out << indent << c->name << ":\n";
          section(*c, depth + 1);
        }
      }
    }
  };
  Emitter{values_, out}.section(*root, 0);
  return out.str();
}

void ArchDescription::writeResolved(const std::string& path) const {
  writeFileAtomically(path, toYaml());
}

std::string ArchDescription::valueText(const std::string& path) const {
  auto it = values_.find(path);
  if (it == values_.end())
    throw Error("architecture description " + file_ + ": no parameter '" + path + "'");
  return formatValue(it->second);
}

std::string ArchDescription::fingerprint() const {
  // FNV-1a, 64 bit: a stable identity for a set of values, not a security measure.
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const std::string& text) {
    for (unsigned char ch : text) {
      h ^= ch;
      h *= 0x100000001b3ull;
    }
  };
  for (const ParamDecl& d : schema_) mix(d.path + "=" + valueText(d.path) + "\n");
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<ParamDifference>
ArchDescription::plannedDifferences(const ArchDescription& compiled) const {
  std::vector<ParamDifference> out;
  for (const ParamDecl& d : schema_) {
    if (d.role != ParamRole::Planned) continue;
    std::string mine = valueText(d.path);
    std::string theirs = compiled.valueText(d.path);
    if (mine != theirs) out.push_back({d.path, theirs, mine, origin(d.path)});
  }
  return out;
}

} // namespace chipless

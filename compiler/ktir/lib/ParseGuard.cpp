//===- ParseGuard.cpp - reject MLIR text that crashes MLIR 19's parser ----===//
//
// Part of chipless. See ParseGuard.h.
//
//===----------------------------------------------------------------------===//

#include "ktir/ParseGuard.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

namespace chipless::ktir {
namespace {

/// One `{`…`}` scope of the text: the names defined in it and the forward references made
/// in it (or left unresolved by the regions it encloses) that no definition has resolved
/// yet (a region opened later must not define them).
struct Scope {
  llvm::StringSet<> defined;
  std::vector<std::pair<llvm::StringRef, size_t>> pending;
};

/// True for the characters of an MLIR suffix id (`%name`, `^bb0`, `dialect.op`).
bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '-';
}

/// The scanner of findParseHazards.
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text(text) { scopes.emplace_back(); }

  std::vector<ParseHazard> run() {
    bool lineStart = true;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '\n') {
        lineStart = true;
        ++pos;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos;
        continue;
      }
      if (text.substr(pos).starts_with("//")) {
        size_t end = text.find('\n', pos);
        pos = end == llvm::StringRef::npos ? text.size() : end;
        continue;
      }
      bool first = lineStart;
      lineStart = false;
      if (first && c == '%' && readResultList()) continue;
      switch (c) {
      case '"':
        skipString();
        break;
      case '{':
        scopes.emplace_back();
        ++pos;
        break;
      case '}':
        // Like MLIR's parser, forward references a region leaves unresolved move to the
        // enclosing scope.
        if (scopes.size() > 1) {
          auto pending = std::move(scopes.back().pending);
          scopes.pop_back();
          scopes.back().pending.insert(scopes.back().pending.end(), pending.begin(), pending.end());
        }
        ++pos;
        break;
      case '%':
        readValue();
        break;
      case '@':
      case '^':
        // A symbol or a block label: its name, so that a `(` after it knows what it follows.
        for (++pos; pos < text.size() && isIdChar(text[pos]);) ++pos;
        break;
      case '(':
        ++parenDepth;
        if (opensArgumentList()) argLists.push_back({parenDepth, scopes.size()});
        ++pos;
        break;
      case ')':
        if (!argLists.empty() && argLists.back().first == parenDepth) argLists.pop_back();
        parenDepth = std::max(0, parenDepth - 1);
        ++pos;
        break;
      default: {
        size_t start = pos++;
        while (pos < text.size() && isIdChar(text[pos]) && isIdChar(c)) ++pos;
        llvm::StringRef word = text.slice(start, pos);
        if (word == "linalg.reduce" || word == "linalg.broadcast" || word == "linalg.transpose")
          checkIntegerList(word);
        break;
      }
      }
    }
    return std::move(found);
  }

private:
  /// Reads `%name` at `pos`; returns the name and moves past it.
  llvm::StringRef readName() {
    size_t start = pos++;
    while (pos < text.size() && isIdChar(text[pos])) ++pos;
    return text.slice(start, pos);
  }

  /// Past white space (line breaks too) and `//` comments: MLIR lets them separate any two
  /// tokens, a value's name from the `=` or `,` after it (`%n` on one line, `= arith.constant
  /// 3` on the next) as well.
  size_t skipBlanks(size_t at) const {
    while (at < text.size()) {
      if (std::isspace(static_cast<unsigned char>(text[at]))) {
        ++at;
      } else if (text.substr(at).starts_with("//")) {
        size_t end = text.find('\n', at);
        at = end == llvm::StringRef::npos ? text.size() : end;
      } else {
        break;
      }
    }
    return at;
  }

  /// At a line's first `%`: reads `%a, %b:2, … =` as definitions. Leaves `pos` unchanged
  /// and returns false when the line is not a result list.
  bool readResultList() {
    size_t saved = pos;
    std::vector<std::pair<llvm::StringRef, size_t>> names;
    while (true) {
      if (pos >= text.size() || text[pos] != '%') break;
      size_t at = pos;
      names.emplace_back(readName(), at);
      if (pos < text.size() && text[pos] == ':') {
        ++pos;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
      }
      pos = skipBlanks(pos);
      if (pos < text.size() && text[pos] == ',') {
        pos = skipBlanks(pos + 1);
        continue;
      }
      if (pos < text.size() && text[pos] == '=' && text.substr(pos, 2) != "==") {
        ++pos;
        for (auto& [name, at] : names) define(name, at);
        return true;
      }
      break;
    }
    pos = saved;
    return false;
  }

  /// Whether the `(` at `pos` opens a list that defines its `%name : type` entries (the
  /// arguments of a function, `func.func @f(%n : index)`; of a block, `^bb0(%x : f16):` at
  /// the start of a line or region; of a region written after an op's other parts,
  /// `linalg.reduce … dimensions = [1] (%in: f32, %acc: f32) {`) rather than one that uses
  /// them (`ins(%x : T)`, `"op"(%a)`, a successor's `cf.br ^bb1(%v : i32)`, `@f(%a)` in a
  /// call, whose entries have no type). What precedes it tells: a keyword or an op name
  /// before `(` makes an operand list.
  bool opensArgumentList() const {
    size_t at = pos;
    while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
    if (at == 0) return true;
    char before = text[at - 1];
    if (!isIdChar(before)) return before != '"';
    size_t start = at;
    while (start > 0 && isIdChar(text[start - 1])) --start;
    if (start == 0) return false;
    char sigil = text[start - 1];
    if (sigil == '@') return true; // a function's arguments or a call's untyped operands
    if (sigil != '^') return false;
    // A block label defines its arguments where it starts a line or a region.
    size_t lead = start - 1;
    while (lead > 0 && (text[lead - 1] == ' ' || text[lead - 1] == '\t')) --lead;
    return lead == 0 || text[lead - 1] == '\n' || text[lead - 1] == '{';
  }

  /// A `%name` that is not a statement's result: a definition when it names a region
  /// argument (`%i = …` in a loop header, `%arg: type` or `%arg : type` in a function's or
  /// block's argument list), a use otherwise (with `#N` for one result of several; in an
  /// operand list `%v : type` is a use).
  void readValue() {
    size_t at = pos;
    llvm::StringRef name = readName();
    size_t next = skipBlanks(pos);
    bool inArgList = !argLists.empty() && argLists.back().first == parenDepth &&
                     argLists.back().second == scopes.size();
    bool definition = false;
    if (next < text.size() && text[next] == '=' && text.substr(next, 2) != "==")
      definition = true;
    else if (inArgList && next < text.size() && text[next] == ':')
      definition = true;
    if (definition) {
      define(name, at);
      return;
    }
    for (const Scope& scope : scopes)
      if (scope.defined.contains(name)) return;
    scopes.back().pending.emplace_back(name, at);
  }

  /// Records a definition in the innermost scope. It resolves the forward references to
  /// the same name made in that scope; one pending in an enclosing scope is a nested
  /// forward reference.
  void define(llvm::StringRef name, size_t at) {
    for (size_t i = 0; i < scopes.size(); ++i) {
      auto& pending = scopes[i].pending;
      for (auto it = pending.begin(); it != pending.end();) {
        if (it->first == name) {
          if (i + 1 < scopes.size())
            found.push_back({it->second,
                             ("use of '" + name +
                              "' before its definition, which is inside a region opened after "
                              "it (a value defined in a region is not visible outside it)")
                                 .str(),
                             at, ("'" + name + "' is defined here").str()});
          it = pending.erase(it);
        } else {
          ++it;
        }
      }
    }
    scopes.back().defined.insert(name);
  }

  /// After the name of `op` (linalg.reduce, .broadcast, .transpose): the integer list
  /// after its `dimensions =` / `permutation =` must be well formed, since MLIR 19's parser
  /// of these ops stores the attribute it fails to parse (a null one) and crashes, and
  /// their verifiers crash on an index that does not fit in 32 bits.
  void checkIntegerList(llvm::StringRef op) {
    size_t at = pos;
    int depth = 0;
    auto skip = [&] { at = skipBlanks(at); };
    // Find the keyword outside the op's brackets (its `{ op }` body form, ins, outs).
    llvm::StringRef keyword;
    while (true) {
      skip();
      if (at >= text.size()) return;
      char c = text[at];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) return;
      }
      if (!isIdChar(c)) {
        ++at;
        continue;
      }
      size_t start = at;
      while (at < text.size() && isIdChar(text[at])) ++at;
      llvm::StringRef word = text.slice(start, at);
      if (depth == 0 && (word == "dimensions" || word == "permutation")) {
        keyword = word;
        break;
      }
    }
    auto bad = [&] {
      found.push_back(
          {at,
           ("expected a list of dimension indices '[...]' (integers from 0 to 2^31-1) after '" +
            keyword + " =' of " + op)
               .str(),
           std::nullopt, ""});
    };
    skip();
    if (at >= text.size() || text[at] != '=') return; // the op's parser reports it
    ++at;
    skip();
    if (at >= text.size() || text[at] != '[') return bad();
    ++at;
    skip();
    if (at < text.size() && text[at] == ']') return;
    while (true) {
      size_t start = at;
      if (at < text.size() && text[at] == '-') ++at;
      while (at < text.size() && std::isalnum(static_cast<unsigned char>(text[at]))) ++at;
      // Their verifiers crash, too, on indices beyond 32 bits (valid ones are ranks).
      int64_t value;
      if (text.slice(start, at).getAsInteger(0, value) || value < 0 ||
          value > std::numeric_limits<int32_t>::max()) {
        at = start;
        return bad();
      }
      skip();
      if (at < text.size() && text[at] == ']') return;
      if (at >= text.size() || text[at] != ',') return bad();
      ++at;
      skip();
    }
  }

  void skipString() {
    ++pos;
    while (pos < text.size() && text[pos] != '"' && text[pos] != '\n')
      pos += text[pos] == '\\' ? 2 : 1;
    ++pos;
  }

  llvm::StringRef text;
  size_t pos = 0;
  std::vector<Scope> scopes;
  int parenDepth = 0; ///< `(` open at `pos`
  /// Each open argument list: the parenDepth and the number of scopes inside it (a region
  /// opened within it, as in `"op"() ({…})`, is not part of the list).
  std::vector<std::pair<int, size_t>> argLists;
  std::vector<ParseHazard> found;
};

} // namespace

std::vector<ParseHazard> findParseHazards(llvm::StringRef text) {
  return Scanner(text).run();
}

std::string prepareSource(llvm::StringRef text) {
  std::string out = text.str();
  static constexpr llvm::StringLiteral kFuture = "!ktdp.tile_future<";
  size_t pos = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (text.substr(pos).starts_with("//")) {
      size_t end = text.find('\n', pos);
      pos = end == llvm::StringRef::npos ? text.size() : end;
      continue;
    }
    if (c == '"') { // a string: skip it
      ++pos;
      while (pos < text.size() && text[pos] != '"' && text[pos] != '\n')
        pos += text[pos] == '\\' ? 2 : 1;
      ++pos;
      continue;
    }
    if (!text.substr(pos).starts_with(kFuture)) {
      ++pos;
      continue;
    }
    // The body, balanced as MLIR balances it but with `>=` as an operator.
    size_t at = pos + kFuture.size() - 1;
    std::vector<size_t> operators;
    int depth = 0;
    for (; at < text.size(); ++at) {
      char b = text[at];
      if (b == '-' && at + 1 < text.size() && text[at + 1] == '>') {
        ++at;
      } else if (b == '>' && at + 1 < text.size() && text[at + 1] == '=') {
        operators.push_back(at++);
      } else if (b == '<' || b == '(' || b == '[' || b == '{') {
        ++depth;
      } else if (b == '>' || b == ')' || b == ']' || b == '}') {
        if (--depth == 0) break;
      }
    }
    // An unbalanced body (to the end of the text) is left to the parser's own error.
    if (at < text.size() && depth == 0)
      for (size_t o : operators) out.replace(o, 2, "->");
    pos = at + 1;
  }
  return out;
}

mlir::LogicalResult checkParseHazards(const llvm::SourceMgr& sources, mlir::MLIRContext* context) {
  const llvm::MemoryBuffer* buffer = sources.getMemoryBuffer(sources.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  std::vector<ParseHazard> found = findParseHazards(text);
  auto location = [&](size_t offset) -> mlir::Location {
    auto [line, column] = sources.getLineAndColumn(
        llvm::SMLoc::getFromPointer(text.data() + std::min(offset, text.size())));
    return mlir::FileLineColLoc::get(context, buffer->getBufferIdentifier(), line, column);
  };
  for (const ParseHazard& hazard : found) {
    mlir::InFlightDiagnostic error = mlir::emitError(location(hazard.at)) << hazard.message;
    if (hazard.noteAt) error.attachNote(location(*hazard.noteAt)) << hazard.note;
  }
  return mlir::failure(!found.empty());
}

mlir::OwningOpRef<mlir::ModuleOp> parseModuleGuarded(llvm::SourceMgr& sources,
                                                     mlir::MLIRContext* context) {
  if (mlir::failed(checkParseHazards(sources, context))) return nullptr;
  const llvm::MemoryBuffer* buffer = sources.getMemoryBuffer(sources.getMainFileID());
  std::string prepared = prepareSource(buffer->getBuffer());
  if (prepared == buffer->getBuffer())
    return mlir::parseSourceFile<mlir::ModuleOp>(sources, context);
  // Parsed from the prepared copy under the same name: locations (file, line, column) are
  // the same, so diagnostics show the text as written.
  llvm::SourceMgr preparedSources;
  preparedSources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(prepared, buffer->getBufferIdentifier()), llvm::SMLoc());
  return mlir::parseSourceFile<mlir::ModuleOp>(preparedSources, context);
}

} // namespace chipless::ktir

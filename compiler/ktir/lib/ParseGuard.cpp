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

#include <cctype>

namespace chipless::ktir {
namespace {

/// One `{`…`}` scope of the text: the names defined in it and the forward references made
/// in it that no definition has resolved yet (a region opened later must not define them).
struct Scope {
  llvm::StringSet<> defined;
  std::vector<std::pair<llvm::StringRef, size_t>> pending;
};

/// True for the characters of an MLIR suffix id (`%name`, `^bb0`, `dialect.op`).
bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '-';
}

/// The scanner of findNestedForwardReferences.
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text(text) { scopes.emplace_back(); }

  std::vector<NestedForwardReference> run() {
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
        if (scopes.size() > 1) scopes.pop_back();
        ++pos;
        break;
      case '%':
        readValue();
        break;
      default:
        ++pos;
        while (pos < text.size() && isIdChar(text[pos]) && isIdChar(c)) ++pos;
        break;
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

  size_t skipSpaces(size_t at) const {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
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
      pos = skipSpaces(pos);
      if (pos < text.size() && text[pos] == ',') {
        pos = skipSpaces(pos + 1);
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

  /// A `%name` that is not a statement's result: a definition when it names a region
  /// argument (`%i = …` in a loop header, `%arg: type` in an argument list), a use
  /// otherwise (with `#N` for one result of several).
  void readValue() {
    size_t at = pos;
    llvm::StringRef name = readName();
    size_t next = skipSpaces(pos);
    bool definition = false;
    if (next < text.size() && text[next] == '=' && text.substr(next, 2) != "==")
      definition = true;
    else if (pos + 1 < text.size() && text[pos] == ':' &&
             !std::isdigit(static_cast<unsigned char>(text[pos + 1])))
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
          if (i + 1 < scopes.size()) found.push_back({name, it->second, at});
          it = pending.erase(it);
        } else {
          ++it;
        }
      }
    }
    scopes.back().defined.insert(name);
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
  std::vector<NestedForwardReference> found;
};

} // namespace

std::vector<NestedForwardReference> findNestedForwardReferences(llvm::StringRef text) {
  return Scanner(text).run();
}

mlir::LogicalResult checkNestedForwardReferences(const llvm::SourceMgr& sources,
                                                 mlir::MLIRContext* context) {
  const llvm::MemoryBuffer* buffer = sources.getMemoryBuffer(sources.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  std::vector<NestedForwardReference> found = findNestedForwardReferences(text);
  auto location = [&](size_t offset) -> mlir::Location {
    auto [line, column] =
        sources.getLineAndColumn(llvm::SMLoc::getFromPointer(text.data() + offset));
    return mlir::FileLineColLoc::get(context, buffer->getBufferIdentifier(), line, column);
  };
  for (const NestedForwardReference& ref : found) {
    mlir::InFlightDiagnostic error = mlir::emitError(location(ref.use))
                                     << "use of '" << ref.name
                                     << "' before its definition, which is inside a region "
                                        "opened after it (a value defined in a region is not "
                                        "visible outside it)";
    error.attachNote(location(ref.definition)) << "'" << ref.name << "' is defined here";
  }
  return mlir::failure(!found.empty());
}

mlir::OwningOpRef<mlir::ModuleOp> parseModuleGuarded(llvm::SourceMgr& sources,
                                                     mlir::MLIRContext* context) {
  if (mlir::failed(checkNestedForwardReferences(sources, context))) return nullptr;
  return mlir::parseSourceFile<mlir::ModuleOp>(sources, context);
}

} // namespace chipless::ktir

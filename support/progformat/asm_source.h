#pragma once
/// The text layer shared by the SpyreCode and TPU assemblers: comments, names, top-level
/// splitting, `.equ` constants, declared names and operand expressions
/// (`reg + @symbol + constant`). Each assembler derives from AsmSource and adds its own
/// directives and instruction syntax; both report errors as "file:line: message".
#include "support/error.h"
#include "support/scalar_arg.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace chipless::asmtext {

std::string trim(const std::string& s);
/// Letters, digits, '_' and '.', not starting with a digit or '.' (mnemonics, ARG.d0).
bool isIdentifier(const std::string& s);
/// An identifier without dots (arguments, scalars, buffers, labels, constants).
bool isName(const std::string& s);
/// Splits on top-level occurrences of `sep` (those inside [...] stay); pieces are trimmed.
std::vector<std::string> splitTop(const std::string& s, char sep);
/// The line without its comment (`;`, `#` or `//` to the end), trimmed.
std::string stripComment(const std::string& raw);
/// Whether `s` is text a plan may carry as a message: well-formed UTF-8 (no overlong forms,
/// surrogates or code points past U+10FFFF) without control characters. job.plan is JSON,
/// which holds only UTF-8, so any other bytes must be refused where they are read.
bool isMessageText(const std::string& s);

/// The text of a float immediate (its bits as a double): "%.17g", "nan", "inf", "-inf".
std::string formatFloatBits(int64_t bits);

/// An expression operand as the assembler reads it back: "r3+@x-16", "@x", "-5", "0".
/// `reg` is the register's name ("" for none), `symbol` the symbol's name ("" for none).
std::string formatExpression(const std::string& reg, const std::string& symbol, int64_t imm);

/// A shape in assembly: "[64, N, 128]". `Shape` holds variants of int64_t and std::string.
template <typename Shape>
std::string formatShape(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    if (auto* v = std::get_if<int64_t>(&shape[i]))
      s += std::to_string(*v);
    else
      s += std::get<std::string>(shape[i]);
  }
  return s + "]";
}

/// Where an assembler is in its source, and the names it has seen so far.
class AsmSource {
public:
  explicit AsmSource(std::string path) : path_(std::move(path)) {}

  /// Throws an Error at `line` (default: the current line) of the source.
  [[noreturn]] void fail(const std::string& msg, int line = -1) const;

  /// A product of integer literals and .equ names: "64*128", "TILE*2", "0x100", "-4".
  int64_t constantExpr(const std::string& text, const std::string& what) const;

  /// `.equ NAME VALUE` (the text after the directive).
  void defineEqu(const std::string& rest);
  bool isEqu(const std::string& name) const { return equ_.count(name) != 0; }

  /// Records a declared argument, scalar or buffer name; a second declaration fails.
  void declare(const std::string& name);
  bool isDeclared(const std::string& name) const { return declared_.count(name) != 0; }

  /// `.scalar NAME [multiple_of=G] [min=A] [max=B]` or `.scalar NAME type=f16|bf16|f32` (a
  /// real scalar) (the text after the directive; values are constant expressions);
  /// declares NAME.
  ScalarArg scalarDirective(const std::string& rest);

  /// A scalar used as a tensor dimension: must be declared by the end of the file.
  void useScalarDim(const std::string& name) { pendingScalarDims_.push_back({name, line_}); }
  /// Fails at the first use of a dimension name not in `scalars`.
  template <typename ScalarList>
  void checkScalarDims(const ScalarList& scalars) const {
    for (const auto& [name, line] : pendingScalarDims_) {
      bool ok = false, real = false;
      for (const auto& s : scalars)
        if (s.name == name) ok = true, real = s.real.has_value();
      if (!ok) fail("dimension '" + name + "' is not a declared .scalar", line);
      if (real) fail("dimension '" + name + "' is a real scalar and cannot size a tensor", line);
    }
  }

  /// expr := ['-'] term (('+'|'-') term)* ; term := register | @symbol | constant product.
  /// `parseReg(term, reg)` recognises registers; `symbol(name, what)` interns a symbol.
  template <typename Operand, typename ParseReg, typename Symbol>
  Operand expression(const std::string& text, const std::string& what, ParseReg parseReg,
                     Symbol symbol) const {
    Operand o;
    for (const auto& [sign, term] : terms(text, what)) {
      int reg;
      if (term[0] == '@') {
        if (sign < 0) fail(what + ": a symbol cannot be subtracted in '" + text + "'");
        if (o.sym >= 0) fail(what + ": at most one symbol per operand in '" + text + "'");
        o.sym = symbol(term.substr(1), what);
      } else if (parseReg(term, reg)) {
        if (sign < 0) fail(what + ": a register cannot be subtracted in '" + text + "'");
        if (o.reg >= 0) fail(what + ": at most one register per operand in '" + text + "'");
        o.reg = static_cast<int8_t>(reg);
      } else {
        o.imm += sign * constantExpr(term, what);
      }
    }
    return o;
  }

protected:
  std::string path_;
  int line_ = 0; ///< the line being read (1-based)

private:
  /// The signed terms of an expression, blanks removed; fails on a missing term or operator.
  std::vector<std::pair<int, std::string>> terms(const std::string& text,
                                                 const std::string& what) const;

  std::map<std::string, int64_t> equ_;
  std::set<std::string> declared_;
  std::vector<std::pair<std::string, int>> pendingScalarDims_;
};

} // namespace chipless::asmtext

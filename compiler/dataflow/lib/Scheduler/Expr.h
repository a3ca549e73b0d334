//===- Expr.h - integer expressions of a schedule --------------*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. Every address, size, count and
// loop bound of a schedule is an Expr: a linear combination of atoms (launch symbols,
// loop variables, and the non-linear terms that remain: quotients, remainders, products,
// minima) plus a constant. Linear forms make the questions the scheduler asks cheap:
// is it a constant, which stick alignment does it keep, which range can it take in a
// loop nest, do two accesses overlap one iteration apart.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_EXPR_H
#define DATAFLOW_LIB_SCHEDULER_EXPR_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace chipless::sched {

class Expr;

/// A leaf or a non-linear term of an Expr.
struct Atom {
  enum class Kind { Sym, Var, Div, Rem, Mul, Min, Max };
  Kind kind;
  std::string sym;                  ///< Sym: the launch symbol ("X", "N", "X.d0")
  int var = -1;                     ///< Var: the loop variable id
  std::shared_ptr<const Expr> a, b; ///< operands of the non-linear kinds
  std::string key;                  ///< canonical text: atoms are equal iff keys are
};
using AtomRef = std::shared_ptr<const Atom>;

/// c + sum(coef * atom), terms sorted by atom key, no zero coefficients.
class Expr {
public:
  Expr() = default;
  Expr(int64_t c) : c_(c) {} // NOLINT: constants convert implicitly
  static Expr sym(const std::string& name);
  static Expr var(int id);

  bool isConst() const { return terms_.empty(); }
  int64_t constant() const { return c_; }
  std::optional<int64_t> asConst() const {
    return isConst() ? std::optional<int64_t>(c_) : std::nullopt;
  }
  const std::vector<std::pair<AtomRef, int64_t>>& terms() const { return terms_; }

  /// Coefficient of the symbol or variable atom with this key ("s:X", "v:3"), else 0.
  int64_t coefficient(const std::string& key) const;
  /// The largest power of two that divides every value the expression can take
  /// (non-linear atoms count as 1): how aligned an address is. 0 is "any".
  int64_t alignment() const;
  /// True if `var` occurs anywhere (also inside non-linear atoms).
  bool uses(int var) const;
  bool usesAnyVar() const;
  bool usesSym(const std::string& name) const;
  /// The expression with atom key `key` replaced by `value`.
  Expr substitute(const std::string& key, const Expr& value) const;

  /// Text for dumps and messages: "@X + 128*i3 + 64".
  std::string str() const;
  bool operator==(const Expr& o) const { return str() == o.str(); }
  bool operator!=(const Expr& o) const { return !(*this == o); }

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a) { return Expr(0) - a; }

private:
  friend Expr makeAtomExpr(AtomRef atom);
  int64_t c_ = 0;
  std::vector<std::pair<AtomRef, int64_t>> terms_;
};

/// Floor division, remainder (for non-negative operands), minimum and maximum: folded
/// when the operands allow it, else atoms.
Expr floorDiv(const Expr& a, const Expr& b);
Expr mod(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr ceilDiv(const Expr& a, const Expr& b);

/// Inclusive range of an expression when every variable lies in a known range; nullopt
/// when a symbol or a variable without range occurs.
struct Range {
  int64_t lo, hi;
};
std::optional<Range> rangeOf(const Expr& e, const std::map<int, Range>& vars);

/// Value of the expression under an assignment of variables and symbols; nullopt if
/// something is unbound or a division by zero occurs.
std::optional<int64_t> evaluate(const Expr& e, const std::map<int, int64_t>& vars,
                                const std::map<std::string, int64_t>& syms = {});

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_EXPR_H

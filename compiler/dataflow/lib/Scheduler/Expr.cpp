//===- Expr.cpp - integer expressions of a schedule -----------------------===//
//
// Part of chipless. See Expr.h.
//
//===----------------------------------------------------------------------===//

#include "Expr.h"

#include <algorithm>
#include <numeric>

namespace chipless::sched {

namespace {

AtomRef makeAtom(Atom atom) {
  switch (atom.kind) {
  case Atom::Kind::Sym:
    atom.key = "s:" + atom.sym;
    break;
  case Atom::Kind::Var:
    atom.key = "v:" + std::to_string(atom.var);
    break;
  default: {
    static const char* const names[] = {"", "", "div", "rem", "mul", "min", "max"};
    atom.key = std::string(names[static_cast<int>(atom.kind)]) + "(" + atom.a->str() + ", " +
               atom.b->str() + ")";
  }
  }
  return std::make_shared<const Atom>(std::move(atom));
}

int64_t floorDivConst(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t modConst(int64_t a, int64_t b) {
  return a - floorDivConst(a, b) * b;
}

int64_t lowestBit(int64_t v) {
  if (v == 0) return 0;
  uint64_t u = static_cast<uint64_t>(v < 0 ? -v : v);
  return static_cast<int64_t>(u & (~u + 1));
}

} // namespace

Expr makeAtomExpr(AtomRef atom) {
  Expr e;
  e.terms_.push_back({std::move(atom), 1});
  return e;
}

Expr Expr::sym(const std::string& name) {
  Atom a;
  a.kind = Atom::Kind::Sym;
  a.sym = name;
  return makeAtomExpr(makeAtom(std::move(a)));
}

Expr Expr::var(int id) {
  Atom a;
  a.kind = Atom::Kind::Var;
  a.var = id;
  return makeAtomExpr(makeAtom(std::move(a)));
}

int64_t Expr::coefficient(const std::string& key) const {
  for (const auto& [atom, coef] : terms_)
    if (atom->key == key) return coef;
  return 0;
}

int64_t Expr::alignment() const {
  int64_t g = lowestBit(c_);
  for (const auto& [atom, coef] : terms_) {
    int64_t part = lowestBit(coef);
    // A symbol is a device address or a size: addresses are stick-aligned, but sizes are
    // not, so a symbol only keeps the coefficient's alignment.
    g = g == 0 ? part : std::min(g, part);
  }
  return g;
}

bool Expr::uses(int var) const {
  for (const auto& [atom, coef] : terms_) {
    if (atom->kind == Atom::Kind::Var && atom->var == var) return true;
    if (atom->a && (atom->a->uses(var) || atom->b->uses(var))) return true;
  }
  return false;
}

bool Expr::usesAnyVar() const {
  for (const auto& [atom, coef] : terms_) {
    if (atom->kind == Atom::Kind::Var) return true;
    if (atom->a && (atom->a->usesAnyVar() || atom->b->usesAnyVar())) return true;
  }
  return false;
}

bool Expr::usesSym(const std::string& name) const {
  for (const auto& [atom, coef] : terms_) {
    if (atom->kind == Atom::Kind::Sym && atom->sym == name) return true;
    if (atom->a && (atom->a->usesSym(name) || atom->b->usesSym(name))) return true;
  }
  return false;
}

Expr Expr::substitute(const std::string& key, const Expr& value) const {
  Expr out(c_);
  for (const auto& [atom, coef] : terms_) {
    if (atom->key == key) {
      out = out + value * Expr(coef);
      continue;
    }
    Expr term;
    if (atom->a) {
      Expr a = atom->a->substitute(key, value), b = atom->b->substitute(key, value);
      switch (atom->kind) {
      case Atom::Kind::Div:
        term = floorDiv(a, b);
        break;
      case Atom::Kind::Rem:
        term = mod(a, b);
        break;
      case Atom::Kind::Mul:
        term = a * b;
        break;
      case Atom::Kind::Min:
        term = min(a, b);
        break;
      default:
        term = max(a, b);
      }
    } else {
      term = makeAtomExpr(atom);
    }
    out = out + term * Expr(coef);
  }
  return out;
}

std::string Expr::str() const {
  std::string s;
  for (const auto& [atom, coef] : terms_) {
    std::string name = atom->kind == Atom::Kind::Sym   ? "@" + atom->sym
                       : atom->kind == Atom::Kind::Var ? "i" + std::to_string(atom->var)
                                                       : atom->key;
    if (!s.empty())
      s += coef < 0 ? " - " : " + ";
    else if (coef < 0)
      s += "-";
    int64_t mag = coef < 0 ? -coef : coef;
    s += (mag == 1 ? "" : std::to_string(mag) + "*") + name;
  }
  if (s.empty()) return std::to_string(c_);
  if (c_ > 0) s += " + " + std::to_string(c_);
  if (c_ < 0) s += " - " + std::to_string(-c_);
  return s;
}

Expr operator+(const Expr& a, const Expr& b) {
  Expr out;
  out.c_ = a.c_ + b.c_;
  size_t i = 0, j = 0;
  while (i < a.terms_.size() || j < b.terms_.size()) {
    if (j == b.terms_.size() ||
        (i < a.terms_.size() && a.terms_[i].first->key < b.terms_[j].first->key)) {
      out.terms_.push_back(a.terms_[i++]);
    } else if (i == a.terms_.size() || b.terms_[j].first->key < a.terms_[i].first->key) {
      out.terms_.push_back(b.terms_[j++]);
    } else {
      int64_t coef = a.terms_[i].second + b.terms_[j].second;
      if (coef != 0) out.terms_.push_back({a.terms_[i].first, coef});
      ++i;
      ++j;
    }
  }
  return out;
}

Expr operator-(const Expr& a, const Expr& b) {
  return a + b * Expr(-1);
}

Expr operator*(const Expr& a, const Expr& b) {
  if (b.isConst()) {
    Expr out;
    if (b.c_ == 0) return out;
    out.c_ = a.c_ * b.c_;
    for (const auto& [atom, coef] : a.terms_) out.terms_.push_back({atom, coef * b.c_});
    return out;
  }
  if (a.isConst()) return b * a;
  Atom atom;
  atom.kind = Atom::Kind::Mul;
  bool swap = a.str() > b.str();
  atom.a = std::make_shared<const Expr>(swap ? b : a);
  atom.b = std::make_shared<const Expr>(swap ? a : b);
  return makeAtomExpr(makeAtom(std::move(atom)));
}

Expr floorDiv(const Expr& a, const Expr& b) {
  if (auto d = b.asConst()) {
    if (*d == 1) return a;
    if (*d != 0) {
      if (a.isConst()) return Expr(floorDivConst(a.constant(), *d));
      // Exact when every coefficient is a multiple and the constant splits off.
      bool exact = std::all_of(a.terms().begin(), a.terms().end(),
                               [&](const auto& t) { return t.second % *d == 0; });
      if (exact) {
        Expr out(floorDivConst(a.constant(), *d));
        for (const auto& [atom, coef] : a.terms()) out = out + makeAtomExpr(atom) * Expr(coef / *d);
        return out;
      }
    }
  }
  Atom atom;
  atom.kind = Atom::Kind::Div;
  atom.a = std::make_shared<const Expr>(a);
  atom.b = std::make_shared<const Expr>(b);
  return makeAtomExpr(makeAtom(std::move(atom)));
}

Expr mod(const Expr& a, const Expr& b) {
  if (auto d = b.asConst()) {
    if (*d == 1) return Expr(0);
    if (*d != 0) {
      if (a.isConst()) return Expr(modConst(a.constant(), *d));
      // Terms that are multiples of d drop out.
      Expr rest(modConst(a.constant(), *d));
      bool any = false;
      for (const auto& [atom, coef] : a.terms()) {
        if (coef % *d == 0) continue;
        rest = rest + makeAtomExpr(atom) * Expr(coef);
        any = true;
      }
      if (!any) return rest;
      Atom atom;
      atom.kind = Atom::Kind::Rem;
      atom.a = std::make_shared<const Expr>(rest);
      atom.b = std::make_shared<const Expr>(b);
      return makeAtomExpr(makeAtom(std::move(atom)));
    }
  }
  Atom atom;
  atom.kind = Atom::Kind::Rem;
  atom.a = std::make_shared<const Expr>(a);
  atom.b = std::make_shared<const Expr>(b);
  return makeAtomExpr(makeAtom(std::move(atom)));
}

Expr ceilDiv(const Expr& a, const Expr& b) {
  return floorDiv(a + b - Expr(1), b);
}

Expr min(const Expr& a, const Expr& b) {
  if (a == b) return a;
  Expr d = a - b;
  if (d.isConst()) return d.constant() <= 0 ? a : b;
  Atom atom;
  atom.kind = Atom::Kind::Min;
  bool swap = a.str() > b.str();
  atom.a = std::make_shared<const Expr>(swap ? b : a);
  atom.b = std::make_shared<const Expr>(swap ? a : b);
  return makeAtomExpr(makeAtom(std::move(atom)));
}

Expr max(const Expr& a, const Expr& b) {
  if (a == b) return a;
  Expr d = a - b;
  if (d.isConst()) return d.constant() >= 0 ? a : b;
  Atom atom;
  atom.kind = Atom::Kind::Max;
  bool swap = a.str() > b.str();
  atom.a = std::make_shared<const Expr>(swap ? b : a);
  atom.b = std::make_shared<const Expr>(swap ? a : b);
  return makeAtomExpr(makeAtom(std::move(atom)));
}

namespace {

std::optional<Range> atomRange(const Atom& atom, const std::map<int, Range>& vars) {
  switch (atom.kind) {
  case Atom::Kind::Sym:
    return std::nullopt;
  case Atom::Kind::Var: {
    auto it = vars.find(atom.var);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
  default:
    break;
  }
  auto a = rangeOf(*atom.a, vars), b = rangeOf(*atom.b, vars);
  if (!a || !b) return std::nullopt;
  switch (atom.kind) {
  case Atom::Kind::Div:
    if (b->lo <= 0) return std::nullopt;
    return Range{std::min(floorDivConst(a->lo, b->lo), floorDivConst(a->lo, b->hi)),
                 std::max(floorDivConst(a->hi, b->lo), floorDivConst(a->hi, b->hi))};
  case Atom::Kind::Rem:
    if (b->lo <= 0) return std::nullopt;
    if (a->lo >= 0 && a->hi < b->lo) return *a;
    return Range{0, b->hi - 1};
  case Atom::Kind::Mul: {
    int64_t c[4] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
    return Range{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  case Atom::Kind::Min:
    return Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
  default:
    return Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
  }
}

} // namespace

std::optional<Range> rangeOf(const Expr& e, const std::map<int, Range>& vars) {
  Range r{e.constant(), e.constant()};
  for (const auto& [atom, coef] : e.terms()) {
    auto ar = atomRange(*atom, vars);
    if (!ar) return std::nullopt;
    int64_t x = ar->lo * coef, y = ar->hi * coef;
    r.lo += std::min(x, y);
    r.hi += std::max(x, y);
  }
  return r;
}

std::optional<int64_t> evaluate(const Expr& e, const std::map<int, int64_t>& vars,
                                const std::map<std::string, int64_t>& syms) {
  int64_t v = e.constant();
  for (const auto& [atom, coef] : e.terms()) {
    std::optional<int64_t> x;
    switch (atom->kind) {
    case Atom::Kind::Sym:
      if (auto it = syms.find(atom->sym); it != syms.end()) x = it->second;
      break;
    case Atom::Kind::Var:
      if (auto it = vars.find(atom->var); it != vars.end()) x = it->second;
      break;
    default: {
      auto a = evaluate(*atom->a, vars, syms), b = evaluate(*atom->b, vars, syms);
      if (!a || !b) return std::nullopt;
      switch (atom->kind) {
      case Atom::Kind::Div:
        if (*b == 0) return std::nullopt;
        x = floorDivConst(*a, *b);
        break;
      case Atom::Kind::Rem:
        if (*b == 0) return std::nullopt;
        x = modConst(*a, *b);
        break;
      case Atom::Kind::Mul:
        x = *a * *b;
        break;
      case Atom::Kind::Min:
        x = std::min(*a, *b);
        break;
      default:
        x = std::max(*a, *b);
      }
    }
    }
    if (!x) return std::nullopt;
    v += coef * *x;
  }
  return v;
}

} // namespace chipless::sched

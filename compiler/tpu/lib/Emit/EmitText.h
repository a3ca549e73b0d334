#pragma once
/// What the TPU assembly emitter writes with (internal to compiler/tpu/lib/Emit): the program
/// text, scalar registers, values known at compile time or held in a register, the fixed
/// semaphore numbers, and the spelling of numbers and operations.
#include "tpuc/KernelSpec.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace chipless::tpuc::emitter {

using tpuprog::Opcode;

constexpr int kSemBarrier = 0, kSemIn = 1, kSemOut = 3, kSemFolds = 5, kSemPanels = 6;
/// A gather's indices landing in SMEM: kernels with a gather have no matmul, whose folds
/// semaphore it shares.
constexpr int kSemIndices = kSemFolds;
/// Semaphores for the panels of a resident RHS; panels past the last share the last one.
constexpr int kMaxResidentSems = 8;

inline std::string num(int64_t v) {
  return std::to_string(v);
}

inline std::string fnum(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Assembly text of one program.
class Asm {
public:
  void op(const std::string& s) { text_ += "    " + s + "\n"; }
  void comment(const std::string& s) { text_ += "    ; " + s + "\n"; }
  void label(const std::string& l) { text_ += l + ":\n"; }
  std::string newLabel(const std::string& base) { return base + "_" + num(labels_++); }
  const std::string& text() const { return text_; }

private:
  std::string text_;
  int labels_ = 0;
};

/// The general scalar registers s0..s(scalar.registers-1).
class RegPool {
public:
  RegPool(int n, std::string where)
      : used_(static_cast<size_t>(n), false), where_(std::move(where)) {}
  int take() {
    for (size_t i = 0; i < used_.size(); ++i)
      if (!used_[i]) {
        used_[i] = true;
        return static_cast<int>(i);
      }
    throw CompileError(where_, "the kernel needs more than " + num(used_.size()) +
                                   " scalar registers (scalar.registers)");
  }
  void give(int r) { used_[static_cast<size_t>(r)] = false; }

private:
  std::vector<bool> used_;
  std::string where_;
};

/// A scalar register held while in scope.
class SReg {
public:
  explicit SReg(RegPool& p) : pool_(&p), r_(p.take()) {}
  SReg(SReg&& o) noexcept : pool_(o.pool_), r_(o.r_) { o.pool_ = nullptr; }
  SReg& operator=(SReg&&) = delete;
  SReg(const SReg&) = delete;
  ~SReg() {
    if (pool_) pool_->give(r_);
  }
  std::string str() const { return "s" + num(r_); }
  operator std::string() const { return str(); }

private:
  RegPool* pool_;
  int r_;
};

/// A value known at compile time or held in a register (plus a constant).
struct Val {
  std::string reg;
  int64_t c = 0;
  static Val constant(int64_t v) { return {"", v}; }
  static Val of(const std::string& r, int64_t c = 0) { return {r, c}; }
  bool isConst() const { return reg.empty(); }
  Val plus(int64_t d) const { return {reg, c + d}; }
  std::string str() const {
    if (reg.empty()) return num(c);
    if (c == 0) return reg;
    return reg + (c > 0 ? "+" : "-") + num(c > 0 ? c : -c);
  }
};

/// `@sym+reg+c` (reg may be empty).
inline std::string symExpr(const std::string& sym, const Val& v) {
  std::string s = "@" + sym;
  if (!v.reg.empty()) s += "+" + v.reg;
  if (v.c > 0) s += "+" + num(v.c);
  if (v.c < 0) s += "-" + num(-v.c);
  return s;
}

inline const char* typeSuffix(bool isInt) {
  return isInt ? "i32" : "f32";
}

inline const char* mnemonic(Opcode op) {
  return tpuprog::opcodeInfo(op).mnemonic;
}

/// The identity of a reduction's combining operation.
inline double identityOf(Opcode op) {
  if (op == Opcode::VMax) return -INFINITY;
  if (op == Opcode::VMin) return INFINITY;
  return 0.0;
}

inline int64_t esize(DType t) {
  return static_cast<int64_t>(dtypeSize(t));
}

} // namespace chipless::tpuc::emitter

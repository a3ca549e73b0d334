#pragma once
/// The 64-bit integer arithmetic of the scalar instructions both chips' engines run (SpyreCode
/// engines, the TPU scalar unit): two's-complement wrap-around with no undefined behaviour on
/// overflow, shifts by the low 6 bits of the count (arithmetic right shift), INT64_MIN / -1
/// wrapping to INT64_MIN. A program's arithmetic can therefore never crash the simulator;
/// division by zero is reported to the caller, which faults naming engine and pc.
#include <algorithm>
#include <cstdint>
#include <optional>

namespace chipless::sim {

enum class ScalarAluOp { Add, Sub, Mul, Div, Rem, Shl, Shr, And, Or, Xor, Min, Max };

/// The ScalarAluOp of an instruction set's ALU opcode, nullopt for any other opcode; both
/// ISAs (spyrecode::Opcode, tpuprog::Opcode) name these opcodes alike.
template <typename Opcode>
std::optional<ScalarAluOp> aluOp(Opcode op) {
  switch (op) {
  case Opcode::Add:
    return ScalarAluOp::Add;
  case Opcode::Sub:
    return ScalarAluOp::Sub;
  case Opcode::Mul:
    return ScalarAluOp::Mul;
  case Opcode::Div:
    return ScalarAluOp::Div;
  case Opcode::Rem:
    return ScalarAluOp::Rem;
  case Opcode::Shl:
    return ScalarAluOp::Shl;
  case Opcode::Shr:
    return ScalarAluOp::Shr;
  case Opcode::And:
    return ScalarAluOp::And;
  case Opcode::Or:
    return ScalarAluOp::Or;
  case Opcode::Xor:
    return ScalarAluOp::Xor;
  case Opcode::Min:
    return ScalarAluOp::Min;
  case Opcode::Max:
    return ScalarAluOp::Max;
  default:
    return std::nullopt;
  }
}

/// `a op b`; nullopt for a division or remainder by zero.
inline std::optional<int64_t> scalarAlu(ScalarAluOp op, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
  case ScalarAluOp::Add:
    return static_cast<int64_t>(ua + ub);
  case ScalarAluOp::Sub:
    return static_cast<int64_t>(ua - ub);
  case ScalarAluOp::Mul:
    return static_cast<int64_t>(ua * ub);
  case ScalarAluOp::Div:
  case ScalarAluOp::Rem:
    if (b == 0) return std::nullopt;
    if (b == -1) return op == ScalarAluOp::Div ? static_cast<int64_t>(0 - ua) : 0;
    return op == ScalarAluOp::Div ? a / b : a % b;
  case ScalarAluOp::Shl:
    return static_cast<int64_t>(ua << (b & 63));
  case ScalarAluOp::Shr:
    return a >> (b & 63);
  case ScalarAluOp::And:
    return a & b;
  case ScalarAluOp::Or:
    return a | b;
  case ScalarAluOp::Xor:
    return a ^ b;
  case ScalarAluOp::Min:
    return std::min(a, b);
  case ScalarAluOp::Max:
    return std::max(a, b);
  }
  return std::nullopt;
}

} // namespace chipless::sim

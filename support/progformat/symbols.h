#pragma once
/// What the symbols of a job binary may name, on both chips: a tensor argument (its device
/// address), one of its dimensions (ARG.dK) or, on chips that pad tensors, a padded
/// dimension (ARG.pK), a scalar, an integer scalar converted to a float type (N.f16,
/// N.bf16, N.f32: a kernel's `arith.sitofp` of a launch scalar) or a buffer. The assembler
/// checks every `@name` it interns against the plan, and readJob every symbol of a binary
/// it loads, with this one rule.
#include "support/dtype.h"

#include <optional>
#include <string>
#include <string_view>

namespace chipless::progformat {

/// What a symbol name refers to.
struct SymbolRef {
  enum class Kind { Address, Dim, PaddedDim, Scalar, ScalarAsReal, Buffer } kind = Kind::Address;
  std::string base;        ///< argument, scalar or buffer name
  int dim = 0;             ///< for Dim and PaddedDim
  DType real = DType::F32; ///< for ScalarAsReal: the float type the integer is rounded to
};

/// Splits "d3" / "p0" into its letter (one of `letters`) and index; false when malformed.
bool parseDimSuffix(const std::string& s, std::string_view letters, char& letter, int& index);

/// "expected A.d0 .. A.d1 (dimensions)", with " or A.p0 .. A.p1 (padded dimensions)" when
/// `letters` has 'p': what a dimension symbol of argument `base` (of rank `rank`) may be.
std::string dimSymbolsText(const std::string& base, size_t rank, std::string_view letters);

/// Resolves `name` against `plan` (a chip's JobPlan); `letters` are the chip's dimension
/// symbol letters ("d", or "dp" with padded dimensions). nullopt, with `why` set, if it
/// names nothing.
template <typename Plan>
std::optional<SymbolRef> resolveSymbol(const Plan& plan, const std::string& name,
                                       std::string_view letters, std::string& why) {
  auto dot = name.find('.');
  SymbolRef ref;
  ref.base = name.substr(0, dot);
  if (dot != std::string::npos) {
    const auto* a = plan.findArg(ref.base);
    if (!a) {
      // An integer scalar as a float: N.f16, N.bf16, N.f32.
      for (const auto& s : plan.scalars)
        if (s.name == ref.base && !s.real) {
          auto t = parseDType(name.substr(dot + 1));
          if (!t || !isFloatType(*t)) {
            why = "'" + ref.base + "' is not a tensor argument (it is a scalar: " + ref.base +
                  ".f16, " + ref.base + ".bf16 or " + ref.base + ".f32 is its value as a float)";
            return std::nullopt;
          }
          ref.kind = SymbolRef::Kind::ScalarAsReal;
          ref.real = *t;
          return ref;
        }
      why = "'" + ref.base + "' is not a tensor argument or an integer scalar";
      return std::nullopt;
    }
    char letter;
    int index;
    if (!parseDimSuffix(name.substr(dot + 1), letters, letter, index) ||
        index >= static_cast<int>(a->shape.size())) {
      why = dimSymbolsText(ref.base, a->shape.size(), letters);
      return std::nullopt;
    }
    ref.kind = letter == 'd' ? SymbolRef::Kind::Dim : SymbolRef::Kind::PaddedDim;
    ref.dim = index;
    return ref;
  }
  if (plan.findArg(name)) return ref;
  for (const auto& s : plan.scalars)
    if (s.name == name) {
      ref.kind = SymbolRef::Kind::Scalar;
      return ref;
    }
  for (const auto& b : plan.buffers)
    if (b.name == name) {
      ref.kind = SymbolRef::Kind::Buffer;
      return ref;
    }
  why = "'" + name + "' is not a declared argument, scalar or buffer";
  return std::nullopt;
}

} // namespace chipless::progformat

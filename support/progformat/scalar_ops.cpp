#include "support/progformat/scalar_ops.h"

namespace chipless::progformat {

const std::vector<ScalarAluOp>& scalarAluOps() {
  using K = OperandKind;
  static const std::vector<OperandDecl> binary = {req("rd", K::Reg), req("a", K::Expr),
                                                  req("b", K::Expr)};
  static const std::vector<ScalarAluOp> ops = {
      {"li", {req("rd", K::Reg), req("a", K::Expr)}, 2, "rd = a"},
      {"add", binary, 3, "rd = a + b"},
      {"sub", binary, 3, "rd = a - b"},
      {"mul", binary, 3, "rd = a * b"},
      {"div", binary, 3, "rd = a / b (signed, truncating; b != 0)"},
      {"rem", binary, 3, "rd = a % b (signed; b != 0)"},
      {"shl", binary, 3, "rd = a << b"},
      {"shr", binary, 3, "rd = a >> b (arithmetic)"},
      {"and", binary, 3, "rd = a & b"},
      {"or", binary, 3, "rd = a | b"},
      {"xor", binary, 3, "rd = a ^ b"},
      {"min", binary, 3, "rd = min(a, b)"},
      {"max", binary, 3, "rd = max(a, b)"},
  };
  return ops;
}

} // namespace chipless::progformat

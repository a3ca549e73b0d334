#include "support/progformat/binary_codec.h"

namespace chipless::progformat {

void writeRange(ByteWriter& w, int32_t first, int32_t last) {
  w.put<int32_t>(first);
  w.put<int32_t>(last);
}

void readRange(ByteReader& r, const std::string& where, const char* noun, int32_t& first,
               int32_t& last) {
  first = r.get<int32_t>("a program header");
  last = r.get<int32_t>("a program header");
  if (first < 0 || last < first)
    r.fail(where + ": bad " + noun + " range " + std::to_string(first) + "-" +
           std::to_string(last));
}

void writeOp(ByteWriter& w, uint16_t opcode, const std::optional<DType>& dtype,
             const std::vector<Operand>& operands) {
  w.put<uint16_t>(opcode);
  w.put<uint8_t>(dtype ? static_cast<uint8_t>(*dtype) : kNoDtype);
  w.put<uint8_t>(static_cast<uint8_t>(operands.size()));
  for (const auto& o : operands) {
    w.put<int64_t>(o.imm);
    w.put<int8_t>(o.reg);
    w.put<uint8_t>(0);
    w.put<uint16_t>(0);
    w.put<int32_t>(o.sym);
  }
}

} // namespace chipless::progformat

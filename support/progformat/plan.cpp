#include "support/progformat/plan.h"

#include "support/error.h"

#include <cctype>
#include <cstdio>

namespace chipless::progformat {

const char* argRoleName(ArgRole r) {
  switch (r) {
  case ArgRole::Input:
    return "input";
  case ArgRole::Output:
    return "output";
  case ArgRole::InOut:
    return "inout";
  }
  return "?";
}

const char* commandName(PlanCommand::Kind k) {
  switch (k) {
  case PlanCommand::Kind::Allocate:
    return "Allocate";
  case PlanCommand::Kind::InitTransfer:
    return "InitTransfer";
  case PlanCommand::Kind::DataTransfer:
    return "DataTransfer";
  case PlanCommand::Kind::ComputeOnDevice:
    return "ComputeOnDevice";
  case PlanCommand::Kind::ComputeOnHost:
    return "ComputeOnHost";
  }
  return "?";
}

bool PlanCommand::operator==(const PlanCommand& o) const {
  return kind == o.kind && name == o.name && size == o.size && devPtr == o.devPtr &&
         filePath == o.filePath && direction == o.direction && hostHandle == o.hostHandle &&
         function == o.function && inputs == o.inputs && outputs == o.outputs &&
         metadata == o.metadata;
}

uint64_t parseDevPtr(const std::string& s, const std::string& what) {
  if (s.empty()) throw Error(what + ": expected a device address, got an empty string");
  // Hexadecimal with 0x, else decimal (not octal: "010" is ten); no sign or blanks.
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  size_t pos = 0;
  uint64_t v = 0;
  try {
    if (std::isxdigit(static_cast<unsigned char>(s[hex ? 2 : 0])))
      v = std::stoull(s, &pos, hex ? 16 : 10);
  } catch (...) {
    pos = 0;
  }
  if (pos != s.size())
    throw Error(what + ": expected a device address like 0x1C00000000, got '" + s + "'");
  return v;
}

std::string formatDevPtr(uint64_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(p));
  return buf;
}

} // namespace chipless::progformat

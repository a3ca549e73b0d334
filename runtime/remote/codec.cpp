#include "runtime/remote/codec.h"

namespace chipless::runtime::remote {

DType getDType(WireReader& r, const char* field) {
  uint8_t d = r.get<uint8_t>(field);
  if (d > static_cast<uint8_t>(DType::I64)) r.fail(field, "unknown dtype " + std::to_string(d));
  return static_cast<DType>(d);
}

void putArray(WireWriter& w, const NpyArray& a) {
  w.put<uint8_t>(static_cast<uint8_t>(a.dtype));
  w.putShape(a.shape);
  w.putBytes(std::string_view(reinterpret_cast<const char*>(a.data.data()), a.data.size()));
}

NpyArray getArray(WireReader& r, const char* field) {
  NpyArray a;
  a.dtype = getDType(r, field);
  a.shape = r.getShape(field);
  std::string_view data = r.getBytes(field);
  uint64_t elements = 1;
  bool overflow = false;
  for (int64_t d : a.shape) {
    auto extent = static_cast<uint64_t>(d);
    if (extent != 0 && elements > UINT64_MAX / extent) overflow = true;
    elements *= extent;
  }
  if (overflow || elements > data.size() / dtypeSize(a.dtype) ||
      elements * dtypeSize(a.dtype) != data.size())
    r.fail(field, std::to_string(data.size()) + " data bytes do not match its dtype and shape");
  a.data.assign(data.begin(), data.end());
  return a;
}

void putTensor(WireWriter& w, const DeviceTensor& t) {
  w.put<uint64_t>(t.address);
  w.put<uint8_t>(static_cast<uint8_t>(t.dtype));
  w.putShape(t.shape);
}

DeviceTensor getTensor(WireReader& r, const char* field) {
  DeviceTensor t;
  t.address = r.get<uint64_t>(field);
  t.dtype = getDType(r, field);
  t.shape = r.getShape(field);
  return t;
}

void putProgramInfo(WireWriter& w, const ProgramInfo& info) {
  w.putString(info.kernel);
  w.put<uint32_t>(static_cast<uint32_t>(info.arguments.size()));
  for (const ArgumentInfo& a : info.arguments) {
    w.putString(a.name);
    w.put<uint8_t>(static_cast<uint8_t>(a.role));
    w.put<uint8_t>(static_cast<uint8_t>(a.dtype));
    w.put<uint8_t>(static_cast<uint8_t>(a.hostDtype));
    w.putString(a.shape);
  }
  w.put<uint32_t>(static_cast<uint32_t>(info.scalars.size()));
  for (const std::string& s : info.scalars) w.putString(s);
}

ProgramInfo getProgramInfo(WireReader& r) {
  ProgramInfo info;
  info.kernel = r.getString("kernel");
  for (uint32_t n = r.getCount("arguments", 19); n > 0; --n) {
    ArgumentInfo a;
    a.name = r.getString("argument name");
    uint8_t role = r.get<uint8_t>("argument role");
    if (role > static_cast<uint8_t>(progformat::ArgRole::InOut)) r.fail("argument role", "unknown");
    a.role = static_cast<progformat::ArgRole>(role);
    a.dtype = getDType(r, "argument dtype");
    a.hostDtype = getDType(r, "argument host dtype");
    a.shape = r.getString("argument shape");
    info.arguments.push_back(std::move(a));
  }
  for (uint32_t n = r.getCount("scalars", 8); n > 0; --n)
    info.scalars.push_back(r.getString("scalar"));
  return info;
}

} // namespace chipless::runtime::remote

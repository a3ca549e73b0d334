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

void putShare(WireWriter& w, const DeviceShare& share) {
  w.put<int32_t>(share.cores);
  w.put<uint64_t>(share.memoryBytes);
  w.put<int64_t>(share.windowMicroseconds);
}

DeviceShare getShare(WireReader& r) {
  DeviceShare share;
  share.cores = r.get<int32_t>("share cores");
  if (share.cores < 0) r.fail("share cores", "negative");
  share.memoryBytes = r.get<uint64_t>("share memory bytes");
  share.windowMicroseconds = r.get<int64_t>("share window");
  if (share.windowMicroseconds < 0 || share.windowMicroseconds > 60'000'000)
    r.fail("share window", "not 0 to 60 seconds");
  return share;
}

void putShareInfo(WireWriter& w, const std::optional<ShareInfo>& info) {
  w.put<uint8_t>(info ? 1 : 0);
  if (!info) return;
  w.put<int32_t>(info->firstCore);
  w.put<int32_t>(info->cores);
  w.put<uint64_t>(info->memoryBase);
  w.put<uint64_t>(info->memoryBytes);
  w.put<uint32_t>(static_cast<uint32_t>(info->overrides.size()));
  for (const std::string& o : info->overrides) w.putString(o);
}

std::optional<ShareInfo> getShareInfo(WireReader& r) {
  if (r.get<uint8_t>("share") == 0) return std::nullopt;
  ShareInfo info;
  info.firstCore = r.get<int32_t>("share first core");
  info.cores = r.get<int32_t>("share cores");
  info.memoryBase = r.get<uint64_t>("share memory base");
  info.memoryBytes = r.get<uint64_t>("share memory bytes");
  for (uint32_t n = r.getCount("share overrides", 8); n > 0; --n)
    info.overrides.push_back(r.getString("share override"));
  return info;
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

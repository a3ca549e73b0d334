#pragma once
/// How the device protocol's messages carry the runtime's values (docs/device-protocol.md):
/// host arrays, device tensors, program descriptions and launch reports, each written and
/// read in one place so client and worker cannot disagree.
#include "runtime/device.h"
#include "support/wire.h"

namespace chipless::runtime::remote {

void putArray(WireWriter& w, const NpyArray& a);
/// A host array; its data must be exactly what its dtype and shape need.
NpyArray getArray(WireReader& r, const char* field);

void putTensor(WireWriter& w, const DeviceTensor& t);
DeviceTensor getTensor(WireReader& r, const char* field);

/// A dtype, checked against the types the runtime knows.
DType getDType(WireReader& r, const char* field);

/// The share an Open asks for (cores 0: the whole device).
void putShare(WireWriter& w, const DeviceShare& share);
DeviceShare getShare(WireReader& r);
/// What an Open reply says of the share the device is (nothing: the whole device).
void putShareInfo(WireWriter& w, const std::optional<ShareInfo>& info);
std::optional<ShareInfo> getShareInfo(WireReader& r);

void putProgramInfo(WireWriter& w, const ProgramInfo& info);
ProgramInfo getProgramInfo(WireReader& r);

} // namespace chipless::runtime::remote

#pragma once
/// How a client asks for a share of a device (DeviceShare) in text: the value of
/// $CHIPLESS_DEVICE_SHARE and of Python's `share=`.
#include "runtime/device.h"

#include <optional>
#include <string>

namespace chipless::runtime {

/// Parses "cores=N[,memory=BYTES][,window-ms=MS]" (BYTES may end in K, M or G, powers of
/// 1024); errors start with `what` and name the field.
DeviceShare parseDeviceShare(const std::string& text, const std::string& what);
/// $CHIPLESS_DEVICE_SHARE parsed, or nothing when it is unset or empty.
std::optional<DeviceShare> shareFromEnvironment();
/// The text parseDeviceShare reads back ("cores=1,memory=17179869184,window-ms=5").
std::string describeShare(const DeviceShare& share);

} // namespace chipless::runtime

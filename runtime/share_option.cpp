#include "runtime/share_option.h"

#include "support/error.h"

#include <cstdlib>
#include <limits>

namespace chipless::runtime {

namespace {

/// A whole number of at most `max`, with an optional binary suffix when `suffixes`.
uint64_t parseCount(const std::string& value, bool suffixes, uint64_t max,
                    const std::string& what) {
  std::string digits = value;
  uint64_t scale = 1;
  if (suffixes && !digits.empty()) {
    char last = digits.back();
    if (last == 'K' || last == 'k') scale = 1ull << 10;
    if (last == 'M' || last == 'm') scale = 1ull << 20;
    if (last == 'G' || last == 'g') scale = 1ull << 30;
    if (scale != 1) digits.pop_back();
  }
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw Error(what + ": '" + value + "' is not a whole number" +
                (suffixes ? " (optionally ending in K, M or G)" : ""));
  uint64_t n = std::stoull(digits);
  if (n > max / scale)
    throw Error(what + ": " + value + " is too large (at most " + std::to_string(max) + ")");
  return n * scale;
}

} // namespace

DeviceShare parseDeviceShare(const std::string& text, const std::string& what) {
  DeviceShare share;
  bool cores = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() : comma + 1;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::string field = what + ": " + key;
    if (eq == std::string::npos)
      throw Error(what + ": '" + item + "' is not KEY=VALUE (cores=N,memory=BYTES,window-ms=MS)");
    if (key == "cores") {
      share.cores = static_cast<int>(parseCount(value, false, 4096, field));
      if (share.cores < 1) throw Error(field + ": a share has at least 1 core");
      cores = true;
    } else if (key == "memory") {
      share.memoryBytes = parseCount(value, true, std::numeric_limits<uint64_t>::max(), field);
      if (share.memoryBytes == 0)
        throw Error(field + ": a share has some memory (leave memory out for the cores' part)");
    } else if (key == "window-ms") {
      share.windowMicroseconds =
          static_cast<int64_t>(parseCount(value, false, 60000, field)) * 1000;
    } else {
      throw Error(what + ": unknown field '" + key + "' (cores, memory, window-ms)");
    }
  }
  if (!cores) throw Error(what + ": '" + text + "' does not say how many cores (cores=N)");
  return share;
}

std::optional<DeviceShare> shareFromEnvironment() {
  const char* text = std::getenv("CHIPLESS_DEVICE_SHARE");
  if (!text || !*text) return std::nullopt;
  return parseDeviceShare(text, "CHIPLESS_DEVICE_SHARE");
}

std::string describeShare(const DeviceShare& share) {
  std::string text = "cores=" + std::to_string(share.cores);
  if (share.memoryBytes) text += ",memory=" + std::to_string(share.memoryBytes);
  return text + ",window-ms=" + std::to_string(share.windowMicroseconds / 1000);
}

} // namespace chipless::runtime

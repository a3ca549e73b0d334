#include "tools/device_server/status.h"

#include "runtime/remote/remote_device.h"

#include <cstdio>

namespace chipless::server {

int printStatus(const std::string& address) {
  try {
    runtime::remote::Connection c(runtime::remote::parseServerAddress(address, "--listen"),
                                  runtime::remote::clientToken());
    std::printf("chipless-device-server at %s (pid %d)\n", address.c_str(), c.serverPid());
    for (const auto& d : c.devices()) {
      std::string owner = d.shares > 0 ? std::to_string(d.shares) + " share(s), the first by pid " +
                                             std::to_string(d.ownerPid)
                          : d.ownerPid ? "open by pid " + std::to_string(d.ownerPid)
                                       : "free";
      std::printf("  %-10s %-10s %s\n", d.name.c_str(), d.arch.c_str(), owner.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chipless-device-server --status: %s\n", e.what());
    return 1;
  }
}

} // namespace chipless::server

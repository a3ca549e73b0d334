#pragma once
/// `chipless-device-server --status`: what a running server serves and who holds each device.
#include <string>

namespace chipless::server {

/// Connects to the server at `address` ("unix:PATH", "tcp:HOST:PORT") and prints one line per
/// device: its name, architecture and owner. Returns the exit status (1, with the error on
/// stderr, when there is no server there).
int printStatus(const std::string& address);

} // namespace chipless::server

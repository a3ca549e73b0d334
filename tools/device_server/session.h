#pragma once
/// One client connection of the device server: the Hello, the device it opens, and the
/// relay of its requests to that device's worker (docs/device-protocol.md).
#include "tools/device_server/server.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/generic/stream_protocol.hpp>

namespace chipless::server {

/// Serves `client` until it disconnects or breaks the protocol; then closes its device (the
/// worker releases the device's memory and programs) so a new owner can open it. `tcp` says
/// whether the token applies.
boost::asio::awaitable<void> serveClient(Server& server,
                                         boost::asio::generic::stream_protocol::socket client,
                                         bool tcp, uint64_t session);

} // namespace chipless::server

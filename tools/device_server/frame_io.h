#pragma once
/// Frame and message I/O of the device protocol on Asio streams (client sockets and worker
/// socket pairs), as coroutines. A frame whose header is not acceptable is a
/// ProtocolViolation, thrown before its payload is read, so a hostile length never makes the
/// server allocate.
#include "runtime/remote/protocol.h"

#include <algorithm>
#include <array>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <stdexcept>
#include <string>

namespace chipless::server {

namespace net = boost::asio;
using runtime::remote::FrameHeader;
using runtime::remote::Message;
using runtime::remote::Opcode;

/// The peer broke the protocol: it gets an Error frame saying how, and is disconnected.
struct ProtocolViolation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads one frame. Returns false when `eofOk` and the peer closed the connection before
/// the frame began; throws boost::system::system_error when the connection fails.
template <typename Stream>
net::awaitable<bool> readFrame(Stream& s, FrameHeader& h, std::string& payload, bool eofOk) {
  char raw[runtime::remote::kHeaderBytes];
  boost::system::error_code ec;
  size_t n =
      co_await net::async_read(s, net::buffer(raw), net::redirect_error(net::use_awaitable, ec));
  if (ec) {
    if (eofOk && n == 0 && ec == net::error::eof) co_return false;
    throw boost::system::system_error(ec);
  }
  h = runtime::remote::decodeHeader(raw);
  std::string problem = runtime::remote::headerProblem(h);
  if (!problem.empty()) throw ProtocolViolation(problem);
  payload.resize(h.length);
  co_await net::async_read(s, net::buffer(payload), net::use_awaitable);
  co_return true;
}

/// Writes one frame.
template <typename Stream>
net::awaitable<void> writeFrame(Stream& s, const FrameHeader& h, std::string_view payload) {
  char raw[runtime::remote::kHeaderBytes];
  runtime::remote::encodeHeader(h, raw);
  std::array<net::const_buffer, 2> buffers{net::buffer(raw),
                                           net::buffer(payload.data(), payload.size())};
  co_await net::async_write(s, buffers, net::use_awaitable);
}

/// Writes a whole message, split into frames.
template <typename Stream>
net::awaitable<void> writeMessage(Stream& s, Opcode opcode, std::string_view payload) {
  size_t pos = 0;
  do {
    size_t n = std::min<size_t>(payload.size() - pos, runtime::remote::kMaxFramePayload);
    FrameHeader h;
    h.opcode = static_cast<uint16_t>(opcode);
    h.length = static_cast<uint32_t>(n);
    h.flags = pos + n < payload.size() ? runtime::remote::kMore : 0;
    co_await writeFrame(s, h, payload.substr(pos, n));
    pos += n;
  } while (pos < payload.size());
}

/// Reads a whole message of at most `maxBytes`.
template <typename Stream>
net::awaitable<Message> readMessage(Stream& s, uint64_t maxBytes) {
  Message m;
  FrameHeader h;
  std::string payload;
  bool first = true;
  do {
    co_await readFrame(s, h, payload, false);
    if (!first && h.opcode != static_cast<uint16_t>(m.opcode))
      throw ProtocolViolation("a " + runtime::remote::opcodeName(h.opcode) + " frame inside a " +
                              runtime::remote::opcodeName(static_cast<uint16_t>(m.opcode)) +
                              " message");
    if (m.payload.size() + payload.size() > maxBytes)
      throw ProtocolViolation("message over the limit of " + std::to_string(maxBytes) + " bytes");
    m.opcode = static_cast<Opcode>(h.opcode);
    m.payload += payload;
    first = false;
  } while (h.flags & runtime::remote::kMore);
  co_return m;
}

} // namespace chipless::server

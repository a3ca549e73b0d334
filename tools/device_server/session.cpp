#include "tools/device_server/session.h"

#include "runtime/remote/codec.h"
#include "support/error.h"
#include "support/wire.h"
#include "tools/device_server/frame_io.h"

#include <sys/socket.h>
#include <unistd.h>

namespace chipless::server {

namespace {

using runtime::remote::kMore;
using runtime::remote::opcodeName;
using Socket = net::generic::stream_protocol::socket;

/// The device's worker failed (its process ended): the device is reset.
struct WorkerLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// The client's connection failed while its request was being answered.
struct ClientGone : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The pid of a Unix-socket peer (0 for TCP).
int peerPid(Socket& s) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(s.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid > 0)
    return cred.pid;
  return 0;
}

/// What one connection knows.
struct SessionState {
  SessionState(Server& s, Socket& c, bool t, uint64_t i) : server(s), client(c), tcp(t), id(i) {}
  Server& server;
  Socket& client;
  bool tcp;
  uint64_t id;
  int pid = 0;
  std::string name;
  bool hello = false;
  DeviceSlot* slot = nullptr;
  WorkerChannel worker; ///< to the device's worker, while a device is open
  /// Frames of a request went to the worker but not its last one.
  bool workerMidMessage = false;
};

net::awaitable<void> sendError(Socket& client, const std::string& message) {
  co_await writeMessage(client, Opcode::Error, message);
}

/// Writes a frame to the worker; a failure means the worker is gone.
net::awaitable<void> toWorker(SessionState& s, const FrameHeader& h, std::string_view payload) {
  try {
    co_await writeFrame(*s.worker.socket, h, payload);
  } catch (const boost::system::system_error& e) {
    throw WorkerLost(e.what());
  }
}

/// Relays the worker's reply message to the client, frame by frame. The whole reply is read
/// from the worker even when the client has gone (the worker stays in step); then ClientGone.
/// Returns whether the reply was a Reply (not an Error).
net::awaitable<bool> relayReply(SessionState& s) {
  FrameHeader h;
  std::string payload;
  bool clientAlive = true;
  bool ok = false;
  do {
    try {
      co_await readFrame(*s.worker.socket, h, payload, false);
    } catch (const boost::system::system_error& e) {
      throw WorkerLost(e.what());
    }
    ok = h.opcode == static_cast<uint16_t>(Opcode::Reply);
    if (!clientAlive) continue;
    try {
      co_await writeFrame(s.client, h, payload);
    } catch (const boost::system::system_error&) {
      clientAlive = false;
    }
  } while (h.flags & kMore);
  if (!clientAlive) throw ClientGone("client gone");
  co_return ok;
}

/// Gives the session's device back: its channel to the worker is closed and its claim
/// released.
void endDevice(SessionState& s) {
  boost::system::error_code ignored;
  if (s.worker.socket) s.worker.socket->close(ignored);
  s.worker = {};
  s.server.release(*s.slot, s.id);
  s.slot = nullptr;
}

/// Closes the device of a session that ended: drops a partly sent request, sends Close and
/// waits for it, then gives the device back (with a new worker if the old one failed).
net::awaitable<void> closeDevice(SessionState& s) {
  try {
    if (s.workerMidMessage) {
      FrameHeader abort;
      abort.opcode = static_cast<uint16_t>(Opcode::Abort);
      co_await toWorker(s, abort, "");
    }
    FrameHeader close;
    close.opcode = static_cast<uint16_t>(Opcode::Close);
    co_await toWorker(s, close, "");
    try {
      co_await readMessage(*s.worker.socket, s.server.maxMessage());
    } catch (const std::exception& e) {
      throw WorkerLost(e.what());
    }
  } catch (const WorkerLost&) {
    s.server.replaceWorker(*s.slot, s.worker.generation);
  }
  endDevice(s);
}

net::awaitable<void> hello(SessionState& s, const FrameHeader& h, const std::string& payload) {
  if (h.flags & kMore) throw ProtocolViolation("a Hello message is one frame");
  WireReader r(payload, "Hello");
  std::string token;
  int pid = 0;
  try {
    token = r.getString("token");
    pid = static_cast<int>(r.get<uint32_t>("pid"));
    s.name = r.getString("client name");
    r.expectEnd();
  } catch (const Error& e) {
    throw ProtocolViolation(e.what());
  }
  if (!s.server.tokenAccepted(token, s.tcp))
    throw ProtocolViolation("the token presented is not the server's (see --token-file)");
  if (s.pid == 0) s.pid = pid;
  s.hello = true;
  WireWriter w;
  w.put<uint32_t>(static_cast<uint32_t>(::getpid()));
  w.putString("chipless-device-server protocol " + std::to_string(runtime::remote::kVersion));
  w.put<uint32_t>(static_cast<uint32_t>(s.server.slots().size()));
  for (const auto& slot : s.server.slots()) {
    auto [pid, shares] = s.server.users(*slot);
    w.putString(slot->name());
    w.putString(slot->arch);
    w.put<uint32_t>(static_cast<uint32_t>(pid));
    w.put<uint32_t>(static_cast<uint32_t>(shares));
  }
  co_await writeMessage(s.client, Opcode::Reply, w.bytes());
}

net::awaitable<void> open(SessionState& s, const FrameHeader& h, const std::string& payload) {
  if (h.flags & kMore) throw ProtocolViolation("an Open message is one frame");
  if (s.slot) {
    co_await sendError(s.client, s.slot->name() + ": this connection has a device open already");
    co_return;
  }
  std::string refusal;
  try {
    WireReader r(payload, "Open request");
    ChipKind kind = parseChipKind(r.getString("kind"), "Open request: kind");
    int index = r.get<int32_t>("index");
    // The share's fields follow the options and the architecture (the worker reads them all).
    r.get<uint8_t>("timing only");
    r.get<int32_t>("chips");
    r.get<double>("max cycles");
    r.get<double>("timeout");
    r.getBytes("architecture");
    bool share = runtime::remote::getShare(r).cores > 0;
    s.slot = &s.server.claim(kind, index, DeviceUser{s.id, s.pid, s.name}, share);
    try {
      s.worker = s.server.connectWorker(*s.slot);
    } catch (const Error&) {
      s.server.release(*s.slot, s.id);
      s.slot = nullptr;
      throw;
    }
  } catch (const Error& e) {
    refusal = e.what();
  }
  if (!refusal.empty()) {
    co_await sendError(s.client, refusal);
    co_return;
  }
  co_await toWorker(s, h, payload);
  if (!co_await relayReply(s)) endDevice(s);
}

/// Relays a device request (its first frame `h` read already) to the worker, then the reply.
net::awaitable<void> relay(SessionState& s, FrameHeader h, std::string& payload) {
  const uint16_t opcode = h.opcode;
  if (!s.slot) {
    // Read the rest of the message, then refuse it.
    uint64_t total = h.length;
    while (h.flags & kMore) {
      co_await readFrame(s.client, h, payload, false);
      total += h.length;
      if (h.opcode != opcode || total > s.server.maxMessage())
        throw ProtocolViolation("malformed " + opcodeName(opcode) + " message");
    }
    co_await sendError(s.client, "no device is open on this connection (Open comes first)");
    co_return;
  }
  uint64_t total = h.length;
  s.workerMidMessage = (h.flags & kMore) != 0;
  co_await toWorker(s, h, payload);
  while (h.flags & kMore) {
    co_await readFrame(s.client, h, payload, false);
    if (h.opcode != opcode)
      throw ProtocolViolation("a " + opcodeName(h.opcode) + " frame inside a " +
                              opcodeName(opcode) + " message");
    total += h.length;
    if (total > s.server.maxMessage())
      throw ProtocolViolation("message over the limit of " + std::to_string(s.server.maxMessage()) +
                              " bytes");
    co_await toWorker(s, h, payload);
    s.workerMidMessage = (h.flags & kMore) != 0;
  }
  bool ok = co_await relayReply(s);
  if (static_cast<Opcode>(opcode) == Opcode::Close && ok) endDevice(s);
}

/// A rank's Collective request (its first frame `h` read already): read whole, joined with
/// the other ranks', answered when all have come.
net::awaitable<void> collective(SessionState& s, FrameHeader h, std::string payload) {
  std::string message = std::move(payload);
  while (h.flags & kMore) {
    co_await readFrame(s.client, h, payload, false);
    if (h.opcode != static_cast<uint16_t>(Opcode::Collective))
      throw ProtocolViolation("a " + opcodeName(h.opcode) + " frame inside a Collective message");
    if (message.size() + payload.size() > s.server.maxMessage())
      throw ProtocolViolation("message over the limit of " + std::to_string(s.server.maxMessage()) +
                              " bytes");
    message += payload;
  }
  Message reply = co_await s.server.collectives().join(message, s.id);
  co_await writeMessage(s.client, reply.opcode, reply.payload);
}

} // namespace

net::awaitable<void> serveClient(Server& server, Socket client, bool tcp, uint64_t session) {
  SessionState s(server, client, tcp, session);
  s.pid = peerPid(client);
  int fd = client.native_handle();
  server.track(fd, true);
  std::string farewell;
  try {
    std::string payload; // one frame at a time, the buffer reused
    for (;;) {
      FrameHeader h;
      if (!co_await readFrame(client, h, payload, true)) break;
      if (!runtime::remote::isRequest(h.opcode))
        throw ProtocolViolation(opcodeName(h.opcode) + " is not a request");
      auto opcode = static_cast<Opcode>(h.opcode);
      if (opcode == Opcode::Hello) {
        co_await hello(s, h, payload);
        continue;
      }
      if (!s.hello) throw ProtocolViolation("the first message must be Hello");
      if (opcode == Opcode::Open)
        co_await open(s, h, payload);
      else if (opcode == Opcode::Collective)
        co_await collective(s, h, payload);
      else
        co_await relay(s, h, payload);
    }
  } catch (const ProtocolViolation& v) {
    farewell =
        std::string("device server: protocol error: ") + v.what() + "; closing the connection";
  } catch (const WorkerLost&) {
    if (s.slot) {
      std::string how = server.replaceWorker(*s.slot, s.worker.generation);
      farewell = s.slot->name() + ": the device's worker process " + how + "; the device was reset";
      endDevice(s);
    }
  } catch (const std::exception&) {
    // The client's connection failed or it went away: its device is closed below.
  }
  // (No co_await is allowed in a handler: the last word is sent here.)
  if (!farewell.empty()) {
    try {
      co_await sendError(client, farewell);
    } catch (const std::exception&) {
    }
  }
  if (s.slot) co_await closeDevice(s);
  server.collectives().leave(s.id);
  server.track(fd, false);
  boost::system::error_code ignored;
  client.close(ignored);
}

} // namespace chipless::server

#pragma once
/// chipless-device-server: emulated devices as a service (docs/device-server.md). The server
/// owns N devices, each simulated by a worker process of its own (worker_process.h), and
/// serves clients on a Unix-domain socket and optionally on TCP, speaking the protocol of
/// docs/device-protocol.md. A device has one owner at a time, as on the real chip: the
/// session that opened it — or, with --share, several clients each with a share of it. The
/// server relays each session's requests to the device's worker, on a channel of the
/// session's own, in order and its replies back, frame by frame, so its memory stays bounded
/// by one frame per connection whatever the size of a tensor.
#include "runtime/remote/protocol.h"
#include "support/arch_files.h"
#include "tools/device_server/collective_hub.h"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace chipless::server {

struct ServerOptions {
  /// Where to listen: "unix:PATH" or "tcp:HOST:PORT"; the default Unix socket when empty.
  std::vector<std::string> listen;
  /// The devices: "spyre:2,tpu-v5e:4" (a kind or a bundled architecture name, and a count).
  std::string devices = "spyre:1,tpu:1";
  /// A file holding the token TCP clients must present (required to listen on TCP anywhere
  /// but the loopback address).
  std::string tokenFile;
  /// Threads serving the sockets: one is enough (the devices simulate in their workers), and
  /// a second costs a thread hand-off per request.
  int threads = 1;
  uint64_t maxMessage = 0; ///< bytes one message may carry (0: the protocol's default)
  /// Seconds a tpu_dist rank waits for the other ranks of its group.
  double collectiveTimeout = 600;
  /// Whether clients may open shares of a device (DeviceShare), several at once.
  bool share = false;
  std::string self; ///< this executable, started again as each device's worker
};

/// The Unix socket used when none is named: $XDG_RUNTIME_DIR/chipless-device-server.sock, or
/// /tmp/chipless-UID/device-server.sock.
std::string defaultSocketPath();

/// A client that has a device open: its session, pid and name.
struct DeviceUser {
  uint64_t session = 0;
  int pid = 0;
  std::string name;
  std::string describe() const;
};

/// One device of the server and its worker.
struct DeviceSlot {
  ChipKind kind = ChipKind::Spyre;
  int index = 0;
  std::string arch; ///< as named in --devices ("tpu-v5e"), for Hello
  pid_t workerPid = -1;
  /// The server's end of the worker's control socket, over which each session that opens
  /// the device passes the worker a channel of its own (runtime/remote/channel_passing.h).
  int control = -1;
  uint64_t generation = 0;         ///< counts the workers started, so a lost one is replaced once
  std::string lastEnd;             ///< how the previous worker ended
  std::optional<DeviceUser> owner; ///< the one owner of the whole device
  std::vector<DeviceUser> sharers; ///< the clients that have shares of it (--share)
  std::string name() const { return std::string(chipKindName(kind)) + ":" + std::to_string(index); }
};

/// A session's channel to its device's worker.
struct WorkerChannel {
  std::unique_ptr<boost::asio::local::stream_protocol::socket> socket;
  uint64_t generation = 0; ///< of the worker it reaches
};

class Server {
public:
  explicit Server(ServerOptions options);
  ~Server();
  /// Listens, serves until SIGINT or SIGTERM, then closes every connection and stops the
  /// workers. Returns the exit status.
  int run();

  // For the sessions (session.cpp).
  /// Claims device `index` of `kind` (-1: the first free one) for `user`, whole or (`share`)
  /// a share of it beside the other shares; errors name the device and its users' pids.
  DeviceSlot& claim(ChipKind kind, int index, const DeviceUser& user, bool share);
  /// The pid of `slot`'s owner or of its first sharer, 0 when it is free; and how many
  /// clients have shares of it.
  std::pair<int, int> users(const DeviceSlot& slot);
  /// Gives session `session`'s claim on a device back (its worker has closed the device).
  void release(DeviceSlot& slot, uint64_t session);
  /// A new channel to `slot`'s worker for one session.
  WorkerChannel connectWorker(DeviceSlot& slot);
  /// Replaces the worker of `slot` after it ended — unless the worker `generation` was
  /// replaced already; returns how it ended.
  std::string replaceWorker(DeviceSlot& slot, uint64_t generation);
  /// Whether `token` is the one a TCP client must present ("" when none is required).
  bool tokenAccepted(const std::string& token, bool tcp) const;
  uint64_t maxMessage() const { return maxMessage_; }
  const std::vector<std::unique_ptr<DeviceSlot>>& slots() const { return slots_; }
  boost::asio::io_context& context() { return context_; }
  /// Where the ranks of `tpu_dist` and `spyre_dist` groups meet.
  CollectiveHub& collectives() { return hub_; }
  /// Runs a RunCollective payload on the worker of `network` (started the first time), one
  /// at a time per network; returns its reply, or an Error when the worker failed (a new one
  /// starts next time).
  runtime::remote::Message runCollective(runtime::remote::CollectiveNetwork network,
                                         const std::string& payload);
  /// Registers a client connection's native handle, so shutdown can close it.
  void track(int fd, bool add);

private:
  void parseDevices(const std::string& text);
  /// Starts `slot`'s worker (with mutex_ held, or before serving).
  void startWorker(DeviceSlot& slot);
  void listen(const std::string& where);
  void shutdown();

  ServerOptions options_;
  uint64_t maxMessage_;
  std::string token_;
  boost::asio::io_context context_;
  std::vector<std::unique_ptr<DeviceSlot>> slots_;
  std::vector<std::string> socketFiles_;
  std::vector<std::function<void()>> closeAcceptors_;
  std::mutex mutex_; ///< guards ownership and the connections
  std::set<int> connections_;
  std::atomic<uint64_t> nextSession_{1};
  /// The process that runs one network's collectives (the ICI's, the ring's).
  struct NetworkWorker {
    std::mutex mutex; ///< one collective at a time
    pid_t pid = -1;
    int fd = -1;
    std::unique_ptr<runtime::remote::FrameStream> stream;
    /// Stops the process, if one runs (SIGKILL when `kill`, else SIGTERM), and forgets it.
    void stop(bool kill);
  };
  NetworkWorker networks_[2]; ///< by CollectiveNetwork
  CollectiveHub hub_;
  bool stopping_ = false;
};

} // namespace chipless::server

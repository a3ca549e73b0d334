#pragma once
/// A device of a chipless-device-server, behind the same Device interface as an in-process
/// one: every call becomes a request over the connection (docs/device-protocol.md) and its
/// reply, so spyre-sim, tpu-sim, the Python module and the PyTorch devices run unchanged
/// against a server. Outputs, statistics and traces are byte-identical to an in-process run
/// of the same program; errors carry the in-process message.
#include "runtime/device.h"
#include "runtime/remote/protocol.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace chipless::runtime::remote {

/// Where a device server listens.
struct ServerAddress {
  enum class Kind { Unix, Tcp };
  Kind kind = Kind::Unix;
  std::string path; ///< Unix: the socket file
  std::string host; ///< TCP: a numeric address or a host name
  uint16_t port = 0;
  std::string text; ///< as written: "unix:/run/user/1000/chipless.sock"
};

/// Parses "unix:PATH" or "tcp:HOST:PORT" (an IPv6 host in brackets: "tcp:[::1]:7000");
/// errors start with `what`.
ServerAddress parseServerAddress(const std::string& text, const std::string& what);
/// $CHIPLESS_DEVICE_SERVER parsed, or nothing when it is unset or empty.
std::optional<ServerAddress> serverFromEnvironment();
/// The token a client presents: the contents of $CHIPLESS_DEVICE_SERVER_TOKEN_FILE (without a
/// trailing newline), or "" when it is unset.
std::string clientToken();

/// A device of a server as its Hello reply lists it.
struct ServerDevice {
  std::string name; ///< "tpu:0"
  std::string arch; ///< as the server's --devices names it ("tpu-v5e")
  int ownerPid = 0; ///< 0 when nobody has it open; the first sharer's when it has shares
  int shares = 0;   ///< clients with a share of it (chipless-device-server --share)
};

/// One connection to a server, after the Hello exchange: requests and their replies, one
/// at a time (a mutex orders callers of several threads).
class Connection {
public:
  /// Connects to `address` and says hello with `token`; errors name the address.
  Connection(const ServerAddress& address, const std::string& token);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Sends `request` with `payload`; returns the Reply's payload, or throws chipless::Error
  /// with the Error's message.
  std::string call(Opcode request, std::string_view payload);
  /// As call, but sends `head` then `tail` without joining them and hands the Reply's payload
  /// to `read` where it lies (valid only during `read`): for copies, whose bytes need not be
  /// copied once more.
  void call(Opcode request, std::string_view head, std::string_view tail,
            const std::function<void(std::string_view)>& read);
  /// The server's pid, from its Hello reply.
  int serverPid() const { return serverPid_; }
  /// The server's devices and their owners when the connection was made.
  const std::vector<ServerDevice>& devices() const { return devices_; }
  const ServerAddress& address() const { return address_; }

private:
  ServerAddress address_;
  int fd_ = -1;
  std::unique_ptr<FrameStream> stream_;
  std::mutex mutex_;
  int serverPid_ = 0;
  std::vector<ServerDevice> devices_;
};

class RemoteDevice : public Device {
public:
  /// Opens device `options.index` of `kind` (the first free one of the server's when -1) on
  /// the server at `address`, for this process, with `arch` as its description — or a share
  /// of it (`options.share`, which the server must serve with --share), whose description is
  /// `arch` with the share's cores and memory.
  static std::unique_ptr<RemoteDevice> open(const ServerAddress& address, ChipKind kind,
                                            const ArchDescription& arch,
                                            const DeviceOptions& options);
  ~RemoteDevice() override;

  ChipKind kind() const override { return kind_; }
  int index() const override { return index_; }
  const ArchDescription& arch() const override { return arch_; }
  bool timingOnly() const override { return timingOnly_; }
  int chips() const override { return chips_; }
  std::optional<ShareInfo> shareInfo() const override { return share_; }

  uint64_t allocate(uint64_t bytes, const std::string& name) override;
  void release(uint64_t address) override;
  void copyIn(uint64_t address, const void* data, uint64_t bytes, int chip = -1) override;
  void copyOut(uint64_t address, void* data, uint64_t bytes, int chip = 0) const override;

  uint64_t tensorBytes(DType dtype, const std::vector<int64_t>& shape) const override;
  double writeTensor(const DeviceTensor& tensor, const NpyArray& host,
                     const std::string& what) override;
  NpyArray readTensor(const DeviceTensor& tensor, double& seconds) override;

  std::unique_ptr<Program> prepare(const std::string& planPath) override;
  LaunchReport launch(Program& program, const LaunchArgs& args) override;
  Stats stats(const LaunchReport& last) const override;

  /// The connection's server.
  const ServerAddress& server() const { return connection_->address(); }

private:
  RemoteDevice(std::shared_ptr<Connection> connection, ChipKind kind, ArchDescription arch)
      : connection_(std::move(connection)), kind_(kind), arch_(std::move(arch)) {}

  std::shared_ptr<Connection> connection_;
  ChipKind kind_;
  ArchDescription arch_;
  int index_ = 0;
  bool timingOnly_ = false;
  int chips_ = 1;
  std::optional<ShareInfo> share_;
  /// tensorBytes answers, which depend only on the architecture.
  mutable std::map<std::pair<DType, std::vector<int64_t>>, uint64_t> tensorBytes_;
};

} // namespace chipless::runtime::remote

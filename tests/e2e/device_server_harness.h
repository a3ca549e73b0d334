#pragma once
/// A chipless-device-server started by a test on a Unix socket in the test's directory (or
/// on the loopback address), and raw protocol clients for the tests that misbehave on
/// purpose.
#include "runtime/remote/protocol.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace chipless::test {

class ServerProcess {
public:
  /// Starts the server with `args` ("--devices tpu:2 --listen unix:/x/s.sock") and waits until
  /// `address` ("unix:/x/s.sock") accepts connections; its output goes to `log`.
  ServerProcess(const std::string& args, const std::string& address, const std::string& log);
  /// Stops it (SIGTERM) if it still runs.
  ~ServerProcess();
  /// Sends SIGTERM and waits; returns its exit status (-1 when killed by a signal).
  int stop();
  pid_t pid() const { return pid_; }
  const std::string& address() const { return address_; }
  bool running() const;

private:
  pid_t pid_ = -1;
  std::string address_;
};

/// A connected socket to `address`, speaking frames directly.
class RawClient {
public:
  explicit RawClient(const std::string& address);
  ~RawClient();
  /// Sends raw bytes.
  void sendBytes(const std::string& bytes);
  /// Sends one frame with the given header fields.
  void sendFrame(uint16_t opcode, const std::string& payload, uint32_t flags = 0,
                 uint32_t magic = runtime::remote::kMagic,
                 uint16_t version = runtime::remote::kVersion);
  /// A Hello with `token`; returns the server's reply.
  std::string hello(const std::string& token = "");
  /// Says Hello and returns the pid owning device `name` ("tpu:0") or its first sharer's, 0
  /// when it is free.
  int ownerOf(const std::string& name);
  /// Receives one message; `closed` is set when the server closed the connection instead.
  runtime::remote::Message receive(bool& closed);
  /// Whether the server has closed the connection (reads until end of stream, up to 10 s).
  bool closedByServer();
  void close();

private:
  int fd_ = -1;
};

/// A fresh directory for one test: build/test-tmp/<suite>.<test>.
std::string testDirectory();
/// A fresh short directory under /tmp for a test's Unix socket (a socket path is at most
/// 107 bytes, which a build directory's test path can pass).
std::string socketDirectory();

} // namespace chipless::test

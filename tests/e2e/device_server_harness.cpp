// Part of chipless's end-to-end tests. See device_server_harness.h.
#include "tests/e2e/device_server_harness.h"

#include "runtime/remote/remote_device.h"
#include "support/wire.h"
#include "tests/e2e/shell.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace chipless::test {

namespace fs = std::filesystem;

std::string testDirectory() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
                 (std::string(info->test_suite_name()) + "." + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string socketDirectory() {
  char pattern[] = "/tmp/chipless-test-XXXXXX";
  const char* made = ::mkdtemp(pattern);
  if (!made) throw std::runtime_error("cannot make a directory under /tmp");
  return made;
}

namespace {
/// Tries a connection to `address` (no Hello: the server may want a token); true when it
/// was accepted.
bool accepts(const std::string& address) {
  runtime::remote::ServerAddress a = runtime::remote::parseServerAddress(address, "test");
  int fd = -1;
  bool ok = false;
  if (a.kind == runtime::remote::ServerAddress::Kind::Unix) {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", a.path.c_str());
    ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  } else {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(a.port);
    ::inet_pton(AF_INET, a.host.c_str(), &addr.sin_addr);
    ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ::close(fd);
  return ok;
}
} // namespace

ServerProcess::ServerProcess(const std::string& args, const std::string& address,
                             const std::string& log)
    : address_(address) {
  // The server's device locks live beside its log: tests running at the same time each have
  // their own devices, apart from the in-process ones of other tests.
  std::string locks = log.substr(0, log.rfind('/'));
  std::string command = "CHIPLESS_LOCK_DIR=" + locks + " exec " + tool("chipless-device-server") +
                        " " + args + " >" + log + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  if (::posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
    throw std::runtime_error("cannot start " + command);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!accepts(address)) {
    if (!running() || std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("the device server did not start: " + command);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) stop();
}

bool ServerProcess::running() const {
  return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0;
}

int ServerProcess::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

RawClient::RawClient(const std::string& address) {
  runtime::remote::ServerAddress a = runtime::remote::parseServerAddress(address, "test");
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", a.path.c_str());
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("cannot connect to " + address);
}

RawClient::~RawClient() {
  close();
}

void RawClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void RawClient::sendBytes(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return; // the server may already have closed the connection
    done += static_cast<size_t>(n);
  }
}

void RawClient::sendFrame(uint16_t opcode, const std::string& payload, uint32_t flags,
                          uint32_t magic, uint16_t version) {
  runtime::remote::FrameHeader h;
  h.magic = magic;
  h.version = version;
  h.opcode = opcode;
  h.flags = flags;
  h.length = static_cast<uint32_t>(payload.size());
  char raw[runtime::remote::kHeaderBytes];
  runtime::remote::encodeHeader(h, raw);
  sendBytes(std::string(raw, sizeof raw) + payload);
}

std::string RawClient::hello(const std::string& token) {
  WireWriter w;
  w.putString(token);
  w.put<uint32_t>(static_cast<uint32_t>(::getpid()));
  w.putString("raw test client");
  sendFrame(static_cast<uint16_t>(runtime::remote::Opcode::Hello), w.bytes());
  bool closed = false;
  runtime::remote::Message m = receive(closed);
  if (closed || m.opcode != runtime::remote::Opcode::Reply)
    throw std::runtime_error("Hello refused: " + m.payload);
  return m.payload;
}

int RawClient::ownerOf(const std::string& name) {
  std::string reply = hello();
  WireReader r(reply, "Hello reply");
  r.get<uint32_t>("pid");
  r.getString("version");
  for (uint32_t n = r.get<uint32_t>("devices"); n > 0; --n) {
    std::string device = r.getString("device");
    r.getString("arch");
    int owner = static_cast<int>(r.get<uint32_t>("owner"));
    r.get<uint32_t>("shares");
    if (device == name) return owner;
  }
  throw std::runtime_error("the server has no " + name);
}

runtime::remote::Message RawClient::receive(bool& closed) {
  runtime::remote::FrameStream stream(fd_, "test server");
  closed = false;
  try {
    return stream.receive(&closed);
  } catch (const std::exception&) {
    closed = true;
    return {};
  }
}

bool RawClient::closedByServer() {
  char buf[4096];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
  return false;
}

} // namespace chipless::test

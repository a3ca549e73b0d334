#include "tools/device_server/server.h"

#include "runtime/remote/channel_passing.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/remote_device.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "tools/device_server/session.h"
#include "tools/device_server/worker_process.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace chipless::server {

namespace net = boost::asio;
namespace fs = std::filesystem;
using GenericAcceptor = net::basic_socket_acceptor<net::generic::stream_protocol>;

std::string defaultSocketPath() {
  if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run && *run)
    return std::string(run) + "/chipless-device-server.sock";
  return "/tmp/chipless-" + std::to_string(::getuid()) + "/device-server.sock";
}

namespace {
/// Makes the private directory of the default socket when it is /tmp/chipless-UID: this
/// user's alone (mode 0700), or an error when someone else's is in the way.
void makeSocketDirectory(const std::string& socketPath) {
  std::string dir = socketPath.substr(0, socketPath.rfind('/'));
  if (dir != "/tmp/chipless-" + std::to_string(::getuid())) return;
  ::mkdir(dir.c_str(), 0700);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() ||
      (st.st_mode & 077) != 0)
    throw Error(dir + ": not a private directory of this user (mode 0700): remove it or give "
                      "--listen unix:PATH");
}
} // namespace

Server::Server(ServerOptions options)
    : options_(std::move(options)),
      maxMessage_(options_.maxMessage ? options_.maxMessage : runtime::remote::kDefaultMaxMessage),
      hub_([this](runtime::remote::CollectiveNetwork network,
                  const std::string& payload) { return runCollective(network, payload); },
           options_.collectiveTimeout) {
  if (options_.threads < 1) throw Error("--threads: at least 1");
  if (!options_.tokenFile.empty()) {
    token_ = readFile(options_.tokenFile);
    while (!token_.empty() && (token_.back() == '\n' || token_.back() == '\r')) token_.pop_back();
    if (token_.size() < 16)
      throw Error(options_.tokenFile + ": a token must be at least 16 characters long");
  }
  parseDevices(options_.devices);
  for (auto& slot : slots_) startWorker(*slot);
}

Server::~Server() {
  shutdown();
}

void Server::parseDevices(const std::string& text) {
  int next[2] = {0, 0};
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    size_t colon = item.rfind(':');
    std::string name = item.substr(0, colon);
    std::string count = colon == std::string::npos ? "1" : item.substr(colon + 1);
    auto bad = [&](const std::string& why) {
      return Error("--devices: '" + item + "': " + why +
                   " (expected KIND:COUNT, e.g. spyre:2,tpu-v5e:4)");
    };
    ChipKind kind;
    if (name.rfind("spyre", 0) == 0)
      kind = ChipKind::Spyre;
    else if (name.rfind("tpu", 0) == 0)
      kind = ChipKind::Tpu;
    else
      throw bad("unknown kind of device");
    if (name != chipKindName(kind)) resolveArchFile(name, kind); // a bundled name, checked
    if (count.empty() || count.size() > 2 ||
        count.find_first_not_of("0123456789") != std::string::npos || std::stoi(count) < 1 ||
        std::stoi(count) > 64)
      throw bad("the count must be 1 to 64");
    for (int i = std::stoi(count); i > 0; --i) {
      auto slot = std::make_unique<DeviceSlot>();
      slot->kind = kind;
      slot->index = next[static_cast<int>(kind)]++;
      slot->arch = name;
      slots_.push_back(std::move(slot));
    }
  }
}

void Server::startWorker(DeviceSlot& slot) {
  WorkerProcess w = spawnWorker(options_.self, slot.kind, slot.index);
  slot.workerPid = w.pid;
  slot.control = w.fd;
  ++slot.generation;
}

WorkerChannel Server::connectWorker(DeviceSlot& slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw Error(slot.name() +
                ": cannot make a channel to the device's worker: " + std::strerror(errno));
  try {
    runtime::remote::sendChannel(slot.control, fds[1]);
  } catch (const Error& e) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(slot.name() + ": the device's worker process is gone (" + e.what() + ")");
  }
  ::close(fds[1]);
  WorkerChannel channel;
  channel.socket = std::make_unique<net::local::stream_protocol::socket>(context_);
  channel.socket->assign(net::local::stream_protocol(), fds[0]);
  channel.generation = slot.generation;
  return channel;
}

std::string Server::replaceWorker(DeviceSlot& slot, uint64_t generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (slot.generation != generation) return slot.lastEnd; // another session replaced it
  if (stopping_) return "was stopped with the server";
  ::close(slot.control);
  ::kill(slot.workerPid, SIGKILL);
  slot.lastEnd = reapWorker(slot.workerPid);
  std::fprintf(stderr, "chipless-device-server: %s: the worker process %s; starting a new one\n",
               slot.name().c_str(), slot.lastEnd.c_str());
  startWorker(slot);
  return slot.lastEnd;
}

void Server::NetworkWorker::stop(bool kill) {
  if (fd >= 0) ::close(fd);
  if (pid > 0) {
    ::kill(pid, kill ? SIGKILL : SIGTERM);
    reapWorker(pid);
  }
  stream.reset();
  fd = pid = -1;
}

runtime::remote::Message Server::runCollective(runtime::remote::CollectiveNetwork network,
                                               const std::string& payload) {
  const bool ring = network == runtime::remote::CollectiveNetwork::Ring;
  NetworkWorker& worker = networks_[ring ? 1 : 0];
  std::lock_guard<std::mutex> lock(worker.mutex);
  try {
    if (!worker.stream) {
      // The collectives run on the first architecture of the network's chip the server
      // serves (the bundled one when it serves none).
      const ChipKind chip = ring ? ChipKind::Spyre : ChipKind::Tpu;
      std::string arch;
      for (const auto& slot : slots_)
        if (slot->kind == chip && arch.empty())
          arch = slot->arch == chipKindName(chip) ? "" : slot->arch;
      WorkerProcess w = spawnNetworkWorker(options_.self, network, arch);
      worker.pid = w.pid;
      worker.fd = w.fd;
      worker.stream = std::make_unique<runtime::remote::FrameStream>(
          w.fd, ring ? "the ring worker" : "the ICI worker", maxMessage_);
    }
    worker.stream->send(runtime::remote::Opcode::RunCollective, payload);
    return worker.stream->receive();
  } catch (const std::exception& e) {
    // The worker failed: start afresh with the next collective.
    worker.stop(true);
    return {runtime::remote::Opcode::Error, std::string(runtime::remote::networkBackend(network)) +
                                                ": the " + (ring ? "ring" : "ICI") +
                                                " worker failed: " + e.what()};
  }
}

std::string DeviceUser::describe() const {
  return "pid " + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
}

DeviceSlot& Server::claim(ChipKind kind, int index, const DeviceUser& user, bool share) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string kindName = chipKindName(kind);
  if (share && !options_.share)
    throw Error("device server: it does not serve shares of its devices (start it with "
                "--share)");
  // Why each device of the kind cannot be had.
  auto busy = [&](const DeviceSlot& slot) -> std::string {
    if (slot.owner) return slot.owner->describe() + " (one owner per device)";
    if (slot.sharers.empty() || share) return "";
    std::string pids;
    for (const DeviceUser& u : slot.sharers) pids += (pids.empty() ? "" : ", ") + u.describe();
    return "shares of it by " + pids + " (--share: open a share of it too)";
  };
  std::string reasons;
  int count = 0;
  for (auto& slot : slots_) {
    if (slot->kind != kind) continue;
    ++count;
    if (index >= 0 && slot->index != index) continue;
    std::string why = busy(*slot);
    if (!why.empty()) {
      reasons += (reasons.empty() ? "" : ", ") + slot->name() + " by " + why;
      continue;
    }
    if (share)
      slot->sharers.push_back(user);
    else
      slot->owner = user;
    return *slot;
  }
  if (count == 0) throw Error("device server: it has no " + kindName + " device (see --devices)");
  if (index >= count)
    throw Error(kindName + ":" + std::to_string(index) + ": no such device: the server has " +
                kindName + ":0 to " + kindName + ":" + std::to_string(count - 1));
  if (index >= 0)
    throw Error(kindName + ":" + std::to_string(index) + " is in use by " +
                reasons.substr(reasons.find(" by ") + 4));
  throw Error("device server: every " + kindName + " device is in use (" + reasons + ")");
}

std::pair<int, int> Server::users(const DeviceSlot& slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (slot.owner) return {slot.owner->pid, 0};
  int first = slot.sharers.empty() ? 0 : slot.sharers.front().pid;
  return {first, static_cast<int>(slot.sharers.size())};
}

void Server::release(DeviceSlot& slot, uint64_t session) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (slot.owner && slot.owner->session == session) slot.owner.reset();
  std::erase_if(slot.sharers, [&](const DeviceUser& u) { return u.session == session; });
}

bool Server::tokenAccepted(const std::string& token, bool tcp) const {
  if (!tcp || token_.empty()) return true;
  // Compare in constant time: how long a wrong token took says nothing of the right one.
  unsigned diff = token.size() != token_.size();
  for (size_t i = 0; i < token_.size(); ++i)
    diff |= static_cast<unsigned>(token_[i] ^ (i < token.size() ? token[i] : 0));
  return diff == 0;
}

void Server::track(int fd, bool add) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (add && stopping_) {
    ::shutdown(fd, SHUT_RDWR);
    return;
  }
  if (add)
    connections_.insert(fd);
  else
    connections_.erase(fd);
}

namespace {

net::awaitable<void> acceptLoop(Server& server, std::shared_ptr<GenericAcceptor> acceptor, bool tcp,
                                std::atomic<uint64_t>& nextSession) {
  for (;;) {
    boost::system::error_code ec;
    net::generic::stream_protocol::socket socket(server.context());
    co_await acceptor->async_accept(socket, net::redirect_error(net::use_awaitable, ec));
    if (ec == net::error::operation_aborted || !acceptor->is_open()) co_return;
    if (ec) continue; // a connection that failed before it was accepted
    ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
    net::co_spawn(net::make_strand(server.context()),
                  serveClient(server, std::move(socket), tcp, nextSession++), net::detached);
  }
}

/// Whether something answers at the Unix socket `path`.
bool someoneListens(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  bool live = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return live;
}

} // namespace

void Server::listen(const std::string& where) {
  runtime::remote::ServerAddress a = runtime::remote::parseServerAddress(where, "--listen");
  auto acceptor = std::make_shared<GenericAcceptor>(context_);
  bool tcp = a.kind == runtime::remote::ServerAddress::Kind::Tcp;
  if (!tcp) {
    if (someoneListens(a.path)) throw Error("--listen " + where + ": another server listens there");
    ::unlink(a.path.c_str());
    net::local::stream_protocol::endpoint unixEndpoint(a.path);
    net::generic::stream_protocol::endpoint endpoint(unixEndpoint);
    acceptor->open(endpoint.protocol());
    // Created with mode 0600: only this user's processes can connect.
    mode_t old = ::umask(0177);
    boost::system::error_code ec;
    acceptor->bind(endpoint, ec);
    ::umask(old);
    if (ec) throw Error("--listen " + where + ": " + ec.message());
    socketFiles_.push_back(a.path);
  } else {
    boost::system::error_code ec;
    auto address = net::ip::make_address(a.host, ec);
    if (ec) throw Error("--listen " + where + ": '" + a.host + "' is not a numeric address");
    if (!address.is_loopback() && token_.empty())
      throw Error("--listen " + where +
                  ": listening beyond the loopback address needs --token-file");
    net::ip::tcp::endpoint tcpEndpoint(address, a.port);
    net::generic::stream_protocol::endpoint endpoint(tcpEndpoint);
    acceptor->open(endpoint.protocol());
    acceptor->set_option(net::socket_base::reuse_address(true));
    acceptor->bind(endpoint, ec);
    if (ec) throw Error("--listen " + where + ": " + ec.message());
  }
  acceptor->listen(net::socket_base::max_listen_connections);
  closeAcceptors_.push_back([acceptor] {
    boost::system::error_code ignored;
    acceptor->close(ignored);
  });
  net::co_spawn(net::make_strand(context_), acceptLoop(*this, acceptor, tcp, nextSession_),
                net::detached);
  std::printf("chipless-device-server: listening on %s\n", where.c_str());
}

void Server::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    // Clients see their connection end: every call they make fails at once, none hangs.
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& close : closeAcceptors_) close();
  closeAcceptors_.clear();
  for (const std::string& f : socketFiles_) ::unlink(f.c_str());
  socketFiles_.clear();
}

int Server::run() {
  std::vector<std::string> listen = options_.listen;
  if (listen.empty()) {
    makeSocketDirectory(defaultSocketPath());
    listen.push_back("unix:" + defaultSocketPath());
  }
  for (const std::string& where : listen) this->listen(where);
  std::string devices;
  for (const auto& slot : slots_) devices += (devices.empty() ? "" : ", ") + slot->name();
  std::printf("chipless-device-server: serving %s (pid %d)\n", devices.c_str(), ::getpid());
  std::fflush(stdout);

  net::signal_set signals(context_, SIGINT, SIGTERM);
  signals.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    shutdown();
    // The workers end with their control sockets; the sessions' channels end with them.
    for (auto& slot : slots_) ::shutdown(slot->control, SHUT_RDWR);
    context_.stop();
  });
  std::vector<std::thread> threads;
  for (int i = 1; i < options_.threads; ++i) threads.emplace_back([this] { context_.run(); });
  context_.run();
  for (auto& t : threads) t.join();
  for (auto& slot : slots_) {
    ::close(slot->control);
    ::kill(slot->workerPid, SIGTERM);
    reapWorker(slot->workerPid);
  }
  slots_.clear();
  for (NetworkWorker& worker : networks_) worker.stop(false);
  std::printf("chipless-device-server: stopped\n");
  return 0;
}

} // namespace chipless::server

#include "runtime/remote/remote_device.h"

#include "runtime/remote/codec.h"
#include "runtime/remote/program_files.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/wire.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace chipless::runtime::remote {

ServerAddress parseServerAddress(const std::string& text, const std::string& what) {
  ServerAddress a;
  a.text = text;
  auto bad = [&](const std::string& why) {
    return Error(what + ": '" + text + "': " + why + " (expected unix:PATH or tcp:HOST:PORT)");
  };
  if (text.rfind("unix:", 0) == 0) {
    a.kind = ServerAddress::Kind::Unix;
    a.path = text.substr(5);
    if (a.path.empty()) throw bad("no socket path");
    if (a.path.size() >= sizeof(sockaddr_un::sun_path))
      throw bad("socket path longer than " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                " bytes");
    return a;
  }
  if (text.rfind("tcp:", 0) != 0) throw bad("unknown kind of address");
  a.kind = ServerAddress::Kind::Tcp;
  std::string rest = text.substr(4);
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) throw bad("no host or no port");
  a.host = rest.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']')
    a.host = a.host.substr(1, a.host.size() - 2);
  std::string port = rest.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) == 0 ||
      std::stoul(port) > 65535)
    throw bad("port must be a number from 1 to 65535");
  a.port = static_cast<uint16_t>(std::stoul(port));
  return a;
}

std::optional<ServerAddress> serverFromEnvironment() {
  const char* env = std::getenv("CHIPLESS_DEVICE_SERVER");
  if (!env || !*env) return std::nullopt;
  return parseServerAddress(env, "CHIPLESS_DEVICE_SERVER");
}

std::string clientToken() {
  const char* file = std::getenv("CHIPLESS_DEVICE_SERVER_TOKEN_FILE");
  if (!file || !*file) return "";
  std::string token = readFile(file);
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

namespace {

/// A connected stream socket to `a`; errors name the address.
int connectSocket(const ServerAddress& a) {
  auto fail = [&](const std::string& why) {
    return Error("device server " + a.text + ": cannot connect: " + why);
  };
  if (a.kind == ServerAddress::Kind::Unix) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw fail(std::strerror(errno));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, a.path.c_str(), a.path.size() + 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      int e = errno;
      ::close(fd);
      throw fail(std::strerror(e) + std::string(" (is chipless-device-server running?)"));
    }
    return fd;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(a.host.c_str(), std::to_string(a.port).c_str(), &hints, &found);
  if (rc != 0) throw fail(gai_strerror(rc));
  std::string last = "no address";
  for (addrinfo* p = found; p; p = p->ai_next) {
    int fd = ::socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, p->ai_addr, p->ai_addrlen) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    last = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  throw fail(last + " (is chipless-device-server running?)");
}

/// Most bytes one CopyIn or CopyOut request moves: a larger copy is several requests, so
/// neither side holds more than this of it at once.
constexpr uint64_t kCopyChunk = 16ull << 20;

} // namespace

Connection::Connection(const ServerAddress& address, const std::string& token) : address_(address) {
  fd_ = connectSocket(address);
  stream_ = std::make_unique<FrameStream>(fd_, "device server " + address.text);
  WireWriter hello;
  hello.putString(token);
  hello.put<uint32_t>(static_cast<uint32_t>(::getpid()));
  const char* name = std::getenv("CHIPLESS_CLIENT_NAME");
  hello.putString(name ? name : "");
  try {
    std::string reply = call(Opcode::Hello, hello.bytes());
    WireReader r(reply, "device server " + address.text + ": Hello reply");
    serverPid_ = static_cast<int>(r.get<uint32_t>("server pid"));
    r.getString("server version");
    for (uint32_t n = r.getCount("devices", 20); n > 0; --n) {
      ServerDevice d;
      d.name = r.getString("device");
      d.arch = r.getString("architecture");
      d.ownerPid = static_cast<int>(r.get<uint32_t>("owner pid"));
      d.shares = static_cast<int>(r.get<uint32_t>("shares"));
      devices_.push_back(std::move(d));
    }
  } catch (...) {
    ::close(fd_); // the destructor does not run for a constructor that throws
    throw;
  }
}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

std::string Connection::call(Opcode request, std::string_view payload) {
  std::string reply;
  call(request, payload, {}, [&](std::string_view r) { reply.assign(r); });
  return reply;
}

void Connection::call(Opcode request, std::string_view head, std::string_view tail,
                      const std::function<void(std::string_view)>& read) {
  std::lock_guard<std::mutex> lock(mutex_);
  stream_->send(request, head, tail);
  bool eof = false;
  const Message& m = stream_->receive(&eof);
  if (eof)
    throw Error("device server " + address_.text + ": the server closed the connection during " +
                opcodeName(static_cast<uint16_t>(request)));
  if (m.opcode == Opcode::Error) throw Error(m.payload);
  if (m.opcode != Opcode::Reply)
    throw Error("device server " + address_.text + ": unexpected " +
                opcodeName(static_cast<uint16_t>(m.opcode)) + " in answer to " +
                opcodeName(static_cast<uint16_t>(request)));
  read(m.payload);
}

namespace {

/// A program prepared on a server's device; freed there when destroyed.
class RemoteProgram : public Program {
public:
  RemoteProgram(std::shared_ptr<Connection> connection, uint32_t id, ProgramInfo info)
      : connection_(std::move(connection)), id_(id), info_(std::move(info)) {}
  ~RemoteProgram() override {
    try {
      WireWriter w;
      w.put<uint32_t>(id_);
      connection_->call(Opcode::FreeProgram, w.bytes());
    } catch (const std::exception&) {
      // The device or the connection is gone: the server has freed the program with it.
    }
  }
  const ProgramInfo& info() const override { return info_; }
  uint32_t id() const { return id_; }
  const Connection* connection() const { return connection_.get(); }

private:
  std::shared_ptr<Connection> connection_;
  uint32_t id_;
  ProgramInfo info_;
};

} // namespace

std::unique_ptr<RemoteDevice> RemoteDevice::open(const ServerAddress& address, ChipKind kind,
                                                 const ArchDescription& arch,
                                                 const DeviceOptions& options) {
  auto connection = std::make_shared<Connection>(address, clientToken());
  WireWriter w;
  w.putString(chipKindName(kind));
  w.put<int32_t>(options.index);
  w.put<uint8_t>(options.timingOnly ? 1 : 0);
  w.put<int32_t>(options.chips);
  w.put<double>(options.maxCycles);
  w.put<double>(options.timeoutSeconds);
  w.putString(arch.toYaml());
  putShare(w, options.share);
  std::string reply = connection->call(Opcode::Open, w.bytes());
  WireReader r(reply, "device server " + address.text + ": Open reply");
  int index = r.get<int32_t>("index");
  int chips = r.get<int32_t>("chips");
  std::optional<ShareInfo> share = getShareInfo(r);
  r.expectEnd();
  std::unique_ptr<RemoteDevice> device(
      new RemoteDevice(connection, kind, share ? arch.withOverrides(share->overrides) : arch));
  device->index_ = index;
  device->timingOnly_ = options.timingOnly;
  device->chips_ = chips;
  device->share_ = std::move(share);
  return device;
}

RemoteDevice::~RemoteDevice() {
  try {
    connection_->call(Opcode::Close, "");
  } catch (const std::exception&) {
    // The server frees a device whose client is gone.
  }
}

uint64_t RemoteDevice::allocate(uint64_t bytes, const std::string& name) {
  WireWriter w;
  w.put<uint64_t>(bytes);
  w.putString(name);
  std::string reply = connection_->call(Opcode::Allocate, w.bytes());
  WireReader r(reply, "Allocate reply");
  return r.get<uint64_t>("address");
}

void RemoteDevice::release(uint64_t address) {
  WireWriter w;
  w.put<uint64_t>(address);
  connection_->call(Opcode::Release, w.bytes());
}

void RemoteDevice::copyIn(uint64_t address, const void* data, uint64_t bytes, int chip) {
  const char* p = static_cast<const char*>(data);
  uint64_t done = 0;
  do {
    uint64_t n = std::min(bytes - done, kCopyChunk);
    WireWriter head;
    head.put<uint64_t>(address + done);
    head.put<int32_t>(chip);
    head.put<uint64_t>(n); // the length of the bytes that follow (a `bytes` field)
    connection_->call(Opcode::CopyIn, head.bytes(), std::string_view(p + done, n),
                      [](std::string_view) {});
    done += n;
  } while (done < bytes);
}

void RemoteDevice::copyOut(uint64_t address, void* data, uint64_t bytes, int chip) const {
  char* p = static_cast<char*>(data);
  uint64_t done = 0;
  do {
    uint64_t n = std::min(bytes - done, kCopyChunk);
    WireWriter w;
    w.put<uint64_t>(address + done);
    w.put<uint64_t>(n);
    w.put<int32_t>(chip);
    connection_->call(Opcode::CopyOut, w.bytes(), {}, [&](std::string_view reply) {
      WireReader r(reply, "CopyOut reply");
      std::string_view got = r.getBytes("bytes");
      if (got.size() != n) r.fail("bytes", "wrong length");
      if (n > 0) std::memcpy(p + done, got.data(), n);
    });
    done += n;
  } while (done < bytes);
}

uint64_t RemoteDevice::tensorBytes(DType dtype, const std::vector<int64_t>& shape) const {
  auto key = std::make_pair(dtype, shape);
  auto found = tensorBytes_.find(key);
  if (found != tensorBytes_.end()) return found->second;
  WireWriter w;
  w.put<uint8_t>(static_cast<uint8_t>(dtype));
  w.putShape(shape);
  std::string reply = connection_->call(Opcode::TensorBytes, w.bytes());
  WireReader r(reply, "TensorBytes reply");
  uint64_t bytes = r.get<uint64_t>("bytes");
  tensorBytes_.emplace(std::move(key), bytes);
  return bytes;
}

double RemoteDevice::writeTensor(const DeviceTensor& tensor, const NpyArray& host,
                                 const std::string& what) {
  WireWriter w;
  putTensor(w, tensor);
  w.putString(what);
  putArray(w, host);
  std::string reply = connection_->call(Opcode::WriteTensor, w.bytes());
  WireReader r(reply, "WriteTensor reply");
  return r.get<double>("seconds");
}

NpyArray RemoteDevice::readTensor(const DeviceTensor& tensor, double& seconds) {
  WireWriter w;
  putTensor(w, tensor);
  std::string reply = connection_->call(Opcode::ReadTensor, w.bytes());
  WireReader r(reply, "ReadTensor reply");
  NpyArray a = getArray(r, "array");
  seconds = r.get<double>("seconds");
  return a;
}

std::unique_ptr<Program> RemoteDevice::prepare(const std::string& planPath) {
  WireWriter w;
  putProgramFiles(w, kind_, planPath);
  std::string reply = connection_->call(Opcode::Prepare, w.bytes());
  WireReader r(reply, "Prepare reply");
  uint32_t id = r.get<uint32_t>("program");
  return std::make_unique<RemoteProgram>(connection_, id, getProgramInfo(r));
}

LaunchReport RemoteDevice::launch(Program& program, const LaunchArgs& args) {
  auto* remote = dynamic_cast<RemoteProgram*>(&program);
  if (!remote || remote->connection() != connection_.get())
    throw Error(name() + ": program '" + program.info().kernel +
                "' was prepared on another device");
  WireWriter w;
  w.put<uint32_t>(remote->id());
  w.put<uint32_t>(static_cast<uint32_t>(args.inputs.size()));
  for (const auto& [name, array] : args.inputs) {
    w.putString(name);
    putArray(w, array);
  }
  w.put<uint32_t>(static_cast<uint32_t>(args.scalars.size()));
  for (const auto& [name, value] : args.scalars) {
    w.putString(name);
    w.put<int64_t>(value);
  }
  w.put<uint32_t>(static_cast<uint32_t>(args.reals.size()));
  for (const auto& [name, value] : args.reals) {
    w.putString(name);
    w.put<double>(value);
  }
  w.put<uint32_t>(static_cast<uint32_t>(args.resident.size()));
  for (const auto& [name, tensor] : args.resident) {
    w.putString(name);
    putTensor(w, tensor);
  }
  w.put<uint8_t>(args.statistics ? 1 : 0);
  w.put<uint8_t>(args.trace ? 1 : 0);
  if (args.trace) {
    TraceWriter::ResumePoint point = args.trace->resumePoint();
    w.put<int64_t>(point.offsetNs);
    w.put<int64_t>(point.endNs);
    w.put<uint64_t>(point.capacity);
  }
  std::string reply = connection_->call(Opcode::Launch, w.bytes());
  WireReader r(reply, "Launch reply");
  LaunchReport report;
  for (uint32_t n = r.getCount("outputs", 8); n > 0; --n) {
    std::string name = r.getString("output name");
    report.outputs.emplace(std::move(name), getArray(r, "output"));
  }
  report.cycles = r.get<double>("cycles");
  report.hostSeconds = r.get<double>("host seconds");
  report.issued = r.get<uint64_t>("issued");
  report.sharedSteps = r.get<uint64_t>("shared steps");
  if (r.get<uint8_t>("device statistics"))
    report.deviceStats = Stats::decode(r.getBytes("device statistics"), "Launch reply statistics");
  if (args.trace) {
    std::string_view trace = r.getBytes("trace");
    args.trace->appendEncoded(trace, "Launch reply trace");
  }
  return report;
}

Stats RemoteDevice::stats(const LaunchReport& last) const {
  if (last.deviceStats) return *last.deviceStats;
  WireWriter w;
  w.put<double>(last.cycles);
  w.put<double>(last.hostSeconds);
  w.put<uint64_t>(last.issued);
  std::string reply = connection_->call(Opcode::Stats, w.bytes());
  return Stats::decode(reply, "Stats reply");
}

} // namespace chipless::runtime::remote

// chipless-device-server end to end: the tools run unchanged against it with byte-identical
// outputs, statistics and traces; a device has one owner; large copies stream; errors carry
// the in-process message; clients that die, misbehave or outlive the server never take it
// down or get another client's data. Every server is started here, on a Unix socket in the
// test's directory or on the loopback address.
#include "runtime/remote/codec.h"
#include "runtime/remote/remote_device.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/npy.h"
#include "support/wire.h"
#include "tests/e2e/device_server_harness.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"
#include "tests/e2e/tpu_kernel_harness.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <random>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace chipless::test {
namespace {

namespace fs = std::filesystem;
using runtime::remote::Opcode;
using runtime::remote::RemoteDevice;
using runtime::remote::ServerAddress;

class DeviceServer : public ::testing::Test {
protected:
  void SetUp() override {
    dir = testDirectory();
    sockets = socketDirectory();
    address = "unix:" + sockets + "/s.sock";
  }
  /// Starts a server with `devices`.
  void start(const std::string& devices = "spyre:1,tpu:2") {
    server = std::make_unique<ServerProcess>("--devices " + devices + " --listen " + address,
                                             address, path("server.log"));
  }
  std::string path(const std::string& name) const { return dir + "/" + name; }
  ServerAddress where() const { return runtime::remote::parseServerAddress(address, "test"); }
  std::unique_ptr<RemoteDevice> openTpu(int index) {
    runtime::DeviceOptions o;
    o.index = index;
    return RemoteDevice::open(where(), ChipKind::Tpu, tpuArchWith().description, o);
  }
  /// The environment prefix that sends a tool to the server.
  std::string remote() const { return "CHIPLESS_DEVICE_SERVER=" + address + " "; }

  std::string dir, sockets, address;
  std::unique_ptr<ServerProcess> server;
};

/// Runs `run` (a spyre-sim or tpu-sim command writing OUT/c.npy, OUT/stats.json and
/// OUT/trace.json, with OUT standing for the output directory) in process and against the
/// server, and expects the same bytes in every file.
void expectSameFilesRemote(const std::string& run, const std::string& dir,
                           const std::string& remoteEnv) {
  for (const char* out : {"local", "remote"}) fs::create_directories(dir + "/" + out);
  auto command = [&](const std::string& out) {
    std::string c = run;
    for (size_t at = c.find("OUT"); at != std::string::npos; at = c.find("OUT", at))
      c.replace(at, 3, dir + "/" + out);
    return c;
  };
  ShellResult local = sh(command("local"));
  ASSERT_EQ(local.status, 0) << local.output;
  ShellResult remote = sh(remoteEnv + command("remote"));
  ASSERT_EQ(remote.status, 0) << remote.output;
  for (const char* file : {"c.npy", "stats.json", "trace.json"}) {
    std::string a = readFile(dir + "/local/" + file), b = readFile(dir + "/remote/" + file);
    EXPECT_GT(a.size(), 100u) << file;
    EXPECT_TRUE(a == b) << file << " differs between the in-process and the remote run";
  }
}

TEST_F(DeviceServer, SpyreSimRunsUnchangedAgainstTheServer) {
  start();
  for (const char* kernel : {"add", "softmax"}) {
    std::string plan = path(std::string(kernel) + "/job.plan");
    ShellResult as = sh(tool("spyre-as") + " " + CHIPLESS_SOURCE_DIR + "/models/kernels/" + kernel +
                        ".s -o " + path(kernel));
    ASSERT_EQ(as.status, 0) << as.output;
    std::string run = tool("spyre-sim") + " run " + plan;
    if (std::string(kernel) == "add") {
      writeNpy(path("a.npy"), randomArray(DType::F16, {32, 4096}, 1));
      writeNpy(path("b.npy"), randomArray(DType::F16, {32, 4096}, 2));
      run +=
          " --input A=" + path("a.npy") + " --input B=" + path("b.npy") + " --output C=OUT/c.npy";
    } else {
      writeNpy(path("x.npy"), randomArray(DType::F16, {64, 1024}, 3));
      run += " --input X=" + path("x.npy") + " --output Y=OUT/c.npy";
    }
    expectSameFilesRemote(run + " --launches 2 --stats OUT/stats.json --trace OUT/trace.json",
                          path(kernel), remote());
  }
}

TEST_F(DeviceServer, TpuSimRunsUnchangedAgainstTheServer) {
  start();
  ShellResult as = sh(tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR +
                      "/models/tpu-kernels/gemm.s -o " + path("gemm"));
  ASSERT_EQ(as.status, 0) << as.output;
  writeNpy(path("a.npy"), randomF32Array({200, 300}, 1));
  writeNpy(path("b.npy"), randomF32Array({300, 260}, 2));
  expectSameFilesRemote(tool("tpu-sim") + " run " + path("gemm/job.plan") +
                            " --input A=" + path("a.npy") + " --input B=" + path("b.npy") +
                            " --output C=OUT/c.npy --scalar MB=200 --launches 2"
                            " --stats OUT/stats.json --trace OUT/trace.json",
                        path("gemm"), remote());
  // An error of the run is the in-process one, word for word.
  ShellResult local =
      sh(tool("tpu-sim") + " run " + path("gemm/job.plan") + " --input A=" + path("b.npy") +
         " --input B=" + path("b.npy") + " --output C=" + path("c.npy"));
  ShellResult far = sh(remote() + tool("tpu-sim") + " run " + path("gemm/job.plan") +
                       " --input A=" + path("b.npy") + " --input B=" + path("b.npy") +
                       " --output C=" + path("c.npy"));
  EXPECT_EQ(local.status, 1);
  EXPECT_EQ(far.status, 1);
  EXPECT_EQ(local.output, far.output);
  EXPECT_FALSE(fs::exists(path("c.npy")));
}

TEST_F(DeviceServer, ADeviceHasOneOwnerNamedInTheRefusal) {
  start("tpu:2");
  auto first = openTpu(0);
  EXPECT_EQ(first->name(), "tpu:0");
  // --status says who holds what.
  ShellResult status = sh(tool("chipless-device-server") + " --status --listen " + address);
  EXPECT_EQ(status.status, 0) << status.output;
  EXPECT_NE(status.output.find("tpu:0      tpu        open by pid " + std::to_string(::getpid())),
            std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("tpu:1      tpu        free"), std::string::npos) << status.output;
  try {
    openTpu(0);
    FAIL() << "a second owner was let in";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu:0 is in use by pid " + std::to_string(::getpid())),
              std::string::npos)
        << e.what();
  }
  auto any = openTpu(-1);
  EXPECT_EQ(any->index(), 1);
  try {
    openTpu(-1);
    FAIL() << "a third device appeared";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("every tpu device is in use"), std::string::npos)
        << e.what();
  }
  try {
    openTpu(7);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu:7: no such device: the server has tpu:0 to tpu:1"),
              std::string::npos)
        << e.what();
  }
  first.reset();
  EXPECT_EQ(openTpu(0)->index(), 0);
}

TEST_F(DeviceServer, LargeCopiesAndTensorsRoundTrip) {
  start("tpu:1");
  auto device = openTpu(0);
  const uint64_t bytes = 40ull << 20; // several frames and several copy requests
  std::string data(bytes, '\0');
  std::mt19937_64 rng(7);
  for (size_t i = 0; i + 8 <= bytes; i += 8) {
    uint64_t v = rng();
    std::memcpy(&data[i], &v, 8);
  }
  uint64_t address = device->allocate(bytes, "big");
  device->copyIn(address, data.data(), bytes);
  std::string back(bytes, '\1');
  device->copyOut(address, back.data(), bytes);
  EXPECT_TRUE(back == data);
  // A tensor in the device's layout comes back as written.
  runtime::DeviceTensor t{0, DType::F32, {300, 200}};
  t.address = device->allocate(device->tensorBytes(t.dtype, t.shape), "t");
  NpyArray x = randomF32Array({300, 200}, 9);
  EXPECT_GT(device->writeTensor(t, x, "x"), 0.0);
  double seconds = 0;
  EXPECT_EQ(device->readTensor(t, seconds).data, x.data);
  EXPECT_GT(seconds, 0.0);
  // An error names what the in-process device names.
  try {
    device->copyIn(address + bytes - 4, data.data(), 64);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("allocation"), std::string::npos) << e.what();
  }
}

/// The Open request a raw client sends for tpu:`index`.
std::string openRequest(int index) {
  WireWriter w;
  w.putString("tpu");
  w.put<int32_t>(index);
  w.put<uint8_t>(0);
  w.put<int32_t>(1);
  w.put<double>(0);
  w.put<double>(0);
  w.putString(tpuArchWith().description.toYaml());
  runtime::remote::putShare(w, {});
  return w.take();
}

/// Opens tpu:`index` of `server`, retrying while a previous owner's session is being closed.
std::unique_ptr<RemoteDevice> openWhenFree(const ServerAddress& a, int index) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  runtime::DeviceOptions o;
  o.index = index;
  for (;;) {
    try {
      return RemoteDevice::open(a, ChipKind::Tpu, tpuArchWith().description, o);
    } catch (const Error& e) {
      if (std::chrono::steady_clock::now() > deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

/// Opens tpu:0 on `raw` (after its Hello) and allocates `bytes` there, as a client would;
/// returns the address. Throws when the server refuses either.
uint64_t openAndAllocate(RawClient& raw, uint64_t bytes) {
  raw.hello();
  raw.sendFrame(static_cast<uint16_t>(Opcode::Open), openRequest(0));
  bool closed = false;
  if (raw.receive(closed).opcode != Opcode::Reply) throw std::runtime_error("Open refused");
  WireWriter alloc;
  alloc.put<uint64_t>(bytes);
  alloc.putString("raw");
  raw.sendFrame(static_cast<uint16_t>(Opcode::Allocate), alloc.bytes());
  runtime::remote::Message m = raw.receive(closed);
  if (closed || m.opcode != Opcode::Reply) throw std::runtime_error("Allocate refused");
  WireReader r(m.payload, "Allocate reply");
  return r.get<uint64_t>("address");
}

TEST_F(DeviceServer, AClientThatDiesMidCopyLeavesTheDeviceFreeAndClean) {
  start("tpu:1");
  {
    RawClient raw(address);
    openAndAllocate(raw, 1 << 20);
    // The first frame of a long copy, then the client is gone.
    WireWriter copy;
    copy.put<uint64_t>(0);
    copy.put<int32_t>(-1);
    copy.put<uint64_t>(8 << 20);
    raw.sendFrame(static_cast<uint16_t>(Opcode::CopyIn), copy.bytes() + std::string(1000, 'x'),
                  runtime::remote::kMore);
  }
  auto device = openWhenFree(where(), 0);
  // The dead client's allocation is gone with it: the whole memory is free again.
  uint64_t a = device->allocate(1 << 20, "next");
  EXPECT_EQ(a, device->allocate(1 << 20, "after") - (1 << 20));
  EXPECT_TRUE(server->running());
}

TEST_F(DeviceServer, AProcessKilledMidLaunchLeavesTheDeviceToTheNextOwner) {
  start("tpu:1");
  ShellResult as = sh(tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR +
                      "/models/tpu-kernels/gemm.s -o " + path("gemm"));
  ASSERT_EQ(as.status, 0) << as.output;
  writeNpy(path("a.npy"), randomF32Array({200, 300}, 1));
  writeNpy(path("b.npy"), randomF32Array({300, 260}, 2));
  std::string run = remote() + "exec " + tool("tpu-sim") + " run " + path("gemm/job.plan") +
                    " --input A=" + path("a.npy") + " --input B=" + path("b.npy") +
                    " --scalar MB=200 --launches 100000 >" + path("run.log") + " 2>&1";
  pid_t pid = startShell(run);
  // Wait until the run owns the device (the server's Hello names the owner), then kill it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (RawClient(address).ownerOf("tpu:0") != pid) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << readFile(path("run.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // into its launches
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto device = openWhenFree(where(), 0);
  EXPECT_EQ(device->index(), 0);
  EXPECT_TRUE(server->running());
}

TEST_F(DeviceServer, AWorkerThatDiesResetsOnlyItsDevice) {
  start("tpu:2");
  auto a = openTpu(0);
  auto b = openTpu(1);
  uint64_t x = b->allocate(64, "x");
  // Kill device 0's worker: its client is told, device 1 is untouched.
  std::string children = readFile("/proc/" + std::to_string(server->pid()) + "/task/" +
                                  std::to_string(server->pid()) + "/children");
  int worker = 0;
  for (size_t at = 0; at < children.size();) {
    size_t end = children.find(' ', at);
    int pid = std::stoi(children.substr(at, end - at));
    std::string command = readFile("/proc/" + std::to_string(pid) + "/cmdline");
    if (command.find(std::string("--worker\0tpu\0"
                                 "0",
                                 14)) != std::string::npos)
      worker = pid;
    at = end == std::string::npos ? children.size() : end + 1;
  }
  ASSERT_GT(worker, 0) << children;
  ::kill(worker, SIGKILL);
  try {
    a->allocate(64, "y");
    FAIL() << "the dead worker answered";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("tpu:0: the device's worker process was killed by signal 9"),
        std::string::npos)
        << e.what();
  }
  uint32_t v = 0x12345678, back = 0;
  b->copyIn(x, &v, 4);
  b->copyOut(x, &back, 4);
  EXPECT_EQ(back, v);
  a.reset();
  EXPECT_EQ(openWhenFree(where(), 0)->index(), 0);
}

/// Sends `bytes` from a fresh raw client (after a Hello when `hello`) and expects an Error
/// mentioning `words`, then the connection closed.
void expectRefused(const std::string& address, bool hello, const std::string& bytes,
                   const std::string& words) {
  RawClient raw(address);
  if (hello) raw.hello();
  raw.sendBytes(bytes);
  bool closed = false;
  runtime::remote::Message m = raw.receive(closed);
  ASSERT_FALSE(closed) << "no Error frame before the close (" << words << ")";
  EXPECT_EQ(m.opcode, Opcode::Error);
  EXPECT_NE(m.payload.find(words), std::string::npos) << m.payload;
  EXPECT_TRUE(raw.closedByServer()) << words;
}

std::string frame(uint16_t opcode, const std::string& payload, uint32_t flags = 0,
                  uint32_t magic = runtime::remote::kMagic,
                  uint16_t version = runtime::remote::kVersion, int64_t length = -1) {
  runtime::remote::FrameHeader h;
  h.magic = magic;
  h.version = version;
  h.opcode = opcode;
  h.flags = flags;
  h.length = length < 0 ? static_cast<uint32_t>(payload.size()) : static_cast<uint32_t>(length);
  char raw[runtime::remote::kHeaderBytes];
  runtime::remote::encodeHeader(h, raw);
  return std::string(raw, sizeof raw) + payload;
}

TEST_F(DeviceServer, MalformedFramesGetAnErrorAndAClosedConnection) {
  start("tpu:1");
  const auto open = static_cast<uint16_t>(Opcode::Open);
  const auto copyIn = static_cast<uint16_t>(Opcode::CopyIn);
  expectRefused(address, false, frame(16, "", 0, 0x12345678), "bad magic");
  expectRefused(address, false, frame(16, "", 0, runtime::remote::kMagic, 9),
                "protocol version 9 is not supported");
  expectRefused(address, false,
                frame(16, "", 0, runtime::remote::kMagic, runtime::remote::kVersion, 1u << 30),
                "over the limit");
  expectRefused(address, false, frame(open, openRequest(0)), "the first message must be Hello");
  expectRefused(address, true, frame(999, ""), "opcode 999 is not a request");
  expectRefused(address, true, frame(static_cast<uint16_t>(Opcode::Reply), ""),
                "Reply is not a request");
  expectRefused(address, true, frame(16, "", 8), "unknown frame flags");
  expectRefused(address, false, frame(16, "junk"), "Hello");
  {
    // A frame of another request inside a CopyIn message, on an open device.
    RawClient raw(address);
    raw.hello();
    raw.sendBytes(frame(open, openRequest(0)));
    bool closed = false;
    ASSERT_EQ(raw.receive(closed).opcode, Opcode::Reply);
    raw.sendBytes(frame(copyIn, "abc", runtime::remote::kMore) + frame(open, "xyz"));
    runtime::remote::Message m = raw.receive(closed);
    EXPECT_NE(m.payload.find("a Open frame inside a CopyIn message"), std::string::npos)
        << m.payload;
    EXPECT_TRUE(raw.closedByServer());
  }
  {
    // A truncated frame, then the client is gone.
    RawClient raw(address);
    raw.hello();
    raw.sendBytes(frame(open, "", 0, runtime::remote::kMagic, runtime::remote::kVersion, 100) +
                  "0123456789");
  }
  // Malformed requests inside well-formed frames are errors of the request alone.
  auto device = openWhenFree(where(), 0);
  RawClient raw(address);
  raw.hello();
  raw.sendBytes(frame(static_cast<uint16_t>(Opcode::Allocate), "12"));
  bool closed = false;
  runtime::remote::Message m = raw.receive(closed);
  EXPECT_EQ(m.opcode, Opcode::Error);
  EXPECT_NE(m.payload.find("no device is open on this connection"), std::string::npos) << m.payload;
  uint64_t x = device->allocate(16, "x");
  uint64_t v = 42, back = 0;
  device->copyIn(x, &v, 8);
  device->copyOut(x, &back, 8);
  EXPECT_EQ(back, 42u);
  EXPECT_TRUE(server->running());
}

TEST_F(DeviceServer, SixteenClientsAtOnceEachGetTheirOwnResults) {
  start("spyre:8,tpu:8");
  // Each client runs its own program: the add kernel on Spyre with its own inputs, the gemm
  // on the TPU with its own sizes. Expected results come from in-process runs first.
  std::string spyreAdd = path("add");
  ASSERT_EQ(
      sh(tool("spyre-as") + " " + CHIPLESS_SOURCE_DIR + "/models/kernels/add.s -o " + spyreAdd)
          .status,
      0);
  std::string gemm = path("gemm");
  ASSERT_EQ(sh(tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR + "/models/tpu-kernels/gemm.s -o " + gemm)
                .status,
            0);
  struct Job {
    ChipKind kind;
    std::map<std::string, NpyArray> inputs;
    std::map<std::string, int64_t> scalars;
    std::map<std::string, NpyArray> expected;
  };
  std::vector<Job> jobs(16);
  for (int i = 0; i < 16; ++i) {
    Job& j = jobs[i];
    j.kind = i % 2 ? ChipKind::Tpu : ChipKind::Spyre;
    if (j.kind == ChipKind::Spyre) {
      j.inputs = {{"A", randomArray(DType::F16, {32, 4096}, 100 + i)},
                  {"B", randomArray(DType::F16, {32, 4096}, 200 + i)}};
    } else {
      int64_t m = 8 * (i + 1);
      j.inputs = {{"A", randomF32Array({m, 300}, 100 + i)},
                  {"B", randomF32Array({300, 260}, 200 + i)}};
      j.scalars = {{"MB", m}};
    }
    runtime::DeviceOptions o;
    o.index = 40; // in process, beside the server's devices
    std::string plan = (j.kind == ChipKind::Spyre ? spyreAdd : gemm) + "/job.plan";
    auto local = runtime::Device::openLocal(
        j.kind, j.kind == ChipKind::Spyre ? archWith().description : tpuArchWith().description, o);
    auto program = local->prepare(plan);
    runtime::LaunchArgs args;
    args.inputs = j.inputs;
    args.scalars = j.scalars;
    j.expected = local->launch(*program, args).outputs;
  }
  std::vector<std::string> failures(16);
  std::vector<std::thread> clients;
  for (int i = 0; i < 16; ++i)
    clients.emplace_back([&, i] {
      try {
        Job& j = jobs[i];
        auto device = RemoteDevice::open(
            where(), j.kind,
            j.kind == ChipKind::Spyre ? archWith().description : tpuArchWith().description, {});
        auto program = device->prepare((j.kind == ChipKind::Spyre ? spyreAdd : gemm) + "/job.plan");
        runtime::LaunchArgs args;
        args.inputs = j.inputs;
        args.scalars = j.scalars;
        for (int launch = 0; launch < 3; ++launch) {
          auto outputs = device->launch(*program, args).outputs;
          for (const auto& [name, array] : j.expected)
            if (outputs.at(name).data != array.data || outputs.at(name).shape != array.shape)
              failures[i] = "client " + std::to_string(i) + ": output " + name + " differs";
        }
      } catch (const std::exception& e) {
        failures[i] = "client " + std::to_string(i) + ": " + e.what();
      }
    });
  for (auto& t : clients) t.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
}

TEST_F(DeviceServer, StoppingTheServerEndsEveryClientsCallsWithAClearError) {
  start("tpu:1");
  auto device = openTpu(0);
  uint64_t x = device->allocate(64, "x");
  EXPECT_EQ(server->stop(), 0);
  try {
    device->allocate(64, "y");
    FAIL() << "a stopped server answered";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device server " + address), std::string::npos)
        << e.what();
  }
  (void)x;
  EXPECT_FALSE(fs::exists(sockets + "/s.sock"));
}

/// A TCP port nothing listens on now.
int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST_F(DeviceServer, TcpBeyondLoopbackNeedsATokenAndChecksIt) {
  ShellResult open = sh(tool("chipless-device-server") +
                        " --devices tpu:1 --listen tcp:0.0.0.0:" + std::to_string(freePort()));
  EXPECT_EQ(open.status, 1);
  EXPECT_NE(open.output.find("listening beyond the loopback address needs --token-file"),
            std::string::npos)
      << open.output;
  writeFileAtomically(path("token"), "0123456789abcdef0123456789abcdef\n");
  std::string tcp = "tcp:127.0.0.1:" + std::to_string(freePort());
  server = std::make_unique<ServerProcess>("--devices tpu:1 --listen " + tcp + " --token-file " +
                                               path("token"),
                                           address = tcp, path("server.log"));
  ShellResult as = sh(tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR +
                      "/models/tpu-kernels/gemm.s -o " + path("gemm"));
  ASSERT_EQ(as.status, 0) << as.output;
  writeNpy(path("a.npy"), randomF32Array({200, 300}, 1));
  writeNpy(path("b.npy"), randomF32Array({300, 260}, 2));
  std::string run = tool("tpu-sim") + " run " + path("gemm/job.plan") +
                    " --input A=" + path("a.npy") + " --input B=" + path("b.npy") +
                    " --output C=" + path("c.npy") + " --scalar MB=200";
  ShellResult refused = sh("CHIPLESS_DEVICE_SERVER=" + tcp + " " + run);
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.output.find("the token presented is not the server's"), std::string::npos)
      << refused.output;
  writeFileAtomically(path("wrong"), "0123456789abcdef0123456789abcdeX\n");
  refused = sh("CHIPLESS_DEVICE_SERVER=" + tcp +
               " CHIPLESS_DEVICE_SERVER_TOKEN_FILE=" + path("wrong") + " " + run);
  EXPECT_EQ(refused.status, 1) << refused.output;
  ShellResult ok = sh("CHIPLESS_DEVICE_SERVER=" + tcp +
                      " CHIPLESS_DEVICE_SERVER_TOKEN_FILE=" + path("token") + " " + run);
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_EQ(readNpy(path("c.npy")).shape, (std::vector<int64_t>{200, 260}));
}

TEST_F(DeviceServer, BadAddressesAndDeviceListsAreClearErrors) {
  ShellResult r = sh(tool("chipless-device-server") + " --devices gpu:2");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--devices: 'gpu:2': unknown kind of device"), std::string::npos)
      << r.output;
  r = sh(tool("chipless-device-server") + " --devices tpu:0");
  EXPECT_NE(r.output.find("the count must be 1 to 64"), std::string::npos) << r.output;
  r = sh(tool("chipless-device-server") + " --status --listen unix:" + sockets + "/nobody.sock");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cannot connect"), std::string::npos) << r.output;
  r = sh(tool("chipless-device-server") + " --listen udp:1");
  EXPECT_NE(r.output.find("--listen: 'udp:1': unknown kind of address"), std::string::npos)
      << r.output;
  r = sh("CHIPLESS_DEVICE_SERVER=unix:" + sockets + "/nobody.sock " + tool("tpu-sim") + " run " +
         std::string(CHIPLESS_SOURCE_DIR) + "/nowhere/job.plan");
  EXPECT_EQ(r.status, 1);
  r = sh(tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR + "/models/tpu-kernels/add.s -o " +
         path("add"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = sh("CHIPLESS_DEVICE_SERVER=unix:" + sockets + "/nobody.sock " + tool("tpu-sim") + " run " +
         path("add/job.plan") + " --timing-only");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("device server unix:" + sockets + "/nobody.sock: cannot connect"),
            std::string::npos)
      << r.output;
}

} // namespace
} // namespace chipless::test

namespace chipless::test {
namespace {

/// The resident memory of process `pid`, in KiB.
long residentKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

TEST_F(DeviceServer, ASlowReaderHoldsUpOnlyItselfAndTheServerStaysSmall) {
  start("tpu:2");
  // A raw client asks for 16 MiB back, four times over, and reads none of it.
  RawClient slow(address);
  const uint64_t address0 = openAndAllocate(slow, 16 << 20);
  long before = residentKiB(server->pid());
  for (int i = 0; i < 4; ++i) {
    WireWriter copy;
    copy.put<uint64_t>(address0);
    copy.put<uint64_t>(16 << 20);
    copy.put<int32_t>(0);
    slow.sendFrame(static_cast<uint16_t>(Opcode::CopyOut), copy.bytes());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // Meanwhile another client is served at once, and correctly.
  auto other = openTpu(1);
  uint64_t x = other->allocate(1 << 20, "x");
  std::string data(1 << 20, 'q'), back(1 << 20, '\0');
  other->copyIn(x, data.data(), data.size());
  other->copyOut(x, back.data(), back.size());
  EXPECT_TRUE(back == data);
  // The server holds at most a frame or two of the 64 MiB it was asked for: back-pressure
  // stops the worker, not the server's memory.
  long after = residentKiB(server->pid());
  EXPECT_LT(after - before, 12 * 1024) << before << " KiB before, " << after << " KiB after";
  slow.close();
  EXPECT_EQ(openWhenFree(where(), 0)->index(), 0);
}

} // namespace
} // namespace chipless::test

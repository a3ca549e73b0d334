// chipless-device-server against in-process devices (docs/performance.md, "Device server"):
// the round trip of a small launch, copy throughput into and out of a remote device against a
// plain memcpy, launches per second with 1, 4 and 16 clients, each on a TPU of its own, and the
// time of a remote launch over an in-process one for the bundled kernels of both chips.
//
//   build/bin/device_server_bench --benchmark_counters_tabular=true
//
// The benchmark starts its own server (build/bin/chipless-device-server, next to this
// program) on a Unix socket in a temporary directory, with a Spyre card and 20 TPUs, and
// stops it at the end.
#include "runtime/device.h"
#include "runtime/remote/remote_device.h"
#include "support/atomic_file.h"
#include "support/npy.h"
#include "support/numerics.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace chipless;
namespace fs = std::filesystem;

namespace {

std::string source(const std::string& rel) {
  return std::string(CHIPLESS_SOURCE_DIR) + "/" + rel;
}

/// The benchmark's server, its directory and the programs it runs.
struct Fixture {
  std::string dir;
  std::string address;
  pid_t server = -1;
  std::string tpuAdd, tpuGemm, spyreAdd, spyreMatmul, spyreSoftmax; ///< plan paths

  Fixture() {
    char pattern[] = "/tmp/chipless-server-bench-XXXXXX";
    dir = ::mkdtemp(pattern);
    address = "unix:" + dir + "/s.sock";
    TpuArch tpu = TpuArch::load(TpuArch::defaultFile());
    SpyreArch spyre = SpyreArch::load(SpyreArch::defaultFile());
    auto tpuKernel = [&](const std::string& name) {
      std::string path = source("models/tpu-kernels/" + name + ".s");
      tpuprog::writeJob(
          dir + "/" + name,
          tpuprog::assemble(readFile(path), path, tpuprog::AssembleOptions::forArch(tpu)));
      return dir + "/" + name + "/job.plan";
    };
    auto spyreKernel = [&](const std::string& name) {
      std::string path = source("models/kernels/" + name + ".s");
      spyrecode::writeJob(
          dir + "/spyre-" + name,
          spyrecode::assemble(readFile(path), path, spyrecode::AssembleOptions::forArch(spyre)));
      return dir + "/spyre-" + name + "/job.plan";
    };
    tpuAdd = tpuKernel("add");
    tpuGemm = tpuKernel("gemm");
    spyreAdd = spyreKernel("add");
    spyreMatmul = spyreKernel("matmul");
    spyreSoftmax = spyreKernel("softmax");

    char self[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    std::string bin = fs::path(std::string(self, n > 0 ? static_cast<size_t>(n) : 0)).parent_path();
    std::string command = "CHIPLESS_LOCK_DIR=" + dir + " exec " + bin +
                          "/chipless-device-server --devices spyre:1,tpu:20 --listen " + address +
                          " >" + dir + "/server.log 2>&1";
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    ::posix_spawn(&server, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ);
    for (int i = 0; i < 600 && readLog().find("serving") == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~Fixture() {
    ::kill(server, SIGTERM);
    ::waitpid(server, nullptr, 0);
    fs::remove_all(dir);
  }
  std::string readLog() const {
    try {
      return readFile(dir + "/server.log");
    } catch (const std::exception&) {
      return "";
    }
  }
  runtime::remote::ServerAddress where() const {
    return runtime::remote::parseServerAddress(address, "bench");
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

NpyArray random(DType dtype, std::vector<int64_t> shape, uint64_t seed) {
  NpyArray x = makeNpy(DType::F32, shape);
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::normal_distribution<float> n(0.0f, 1.0f);
  auto* p = reinterpret_cast<float*>(x.data.data());
  for (size_t i = 0; i < x.elements(); ++i) p[i] = n(rng);
  if (dtype == DType::F32) return x;
  // f16 host arrays for the Spyre kernels.
  NpyArray h = makeNpy(DType::F16, shape);
  auto* q = reinterpret_cast<uint16_t*>(h.data.data());
  for (size_t i = 0; i < x.elements(); ++i) q[i] = floatToHalf(p[i] * 0.25f);
  return h;
}

/// A program with its launch arguments, on a device.
struct Workload {
  ChipKind kind;
  std::string plan;
  runtime::LaunchArgs args;
};

Workload workload(const std::string& name) {
  Fixture& f = fixture();
  Workload w;
  if (name == "tpu_add") {
    w = {ChipKind::Tpu, f.tpuAdd, {}};
    w.args.inputs = {{"A", random(DType::F32, {8, 128}, 1)},
                     {"B", random(DType::F32, {8, 128}, 2)}};
  } else if (name == "tpu_gemm") {
    w = {ChipKind::Tpu, f.tpuGemm, {}};
    w.args.inputs = {{"A", random(DType::F32, {256, 256}, 1)},
                     {"B", random(DType::F32, {256, 256}, 2)}};
    w.args.scalars = {{"MB", 256}};
  } else if (name == "spyre_add") {
    w = {ChipKind::Spyre, f.spyreAdd, {}};
    w.args.inputs = {{"A", random(DType::F16, {32, 4096}, 1)},
                     {"B", random(DType::F16, {32, 4096}, 2)}};
  } else if (name == "spyre_matmul") {
    w = {ChipKind::Spyre, f.spyreMatmul, {}};
    w.args.inputs = {{"A", random(DType::F16, {256, 256}, 1)},
                     {"B", random(DType::F16, {256, 256}, 2)}};
  } else {
    w = {ChipKind::Spyre, f.spyreSoftmax, {}};
    w.args.inputs = {{"X", random(DType::F16, {64, 1024}, 3)}};
  }
  w.args.statistics = false;
  return w;
}

const ArchDescription& archOf(ChipKind kind) {
  static TpuArch tpu = TpuArch::load(TpuArch::defaultFile());
  static SpyreArch spyre = SpyreArch::load(SpyreArch::defaultFile());
  return kind == ChipKind::Tpu ? tpu.description : spyre.description;
}

/// One launch of a bundled kernel, in process (arg 0) or on the server (arg 1); the
/// simulation's own time is reported too, so the difference is the transport's.
void launchBench(benchmark::State& state, const std::string& name) {
  Workload w = workload(name);
  bool remote = state.range(0) == 1;
  runtime::DeviceOptions o;
  o.index = remote ? 0 : 30;
  std::unique_ptr<runtime::Device> device =
      remote ? std::unique_ptr<runtime::Device>(runtime::remote::RemoteDevice::open(
                   fixture().where(), w.kind, archOf(w.kind), o))
             : runtime::Device::openLocal(w.kind, archOf(w.kind), o);
  auto program = device->prepare(w.plan);
  double simulated = 0;
  for (auto _ : state) simulated += device->launch(*program, w.args).hostSeconds;
  state.SetLabel(remote ? "remote" : "in process");
  state.counters["sim_s"] = benchmark::Counter(simulated / static_cast<double>(state.iterations()));
}

void BM_TpuAdd(benchmark::State& s) {
  launchBench(s, "tpu_add");
}
void BM_TpuGemm(benchmark::State& s) {
  launchBench(s, "tpu_gemm");
}
void BM_SpyreAdd(benchmark::State& s) {
  launchBench(s, "spyre_add");
}
void BM_SpyreMatmul(benchmark::State& s) {
  launchBench(s, "spyre_matmul");
}
void BM_SpyreSoftmax(benchmark::State& s) {
  launchBench(s, "spyre_softmax");
}
BENCHMARK(BM_TpuAdd)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_TpuGemm)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SpyreAdd)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SpyreMatmul)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SpyreSoftmax)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

/// The round trip of the smallest request (Allocate + Release of 64 bytes).
void BM_RoundTrip(benchmark::State& state) {
  runtime::DeviceOptions o;
  o.index = 1;
  auto device = runtime::remote::RemoteDevice::open(fixture().where(), ChipKind::Tpu,
                                                    archOf(ChipKind::Tpu), o);
  for (auto _ : state) device->release(device->allocate(64, "x"));
  state.counters["requests_per_s"] = benchmark::Counter(
      2.0 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RoundTrip)->Unit(benchmark::kMicrosecond)->UseRealTime();

/// 64 MiB into (arg 0) or out of (arg 1) a TPU's memory, on the server (arg 2 = 0) or in
/// process (1); arg 0 = 2: a memcpy of the same.
void BM_Copy(benchmark::State& state) {
  const uint64_t bytes = 64ull << 20;
  std::string data(bytes, 'x'), back(bytes, '\0');
  runtime::DeviceOptions o;
  const bool local = state.range(1) == 1;
  o.index = local ? 31 : 2;
  std::unique_ptr<runtime::Device> device =
      local ? runtime::Device::openLocal(ChipKind::Tpu, archOf(ChipKind::Tpu), o)
            : std::unique_ptr<runtime::Device>(runtime::remote::RemoteDevice::open(
                  fixture().where(), ChipKind::Tpu, archOf(ChipKind::Tpu), o));
  uint64_t address = device->allocate(bytes, "buffer");
  for (auto _ : state) {
    if (state.range(0) == 0)
      device->copyIn(address, data.data(), bytes);
    else if (state.range(0) == 1)
      device->copyOut(address, back.data(), bytes);
    else
      std::memcpy(back.data(), data.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetLabel(std::string(state.range(0) == 0   ? "copy in"
                             : state.range(0) == 1 ? "copy out"
                                                   : "memcpy") +
                 (state.range(0) < 2 ? (local ? ", in process" : ", remote") : ""));
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_Copy)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({2, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// Clients launching the small TPU add at once, each on a device of its own.
void BM_Clients(benchmark::State& state) {
  Workload w = workload("tpu_add");
  runtime::DeviceOptions o;
  o.index = 4 + state.thread_index();
  auto device = runtime::remote::RemoteDevice::open(fixture().where(), ChipKind::Tpu,
                                                    archOf(ChipKind::Tpu), o);
  auto program = device->prepare(w.plan);
  for (auto _ : state) device->launch(*program, w.args);
  state.counters["launches_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Clients)
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();

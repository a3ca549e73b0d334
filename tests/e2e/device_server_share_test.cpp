// chipless-device-server --share: several clients on one emulated TPU, each on its own
// TensorCores and window of HBM. Their launches run in one simulation, where they contend
// for HBM; each gets the results it would get alone; the owner rule and the shares exclude
// each other with errors naming the pids; a killed sharer gives its cores back.
#include "runtime/remote/remote_device.h"
#include "runtime/share_option.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/npy.h"
#include "tests/e2e/device_server_harness.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"
#include "tests/e2e/tpu_kernel_harness.h"
#include "tests/unit/util/tpu_stream_kernel.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace chipless::test {
namespace {

using runtime::remote::RemoteDevice;
using runtime::remote::ServerAddress;

/// The share of a tpu-v4 chip (two TensorCores) each test client asks for: one TensorCore
/// and half of the HBM.
constexpr const char* kHalfV4 = "cores=1,memory=16G";
const std::vector<std::string> kHalfV4Arch = {"chip.tensorcores=1",
                                              "hbm.capacity_bytes=17179869184"};

class DeviceServerShare : public ::testing::Test {
protected:
  void SetUp() override {
    dir = testDirectory();
    address = "unix:" + socketDirectory() + "/s.sock";
  }
  void start(const std::string& args) {
    server =
        std::make_unique<ServerProcess>(args + " --listen " + address, address, path("server.log"));
  }
  std::string path(const std::string& name) const { return dir + "/" + name; }
  ServerAddress where() const { return runtime::remote::parseServerAddress(address, "test"); }
  /// Opens tpu:0 whole, or a share of it (`share`: "cores=1,window-ms=...").
  std::unique_ptr<RemoteDevice> open(const std::string& share = "") {
    runtime::DeviceOptions o;
    o.index = 0;
    if (!share.empty()) o.share = runtime::parseDeviceShare(share, "test share");
    return RemoteDevice::open(where(), ChipKind::Tpu, tpuArchWith({}, "v4").description, o);
  }
  /// Assembles `source` (a file) for one TensorCore and half the HBM of a tpu-v4 into `out`.
  void assembleForShare(const std::string& source, const std::string& out) {
    std::string sets;
    for (const std::string& s : kHalfV4Arch) sets += " --set " + s;
    ShellResult as = sh(tool("tpu-as") + " " + source + " --arch tpu-v4" + sets + " -o " + out);
    ASSERT_EQ(as.status, 0) << as.output;
  }

  std::string dir, address;
  std::unique_ptr<ServerProcess> server;
};

/// The error `open` throws, or "" when it opened.
template <typename Open>
std::string refusal(Open open) {
  try {
    open();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(DeviceServerShare, OwnersAndSharesExcludeEachOtherByName) {
  start("--devices tpu-v4:1");
  EXPECT_NE(refusal([&] { open(kHalfV4); })
                .find("does not serve shares of its devices (start it "
                      "with --share)"),
            std::string::npos);
  server->stop();
  start("--devices tpu-v4:1 --share");
  const std::string me = "pid " + std::to_string(::getpid());
  {
    auto whole = open();
    EXPECT_FALSE(whole->shareInfo());
    std::string why = refusal([&] { open(kHalfV4); });
    EXPECT_NE(why.find("tpu:0 is in use by " + me), std::string::npos) << why;
    EXPECT_NE(why.find("one owner per device"), std::string::npos) << why;
  }
  auto a = open(kHalfV4);
  auto b = open("cores=1");
  // Each share is described as a device of its own TensorCore and HBM window.
  ASSERT_TRUE(a->shareInfo() && b->shareInfo());
  EXPECT_EQ(a->shareInfo()->firstCore, 0);
  EXPECT_EQ(b->shareInfo()->firstCore, 1);
  EXPECT_EQ(a->arch().getInt("chip.tensorcores"), 1);
  EXPECT_EQ(a->arch().getInt("hbm.capacity_bytes"), 17179869184);
  EXPECT_EQ(b->shareInfo()->memoryBytes, 17179869184u); // the rest: one core's part
  EXPECT_EQ(a->allocate(4096, "a"), 0u);                // each from its own address 0
  EXPECT_EQ(b->allocate(4096, "b"), 0u);
  std::string why = refusal([&] { open(); });
  EXPECT_NE(why.find("tpu:0 is in use by shares of it by " + me), std::string::npos) << why;
  why = refusal([&] { open("cores=1"); });
  EXPECT_NE(why.find("no 1 free TensorCore(s)"), std::string::npos) << why;
  ShellResult status = sh(tool("chipless-device-server") + " --status --listen " + address);
  EXPECT_NE(status.output.find("2 share(s), the first by " + me), std::string::npos)
      << status.output;
  // A share's accesses stay in its window: past its end is an error naming the share's bytes.
  std::vector<char> bytes(8192);
  why = refusal([&] { a->copyOut(17179869184 - 4096, bytes.data(), 8192); });
  EXPECT_FALSE(why.empty());
  b.reset();
  EXPECT_EQ(open("cores=1")->shareInfo()->firstCore, 1); // its TensorCore is free again
}

TEST_F(DeviceServerShare, SharesRunTogetherContendForHbmAndKeepTheirResults) {
  start("--devices tpu-v4:1 --share");
  writeFileAtomically(path("stream.s"), kTpuStreamKernel);
  assembleForShare(path("stream.s"), path("stream"));
  assembleForShare(std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels/gemm.s", path("gemm"));
  NpyArray x = randomF32Array({4096, 128}, 7);
  NpyArray ga = randomF32Array({200, 300}, 1), gb = randomF32Array({300, 260}, 2);

  // Each program alone on its share (the other share not open): the reference cycles.
  auto runStream = [&](RemoteDevice& d, int launches) {
    auto program = d.prepare(path("stream/job.plan"));
    runtime::LaunchArgs args;
    args.inputs["X"] = x;
    std::vector<runtime::LaunchReport> reports;
    for (int i = 0; i < launches; ++i) reports.push_back(d.launch(*program, args));
    return std::make_pair(reports, d.stats(reports.back()));
  };
  auto runGemm = [&](RemoteDevice& d, int launches) {
    auto program = d.prepare(path("gemm/job.plan"));
    runtime::LaunchArgs args;
    args.inputs["A"] = ga;
    args.inputs["B"] = gb;
    args.scalars["MB"] = 200;
    std::vector<runtime::LaunchReport> reports;
    for (int i = 0; i < launches; ++i) reports.push_back(d.launch(*program, args));
    return std::make_pair(reports, d.stats(reports.back()));
  };
  double streamAlone = 0, gemmAlone = 0;
  NpyArray gemmAloneOut;
  {
    auto d = open(kHalfV4);
    auto [reports, stats] = runStream(*d, 1);
    streamAlone = reports[0].cycles;
    EXPECT_EQ(reports[0].sharedSteps, 0u);
    EXPECT_EQ(stats.get("share.launches_together"), 1);
  }
  {
    auto d = open(kHalfV4);
    auto [reports, stats] = runGemm(*d, 1);
    gemmAlone = reports[0].cycles;
    gemmAloneOut = reports[0].outputs.at("C");
  }

  // Both shares open first, so that every launch finds the other's at the gate (a long
  // window), as a trainer and a rollout engine each on their own TensorCore.
  auto trainer = open("cores=1,memory=16G,window-ms=30000");
  auto rollout = open("cores=1,memory=16G,window-ms=30000");
  constexpr int kLaunches = 3;
  std::pair<std::vector<runtime::LaunchReport>, Stats> streamRun, gemmRun;
  std::thread t([&] { gemmRun = runGemm(*trainer, kLaunches); });
  streamRun = runStream(*rollout, kLaunches);
  t.join();

  for (int i = 0; i < kLaunches; ++i) {
    // Correct: the stream copies its input; the gemm gives exactly what it gives alone.
    EXPECT_TRUE(streamRun.first[i].outputs.at("Y").data == x.data) << "launch " << i;
    EXPECT_TRUE(gemmRun.first[i].outputs.at("C").data == gemmAloneOut.data) << "launch " << i;
    EXPECT_EQ(streamRun.first[i].sharedSteps, 1u);
    EXPECT_EQ(gemmRun.first[i].sharedSteps, 1u);
    // Interference: the stream's DMAs meet the gemm's in HBM (the stream, first there, keeps
    // its pace; the gemm's loads wait behind it: 3667 cycles alone, 7167 together).
    EXPECT_GE(streamRun.first[i].cycles, streamAlone);
    EXPECT_GE(gemmRun.first[i].cycles, gemmAlone);
    EXPECT_GT(streamRun.first[i].cycles + gemmRun.first[i].cycles, streamAlone + gemmAlone);
  }
  for (const Stats* s : {&streamRun.second, &gemmRun.second}) {
    EXPECT_EQ(s->get("share.launches_together"), 2);
    EXPECT_EQ(s->get("share.cores"), 1);
    EXPECT_GE(s->get("share.simulation_cycles"),
              std::max(streamRun.first.back().cycles, gemmRun.first.back().cycles));
  }
  EXPECT_EQ(streamRun.second.get("share.first_core") + gemmRun.second.get("share.first_core"), 1);
  // The same pair again gives the same cycles: the shared simulation is deterministic.
  EXPECT_EQ(streamRun.first[0].cycles, streamRun.first[kLaunches - 1].cycles);
  EXPECT_EQ(gemmRun.first[0].cycles, gemmRun.first[kLaunches - 1].cycles);
}

TEST_F(DeviceServerShare, ToolsTakeTheirShareFromTheEnvironment) {
  start("--devices tpu-v4:1 --share");
  assembleForShare(std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels/gemm.s", path("gemm"));
  writeNpy(path("a.npy"), randomF32Array({200, 300}, 1));
  writeNpy(path("b.npy"), randomF32Array({300, 260}, 2));
  std::string run = tool("tpu-sim") + " run " + path("gemm/job.plan") +
                    " --arch tpu-v4 --input A=" + path("a.npy") + " --input B=" + path("b.npy") +
                    " --scalar MB=200";
  // In process, on a tpu-v4 of one TensorCore, and on a share of the server's tpu-v4.
  std::string sets;
  for (const std::string& s : kHalfV4Arch) sets += " --set " + s;
  ShellResult local = sh(run + sets + " --output C=" + path("local.npy"));
  ASSERT_EQ(local.status, 0) << local.output;
  ShellResult shared =
      sh("CHIPLESS_DEVICE_SERVER=" + address + " CHIPLESS_DEVICE_SHARE=" + kHalfV4 + " " + run +
         " --output C=" + path("shared.npy") + " --stats " + path("stats.json"));
  ASSERT_EQ(shared.status, 0) << shared.output;
  EXPECT_EQ(readFile(path("local.npy")), readFile(path("shared.npy")));
  // The summary says where the share lies and that its launch ran alone.
  EXPECT_NE(shared.output.find("  share                 cores 0-0, 17.18 GB window; ran alone"),
            std::string::npos)
      << shared.output;
  auto stats = nlohmann::json::parse(readFile(path("stats.json")));
  EXPECT_EQ(stats["share"]["cores"]["value"], 1) << stats.dump();
  // A program compiled for the whole chip does not fit a share: a clear error before it runs.
  ASSERT_EQ(sh(tool("tpu-as") + " " + CHIPLESS_SOURCE_DIR +
               "/models/tpu-kernels/gemm.s --arch tpu-v4 -o " + path("whole"))
                .status,
            0);
  ShellResult whole =
      sh("CHIPLESS_DEVICE_SERVER=" + address + " CHIPLESS_DEVICE_SHARE=cores=1 " + tool("tpu-sim") +
         " run " + path("whole/job.plan") + " --arch tpu-v4 --input A=" + path("a.npy") +
         " --input B=" + path("b.npy") + " --scalar MB=200 --output C=" + path("whole.npy"));
  EXPECT_EQ(whole.status, 1);
  EXPECT_NE(whole.output.find("chip.tensorcores"), std::string::npos) << whole.output;
  EXPECT_FALSE(std::filesystem::exists(path("whole.npy")));
  ShellResult bad = sh("CHIPLESS_DEVICE_SERVER=" + address + " CHIPLESS_DEVICE_SHARE=cores=x " +
                       run + " --output C=" + path("bad.npy"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("CHIPLESS_DEVICE_SHARE: cores: 'x' is not a whole number"),
            std::string::npos)
      << bad.output;
}

TEST_F(DeviceServerShare, AKilledSharerGivesItsCoresBackAndSparesTheOther) {
  start("--devices tpu-v4:1 --share");
  assembleForShare(std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels/gemm.s", path("gemm"));
  writeNpy(path("a.npy"), randomF32Array({200, 300}, 1));
  writeNpy(path("b.npy"), randomF32Array({300, 260}, 2));
  auto stay = open(kHalfV4);
  std::string run = "CHIPLESS_DEVICE_SERVER=" + address + " CHIPLESS_DEVICE_SHARE=" + kHalfV4 +
                    " exec " + tool("tpu-sim") + " run " + path("gemm/job.plan") +
                    " --arch tpu-v4 --input A=" + path("a.npy") + " --input B=" + path("b.npy") +
                    " --scalar MB=200 --launches 100000 >" + path("run.log") + " 2>&1";
  pid_t pid = startShell(run);
  // Wait until the run has its share (the device then has two users), then kill it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (refusal([&] { open("cores=1"); }).find("no 1 free TensorCore(s)") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << readFile(path("run.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // into its launches
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // Its TensorCore and memory come back; the share that stayed works on.
  std::unique_ptr<RemoteDevice> next;
  while (!next) {
    try {
      next = open(kHalfV4);
    } catch (const Error&) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_EQ(next->allocate(1 << 20, "fresh"), 0u);
  auto program = stay->prepare(path("gemm/job.plan"));
  runtime::LaunchArgs args;
  args.inputs["A"] = readNpy(path("a.npy"));
  args.inputs["B"] = readNpy(path("b.npy"));
  args.scalars["MB"] = 200;
  EXPECT_EQ(stay->launch(*program, args).outputs.at("C").shape, (std::vector<int64_t>{200, 260}));
  EXPECT_TRUE(server->running());
}

TEST_F(DeviceServerShare, HalvesOfASpyreCardRunTogetherFromTheTools) {
  start("--devices spyre:1 --share");
  // The bundled add over 16 cores and half of the job address space (segments of 8 GiB).
  const std::string sets = " --set chip.cores=16 --set memory.segment_bytes=8589934592";
  ShellResult as = sh(tool("spyre-as") + " " + CHIPLESS_SOURCE_DIR + "/models/kernels/add.s" +
                      sets + " -o " + path("add"));
  ASSERT_EQ(as.status, 0) << as.output;
  writeNpy(path("a.npy"), randomArray(DType::F16, {32, 4096}, 1));
  writeNpy(path("b.npy"), randomArray(DType::F16, {32, 4096}, 2));
  const std::string run = tool("spyre-sim") + " run " + path("add/job.plan") +
                          " --input A=" + path("a.npy") + " --input B=" + path("b.npy");
  ShellResult local = sh(run + sets + " --output C=" + path("local.npy"));
  ASSERT_EQ(local.status, 0) << local.output;
  // Two processes, each on half of the server's card, launching at the same time.
  const std::string env =
      "CHIPLESS_DEVICE_SERVER=" + address + " CHIPLESS_DEVICE_SHARE=cores=16,window-ms=2000 ";
  std::string both;
  for (const char* who : {"x", "y"})
    both += env + run + " --launches 4 --output C=" + path(std::string(who) + ".npy") +
            " --stats " + path(std::string(who) + ".json") + " > " +
            path(std::string(who) + ".log") + " 2>&1 & ";
  ShellResult pair = sh(both + "wait");
  for (const char* who : {"x", "y"}) {
    const std::string name = who;
    ASSERT_TRUE(std::filesystem::exists(path(name + ".npy"))) << readFile(path(name + ".log"));
    EXPECT_EQ(readFile(path(name + ".npy")), readFile(path("local.npy"))) << name;
    auto stats = nlohmann::json::parse(readFile(path(name + ".json")));
    EXPECT_EQ(stats["share"]["cores"]["value"], 16) << stats.dump();
  }
  // One of them took the first half of the card, the other the second.
  auto first = [&](const char* who) {
    return nlohmann::json::parse(
               readFile(path(std::string(who) + ".json")))["share"]["first_core"]["value"]
        .get<int>();
  };
  EXPECT_EQ(first("x") + first("y"), 16);
}

} // namespace
} // namespace chipless::test

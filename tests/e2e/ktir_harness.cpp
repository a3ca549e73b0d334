#include "tests/e2e/ktir_harness.h"

#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/spyre_job.h"
#include "support/spyrecode/directory.h"
#include "support/trace.h"
#include "tests/e2e/kernel_harness.h"
#include "tests/e2e/shell.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace chipless::test {

namespace fs = std::filesystem;

std::string shell(const std::string& command, int& status) {
  ShellResult r = sh(command);
  status = r.status;
  return r.output;
}

fs::path testWorkDir() {
  fs::path work = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" /
                  ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(work);
  fs::create_directories(work);
  return work;
}

void expectClose(const std::string& what, const std::vector<float>& got,
                 const std::vector<float>& ref, double rtol, double atol) {
  EXPECT_EQ(got.size(), ref.size()) << what;
  if (got.size() != ref.size()) return;
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(static_cast<double>(got[i]) - ref[i]);
    double tol = atol + rtol * std::fabs(ref[i]);
    if (!(err <= tol)) {
      if (bad++ == 0) first = i;
    }
    worst = std::max(worst, err);
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ; first at "
                     << first << ": got " << got[first] << ", expected " << ref[first]
                     << " (largest error " << worst << ")";
}

bool compileKtir(const fs::path& dir, const KtirCase& c, const fs::path& work) {
  std::string cmd = std::string(CHIPLESS_BINARY_DIR) + "/bin/spyre-compile " +
                    (dir / c.file).string() + " -o " + (work / "job").string() + " --dump-dir " +
                    (work / "dump").string();
  for (const auto& f : c.flags) cmd += " " + f;
  for (const auto& s : c.archOverrides) cmd += " --set " + s;
  int status = 0;
  std::string log = shell(cmd, status);
  EXPECT_EQ(status, 0) << cmd << "\n" << log;
  return status == 0;
}

KtirRun launchKtir(const KtirCase& c, const fs::path& work) {
  KtirRun run;
  SpyreArch arch = archWith(c.archOverrides);
  spyrecode::Job job = spyrecode::readJob((work / "job" / "job.plan").string());
  Tensors inputs;
  uint64_t seed = 1;
  for (const auto& a : job.plan.args) {
    if (a.role == spyrecode::ArgRole::Output) continue;
    std::vector<int64_t> shape;
    for (const auto& d : a.shape)
      shape.push_back(std::holds_alternative<int64_t>(d) ? std::get<int64_t>(d)
                                                         : c.scalars.at(std::get<std::string>(d)));
    inputs[a.name] =
        c.zeros.count(a.name) ? makeNpy(a.dtype, shape) : randomArray(a.dtype, shape, seed++);
  }
  if (c.inputs) c.inputs(inputs);
  auto device = runtime::SpyreDevice::open(arch, {-1, false});
  runtime::SpyreJob prepared(*device, (work / "job" / "job.plan").string());
  TraceWriter trace;
  runtime::LaunchArgs args;
  args.inputs = std::move(inputs);
  args.scalars = c.scalars;
  args.reals = c.reals;
  args.trace = c.trace ? &trace : nullptr;
  runtime::LaunchReport out = prepared.launch(args);
  run.ok = true;
  run.inputs = args.inputs;
  run.outputs = out.outputs;
  run.cycles = out.cycles;
  run.stats = device->stats(out);
  if (c.trace) run.traceJson = trace.toString();
  EXPECT_GT(run.cycles, 0);
  if (c.verify) {
    c.verify(run.inputs, run.outputs);
    return run;
  }
  Expected expected = c.reference(run.inputs);
  for (const auto& [name, ref] : expected) {
    auto it = run.outputs.find(name);
    EXPECT_NE(it, run.outputs.end()) << "no output '" << name << "'";
    if (it == run.outputs.end()) continue;
    expectClose(c.file + ": output '" + name + "'", floats(it->second), ref, c.rtol, c.atol);
  }
  return run;
}

KtirRun runKtirCase(const fs::path& dir, const KtirCase& c, const fs::path& work) {
  if (!compileKtir(dir, c, work)) return {};
  return launchKtir(c, work);
}

void expectEveryCoreBusy(const std::string& traceJson, int cores) {
  nlohmann::json trace = nlohmann::json::parse(traceJson);
  const nlohmann::json& events = trace.is_array() ? trace : trace.at("traceEvents");
  std::vector<int> spans(static_cast<size_t>(cores), 0);
  for (const auto& e : events)
    if (e.value("ph", "") == "X" && e.contains("pid")) {
      int pid = e.at("pid").get<int>();
      if (pid >= 0 && pid < cores) ++spans[static_cast<size_t>(pid)];
    }
  for (int c = 0; c < cores; ++c)
    EXPECT_GT(spans[static_cast<size_t>(c)], 0) << "the trace shows no work on core " << c;
}

double Bounds::max() const {
  return std::max({dram, pt, ring});
}

std::string Bounds::limit() const {
  double m = max();
  return m == dram ? "dram" : m == pt ? "pt" : "ring";
}

Bounds boundsOf(const KtirRun& run, const SpyreArch& arch, double flops, double ringBytesPerLink) {
  Bounds b;
  b.dram = run.stats.get("chip.dram.bytes") / arch.dramBytesPerCycle();
  b.pt = flops / static_cast<double>(arch.peakFp16FlopsPerCycle());
  b.ring = ringBytesPerLink / static_cast<double>(arch.ring.bytes_per_cycle);
  return b;
}

void expectWithinBounds(const std::string& name, const KtirRun& run, const Bounds& b) {
  EXPECT_GE(run.cycles, b.dram) << name << ": faster than DRAM allows";
  EXPECT_GE(run.cycles, b.pt) << name << ": faster than the PT arrays allow";
  EXPECT_GE(run.cycles, b.ring) << name << ": faster than the ring allows";
  std::printf("KTIR-KERNEL %-24s cycles %7.0f  dram %7.0f  pt %6.0f  ring %5.0f  bound %7.0f "
              "(%s)  ratio %.2f\n",
              name.c_str(), run.cycles, b.dram, b.pt, b.ring, b.max(), b.limit().c_str(),
              run.cycles / std::max(b.max(), 1e-9));
}

} // namespace chipless::test

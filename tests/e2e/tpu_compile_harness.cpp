#include "tests/e2e/tpu_compile_harness.h"

#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_job.h"
#include "support/atomic_file.h"
#include "support/numerics.h"
#include "support/trace.h"
#include "tests/e2e/shell.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::test {

namespace fs = std::filesystem;

std::string compileWorkDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(CHIPLESS_BINARY_DIR) / "test-tmp" / "tpu-compile" /
                 (std::string(info->test_suite_name()) + "." + info->name());
  fs::create_directories(dir);
  return dir.string();
}

std::string writeGraph(const std::string& name, const std::string& text) {
  std::string path = compileWorkDir() + "/" + name + ".mlir";
  writeFileAtomically(path, text);
  return path;
}

std::string graphFile(const std::string& name) {
  return std::string(CHIPLESS_SOURCE_DIR) + "/models/graphs/" + name + ".mlir";
}

CompileResult tpuCompile(const std::string& graph, const std::string& tag,
                         const std::vector<std::string>& flags, bool keepExisting) {
  CompileResult r;
  r.dir = compileWorkDir() + "/" + tag;
  r.dumpDir = r.dir + "-dump";
  if (!keepExisting) {
    fs::remove_all(r.dir);
    fs::remove_all(r.dumpDir);
  }
  std::string cmd = std::string(CHIPLESS_BINARY_DIR) + "/bin/tpu-compile '" + graph + "' -o '" +
                    r.dir + "' --dump-dir '" + r.dumpDir + "'";
  for (const auto& f : flags) cmd += " '" + f + "'";
  ShellResult run = sh(cmd);
  r.status = run.status;
  r.log = std::move(run.output);
  return r;
}

std::string compileOrFail(const std::string& graph, const std::string& tag,
                          const std::vector<std::string>& flags) {
  CompileResult r = tpuCompile(graph, tag, flags);
  EXPECT_EQ(r.status, 0) << "tpu-compile " << graph << " failed:\n" << r.log;
  return r.dir;
}

TpuKernelRun runProgram(const std::string& dir, const std::map<std::string, NpyArray>& inputs,
                        const TpuArch& arch, bool timingOnly, bool trace) {
  auto device = runtime::TpuDevice::open(arch, {-1, timingOnly, 1});
  runtime::TpuJob job(*device, dir + "/job.plan");
  runtime::LaunchArgs args;
  args.inputs = inputs;
  TraceWriter traceWriter;
  if (trace) args.trace = &traceWriter;
  runtime::LaunchReport out = job.launch(args);
  TpuKernelRun run;
  run.outputs = out.outputs;
  run.cycles = out.cycles;
  run.launchCycles.push_back(out.cycles);
  run.stats = device->stats(out);
  run.statsJson = run.stats.toJson().dump(2);
  if (trace) run.traceJson = traceWriter.toString();
  // The physical limits: the MXU work at peak and the HBM bytes at full bandwidth.
  const double ideal = run.stats.get("mxu_flops") /
                       static_cast<double>(arch.peakBf16FlopsPerCycle()) / arch.mxu.int8_speedup;
  const double bytes =
      run.stats.get("chip[0].hbm.bytes_read") + run.stats.get("chip[0].hbm.bytes_written");
  EXPECT_GE(run.cycles, ideal) << dir << ": fewer cycles than the MXUs need at peak";
  EXPECT_GE(run.cycles, bytes / arch.hbmBytesPerCycle())
      << dir << ": fewer cycles than the HBM traffic needs at full bandwidth";
  return run;
}

std::map<std::string, std::string> directoryFiles(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files[e.path().filename().string()] = readFile(e.path().string());
  return files;
}

std::vector<double> asDoubles(const NpyArray& a) {
  std::vector<double> v;
  for (float x : f32Values(a)) v.push_back(x);
  return v;
}

std::vector<double> roundBf16(std::vector<double> v) {
  for (double& x : v) x = bf16ToFloat(floatToBf16(static_cast<float>(x)));
  return v;
}

std::vector<double> bf16Values(const NpyArray& a) {
  return roundBf16(asDoubles(a));
}

std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                           int64_t k, int64_t n, bool transposedB) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const double x = a[static_cast<size_t>(i * k + p)];
      for (int64_t j = 0; j < n; ++j)
        c[static_cast<size_t>(i * n + j)] += x * (transposedB ? b[static_cast<size_t>(j * k + p)]
                                                              : b[static_cast<size_t>(p * n + j)]);
    }
  return c;
}

std::vector<double> softmaxRows(std::vector<double> x, int64_t cols) {
  for (size_t r = 0; r < x.size() / static_cast<size_t>(cols); ++r) {
    double* row = &x[r * static_cast<size_t>(cols)];
    double mx = row[0], sum = 0;
    for (int64_t j = 1; j < cols; ++j) mx = std::max(mx, row[j]);
    for (int64_t j = 0; j < cols; ++j) sum += row[j] = std::exp(row[j] - mx);
    for (int64_t j = 0; j < cols; ++j) row[j] /= sum;
  }
  return x;
}

void expectClose(const NpyArray& got, const std::vector<double>& ref, double rtol, double atol,
                 const std::string& what) {
  std::vector<double> g;
  if (got.dtype == DType::I32) {
    const int32_t* p = reinterpret_cast<const int32_t*>(got.data.data());
    for (size_t i = 0; i < got.elements(); ++i) g.push_back(p[i]);
  } else {
    g = asDoubles(got);
  }
  ASSERT_EQ(g.size(), ref.size()) << what;
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double err = std::fabs(g[i] - ref[i]);
    if (!(err <= atol + rtol * std::fabs(ref[i])) && bad++ == 0) first = i;
    worst = std::max(worst, err);
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << g.size() << " elements differ; first at "
                     << first << ": got " << g[first] << ", expected " << ref[first]
                     << " (largest error " << worst << ")";
}

} // namespace chipless::test

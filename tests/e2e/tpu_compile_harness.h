#pragma once
/// Shared helpers of the TPU compiler's end-to-end tests (tests/e2e/tpu_compile_*.cpp): compile
/// a tensor graph (models/graphs/*.mlir, or MLIR text written by the test) with tpu-compile,
/// run the program directory on a fresh emulated TPU with the runtime, and compare with fp32
/// references computed here. Every run is also checked against the physical limits: no run
/// takes fewer cycles than its MXU work at peak, or than its HBM bytes at full bandwidth.
#include "support/atomic_file.h"
#include "support/npy.h"
#include "support/tpu_arch.h"
#include "tests/e2e/tpu_kernel_harness.h"

#include <map>
#include <string>
#include <vector>

namespace chipless::test {

/// A work directory for the current test: <build>/test-tmp/tpu-compile/<test name>/.
std::string compileWorkDir();

/// Writes `text` to <work dir>/<name>.mlir and returns the path.
std::string writeGraph(const std::string& name, const std::string& text);

/// models/graphs/<name>.mlir.
std::string graphFile(const std::string& name);

/// What `tpu-compile` printed and returned.
struct CompileResult {
  int status = -1;
  std::string log; ///< stdout and stderr
  std::string dir; ///< the program directory (when status is 0)
  std::string dumpDir;
};

/// Runs `tpu-compile GRAPH -o <work>/<tag> --dump-dir <work>/<tag>-dump FLAGS...`; removes
/// both directories first unless `keepExisting` (to check that a failed compile leaves an
/// existing program alone).
CompileResult tpuCompile(const std::string& graph, const std::string& tag,
                         const std::vector<std::string>& flags = {}, bool keepExisting = false);

/// Compiles (failing the test when tpu-compile fails) and returns the program directory.
std::string compileOrFail(const std::string& graph, const std::string& tag,
                          const std::vector<std::string>& flags = {});

/// Runs the program in `dir` on a fresh device of `arch` with `inputs` (timing only: none);
/// checks the run against the MXU and HBM bounds. Fills statsJson, and with `trace` traceJson.
TpuKernelRun runProgram(const std::string& dir, const std::map<std::string, NpyArray>& inputs,
                        const TpuArch& arch, bool timingOnly = false, bool trace = false);

/// The files of a directory (name -> contents), for byte-for-byte comparisons.
std::map<std::string, std::string> directoryFiles(const std::string& dir);

/// Values rounded to bf16 (what the MXU multiplies and what bf16 tensors hold).
std::vector<double> bf16Values(const NpyArray& a);
std::vector<double> asDoubles(const NpyArray& a);
std::vector<double> roundBf16(std::vector<double> v);

/// Row-major [m, k] x [k, n] in fp64 (transposedB: b is [n, k]).
std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                           int64_t k, int64_t n, bool transposedB = false);

/// Softmax over rows of `cols` elements.
std::vector<double> softmaxRows(std::vector<double> x, int64_t cols);

/// Every element of `got` within atol + rtol * |ref| of `ref` (reports the first offender).
void expectClose(const NpyArray& got, const std::vector<double>& ref, double rtol, double atol,
                 const std::string& what);

} // namespace chipless::test

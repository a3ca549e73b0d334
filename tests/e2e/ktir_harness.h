#pragma once
/// Shared machinery of the KTIR end-to-end tests (the public samples and the kernels under
/// models/kernels): compile a KTIR file with spyre-compile, make inputs for the arguments
/// the job plan declares, launch it on a fresh emulated device (with stats, optionally a
/// trace), compare the outputs with references computed by the test in fp32, and check
/// the run against the hardware bounds it must not beat.
#include "support/npy.h"
#include "support/spyre_arch.h"
#include "support/stats.h"

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace chipless::test {

/// Host arrays by argument name.
using Tensors = std::map<std::string, NpyArray>;
/// Expected outputs: values (row-major) by argument name.
using Expected = std::map<std::string, std::vector<float>>;

/// One KTIR run: which file, how to compile it, which inputs it gets, what it must compute.
struct KtirCase {
  std::string file;                                  ///< relative to the directory given
  std::vector<std::string> flags;                    ///< extra spyre-compile options
  std::function<void(Tensors&)> inputs;              ///< adjust the random inputs
  std::function<Expected(const Tensors&)> reference; ///< expected outputs
  double rtol = 1e-2, atol = 1e-3;                   ///< |got - ref| <= atol + rtol*|ref|
  std::map<std::string, int64_t> scalars;            ///< launch scalars
  std::map<std::string, double> reals;               ///< real launch scalars (`%eps: f16`)
  std::set<std::string> zeros; ///< inputs that start as zeros (huge ones: `inputs` fills them)
  /// Instead of `reference`: checks the outputs itself (outputs too large to expand).
  std::function<void(const Tensors& inputs, const Tensors& outputs)> verify;
  bool trace = false;                     ///< record the timeline (KtirRun::traceJson)
  std::vector<std::string> archOverrides; ///< --set values for compiler and simulator alike
};

/// What one run produced.
struct KtirRun {
  bool ok = false; ///< compiled and launched
  Tensors inputs, outputs;
  double cycles = 0;
  Stats stats;
  std::string traceJson;
};

/// Runs `command` through the shell; returns its output (stdout and stderr) and sets
/// `status` to its exit status.
std::string shell(const std::string& command, int& status);

/// A fresh directory for the current test: BUILD/test-tmp/<test name>.
std::filesystem::path testWorkDir();

/// Compiles `dir`/`c.file` into `work`/job (stage dumps in `work`/dump); false (and a test
/// failure with the compiler's messages) when it does not compile.
bool compileKtir(const std::filesystem::path& dir, const KtirCase& c,
                 const std::filesystem::path& work);

/// Launches the job compiled into `work`/job with inputs made as runKtirCase makes them,
/// and checks the outputs.
KtirRun launchKtir(const KtirCase& c, const std::filesystem::path& work);

/// Fails the test unless the Chrome trace shows work (duration events) on each of the
/// first `cores` cores.
void expectEveryCoreBusy(const std::string& traceJson, int cores);

/// Compiles `dir`/`c.file` into `work`/job (stage dumps in `work`/dump), makes inputs
/// (random from fixed seeds, shaped from the plan's arguments and `c.scalars`), launches
/// the job and compares every expected output; failures are reported through gtest.
KtirRun runKtirCase(const std::filesystem::path& dir, const KtirCase& c,
                    const std::filesystem::path& work);

/// Fails the test unless every element of `got` is within atol + rtol*|ref| of `ref`.
void expectClose(const std::string& what, const std::vector<float>& got,
                 const std::vector<float>& ref, double rtol, double atol);

/// Lower bounds of a run's cycles, each from one resource of the architecture.
struct Bounds {
  double dram = 0; ///< DRAM bytes moved / DRAM bytes per cycle
  double pt = 0;   ///< FLOPs on the PT arrays / the chip's fp16 peak
  double ring = 0; ///< bytes the busiest ring link must carry / link bytes per cycle
  double max() const;
  /// Which resource gives max(): "dram", "pt" or "ring".
  std::string limit() const;
};

/// The bounds of `run`: its DRAM bytes from the stats, `flops` and `ringBytesPerLink`
/// from the kernel's algorithm.
Bounds boundsOf(const KtirRun& run, const SpyreArch& arch, double flops, double ringBytesPerLink);

/// Fails the test if the run beats any bound, and prints a table row for docs/ktir.md:
/// "KTIR-KERNEL name cycles, each bound, the largest and which it is, cycles / largest".
void expectWithinBounds(const std::string& name, const KtirRun& run, const Bounds& b);

} // namespace chipless::test

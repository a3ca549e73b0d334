//===- Frontend.h - the Spyre front end: tensor graphs to SpyreCode -*- C++ -*-===//
//
// Part of chipless. The Inductor side of torch-spyre: a tensor graph (docs/graph-ir.md, the
// form tpu-compile takes, with f16) is grouped into kernels (element-wise chains,
// normalisations and matmul epilogues fused), each kernel's work is divided over the cores
// by a cost model read off the architecture file, and each becomes one KTIR kernel with a
// grid and per-core access tiles. The KTIR compiler (dataflow/Scheduler) compiles every
// kernel, and the kernels are linked into one SpyreCode job that runs them in order, the
// intermediates kept in device memory. docs/frontend.md says how to read the dump.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_FRONTEND_H
#define FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <functional>
#include <map>
#include <string>

namespace chipless::frontend {

/// What the front end is asked to do besides compiling.
struct FrontendOptions {
  /// Receives every file of --dump-dir: each kernel's KTIR (`k1_matmul.mlir`), the division
  /// candidates with their estimated cycles (`divisions.txt`), and the kernels' own stages.
  std::function<void(const std::string& name, const std::string& text)> dump;
  /// Divisions chosen by hand instead of by the cost model: kernel name (`k1_matmul`) ->
  /// the candidate's number in divisions.txt (spyre-compile --division k1_matmul=3). For
  /// checking the cost model against the simulator.
  std::map<std::string, size_t> divisions;
  /// With `dump`: also every candidate division's KTIR (`candidates/k1_matmul/3.mlir`,
  /// numbered as in divisions.txt; spyre-compile --dump-candidates).
  bool dumpCandidates = false;
  /// Keep a tensor that one kernel writes and the next reads in the cores' scratchpads
  /// when both kernels' divisions allow it (docs/frontend.md); false: every intermediate
  /// goes through device memory (spyre-compile --keep-in-scratchpad=false).
  bool keepInScratchpad = true;
  /// Receives the time each stage takes (spyre-compile --timing).
  std::function<void(const std::string& stage, double seconds)> timing;
  /// Receives the KTIR of the kernel the KTIR compiler refused (`k2_restickify`, its text),
  /// so that it can be kept and compiled alone to reproduce the error.
  std::function<void(const std::string& kernel, const std::string& ktir)> failedKernel;
};

/// Whether `module` is a tensor graph (no ktdp or spyreop op, and a function with tensor
/// arguments or results) rather than a KTIR kernel. spyre-compile tells them apart this way.
bool isTensorGraph(mlir::ModuleOp module);

/// Compiles the tensor graph `graph` for `arch` into one SpyreCode job. Errors are emitted
/// at the graph op they concern (`file:line:col`: what is not supported and why).
mlir::FailureOr<spyrecode::Job> compileGraph(mlir::ModuleOp graph, const SpyreArch& arch,
                                             const FrontendOptions& options);

} // namespace chipless::frontend

#endif // FRONTEND_FRONTEND_H

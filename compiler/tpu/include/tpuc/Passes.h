//===- Passes.h - the passes of the TPU compiler ----------------*- C++ -*-===//
//
// Part of chipless. A tensor graph (docs/graph-ir.md) becomes a TPU program through these
// passes, in this order (docs/tpu-compiler.md):
//
//   tpu-target        record the architecture (file and --set overrides) on the module
//   tpu-verify-graph  check the graph form; a located error for anything unsupported
//   tpu-decompose     linalg.softmax, named element-wise ops, linalg.broadcast and
//                     linalg.reduce to linalg.generic
//   tpu-form-kernels  group ops into tpu.kernel ops (matmul + fused VPU epilogues)
//   tpu-alloc-hbm     where each kernel result lives in HBM (output arguments, scratch)
//   tpu-tile-mxu      tile each matmul onto the MXUs
//   tpu-alloc-vmem    rows per unit of work, RHS resident or streamed, the VMEM layout
//   tpu-split-cores   share each kernel's units out over the TensorCores
//
// and then emitProgram writes TPU assembly (and a program directory).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_PASSES_H
#define TPUC_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "support/tpu_arch.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
}

namespace chipless::tpuc {

/// The dialects a graph and the compiler's IR use (func, linalg, tensor, arith, math, tpu).
void registerTpuDialects(mlir::DialectRegistry& registry);
/// Registers every pass below for tpu-opt (by its argument name).
void registerTpuPasses();

std::unique_ptr<mlir::Pass> createTargetPass(const std::string& arch = "",
                                             const std::vector<std::string>& sets = {});
std::unique_ptr<mlir::Pass> createVerifyGraphPass();
std::unique_ptr<mlir::Pass> createDecomposePass();
std::unique_ptr<mlir::Pass> createFormKernelsPass();
std::unique_ptr<mlir::Pass> createAllocHbmPass();
std::unique_ptr<mlir::Pass> createTileMxuPass();
std::unique_ptr<mlir::Pass> createAllocVmemPass();
std::unique_ptr<mlir::Pass> createSplitCoresPass();

/// The architecture recorded on `module` by tpu-target (models/hw/tpu-v5e.yaml when none);
/// emits an error at the module and fails when the description cannot be loaded.
mlir::FailureOr<TpuArch> targetArch(mlir::ModuleOp module);

/// The passes in order, with their names (for --dump-dir and the docs).
std::vector<std::pair<std::string, std::unique_ptr<mlir::Pass>>>
tpuPipeline(const std::string& arch, const std::vector<std::string>& sets);

/// TPU assembly of a module that went through the whole pipeline. Errors are emitted at the
/// op they concern.
mlir::FailureOr<std::string> emitTpuAssembly(mlir::ModuleOp module);

} // namespace chipless::tpuc

#endif // TPUC_PASSES_H

//===- Pipeline.cpp - registration and the pass pipeline ------------------===//
//
// Part of chipless. See tpuc/Passes.h.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "tpuc/Passes.h"

using namespace mlir;

namespace chipless::tpuc {

void registerTpuDialects(DialectRegistry& registry) {
  registry.insert<func::FuncDialect, linalg::LinalgDialect, tensor::TensorDialect,
                  arith::ArithDialect, math::MathDialect, TpuDialect>();
}

void registerTpuPasses() {
  registerPass([] { return createTargetPass(); });
  registerPass([] { return createVerifyGraphPass(); });
  registerPass([] { return createDecomposePass(); });
  registerPass([] { return createFormKernelsPass(); });
  registerPass([] { return createAllocHbmPass(); });
  registerPass([] { return createTileMxuPass(); });
  registerPass([] { return createAllocVmemPass(); });
  registerPass([] { return createSplitCoresPass(); });
}

std::vector<std::pair<std::string, std::unique_ptr<Pass>>>
tpuPipeline(const std::string& arch, const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::unique_ptr<Pass>>> p;
  p.emplace_back("tpu-target", createTargetPass(arch, sets));
  p.emplace_back("tpu-verify-graph", createVerifyGraphPass());
  p.emplace_back("tpu-decompose", createDecomposePass());
  p.emplace_back("tpu-form-kernels", createFormKernelsPass());
  p.emplace_back("tpu-alloc-hbm", createAllocHbmPass());
  p.emplace_back("tpu-tile-mxu", createTileMxuPass());
  p.emplace_back("tpu-alloc-vmem", createAllocVmemPass());
  p.emplace_back("tpu-split-cores", createSplitCoresPass());
  return p;
}

} // namespace chipless::tpuc

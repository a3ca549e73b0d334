//===- Model.cpp - MXU tiling, VMEM, cores, emission -----------------------===//
//
// Part of chipless. The passes tpu-tile-mxu, tpu-alloc-vmem and tpu-split-cores build each
// kernel's KernelSpec (ModelBuilder.h) and record their decisions as attributes of the
// kernel; emitTpuAssembly reads them back (the same way) and writes the program.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"
#include "mlir/IR/Builders.h"
#include "tpuc/Emit.h"
#include "tpuc/Passes.h"
#include "tpuc/Plan.h"

#include <algorithm>
#include <map>

using namespace mlir;

namespace chipless::tpuc {

namespace {

template <typename Derived>
struct KernelPass : PassWrapper<Derived, OperationPass<ModuleOp>> {
  void runOnOperation() override {
    ModuleOp m = this->getOperation();
    FailureOr<TpuArch> arch = targetArch(m);
    if (failed(arch)) return this->signalPassFailure();
    func::FuncOp f = graphFunction(m);
    if (!f) return this->signalPassFailure();
    for (KernelOp k : llvm::make_early_inc_range(f.getOps<KernelOp>()))
      if (failed(static_cast<Derived*>(this)->runOnKernel(k, *arch)))
        return this->signalPassFailure();
  }
};

// ---- tpu-tile-mxu ------------------------------------------------------------------------------

struct TileMxuPass : KernelPass<TileMxuPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileMxuPass)
  StringRef getArgument() const override { return "tpu-tile-mxu"; }
  StringRef getDescription() const override {
    return "Tile each matmul onto the MXUs: K in chunks of mxu.rows, N in tiles of mxu.cols, "
           "one tile per MXU in groups; weights (the RHS, transposed when it lies so) stationary";
  }
  LogicalResult runOnKernel(KernelOp k, const TpuArch& arch) {
    FailureOr<KernelSpec> s = buildSpec(k, arch, Stage::Tile);
    if (failed(s)) return failure();
    if (!s->matmul) return success();
    const MatmulSpec& mm = *s->matmul;
    Builder b(k.getContext());
    const int64_t kChunks = ceilDiv(mm.k, arch.mxu.rows), nTiles = ceilDiv(s->n, arch.mxu.cols);
    const int64_t mxus = std::min<int64_t>(arch.mxu.count, nTiles);
    const int64_t groups = ceilDiv(nTiles, mxus);
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    k->setAttr(kMxuAttr, b.getDictionaryAttr({
                             b.getNamedAttr("stationary", b.getStringAttr("rhs")),
                             b.getNamedAttr("transpose_rhs", b.getBoolAttr(mm.transposeRhs)),
                             b.getNamedAttr("dtype", b.getStringAttr(dtypeName(mm.dtype))),
                             b.getNamedAttr("k", i64(mm.k)),
                             b.getNamedAttr("n", i64(s->n)),
                             b.getNamedAttr("k_chunk", i64(arch.mxu.rows)),
                             b.getNamedAttr("n_tile", i64(arch.mxu.cols)),
                             b.getNamedAttr("k_chunks", i64(kChunks)),
                             b.getNamedAttr("n_tiles", i64(nTiles)),
                             b.getNamedAttr("mxus", i64(mxus)),
                             b.getNamedAttr("groups", i64(groups)),
                             b.getNamedAttr("folds_per_row_block", i64(kChunks * nTiles)),
                             b.getNamedAttr("padded_k", i64(kChunks * arch.mxu.rows)),
                             b.getNamedAttr("padded_n", i64(nTiles * arch.mxu.cols)),
                         }));
    return success();
  }
};

// ---- tpu-alloc-vmem ----------------------------------------------------------------------------

struct AllocVmemPass : KernelPass<AllocVmemPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AllocVmemPass)
  StringRef getArgument() const override { return "tpu-alloc-vmem"; }
  StringRef getDescription() const override {
    return "Choose rows per unit of work and whether the RHS stays resident or streams in "
           "double-buffered panels, and lay out each kernel's VMEM within vmem.bytes";
  }
  LogicalResult runOnKernel(KernelOp k, const TpuArch& arch) {
    std::map<std::string, Operation*> places;
    FailureOr<KernelSpec> s = buildSpec(k, arch, Stage::Vmem, &places);
    if (failed(s)) return failure();
    MemoryPlan p;
    try {
      p = planMemory(*s, arch, arch.chip.tensorcores);
    } catch (const CompileError& e) {
      return k.emitError(e.what()), failure();
    }
    s->memory = p;
    Builder b(k.getContext());
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto pairs = [&](const std::vector<int64_t>& off, const std::vector<int64_t>& rb) {
      SmallVector<Attribute> a;
      for (size_t i = 0; i < off.size(); ++i) a.push_back(b.getDenseI64ArrayAttr({off[i], rb[i]}));
      return b.getArrayAttr(a);
    };
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("rows_per_unit", i64(p.rowsPerUnit)),
        b.getNamedAttr("units", i64(s->units())),
        b.getNamedAttr("buffer_rows", i64(p.bufferRows)),
        b.getNamedAttr("half_bytes", i64(p.halfBytes)),
        b.getNamedAttr("inputs", pairs(p.inputOffsets, p.inputRowBytes)),
        b.getNamedAttr("outputs", pairs(p.outputOffsets, p.outputRowBytes)),
        b.getNamedAttr("total_bytes", i64(p.totalBytes)),
        b.getNamedAttr("estimated_cycles", i64(static_cast<int64_t>(estimateCycles(
                                               *s, p, arch, arch.chip.tensorcores)))),
    };
    if (s->matmul) {
      attrs.push_back(b.getNamedAttr("lhs", b.getDenseI64ArrayAttr({p.lhsOffset, p.lhsRowBytes})));
      attrs.push_back(b.getNamedAttr("acc", b.getDenseI64ArrayAttr({p.accOffset, p.accRowBytes})));
      attrs.push_back(
          b.getNamedAttr("rhs", b.getStringAttr(p.rhsResident ? "resident" : "streamed")));
      attrs.push_back(b.getNamedAttr("panel_chunks", i64(p.panelChunks)));
      attrs.push_back(b.getNamedAttr("panel_slots", i64(p.panelSlots)));
      attrs.push_back(b.getNamedAttr("panel_offset", i64(p.panelOffset)));
      attrs.push_back(b.getNamedAttr("panel_bytes", i64(p.panelBytes)));
      attrs.push_back(b.getNamedAttr("panel_row_bytes", i64(p.panelRowBytes)));
    }
    k->setAttr(kVmemAttr, b.getDictionaryAttr(attrs));
    return success();
  }
};

// ---- tpu-split-cores ---------------------------------------------------------------------------

struct SplitCoresPass : KernelPass<SplitCoresPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitCoresPass)
  StringRef getArgument() const override { return "tpu-split-cores"; }
  StringRef getDescription() const override {
    return "Share each kernel's units (blocks of rows of one batch index) out over the "
           "chip's TensorCores in contiguous, balanced ranges";
  }
  LogicalResult runOnKernel(KernelOp k, const TpuArch& arch) {
    FailureOr<KernelSpec> s = buildSpec(k, arch, Stage::Cores);
    if (failed(s)) return failure();
    Builder b(k.getContext());
    SmallVector<Attribute> ranges;
    for (auto [first, end] : splitUnits(s->units(), arch.chip.tensorcores))
      ranges.push_back(b.getDenseI64ArrayAttr({first, end}));
    k->setAttr(kCoresAttr, b.getArrayAttr(ranges));
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> createTileMxuPass() {
  return std::make_unique<TileMxuPass>();
}
std::unique_ptr<Pass> createAllocVmemPass() {
  return std::make_unique<AllocVmemPass>();
}
std::unique_ptr<Pass> createSplitCoresPass() {
  return std::make_unique<SplitCoresPass>();
}

FailureOr<std::string> emitTpuAssembly(ModuleOp module) {
  FailureOr<TpuArch> arch = targetArch(module);
  if (failed(arch)) return failure();
  func::FuncOp f = graphFunction(module);
  if (!f) return module.emitError("expected one func.func"), failure();
  ProgramSpec prog;
  prog.name = f.getSymName().str();
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto t = cast<RankedTensorType>(f.getArgument(i).getType());
    prog.args.push_back({argumentName(f, i), false, *dtypeOf(t.getElementType()),
                         std::vector<int64_t>(t.getShape().begin(), t.getShape().end())});
  }
  for (unsigned i = 0; i < f.getNumResults(); ++i) {
    auto t = cast<RankedTensorType>(f.getResultTypes()[i]);
    prog.args.push_back({resultName(f, i), true, *dtypeOf(t.getElementType()),
                         std::vector<int64_t>(t.getShape().begin(), t.getShape().end())});
  }
  if (auto s = f->getAttrOfType<IntegerAttr>(kScratchAttr)) prog.scratchBytes = s.getInt();
  std::map<std::string, Operation*> places;
  std::map<std::string, Operation*> kernelAt;
  for (KernelOp k : f.getOps<KernelOp>()) {
    FailureOr<KernelSpec> s = buildSpec(k, *arch, Stage::Emit, &places);
    if (failed(s)) return failure();
    kernelAt[s->where] = k;
    prog.kernels.push_back(std::move(*s));
  }
  try {
    return emitProgram(prog, *arch);
  } catch (const CompileError& e) {
    Operation* at = f;
    if (auto it = places.find(e.where); it != places.end()) at = it->second;
    return at->emitError(e.what()), failure();
  }
}

} // namespace chipless::tpuc

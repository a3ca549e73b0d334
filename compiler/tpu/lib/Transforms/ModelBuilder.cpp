//===- ModelBuilder.cpp - a tpu.kernel's operands, results, decisions -----===//
//
// Part of chipless. See ModelBuilder.h: the kernel's iteration space, the matmul's operands
// and the vector program's inputs and outputs as HBM accesses, and the decisions of the
// passes read back from the kernel's attributes.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"

#include "tpuc/Plan.h"

using namespace mlir;

namespace chipless::tpuc {

using tpuprog::Opcode;

FailureOr<KernelSpec> ModelBuilder::build() {
  spec_.name = kernel_.getName().str();
  Operation* root = nullptr;
  for (Operation& op : kernel_.getBody().front())
    if (isComputeOp(&op)) {
      root = &op;
      break;
    }
  if (!root) return kernel_.emitError("kernel has no compute op"), failure();
  spec_.where = where(root);
  auto g = dyn_cast<linalg::GenericOp>(root);
  if (g && !isMatmul(root)) {
    SmallVector<int64_t> loops = g.getStaticLoopRanges();
    space_.assign(loops.begin(), loops.end());
  } else {
    auto shape = cast<ShapedType>(root->getResult(0).getType()).getShape();
    space_.assign(shape.begin(), shape.end());
  }
  const size_t r = space_.size();
  if (r == 1) {
    spec_.m = 1;
    spec_.n = space_[0];
  } else {
    spec_.batch.assign(space_.begin(), space_.end() - 2);
    spec_.m = space_[r - 2];
    spec_.n = space_[r - 1];
  }
  for (Operation& op : kernel_.getBody().front()) {
    if (isInitOp(&op)) continue;
    if (isMatmul(&op)) {
      if (failed(matmul(op))) return failure();
    } else if (auto gt = dyn_cast<tensor::GatherOp>(op)) {
      if (failed(gather(gt))) return failure();
    } else if (auto g = dyn_cast<linalg::GenericOp>(op)) {
      if (failed(generic(g))) return failure();
    } else if (auto y = dyn_cast<YieldOp>(op)) {
      if (failed(outputs(y))) return failure();
    } else {
      return op.emitError("unexpected op in a kernel"), failure();
    }
  }
  if (stage_ != Stage::Tile && spec_.matmul && failed(readTiling())) return failure();
  if ((stage_ == Stage::Cores || stage_ == Stage::Emit) && failed(readMemory())) return failure();
  if (stage_ == Stage::Emit && failed(readCores())) return failure();
  return spec_;
}

std::string ModelBuilder::where(Operation* op) {
  std::string w = locString(op->getLoc());
  if (places_ && !w.empty() && !places_->count(w)) (*places_)[w] = op;
  return w;
}

int ModelBuilder::add(VOp o) {
  spec_.ops.push_back(std::move(o));
  return static_cast<int>(spec_.ops.size() - 1);
}

int ModelBuilder::constant(double v, bool isInt) {
  VOp o;
  o.kind = VKind::Const;
  o.value = v;
  o.isInt = isInt;
  return add(o);
}

bool ModelBuilder::isColumn(int id) const {
  return id >= 0 && spec_.ops[static_cast<size_t>(id)].column &&
         spec_.ops[static_cast<size_t>(id)].kind != VKind::Const;
}

int ModelBuilder::node(VKind kind, Opcode opc, int a, int b, int c, bool isInt, Operation* at) {
  VOp o;
  o.kind = kind;
  o.op = opc;
  o.a = a;
  o.b = b;
  o.c = c;
  o.isInt = isInt;
  o.where = at ? where(at) : "";
  bool anyFull = false, anyCol = false;
  for (int x : {a, b, c}) {
    if (x < 0 || isConst(x)) continue;
    (isColumn(x) ? anyCol : anyFull) = true;
  }
  o.column = columnPlace_ || (anyCol && !anyFull);
  return add(o);
}

FailureOr<HbmAccess> ModelBuilder::access(const View& v, ArrayRef<int64_t> dims, int64_t n,
                                          bool write, Operation* at, const std::string& what) {
  HbmAccess a;
  const int64_t es = v.esize(), align = arch_.dma.alignment_bytes;
  a.symbol = v.symbol;
  a.dtype = v.dtype;
  a.offset = v.offset * es;
  const size_t r = dims.size();
  const int64_t nStride = dims[r - 1];
  if (nStride != 1 && n > 1)
    return at->emitError() << what << " is not contiguous along its innermost dimension in HBM",
           failure();
  if (r >= 2) {
    for (size_t i = 0; i + 2 < r; ++i) a.batchStrides.push_back(dims[i] * es);
    a.rowStride = dims[r - 2] * es;
  }
  a.runBytes = roundUp(n * es, align);
  // A result of one row per batch: its stride never moves a DMA (a [1, M] view of [M]).
  if ((a.rowStride == 0 && (r < 2 || spec_.m == 1)) || (write && spec_.m == 1))
    a.rowStride = a.runBytes;
  if (a.runBytes > v.contiguous * es)
    return at->emitError() << what << ": a DMA moves rows of " << a.runBytes << " bytes, but only "
                           << v.contiguous * es << " are contiguous in HBM (rows of " << n << " "
                           << dtypeName(v.dtype) << " elements must be a multiple of " << align
                           << " bytes unless the tensor's padding follows them)",
           failure();
  if (write && a.runBytes != n * es && !v.padTail)
    return at->emitError() << what << ": rows of " << n * es << " bytes would be written as "
                           << a.runBytes << "-byte DMA runs (dma.alignment_bytes) and overwrite "
                           << "the elements after them",
           failure();
  if (failed(checkAligned(a, true, at, what))) return failure();
  return a;
}

LogicalResult ModelBuilder::checkAligned(const HbmAccess& a, bool rows, Operation* at,
                                         const std::string& what) const {
  const int64_t align = arch_.dma.alignment_bytes;
  bool aligned = a.offset % align == 0 && (!rows || a.rowStride % align == 0);
  for (int64_t s : a.batchStrides) aligned &= s % align == 0;
  if (!aligned)
    return at->emitError() << what << ": its HBM offset (" << a.offset << ") and strides must be "
                           << "multiples of " << align << " bytes (dma.alignment_bytes)";
  return success();
}

FailureOr<View> ModelBuilder::view(Value v, Operation* at, const std::string& what) {
  std::string why;
  FailureOr<View> r = viewOf(v, arch_.vpu.lanes, why);
  if (failed(r)) return at->emitError() << what << ": " << why, failure();
  return r;
}

LogicalResult ModelBuilder::matmul(Operation& op) {
  auto lin = cast<linalg::LinalgOp>(op);
  // Batch dimensions: none (linalg.matmul), one (linalg.batch_matmul), any (a contraction).
  const size_t nb = spec_.batch.size();
  Value lhs = lin.getDpsInputs()[0], rhs = lin.getDpsInputs()[1], init = lin.getDpsInits()[0];
  auto lt = cast<RankedTensorType>(lhs.getType());
  MatmulSpec mm;
  mm.dtype = *dtypeOf(lt.getElementType());
  mm.k = lt.getShape().back();
  // LHS [batch..., M, K], K contiguous: one part, or the parts of a concatenation along K
  // (isLhsConcat) side by side.
  SmallVector<Value> parts{lhs};
  if (auto c = lhs.getDefiningOp<tensor::ConcatOp>(); c && isLhsConcat(c))
    parts.assign(c.getInputs().begin(), c.getInputs().end());
  for (auto [i, part] : llvm::enumerate(parts)) {
    const std::string what = parts.size() == 1 ? std::string("the matmul's LHS")
                                               : "part " + std::to_string(i) +
                                                     " of the matmul's LHS (a concatenation "
                                                     "along K read in place)";
    FailureOr<View> lv = view(part, &op, what);
    if (failed(lv)) return failure();
    const int64_t k = lv->shape.back();
    if (lv->strides.back() != 1 && k > 1)
      return op.emitError() << what << " is transposed in HBM (its K dimension is not "
                            << "contiguous): only the RHS may be read transposed",
             failure();
    // A contraction's LHS may be one matrix for every batch index (rank 2).
    SmallVector<int64_t> ldims(lv->strides.begin(), lv->strides.end() - 2);
    ldims.resize(nb, 0);
    // One row (M = 1): its stride never moves a DMA.
    ldims.push_back(spec_.m == 1 ? 0 : lv->strides[lv->strides.size() - 2]);
    ldims.push_back(1);
    FailureOr<HbmAccess> la = access(*lv, ldims, k, false, &op, what);
    if (failed(la)) return failure();
    if (i + 1 < parts.size() && la->runBytes != k * lv->esize())
      return op.emitError() << what << ": rows of " << k * lv->esize() << " bytes are not a "
                            << "whole number of " << arch_.dma.alignment_bytes
                            << "-byte DMA runs (dma.alignment_bytes); only the last part's "
                               "may be",
             failure();
    mm.lhs.push_back(*la);
  }
  FailureOr<View> rv = view(rhs, &op, "the matmul's RHS");
  if (failed(rv)) return failure();
  // RHS [batch?, K, N]: N contiguous, or K contiguous (read transposed).
  const size_t rr = rv->strides.size();
  const int64_t sK = rv->strides[rr - 2], sN = rv->strides[rr - 1];
  // The RHS of a contraction may be one matrix for every batch index (rank 2).
  SmallVector<int64_t> rdims(rv->strides.begin(), rv->strides.end() - 2);
  int64_t runLen;
  // One column (N = 1) is read as one row of K when K is contiguous (a transposed view of a
  // row, [.., 1, K] seen as [.., K, 1]): as rows of one element it would be runs of an element.
  const bool rowOfK = sK == 1 && mm.k > 1;
  if (sN == 1 || (spec_.n == 1 && !rowOfK)) {
    rdims.push_back(mm.k == 1 ? 0 : sK); // one row of K: its stride never moves a DMA
    runLen = spec_.n;
  } else if (sK == 1 || mm.k == 1) {
    mm.transposeRhs = true;
    rdims.push_back(sN);
    runLen = mm.k;
  } else {
    return op.emitError("the matmul's RHS is contiguous in neither K nor N in HBM"), failure();
  }
  rdims.push_back(1);
  FailureOr<HbmAccess> ra = access(*rv, rdims, runLen, false, &op, "the matmul's RHS");
  if (failed(ra)) return failure();
  mm.rhs = *ra;
  mm.rhs.batchStrides.resize(nb, 0);
  spec_.matmul = mm;
  int acc = node(VKind::Acc, Opcode::Nop, -1, -1, -1, mm.dtype == DType::I8, &op);
  spec_.ops[static_cast<size_t>(acc)].column = false;
  // The init: zero, a constant, or a tensor added to the products.
  if (std::optional<double> c = constantValue(init)) {
    if (*c != 0)
      acc = node(VKind::Binary, Opcode::VAdd, acc, constant(*c, mm.dtype == DType::I8), -1,
                 mm.dtype == DType::I8, &op);
  } else {
    SmallVector<int64_t> dims;
    FailureOr<View> iv = view(init, &op, "the matmul's accumulator input");
    if (failed(iv)) return failure();
    FailureOr<int> ld =
        load(init, *iv, SmallVector<int64_t>(iv->strides), &op, "the matmul's accumulator input");
    if (failed(ld)) return failure();
    acc = node(VKind::Binary, Opcode::VAdd, acc, *ld, -1, mm.dtype == DType::I8, &op);
  }
  tensor_[op.getResult(0)] = acc;
  return success();
}

LogicalResult ModelBuilder::gather(tensor::GatherOp g) {
  FailureOr<View> tv = view(g.getSource(), g, "the gather's table");
  if (failed(tv)) return failure();
  FailureOr<View> iv = view(g.getIndices(), g, "the gather's indices");
  if (failed(iv)) return failure();
  // The table's rows, read whole: [V, D] with D contiguous, one DMA per gathered row.
  FailureOr<HbmAccess> table =
      access(*tv, {tv->strides[0], tv->strides[1]}, spec_.n, false, g, "the gather's table");
  if (failed(table)) return failure();
  // The indices [K, 1]: packed (a view of a vector [K]) or one per row of its padded layout.
  HbmAccess idx;
  idx.symbol = iv->symbol;
  idx.dtype = iv->dtype;
  idx.offset = iv->offset * iv->esize();
  idx.rowStride = iv->strides[0] * iv->esize();
  idx.runBytes = arch_.dma.alignment_bytes;
  if (failed(checkAligned(idx, idx.rowStride != iv->esize(), g, "the gather's indices")))
    return failure();
  VInput in;
  in.access = *table;
  in.rowIndices = idx;
  in.tableRows = tv->shape[0];
  tensor_[g.getResult()] = addLoad(in, g);
  return success();
}

FailureOr<int> ModelBuilder::load(Value x, const View& v, SmallVector<int64_t> dims, Operation* at,
                                  const std::string& what) {
  // One row (M = 1): its stride never moves a DMA (a [1, M] view of a vector [M]).
  if (spec_.m == 1 && dims.size() >= 2) dims[dims.size() - 2] = 0;
  FailureOr<HbmAccess> a = access(v, dims, spec_.n, false, at, what);
  if (failed(a)) return failure();
  VInput in;
  in.access = *a;
  in.rowVector = dims.size() >= 2 && dims[dims.size() - 2] == 0 && spec_.m > 1;
  if (in.rowVector) in.access.rowStride = in.access.runBytes;
  (void)x;
  return addLoad(in, at);
}

int ModelBuilder::addLoad(const VInput& in, Operation* at) {
  int index = -1;
  for (size_t i = 0; i < spec_.inputs.size() && !in.rowIndices; ++i) {
    const VInput& o = spec_.inputs[i];
    if (!o.rowIndices && o.columnVector == in.columnVector && o.rowVector == in.rowVector &&
        o.access.symbol == in.access.symbol && o.access.offset == in.access.offset &&
        o.access.rowStride == in.access.rowStride &&
        o.access.batchStrides == in.access.batchStrides && o.access.dtype == in.access.dtype)
      index = static_cast<int>(i);
  }
  if (index < 0) {
    spec_.inputs.push_back(in);
    index = static_cast<int>(spec_.inputs.size() - 1);
  }
  VOp o;
  o.kind = VKind::Load;
  o.input = index;
  o.column = in.columnVector;
  o.isInt = in.access.dtype == DType::I8 || in.access.dtype == DType::I32;
  o.where = where(at);
  return add(o);
}

FailureOr<int> ModelBuilder::loadColumn(const View& v, ArrayRef<int64_t> dims, Operation* at,
                                        const std::string& what) {
  const int64_t es = v.esize(), align = arch_.dma.alignment_bytes;
  const size_t r = dims.size();
  if (v.dtype != DType::F32 && v.dtype != DType::BF16)
    return at->emitError() << what << ": a per-row vector read along the rows must be bf16 or "
                           << "f32 (got " << dtypeName(v.dtype) << ")",
           failure();
  VInput in;
  in.columnVector = true;
  HbmAccess& a = in.access;
  a.symbol = v.symbol;
  a.dtype = v.dtype;
  a.offset = v.offset * es;
  for (size_t i = 0; i + 2 < r; ++i) a.batchStrides.push_back(dims[i] * es);
  a.rowStride = dims[r - 2] * es;
  a.runBytes = align;
  // Whole chunks are read: a packed vector's last unit may reach into the row's padding, a
  // column's chunk of each row into that row's; never past them.
  const int64_t read = dims[r - 2] == 1 ? roundUp(spec_.m * es, align) : align;
  if (read > v.contiguous * es)
    return at->emitError() << what << ": a per-row vector is read in " << align
                           << "-byte chunks, but only " << v.contiguous * es
                           << " bytes are contiguous in HBM",
           failure();
  // A packed vector's rows are one element apart: only its start and batches are aligned.
  if (failed(checkAligned(a, dims[r - 2] != 1, at, what))) return failure();
  return addLoad(in, at);
}

LogicalResult ModelBuilder::outputs(YieldOp y) {
  for (auto [i, v] : llvm::enumerate(y.getValues())) {
    auto it = tensor_.find(v);
    if (it == tensor_.end())
      return y.emitError("yields a value the kernel does not compute"), failure();
    if (stage_ == Stage::Tile) continue;
    const std::string what = "result " + std::to_string(i);
    FailureOr<View> vw = view(kernel_.getResult(static_cast<unsigned>(i)), v.getDefiningOp(), what);
    if (failed(vw)) return failure();
    FailureOr<HbmAccess> a =
        access(*vw, SmallVector<int64_t>(vw->strides), spec_.n, true, v.getDefiningOp(), what);
    if (failed(a)) return failure();
    int id = it->second;
    if (isColumn(id))
      return v.getDefiningOp()->emitError("a per-row value as a kernel result"), failure();
    spec_.outputs.push_back({id, *a});
  }
  return success();
}

LogicalResult ModelBuilder::readTiling() {
  auto d = kernel_->getAttrOfType<DictionaryAttr>(kMxuAttr);
  if (!d) return kernel_.emitError("no MXU tiling (run tpu-tile-mxu)"), failure();
  MatmulSpec& mm = *spec_.matmul;
  auto get = [&](const char* k) { return d.getAs<IntegerAttr>(k).getInt(); };
  mm.kChunk = get("k_chunk");
  mm.nTile = get("n_tile");
  mm.kChunks = get("k_chunks");
  mm.nTiles = get("n_tiles");
  mm.mxus = get("mxus");
  mm.groups = get("groups");
  return success();
}

LogicalResult ModelBuilder::readMemory() {
  auto d = kernel_->getAttrOfType<DictionaryAttr>(kVmemAttr);
  if (!d) return kernel_.emitError("no VMEM plan (run tpu-alloc-vmem)"), failure();
  MemoryPlan& p = spec_.memory;
  auto get = [&](const char* k) { return d.getAs<IntegerAttr>(k).getInt(); };
  auto pairs = [&](const char* k, std::vector<int64_t>& off, std::vector<int64_t>& rb) {
    for (Attribute a : d.getAs<ArrayAttr>(k)) {
      auto arr = cast<DenseI64ArrayAttr>(a).asArrayRef();
      off.push_back(arr[0]);
      rb.push_back(arr[1]);
    }
  };
  p.rowsPerUnit = get("rows_per_unit");
  p.bufferRows = get("buffer_rows");
  p.halfBytes = get("half_bytes");
  p.totalBytes = get("total_bytes");
  pairs("inputs", p.inputOffsets, p.inputRowBytes);
  pairs("outputs", p.outputOffsets, p.outputRowBytes);
  if (spec_.matmul) {
    auto lhs = d.getAs<DenseI64ArrayAttr>("lhs").asArrayRef();
    auto acc = d.getAs<DenseI64ArrayAttr>("acc").asArrayRef();
    p.lhsOffset = lhs[0];
    p.lhsRowBytes = lhs[1];
    p.accOffset = acc[0];
    p.accRowBytes = acc[1];
    p.rhsResident = d.getAs<StringAttr>("rhs").getValue() == "resident";
    p.panelChunks = get("panel_chunks");
    p.panelSlots = get("panel_slots");
    p.panelOffset = get("panel_offset");
    p.panelBytes = get("panel_bytes");
    p.panelRowBytes = get("panel_row_bytes");
  }
  return success();
}

LogicalResult ModelBuilder::readCores() {
  auto a = kernel_->getAttrOfType<ArrayAttr>(kCoresAttr);
  if (!a) return kernel_.emitError("no TensorCore split (run tpu-split-cores)"), failure();
  for (Attribute x : a) {
    auto r = cast<DenseI64ArrayAttr>(x).asArrayRef();
    spec_.cores.push_back({r[0], r[1]});
  }
  if (static_cast<int>(spec_.cores.size()) != arch_.chip.tensorcores)
    return kernel_.emitError() << "split over " << spec_.cores.size()
                               << " TensorCores, but chip.tensorcores is "
                               << arch_.chip.tensorcores,
           failure();
  return success();
}

FailureOr<KernelSpec> buildSpec(KernelOp k, const TpuArch& arch, Stage stage,
                                std::map<std::string, Operation*>* places) {
  return ModelBuilder(k, arch, stage, places).build();
}

} // namespace chipless::tpuc

//===- KernelBuilder.cpp - one kernel of the graph as KTIR ----------------===//
//
// Part of chipless. See KernelBuilder.h. The scaffolding (views, tiles, loads, loops,
// stores) is written as KTIR text and parsed; the kernel's ops are then rebuilt on the
// block's tensors between the loads and the stores (KernelOps.cpp), where placeholders
// stand for their results until they exist.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "KernelWriter.h"

namespace chipless::frontend {

LogicalResult KernelWriter::writeText() {
  if (k_.kind == KernelGroup::Kind::Relayout) return writeRelayoutText();
  if (k_.kind == KernelGroup::Kind::Gather) return writeGatherText();
  if (k_.kind == KernelGroup::Kind::Fill) return writeFillText();
  if (k_.kind == KernelGroup::Kind::Window) return writeWindowText();
  // Arguments: every tensor the kernel reads or writes, by its memory.
  for (const auto* list : {&k_.inputs, &k_.outputs})
    for (const Operand& o : *list)
      if (!residentBlock(o.value)) argument(o.value);
  if (splitK())
    text_ << "#kgroups = affine_set<(g) : (g >= 0, -g + " << d_.tiles() / d_.gridDepth - 1
          << " >= 0)>\n";
  text_ << "module {\n  func.func @" << k_.name << "(";
  for (size_t i = 0; i < args_.size(); ++i)
    text_ << (i ? ", " : "") << "%" << args_[i] << "_ptr: index";
  const bool batched = d_.gridBatch > 1;
  text_ << ") attributes {grid = [";
  if (splitK()) {
    text_ << d_.tiles(); // flattened: tile = (block * gridDepth + k)
  } else {
    if (batched) text_ << d_.gridBatch << ", ";
    text_ << d_.gridRows;
    if (matmul()) text_ << ", " << d_.gridCols;
  }
  text_ << "]} {\n";
  text_ << "    %kc0 = arith.constant 0 : index\n";
  // Every tensor's global memory view, as it lies (Layout.h).
  for (const auto* list : {&k_.inputs, &k_.outputs})
    for (const Operand& o : *list) {
      if (residentBlock(o.value)) continue;
      std::optional<TensorView> tv = accessView(o.value, o.form);
      if (!tv)
        return fail("internal error: the Spyre front end cannot read or write a tensor that "
                    "lies as " +
                    plan_.views.lookup(o.value).describe());
      memView(*tv, elem(o.value));
    }

  bool loop = false;
  // A batch: tile (b, ...) works on matrix b, whose rows follow the rows of matrix b - 1.
  const int64_t matrixRows = k_.rows / k_.batch;
  if (splitK()) {
    // Tile t multiplies span t mod gridDepth of K for output block t / gridDepth.
    text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
          << "    %kgk = arith.constant " << d_.gridDepth << " : index\n"
          << "    %kgn = arith.constant " << d_.gridCols << " : index\n"
          << "    %kki = arith.remui %kpid, %kgk : index\n"
          << "    %kblock = arith.divui %kpid, %kgk : index\n"
          << "    %ktj = arith.remui %kblock, %kgn : index\n"
          << "    %kti = arith.divui %kblock, %kgn : index\n"
          << "    %kbm = arith.constant " << d_.blockRows << " : index\n"
          << "    %kbn = arith.constant " << d_.blockCols << " : index\n"
          << "    %km0 = arith.muli %kti, %kbm : index\n"
          << "    %kn0 = arith.muli %ktj, %kbn : index\n"
          << "    %kspan = arith.constant " << k_.depth / d_.gridDepth << " : index\n"
          << "    %kk0 = arith.muli %kki, %kspan : index\n"
          << "    %kslice = arith.constant " << epilogueRows() << " : index\n"
          << "    %kmsl = arith.muli %kki, %kslice : index\n"
          << "    %kms = arith.addi %km0, %kmsl : index\n";
  } else if (matmul()) {
    text_ << "    " << (batched ? "%kbi, " : "")
          << "%kti, %ktj = ktdp.get_compute_tile_id : " << (batched ? "index, " : "")
          << "index, index\n"
          << "    %kbm = arith.constant " << d_.blockRows << " : index\n"
          << "    %kbn = arith.constant " << d_.blockCols << " : index\n"
          << "    %kn0 = arith.muli %ktj, %kbn : index\n";
    if (batched)
      text_ << "    %kmrows = arith.constant " << matrixRows << " : index\n"
            << "    %kbrow = arith.muli %kbi, %kmrows : index\n"
            << "    %kdepthrows = arith.constant " << k_.depth << " : index\n"
            << "    %kbk = arith.muli %kbi, %kdepthrows : index\n"
            << "    %kmi = arith.muli %kti, %kbm : index\n"
            << "    %km0 = arith.addi %kbrow, %kmi : index\n";
    else
      text_ << "    %km0 = arith.muli %kti, %kbm : index\n";
  } else {
    text_ << "    %kpid = ktdp.get_compute_tile_id : index\n"
          << "    %krows = arith.constant " << d_.blockRows << " : index\n";
    text_ << "    %krow0 = arith.muli %kpid, %krows : index\n";
  }
  // Vectors along the columns: one load per tile, before any loop.
  for (const Operand& o : k_.inputs)
    if (o.form == Form::PerCol &&
        failed(load(o.value, o.form, blockShape(o.value, o.form), blockStart(o.form))))
      return failure();
  if (k_.kind == KernelGroup::Kind::Matmul) {
    Operation* mm = k_.ops.front();
    Value A = mm->getOperand(0), B = mm->getOperand(1), C = mm->getResult(0);
    const int64_t rows = splitK() ? d_.blockRows : d_.stepRows;
    const std::string acc =
        "tensor<" + std::to_string(rows) + "x" + std::to_string(d_.blockCols) + "x" + elem(C) + ">";
    const std::vector<int64_t> aShape{rows, d_.stepDepth}, bShape{d_.stepDepth, d_.blockCols};
    if (subBlocks()) {
      loop = true;
      text_ << "    %kmend = arith.addi %km0, %kbm : index\n"
            << "    %ksm = arith.constant " << d_.stepRows << " : index\n"
            << "    scf.for %kmr = %km0 to %kmend step %ksm {\n";
    }
    text_ << "    %kzero = arith.constant 0.0 : " << elem(C) << "\n"
          << "    %kempty = tensor.empty() : " << acc << "\n"
          << "    %kinit = linalg.fill ins(%kzero : " << elem(C) << ") outs(%kempty : " << acc
          << ") -> " << acc << "\n";
    const int64_t span = k_.depth / d_.gridDepth;
    const bool steps = d_.stepDepth != span;
    std::string kk = splitK() ? "%kk0" : "%kc0", part = "%kinit";
    if (steps) {
      if (splitK())
        text_ << "    %kdepth = arith.addi %kk0, %kspan : index\n";
      else
        text_ << "    %kdepth = arith.constant " << k_.depth << " : index\n";
      text_ << "    %kstep = arith.constant " << d_.stepDepth << " : index\n"
            << "    %kacc = scf.for %kk = " << kk
            << " to %kdepth step %kstep iter_args(%kpart = %kinit) -> (" << acc << ") {\n";
      kk = "%kk";
      part = "%kpart";
    }
    std::string kRow = kk;
    if (batched) {
      text_ << "    %kkrow = arith.addi %kbk, " << kk << " : index\n";
      kRow = "%kkrow";
    }
    FailureOr<std::string> a =
        residentBlock(A) ? FailureOr<std::string>(loadOwn(*residentBlock(A), A))
                         : loadBox(*accessView(A, Form::Matrix), elem(A),
                                   {splitK() ? std::string("%km0") : matmulRow(), kk}, aShape);
    FailureOr<std::string> bm = failure();
    if (k_.transposedB && k_.batch > 1) {
      // Matrix b of the batch, its K x N block, as it lies; then the block as a matrix.
      const std::vector<int64_t> box{1, d_.stepDepth, d_.blockCols};
      bm = loadBox(*accessView(B, Form::Matrix), elem(B), {"%kbi", kk, "%kn0"}, box);
      if (succeeded(bm)) {
        const std::string m = "%kbt";
        text_ << "    " << m << " = tensor.collapse_shape " << *bm << " [[0, 1], [2]] : tensor<"
              << dimsText(box) << "x" << elem(B) << "> into tensor<" << dimsText(bShape) << "x"
              << elem(B) << ">\n";
        bm = m;
      }
    } else {
      bm = loadBox(*accessView(B, Form::Matrix), elem(B), {k_.transposedB ? kk : kRow, "%kn0"},
                   bShape);
    }
    if (failed(a) || failed(bm))
      return fail("internal error: the Spyre front end cannot load the matmul's operand blocks");
    const std::string ta = "tensor<" + dimsText(aShape) + "x" + elem(A) + ">",
                      tb = "tensor<" + dimsText(bShape) + "x" + elem(B) + ">";
    text_ << "    %kmm = linalg.matmul ins(" << *a << ", " << *bm << " : " << ta << ", " << tb
          << ") outs(" << part << " : " << acc << ") -> " << acc << "\n";
    if (steps) text_ << "    scf.yield %kmm : " << acc << "\n    }\n";
    if (splitK()) {
      // The partials of the block's gridDepth tiles summed over the ring; each keeps a slice
      // of rows of the sum.
      const std::string partial = steps ? "%kacc" : "%kmm";
      const int64_t g = d_.gridDepth;
      const std::string tiles = "affine_set<(i)[g] : (i - " + std::to_string(g) + "*g >= 0, -i + " +
                                std::to_string(g) + "*g + " + std::to_string(g - 1) + " >= 0)>";
      // The groups are #kgroups, written before the module: its '>=' cannot sit inside a
      // type's angle brackets.
      const std::string future = "!ktdp.tile_future<" + acc + ", groups = #kgroups>";
      const std::string sliceT = "tensor<" + std::to_string(epilogueRows()) + "x" +
                                 std::to_string(d_.blockCols) + "x" + elem(C) + ">";
      text_ << "    %kfut = ktdp.inter_tile_produce producer_tiles_per_group = " << tiles << " : "
            << acc << " -> " << future << " {\n    ^bb0(%kgid: index):\n      ktdp.yield_partial "
            << partial << " : " << acc << "\n    }\n"
            << "    %kidempty = tensor.empty() : " << acc << "\n"
            << "    %kid = linalg.fill ins(%kzero : " << elem(C) << ") outs(%kidempty : " << acc
            << ") -> " << acc << "\n"
            << "    %ksum = ktdp.inter_tile_reduce_scatter(%kfut) consumer_tiles_per_group = "
            << tiles << ", scatter_dimensions = [0], identity(%kid : " << acc << ") : " << future
            << " -> " << sliceT << " {\n    ^bb0(%klhs: " << acc << ", %krhs: " << acc
            << "):\n      %ks = arith.addf %klhs, %krhs : " << acc
            << "\n      ktdp.yield_reduced %ks : " << acc << "\n    }\n";
    }
  } else if (d_.stepRows != d_.blockRows) {
    loop = true;
    text_ << "    %krowend = arith.addi %krow0, %krows : index\n"
          << "    %kstep = arith.constant " << d_.stepRows << " : index\n"
          << "    scf.for %kr = %krow0 to %krowend step %kstep {\n";
  } else {
    text_ << "    %kr = arith.addi %krow0, %kc0 : index\n";
  }
  // In a matmul kernel, A and B stream in slices for the matmul; the epilogue loads its own
  // blocks of what it reads (A itself, when the epilogue reads it).
  llvm::DenseSet<Value> epilogueReads;
  for (size_t i = 1; matmul() && i < k_.ops.size(); ++i)
    for (Value v : k_.ops[i]->getOperands()) epilogueReads.insert(v);
  for (const Operand& o : k_.inputs)
    if (o.form != Form::PerCol && (!matmul() || epilogueReads.contains(o.value))) {
      std::string rep;
      if (o.form == Form::Repeated) rep = repeatedRow(o.value, matmul() ? matmulRow() : "%kr");
      if (o.form == Form::Spread) rep = spreadRow(o.value, matmul() ? matmulRow() : "%kr");
      if (failed(load(o.value, o.form, blockShape(o.value, o.form), blockStart(o.form, rep))))
        return failure();
    }
  for (size_t i = 0; i < k_.outputs.size(); ++i) {
    Value v = k_.outputs[i].value;
    std::vector<int64_t> shape = blockShape(v, k_.outputs[i].form);
    const std::string t = "tensor<" + dimsText(shape) + "x" + elem(v) + ">";
    text_ << "    %kout" << i << " = tensor.empty() {" << kOutputAttr << " = " << i << "} : " << t
          << "\n";
    if (const ResidentBlock* r = residentBlock(v)) {
      storeOwn("%kout" + std::to_string(i), *r, v);
      continue;
    }
    if (failed(storeBox("%kout" + std::to_string(i), *accessView(v, k_.outputs[i].form), elem(v),
                        blockStart(k_.outputs[i].form), shape)))
      return fail("internal error: the Spyre front end cannot store a block of a result");
  }
  if (loop) text_ << "    }\n";
  text_ << "    return\n  }\n}\n";
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> KernelWriter::build() {
  if (failed(writeText())) return failure();
  ParserConfig config(ctx_);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text_.str(), config, k_.name);
  if (!module) {
    k_.ops.front()->emitError("internal error: the Spyre front end wrote KTIR it cannot parse "
                              "for this kernel:\n")
        << text_.str();
    return failure();
  }
  auto f = *module->getOps<func::FuncOp>().begin();
  // Arguments are named by their locations (the KTIR compiler names the plan's arguments so).
  for (size_t i = 0; i < args_.size(); ++i)
    f.getArgument(static_cast<unsigned>(i))
        .setLoc(NameLoc::get(StringAttr::get(ctx_, args_[i] + "_ptr")));
  if (k_.kind != KernelGroup::Kind::Rows && k_.kind != KernelGroup::Kind::Matmul) {
    if (failed(verify(*module))) return failure();
    return module;
  }
  // The graph tensors the loads stand for, the matmul's accumulator, the placeholders.
  size_t next = 0;
  SmallVector<Operation*> placeholders;
  Operation* firstUse = nullptr;
  f.walk([&](Operation* op) {
    if (auto l = dyn_cast<ktdp::LoadOp>(op)) {
      // A block is the load's tile collapsed to the tensor's dimensions and its padding
      // sliced off; the matmul's own operands feed the scaffolding's matmul only.
      Value block = l->getResult(0);
      while (block.hasOneUse() &&
             isa<tensor::CollapseShapeOp, tensor::ExtractSliceOp>(*block.getUsers().begin()))
        block = block.getUsers().begin()->getResult(0);
      if (!block.hasOneUse() || !isa<linalg::MatmulOp>(*block.getUsers().begin())) {
        if (next < loaded_.size()) map_.map(loaded_[next++], block);
      }
    }
    if (auto m = dyn_cast<linalg::MatmulOp>(op); m && !splitK()) {
      Value acc = m->getResult(0);
      // The K loop carries the accumulator (a loop over a tile's rows carries nothing).
      if (auto loop = dyn_cast<scf::ForOp>(m->getParentOp()); loop && loop.getNumResults() == 1)
        acc = loop->getResult(0);
      map_.map(k_.ops.front()->getResult(0), acc);
    }
    if (auto r = dyn_cast<ktdp::InterTileReduceScatterOp>(op))
      map_.map(k_.ops.front()->getResult(0), r->getResult(0));
    if (op->hasAttr(kOutputAttr)) {
      placeholders.push_back(op);
      if (!firstUse) firstUse = op;
    }
  });
  if (next != loaded_.size() || placeholders.size() != k_.outputs.size()) {
    k_.ops.front()->emitError("internal error: the Spyre front end lost track of its loads");
    return failure();
  }
  // The kernel's ops, rebuilt on the blocks just before the first store.
  OpBuilder b(firstUse);
  for (Operation* op : k_.ops)
    if (failed(rebuild(op, b))) return failure();
  for (size_t i = 0; i < placeholders.size(); ++i) {
    Value v = map_.lookupOrNull(k_.outputs[i].value);
    if (!v || v.getType() != placeholders[i]->getResult(0).getType()) {
      k_.outputs[i].value.getDefiningOp()->emitError(
          "internal error: the Spyre front end built a block of the wrong type for this result");
      return failure();
    }
    placeholders[i]->getResult(0).replaceAllUsesWith(v);
    placeholders[i]->erase();
  }
  if (failed(verify(*module))) return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>> buildKernel(const KernelGroup& k, const Division& d,
                                             const KernelPlan& plan, const MemoryNames& names,
                                             const ResidentTensors& resident,
                                             MLIRContext* context) {
  KernelWriter w(k, d, plan, names, resident, context);
  return w.build();
}

} // namespace chipless::frontend

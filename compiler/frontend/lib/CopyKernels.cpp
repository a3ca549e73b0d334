//===- CopyKernels.cpp - permutations and windows as DMA copies ---===//
//
// Part of chipless. Kernels without compute ops (KernelWriter.h): a permutation, blocks of output
// rows loaded through a view of the input with permuted strides; a window kernel (a convolution's
// unfold, a pooling), boxes of the image copied or combined.
//
//===----------------------------------------------------------------------===//

#include "KernelWriter.h"

namespace chipless::frontend {

void KernelWriter::writePermuteText() {
  auto t = cast<linalg::TransposeOp>(k_.ops.front());
  Value in = t.getInput(), out = t->getResult(0);
  ArrayRef<int64_t> inShape = cast<RankedTensorType>(in.getType()).getShape();
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(out.getType()).getShape();
  const auto perm = t.getPermutation();
  const size_t rank = outShape.size();
  std::vector<int64_t> inStrides(rank, 1), outStrides(rank, 1), viewStrides(rank);
  for (size_t i = rank - 1; i-- > 0;) {
    inStrides[i] = inStrides[i + 1] * inShape[i + 1];
    outStrides[i] = outStrides[i + 1] * outShape[i + 1];
  }
  for (size_t i = 0; i < rank; ++i) viewStrides[i] = inStrides[static_cast<size_t>(perm[i])];
  const std::string inName = names_.lookup(memoryRoot(plan_, in)),
                    outName = names_.lookup(memoryRoot(plan_, out));
  args_ = {inName, outName};
  const bool batched = rank == 3;
  const std::vector<int64_t> shape(outShape.begin(), outShape.end());
  std::vector<int64_t> block = batched ? std::vector<int64_t>{d_.blockBatch, d_.blockRows, k_.cols}
                                       : std::vector<int64_t>{d_.blockRows, k_.cols};
  const std::string start = batched ? "%kb0, %kr, %kc0" : "%kr, %kc0";
  const std::string mem = "memref<" + dimsText(shape) + "x" + elem(out) + ">";
  const std::string tileT = "!ktdp.access_tile<" + dimsText(block) + "xindex>";
  text_ << "module {\n  func.func @" << k_.name << "(%" << inName << "_ptr: index, %" << outName
        << "_ptr: index) attributes {grid = [";
  if (batched) text_ << d_.gridBatch << ", ";
  text_ << d_.gridRows << "]} {\n"
        << "    %kc0 = arith.constant 0 : index\n"
        << "    " << (batched ? "%kbi, " : "")
        << "%kpid = ktdp.get_compute_tile_id : " << (batched ? "index, " : "") << "index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n";
  if (batched)
    text_ << "    %kbatch = arith.constant " << d_.blockBatch << " : index\n"
          << "    %kb0 = arith.muli %kbi, %kbatch : index\n";
  // The input seen in the output's order: its strides permuted.
  auto view = [&](const std::string& name, const std::string& ptr,
                  const std::vector<int64_t>& strides) {
    text_ << "    " << name << " = ktdp.construct_memory_view %" << ptr << "_ptr, sizes: ["
          << dimsText(shape, ", ") << "], strides: [" << dimsText(strides, ", ")
          << "] {\n      coordinate_set = " << boxSet(shape)
          << ", memory_space = #ktdp.memory_space<global>\n    } : " << mem << "\n";
  };
  view("%kvin", inName, viewStrides);
  view("%kvout", outName, outStrides);
  for (const char* side : {"in", "out"})
    text_ << "    %kt" << side << " = ktdp.construct_access_tile %kv" << side << "[" << start
          << "] {\n      access_tile_set = " << boxSet(block)
          << ", access_tile_order = " << identityMap(rank) << "\n    } : " << mem << " -> " << tileT
          << "\n";
  const std::string tensorT = "tensor<" + dimsText(block) + "x" + elem(out) + ">";
  text_ << "    %kblock = ktdp.load %ktin : " << tileT << " -> " << tensorT << "\n"
        << "    ktdp.store %kblock, %ktout : " << tensorT << ", " << tileT << "\n"
        << "    return\n  }\n}\n";
}

void KernelWriter::writeWindowText() {
  Operation* op = k_.ops.front();
  Value in = op->getOperand(0), out = op->getResult(0);
  ArrayRef<int64_t> x = cast<RankedTensorType>(in.getType()).getShape();
  ArrayRef<int64_t> o = cast<RankedTensorType>(out.getType()).getShape();
  const bool unfold = o.size() == 6;
  const int64_t N = x[0], H = x[1], W = x[2], C = x[3], OH = o[1], OW = o[2];
  int64_t KH, KW;
  if (unfold) {
    KH = o[3];
    KW = o[4];
  } else {
    auto win = cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
    KH = win[0];
    KW = win[1];
  }
  const std::string inName = names_.lookup(memoryRoot(plan_, in)),
                    outName = names_.lookup(memoryRoot(plan_, out));
  args_ = {inName, outName};
  const std::string e = elem(out);
  auto view = [&](const std::string& name, const std::string& ptr, std::vector<int64_t> shape,
                  std::vector<int64_t> strides) {
    text_ << "    " << name << " = ktdp.construct_memory_view %" << ptr << "_ptr, sizes: ["
          << dimsText(shape, ", ") << "], strides: [" << dimsText(strides, ", ")
          << "] {\n      coordinate_set = " << boxSet(shape)
          << ", memory_space = #ktdp.memory_space<global>\n    } : memref<" << dimsText(shape)
          << "x" << e << ">\n";
  };
  int boxes = 0;
  auto box = [&](const std::string& viewName, const std::vector<int64_t>& viewShape,
                 const std::vector<int64_t>& shape, const std::string& start) {
    const std::string n = "%kbox" + std::to_string(boxes++);
    text_ << "    " << n << "t = ktdp.construct_access_tile " << viewName << "[" << start
          << "] {\n      access_tile_set = " << boxSet(shape)
          << ", access_tile_order = " << identityMap(shape.size()) << "\n    } : memref<"
          << dimsText(viewShape) << "x" << e << "> -> !ktdp.access_tile<" << dimsText(shape)
          << "xindex>\n";
    return n;
  };
  auto constant = [&](int64_t v) {
    const std::string n = "%kc" + std::to_string(v);
    if (!constants_.insert(v).second) return n;
    if (v != 0) text_ << "    " << n << " = arith.constant " << v << " : index\n";
    return n;
  };
  constants_.insert(0);
  text_ << "module {\n  func.func @" << k_.name << "(%" << inName << "_ptr: index, %" << outName
        << "_ptr: index) attributes {grid = [" << d_.gridRows << "]} {\n"
        << "    %kc0 = arith.constant 0 : index\n"
        << "    %kpid = ktdp.get_compute_tile_id : index\n"
        << "    %krows = arith.constant " << d_.blockRows << " : index\n"
        << "    %kr = arith.muli %kpid, %krows : index\n";
  if (unfold) {
    // Rows [r, r + block) of image n = r / OH: for each window offset (kh, kw) the box of
    // the input at (oh + kh, kw) goes to columns (kh KW + kw) C of the unfolded rows.
    const std::vector<int64_t> xs{N, H, W, C}, us{N, OH, OW, KH * KW * C};
    view("%kvx", inName, xs, {H * W * C, W * C, C, 1});
    view("%kvu", outName, us, {OH * OW * KH * KW * C, OW * KH * KW * C, KH * KW * C, 1});
    text_ << "    %koh = arith.constant " << OH << " : index\n"
          << "    %kn = arith.divui %kr, %koh : index\n"
          << "    %kh0 = arith.remui %kr, %koh : index\n";
    const std::vector<int64_t> shape{1, d_.blockRows, OW, C};
    const std::string t = "tensor<" + dimsText(shape) + "x" + e + ">",
                      at = "!ktdp.access_tile<" + dimsText(shape) + "xindex>";
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) {
        const std::string row = "%kxh" + std::to_string(kh);
        if (kw == 0)
          text_ << "    " << row << " = arith.addi %kh0, " << constant(kh) << " : index\n";
        const std::string src =
            box("%kvx", xs, shape, "%kn, " + row + ", " + constant(kw) + ", %kc0");
        const std::string dst =
            box("%kvu", us, shape, "%kn, %kh0, %kc0, " + constant((kh * KW + kw) * C));
        text_ << "    " << src << " = ktdp.load " << src << "t : " << at << " -> " << t << "\n"
              << "    ktdp.store " << src << ", " << dst << "t : " << t << ", " << at << "\n";
      }
  } else {
    // Output row r (image r / OH, row r mod OH) combines rows kh of the window band of the
    // input, the image seen as [N OH, KH, OW, KW C]: box (kh, kw) is columns kw C.
    const std::vector<int64_t> xs{N * OH, KH, OW, KW * C}, ys{N * OH, 1, OW, C};
    view("%kvx", inName, xs, {KH * W * C, W * C, KW * C, 1});
    view("%kvy", outName, ys, {OW * C, OW * C, C, 1});
    const std::vector<int64_t> shape{d_.blockRows, 1, OW, C};
    const std::string t = "tensor<" + dimsText(shape) + "x" + e + ">",
                      at = "!ktdp.access_tile<" + dimsText(shape) + "xindex>";
    const bool max = isa<linalg::PoolingNhwcMaxOp>(op);
    std::string acc;
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) {
        const std::string src =
            box("%kvx", xs, shape, "%kr, " + constant(kh) + ", %kc0, " + constant(kw * C));
        text_ << "    " << src << " = ktdp.load " << src << "t : " << at << " -> " << t << "\n";
        if (acc.empty()) {
          acc = src;
          continue;
        }
        const std::string next = src + "c";
        text_ << "    " << next << " = " << (max ? "arith.maximumf " : "arith.addf ") << acc << ", "
              << src << " : " << t << "\n";
        acc = next;
      }
    const std::string dst = box("%kvy", ys, shape, "%kr, %kc0, %kc0, %kc0");
    text_ << "    ktdp.store " << acc << ", " << dst << "t : " << t << ", " << at << "\n";
  }
  text_ << "    return\n  }\n}\n";
}

} // namespace chipless::frontend

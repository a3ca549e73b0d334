//===- Windows.cpp - padding, pooling, convolutions (part of tpu-decompose) -===//
//
// Part of chipless. The TPU has no window instructions: tpu-decompose rewrites them into ops
// tpu-compile has.
// - tensor.pad by a constant becomes concatenations of the source with constant fills, one
//   padded dimension at a time; each part is written in place (tpu-alloc-hbm), so a padded
//   image costs its copy and the border.
// - linalg.pooling_nhwc_max / _sum becomes a chain of element-wise maxima (sums) over the
//   window's KH x KW strided slices of the input, each a view read in place (the DMA steps
//   over the stride); tpu-form-kernels fuses the chain and cuts it where the scalar registers
//   run out.
// - linalg.conv_2d_nhwc_hwcf becomes one matmul on the MXUs (im2col): its LHS is the
//   concatenation along the channels of the image's KH x KW strided slices, one per tap of the
//   filter, each a view the kernel reads in place; its RHS is the filters as a
//   [KH * KW * C, F] matrix. The sum accumulates in f32. With unit strides the matmul's rows
//   run over whole image rows (the image flattened to its pixels, each tap a slice of them:
//   one unit per image, the window's overhang computed and dropped); otherwise they are the
//   pixels of one output row. Channels whose rows are not whole DMA runs make one matmul per
//   tap instead, the sum carried through the accumulator.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace chipless::tpuc {

namespace {

/// The largest pooling window tpu-decompose unrolls (a 32 x 32 global pool).
constexpr int64_t kMaxWindowPositions = 1024;

/// A tensor of `shape` holding `value` everywhere, made by a kernel (a linalg.generic).
Value constantTensor(IRRewriter& rw, Location loc, ArrayRef<int64_t> shape, TypedAttr value) {
  Type et = value.getType();
  const auto rank = static_cast<unsigned>(shape.size());
  Value empty = rw.create<tensor::EmptyOp>(loc, shape, et);
  auto g = rw.create<linalg::GenericOp>(
      loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{rw.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder& b, Location l, ValueRange) {
        b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::ConstantOp>(l, value)});
      });
  return g.getResult(0);
}

/// `v` with `low` and `high` elements of `value` added before and after it along dimension
/// `d`: a concatenation with constant tensors, each part written in place (tpu-alloc-hbm).
Value padDimension(IRRewriter& rw, Location loc, Value v, int64_t d, int64_t low, int64_t high,
                   TypedAttr value) {
  if (low == 0 && high == 0) return v;
  SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
  SmallVector<Value> parts;
  auto border = [&](int64_t n) {
    SmallVector<int64_t> s(shape);
    s[d] = n;
    parts.push_back(constantTensor(rw, loc, s, value));
  };
  if (low > 0) border(low);
  parts.push_back(v);
  if (high > 0) border(high);
  return rw.create<tensor::ConcatOp>(loc, d, parts).getResult();
}

LogicalResult decomposePad(tensor::PadOp p, IRRewriter& rw) {
  TypedAttr value;
  Value yielded = p.getConstantPaddingValue();
  if (!yielded || !matchPattern(yielded, m_Constant(&value)))
    return p.emitError("tpu-compile pads with a constant value only"), failure();
  ArrayRef<int64_t> low = p.getStaticLow(), high = p.getStaticHigh();
  for (int64_t v : llvm::concat<const int64_t>(low, high))
    if (ShapedType::isDynamic(v) || v < 0)
      return p.emitError("tpu-compile pads by constant, non-negative amounts only"), failure();
  rw.setInsertionPoint(p);
  Value v = p.getSource();
  for (size_t d = 0; d < low.size(); ++d)
    v = padDimension(rw, p.getLoc(), v, static_cast<int64_t>(d), low[d], high[d], value);
  rw.replaceOp(p, v);
  return success();
}

/// The pooling's attribute `name` (strides, dilations) as [h, w].
std::array<int64_t, 2> windowAttr(Operation* op, StringRef name) {
  auto a = op->getAttrOfType<DenseIntElementsAttr>(name);
  std::array<int64_t, 2> r{1, 1};
  if (a)
    for (auto [i, x] : llvm::enumerate(a.getValues<int64_t>()))
      if (i < 2) r[i] = x;
  return r;
}

LogicalResult decomposePooling(linalg::LinalgOp op, bool max, IRRewriter& rw) {
  Value input = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  auto window = cast<RankedTensorType>(op.getDpsInputs()[1].getType()).getShape();
  auto outType = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> out = outType.getShape(); // [N, OH, OW, C]
  const std::array<int64_t, 2> strides = windowAttr(op, "strides"),
                               dilations = windowAttr(op, "dilations");
  // One element-wise op per position of the window: a bound keeps the chain (and the compile)
  // proportionate.
  if (window[0] > kMaxWindowPositions || window[1] > kMaxWindowPositions ||
      window[0] * window[1] > kMaxWindowPositions)
    return op->emitError() << "tpu-compile pools windows of at most " << kMaxWindowPositions
                           << " positions (got " << window[0] << " x " << window[1] << ")",
           failure();
  rw.setInsertionPoint(op);
  const Location loc = op.getLoc();
  Type et = outType.getElementType();
  const bool isFloat = isa<FloatType>(et);
  // acc = combine(acc, slice) for each position of the window, starting from the init.
  Value acc = init;
  for (int64_t kh = 0; kh < window[0]; ++kh)
    for (int64_t kw = 0; kw < window[1]; ++kw) {
      SmallVector<OpFoldResult> offsets = {rw.getIndexAttr(0), rw.getIndexAttr(kh * dilations[0]),
                                           rw.getIndexAttr(kw * dilations[1]), rw.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes, steps = {rw.getIndexAttr(1), rw.getIndexAttr(strides[0]),
                                                rw.getIndexAttr(strides[1]), rw.getIndexAttr(1)};
      for (int64_t s : out) sizes.push_back(rw.getIndexAttr(s));
      Value slice = rw.create<tensor::ExtractSliceOp>(loc, outType, input, offsets, sizes, steps);
      acc = buildElementwise(
          rw, loc, ValueRange{acc, slice}, et,
          [&](OpBuilder& b, Location l, ValueRange args) -> Value {
            if (max)
              return isFloat ? b.create<arith::MaximumFOp>(l, args[0], args[1]).getResult()
                             : b.create<arith::MaxSIOp>(l, args[0], args[1]).getResult();
            return isFloat ? b.create<arith::AddFOp>(l, args[0], args[1]).getResult()
                           : b.create<arith::AddIOp>(l, args[0], args[1]).getResult();
          });
    }
  rw.replaceOp(op, acc);
  return success();
}

/// An element-wise linalg.generic of `x` (a tensor of `shape`) converting it to float type
/// `to` (extf or truncf).
Value convertTensor(IRRewriter& rw, Location loc, Value x, Type to) {
  const unsigned from = cast<RankedTensorType>(x.getType()).getElementTypeBitWidth();
  return buildElementwise(rw, loc, x, to, [&](OpBuilder& b, Location l, ValueRange args) -> Value {
    if (to.getIntOrFloatBitWidth() > from) return b.create<arith::ExtFOp>(l, to, args[0]);
    return b.create<arith::TruncFOp>(l, to, args[0]);
  });
}

/// How a convolution's output pixels become the rows of its matmul.
struct ConvRows {
  /// Whether the rows run over whole image rows: row r of image n is output pixel
  /// (r / Wp, r % Wp) and reads the image at pixel r from each tap's first one, so an image is
  /// one unit of rows (those at ow >= OW are computed and dropped, but for the last image row's:
  /// the last tap's rows end at the image's last pixel). Otherwise the rows are the OW pixels
  /// of one output row, batch [N, OH].
  bool flat = false;
  int64_t rows = 0; ///< computed rows per image (flat): OH * Wp - tail
  int64_t tail = 0; ///< the last output row's dropped pixels, not computed (flat): Wp - OW
};

/// Flat rows (ConvRows) for unit strides, where they waste only the window's overhang
/// (Wp - OW of Wp pixels per row); with strides a flat row would run over sh * Wp / sw pixels
/// of which OW are kept (half or less), and the rows of one output row are cheaper.
ConvRows convRows(ArrayRef<int64_t> image, ArrayRef<int64_t> out, std::array<int64_t, 2> strides) {
  ConvRows r;
  if (strides[0] != 1 || strides[1] != 1) return r;
  r.flat = true;
  r.tail = image[2] - out[2];
  r.rows = out[1] * image[2] - r.tail;
  return r;
}

/// linalg.conv_2d_nhwc_hwcf as one contraction (isContraction) accumulated in f32: the
/// concatenation of the image's strided slices under the KH x KW taps (rows as ConvRows
/// says), times the filters as a [KH * KW * C, F] matrix. Every part of a concatenation read
/// in place but the last must have rows of whole DMA runs (`alignBytes`); channels that are
/// not make one contraction per tap, chained through the accumulator.
LogicalResult decomposeConv(linalg::Conv2DNhwcHwcfOp op, int64_t alignBytes, IRRewriter& rw) {
  Value input = op.getDpsInputs()[0], filters = op.getDpsInputs()[1], init = op.getDpsInits()[0];
  auto inType = cast<RankedTensorType>(input.getType());
  auto fType = cast<RankedTensorType>(filters.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  Type et = outType.getElementType(), it = inType.getElementType();
  if (!isa<FloatType>(et) || it != fType.getElementType() || !isa<FloatType>(it))
    return op->emitError("tpu-compile convolves float images and filters of one type"), failure();
  ArrayRef<int64_t> out = outType.getShape();  // [N, OH, OW, F]
  ArrayRef<int64_t> window = fType.getShape(); // [KH, KW, C, F]
  const int64_t n = out[0], c = window[2], f = window[3];
  if (window[0] * window[1] > kMaxWindowPositions)
    return op->emitError() << "tpu-compile convolves windows of at most " << kMaxWindowPositions
                           << " positions (got " << window[0] << " x " << window[1] << ")",
           failure();
  const std::array<int64_t, 2> strides = windowAttr(op, "strides"),
                               dilations = windowAttr(op, "dilations");
  rw.setInsertionPoint(op);
  const Location loc = op.getLoc();
  auto idx = [&](int64_t v) -> OpFoldResult { return rw.getIndexAttr(v); };
  auto ones = [&](size_t rank) { return SmallVector<OpFoldResult>(rank, idx(1)); };
  const ConvRows rows = convRows(inType.getShape(), out, strides);
  const int64_t wp = inType.getShape()[2];
  // The accumulator's shape: [N, rows, F] (flat) or [N, OH, OW, F].
  SmallVector<int64_t> accShape =
      rows.flat ? SmallVector<int64_t>{n, rows.rows, f} : SmallVector<int64_t>(out);
  // The taps accumulate in f32 from zero or the init's constant; a tensor init is added to the
  // flat rows' result once they are cut back to [N, OH, OW, F].
  Type f32 = rw.getF32Type();
  Value acc;
  std::optional<double> c0 = constantValue(init);
  if (c0 || rows.flat) {
    acc = rw.create<linalg::FillOp>(
                loc,
                ValueRange{rw.create<arith::ConstantOp>(
                    loc, rw.getF32FloatAttr(static_cast<float>(c0.value_or(0.0))))},
                ValueRange{rw.create<tensor::EmptyOp>(loc, accShape, f32)})
              .getResult(0);
  } else {
    acc = et == f32 ? init : convertTensor(rw, loc, init, f32);
  }
  // The taps: strided views of the image read in place ([N, rows, C] of the image's pixels,
  // flat, or [N, OH, OW, C]).
  Value image = input;
  if (rows.flat)
    image = rw.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({n, inType.getShape()[1] * wp, c}, it), image,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
  SmallVector<int64_t> tapShape(accShape);
  tapShape.back() = c;
  auto tapType = RankedTensorType::get(tapShape, it);
  SmallVector<Value> taps;
  for (int64_t kh = 0; kh < window[0]; ++kh)
    for (int64_t kw = 0; kw < window[1]; ++kw) {
      const int64_t y = kh * dilations[0], x = kw * dilations[1];
      SmallVector<OpFoldResult> offsets, sizes, steps;
      if (rows.flat) {
        offsets = {idx(0), idx(y * wp + x), idx(0)};
        steps = ones(3);
      } else {
        offsets = {idx(0), idx(y), idx(x), idx(0)};
        steps = {idx(1), idx(strides[0]), idx(strides[1]), idx(1)};
      }
      for (int64_t d : tapShape) sizes.push_back(idx(d));
      taps.push_back(rw.create<tensor::ExtractSliceOp>(loc, tapType, image, offsets, sizes, steps));
    }
  // The filters [KH, KW, C, F] are already the [KH * KW * C, F] matrix in row-major order.
  const auto nTaps = static_cast<int64_t>(taps.size());
  Value matrix =
      rw.create<tensor::CollapseShapeOp>(loc, RankedTensorType::get({nTaps * c, f}, it), filters,
                                         SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  // Only the last part of a concatenation read in place may have rows that are not whole DMA
  // runs: with such channels, each tap is a matmul of its own, the sum carried from one to the
  // next as its accumulator input.
  const int64_t esize = inType.getElementTypeBitWidth() / 8;
  const int64_t perMatmul = (c * esize) % alignBytes == 0 ? nTaps : 1;
  const auto last = static_cast<int64_t>(tapShape.size()) - 1;
  for (int64_t first = 0; first < nTaps; first += perMatmul) {
    ArrayRef<Value> group = ArrayRef<Value>(taps).slice(first, perMatmul);
    Value lhs = group.size() == 1 ? group.front()
                                  : rw.create<tensor::ConcatOp>(loc, last, group).getResult();
    Value rhs =
        perMatmul == nTaps
            ? matrix
            : rw.create<tensor::ExtractSliceOp>(loc, RankedTensorType::get({c, f}, it), matrix,
                                                SmallVector<OpFoldResult>{idx(first * c), idx(0)},
                                                SmallVector<OpFoldResult>{idx(c), idx(f)}, ones(2))
                  .getResult();
    acc = buildContraction(rw, loc, lhs, rhs, acc);
  }
  // A constant init: the result converted in the matmul's kernel, then cut (a view).
  if (c0 && et != f32) acc = convertTensor(rw, loc, acc, et);
  if (rows.flat) {
    // [N, OH, Wp, F] (the uncomputed tail a constant part written beside the rows), the
    // pixels at ow >= OW dropped (a view).
    Type rt = cast<RankedTensorType>(acc.getType()).getElementType();
    if (rows.tail > 0) acc = padDimension(rw, loc, acc, 1, 0, rows.tail, rw.getFloatAttr(rt, 0.0));
    Value grid =
        rw.create<tensor::ExpandShapeOp>(loc, RankedTensorType::get({n, out[1], wp, f}, rt), acc,
                                         SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
    acc = rw.create<tensor::ExtractSliceOp>(
        loc, RankedTensorType::get(out, rt), grid, SmallVector<OpFoldResult>(4, idx(0)),
        SmallVector<OpFoldResult>{idx(n), idx(out[1]), idx(out[2]), idx(f)}, ones(4));
    if (!c0) {
      // The tensor init added in f32.
      Value addend = et == f32 ? init : convertTensor(rw, loc, init, f32);
      acc = buildElementwise(rw, loc, ValueRange{acc, addend}, f32,
                             [](OpBuilder& b, Location l, ValueRange args) -> Value {
                               return b.create<arith::AddFOp>(l, args[0], args[1]);
                             });
    }
  }
  if (!c0 && et != f32) acc = convertTensor(rw, loc, acc, et);
  rw.replaceOp(op, acc);
  return success();
}

} // namespace

LogicalResult decomposeWindows(ModuleOp module, int64_t alignBytes) {
  SmallVector<Operation*> todo;
  module.walk([&](Operation* op) {
    if (isa<tensor::PadOp, linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp,
            linalg::Conv2DNhwcHwcfOp>(op))
      todo.push_back(op);
  });
  IRRewriter rw(module.getContext());
  for (Operation* op : todo) {
    LogicalResult done = success();
    if (auto p = dyn_cast<tensor::PadOp>(op))
      done = decomposePad(p, rw);
    else if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op))
      done = decomposeConv(conv, alignBytes, rw);
    else
      done = decomposePooling(cast<linalg::LinalgOp>(op), isa<linalg::PoolingNhwcMaxOp>(op), rw);
    if (failed(done)) return failure();
  }
  return success();
}

} // namespace chipless::tpuc

// The TPU compiler on convolutions (tpu-decompose, Windows.cpp): linalg.conv_2d_nhwc_hwcf
// becomes one matmul on the MXUs over the concatenation of the image's strided slices under
// the filter's taps (im2col read in place), or one matmul per tap when the channels' rows are
// not whole DMA runs. Strides, dilations, padding, batches, an accumulator input, bf16 and
// what stays refused, against references computed here in fp64.
#include "support/atomic_file.h"
#include "tests/e2e/tpu_compile_harness.h"

#include <gtest/gtest.h>
#include <sstream>

namespace chipless::test {
namespace {

/// The shape of one convolution: NHWC image [n, h, w, c] padded by `p` on both sides of H and
/// W with zeros, filters [k, k, c, f], stride s, dilation d.
struct Conv {
  int64_t n, h, w, c, f, k, s, d, p;
  int64_t oh() const { return (h + 2 * p - d * (k - 1) - 1) / s + 1; }
  int64_t ow() const { return (w + 2 * p - d * (k - 1) - 1) / s + 1; }
};

/// The convolution in fp64: `init` [n, oh, ow, f] (empty: zeros) plus the windows' sums.
std::vector<double> convolve(const Conv& cv, const std::vector<double>& x,
                             const std::vector<double>& wt, const std::vector<double>& init) {
  std::vector<double> out;
  size_t at = 0;
  for (int64_t b = 0; b < cv.n; ++b)
    for (int64_t i = 0; i < cv.oh(); ++i)
      for (int64_t j = 0; j < cv.ow(); ++j)
        for (int64_t o = 0; o < cv.f; ++o, ++at) {
          double acc = init.empty() ? 0.0 : init[at];
          for (int64_t u = 0; u < cv.k; ++u)
            for (int64_t v = 0; v < cv.k; ++v) {
              const int64_t y = i * cv.s + u * cv.d - cv.p, z = j * cv.s + v * cv.d - cv.p;
              if (y < 0 || y >= cv.h || z < 0 || z >= cv.w) continue;
              for (int64_t ch = 0; ch < cv.c; ++ch)
                acc += x[static_cast<size_t>(((b * cv.h + y) * cv.w + z) * cv.c + ch)] *
                       wt[static_cast<size_t>(((u * cv.k + v) * cv.c + ch) * cv.f + o)];
            }
          out.push_back(acc);
        }
  return out;
}

std::string tensor(std::vector<int64_t> shape, const std::string& et) {
  std::ostringstream s;
  s << "tensor<";
  for (int64_t d : shape) s << d << "x";
  s << et << ">";
  return s.str();
}

/// The graph of one convolution of `et`: y = conv(pad(x), w) + (b: an accumulator input
/// argument when `withInit`, else zeros).
std::string convGraph(const Conv& cv, const std::string& et, bool withInit) {
  const std::string xt = tensor({cv.n, cv.h, cv.w, cv.c}, et),
                    pt = tensor({cv.n, cv.h + 2 * cv.p, cv.w + 2 * cv.p, cv.c}, et),
                    wt = tensor({cv.k, cv.k, cv.c, cv.f}, et),
                    yt = tensor({cv.n, cv.oh(), cv.ow(), cv.f}, et);
  std::ostringstream g;
  g << "func.func @conv(%x: " << xt << " {graph.name = \"x\"}, %w: " << wt
    << " {graph.name = \"w\"}";
  if (withInit) g << ", %b: " << yt << " {graph.name = \"b\"}";
  g << ") -> (" << yt << " {graph.name = \"y\"}) {\n";
  g << "  %zero = arith.constant 0.0 : " << et << "\n";
  if (cv.p > 0)
    g << "  %p = tensor.pad %x low[0, " << cv.p << ", " << cv.p << ", 0] high[0, " << cv.p << ", "
      << cv.p << ", 0] {\n  ^bb0(%i: index, %j: index, %k: index, %l: index):\n"
      << "    tensor.yield %zero : " << et << "\n  } : " << xt << " to " << pt << "\n";
  const std::string image = cv.p > 0 ? "%p" : "%x";
  if (!withInit)
    g << "  %e = tensor.empty() : " << yt << "\n  %init = linalg.fill ins(%zero : " << et
      << ") outs(%e : " << yt << ") -> " << yt << "\n";
  g << "  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<" << cv.d
    << "> : tensor<2xi64>, strides = dense<" << cv.s << "> : tensor<2xi64>}\n      ins(" << image
    << ", %w : " << pt << ", " << wt << ") outs(" << (withInit ? "%b" : "%init") << " : " << yt
    << ") -> " << yt << "\n  return %y : " << yt << "\n}\n";
  return g.str();
}

/// How many kernels of `kind` (matmul, contraction, elementwise, ...) tpu-form-kernels made.
int kernelsOf(const CompileResult& c, const std::string& kind) {
  const std::string s = readFile(c.dumpDir + "/04-tpu-form-kernels.mlir");
  int count = 0;
  for (size_t at = s.find("_" + kind + "\""); at != std::string::npos;
       at = s.find("_" + kind + "\"", at + 1))
    ++count;
  return count;
}

/// Compiles and runs the convolution of `cv` (of `et`, onto an accumulator input argument
/// when `withInit`) on random data; expects `matmuls` contraction kernels and every element
/// within atol + rtol |want| of the fp64 reference from the values the device holds.
void checkConv(const std::string& tag, const Conv& cv, const std::string& et, bool withInit,
               int matmuls, double rtol, double atol) {
  CompileResult c = tpuCompile(writeGraph(tag, convGraph(cv, et, withInit)), tag);
  ASSERT_EQ(c.status, 0) << c.log;
  EXPECT_EQ(kernelsOf(c, "contraction"), matmuls);
  NpyArray x = randomF32Array({cv.n, cv.h, cv.w, cv.c}, 101);
  NpyArray w = randomF32Array({cv.k, cv.k, cv.c, cv.f}, 102);
  NpyArray b = randomF32Array({cv.n, cv.oh(), cv.ow(), cv.f}, 103);
  std::map<std::string, NpyArray> inputs = {{"x", x}, {"w", w}};
  if (withInit) inputs.emplace("b", b);
  TpuKernelRun run = runProgram(c.dir, inputs, tpuArchWith());
  auto values = [&](const NpyArray& a) { return et == "bf16" ? bf16Values(a) : asDoubles(a); };
  expectClose(run.outputs.at("y"),
              convolve(cv, values(x), values(w), withInit ? values(b) : std::vector<double>{}),
              rtol, atol, tag);
}

// f32 matmuls take three bf16 passes (about 16 bits per product): over ~100 products of
// magnitude ~1 within 2e-3, where a missing or misplaced tap is off by ~1. bf16 products are
// exact in f32 and a bf16 result is rounded once: within 2^-8.
constexpr double kF32Rtol = 1e-4, kF32Atol = 2e-3, kBf16Rtol = 1.0 / 256, kBf16Atol = 1e-3;

TEST(TpuCompileConv, StridedPaddedConvolutionIsOneMatmulOverTheTaps) {
  // 3 x 3, stride 2, padding 1, 16 channels (64-byte rows: whole DMA runs): one contraction
  // whose LHS is the nine strided slices of the padded image, read in place.
  checkConv("conv_s2", Conv{2, 9, 10, 16, 24, 3, 2, 1, 1}, "f32", false, 1, kF32Rtol, kF32Atol);
}

TEST(TpuCompileConv, DilatedConvolutionAddsItsAccumulatorInput) {
  // 3 x 3, dilation 2, stride 1, no padding, three images, onto an argument (a bias map).
  checkConv("conv_dilated", Conv{3, 11, 12, 8, 16, 3, 1, 2, 0}, "f32", true, 1, kF32Rtol, kF32Atol);
}

TEST(TpuCompileConv, OneByOneConvolutionReadsTheImageInPlace) {
  checkConv("conv_1x1", Conv{2, 8, 8, 32, 16, 1, 1, 1, 0}, "f32", false, 1, kF32Rtol, kF32Atol);
}

TEST(TpuCompileConv, ChannelsThatAreNotWholeRunsMakeOneMatmulPerTap) {
  // Three bf16 channels (6-byte rows, an RGB image): the taps cannot be concatenated in place,
  // so each 3 x 3 tap is a matmul of its own, accumulated in f32 and rounded to bf16 once.
  checkConv("conv_rgb", Conv{1, 12, 12, 3, 32, 3, 1, 1, 1}, "bf16", false, 9, kBf16Rtol, kBf16Atol);
}

TEST(TpuCompileConv, Bf16ConvolutionAccumulatesInF32) {
  checkConv("conv_bf16", Conv{2, 8, 8, 16, 16, 3, 2, 1, 1}, "bf16", false, 1, kBf16Rtol, kBf16Atol);
}

TEST(TpuCompileConv, IntegerAndMixedTypeConvolutionsAreRefusedAtTheOp) {
  const char* g = R"(func.func @bad(%x: tensor<1x8x8x8xbf16> {graph.name = "x"},
    %w: tensor<3x3x8x8xf32> {graph.name = "w"}) -> (tensor<1x6x6x8xf32> {graph.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x8xbf16>, tensor<3x3x8x8xf32>)
      outs(%f : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}
)";
  CompileResult c = tpuCompile(writeGraph("bad_conv", g), "bad_conv");
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.log.find("bad_conv.mlir:6:8: error: tpu-compile convolves float images and "
                       "filters of one type"),
            std::string::npos)
      << c.log;
}

} // namespace
} // namespace chipless::test

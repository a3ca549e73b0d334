/// The TPU compiler's emitter on hand-written kernel specifications (no MLIR): a GEMM with
/// resident and streamed RHS panels, a transposed RHS, a batched matmul, a fused softmax, on
/// one and two TensorCores. The emitted assembly must assemble, run on the TPU model without
/// races or deadlocks, and match fp32 references.
#include "tests/unit/util/tpu_test_util.h"
#include "tpuc/Emit.h"
#include "tpuc/Plan.h"

#include <cmath>
#include <gtest/gtest.h>

namespace chipless::test {
namespace {

using namespace chipless::tpuc;

int64_t padded(int64_t n) {
  return roundUp(n, 128);
}

/// A row-major tensor in the canonical layout (last dimension padded to 128 lanes).
HbmAccess canonical(const std::string& sym, DType t, int64_t cols) {
  HbmAccess a;
  a.symbol = sym;
  a.dtype = t;
  a.rowStride = padded(cols) * static_cast<int64_t>(dtypeSize(t));
  a.runBytes = roundUp(cols * static_cast<int64_t>(dtypeSize(t)), 32);
  return a;
}

void tile(KernelSpec& k, const TpuArch& arch) {
  MatmulSpec& mm = *k.matmul;
  mm.kChunk = arch.mxu.rows;
  mm.nTile = arch.mxu.cols;
  mm.kChunks = ceilDiv(mm.k, mm.kChunk);
  mm.nTiles = ceilDiv(k.n, mm.nTile);
  mm.mxus = std::min<int64_t>(arch.mxu.count, mm.nTiles);
  mm.groups = ceilDiv(mm.nTiles, mm.mxus);
}

void plan(KernelSpec& k, const TpuArch& arch) {
  k.memory = planMemory(k, arch, arch.chip.tensorcores);
  k.cores = splitUnits(k.units(), arch.chip.tensorcores);
}

KernelSpec gemm(int64_t m, int64_t kk, int64_t n, const TpuArch& arch, bool transposed = false) {
  KernelSpec k;
  k.name = "gemm";
  k.where = "test";
  k.m = m;
  k.n = n;
  MatmulSpec mm;
  mm.k = kk;
  mm.lhs = {canonical("A", DType::BF16, kk)};
  mm.rhs = transposed ? canonical("B", DType::BF16, kk) : canonical("B", DType::BF16, n);
  mm.transposeRhs = transposed;
  k.matmul = mm;
  tile(k, arch);
  VOp acc;
  acc.kind = VKind::Acc;
  k.ops.push_back(acc);
  k.outputs.push_back({0, canonical("C", DType::F32, n)});
  plan(k, arch);
  return k;
}

std::string program(const KernelSpec& k, std::vector<ProgramSpec::Arg> args, const TpuArch& arch) {
  ProgramSpec p;
  p.name = k.name;
  p.args = std::move(args);
  p.kernels.push_back(k);
  return emitProgram(p, arch);
}

/// expectResident: 1 resident RHS, 0 streamed panels, -1 either.
void checkGemm(int64_t m, int64_t kk, int64_t n, const TpuArch& arch, bool transposed = false,
               int expectResident = 1) {
  KernelSpec k = gemm(m, kk, n, arch, transposed);
  if (expectResident >= 0) {
    EXPECT_EQ(k.memory.rhsResident, expectResident == 1) << m << "x" << kk << "x" << n;
  }
  std::vector<int64_t> bShape =
      transposed ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n};
  std::string text = program(k,
                             {{"A", false, DType::BF16, {m, kk}},
                              {"B", false, DType::BF16, bShape},
                              {"C", true, DType::F32, {m, n}}},
                             arch);
  NpyArray a = randomF32({m, kk}, 1), b = randomF32(bShape, 2);
  TpuRun r;
  try {
    r = runTpu(text, {{"A", a}, {"B", b}}, arch);
  } catch (const Error& e) {
    FAIL() << e.what() << "\n" << text;
  }
  std::vector<float> x = values(roundedToBf16(a)), y = values(roundedToBf16(b));
  std::vector<float> c = values(r.outputs.at("C"));
  ASSERT_EQ(c.size(), static_cast<size_t>(m * n));
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < kk; ++p)
        ref += double(x[i * kk + p]) * (transposed ? y[j * kk + p] : y[p * n + j]);
      worst = std::max(worst, std::fabs(c[i * n + j] - ref) / (1 + std::fabs(ref)));
    }
  EXPECT_LT(worst, 1e-4) << m << "x" << kk << "x" << n;
}

TEST(TpucEmit, GemmAwkwardShapes) {
  TpuArch arch = tpuArch();
  checkGemm(200, 300, 260, arch);
  checkGemm(1, 1, 1, arch);
  checkGemm(130, 129, 500, arch);
  // 37 rows make one unit that uses the RHS once: streaming it in K panels lets the first
  // folds start before all of it has landed, so the planner may stream it.
  checkGemm(37, 700, 131, arch, true, -1);
  checkGemm(200, 300, 260, arch, true);
}

TEST(TpucEmit, GemmStreamsPanelsWhenVmemIsSmall) {
  // 1 MiB of VMEM: the 768 KiB RHS cannot stay resident next to the other buffers.
  TpuArch arch = tpuArch({"vmem.bytes=1048576"});
  checkGemm(300, 640, 600, arch, false, 0);
  checkGemm(64, 640, 600, arch, true, 0);
}

TEST(TpucEmit, GemmOnTwoTensorCores) {
  checkGemm(256, 256, 384, tpuArch({}, "v4"), false, -1);
  checkGemm(256, 1024, 512, tpuArch({"vmem.bytes=1048576"}, "v4"), false, 0);
}

/// A fused softmax over rows of X [45, 300]; with `unusedColumn`, also a reduction of the
/// result and a per-row value made from it that nothing reads (as a mutated layer norm's
/// rstd was).
void checkFusedSoftmax(bool unusedColumn) {
  TpuArch arch = tpuArch();
  const int64_t m = 45, n = 300;
  KernelSpec k;
  k.name = "softmax";
  k.where = "test";
  k.m = m;
  k.n = n;
  VInput input;
  input.access = canonical("X", DType::F32, n);
  k.inputs.push_back(input);
  auto add = [&](VOp o) {
    k.ops.push_back(o);
    return static_cast<int>(k.ops.size() - 1);
  };
  VOp load;
  load.kind = VKind::Load;
  load.input = 0;
  int x = add(load);
  VOp mx;
  mx.kind = VKind::Reduce;
  mx.op = tpuprog::Opcode::VMax;
  mx.column = true;
  mx.a = x;
  mx.value = -3.4e38;
  mx.hasInit = true;
  int mxv = add(mx);
  VOp sub;
  sub.kind = VKind::Binary;
  sub.op = tpuprog::Opcode::VSub;
  sub.a = x;
  sub.b = mxv;
  int d = add(sub);
  VOp ex;
  ex.kind = VKind::Unary;
  ex.op = tpuprog::Opcode::VExp;
  ex.a = d;
  int e = add(ex);
  VOp sum;
  sum.kind = VKind::Reduce;
  sum.op = tpuprog::Opcode::VAdd;
  sum.column = true;
  sum.a = e;
  int s = add(sum);
  VOp div;
  div.kind = VKind::Binary;
  div.op = tpuprog::Opcode::VDiv;
  div.a = e;
  div.b = s;
  int y = add(div);
  if (unusedColumn) { // the sum of each row of Y (a last pass of its own), and its reciprocal
    VOp total;
    total.kind = VKind::Reduce;
    total.op = tpuprog::Opcode::VAdd;
    total.column = true;
    total.a = y;
    VOp rcp;
    rcp.kind = VKind::Unary;
    rcp.op = tpuprog::Opcode::VRcp;
    rcp.column = true;
    rcp.a = add(total);
    add(rcp);
  }
  k.outputs.push_back({y, canonical("Y", DType::BF16, n)});
  plan(k, arch);
  std::string text =
      program(k, {{"X", false, DType::F32, {m, n}}, {"Y", true, DType::BF16, {m, n}}}, arch);
  NpyArray in = randomF32({m, n}, 3, 3.0f);
  TpuRun r;
  try {
    r = runTpu(text, {{"X", in}}, arch);
  } catch (const Error& e) {
    FAIL() << e.what() << "\n" << text;
  }
  std::vector<float> xv = values(in), yv = values(r.outputs.at("Y"));
  for (int64_t i = 0; i < m; ++i) {
    double mxr = -1e30, sumr = 0;
    for (int64_t j = 0; j < n; ++j) mxr = std::max(mxr, double(xv[i * n + j]));
    for (int64_t j = 0; j < n; ++j) sumr += std::exp(xv[i * n + j] - mxr);
    for (int64_t j = 0; j < n; ++j) {
      const double ref = std::exp(xv[i * n + j] - mxr) / sumr;
      ASSERT_NEAR(yv[i * n + j], ref, 4e-3 * ref + 1e-6) << i << "," << j << "\n" << text;
    }
  }
}

TEST(TpucEmit, FusedSoftmax) {
  checkFusedSoftmax(false);
}

TEST(TpucEmit, APerRowValueNothingReadsIsNotComputed) {
  // It would be ready only after the last pass (found by fuzz_graph: the planner placed it
  // in a pass past the end).
  checkFusedSoftmax(true);
}

} // namespace
} // namespace chipless::test

namespace chipless::test {
namespace {

TEST(TpucEmit, Gemm4096KeepsTheMxusBusy) {
  // A compute-bound GEMM: the emitted pipeline keeps the MXUs at least 90% busy on v5e.
  TpuArch arch = tpuArch();
  KernelSpec k = gemm(4096, 4096, 4096, arch);
  std::string text = program(k,
                             {{"A", false, DType::BF16, {4096, 4096}},
                              {"B", false, DType::BF16, {4096, 4096}},
                              {"C", true, DType::F32, {4096, 4096}}},
                             arch);
  TpuRun r = runTpu(text, {}, arch, 1, true);
  EXPECT_GE(r.stats.get("utilization.mxu"), 0.90);
  EXPECT_GE(r.cycles, 4096.0 * 4096 * 4096 / (128 * 128 * 4));
}

} // namespace
} // namespace chipless::test

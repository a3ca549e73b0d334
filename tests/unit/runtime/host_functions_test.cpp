/// Tests of the functions a plan runs on the host (ComputeOnHost): copy, add, scale,
/// sum_rows and the errors each reports.
#include "runtime/host_functions.h"
#include "tests/unit/util/runtime_test_util.h"

namespace chipless::runtime {
namespace {

using namespace test;
using nlohmann::json;

TEST(HostFunctions, Copy) {
  NpyArray in = hostArray(DType::F16, {2, 3}, [](size_t i) { return i * 0.5 - 1; });
  auto out = runHostFunction("copy", {in}, {{3, 2}}, json::object());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype, DType::F32); // arithmetic and results are fp32
  EXPECT_EQ(out[0].shape, (std::vector<int64_t>{3, 2}));
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(at(out[0], i), i * 0.5 - 1) << i;
}

TEST(HostFunctions, Add) {
  NpyArray a = hostArray(DType::F32, {4}, [](size_t i) { return i + 0.25; });
  NpyArray b = hostArray(DType::F16, {2, 2}, [](size_t i) { return 10.0 * i; });
  auto out = runHostFunction("add", {a, b}, {{4}}, {});
  ASSERT_EQ(out.size(), 1u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(at(out[0], i), i + 0.25 + 10.0 * i) << i;
}

TEST(HostFunctions, Scale) {
  NpyArray a = hostArray(DType::F32, {5}, [](size_t i) { return i - 2.0; });
  auto out = runHostFunction("scale", {a}, {{5}}, json{{"alpha", -1.5}});
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(at(out[0], i), (i - 2.0) * -1.5) << i;
  out = runHostFunction("scale", {a}, {{5}}, json{{"alpha", 3}}); // integers are numbers too
  EXPECT_EQ(at(out[0], 4), 6.0);
}

TEST(HostFunctions, SumRows) {
  NpyArray a = hostArray(DType::F32, {3, 4}, [](size_t i) { return static_cast<double>(i); });
  auto out = runHostFunction("sum_rows", {a}, {{4}}, {});
  ASSERT_EQ(out[0].shape, (std::vector<int64_t>{4}));
  // Column j: j + (4 + j) + (8 + j).
  for (size_t j = 0; j < 4; ++j) EXPECT_EQ(at(out[0], j), 12.0 + 3.0 * j) << j;
  // Any output shape with as many elements as columns.
  out = runHostFunction("sum_rows", {a}, {{1, 4}}, {});
  EXPECT_EQ(out[0].shape, (std::vector<int64_t>{1, 4}));
}

TEST(HostFunctions, Errors) {
  NpyArray v4 = hostArray(DType::F32, {4}, [](size_t i) { return i; });
  NpyArray v5 = hostArray(DType::F32, {5}, [](size_t i) { return i; });
  NpyArray m = hostArray(DType::F32, {2, 2}, [](size_t i) { return i; });
  NpyArray ints = hostArray(DType::I32, {4}, [](size_t i) { return i; });

  std::string e = errorOf([&] { runHostFunction("fft", {v4}, {{4}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost fft");
  EXPECT_CONTAINS(e, "unknown host function");
  EXPECT_CONTAINS(e, "copy, add, scale, sum_rows");

  e = errorOf([&] { runHostFunction("add", {v4}, {{4}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost add: takes 2 input(s) and 1 output(s), got 1 and 1");
  e = errorOf([&] { runHostFunction("copy", {v4}, {{4}, {4}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost copy: takes 1 input(s) and 1 output(s), got 1 and 2");

  e = errorOf([&] { runHostFunction("copy", {v4}, {{5}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost copy: output has 5 elements, input 4");
  e = errorOf([&] { runHostFunction("add", {v4, v5}, {{4}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost add: inputs have 4 and 5 elements");
  e = errorOf([&] { runHostFunction("add", {v4, v4}, {{2, 3}}, {}); });
  EXPECT_CONTAINS(e, "output has 6 elements, input 4");

  e = errorOf([&] { runHostFunction("scale", {v4}, {{4}}, json::object()); });
  EXPECT_CONTAINS(e, "ComputeOnHost scale: metadata.alpha must be a number");
  e = errorOf([&] { runHostFunction("scale", {v4}, {{4}}, json{{"alpha", "two"}}); });
  EXPECT_CONTAINS(e, "metadata.alpha must be a number");

  e = errorOf([&] { runHostFunction("sum_rows", {v4}, {{4}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost sum_rows: input must be 2-D");
  e = errorOf([&] { runHostFunction("sum_rows", {m}, {{3}}, {}); });
  EXPECT_CONTAINS(e, "output has 3 elements, input 2");

  e = errorOf([&] { runHostFunction("copy", {ints}, {{4}}, {}); });
  EXPECT_CONTAINS(e, "ComputeOnHost copy: integer tensors are not supported");
}

} // namespace
} // namespace chipless::runtime

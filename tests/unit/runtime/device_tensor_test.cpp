// Device tensors (runtime::DeviceTensor): tensors kept in device memory between launches in
// the device's canonical layout, written and read with their modelled host-link time, and
// bound to a program's arguments in place — the memory model of the PyTorch devices.
#include "runtime/device.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "tests/unit/util/runtime_test_util.h"

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

namespace chipless::runtime {
namespace {

using test::errorOf;
using test::kCopy;
using test::workDir;

/// Y = X through VMEM, X and Y of R rows, tile `tile` ("1x128" is the canonical layout).
std::string tpuCopy(const std::string& tile) {
  return R"(
.kernel copy
.scalar R
.input  X f32 [R, 100] tile=)" +
         tile + R"(
.output Y f32 [R, 100] tile=)" +
         tile + R"(
.program cores=0
    mul   s1, @X.p0, @X.p1
    shl   s1, s1, 2
    dma.in dst=0, src=@X, bytes=s1, sem=0
    sem.wait 0
    dma.out dst=@Y, src=0, bytes=s1, sem=1
    sem.wait 1
.end
)";
}

std::string tpuProgram(const std::string& dir, const TpuArch& arch, const std::string& tile) {
  tpuprog::writeJob(dir + "/copy", tpuprog::assemble(tpuCopy(tile), "copy.s",
                                                     tpuprog::AssembleOptions::forArch(arch)));
  return dir + "/copy/job.plan";
}

NpyArray ramp(DType dtype, std::vector<int64_t> shape) {
  NpyArray a = makeNpy(dtype, std::move(shape));
  for (size_t i = 0; i < a.elements(); ++i) {
    if (dtype == DType::F32) {
      float v = static_cast<float>(i) * 0.25f - 7.0f;
      std::memcpy(a.data.data() + i * 4, &v, 4);
    } else {
      a.data[i * 2] = static_cast<uint8_t>(i % 251);
      a.data[i * 2 + 1] = static_cast<uint8_t>(0x30 + i % 7); // finite f16 values
    }
  }
  return a;
}

TEST(DeviceTensor, ATpuTensorRoundTripsThroughItsPaddedLayoutWithItsLinkTime) {
  TpuArch arch = TpuArch::load(TpuArch::resolveFile("v5e"));
  std::unique_ptr<Device> device = Device::open(ChipKind::Tpu, arch.description);
  // (3, 100) f32 is stored as (3, 128): the last dimension padded to vpu.lanes.
  EXPECT_EQ(device->tensorBytes(DType::F32, {3, 100}), 3u * 128 * 4);
  EXPECT_EQ(device->tensorBytes(DType::BF16, {100}), 128u * 2);
  const uint64_t bytes = device->tensorBytes(DType::F32, {3, 100});
  DeviceTensor t{device->allocate(bytes, "t"), DType::F32, {3, 100}};
  NpyArray x = ramp(DType::F32, {3, 100});
  const double in = device->writeTensor(t, x, "x");
  EXPECT_DOUBLE_EQ(in, arch.description.getFloat("host.link_latency_us") * 1e-6 +
                           bytes / (arch.description.getFloat("host.link_gb_s") * 1e9));
  double out = 0;
  NpyArray back = device->readTensor(t, out);
  EXPECT_EQ(back.shape, x.shape);
  EXPECT_EQ(back.data, x.data);
  EXPECT_DOUBLE_EQ(out, in);
}

TEST(DeviceTensor, ASpyreTensorLiesInSticks) {
  SpyreArch arch = SpyreArch::load(SpyreArch::defaultFile(), {"chip.cores=2"});
  std::unique_ptr<Device> device = Device::open(ChipKind::Spyre, arch.description);
  // (1000, 200) f16: 4 sticks of 64 per row, 1000 rows of each.
  EXPECT_EQ(device->tensorBytes(DType::F16, {1000, 200}), 4u * 1000 * 128);
  // (1024, 256): each of the 4 columns of 128 KB would start in the same DRAM channel, so the
  // columns are padded to 1056 rows, as the front end lays out its programs' arguments.
  EXPECT_EQ(device->tensorBytes(DType::F16, {1024, 256}), 4u * 1056 * 128);
  DeviceTensor t{
      device->allocate(device->tensorBytes(DType::F16, {5, 70}), "t"), DType::F16, {5, 70}};
  NpyArray x = ramp(DType::F16, {5, 70});
  device->writeTensor(t, x, "x");
  double seconds = 0;
  EXPECT_EQ(device->readTensor(t, seconds).data, x.data);
  EXPECT_GT(seconds, 0);
}

TEST(DeviceTensor, ALaunchReadsAndWritesDeviceTensorsInPlace) {
  TpuArch arch = TpuArch::load(TpuArch::resolveFile("v5e"));
  std::unique_ptr<Device> device = Device::open(ChipKind::Tpu, arch.description);
  std::unique_ptr<Program> program = device->prepare(tpuProgram(workDir(), arch, "1x128"));
  const std::vector<int64_t> shape{13, 100};
  DeviceTensor x{device->allocate(device->tensorBytes(DType::F32, shape), "x"), DType::F32, shape};
  DeviceTensor y{device->allocate(device->tensorBytes(DType::F32, shape), "y"), DType::F32, shape};
  NpyArray data = ramp(DType::F32, shape);
  device->writeTensor(x, data, "x");
  LaunchArgs args;
  args.resident = {{"X", x}, {"Y", y}}; // R is read off X's shape
  LaunchReport r = device->launch(*program, args);
  EXPECT_TRUE(r.outputs.empty()); // Y stayed on the device
  EXPECT_GT(r.cycles, 0);
  double seconds = 0;
  EXPECT_EQ(device->readTensor(y, seconds).data, data.data);
  // A host input and a device output mix.
  NpyArray other = ramp(DType::F32, shape);
  for (auto& b : other.data) b = static_cast<uint8_t>(b ^ 0x01);
  LaunchArgs mixed;
  mixed.inputs["X"] = other;
  mixed.resident = {{"Y", y}};
  device->launch(*program, mixed);
  EXPECT_EQ(device->readTensor(y, seconds).data, other.data);
}

TEST(DeviceTensor, ASpyreLaunchBindsDeviceTensors) {
  SpyreArch arch = SpyreArch::load(SpyreArch::defaultFile(), {"chip.cores=2"});
  std::unique_ptr<Device> device = Device::open(ChipKind::Spyre, arch.description);
  const std::string dir = workDir();
  spyrecode::writeJob(
      dir + "/copy",
      spyrecode::assemble(kCopy, "copy.s", spyrecode::AssembleOptions::forArch(arch)));
  std::unique_ptr<Program> program = device->prepare(dir + "/copy/job.plan");
  DeviceTensor a{
      device->allocate(device->tensorBytes(DType::F16, {4, 64}), "a"), DType::F16, {4, 64}};
  DeviceTensor c{
      device->allocate(device->tensorBytes(DType::F16, {4, 64}), "c"), DType::F16, {4, 64}};
  NpyArray data = ramp(DType::F16, {4, 64});
  device->writeTensor(a, data, "a");
  LaunchArgs args;
  args.resident = {{"A", a}, {"C", c}};
  EXPECT_TRUE(device->launch(*program, args).outputs.empty());
  double seconds = 0;
  EXPECT_EQ(device->readTensor(c, seconds).data, data.data);
}

TEST(DeviceTensor, BindingErrorsNameTheTensorAndWhatIsWrong) {
  TpuArch arch = TpuArch::load(TpuArch::resolveFile("v5e"));
  std::unique_ptr<Device> device = Device::open(ChipKind::Tpu, arch.description);
  const std::string dir = workDir();
  std::unique_ptr<Program> canonical = device->prepare(tpuProgram(dir, arch, "1x128"));
  std::unique_ptr<Program> tiled = device->prepare(tpuProgram(dir + "/tiled", arch, "8x128"));
  const std::vector<int64_t> shape{8, 100};
  const uint64_t bytes = device->tensorBytes(DType::F32, shape);
  DeviceTensor x{device->allocate(bytes, "x"), DType::F32, shape};
  DeviceTensor y{device->allocate(bytes, "y"), DType::F32, shape};
  auto launch = [&](Program& p, std::map<std::string, DeviceTensor> resident,
                    std::map<std::string, NpyArray> inputs = {}) {
    return errorOf([&] {
      LaunchArgs args;
      args.inputs = std::move(inputs);
      args.resident = std::move(resident);
      device->launch(p, args);
    });
  };
  EXPECT_CONTAINS(launch(*tiled, {{"X", x}, {"Y", y}}),
                  "device tensor 'X': copy lays the argument out as tile 8x128, not in the "
                  "device's canonical layout tile 1x128");
  EXPECT_CONTAINS(launch(*canonical, {{"X", {x.address, DType::BF16, shape}}, {"Y", y}}),
                  "device tensor 'X' is bf16 but copy expects f32");
  EXPECT_CONTAINS(launch(*canonical, {{"X", x}, {"Y", {y.address, DType::F32, {4, 100}}}}),
                  "device tensor 'Y' dimension 0 is 4, but scalar R is 8 (from device tensor 'X' "
                  "dimension 0)");
  EXPECT_CONTAINS(launch(*canonical, {{"X", x}, {"Y", {y.address, DType::F32, {8, 90}}}}),
                  "device tensor 'Y' has shape (8, 90) but copy expects (8, 100)");
  EXPECT_CONTAINS(launch(*canonical, {{"X", x}, {"Z", y}}),
                  "device tensor 'Z' is not an argument of copy");
  EXPECT_CONTAINS(launch(*canonical, {{"X", x}, {"Y", y}}, {{"X", ramp(DType::F32, shape)}}),
                  "'X' is bound both to a host array and to a device tensor");
  EXPECT_CONTAINS(launch(*canonical, {{"X", x}, {"Y", {y.address + 512, DType::F32, shape}}}),
                  "are not inside one allocation of tpu:");
  device->release(y.address);
  EXPECT_CONTAINS(launch(*canonical, {{"X", x}, {"Y", y}}), "are not inside one allocation");
  EXPECT_CONTAINS(errorOf([&] {
                    device->writeTensor(x, ramp(DType::F32, {4, 100}), "w");
                  }),
                  "w: the host array has shape (4, 100) but the device tensor (8, 100)");
  double seconds = 0;
  EXPECT_CONTAINS(errorOf([&] {
                    device->readTensor({x.address, DType::F32, {0, 3}}, seconds);
                  }),
                  "has an empty dimension");
}

} // namespace
} // namespace chipless::runtime

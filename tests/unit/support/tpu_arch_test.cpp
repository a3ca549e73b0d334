/// The shipped TPU architecture descriptions (models/hw/tpu-*.yaml) read as TpuArch: every
/// file reproduces its generation's published bf16 peak, every value carries a source
/// comment, the strict schema rejects bad files naming file, line and key, and `--set`
/// overrides and generation names resolve.
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/tpu_arch.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <unistd.h>

namespace chipless {
namespace {

namespace fs = std::filesystem;

std::string hwFile(const std::string& gen) {
  return std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/tpu-" + gen + ".yaml";
}

/// Published peak bf16 TFLOP/s per chip (spec/TPU.md, Google Cloud TPU documentation).
const std::map<std::string, double> kPublishedPeak = {
    {"v4", 275}, {"v5e", 197}, {"v5p", 459}, {"v6e", 918}};

TEST(TpuArch, EveryGenerationReproducesItsPublishedBf16Peak) {
  for (const auto& [gen, peak] : kPublishedPeak) {
    TpuArch a = TpuArch::load(hwFile(gen));
    EXPECT_EQ(a.chip.generation, gen);
    // TensorCores x MXUs x R x C x 2 x clock.
    double tflops = double(a.chip.tensorcores) * a.mxu.count * a.mxu.rows * a.mxu.cols * 2 *
                    a.chip.clock_ghz / 1000.0;
    EXPECT_NEAR(tflops, peak, 0.01 * peak) << gen;
    EXPECT_NEAR(a.peakBf16Tflops(), peak, 0.01 * peak) << gen;
  }
}

TEST(TpuArch, ShippedValuesMatchTheSpec) {
  TpuArch v4 = TpuArch::load(hwFile("v4"));
  EXPECT_EQ(v4.chip.tensorcores, 2);
  EXPECT_EQ(v4.mxu.count, 4);
  EXPECT_EQ(v4.hbm.capacity_bytes, int64_t{32} << 30);
  EXPECT_EQ(v4.hbm.bandwidth_gb_s, 1200);
  EXPECT_EQ(v4.vmem.bytes, int64_t{16} << 20);
  EXPECT_EQ(v4.vmem.cmem_bytes, int64_t{128} << 20);
  EXPECT_EQ(v4.ici.topology, "torus3d");
  EXPECT_EQ(v4.ici.links, 6);
  EXPECT_EQ(v4.ici.bandwidth_gb_s, 45);

  TpuArch v5e = TpuArch::load(hwFile("v5e"));
  EXPECT_EQ(v5e.chip.tensorcores, 1);
  EXPECT_EQ(v5e.mxu.rows, 128);
  EXPECT_EQ(v5e.mxu.cols, 128);
  EXPECT_TRUE(v5e.mxu.overlap_weight_load);
  EXPECT_EQ(v5e.hbm.bandwidth_gb_s, 819);
  EXPECT_EQ(v5e.vmem.bytes, int64_t{128} << 20);
  EXPECT_EQ(v5e.ici.topology, "torus2d");
  EXPECT_EQ(v5e.ici.links, 4);
  EXPECT_EQ(v5e.vpu.sublanes, 8);
  EXPECT_EQ(v5e.vpu.lanes, 128);
  EXPECT_EQ(v5e.vpu.registers, 32);
  EXPECT_EQ(v5e.vpu.latency_cycles, 2);
  EXPECT_EQ(v5e.vregBytes(), 4096);

  TpuArch v5p = TpuArch::load(hwFile("v5p"));
  EXPECT_EQ(v5p.chip.tensorcores, 2);
  EXPECT_EQ(v5p.hbm.capacity_bytes, int64_t{95} << 30);
  EXPECT_EQ(v5p.hbm.bandwidth_gb_s, 2765);
  EXPECT_EQ(v5p.vmem.bytes, int64_t{64} << 20);

  TpuArch v6e = TpuArch::load(hwFile("v6e"));
  EXPECT_EQ(v6e.mxu.count, 2);
  EXPECT_EQ(v6e.mxu.rows, 256);
  EXPECT_EQ(v6e.hbm.bandwidth_gb_s, 1640);
  EXPECT_EQ(v6e.ici.bandwidth_gb_s, 100);
}

TEST(TpuArch, TheOtherV6eMxuCountGivesTheSamePeak) {
  // One documentation revision says 4 MXUs per TensorCore; the file says where and how.
  TpuArch a = TpuArch::load(hwFile("v6e"), {"mxu.count=4", "chip.clock_ghz=1.751"});
  EXPECT_NEAR(a.peakBf16Tflops(), 918, 9.18);
  std::string text = readFile(hwFile("v6e"));
  EXPECT_NE(text.find("sources disagree"), std::string::npos);
  EXPECT_NE(text.find("--set mxu.count=4 --set chip.clock_ghz=1.751"), std::string::npos);
}

TEST(TpuArch, EveryFileHasEveryKeyOfTheSchemaAndNoOther) {
  // load() is strict both ways; a resolved file reloads to the same values.
  for (const auto& [gen, peak] : kPublishedPeak) {
    TpuArch a = TpuArch::load(hwFile(gen));
    fs::path tmp = fs::temp_directory_path() /
                   ("chipless_tpu_arch_" + std::to_string(getpid()) + "_" + gen + ".yaml");
    a.description.writeResolved(tmp.string());
    TpuArch b = TpuArch::load(tmp.string());
    // Equal values: the same text after the header that names the source file.
    EXPECT_EQ(b.description.toYaml().substr(b.description.toYaml().find("\nchip:")),
              a.description.toYaml().substr(a.description.toYaml().find("\nchip:")));
    EXPECT_EQ(b.peakBf16FlopsPerCycle(), a.peakBf16FlopsPerCycle());
    fs::remove(tmp);
  }
}

class TpuArchFile : public ::testing::Test {
protected:
  void SetUp() override {
    path = (fs::temp_directory_path() /
            ("chipless_tpu_arch_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml"))
               .string();
    text = readFile(hwFile("v5e"));
  }
  void TearDown() override { fs::remove(path); }
  /// Replaces the first occurrence of `from` and returns the load error message.
  std::string errorAfter(const std::string& from, const std::string& to) {
    std::string t = text;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    writeFileAtomically(path, t);
    try {
      TpuArch::load(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  std::string path, text;
};

TEST_F(TpuArchFile, UnknownKeyNamesFileLineAndSuggestion) {
  std::string msg = errorAfter("  rows: 128", "  rowz: 128");
  EXPECT_NE(msg.find(path + ":"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mxu.rowz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'mxu.rows'"), std::string::npos) << msg;
}

TEST_F(TpuArchFile, WrongTypeAndRangeAndChoices) {
  EXPECT_NE(errorAfter("  count: 4", "  count: four").find("expected an integer"),
            std::string::npos);
  EXPECT_NE(errorAfter("  count: 4", "  count: 0").find("out of range"), std::string::npos);
  EXPECT_NE(errorAfter("topology: torus2d", "topology: mesh").find("not one of"),
            std::string::npos);
  EXPECT_NE(errorAfter("overlap_weight_load: true", "overlap_weight_load: yes")
                .find("expected true or false"),
            std::string::npos);
}

TEST_F(TpuArchFile, MissingKeyIsAnError) {
  std::string msg = errorAfter("  semaphores: 32\n", "");
  EXPECT_NE(msg.find("scalar.semaphores"), std::string::npos) << msg;
}

TEST_F(TpuArchFile, CrossFieldChecksNameTheKeys) {
  std::string msg = errorAfter("  links: 4", "  links: 6");
  EXPECT_NE(msg.find("ici.links"), std::string::npos) << msg;
  EXPECT_NE(msg.find("torus2d"), std::string::npos) << msg;
  msg = errorAfter("  interleave_bytes: 1024", "  interleave_bytes: 1000");
  EXPECT_NE(msg.find("power of two"), std::string::npos) << msg;
}

TEST(TpuArch, OverridesApplyAndAreChecked) {
  TpuArch a = TpuArch::load(hwFile("v5e"), {"mxu.overlap_weight_load=false", "mxu.count=1"});
  EXPECT_FALSE(a.mxu.overlap_weight_load);
  EXPECT_EQ(a.mxu.count, 1);
  try {
    TpuArch::load(hwFile("v5e"), {"ici.topology=ring"});
    FAIL() << "ring with 4 links accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ici.links (4) must be 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(ring)"), std::string::npos) << e.what();
  }
  TpuArch ring = TpuArch::load(hwFile("v5e"), {"ici.topology=ring", "ici.links=2"});
  EXPECT_EQ(ring.ici.topology, "ring");
  EXPECT_THROW(TpuArch::load(hwFile("v5e"), {"mxu.colz=3"}), Error);
}

TEST(TpuArch, GenerationNamesResolveToTheShippedFiles) {
  for (const auto& g : TpuArch::generations()) {
    EXPECT_TRUE(fs::exists(TpuArch::resolveFile(g))) << g;
    EXPECT_EQ(TpuArch::load(TpuArch::resolveFile("tpu-" + g)).chip.generation, g);
  }
  EXPECT_EQ(TpuArch::resolveFile("some/file.yaml"), "some/file.yaml");
  EXPECT_EQ(TpuArch::load(TpuArch::resolveFile("")).chip.generation, "v5e");
}

TEST(TpuArch, DerivedRates) {
  TpuArch a = TpuArch::load(hwFile("v5e"));
  EXPECT_NEAR(a.hbmBytesPerCycle(), 819 / 1.503, 1e-9);
  EXPECT_NEAR(a.hbmLatencyCycles(), 500 * 1.503, 1e-9);
  EXPECT_NEAR(a.iciBytesPerCycle(), 50 / 1.503, 1e-9);
  EXPECT_EQ(a.fp32Passes(), 3);
  EXPECT_EQ(a.peakBf16FlopsPerCycle(), 4 * 128 * 128 * 2);
}

} // namespace
} // namespace chipless

#include "support/tpu_arch.h"

#include "support/error.h"
#include "support/param_decl.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef CHIPLESS_SOURCE_DIR
#error "CHIPLESS_SOURCE_DIR must be defined by the build (support/CMakeLists.txt)"
#endif

namespace chipless {

using namespace archparams;

namespace {

constexpr const char* kDefaultGeneration = "v5e";

} // namespace

const std::vector<ParamDecl>& TpuArch::schema() {
  static const std::vector<ParamDecl> decls = {
      {"chip.generation", ParamType::String, 0, 0, {}, "", "TPU generation, for reports"},
      floatParam("chip.clock_ghz", 0.01, 10, "GHz", "TensorCore clock"),
      intParam("chip.tensorcores", 1, 16, "TensorCores", "TensorCores per chip, sharing HBM"),

      intParam("mxu.count", 1, 64, "MXUs", "matrix units per TensorCore"),
      intParam("mxu.rows", 1, 1024, "PEs", "rows R of the systolic array (contraction depth)"),
      intParam("mxu.cols", 1, 1024, "PEs", "columns C of the systolic array (output width)"),
      {"mxu.overlap_weight_load",
       ParamType::Bool,
       0,
       0,
       {},
       "",
       "load the next fold's weights while the current fold streams"},
      intParam("mxu.int8_speedup", 1, 4, "rows/cycle", "int8 activation rows streamed per cycle"),

      intParam("vpu.sublanes", 1, 64, "sublanes", "rows of a vector register"),
      intParam("vpu.lanes", 1, 4096, "lanes", "columns of a vector register (32-bit each)"),
      intParam("vpu.registers", 1, 256, "registers", "vector registers"),
      intParam("vpu.latency_cycles", 1, 1000, "cycles", "latency of simple element-wise ops"),
      intParam("vpu.transcendental_latency_cycles", 1, 1000, "cycles",
               "latency of exp, log, reciprocal, rsqrt, sqrt, tanh"),
      intParam("vpu.transcendental_interval_cycles", 1, 1000, "cycles",
               "issue interval of transcendental ops per register"),

      intParam("scalar.registers", 4, 1024, "registers", "scalar registers s0.."),
      intParam("scalar.slots", 1, 8, "ops", "scalar ops per bundle"),
      intParam("scalar.cycles_per_bundle", 1, 1000, "cycles", "issue interval of bundles"),
      intParam("scalar.semaphores", 1, 65536, "semaphores", "semaphores per TensorCore"),
      intParam("scalar.smem_latency_cycles", 0, 1000, "cycles", "latency of a load from SMEM"),

      intParam("vmem.bytes", 64 * kKiB, 64 * kGiB, "bytes", "VMEM per TensorCore"),
      intParam("vmem.bytes_per_cycle", 1, 1 << 24, "bytes/cycle",
               "VMEM bandwidth of one vector load or store slot"),
      intParam("vmem.cmem_bytes", 0, 64 * kGiB, "bytes", "CMEM per chip (not modelled)"),

      intParam("smem.bytes", 64, 1 * kGiB, "bytes", "SMEM per TensorCore"),

      intParam("hbm.capacity_bytes", 1 << 20, 1024 * kGiB, "bytes", "HBM per chip"),
      floatParam("hbm.bandwidth_gb_s", 1, 1e6, "GB/s", "HBM bandwidth, all channels"),
      floatParam("hbm.latency_ns", 0, 1e6, "ns", "HBM access latency"),
      intParam("hbm.channels", 1, 4096, "channels", "HBM channels"),
      intParam("hbm.interleave_bytes", 32, 1 * kGiB, "bytes",
               "channel interleaving granularity; a power of two"),
      intParam("hbm.alignment_bytes", 1, 1 * kGiB, "bytes",
               "alignment of allocations; a power of two"),

      intParam("dma.engines", 1, 256, "engines", "DMA engines per TensorCore"),
      intParam("dma.bytes_per_cycle", 1, 1 << 24, "bytes/cycle", "issue rate of one engine"),
      intParam("dma.setup_cycles", 0, 1000000, "cycles", "setup per DMA descriptor"),
      intParam("dma.alignment_bytes", 1, 1 << 20, "bytes",
               "DMA addresses, row sizes and strides are multiples; a power of two"),

      choiceParam("ici.topology", {"ring", "torus2d", "torus3d"},
                  "how chips are joined: ring, 2-D torus or 3-D torus"),
      intParam("ici.links", 2, 6, "links", "ICI links per chip: 2 (ring), 4 or 6 (tori)"),
      floatParam("ici.bandwidth_gb_s", 0.01, 1e6, "GB/s", "one way, per link"),
      floatParam("ici.latency_ns", 0, 1e7, "ns", "latency of one hop"),

      choiceParam("numerics.fp32_matmul_precision", {"bf16", "bf16x3", "bf16x6"},
                  "MXU passes for fp32 inputs: bf16 (1), bf16x3 (3) or bf16x6 (6)"),
  };
  return decls;
}

TpuArch TpuArch::load(const std::string& file, const std::vector<std::string>& overrides) {
  return fromDescription(ArchDescription::load(file, schema(), overrides));
}

TpuArch TpuArch::fromDescription(const ArchDescription& d) {
  TpuArch a;
  auto i32 = [&](const char* path) { return static_cast<int>(d.getInt(path)); };
  a.chip = {d.getString("chip.generation"), d.getFloat("chip.clock_ghz"), i32("chip.tensorcores")};
  a.mxu = {i32("mxu.count"), i32("mxu.rows"), i32("mxu.cols"), d.getBool("mxu.overlap_weight_load"),
           i32("mxu.int8_speedup")};
  a.vpu = {i32("vpu.sublanes"),
           i32("vpu.lanes"),
           i32("vpu.registers"),
           i32("vpu.latency_cycles"),
           i32("vpu.transcendental_latency_cycles"),
           i32("vpu.transcendental_interval_cycles")};
  a.scalar = {i32("scalar.registers"), i32("scalar.slots"), i32("scalar.cycles_per_bundle"),
              i32("scalar.semaphores"), i32("scalar.smem_latency_cycles")};
  a.vmem = {d.getInt("vmem.bytes"), d.getInt("vmem.bytes_per_cycle"), d.getInt("vmem.cmem_bytes")};
  a.smem = {d.getInt("smem.bytes")};
  a.hbm = {d.getInt("hbm.capacity_bytes"),   d.getFloat("hbm.bandwidth_gb_s"),
           d.getFloat("hbm.latency_ns"),     i32("hbm.channels"),
           d.getInt("hbm.interleave_bytes"), d.getInt("hbm.alignment_bytes")};
  a.dma = {i32("dma.engines"), d.getInt("dma.bytes_per_cycle"), i32("dma.setup_cycles"),
           d.getInt("dma.alignment_bytes")};
  a.ici = {d.getString("ici.topology"), i32("ici.links"), d.getFloat("ici.bandwidth_gb_s"),
           d.getFloat("ici.latency_ns")};
  a.numerics = {d.getString("numerics.fp32_matmul_precision")};
  a.description = d;

  auto check = [&](bool ok, const char* path, const std::string& message) {
    if (!ok) throw Error(d.locate(path, message));
  };
  auto str = [](int64_t x) { return std::to_string(x); };
  const int wantLinks = a.ici.topology == "ring" ? 2 : a.ici.topology == "torus2d" ? 4 : 6;
  check(a.ici.links == wantLinks, "ici.links",
        "ici.links (" + str(a.ici.links) + ") must be " + str(wantLinks) +
            ": two per dimension of ici.topology (" + a.ici.topology + ")");
  check(isPowerOfTwo(a.hbm.interleave_bytes), "hbm.interleave_bytes",
        "hbm.interleave_bytes (" + str(a.hbm.interleave_bytes) + ") must be a power of two");
  check(isPowerOfTwo(a.hbm.alignment_bytes), "hbm.alignment_bytes",
        "hbm.alignment_bytes (" + str(a.hbm.alignment_bytes) + ") must be a power of two");
  check(isPowerOfTwo(a.dma.alignment_bytes), "dma.alignment_bytes",
        "dma.alignment_bytes (" + str(a.dma.alignment_bytes) + ") must be a power of two");
  check(a.hbm.alignment_bytes % a.dma.alignment_bytes == 0, "hbm.alignment_bytes",
        "hbm.alignment_bytes (" + str(a.hbm.alignment_bytes) +
            ") must be a multiple of dma.alignment_bytes (" + str(a.dma.alignment_bytes) +
            ") so that every allocation can be a DMA target");
  check(a.hbm.capacity_bytes % a.hbm.alignment_bytes == 0, "hbm.capacity_bytes",
        "hbm.capacity_bytes (" + str(a.hbm.capacity_bytes) +
            ") must be a multiple of hbm.alignment_bytes (" + str(a.hbm.alignment_bytes) + ")");
  check(a.vmem.bytes % a.vregBytes() == 0, "vmem.bytes",
        "vmem.bytes (" + str(a.vmem.bytes) +
            ") must be a whole number of vector registers (vpu.sublanes x vpu.lanes x 4 = " +
            str(a.vregBytes()) + " bytes)");
  check(a.smem.bytes % 4 == 0, "smem.bytes",
        "smem.bytes (" + str(a.smem.bytes) + ") must be a whole number of 32-bit words");
  return a;
}

const std::vector<std::string>& TpuArch::generations() {
  static const std::vector<std::string> g = {"v4", "v5e", "v5p", "v6e"};
  return g;
}

namespace {

/// models/hw/<file> found like TpuArch::defaultFile() describes.
std::string hwFile(const std::string& file) {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("CHIPLESS_ARCH_DIR"); dir && *dir)
    return (fs::path(dir) / file).string();
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path candidate = exe.parent_path() / ".." / ".." / "models" / "hw" / file;
    if (fs::exists(candidate, ec)) return candidate.lexically_normal().string();
  }
  return (fs::path(CHIPLESS_SOURCE_DIR) / "models" / "hw" / file).string();
}

} // namespace

std::string TpuArch::resolveFile(const std::string& nameOrPath) {
  if (nameOrPath.empty()) return defaultFile();
  std::string gen = nameOrPath.rfind("tpu-", 0) == 0 ? nameOrPath.substr(4) : nameOrPath;
  for (const auto& g : generations())
    if (gen == g) return hwFile("tpu-" + g + ".yaml");
  return nameOrPath;
}

std::string TpuArch::defaultFile() {
  return hwFile(std::string("tpu-") + kDefaultGeneration + ".yaml");
}

double TpuArch::hbmBytesPerCycle() const {
  return hbm.bandwidth_gb_s / chip.clock_ghz;
}

double TpuArch::hbmLatencyCycles() const {
  return hbm.latency_ns * chip.clock_ghz;
}

double TpuArch::iciBytesPerCycle() const {
  return ici.bandwidth_gb_s / chip.clock_ghz;
}

double TpuArch::iciLatencyCycles() const {
  return ici.latency_ns * chip.clock_ghz;
}

int64_t TpuArch::peakBf16FlopsPerCycle() const {
  return int64_t{chip.tensorcores} * mxu.count * mxu.rows * mxu.cols * 2;
}

double TpuArch::peakBf16Tflops() const {
  return static_cast<double>(peakBf16FlopsPerCycle()) * chip.clock_ghz / 1000.0;
}

int TpuArch::fp32Passes() const {
  if (numerics.fp32_matmul_precision == "bf16") return 1;
  if (numerics.fp32_matmul_precision == "bf16x3") return 3;
  return 6;
}

} // namespace chipless

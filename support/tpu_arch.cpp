#include "support/tpu_arch.h"

#include "support/arch_files.h"
#include "support/error.h"

namespace chipless {

using namespace archparams;

// TpuArch::params() and TpuArch::schema(), from the table.
#define CHIPLESS_ARCH TpuArch
#define CHIPLESS_PARAMS_DEF "support/tpu_params.def"
#include "support/arch_table.inc"

TpuArch TpuArch::load(const std::string& file, const std::vector<std::string>& overrides) {
  return fromDescription(ArchDescription::load(file, schema(), overrides));
}

TpuArch TpuArch::fromDescription(const ArchDescription& d) {
  TpuArch a;
  params().fill(a, d);
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
  static const std::vector<std::string> g = [] {
    std::vector<std::string> names;
    for (const auto& b : bundledArchs())
      if (b.kind == ChipKind::Tpu) names.push_back(b.name);
    return names;
  }();
  return g;
}

std::string TpuArch::resolveFile(const std::string& nameOrPath) {
  return resolveArchFile(nameOrPath, ChipKind::Tpu);
}

std::string TpuArch::defaultFile() {
  return resolveFile("");
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

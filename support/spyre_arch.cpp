#include "support/spyre_arch.h"

#include "support/error.h"
#include "support/param_decl.h"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef CHIPLESS_SOURCE_DIR
#error "CHIPLESS_SOURCE_DIR must be defined by the build (support/CMakeLists.txt)"
#endif

namespace chipless {

using namespace archparams;

const std::vector<ParamDecl>& SpyreArch::schema() {
  static const std::vector<ParamDecl> decls = {
      floatParam("chip.clock_ghz", 0.01, 10, "GHz", "core clock"),
      intParam("chip.cores", 1, 1024, "cores", "cores on the ring"),
      intParam("chip.corelets_per_core", 1, 16, "corelets", "corelets per core"),
      intParam("chip.stick_bytes", 16, 4096, "bytes",
               "unit of DRAM-scratchpad transfers; a power of two"),

      intParam("pt.rows", 1, 256, "PEs", "PE rows of the PT array of one corelet"),
      intParam("pt.cols", 1, 256, "PEs", "PE columns of the PT array of one corelet"),
      intParam("pt.macs_per_pe_fp16", 1, 1024, "MAC/cycle", "fp16 MACs per PE per cycle"),
      intParam("pt.macs_per_pe_fp8", 0, 1024, "MAC/cycle",
               "fp8 MACs per PE per cycle (0: unsupported)"),
      intParam("pt.macs_per_pe_int8", 0, 1024, "MAC/cycle",
               "int8 MACs per PE per cycle (0: unsupported)"),
      intParam("pt.macs_per_pe_int4", 0, 1024, "MAC/cycle",
               "int4 MACs per PE per cycle (0: unsupported)"),
      intParam("pt.latency_cycles", 0, 100000, "cycles", "fill and drain of the PT array"),
      intParam("pt.accumulator_bytes", 0, 1 * kGiB, "bytes",
               "fp32 accumulator storage per corelet"),

      intParam("sfu.lanes", 1, 4096, "lanes", "fp16 lanes of one SFU operation"),
      floatParam("sfu.sticks_per_cycle", 0.01, 64, "sticks/cycle",
                 "element-wise throughput of one SFU"),
      intParam("sfu.latency_cycles", 0, 100000, "cycles", "pipeline latency of simple SFU ops"),
      intParam("sfu.transcendental_latency_cycles", 0, 100000, "cycles",
               "latency of exp, reciprocal, rsqrt, sqrt, sigmoid, tanh, gelu, silu"),
      intParam("sfu.registers", 1, 1024, "registers", "SFU vector registers"),

      intParam("scratchpad.bytes", 1 * kKiB, 16 * kGiB, "bytes",
               "scratchpad (LX) capacity per core; a whole number of sticks"),
      intParam("scratchpad.reserved_bytes", 0, 16 * kGiB, "bytes",
               "kept back by the compiler; less than scratchpad.bytes"),
      floatParam("scratchpad.planning_margin", 0, 0.9, "fraction",
                 "share of the unreserved scratchpad the compiler leaves unplanned"),
      intParam("scratchpad.port_bytes_per_cycle", 1, 65536, "bytes/cycle",
               "bandwidth of one engine's scratchpad port"),

      intParam("fifo.depth_sticks", 1, 65536, "sticks", "capacity of one FIFO"),
      intParam("fifo.latency_cycles", 0, 100000, "cycles", "FIFO push-to-pop latency"),
      intParam("fifo.inputs_per_corelet", 1, 64, "FIFOs", "load unit to compute FIFOs"),
      intParam("fifo.outputs_per_corelet", 1, 64, "FIFOs", "compute to store unit FIFOs"),

      intParam("ring.bytes_per_cycle", 1, 65536, "bytes/cycle", "per direction per link"),
      intParam("ring.hop_latency_cycles", 0, 100000, "cycles", "latency of one ring hop"),

      floatParam("dram.bandwidth_gb_s", 1, 100000, "GB/s", "device memory bandwidth, all channels"),
      intParam("dram.channels", 1, 1024, "channels", "DRAM channels, each a stop on the ring"),
      floatParam("dram.latency_ns", 0, 100000, "ns", "device memory access latency"),
      intParam("dram.interleave_bytes", 16, 1 * kGiB, "bytes",
               "channel interleaving granularity; a power of two, whole sticks"),
      intParam("dram.capacity_gib", 1, 65536, "GiB", "device memory per card"),
      intParam("dram.core_span_bytes", 4 * kKiB, 1024 * kGiB * 1024, "bytes",
               "largest contiguous span one core addresses"),

      intParam("dma.bytes_per_cycle", 1, 65536, "bytes/cycle", "issue rate of one DMA engine"),
      intParam("dma.setup_cycles", 0, 100000, "cycles", "setup cost per DMA descriptor"),

      intParam("sync.tokens_per_core", 1, 65536, "tokens", "synchronisation tokens per core"),
      intParam("sync.token_latency_cycles", 0, 100000, "cycles", "token send-to-receive latency"),

      intParam("scalar.registers", 1, 1024, "registers", "scalar registers per unit"),
      intParam("scalar.cycles_per_instruction", 1, 1000, "cycles", "cost of a scalar instruction"),

      {"numerics.fp16_format",
       ParamType::String,
       0,
       0,
       {"ieee", "dlfloat16"},
       "",
       "on-device fp16 format: ieee (IEEE binary16) or dlfloat16 (1-6-9)"},

      intParam("memory.segments", 1, 256, "segments", "segments of virtual space per job"),
      intParam("memory.segment_bytes", 4 * kKiB, 1024 * kGiB * 16, "bytes",
               "size of one segment; a multiple of memory.alignment_bytes"),
      intParam("memory.program_segment", 0, 255, "index",
               "segment reserved for SpyreCode; less than memory.segments"),
      intParam("memory.alignment_bytes", 1, 1 * kGiB, "bytes",
               "alignment of allocation start addresses; a power of two"),
  };
  return decls;
}

SpyreArch SpyreArch::load(const std::string& file, const std::vector<std::string>& overrides) {
  return fromDescription(ArchDescription::load(file, schema(), overrides));
}

SpyreArch SpyreArch::fromDescription(const ArchDescription& d) {
  SpyreArch a;
  auto i32 = [&](const char* path) { return static_cast<int>(d.getInt(path)); };
  a.chip = {d.getFloat("chip.clock_ghz"), i32("chip.cores"), i32("chip.corelets_per_core"),
            d.getInt("chip.stick_bytes")};
  a.pt = {i32("pt.rows"),
          i32("pt.cols"),
          i32("pt.macs_per_pe_fp16"),
          i32("pt.macs_per_pe_fp8"),
          i32("pt.macs_per_pe_int8"),
          i32("pt.macs_per_pe_int4"),
          i32("pt.latency_cycles"),
          d.getInt("pt.accumulator_bytes")};
  a.sfu = {i32("sfu.lanes"), d.getFloat("sfu.sticks_per_cycle"), i32("sfu.latency_cycles"),
           i32("sfu.transcendental_latency_cycles"), i32("sfu.registers")};
  a.scratchpad = {d.getInt("scratchpad.bytes"), d.getInt("scratchpad.reserved_bytes"),
                  d.getFloat("scratchpad.planning_margin"),
                  d.getInt("scratchpad.port_bytes_per_cycle")};
  a.fifo = {i32("fifo.depth_sticks"), i32("fifo.latency_cycles"), i32("fifo.inputs_per_corelet"),
            i32("fifo.outputs_per_corelet")};
  a.ring = {d.getInt("ring.bytes_per_cycle"), i32("ring.hop_latency_cycles")};
  a.dram = {d.getFloat("dram.bandwidth_gb_s"), i32("dram.channels"),
            d.getFloat("dram.latency_ns"),     d.getInt("dram.interleave_bytes"),
            d.getInt("dram.capacity_gib"),     d.getInt("dram.core_span_bytes")};
  a.dma = {d.getInt("dma.bytes_per_cycle"), i32("dma.setup_cycles")};
  a.sync = {i32("sync.tokens_per_core"), i32("sync.token_latency_cycles")};
  a.scalar = {i32("scalar.registers"), i32("scalar.cycles_per_instruction")};
  a.numerics = {d.getString("numerics.fp16_format")};
  a.memory = {i32("memory.segments"), d.getInt("memory.segment_bytes"),
              i32("memory.program_segment"), d.getInt("memory.alignment_bytes")};
  a.description = d;

  // Relations between fields. Each error is located at the key the user most likely has
  // to change and names the other keys involved.
  auto check = [&](bool ok, const char* path, const std::string& message) {
    if (!ok) throw Error(d.locate(path, message));
  };
  auto str = [](int64_t x) { return std::to_string(x); };
  check(isPowerOfTwo(a.chip.stick_bytes), "chip.stick_bytes",
        "chip.stick_bytes (" + str(a.chip.stick_bytes) + ") must be a power of two");
  check(a.scratchpad.bytes % a.chip.stick_bytes == 0, "scratchpad.bytes",
        "scratchpad.bytes (" + str(a.scratchpad.bytes) +
            ") must be a whole number of sticks (chip.stick_bytes = " + str(a.chip.stick_bytes) +
            ")");
  check(a.scratchpad.reserved_bytes < a.scratchpad.bytes, "scratchpad.reserved_bytes",
        "scratchpad.reserved_bytes (" + str(a.scratchpad.reserved_bytes) +
            ") must be less than scratchpad.bytes (" + str(a.scratchpad.bytes) + ")");
  check(a.planningScratchpadBytes() >= a.chip.stick_bytes, "scratchpad.planning_margin",
        "scratchpad.bytes, scratchpad.reserved_bytes and scratchpad.planning_margin leave "
        "less than one stick (chip.stick_bytes) for the compiler to plan with");
  check(isPowerOfTwo(a.dram.interleave_bytes) && a.dram.interleave_bytes >= a.chip.stick_bytes,
        "dram.interleave_bytes",
        "dram.interleave_bytes (" + str(a.dram.interleave_bytes) +
            ") must be a power of two and at least one stick (chip.stick_bytes = " +
            str(a.chip.stick_bytes) + ")");
  check(static_cast<double>(a.dram.core_span_bytes) <= a.dram.capacity_gib * kGiB,
        "dram.core_span_bytes",
        "dram.core_span_bytes (" + str(a.dram.core_span_bytes) +
            ") must not exceed dram.capacity_gib (" + str(a.dram.capacity_gib) + " GiB)");
  check(a.memory.program_segment < a.memory.segments, "memory.program_segment",
        "memory.program_segment (" + str(a.memory.program_segment) +
            ") must be less than memory.segments (" + str(a.memory.segments) + ")");
  check(isPowerOfTwo(a.memory.alignment_bytes), "memory.alignment_bytes",
        "memory.alignment_bytes (" + str(a.memory.alignment_bytes) + ") must be a power of two");
  check(a.memory.segment_bytes % a.memory.alignment_bytes == 0, "memory.segment_bytes",
        "memory.segment_bytes (" + str(a.memory.segment_bytes) +
            ") must be a multiple of memory.alignment_bytes (" + str(a.memory.alignment_bytes) +
            ")");
  return a;
}

std::string SpyreArch::defaultFile() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("CHIPLESS_ARCH_DIR"); dir && *dir)
    return (fs::path(dir) / "spyre.yaml").string();
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path candidate = exe.parent_path() / ".." / ".." / "models" / "hw" / "spyre.yaml";
    if (fs::exists(candidate, ec)) return candidate.lexically_normal().string();
  }
  return (fs::path(CHIPLESS_SOURCE_DIR) / "models" / "hw" / "spyre.yaml").string();
}

double SpyreArch::dramBytesPerCycle() const {
  return dram.bandwidth_gb_s / chip.clock_ghz;
}

double SpyreArch::dramLatencyCycles() const {
  return dram.latency_ns * chip.clock_ghz;
}

int64_t SpyreArch::peakFp16FlopsPerCycle() const {
  return int64_t{chip.cores} * chip.corelets_per_core * pt.rows * pt.cols * pt.macs_per_pe_fp16 * 2;
}

int64_t SpyreArch::planningScratchpadBytes() const {
  double usable = static_cast<double>(scratchpad.bytes - scratchpad.reserved_bytes) *
                  (1.0 - scratchpad.planning_margin);
  int64_t bytes = static_cast<int64_t>(std::floor(usable));
  return bytes / chip.stick_bytes * chip.stick_bytes;
}

int SpyreArch::elementsPerStick(int elemBytes) const {
  if (elemBytes <= 0 || chip.stick_bytes % elemBytes != 0)
    throw Error("elementsPerStick: element size " + std::to_string(elemBytes) +
                " bytes does not divide a stick of " + std::to_string(chip.stick_bytes) + " bytes");
  return static_cast<int>(chip.stick_bytes / elemBytes);
}

} // namespace chipless

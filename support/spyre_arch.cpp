#include "support/spyre_arch.h"

#include "support/arch_files.h"
#include "support/error.h"

#include <climits>
#include <cmath>

namespace chipless {

using namespace archparams;

// SpyreArch::params() and SpyreArch::schema(), from the table.
#define CHIPLESS_ARCH SpyreArch
#define CHIPLESS_PARAMS_DEF "support/spyre_params.def"
#include "support/arch_table.inc"

SpyreArch SpyreArch::load(const std::string& file, const std::vector<std::string>& overrides) {
  return fromDescription(ArchDescription::load(file, schema(), overrides));
}

SpyreArch SpyreArch::fromDescription(const ArchDescription& d) {
  SpyreArch a;
  params().fill(a, d);
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

std::string SpyreArch::resolveFile(const std::string& nameOrPath) {
  return resolveArchFile(nameOrPath, ChipKind::Spyre);
}

std::string SpyreArch::defaultFile() {
  return resolveFile("");
}

uint64_t SpyreArch::programBase() const {
  return static_cast<uint64_t>(memory.program_segment) *
         static_cast<uint64_t>(memory.segment_bytes);
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
  return static_cast<int>(elementsInStick(chip.stick_bytes, elemBytes));
}

} // namespace chipless

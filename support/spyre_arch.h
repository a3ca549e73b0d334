#pragma once
/// The Spyre architecture description (models/hw/spyre.yaml) as typed fields, shared by the
/// compiler (tiling, scratchpad planning) and the simulator (timing). Field names mirror the
/// YAML keys exactly, so `arch.dram.bandwidth_gb_s` is `dram.bandwidth_gb_s` in the file.
#include "support/arch_schema.h"
#include "support/param_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless {

/// Elements of `elemBytes` bytes in a stick of `stickBytes` bytes: the one place this is
/// computed (compiler, runtime and simulator all call it; SpyreArch::elementsPerStick checks
/// the element size first).
inline int64_t elementsInStick(int64_t stickBytes, int64_t elemBytes) {
  return stickBytes / elemBytes;
}

/// Every parameter of a Spyre card that a study may vary, as typed fields: one nested struct
/// per section of the file (chip, pt, sfu, scratchpad, fifo, ring, dram, dma, sync, scalar,
/// numerics, memory), declared with their ranges, units, sources and roles in
/// support/spyre_params.def. Values come only from the YAML file (plus `--set` overrides):
/// there are no defaults in C++.
struct SpyreArch {
#define CHIPLESS_PARAMS_DEF "support/spyre_params.def"
#include "support/arch_fields.inc"

  /// The tools that make programs for this chip, for the hint to recompile.
  static constexpr const char* kCompilers = "spyre-compile or spyre-as";

  /// The resolved description these fields came from; write it next to results with
  /// description.writeResolved() so a run can be reproduced.
  ArchDescription description;

  /// Every Spyre parameter with its type, range, unit, source, role and meaning, in file
  /// order, each bound to its field.
  static const ParamTable<SpyreArch>& params();
  /// params().schema(): what the YAML reader and `--set` checker read against.
  static const std::vector<ParamDecl>& schema();
  /// Reads `file` with `overrides` ("key.path=value") and checks it (see fromDescription).
  /// Throws chipless::Error naming the file, line and key on any problem.
  static SpyreArch load(const std::string& file, const std::vector<std::string>& overrides = {});
  /// Copies a description loaded with schema() into typed fields and checks the relations
  /// between fields (stick size a power of two, scratchpad a whole number of sticks, ...).
  /// Errors name the file, the line (or `--set` argument) and the keys involved.
  static SpyreArch fromDescription(const ArchDescription& description);
  /// The file `--arch VALUE` names: "" or "spyre" is models/hw/spyre.yaml (found as
  /// bundledArchDir() says), anything else a path; a TPU name is an error
  /// (support/arch_files.h).
  static std::string resolveFile(const std::string& nameOrPath);
  /// resolveFile(""): the description to use when none is given.
  static std::string defaultFile();

  /// Where SpyreCode goes in the job address space: the start of memory.program_segment.
  uint64_t programBase() const;
  /// DRAM bytes per core clock cycle: bandwidth_gb_s / clock_ghz.
  double dramBytesPerCycle() const;
  /// DRAM access latency in core clock cycles: latency_ns * clock_ghz.
  double dramLatencyCycles() const;
  /// Peak fp16 FLOP per cycle of the card: cores * corelets * rows * cols * macs * 2.
  int64_t peakFp16FlopsPerCycle() const;
  /// Scratchpad bytes the compiler may plan with per core: (bytes - reserved) * (1 -
  /// planning_margin), rounded down to a whole stick.
  int64_t planningScratchpadBytes() const;
  /// Elements of `elemBytes` bytes in one stick; throws chipless::Error if `elemBytes` is
  /// not positive or does not divide the stick.
  int elementsPerStick(int elemBytes) const;
};

} // namespace chipless

#pragma once
/// The Google TPU architecture description (models/hw/tpu-<generation>.yaml) as typed fields,
/// shared by the TPU compiler (tiling onto the MXUs, VMEM allocation) and the TPU simulator
/// (timing). Field names mirror the YAML keys exactly, so `arch.hbm.bandwidth_gb_s` is
/// `hbm.bandwidth_gb_s` in the file. Read through the same ArchDescription schema loader as
/// SpyreArch: strict keys, `--set` overrides, a resolved file next to every result.
#include "support/arch_schema.h"
#include "support/param_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless {

/// Every parameter of a TPU chip that a study may vary, as typed fields: one nested struct
/// per section of the file (chip, mxu, vpu, scalar, vmem, smem, hbm, dma, ici, numerics),
/// declared with their ranges, units, sources and roles in support/tpu_params.def. Values
/// come only from the YAML file (plus `--set` overrides): there are no defaults in C++.
struct TpuArch {
#define CHIPLESS_PARAMS_DEF "support/tpu_params.def"
#include "support/arch_fields.inc"

  /// The tools that make programs for this chip, for the hint to recompile.
  static constexpr const char* kCompilers = "tpu-compile or tpu-as";

  /// The resolved description these fields came from; write it next to results with
  /// description.writeResolved() so a run can be reproduced.
  ArchDescription description;

  /// Every TPU parameter with its type, range, unit, source, role and meaning, in file
  /// order, each bound to its field.
  static const ParamTable<TpuArch>& params();
  /// params().schema(): what the YAML reader and `--set` checker read against.
  static const std::vector<ParamDecl>& schema();
  /// Reads `file` with `overrides` ("key.path=value") and checks it (see fromDescription).
  /// Throws chipless::Error naming the file, line and key on any problem.
  static TpuArch load(const std::string& file, const std::vector<std::string>& overrides = {});
  /// Copies a description loaded with schema() into typed fields and checks the relations
  /// between fields (links match the topology, powers of two, ...). Errors name the file,
  /// the line (or `--set` argument) and the keys involved.
  static TpuArch fromDescription(const ArchDescription& description);
  /// The generations shipped in models/hw/: "v4", "v5e", "v5p", "v6e".
  static const std::vector<std::string>& generations();
  /// The file `--arch VALUE` names: "" is the default generation (v5e), a generation name
  /// ("v5e" or "tpu-v5e") is models/hw/tpu-<gen>.yaml (found as bundledArchDir() says),
  /// anything else a path; "spyre" is an error (support/arch_files.h).
  static std::string resolveFile(const std::string& nameOrPath);
  /// resolveFile(""): the description to use when none is given.
  static std::string defaultFile();

  /// HBM bytes per clock cycle: bandwidth_gb_s / clock_ghz.
  double hbmBytesPerCycle() const;
  /// HBM latency in cycles: latency_ns * clock_ghz.
  double hbmLatencyCycles() const;
  /// ICI bytes per cycle per link, one way.
  double iciBytesPerCycle() const;
  /// ICI latency per hop in cycles.
  double iciLatencyCycles() const;
  /// Peak bf16 FLOP per cycle of the chip: tensorcores * count * rows * cols * 2.
  int64_t peakBf16FlopsPerCycle() const;
  /// Peak bf16 TFLOP/s of the chip: peakBf16FlopsPerCycle() * clock.
  double peakBf16Tflops() const;
  /// Bytes of one vector register: sublanes * lanes * 4.
  int64_t vregBytes() const {
    return int64_t{vpu.sublanes} * vpu.lanes * 4;
  }
  /// MXU passes an fp32 matmul takes (1, 3 or 6, from numerics.fp32_matmul_precision).
  int fp32Passes() const;
};

} // namespace chipless

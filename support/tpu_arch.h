#pragma once
/// The Google TPU architecture description (models/hw/tpu-<generation>.yaml) as typed fields,
/// shared by the TPU compiler (tiling onto the MXUs, VMEM allocation) and the TPU simulator
/// (timing). Field names mirror the YAML keys exactly, so `arch.hbm.bandwidth_gb_s` is
/// `hbm.bandwidth_gb_s` in the file. Read through the same ArchDescription schema loader as
/// SpyreArch: strict keys, `--set` overrides, a resolved file next to every result.
#include "support/arch_schema.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless {

/// Every parameter of a TPU chip that a study may vary. Values come only from the YAML file
/// (plus `--set` overrides): there are no defaults in C++.
struct TpuArch {
  /// Whole-chip figures.
  struct Chip {
    std::string generation; ///< "v4", "v5e", "v5p", "v6e" (free text, for reports).
    double clock_ghz;       ///< TensorCore clock; converts ns and GB/s to cycles.
    int tensorcores;        ///< TensorCores per chip; they share the chip's HBM.
  } chip;
  /// The matrix units (weight-stationary systolic arrays) of one TensorCore.
  struct Mxu {
    int count;                ///< MXUs per TensorCore.
    int rows;                 ///< R: rows of the array (the contraction depth of one fold).
    int cols;                 ///< C: columns (output width of one fold).
    bool overlap_weight_load; ///< Next fold's weights load while the current one streams.
    int int8_speedup;         ///< int8 activation rows streamed per cycle (1 or 2).
  } mxu;
  /// The vector unit (VPU) of one TensorCore.
  struct Vpu {
    int sublanes;                       ///< Rows of a vector register (8).
    int lanes;                          ///< Columns of a vector register (128).
    int registers;                      ///< Vector registers.
    int latency_cycles;                 ///< Latency of simple element-wise ops.
    int transcendental_latency_cycles;  ///< exp, log, reciprocal, rsqrt, sqrt, tanh.
    int transcendental_interval_cycles; ///< Issue interval of those ops per register.
  } vpu;
  /// The scalar unit that issues VLIW bundles.
  struct Scalar {
    int registers;           ///< General scalar registers s0.. (64-bit in the model).
    int slots;               ///< Scalar ops per bundle.
    int cycles_per_bundle;   ///< Issue interval of bundles.
    int semaphores;          ///< Counting semaphores per TensorCore.
    int smem_latency_cycles; ///< Latency of a scalar load from SMEM.
  } scalar;
  /// Vector memory of one TensorCore.
  struct Vmem {
    int64_t bytes;           ///< Capacity.
    int64_t bytes_per_cycle; ///< Bandwidth to the VPU load/store slots.
    int64_t cmem_bytes;      ///< CMEM per chip (v4); recorded, not modelled.
  } vmem;
  /// Scalar memory of one TensorCore.
  struct Smem {
    int64_t bytes; ///< Capacity.
  } smem;
  /// The chip's HBM, shared by its TensorCores.
  struct Hbm {
    int64_t capacity_bytes;   ///< Capacity per chip.
    double bandwidth_gb_s;    ///< All channels together.
    double latency_ns;        ///< Access latency seen by a DMA.
    int channels;             ///< Channels, each a reservation timeline.
    int64_t interleave_bytes; ///< Channel interleaving granularity; a power of two.
    int64_t alignment_bytes;  ///< Alignment of allocations; a power of two.
  } hbm;
  /// DMA engines of one TensorCore (HBM ↔ VMEM/SMEM, HBM → remote HBM over ICI).
  struct Dma {
    int engines;             ///< Engines per TensorCore.
    int64_t bytes_per_cycle; ///< Issue rate of one engine.
    int setup_cycles;        ///< Per descriptor.
    int64_t alignment_bytes; ///< Addresses, row sizes and strides must be multiples.
  } dma;
  /// The inter-chip interconnect.
  struct Ici {
    std::string topology;  ///< "ring", "torus2d" or "torus3d".
    int links;             ///< Links per chip (2, 4 or 6: two per dimension).
    double bandwidth_gb_s; ///< One way, per link.
    double latency_ns;     ///< Per hop.
  } ici;
  /// Number formats.
  struct Numerics {
    std::string fp32_matmul_precision; ///< "bf16", "bf16x3" or "bf16x6".
  } numerics;

  /// The resolved description these fields came from; write it next to results with
  /// description.writeResolved() so a run can be reproduced.
  ArchDescription description;

  /// Every TPU parameter with its type, range, unit and meaning, in file order.
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
  /// The description to use for `nameOrPath`: a generation name ("v5e" or "tpu-v5e") is
  /// models/hw/tpu-<gen>.yaml, found like defaultFile(); anything else is a path. Empty
  /// means the default generation.
  static std::string resolveFile(const std::string& nameOrPath);
  /// The description to use when none is given: tpu-v5e.yaml in $CHIPLESS_ARCH_DIR when set;
  /// else <dir of the running executable>/../../models/hw/ when that exists (a build tree
  /// inside the repository); else the source tree's models/hw/.
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
  int64_t vregBytes() const { return int64_t{vpu.sublanes} * vpu.lanes * 4; }
  /// MXU passes an fp32 matmul takes (1, 3 or 6, from numerics.fp32_matmul_precision).
  int fp32Passes() const;
};

} // namespace chipless

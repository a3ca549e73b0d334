#pragma once
/// The Spyre architecture description (models/hw/spyre.yaml) as typed fields, shared by the
/// compiler (tiling, scratchpad planning) and the simulator (timing). Field names mirror the
/// YAML keys exactly, so `arch.dram.bandwidth_gb_s` is `dram.bandwidth_gb_s` in the file.
#include "support/arch_schema.h"

#include <cstdint>
#include <string>
#include <vector>

namespace chipless {

/// Every parameter of a Spyre card that a study may vary. Values come only from the YAML
/// file (plus `--set` overrides): there are no defaults in C++.
struct SpyreArch {
  /// Whole-chip figures.
  struct Chip {
    double clock_ghz;      ///< Core clock; converts ns and GB/s to cycles.
    int cores;             ///< Cores on the ring.
    int corelets_per_core; ///< Corelets per core, each with a PT array and an SFU.
    int64_t stick_bytes;   ///< Unit of every DRAM↔scratchpad transfer.
  } chip;
  /// The PT (SIMD-systolic matmul) array of one corelet.
  struct Pt {
    int rows;                  ///< PE rows.
    int cols;                  ///< PE columns.
    int macs_per_pe_fp16;      ///< fp16 multiply-accumulates per PE per cycle.
    int macs_per_pe_fp8;       ///< fp8 MACs per PE per cycle (0: unsupported).
    int macs_per_pe_int8;      ///< int8 MACs per PE per cycle (0: unsupported).
    int macs_per_pe_int4;      ///< int4 MACs per PE per cycle (0: unsupported).
    int latency_cycles;        ///< Fill and drain of the array per operation.
    int64_t accumulator_bytes; ///< fp32 accumulator storage per corelet.
  } pt;
  /// The SFU (1-D vector unit) of one corelet.
  struct Sfu {
    int lanes;                         ///< fp16 lanes per operation.
    double sticks_per_cycle;           ///< Throughput of element-wise ops.
    int latency_cycles;                ///< Pipeline latency of simple ops.
    int transcendental_latency_cycles; ///< Latency of exp, reciprocal, rsqrt, sqrt, ...
    int registers;                     ///< Vector registers.
  } sfu;
  /// The per-core scratchpad ("LX").
  struct Scratchpad {
    int64_t bytes;                ///< Capacity per core.
    int64_t reserved_bytes;       ///< Kept back by the compiler for the runtime.
    double planning_margin;       ///< Fraction of the rest the compiler leaves unplanned.
    int64_t port_bytes_per_cycle; ///< Bandwidth of one engine port.
  } scratchpad;
  /// FIFOs between load units, compute and store units of a corelet.
  struct Fifo {
    int depth_sticks;        ///< Capacity of one FIFO.
    int latency_cycles;      ///< Push-to-pop latency.
    int inputs_per_corelet;  ///< Load unit → compute FIFOs.
    int outputs_per_corelet; ///< Compute → store unit FIFOs.
  } fifo;
  /// The bidirectional ring between cores and DRAM channels.
  struct Ring {
    int64_t bytes_per_cycle; ///< Per direction per link.
    int hop_latency_cycles;  ///< Per hop.
  } ring;
  /// Device memory (LPDDR5).
  struct Dram {
    double bandwidth_gb_s;    ///< Total over all channels.
    int channels;             ///< Channels, each a stop on the ring.
    double latency_ns;        ///< Access latency.
    int64_t interleave_bytes; ///< Channel interleaving granularity.
    int64_t capacity_gib;     ///< Card capacity.
    int64_t core_span_bytes;  ///< Largest contiguous span one core addresses.
  } dram;
  /// DMA engines (per-core load/store units to and from DRAM).
  struct Dma {
    int64_t bytes_per_cycle; ///< Issue rate of one engine.
    int setup_cycles;        ///< Per descriptor.
  } dma;
  /// Synchronisation tokens between units.
  struct Sync {
    int tokens_per_core;      ///< Token counters per core.
    int token_latency_cycles; ///< Send-to-receive latency.
  } sync;
  /// The scalar control processor of each unit.
  struct Scalar {
    int registers;              ///< Scalar registers.
    int cycles_per_instruction; ///< Cost of one scalar instruction.
  } scalar;
  /// Number formats.
  struct Numerics {
    std::string fp16_format; ///< "ieee" or "dlfloat16": how on-device fp16 rounds.
  } numerics;
  /// The per-job device address space.
  struct Memory {
    int segments;            ///< Segments of virtual address space per job.
    int64_t segment_bytes;   ///< Size of one segment.
    int program_segment;     ///< Segment reserved for SpyreCode.
    int64_t alignment_bytes; ///< Alignment of allocation start addresses.
  } memory;

  /// The resolved description these fields came from; write it next to results with
  /// description.writeResolved() so a run can be reproduced.
  ArchDescription description;

  /// Every Spyre parameter with its type, range, unit and meaning, in file order.
  static const std::vector<ParamDecl>& schema();
  /// Reads `file` with `overrides` ("key.path=value") and checks it (see fromDescription).
  /// Throws chipless::Error naming the file, line and key on any problem.
  static SpyreArch load(const std::string& file, const std::vector<std::string>& overrides = {});
  /// Copies a description loaded with schema() into typed fields and checks the relations
  /// between fields (stick size a power of two, scratchpad a whole number of sticks, ...).
  /// Errors name the file, the line (or `--set` argument) and the keys involved.
  static SpyreArch fromDescription(const ArchDescription& description);
  /// The description to use when none is given: $CHIPLESS_ARCH_DIR/spyre.yaml when the
  /// variable is set; else <dir of the running executable>/../../models/hw/spyre.yaml when
  /// that exists (a build tree inside the repository); else the source tree's copy.
  static std::string defaultFile();

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

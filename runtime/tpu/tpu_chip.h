#pragma once
/// What PreparedJob (runtime/prepared_job.h) needs to know of a TPU system: TPU programs,
/// tensors tiled in HBM and replicated on every chip or split along dimension 0, a program
/// region anywhere in HBM, and traps whose codes the plan explains.
#include "runtime/prepared_job.h"
#include "runtime/tpu/tpu_device.h"
#include "runtime/tpu/tpu_layout.h"
#include "support/error.h"
#include "support/tpuprog/assembler.h"

#include <optional>
#include <string>
#include <vector>

namespace chipless::runtime {

struct TpuChip {
  using Device = TpuDevice;
  using Job = tpuprog::Job;
  using Arg = tpuprog::TensorArg;
  using Layout = TiledLayout;
  using Arch = TpuArch;

  /// Reads a TPU program directory (DIR/job.plan).
  static Job readJob(const std::string& planPath);
  /// Checks an in-memory job's symbols against its plan (as reading a directory does).
  static void checkJob(const Job& job, const std::string& name);
  static std::string encodeBinary(const tpuprog::JobBinary& binary);
  /// Any HBM address is a place for the program: nothing to check before placing it.
  static void checkPlanRange(Device&, uint64_t, uint64_t, const std::string&, const std::string&) {}
  static uint64_t placeRegion(Device& device, uint64_t preferred, uint64_t size) {
    return device.placeRange(preferred, size);
  }
  /// A split argument's host array stacks one block per chip along dimension 0.
  static int64_t blocksAlongDimension0(Device& device, const Arg& a);
  static Layout layout(Device& device, const Arg& a, std::vector<int64_t> shape);
  /// The host shape: the per-chip shape, dimension 0 times the chips when split.
  static std::vector<int64_t> hostShape(Device& device, const Arg& a, const Layout& l);
  /// For a split argument, how the expected host shape is made of the chips' blocks.
  static std::string shapeNote(Device& device, const Arg& a, const Layout& l,
                               const std::vector<int64_t>& want);
  static std::optional<tpuprog::SymbolRef>
  resolveSymbol(const tpuprog::JobPlan& plan, const std::string& name, std::string& why) {
    return tpuprog::resolveSymbol(plan, name, why);
  }
  static int64_t paddedDim(const Layout& l, int dim) {
    return l.paddedShape().at(static_cast<size_t>(dim));
  }
  /// The layout of device tensors (runtime::DeviceTensor) and of tpu-compile's arguments:
  /// row-major, the last dimension padded to vpu.lanes (tile 1 x lanes).
  static Layout canonicalLayout(const Device& device, DType dtype, std::vector<int64_t> shape);
  static bool sameLayout(const Layout& a, const Layout& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.tile[0] == b.tile[0] &&
           a.tile[1] == b.tile[1];
  }
  /// "tile 8x128", for errors.
  static std::string layoutText(const Layout& l);
  /// Writes `host` in layout `l` at `addr` on every chip; reads chip 0's copy back.
  static void store(Device& device, uint64_t addr, const Layout& l, const NpyArray& host,
                    const std::string& what);
  static NpyArray load(Device& device, uint64_t addr, const Layout& l);
  /// Replicated: the same bytes on every chip; split: block c on chip c.
  static void toDevice(Device& device, const Arg& a, uint64_t addr, const Layout& l,
                       const NpyArray& host, const std::string& what);
  /// Replicated: chip 0's copy; split: the chips' blocks stacked.
  static NpyArray fromDevice(Device& device, const Arg& a, uint64_t addr, const Layout& l);
  /// Runs one of the job's binaries on the system; a trap's error says what the plan says its code
  /// means.
  static LaunchReport run(Device& device, const Job& job, const tpuprog::JobBinary& binary,
                          const std::vector<int64_t>& symbols, TraceWriter* trace);
  /// The trap's error with the plan's message for its code, `@NAME` replaced by the value
  /// symbol NAME had at the launch (in `binary`, the one that trapped).
  static std::string explainTrap(const Job& job, const tpuprog::JobBinary& binary,
                                 const ProgramTrap& trap, const std::vector<int64_t>& symbols);
};

} // namespace chipless::runtime

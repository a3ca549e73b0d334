#pragma once
/// What PreparedJob (runtime/prepared_job.h) needs to know of a Spyre card: SpyreCode jobs,
/// tensors in the stick layout (or row-major), the plan's program region inside the SpyreCode
/// segment (memory.program_segment), and one chip model to run on.
#include "runtime/prepared_job.h"
#include "runtime/spyre/spyre_device.h"
#include "runtime/spyre/stick_layout.h"
#include "support/progformat/symbols.h"
#include "support/spyrecode/assembler.h"

#include <optional>
#include <string>
#include <vector>

namespace chipless::runtime {

struct SpyreChip {
  using Device = SpyreDevice;
  using Job = spyrecode::Job;
  using Arg = spyrecode::TensorArg;
  using Layout = StickLayout;
  using Arch = SpyreArch;

  /// Reads a SpyreCode directory (DIR/job.plan).
  static Job readJob(const std::string& planPath);
  /// An in-memory job comes from the assembler or a compiler, which check it: nothing to do.
  static void checkJob(const Job&, const std::string&) {}
  static std::string encodeBinary(const spyrecode::JobBinary& binary);
  /// Fails unless [ptr, ptr+size) lies in the SpyreCode segment.
  static void checkPlanRange(Device& device, uint64_t ptr, uint64_t size, const std::string& devPtr,
                             const std::string& where);
  /// Where the plan's program region of `size` bytes goes: at `preferred` when free.
  static uint64_t placeRegion(Device& device, uint64_t preferred, uint64_t size);
  /// A Spyre tensor is one block: dimension 0 is never split.
  static int64_t blocksAlongDimension0(Device&, const Arg&) { return 1; }
  static Layout layout(Device& device, const Arg& a, std::vector<int64_t> shape);
  static std::vector<int64_t> hostShape(Device&, const Arg&, const Layout& l) { return l.shape; }
  /// The declared shape, when it names scalars ("(4, N)"), after the expected host shape.
  static std::string shapeNote(Device&, const Arg& a, const Layout&,
                               const std::vector<int64_t>& want);
  /// What symbol `name` of a job binary refers to (ARG, ARG.dK, a scalar or a buffer).
  static std::optional<progformat::SymbolRef>
  resolveSymbol(const spyrecode::JobPlan& plan, const std::string& name, std::string& why) {
    return progformat::resolveSymbol(plan, name, "d", why);
  }
  /// Spyre tensors have no padded dimensions (ARG.pK): never asked.
  static int64_t paddedDim(const Layout& l, int dim) {
    return l.shape.at(static_cast<size_t>(dim));
  }
  /// The layout of device tensors (runtime::DeviceTensor) and of the front end's arguments:
  /// sticks, each column as long as support/stick_columns.h says.
  static Layout canonicalLayout(const Device& device, DType dtype, std::vector<int64_t> shape);
  static bool sameLayout(const Layout& a, const Layout& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.stickBytes == b.stickBytes &&
           a.rowMajor == b.rowMajor && a.stickRows() == b.stickRows();
  }
  /// "sticks, 64 padded rows", for errors.
  static std::string layoutText(const Layout& l);
  static void store(Device& device, uint64_t addr, const Layout& l, const NpyArray& host,
                    const std::string& what);
  static NpyArray load(Device& device, uint64_t addr, const Layout& l);
  static void toDevice(Device& device, const Arg&, uint64_t addr, const Layout& l,
                       const NpyArray& host, const std::string& what);
  static NpyArray fromDevice(Device& device, const Arg&, uint64_t addr, const Layout& l);
  /// Runs one of the job's binaries (a multi-kernel job has several) on the chip with
  /// `symbols`, that binary's symbol values, bound.
  static LaunchReport run(Device& device, const Job& job, const spyrecode::JobBinary& binary,
                          const std::vector<int64_t>& symbols, TraceWriter* trace);
};

} // namespace chipless::runtime

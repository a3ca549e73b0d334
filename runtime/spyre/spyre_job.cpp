#include "runtime/spyre/spyre_job.h"

#include "runtime/launch_common.h"
#include "runtime/prepared_job_impl.h"
#include "support/error.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/directory.h"
#include "support/stick_columns.h"

namespace chipless::runtime {

using namespace spyrecode;

SpyreChip::Job SpyreChip::readJob(const std::string& planPath) {
  return spyrecode::readJob(planPath);
}

std::string SpyreChip::encodeBinary(const JobBinary& binary) {
  return spyrecode::encodeBinary(binary);
}

void SpyreChip::checkPlanRange(Device& device, uint64_t ptr, uint64_t size,
                               const std::string& devPtr, const std::string& where) {
  const SpyreArch& arch = device.spyreArch();
  const uint64_t segBase = device.segmentBase(arch.memory.program_segment);
  const uint64_t segEnd = segBase + static_cast<uint64_t>(arch.memory.segment_bytes);
  if (ptr < segBase || ptr + size > segEnd)
    throw Error(where + ": dev_ptr " + devPtr + " is outside the SpyreCode segment " +
                std::to_string(arch.memory.program_segment) + " (" + formatDevPtr(segBase) + ".." +
                formatDevPtr(segEnd) + ")");
}

uint64_t SpyreChip::placeRegion(Device& device, uint64_t preferred, uint64_t size) {
  return device.placeRange(device.spyreArch().memory.program_segment, preferred, size);
}

StickLayout SpyreChip::layout(Device& device, const Arg& a, std::vector<int64_t> shape) {
  StickLayout l;
  l.dtype = a.dtype;
  l.stickBytes = device.spyreArch().chip.stick_bytes;
  l.rowMajor = a.layout == spyrecode::Layout::RowMajor;
  l.shape = std::move(shape);
  l.paddedRows = a.paddedRows;
  if (a.paddedRows && a.paddedRows < l.rows())
    throw Error("tensor '" + a.name + "': padded_rows " + std::to_string(a.paddedRows) +
                " is less than its " + std::to_string(l.rows()) + " rows");
  return l;
}

std::string SpyreChip::shapeNote(Device&, const Arg& a, const StickLayout&,
                                 const std::vector<int64_t>& want) {
  return declaredShape(a) != shapeText(want) ? " " + declaredShape(a) : std::string();
}

StickLayout SpyreChip::canonicalLayout(const Device& device, DType dtype,
                                       std::vector<int64_t> shape) {
  StickLayout l;
  l.dtype = dtype;
  l.stickBytes = device.spyreArch().chip.stick_bytes;
  l.shape = std::move(shape);
  const auto& arch = device.spyreArch();
  const int64_t rows = stickColumnRows(l.rows(), l.sticksPerRow(), l.stickBytes,
                                       arch.dram.interleave_bytes, arch.dram.channels);
  if (rows != l.rows()) l.paddedRows = rows;
  return l;
}

std::string SpyreChip::layoutText(const StickLayout& l) {
  if (l.rowMajor) return "row-major";
  return l.paddedRows ? "sticks, " + std::to_string(l.paddedRows) + " padded rows" : "sticks";
}

void SpyreChip::store(Device& device, uint64_t addr, const StickLayout& l, const NpyArray& host,
                      const std::string& what) {
  runtime::toDevice(host, l, *parseFp16Format(device.spyreArch().numerics.fp16_format),
                    device.span(addr, l.deviceBytes()), what);
}

NpyArray SpyreChip::load(Device& device, uint64_t addr, const StickLayout& l) {
  return runtime::fromDevice(device.span(addr, l.deviceBytes()), l,
                             *parseFp16Format(device.spyreArch().numerics.fp16_format));
}

void SpyreChip::toDevice(Device& device, const Arg&, uint64_t addr, const StickLayout& l,
                         const NpyArray& host, const std::string& what) {
  store(device, addr, l, host, what);
}

NpyArray SpyreChip::fromDevice(Device& device, const Arg&, uint64_t addr, const StickLayout& l) {
  return load(device, addr, l);
}

LaunchReport SpyreChip::run(Device& device, const Job&, const JobBinary& binary,
                            const std::vector<int64_t>& symbols, TraceWriter* trace) {
  sim::spyre::LaunchResult r = device.run(binary, symbols, trace);
  LaunchReport out;
  out.cycles = r.cycles;
  out.hostSeconds = r.hostSeconds;
  out.issued = r.instructions;
  out.sharedSteps = device.lastRunShared() ? 1 : 0;
  return out;
}

template class PreparedJob<SpyreChip>;
template class ChipDevice<SpyreChip, spyrecode::Job>;

} // namespace chipless::runtime

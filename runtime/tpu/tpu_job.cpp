#include "runtime/tpu/tpu_job.h"

#include "runtime/launch_common.h"
#include "runtime/prepared_job_impl.h"
#include "support/error.h"
#include "support/tpuprog/binary.h"
#include "support/tpuprog/directory.h"

#include <algorithm>
#include <cctype>

namespace chipless::runtime {

using namespace tpuprog;

TpuChip::Job TpuChip::readJob(const std::string& planPath) {
  return tpuprog::readJob(planPath);
}

void TpuChip::checkJob(const Job& job, const std::string& name) {
  checkSymbols(job, name, name);
}

std::string TpuChip::encodeBinary(const JobBinary& binary) {
  return tpuprog::encodeBinary(binary);
}

int64_t TpuChip::blocksAlongDimension0(Device& device, const Arg& a) {
  return a.placement == Placement::Split ? device.chips() : 1;
}

TiledLayout TpuChip::layout(Device&, const Arg& a, std::vector<int64_t> shape) {
  TiledLayout l;
  l.dtype = a.dtype;
  l.tile[0] = a.tile[0];
  l.tile[1] = a.tile[1];
  l.shape = std::move(shape);
  return l;
}

TiledLayout TpuChip::canonicalLayout(const Device& device, DType dtype,
                                     std::vector<int64_t> shape) {
  TiledLayout l;
  l.dtype = dtype;
  l.tile[0] = 1;
  l.tile[1] = device.tpuArch().vpu.lanes;
  l.shape = std::move(shape);
  return l;
}

std::string TpuChip::layoutText(const TiledLayout& l) {
  return "tile " + std::to_string(l.tile[0]) + "x" + std::to_string(l.tile[1]);
}

void TpuChip::store(Device& device, uint64_t addr, const TiledLayout& l, const NpyArray& host,
                    const std::string& what) {
  for (int c = 0; c < device.chips(); ++c)
    toTiled(host, 0, l, device.span(c, addr, l.deviceBytes()), what);
}

NpyArray TpuChip::load(Device& device, uint64_t addr, const TiledLayout& l) {
  NpyArray out = makeNpy(hostTypeOf(l.dtype), l.shape.empty() ? std::vector<int64_t>{1} : l.shape);
  fromTiled(device.span(0, addr, l.deviceBytes()), l, out, 0);
  return out;
}

std::vector<int64_t> TpuChip::hostShape(Device& device, const Arg& a, const TiledLayout& l) {
  std::vector<int64_t> s = l.shape;
  if (a.placement == Placement::Split) s[0] *= device.chips();
  return s;
}

std::string TpuChip::shapeNote(Device& device, const Arg& a, const TiledLayout& l,
                               const std::vector<int64_t>&) {
  if (a.placement != Placement::Split) return "";
  return " (" + std::to_string(device.chips()) + " chips' blocks of " + shapeText(l.shape) +
         " stacked)";
}

void TpuChip::toDevice(Device& device, const Arg& a, uint64_t addr, const TiledLayout& l,
                       const NpyArray& host, const std::string& what) {
  for (int c = 0; c < device.chips(); ++c) {
    int64_t first = a.placement == Placement::Split ? c * l.elements() : 0;
    toTiled(host, first, l, device.span(c, addr, l.deviceBytes()), what);
  }
}

NpyArray TpuChip::fromDevice(Device& device, const Arg& a, uint64_t addr, const TiledLayout& l) {
  NpyArray out = makeNpy(hostTypeOf(l.dtype), hostShape(device, a, l));
  const int parts = a.placement == Placement::Split ? device.chips() : 1;
  for (int c = 0; c < parts; ++c)
    fromTiled(device.span(c, addr, l.deviceBytes()), l, out, c * l.elements());
  return out;
}

LaunchReport TpuChip::run(Device& device, const Job& job, const JobBinary& binary,
                          const std::vector<int64_t>& symbols, TraceWriter* trace) {
  sim::tpu::LaunchResult r;
  try {
    r = device.run(binary, symbols, trace);
  } catch (const ProgramTrap& trap) {
    throw Error(explainTrap(job, binary, trap, symbols));
  }
  LaunchReport out;
  out.cycles = r.cycles;
  out.hostSeconds = r.hostSeconds;
  out.issued = r.bundles;
  out.sharedSteps = device.lastRunShared() ? 1 : 0;
  return out;
}

std::string TpuChip::explainTrap(const Job& job, const JobBinary& binary, const ProgramTrap& trap,
                                 const std::vector<int64_t>& symbols) {
  const std::string text = trap.what();
  auto isNameChar = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (const TrapMessage& t : job.plan.traps) {
    if (t.code != trap.code()) continue;
    // @NAME (letters, digits, '_', and '.' between them): the value of the binary's symbol.
    std::string message;
    for (size_t i = 0; i < t.message.size(); ++i) {
      size_t end = i + 1;
      while (end < t.message.size() &&
             (isNameChar(t.message[end]) || (t.message[end] == '.' && end + 1 < t.message.size() &&
                                             isNameChar(t.message[end + 1]))))
        ++end;
      const auto& names = binary.symbols;
      auto it = std::find(names.begin(), names.end(), t.message.substr(i + 1, end - i - 1));
      if (t.message[i] == '@' && it != names.end()) {
        message += std::to_string(symbols[static_cast<size_t>(it - names.begin())]);
        i = end - 1;
      } else {
        message += t.message[i];
      }
    }
    return text + ": " + message;
  }
  return text + " (the plan of " + job.plan.kernel + " says nothing about trap " +
         std::to_string(trap.code()) + ")";
}

template class PreparedJob<TpuChip>;
template class ChipDevice<TpuChip, tpuprog::Job>;

} // namespace chipless::runtime

#include "runtime/prepared_job.h"

#include "runtime/host_functions.h"
#include "runtime/launch_common.h"
#include "support/error.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/directory.h"

#include <set>

namespace chipless::runtime {

using namespace spyrecode;

PreparedJob::PreparedJob(Device& device, const std::string& planPath)
    : device_(device), job_(readJob(planPath)), name_(planPath) {
  prepare();
}

PreparedJob::PreparedJob(Device& device, Job job, const std::string& name)
    : device_(device), job_(std::move(job)), name_(name) {
  prepare();
}

PreparedJob::~PreparedJob() {
  for (uint64_t a : allocations_) device_.release(a);
}

void PreparedJob::prepare() {
  const SpyreArch& arch = device_.arch();
  if (job_.arch) checkPlannedParameters(*job_.arch, arch.description, name_, SpyreArch::kCompilers);
  const uint64_t segBase = device_.segmentBase(arch.memory.program_segment);
  const uint64_t segEnd = segBase + static_cast<uint64_t>(arch.memory.segment_bytes);
  // The job's SpyreCode region as the plan lays it out, then where it fits on the device.
  uint64_t lo = segEnd, hi = segBase;
  for (size_t i = 0; i < job_.plan.prepare.size(); ++i) {
    const PlanCommand& c = job_.plan.prepare[i];
    std::string where =
        name_ + ": prepare[" + std::to_string(i) + "] (" + commandName(c.kind) + ")";
    uint64_t ptr = parseDevPtr(c.devPtr, where + ".dev_ptr");
    if (ptr < segBase || ptr + static_cast<uint64_t>(c.size) > segEnd)
      throw Error(where + ": dev_ptr " + c.devPtr + " is outside the SpyreCode segment " +
                  std::to_string(arch.memory.program_segment) + " (" + formatDevPtr(segBase) +
                  ".." + formatDevPtr(segEnd) + ")");
    lo = std::min(lo, ptr);
    hi = std::max(hi, ptr + static_cast<uint64_t>(c.size));
  }
  if (lo < hi) relocation_ = device_.placeRange(arch.memory.program_segment, lo, hi - lo) - lo;
  try {
    for (size_t i = 0; i < job_.plan.prepare.size(); ++i) {
      const PlanCommand& c = job_.plan.prepare[i];
      std::string where =
          name_ + ": prepare[" + std::to_string(i) + "] (" + commandName(c.kind) + ")";
      uint64_t ptr = parseDevPtr(c.devPtr, where + ".dev_ptr") + relocation_;
      if (c.kind == PlanCommand::Kind::Allocate) {
        device_.allocateAt(ptr, static_cast<uint64_t>(c.size), c.name);
        allocations_.push_back(ptr);
        if (c.name != "program") {
          bool declared = false;
          for (const auto& b : job_.plan.buffers) declared |= b.name == c.name && b.size == c.size;
          if (!declared)
            throw Error(where + ": '" + c.name + "' is not a declared buffer of that size");
          buffers_[c.name] = ptr;
        }
      } else {
        // InitTransfer: the job binary goes into device memory where it was allocated.
        std::string bytes = encodeBinary(job_.binary);
        if (static_cast<int64_t>(bytes.size()) != c.size)
          throw Error(where + ": size " + std::to_string(c.size) + " but the binary has " +
                      std::to_string(bytes.size()) + " bytes");
        device_.memory().write(ptr, bytes.data(), bytes.size());
        binaryPtr_ = ptr;
      }
    }
    if (!binaryPtr_) throw Error(name_ + ": the preparation plan never loads the job binary");
    for (const auto& b : job_.plan.buffers)
      if (!buffers_.count(b.name))
        throw Error(name_ + ": buffer '" + b.name + "' is never allocated by the preparation plan");
  } catch (...) {
    for (uint64_t a : allocations_) device_.release(a);
    allocations_.clear();
    throw;
  }
}

std::map<std::string, int64_t> PreparedJob::bindScalars(const LaunchArgs& args) const {
  std::map<std::string, int64_t> values;
  std::map<std::string, std::string> sources; // where each value came from, for errors
  std::set<std::string> declared;
  for (const auto& s : job_.plan.scalars) declared.insert(s.name);
  for (const auto& [name, v] : args.scalars) {
    if (!declared.count(name))
      throw Error("scalar '" + name + "' is not an argument of " + job_.plan.kernel);
    values[name] = v;
    sources[name] = "--scalar " + name;
  }
  // Scalars that name tensor dimensions can be read off the inputs.
  for (const auto& a : job_.plan.args) {
    auto it = args.inputs.find(a.name);
    if (it == args.inputs.end()) continue;
    const std::vector<int64_t> hostShape = hostShapeOf(it->second);
    // A wrong rank is reported here, before a scalar it should have bound is missed.
    if (hostShape.size() != a.shape.size())
      throw Error("input '" + a.name + "' has shape " + shapeText(it->second.shape) + " but " +
                  job_.plan.kernel + " expects " + declaredShape(a));
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        auto [pos, inserted] = values.emplace(*s, hostShape[d]);
        if (inserted) sources[*s] = "input '" + a.name + "' dimension " + std::to_string(d);
        if (!inserted && pos->second != hostShape[d])
          throw Error("input '" + a.name + "' dimension " + std::to_string(d) + " is " +
                      std::to_string(hostShape[d]) + " but scalar " + *s + " = " +
                      std::to_string(pos->second));
      }
  }
  checkBoundScalars(job_.plan.scalars, values, sources, job_.plan.kernel);
  return values;
}

StickLayout PreparedJob::layoutOf(const TensorArg& a,
                                  const std::map<std::string, int64_t>& scalars) const {
  StickLayout l;
  l.dtype = a.dtype;
  l.stickBytes = device_.arch().chip.stick_bytes;
  l.rowMajor = a.layout == Layout::RowMajor;
  for (const auto& d : a.shape) {
    int64_t v = std::holds_alternative<int64_t>(d) ? std::get<int64_t>(d)
                                                   : scalars.at(std::get<std::string>(d));
    if (v <= 0)
      throw Error("argument '" + a.name + "' would have dimension " + std::to_string(v) +
                  " (from " + declaredShape(a) + ")");
    l.shape.push_back(v);
  }
  return l;
}

LaunchOutput PreparedJob::launch(const LaunchArgs& args) {
  const bool timingOnly = device_.timingOnly();
  const Fp16Format fmt = *parseFp16Format(device_.arch().numerics.fp16_format);
  for (const auto& [name, _] : args.inputs) {
    const TensorArg* a = job_.plan.findArg(name);
    if (!a) throw Error("'" + name + "' is not an argument of " + job_.plan.kernel);
    if (a->role == ArgRole::Output)
      throw Error("'" + name + "' is an output of " + job_.plan.kernel + ", not an input");
  }
  if (!timingOnly)
    for (const auto& a : job_.plan.args)
      if (a.role != ArgRole::Output && !args.inputs.count(a.name))
        throw Error("input '" + a.name + "' (" + dtypeName(a.dtype) + " " + declaredShape(a) +
                    ") is not bound (pass --input " + a.name + "=FILE.npy)");
  std::map<std::string, int64_t> scalars = bindScalars(args);

  // Bind every tensor argument to device memory for this launch.
  LaunchAllocations<Device> launchAllocs{device_, {}};
  std::map<std::string, std::pair<uint64_t, StickLayout>> bound;
  for (const auto& a : job_.plan.args) {
    StickLayout layout = layoutOf(a, scalars);
    auto it = args.inputs.find(a.name);
    if (it != args.inputs.end()) {
      std::vector<int64_t> hostShape = hostShapeOf(it->second);
      if (hostShape != layout.shape)
        throw Error("input '" + a.name + "' has shape " + shapeText(it->second.shape) + " but " +
                    job_.plan.kernel + " expects " + shapeText(layout.shape) +
                    (declaredShape(a) != shapeText(layout.shape) ? " " + declaredShape(a) : ""));
    }
    uint64_t addr = device_.allocate(0, layout.deviceBytes(), a.name);
    launchAllocs.addresses.push_back(addr);
    bound.emplace(a.name, std::make_pair(addr, layout));
  }

  // Patch the symbolic operands ("program correction").
  std::vector<int64_t> symbols;
  for (const auto& name : job_.binary.symbols) {
    auto dot = name.find('.');
    std::string base = name.substr(0, dot);
    if (dot != std::string::npos) {
      size_t dim = std::stoul(name.substr(dot + 2));
      symbols.push_back(bound.at(base).second.shape.at(dim));
    } else if (auto b = bound.find(base); b != bound.end()) {
      symbols.push_back(static_cast<int64_t>(b->second.first));
    } else if (auto s = scalars.find(base); s != scalars.end()) {
      symbols.push_back(s->second);
    } else {
      symbols.push_back(static_cast<int64_t>(buffers_.at(base)));
    }
  }

  auto resolve = [&](const std::string& devPtr, const std::string& where) -> uint64_t {
    if (!devPtr.empty() && devPtr[0] == '@') {
      auto it = bound.find(devPtr.substr(1));
      if (it == bound.end()) throw Error(where + ": '" + devPtr + "' names no tensor argument");
      return it->second.first;
    }
    return parseDevPtr(devPtr, where);
  };

  LaunchOutput out;
  for (size_t i = 0; i < job_.plan.execute.size(); ++i) {
    const PlanCommand& c = job_.plan.execute[i];
    std::string where =
        name_ + ": execute[" + std::to_string(i) + "] (" + commandName(c.kind) + ")";
    switch (c.kind) {
    case PlanCommand::Kind::DataTransfer: {
      auto& [addr, layout] = bound.at(c.hostHandle);
      uint64_t ptr = resolve(c.devPtr, where);
      if (ptr != addr)
        throw Error(where + ": dev_ptr " + c.devPtr + " is not where '" + c.hostHandle +
                    "' is bound");
      if (timingOnly) break;
      uint8_t* dev = device_.memory().span(ptr, layout.deviceBytes());
      if (c.direction == 0) {
        auto it = args.inputs.find(c.hostHandle);
        if (it == args.inputs.end())
          throw Error(where + ": '" + c.hostHandle + "' has no host data (it is an output)");
        toDevice(it->second, layout, fmt, dev, "input '" + c.hostHandle + "'");
      } else {
        out.outputs[c.hostHandle] = fromDevice(dev, layout, fmt);
      }
      break;
    }
    case PlanCommand::Kind::ComputeOnDevice: {
      uint64_t ptr = parseDevPtr(c.devPtr, where + ".job_bin_ptr") + relocation_;
      if (ptr != binaryPtr_)
        throw Error(where + ": job_bin_ptr " + c.devPtr +
                    " is not where the job binary was loaded (" + formatDevPtr(binaryPtr_) + ")");
      sim::spyre::LaunchResult r = device_.chip().launch(job_.binary, symbols, args.trace);
      out.device.cycles += r.cycles;
      out.device.hostSeconds += r.hostSeconds;
      out.device.instructions += r.instructions;
      break;
    }
    case PlanCommand::Kind::ComputeOnHost: {
      if (timingOnly) break;
      std::vector<NpyArray> ins;
      for (const auto& n : c.inputs) {
        auto& [addr, layout] = bound.at(n);
        ins.push_back(fromDevice(device_.memory().span(addr, layout.deviceBytes()), layout, fmt));
      }
      std::vector<std::vector<int64_t>> shapes;
      for (const auto& n : c.outputs) shapes.push_back(bound.at(n).second.shape);
      std::vector<NpyArray> results = runHostFunction(c.function, ins, shapes, c.metadata);
      for (size_t k = 0; k < c.outputs.size(); ++k) {
        auto& [addr, layout] = bound.at(c.outputs[k]);
        toDevice(results[k], layout, fmt, device_.memory().span(addr, layout.deviceBytes()),
                 where + " output '" + c.outputs[k] + "'");
      }
      break;
    }
    default:
      throw Error(where + ": not an execution command");
    }
  }
  return out;
}

} // namespace chipless::runtime

#pragma once
/// The definitions of PreparedJob<Chip> (runtime/prepared_job.h) and ChipDevice<Chip>
/// (runtime/chip_device.h), included by the one .cpp file of each chip that instantiates
/// them (runtime/spyre/spyre_job.cpp, runtime/tpu/tpu_job.cpp).
#include "runtime/chip_device.h"
#include "runtime/host_functions.h"
#include "runtime/launch_common.h"
#include "runtime/prepared_job.h"
#include "support/arch_record.h"
#include "support/error.h"
#include "support/progformat/plan.h"

#include <algorithm>
#include <set>
#include <variant>

namespace chipless::runtime {

template <typename Chip>
PreparedJob<Chip>::PreparedJob(DeviceType& device, const std::string& planPath)
    : device_(device), job_(Chip::readJob(planPath)), name_(planPath) {
  prepare();
}

template <typename Chip>
PreparedJob<Chip>::PreparedJob(DeviceType& device, Job job, std::string name)
    : device_(device), job_(std::move(job)), name_(std::move(name)) {
  Chip::checkJob(job_, name_);
  prepare();
}

template <typename Chip>
PreparedJob<Chip>::~PreparedJob() {
  for (uint64_t a : allocations_) device_.release(a);
}

template <typename Chip>
std::string PreparedJob<Chip>::where(const char* list, size_t i) const {
  const auto& c = std::string(list) == "prepare" ? job_.plan.prepare[i] : job_.plan.execute[i];
  return name_ + ": " + list + "[" + std::to_string(i) + "] (" + progformat::commandName(c.kind) +
         ")";
}

template <typename Chip>
void PreparedJob<Chip>::prepare() {
  using progformat::PlanCommand;
  if (job_.arch) checkPlannedParameters(*job_.arch, device_.arch(), name_, Chip::Arch::kCompilers);
  info_.kernel = job_.plan.kernel;
  for (const auto& a : job_.plan.args)
    info_.arguments.push_back({a.name, a.role, a.dtype, hostTypeOf(a.dtype), declaredShape(a)});
  for (const auto& s : job_.plan.scalars) info_.scalars.push_back(s.name);

  // The region the plan lays out, then where it fits on the device.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < job_.plan.prepare.size(); ++i) {
    const PlanCommand& c = job_.plan.prepare[i];
    const std::string devPtr = where("prepare", i) + ".dev_ptr";
    uint64_t ptr = progformat::parseDevPtr(c.devPtr, devPtr);
    uint64_t size = static_cast<uint64_t>(std::max<int64_t>(c.size, 1));
    Chip::checkPlanRange(device_, ptr, size, c.devPtr, where("prepare", i));
    lo = std::min(lo, ptr);
    hi = std::max(hi, ptr + size);
  }
  if (lo < hi) {
    try {
      relocation_ =
          static_cast<int64_t>(Chip::placeRegion(device_, lo, hi - lo)) - static_cast<int64_t>(lo);
    } catch (const Error& e) {
      throw Error(name_ + ": prepare: " + e.what());
    }
  }
  try {
    for (size_t i = 0; i < job_.plan.prepare.size(); ++i) {
      const PlanCommand& c = job_.plan.prepare[i];
      const std::string at = where("prepare", i);
      uint64_t ptr =
          progformat::parseDevPtr(c.devPtr, at + ".dev_ptr") + static_cast<uint64_t>(relocation_);
      if (c.kind == PlanCommand::Kind::Allocate) {
        try {
          device_.allocateAt(ptr, static_cast<uint64_t>(c.size), c.name);
        } catch (const Error& e) {
          throw Error(at + ": " + e.what());
        }
        allocations_.push_back(ptr);
        if (c.name != "program") {
          bool declared = false;
          for (const auto& b : job_.plan.buffers) declared |= b.name == c.name && b.size == c.size;
          if (!declared)
            throw Error(at + ": '" + c.name + "' is not a declared buffer of that size");
          buffers_[c.name] = ptr;
        }
      } else {
        // InitTransfer: a job binary goes into device memory where it was allocated.
        const int index = binaryIndex(c.filePath);
        if (index < -1) throw Error(at + ": '" + c.filePath + "' is not a binary of the job");
        std::string bytes = Chip::encodeBinary(binaryAt(index));
        if (static_cast<int64_t>(bytes.size()) != c.size)
          throw Error(at + ": size " + std::to_string(c.size) + " but the binary has " +
                      std::to_string(bytes.size()) + " bytes");
        try {
          device_.copyIn(ptr, bytes.data(), bytes.size(), -1);
        } catch (const Error& e) {
          throw Error(at + ": " + e.what());
        }
        loadedBinaries_[ptr] = index;
      }
    }
    if (loadedBinaries_.empty())
      throw Error(name_ + ": the preparation plan never loads the job binary");
    for (const auto& b : job_.plan.buffers)
      if (!buffers_.count(b.name))
        throw Error(name_ + ": buffer '" + b.name + "' is never allocated by the preparation plan");
  } catch (...) {
    for (uint64_t a : allocations_) device_.release(a);
    allocations_.clear();
    throw;
  }
}

template <typename Chip>
std::map<std::string, int64_t> PreparedJob<Chip>::bindScalars(const LaunchArgs& args) const {
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
  bindRealScalars(job_.plan.scalars, args.reals, values, job_.plan.kernel);
  // Scalars that name tensor dimensions can be read off the inputs and device tensors.
  for (const auto& a : job_.plan.args) {
    std::vector<int64_t> given;
    if (auto it = args.inputs.find(a.name); it != args.inputs.end())
      given = it->second.shape;
    else if (auto r = args.resident.find(a.name); r != args.resident.end())
      given = r->second.shape;
    else
      continue;
    const std::vector<int64_t> hostShape = given.empty() ? std::vector<int64_t>{1} : given;
    const std::string kind = args.inputs.count(a.name) ? "input '" : "device tensor '";
    // A wrong rank is reported here, before a scalar it should have bound is missed.
    if (hostShape.size() != a.shape.size())
      throw Error(kind + a.name + "' has shape " + shapeText(given) + " but " + job_.plan.kernel +
                  " expects " + declaredShape(a));
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        int64_t v = hostShape[d];
        // A tensor split over the chips stacks their blocks along dimension 0.
        const int64_t parts = d == 0 ? Chip::blocksAlongDimension0(device_, a) : 1;
        if (v % parts != 0)
          throw Error("input '" + a.name + "' is split over " + std::to_string(parts) +
                      " chips but its dimension 0 (" + std::to_string(v) +
                      ") is not a multiple of that");
        v /= parts;
        const std::string source = kind + a.name + "' dimension " + std::to_string(d);
        auto [pos, inserted] = values.emplace(*s, v);
        if (inserted) sources[*s] = source;
        if (!inserted && pos->second != v)
          throw Error(source + " is " + std::to_string(v) + ", but scalar " + *s + " is " +
                      std::to_string(pos->second) + " (from " + sources[*s] + ")");
      }
  }
  checkBoundScalars(job_.plan.scalars, values, sources, job_.plan.kernel);
  return values;
}

template <typename Chip>
typename Chip::Layout
PreparedJob<Chip>::layoutOf(const Arg& a, const std::map<std::string, int64_t>& scalars) const {
  std::vector<int64_t> shape;
  for (const auto& d : a.shape) {
    int64_t v = std::holds_alternative<int64_t>(d) ? std::get<int64_t>(d)
                                                   : scalars.at(std::get<std::string>(d));
    if (v <= 0)
      throw Error("argument '" + a.name + "' would have dimension " + std::to_string(v) +
                  " (from " + declaredShape(a) + ")");
    shape.push_back(v);
  }
  return Chip::layout(device_, a, std::move(shape));
}

template <typename Chip>
uint64_t PreparedJob<Chip>::bindResident(const Arg& a, const DeviceTensor& t,
                                         const Layout& layout) const {
  const std::string what = "device tensor '" + a.name + "'";
  if (t.dtype != a.dtype)
    throw Error(what + " is " + dtypeName(t.dtype) + " but " + job_.plan.kernel + " expects " +
                dtypeName(a.dtype));
  const std::vector<int64_t> shape = t.shape.empty() ? std::vector<int64_t>{1} : t.shape;
  if (shape != layout.shape)
    throw Error(what + " has shape " + shapeText(t.shape) + " but " + job_.plan.kernel +
                " expects " + shapeText(layout.shape));
  if (!Chip::sameLayout(layout, Chip::canonicalLayout(device_, t.dtype, t.shape)))
    throw Error(what + ": " + job_.plan.kernel + " lays the argument out as " +
                Chip::layoutText(layout) + ", not in the device's canonical layout " +
                Chip::layoutText(Chip::canonicalLayout(device_, t.dtype, t.shape)));
  device_.checkTensor(t, what);
  return t.address;
}

template <typename Chip>
int PreparedJob<Chip>::binaryIndex(const std::string& file) const {
  if (file == job_.plan.binaryFile) return -1;
  for (size_t i = 0; i < job_.extraBinaries.size(); ++i)
    if (job_.extraBinaries[i].first == file) return static_cast<int>(i);
  return -2;
}

template <typename Chip>
const typename PreparedJob<Chip>::Binary& PreparedJob<Chip>::binaryAt(int index) const {
  return index < 0 ? job_.binary : job_.extraBinaries[static_cast<size_t>(index)].second;
}

template <typename Chip>
std::vector<int64_t>
PreparedJob<Chip>::symbolValues(const Binary& binary, const Bound& bound,
                                const std::map<std::string, int64_t>& scalars) const {
  std::vector<int64_t> values;
  for (const auto& name : binary.symbols) {
    std::string why;
    auto ref = Chip::resolveSymbol(job_.plan, name, why);
    if (!ref) throw Error(name_ + ": symbol '@" + name + "': " + why);
    using Kind = typename decltype(ref)::value_type::Kind;
    switch (ref->kind) {
    case Kind::Address:
      values.push_back(static_cast<int64_t>(bound.at(ref->base).first));
      break;
    case Kind::Dim:
      values.push_back(bound.at(ref->base).second.shape.at(static_cast<size_t>(ref->dim)));
      break;
    case Kind::PaddedDim:
      values.push_back(Chip::paddedDim(bound.at(ref->base).second, ref->dim));
      break;
    case Kind::Scalar:
      values.push_back(scalars.at(ref->base));
      break;
    case Kind::ScalarAsReal: {
      ScalarArg as;
      as.name = ref->base;
      as.real = ref->real;
      values.push_back(realScalarBits(as, static_cast<double>(scalars.at(ref->base))));
      break;
    }
    case Kind::Buffer:
      values.push_back(static_cast<int64_t>(buffers_.at(ref->base)));
      break;
    }
  }
  return values;
}

template <typename Chip>
LaunchReport PreparedJob<Chip>::launch(const LaunchArgs& args) {
  using progformat::ArgRole;
  using progformat::PlanCommand;
  const bool timingOnly = device_.timingOnly();
  for (const auto& [name, _] : args.inputs) {
    const Arg* a = job_.plan.findArg(name);
    if (!a) throw Error("'" + name + "' is not an argument of " + job_.plan.kernel);
    if (a->role == ArgRole::Output)
      throw Error("'" + name + "' is an output of " + job_.plan.kernel + ", not an input");
  }
  for (const auto& [name, _] : args.resident) {
    const Arg* a = job_.plan.findArg(name);
    if (!a) throw Error("device tensor '" + name + "' is not an argument of " + job_.plan.kernel);
    if (args.inputs.count(name))
      throw Error("'" + name + "' is bound both to a host array and to a device tensor");
    if (Chip::blocksAlongDimension0(device_, *a) != 1)
      throw Error("'" + name +
                  "' is split over the chips; a device tensor is the same on every "
                  "chip and cannot be bound to it");
  }
  if (!timingOnly)
    for (const auto& a : job_.plan.args)
      if (a.role != ArgRole::Output && !args.inputs.count(a.name) && !args.resident.count(a.name))
        throw Error("input '" + a.name + "' (" + dtypeName(a.dtype) + " " + declaredShape(a) +
                    ") is not bound (pass --input " + a.name + "=FILE.npy)");
  std::map<std::string, int64_t> scalars = bindScalars(args);

  // Bind every tensor argument to device memory for this launch.
  LaunchAllocations<DeviceType> launchAllocs{device_, {}};
  Bound bound;
  for (const auto& a : job_.plan.args) {
    Layout layout = layoutOf(a, scalars);
    auto it = args.inputs.find(a.name);
    if (it != args.inputs.end()) {
      const std::vector<int64_t> want = Chip::hostShape(device_, a, layout);
      if (hostShapeOf(it->second) != want)
        throw Error("input '" + a.name + "' has shape " + shapeText(it->second.shape) + " but " +
                    job_.plan.kernel + " expects " + shapeText(want) +
                    Chip::shapeNote(device_, a, layout, want));
    }
    if (auto r = args.resident.find(a.name); r != args.resident.end()) {
      bound.emplace(a.name, std::make_pair(bindResident(a, r->second, layout), layout));
      continue;
    }
    uint64_t addr = device_.allocate(layout.deviceBytes(), a.name);
    launchAllocs.addresses.push_back(addr);
    bound.emplace(a.name, std::make_pair(addr, layout));
  }
  // The symbol values of every binary the job loaded (most jobs have one).
  std::map<int, std::vector<int64_t>> symbols;
  for (const auto& [ptr, index] : loadedBinaries_)
    if (!symbols.count(index)) symbols[index] = symbolValues(binaryAt(index), bound, scalars);

  auto resolve = [&](const std::string& devPtr, const std::string& at) -> uint64_t {
    if (!devPtr.empty() && devPtr[0] == '@') {
      auto it = bound.find(devPtr.substr(1));
      if (it == bound.end()) throw Error(at + ": '" + devPtr + "' names no tensor argument");
      return it->second.first;
    }
    return progformat::parseDevPtr(devPtr, at);
  };
  auto hostValue = [&](const std::string& name) {
    auto& [addr, layout] = bound.at(name);
    return Chip::fromDevice(device_, *job_.plan.findArg(name), addr, layout);
  };
  auto toDevice = [&](const std::string& name, const NpyArray& host, const std::string& what) {
    auto& [addr, layout] = bound.at(name);
    Chip::toDevice(device_, *job_.plan.findArg(name), addr, layout, host, what);
  };

  LaunchReport out;
  std::vector<Stats> kernelStats;
  std::vector<double> kernelCycles;
  for (size_t i = 0; i < job_.plan.execute.size(); ++i) {
    const PlanCommand& c = job_.plan.execute[i];
    const std::string at = where("execute", i);
    switch (c.kind) {
    case PlanCommand::Kind::DataTransfer: {
      uint64_t ptr = resolve(c.devPtr, at);
      if (ptr != bound.at(c.hostHandle).first)
        throw Error(at + ": dev_ptr " + c.devPtr + " is not where '" + c.hostHandle + "' is bound");
      // A device tensor is where the program reads and writes it: nothing to move.
      if (timingOnly || args.resident.count(c.hostHandle)) break;
      if (c.direction == 0) {
        auto it = args.inputs.find(c.hostHandle);
        if (it == args.inputs.end())
          throw Error(at + ": '" + c.hostHandle + "' has no host data (it is an output)");
        toDevice(c.hostHandle, it->second, "input '" + c.hostHandle + "'");
      } else {
        out.outputs[c.hostHandle] = hostValue(c.hostHandle);
      }
      break;
    }
    case PlanCommand::Kind::ComputeOnDevice: {
      uint64_t ptr = progformat::parseDevPtr(c.devPtr, at + ".job_bin_ptr") +
                     static_cast<uint64_t>(relocation_);
      auto loaded = loadedBinaries_.find(ptr);
      if (loaded == loadedBinaries_.end()) {
        std::string loadedAt;
        for (const auto& [p, _] : loadedBinaries_)
          loadedAt += (loadedAt.empty() ? "" : ", ") + progformat::formatDevPtr(p);
        throw Error(at + ": job_bin_ptr " + c.devPtr + " is not where a job binary was loaded (" +
                    loadedAt + ")");
      }
      // Each binary's run starts its clock at 0: its trace events follow the previous one's.
      if (args.trace && !kernelStats.empty()) args.trace->continueAfterLatest();
      // Each device's model lives in its own SystemC context (several devices per process).
      device_.enterContext();
      LaunchReport r = Chip::run(device_, job_, binaryAt(loaded->second),
                                 symbols.at(loaded->second), args.trace);
      out.cycles += r.cycles;
      out.hostSeconds += r.hostSeconds;
      out.issued += r.issued;
      out.sharedSteps += r.sharedSteps;
      // A multi-kernel job: the device's statistics of each binary, combined at the end.
      if (job_.extraBinaries.size() > 0 && args.statistics) {
        kernelStats.push_back(device_.stats(r));
        kernelCycles.push_back(r.cycles);
      }
      break;
    }
    case PlanCommand::Kind::ComputeOnHost: {
      if (timingOnly) break;
      std::vector<NpyArray> ins;
      for (const auto& n : c.inputs) ins.push_back(hostValue(n));
      std::vector<std::vector<int64_t>> shapes;
      for (const auto& n : c.outputs)
        shapes.push_back(Chip::hostShape(device_, *job_.plan.findArg(n), bound.at(n).second));
      std::vector<NpyArray> results = runHostFunction(c.function, ins, shapes, c.metadata);
      for (size_t k = 0; k < c.outputs.size(); ++k)
        toDevice(c.outputs[k], results[k], at + " output '" + c.outputs[k] + "'");
      break;
    }
    default:
      throw Error(at + ": not an execution command");
    }
  }
  if (!kernelStats.empty()) out.deviceStats = Stats::sequential(kernelStats, kernelCycles);
  return out;
}

template <typename Chip, typename Job>
std::unique_ptr<Program> ChipDevice<Chip, Job>::prepare(const std::string& planPath) {
  return std::make_unique<PreparedJob<Chip>>(static_cast<typename Chip::Device&>(*this), planPath);
}

template <typename Chip, typename Job>
std::unique_ptr<PreparedJob<Chip>> ChipDevice<Chip, Job>::prepare(Job job,
                                                                  const std::string& name) {
  return std::make_unique<PreparedJob<Chip>>(static_cast<typename Chip::Device&>(*this),
                                             std::move(job), name);
}

template <typename Chip, typename Job>
uint64_t ChipDevice<Chip, Job>::tensorBytes(DType dtype, const std::vector<int64_t>& shape) const {
  return Chip::canonicalLayout(static_cast<const typename Chip::Device&>(*this), dtype, shape)
      .deviceBytes();
}

template <typename Chip, typename Job>
void ChipDevice<Chip, Job>::checkTensor(const DeviceTensor& tensor, const std::string& what) const {
  for (int64_t d : tensor.shape)
    if (d <= 0)
      throw Error(what + ": shape " + shapeText(tensor.shape) + " has an empty dimension");
  const auto& self = static_cast<const typename Chip::Device&>(*this);
  const uint64_t bytes = tensorBytes(tensor.dtype, tensor.shape);
  if (!self.ranges().holds(tensor.address, bytes))
    throw Error(what + ": " + std::to_string(bytes) + " bytes at " +
                progformat::formatDevPtr(tensor.address) + " (" + dtypeName(tensor.dtype) + " " +
                shapeText(tensor.shape) + ") are not inside one allocation of " + name());
}

template <typename Chip, typename Job>
double ChipDevice<Chip, Job>::writeTensor(const DeviceTensor& tensor, const NpyArray& host,
                                          const std::string& what) {
  checkTensor(tensor, what);
  auto asBound = [](std::vector<int64_t> v) { return v.empty() ? std::vector<int64_t>{1} : v; };
  if (asBound(host.shape) != asBound(tensor.shape))
    throw Error(what + ": the host array has shape " + shapeText(host.shape) +
                " but the device tensor " + shapeText(tensor.shape));
  auto& self = static_cast<typename Chip::Device&>(*this);
  const auto layout = Chip::canonicalLayout(self, tensor.dtype, tensor.shape);
  if (!timingOnly()) Chip::store(self, tensor.address, layout, host, what);
  return hostLinkSeconds(layout.deviceBytes());
}

template <typename Chip, typename Job>
NpyArray ChipDevice<Chip, Job>::readTensor(const DeviceTensor& tensor, double& seconds) {
  checkTensor(tensor, "device tensor");
  auto& self = static_cast<typename Chip::Device&>(*this);
  const auto layout = Chip::canonicalLayout(self, tensor.dtype, tensor.shape);
  seconds = hostLinkSeconds(layout.deviceBytes());
  if (timingOnly()) return makeNpy(hostTypeOf(tensor.dtype), tensor.shape);
  NpyArray out = Chip::load(self, tensor.address, layout);
  out.shape = tensor.shape; // a 0-d tensor is laid out as (1)
  return out;
}

template <typename Chip, typename Job>
LaunchReport ChipDevice<Chip, Job>::launch(Program& program, const LaunchArgs& args) {
  auto* job = dynamic_cast<PreparedJob<Chip>*>(&program);
  if (!job || static_cast<Device*>(&job->device()) != this)
    throw Error(name() + ": " + program.info().kernel + " was prepared on another device");
  return job->launch(args);
}

} // namespace chipless::runtime

#include "runtime/tpu/tpu_prepared_job.h"

#include "runtime/host_functions.h"
#include "runtime/launch_common.h"
#include "support/error.h"
#include "support/tpuprog/binary.h"
#include "support/tpuprog/directory.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

namespace chipless::runtime {

using namespace tpuprog;

TpuPreparedJob::TpuPreparedJob(TpuDevice& device, const std::string& planPath)
    : device_(device), job_(readJob(planPath)), name_(planPath) {
  prepare();
}

TpuPreparedJob::TpuPreparedJob(TpuDevice& device, Job job, const std::string& name)
    : device_(device), job_(std::move(job)), name_(name) {
  checkSymbols(job_, name_, name_);
  prepare();
}

TpuPreparedJob::~TpuPreparedJob() {
  for (uint64_t a : allocations_) device_.release(a);
}

void TpuPreparedJob::prepare() {
  if (job_.arch)
    checkPlannedParameters(*job_.arch, device_.arch().description, name_, TpuArch::kCompilers);
  // The region the plan asks for, moved as a whole if another job holds any of it.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < job_.plan.prepare.size(); ++i) {
    const PlanCommand& c = job_.plan.prepare[i];
    uint64_t ptr = parseDevPtr(c.devPtr, name_ + ": prepare[" + std::to_string(i) + "].dev_ptr");
    lo = std::min(lo, ptr);
    hi = std::max(hi, ptr + static_cast<uint64_t>(std::max<int64_t>(c.size, 1)));
  }
  if (lo < hi) {
    try {
      relocation_ =
          static_cast<int64_t>(device_.placeRange(lo, hi - lo)) - static_cast<int64_t>(lo);
    } catch (const Error& e) {
      throw Error(name_ + ": prepare: " + e.what());
    }
  }
  try {
    for (size_t i = 0; i < job_.plan.prepare.size(); ++i) {
      const PlanCommand& c = job_.plan.prepare[i];
      std::string where =
          name_ + ": prepare[" + std::to_string(i) + "] (" + commandName(c.kind) + ")";
      uint64_t ptr = parseDevPtr(c.devPtr, where + ".dev_ptr") + static_cast<uint64_t>(relocation_);
      if (c.kind == PlanCommand::Kind::Allocate) {
        try {
          device_.allocateAt(ptr, static_cast<uint64_t>(c.size), c.name);
        } catch (const Error& e) {
          throw Error(where + ": " + e.what());
        }
        allocations_.push_back(ptr);
        if (c.name != "program") {
          bool declared = false;
          for (const auto& b : job_.plan.buffers) declared |= b.name == c.name && b.size == c.size;
          if (!declared)
            throw Error(where + ": '" + c.name + "' is not a declared buffer of that size");
          buffers_[c.name] = ptr;
        }
      } else {
        // InitTransfer: the program goes into every chip's HBM where it was allocated.
        std::string bytes = encodeBinary(job_.binary);
        if (static_cast<int64_t>(bytes.size()) != c.size)
          throw Error(where + ": size " + std::to_string(c.size) + " but the binary has " +
                      std::to_string(bytes.size()) + " bytes");
        try {
          device_.writeAll(ptr, bytes.data(), bytes.size());
        } catch (const Error& e) {
          throw Error(where + ": " + e.what());
        }
        binaryPtr_ = ptr;
        binaryLoaded_ = true;
      }
    }
    if (!binaryLoaded_)
      throw Error(name_ + ": the preparation plan never loads the program binary");
    for (const auto& b : job_.plan.buffers)
      if (!buffers_.count(b.name))
        throw Error(name_ + ": buffer '" + b.name + "' is never allocated by the preparation plan");
  } catch (...) {
    for (uint64_t a : allocations_) device_.release(a);
    allocations_.clear();
    throw;
  }
}

std::map<std::string, int64_t> TpuPreparedJob::bindScalars(const TpuLaunchArgs& args) const {
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
  const int64_t chips = device_.chips();
  for (const auto& a : job_.plan.args) {
    auto it = args.inputs.find(a.name);
    if (it == args.inputs.end()) continue;
    const std::vector<int64_t> hs = hostShapeOf(it->second);
    if (hs.size() != a.shape.size())
      throw Error("input '" + a.name + "' has shape " + shapeText(it->second.shape) + " but " +
                  job_.plan.kernel + " expects " + declaredShape(a));
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (auto* s = std::get_if<std::string>(&a.shape[d])) {
        int64_t v = hs[d];
        if (d == 0 && a.placement == Placement::Split) {
          if (v % chips != 0)
            throw Error("input '" + a.name + "' is split over " + std::to_string(chips) +
                        " chips but its dimension 0 (" + std::to_string(v) +
                        ") is not a multiple of that");
          v /= chips;
        }
        auto [pos, inserted] = values.emplace(*s, v);
        if (inserted) sources[*s] = "input '" + a.name + "' dimension " + std::to_string(d);
        if (!inserted && pos->second != v)
          throw Error("input '" + a.name + "' dimension " + std::to_string(d) + " gives " + *s +
                      " = " + std::to_string(v) + " but it is " + std::to_string(pos->second));
      }
  }
  checkBoundScalars(job_.plan.scalars, values, sources, job_.plan.kernel);
  return values;
}

TiledLayout TpuPreparedJob::layoutOf(const TensorArg& a,
                                     const std::map<std::string, int64_t>& scalars) const {
  TiledLayout l;
  l.dtype = a.dtype;
  l.tile[0] = a.tile[0];
  l.tile[1] = a.tile[1];
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

std::vector<int64_t> TpuPreparedJob::hostShape(const TensorArg& a, const TiledLayout& l) const {
  std::vector<int64_t> s = l.shape;
  if (a.placement == Placement::Split) s[0] *= device_.chips();
  return s;
}

std::string TpuPreparedJob::explainTrap(const ProgramTrap& trap,
                                        const std::vector<int64_t>& symbols) const {
  std::string text = trap.what();
  for (const TrapMessage& t : job_.plan.traps) {
    if (t.code != trap.code()) continue;
    // @NAME: the value of the binary's symbol NAME at this launch.
    std::string message;
    for (size_t i = 0; i < t.message.size(); ++i) {
      size_t end = i + 1;
      while (end < t.message.size() &&
             (std::isalnum(static_cast<unsigned char>(t.message[end])) || t.message[end] == '_' ||
              (t.message[end] == '.' && end + 1 < t.message.size() &&
               std::isalnum(static_cast<unsigned char>(t.message[end + 1])))))
        ++end;
      const std::string name = t.message.substr(i + 1, end - i - 1);
      const auto& names = job_.binary.symbols;
      auto it = std::find(names.begin(), names.end(), name);
      if (t.message[i] == '@' && it != names.end()) {
        message += std::to_string(symbols[static_cast<size_t>(it - names.begin())]);
        i = end - 1;
      } else {
        message += t.message[i];
      }
    }
    return text + ": " + message;
  }
  return text + " (the plan of " + job_.plan.kernel + " says nothing about trap " +
         std::to_string(trap.code()) + ")";
}

TpuLaunchOutput TpuPreparedJob::launch(const TpuLaunchArgs& args) {
  const bool timingOnly = device_.timingOnly();
  const int chips = device_.chips();
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

  // Bind every tensor argument to HBM for this launch (the same address on every chip).
  LaunchAllocations<TpuDevice> launchAllocs{device_, {}};
  std::map<std::string, std::pair<uint64_t, TiledLayout>> bound;
  for (const auto& a : job_.plan.args) {
    TiledLayout layout = layoutOf(a, scalars);
    auto it = args.inputs.find(a.name);
    if (it != args.inputs.end()) {
      std::vector<int64_t> want = hostShape(a, layout);
      if (hostShapeOf(it->second) != want)
        throw Error("input '" + a.name + "' has shape " + shapeText(it->second.shape) + " but " +
                    job_.plan.kernel + " expects " + shapeText(want) +
                    (a.placement == Placement::Split
                         ? " (" + std::to_string(chips) + " chips' blocks of " +
                               shapeText(layout.shape) + " stacked)"
                         : std::string()));
    }
    uint64_t addr = device_.allocate(layout.deviceBytes(), a.name);
    launchAllocs.addresses.push_back(addr);
    bound.emplace(a.name, std::make_pair(addr, layout));
  }

  // Patch the symbolic operands.
  std::vector<int64_t> symbols;
  for (const auto& name : job_.binary.symbols) {
    std::string why;
    auto ref = resolveSymbol(job_.plan, name, why);
    if (!ref) throw Error(name_ + ": symbol '@" + name + "': " + why);
    switch (ref->kind) {
    case SymbolRef::Kind::Address:
      symbols.push_back(static_cast<int64_t>(bound.at(ref->base).first));
      break;
    case SymbolRef::Kind::Dim:
      symbols.push_back(bound.at(ref->base).second.shape.at(static_cast<size_t>(ref->dim)));
      break;
    case SymbolRef::Kind::PaddedDim:
      symbols.push_back(bound.at(ref->base).second.paddedShape().at(static_cast<size_t>(ref->dim)));
      break;
    case SymbolRef::Kind::Scalar:
      symbols.push_back(scalars.at(ref->base));
      break;
    case SymbolRef::Kind::Buffer:
      symbols.push_back(static_cast<int64_t>(buffers_.at(ref->base)));
      break;
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
  // The host view of argument `name` gathered from the chips (chip 0 for replicated ones).
  auto gather = [&](const std::string& name) {
    const TensorArg& a = *job_.plan.findArg(name);
    auto& [addr, layout] = bound.at(name);
    NpyArray out = makeNpy(hostTypeOf(layout.dtype), hostShape(a, layout));
    const int parts = a.placement == Placement::Split ? chips : 1;
    for (int c = 0; c < parts; ++c)
      fromTiled(device_.memory(c).span(addr, layout.deviceBytes()), layout, out,
                c * layout.elements());
    return out;
  };
  auto scatter = [&](const std::string& name, const NpyArray& host, const std::string& what) {
    const TensorArg& a = *job_.plan.findArg(name);
    auto& [addr, layout] = bound.at(name);
    for (int c = 0; c < chips; ++c) {
      int64_t first = a.placement == Placement::Split ? c * layout.elements() : 0;
      toTiled(host, first, layout, device_.memory(c).span(addr, layout.deviceBytes()), what);
    }
  };

  TpuLaunchOutput out;
  for (size_t i = 0; i < job_.plan.execute.size(); ++i) {
    const PlanCommand& c = job_.plan.execute[i];
    std::string where =
        name_ + ": execute[" + std::to_string(i) + "] (" + commandName(c.kind) + ")";
    switch (c.kind) {
    case PlanCommand::Kind::DataTransfer: {
      uint64_t ptr = resolve(c.devPtr, where);
      if (ptr != bound.at(c.hostHandle).first)
        throw Error(where + ": dev_ptr " + c.devPtr + " is not where '" + c.hostHandle +
                    "' is bound");
      if (timingOnly) break;
      if (c.direction == 0) {
        auto it = args.inputs.find(c.hostHandle);
        if (it == args.inputs.end())
          throw Error(where + ": '" + c.hostHandle + "' has no host data (it is an output)");
        scatter(c.hostHandle, it->second, "input '" + c.hostHandle + "'");
      } else {
        out.outputs[c.hostHandle] = gather(c.hostHandle);
      }
      break;
    }
    case PlanCommand::Kind::ComputeOnDevice: {
      uint64_t ptr =
          parseDevPtr(c.devPtr, where + ".job_bin_ptr") + static_cast<uint64_t>(relocation_);
      if (ptr != binaryPtr_)
        throw Error(where + ": job_bin_ptr " + c.devPtr +
                    " is not where the program binary was loaded (" + formatDevPtr(binaryPtr_) +
                    ")");
      sim::tpu::LaunchResult r;
      try {
        r = device_.system().launch(job_.binary, symbols, args.trace);
      } catch (const ProgramTrap& trap) {
        throw Error(explainTrap(trap, symbols));
      }
      out.device.cycles += r.cycles;
      out.device.hostSeconds += r.hostSeconds;
      out.device.bundles += r.bundles;
      break;
    }
    case PlanCommand::Kind::ComputeOnHost: {
      if (timingOnly) break;
      std::vector<NpyArray> ins;
      for (const auto& n : c.inputs) ins.push_back(gather(n));
      std::vector<std::vector<int64_t>> shapes;
      for (const auto& n : c.outputs)
        shapes.push_back(hostShape(*job_.plan.findArg(n), bound.at(n).second));
      std::vector<NpyArray> results = runHostFunction(c.function, ins, shapes, c.metadata);
      for (size_t k = 0; k < c.outputs.size(); ++k)
        scatter(c.outputs[k], results[k], where + " output '" + c.outputs[k] + "'");
      break;
    }
    default:
      throw Error(where + ": not an execution command");
    }
  }
  return out;
}

} // namespace chipless::runtime

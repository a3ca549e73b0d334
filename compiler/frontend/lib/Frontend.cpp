//===- Frontend.cpp - the Spyre front end: tensor graphs to SpyreCode -----===//
//
// Part of chipless. See Frontend.h. The phases, in order: check the graph's signature,
// group its ops into kernels, name the device memory kernels exchange, divide each kernel
// over the cores (every candidate and its estimate in divisions.txt), write each kernel as
// KTIR, compile each with the KTIR compiler, link them into one job.
//
//===----------------------------------------------------------------------===//

#include "frontend/Frontend.h"

#include "Division.h"
#include "KernelBuilder.h"
#include "Kernels.h"
#include "Link.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "dataflow/Scheduler/Scheduler.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "support/error.h"
#include "support/spyrecode/disassembler.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>
#include <sstream>

using namespace mlir;

namespace chipless::frontend {

namespace {

/// The name a graph argument or result carries (docs/graph-ir.md: `graph.name`).
constexpr const char* kNameAttr = "graph.name";

std::optional<DType> deviceType(Type t) {
  if (t.isF16()) return DType::F16;
  if (t.isBF16()) return DType::BF16;
  if (t.isF32()) return DType::F32;
  return std::nullopt;
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

int64_t elementsOf(Type t) {
  int64_t n = 1;
  for (int64_t d : cast<RankedTensorType>(t).getShape()) n *= d;
  return n;
}

} // namespace

bool isTensorGraph(ModuleOp module) {
  // KTIR kernels use the ktdp and spyreop dialects; a graph uses neither.
  bool ktir = false;
  module.walk([&](Operation* op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (ns == "ktdp" || ns == "spyreop") ktir = true;
  });
  if (ktir) return false;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal()) continue;
    for (Type t : f.getArgumentTypes())
      if (isa<TensorType>(t)) return true;
    for (Type t : f.getResultTypes())
      if (isa<TensorType>(t)) return true;
  }
  return false;
}

FailureOr<spyrecode::Job> compileGraph(ModuleOp graph, const SpyreArch& arch,
                                       const FrontendOptions& options) {
  auto clock = std::chrono::steady_clock::now();
  auto stage = [&](const char* name) {
    auto now = std::chrono::steady_clock::now();
    if (options.timing) options.timing(name, std::chrono::duration<double>(now - clock).count());
    clock = now;
  };
  // The signature: one function; tensors of static shape in a type the device holds.
  func::FuncOp f;
  for (auto fn : graph.getOps<func::FuncOp>()) {
    if (f) return fn.emitError("a graph module holds exactly one func.func; this is the second");
    f = fn;
  }
  if (!f || f.isExternal())
    return graph.emitError("a graph module holds one func.func with a body");
  MemoryNames names;
  std::vector<spyrecode::TensorArg> args;
  std::set<std::string> used;
  auto declare = [&](Value v, Type t, const std::string& name, progformat::ArgRole role,
                     Location loc, const std::string& what) -> LogicalResult {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape() || rt.getRank() == 0)
      return emitError(loc) << what << " must be a ranked tensor of static shape, rank 1 or more";
    auto dt = deviceType(rt.getElementType());
    if (!dt)
      return emitError(loc) << what << " must be a tensor of f16, bf16 or f32 (got element type "
                            << rt.getElementType() << ")";
    if (!isIdentifier(name))
      return emitError(loc) << what << ": name '" << name
                            << "' must be an identifier (letters, digits, _)";
    if (!used.insert(name).second)
      return emitError(loc) << what << ": name '" << name << "' is used twice";
    spyrecode::TensorArg a;
    a.name = name;
    a.role = role;
    a.dtype = *dt;
    for (int64_t d : rt.getShape()) a.shape.push_back(d);
    a.layout = spyrecode::Layout::RowMajor;
    args.push_back(a);
    names[v] = name;
    return success();
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto n = f.getArgAttrOfType<StringAttr>(i, kNameAttr);
    if (failed(declare(f.getArgument(i), f.getArgument(i).getType(),
                       n ? n.str() : "arg" + std::to_string(i), progformat::ArgRole::Input,
                       f.getArgument(i).getLoc(), "argument " + std::to_string(i))))
      return failure();
  }

  FailureOr<KernelPlan> plan = formKernels(f);
  if (failed(plan)) return failure();
  auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    Value root = memoryRoot(*plan, ret.getOperand(i));
    if (names.count(root))
      return ret.emitError("result ")
             << i << " is an argument or another result: the Spyre front end does not copy "
             << "tensors yet";
    auto n = f.getResultAttrOfType<StringAttr>(i, kNameAttr);
    if (failed(declare(root, ret.getOperand(i).getType(),
                       n ? n.str() : "result" + std::to_string(i), progformat::ArgRole::Output,
                       ret.getLoc(), "result " + std::to_string(i))))
      return failure();
  }
  // Every other tensor a kernel writes is an intermediate in a buffer of the job.
  std::map<std::string, int64_t> buffers;
  const int64_t alignment = arch.memory.alignment_bytes;
  for (const KernelGroup& k : plan->kernels)
    for (const Operand& o : k.outputs) {
      Value root = memoryRoot(*plan, o.value);
      if (names.count(root)) continue;
      std::string name = "t" + std::to_string(buffers.size() + 1);
      while (used.count(name)) name += "_";
      used.insert(name);
      names[root] = name;
      const int64_t bytes = elementsOf(root.getType()) * elementBytes(root);
      buffers[name] = (bytes + alignment - 1) / alignment * alignment;
    }
  stage("form kernels");

  // Divide, write and compile every kernel.
  std::ostringstream divisions;
  std::vector<CompiledKernel> compiled;
  MLIRContext* ctx = graph.getContext();
  for (const KernelGroup& k : plan->kernels) {
    std::string why;
    std::vector<Division> candidates = candidateDivisions(k, arch, why);
    if (candidates.empty()) return k.ops.front()->emitError(why);
    size_t chosen = chooseDivision(candidates);
    if (auto forced = options.divisions.find(k.name); forced != options.divisions.end()) {
      if (forced->second >= candidates.size())
        return k.ops.front()->emitError("--division ")
               << k.name << "=" << forced->second << ": the kernel has candidates 0 to "
               << candidates.size() - 1;
      chosen = forced->second;
    }
    divisions << k.name << " (" << k.ops.size() << " op" << (k.ops.size() == 1 ? "" : "s") << ", "
              << k.rows << " x " << k.cols;
    if (k.kind == KernelGroup::Kind::Matmul) divisions << " x " << k.depth;
    divisions << "):\n";
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Division& d = candidates[i];
      divisions << (i == chosen ? "  * [" : "    [") << i << "] " << d.describe() << ": "
                << d.residentBytes << " B resident, " << static_cast<int64_t>(d.cycles)
                << " cycles (" << d.bound << ")\n";
    }
    FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernel(k, candidates[chosen], *plan, names, ctx);
    if (failed(kernel)) return failure();
    std::string text;
    llvm::raw_string_ostream os(text);
    (*kernel)->print(os);
    if (options.dump) options.dump(k.name + ".mlir", text);

    dataflow::SchedulerOptions so;
    if (options.dump)
      so.dump = [&](const std::string& stageName, const std::string& t) {
        options.dump(k.name + "/" + stageName, t);
      };
    auto job = dataflow::scheduleKernel(**kernel, arch, so);
    if (failed(job)) return failure();
    mlir::dfir::JobOp jobOp = *(*job)->getOps<mlir::dfir::JobOp>().begin();
    FailureOr<spyrecode::Job> emitted = dataflow::emitSpyreCode(jobOp, arch);
    if (failed(emitted)) return failure();
    if (options.dump) options.dump(k.name + "/05-spyrecode.s", spyrecode::disassemble(*emitted));
    compiled.push_back({k.name + ".bin", std::move(*emitted)});
  }
  for (const auto& [name, index] : options.divisions) {
    bool known = false;
    std::string all;
    for (const KernelGroup& k : plan->kernels) {
      known |= k.name == name;
      all += (all.empty() ? "" : ", ") + k.name;
    }
    if (!known)
      return f.emitError("--division ")
             << name << "=" << index << ": the graph's kernels are " << all;
  }
  stage("divide, write and compile kernels");
  if (options.dump) options.dump("divisions.txt", divisions.str());
  try {
    spyrecode::Job job = linkKernels(f.getName().str(), std::move(compiled), args, buffers, arch);
    stage("link");
    return job;
  } catch (const Error& e) {
    return f.emitError(e.what());
  }
}

} // namespace chipless::frontend

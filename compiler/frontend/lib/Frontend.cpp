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
#include "GraphRewrites.h"
#include "KernelBuilder.h"
#include "Kernels.h"
#include "Link.h"
#include "Residency.h"
#include "TransposedAccess.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "dataflow/Scheduler/Scheduler.h"
#include "graph/GraphForm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

using graph::kNameAttr;

/// The arith/math ops a linalg body may use on the Spyre: the SFU's (docs/ktir.md), one
/// element type per op.
bool spyreBodyOp(Operation* op, std::string& why) {
  if (isa<linalg::YieldOp, arith::ConstantOp, arith::AddFOp, arith::SubFOp, arith::MulFOp,
          arith::DivFOp, arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
          arith::MinNumFOp, arith::SelectOp, math::ExpOp, math::LogOp, math::SqrtOp, math::RsqrtOp,
          math::TanhOp, math::AbsFOp, math::ErfOp>(op))
    return true;
  if (isa<arith::CmpFOp>(op)) return graph::supportedFloatCompare(op, why);
  if (auto pow = dyn_cast<math::PowFOp>(op)) {
    std::optional<double> k = graph::constantValue(pow.getRhs());
    if (k && (*k == 0.5 || *k == -0.5 || *k == -1 || *k == 1 || *k == 2 || *k == 3 || *k == 4))
      return true;
    why = "'math.powf' needs a constant exponent in {-1, -0.5, 0.5, 1, 2, 3, 4} on the Spyre";
    return false;
  }
  // Conversions between f16, bf16 and f32 run on the SFU (sfu.cvt).
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) return true;
  why = "'" + op->getName().getStringRef().str() +
        "' is not supported in a linalg body by spyre-compile (docs/frontend.md)";
  return false;
}

/// What spyre-compile takes beyond the common graph form.
const graph::GraphTarget& spyreTarget() {
  static const graph::GraphTarget target{
      // i32: the indices of an embedding lookup (Kernels.cpp refuses them anywhere else).
      [](Type t) { return t.isF16() || t.isBF16() || t.isF32() || t.isInteger(32); },
      "f16, bf16, f32 or i32", "f16, bf16 and f32",
      [](Type t) { return t.isF16() || t.isBF16() || t.isF32() || t.isInteger(1); },
      "f16, bf16, f32, i1", spyreBodyOp,
      [](Type a, Type, Type c) -> std::string {
        std::string s;
        llvm::raw_string_ostream os(s);
        if (!a.isF16() && !a.isBF16() && !a.isF32())
          os << "matmul of '" << a
             << "' is not supported: the PT array takes f16 and bf16 (f32 as three f16 passes)";
        else if (a.isF32() && !c.isF32())
          os << "matmul of 'f32' must produce f32 (got '" << c << "')";
        else if (c != a && !c.isF32())
          os << "matmul of '" << a << "' must produce " << a << " or f32 (got '" << c << "')";
        return s;
      },
      // Convolutions, pooling, concatenation, embedding lookups and padding: the front end's own
      // (GraphRewrites.cpp, Kernels.cpp).
      [](Operation* op) {
        return isa<linalg::Conv2DNhwcHwcfOp, linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp,
                   tensor::ConcatOp, tensor::GatherOp, tensor::PadOp>(op);
      }};
  return target;
}

std::optional<DType> deviceType(Type t) {
  if (t.isF16()) return DType::F16;
  if (t.isBF16()) return DType::BF16;
  if (t.isF32()) return DType::F32;
  if (t.isInteger(32)) return DType::I32;
  return std::nullopt;
}

/// The printed kernel with its function's arguments under their names (`%x_ptr`, which
/// the KTIR compiler names the job's tensors after) rather than the printer's `%arg0`: the
/// dump compiles by hand into a job with the graph's names. The function's arguments are
/// the first block arguments the printer numbers, so `%argI` for I below their count is
/// one of them.
std::string withArgumentNames(const std::string& text, ModuleOp kernel) {
  std::vector<std::string> names;
  for (auto f : kernel.getOps<func::FuncOp>())
    for (BlockArgument a : f.getArguments())
      if (auto n = dyn_cast<NameLoc>(a.getLoc())) names.push_back(n.getName().str());
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 4, "%arg") == 0) {
      size_t j = i + 4;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      const bool whole =
          j > i + 4 && (j == text.size() ||
                        !(std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'));
      if (whole) {
        const size_t n = std::stoul(text.substr(i + 4, j - i - 4));
        if (n < names.size()) {
          out += "%" + names[n];
          i = j;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
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
  // The dialects of the ops the front end builds, loaded whatever the graph holds: a graph
  // of no op of theirs (one that returns its argument) has not loaded them.
  graph.getContext()
      ->loadDialect<arith::ArithDialect, linalg::LinalgDialect, math::MathDialect,
                    tensor::TensorDialect>();
  // The graph form (compiler/graph, shared with tpu-compile) for the Spyre's types and ops.
  if (failed(graph::verifyGraph(graph, spyreTarget()))) return failure();
  func::FuncOp f = graph::graphFunction(graph);
  MemoryNames names;
  std::vector<spyrecode::TensorArg> args;
  std::set<std::string> used;
  auto declare = [&](Value v, Type t, const std::string& name, progformat::ArgRole role,
                     Location loc, const std::string& what) -> LogicalResult {
    // The graph form's verifier checked the type and the name.
    auto rt = cast<RankedTensorType>(t);
    auto dt = deviceType(rt.getElementType());
    if (!dt) return emitError(loc) << what << " has an element type the Spyre does not hold";
    used.insert(name);
    spyrecode::TensorArg a;
    a.name = name;
    a.role = role;
    a.dtype = *dt;
    for (int64_t d : rt.getShape()) a.shape.push_back(d);
    a.layout = spyrecode::Layout::Stick;
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

  rewriteForKernels(f);
  MemoryParams memory;
  memory.stickBytes = arch.chip.stick_bytes;
  memory.interleaveBytes = arch.dram.interleave_bytes;
  memory.channels = arch.dram.channels;
  FailureOr<KernelPlan> plan = formKernels(f, memory);
  if (failed(plan)) return failure();
  readTransposedInPlace(*plan, arch);
  auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    // formKernels made every result a tensor of its own in the stick layout (or a view that
    // lies exactly as one).
    Value root = memoryRoot(*plan, ret.getOperand(i));
    auto n = f.getResultAttrOfType<StringAttr>(i, kNameAttr);
    if (failed(declare(root, ret.getOperand(i).getType(),
                       n ? n.str() : "result" + std::to_string(i), progformat::ArgRole::Output,
                       ret.getLoc(), "result " + std::to_string(i))))
      return failure();
  }
  // Arguments and results whose stick columns the front end padded say so in the plan.
  for (const auto& [v, name] : names)
    for (spyrecode::TensorArg& a : args)
      if (a.name == name) a.paddedRows = plan->roots.lookup(v).paddedRows;
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
      const RootInfo& info = plan->roots.lookup(root);
      const int64_t bytes =
          rootElements(info.shape, info.layout,
                       elementsInStick(arch.chip.stick_bytes, elementBytes(root)),
                       info.paddedRows) *
          elementBytes(root);
      buffers[name] = (bytes + alignment - 1) / alignment * alignment;
    }
  stage("form kernels");

  // Divide, write and compile every kernel.
  std::ostringstream divisions;
  std::vector<CompiledKernel> compiled;
  MLIRContext* ctx = graph.getContext();
  // Every kernel's division first: whether a tensor stays in the scratchpad between two
  // kernels depends on both.
  std::vector<std::vector<Division>> candidatesOf;
  std::vector<Division> chosenOf;
  std::vector<size_t> chosenIndex;
  std::vector<bool> forcedDivision;
  for (const KernelGroup& k : plan->kernels) {
    std::string why;
    std::vector<Division> candidates = candidateDivisions(k, arch, *plan, why);
    if (candidates.empty()) return k.ops.front()->emitError(why);
    size_t chosen = chooseDivision(candidates);
    if (auto forced = options.divisions.find(k.name); forced != options.divisions.end()) {
      if (forced->second >= candidates.size())
        return k.ops.front()->emitError("--division ")
               << k.name << "=" << forced->second << ": the kernel has candidates 0 to "
               << candidates.size() - 1;
      chosen = forced->second;
    }
    chosenIndex.push_back(chosen);
    forcedDivision.push_back(options.divisions.count(k.name) > 0);
    candidatesOf.push_back(std::move(candidates));
  }
  llvm::DenseSet<Value> results;
  for (Value r : ret.getOperands()) results.insert(memoryRoot(*plan, r));
  const std::vector<size_t> costChoice = chosenIndex;
  if (options.keepInScratchpad)
    preferResidency(*plan, candidatesOf, chosenIndex, forcedDivision, arch, results);
  for (size_t ki = 0; ki < plan->kernels.size(); ++ki)
    chosenOf.push_back(candidatesOf[ki][chosenIndex[ki]]);
  const ResidentTensors resident =
      options.keepInScratchpad ? planResidency(*plan, chosenOf, arch, results) : ResidentTensors();
  for (const auto& [v, block] : resident) buffers.erase(names.lookup(v));
  const ResidentTensors none;
  for (size_t ki = 0; ki < plan->kernels.size(); ++ki) {
    const KernelGroup& k = plan->kernels[ki];
    const std::vector<Division>& candidates = candidatesOf[ki];
    const size_t chosen = chosenIndex[ki];
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
    if (chosen != costChoice[ki])
      divisions << "  [" << chosen << "] for what it keeps in the scratchpad: its estimate less "
                << "the device-memory traffic saved is below [" << costChoice[ki] << "]'s\n";
    for (const Operand& o : k.outputs)
      if (auto it = resident.find(memoryRoot(*plan, o.value));
          it != resident.end() && it->second.producer == ki)
        divisions << "  " << names.lookup(it->first) << " stays in the scratchpad for "
                  << plan->kernels[ki + 1].name << ": each tile's " << it->second.rows << " x "
                  << it->second.cols << " block, " << it->second.bytes << " B at byte "
                  << it->second.address << " of its core's\n";
    auto printed = [](ModuleOp m) {
      std::string text;
      llvm::raw_string_ostream os(text);
      m->print(os);
      return withArgumentNames(text, m);
    };
    FailureOr<OwningOpRef<ModuleOp>> kernel =
        buildKernel(k, candidates[chosen], *plan, names, resident, ctx);
    if (failed(kernel)) return failure();
    if (options.dump) options.dump(k.name + ".mlir", printed(**kernel));
    // Every candidate's KTIR, for checking the cost model against the simulator: each a
    // kernel of its own, its tensors in device memory.
    if (options.dump && options.dumpCandidates)
      for (size_t i = 0; i < candidates.size(); ++i) {
        FailureOr<OwningOpRef<ModuleOp>> c = buildKernel(k, candidates[i], *plan, names, none, ctx);
        if (failed(c)) return failure();
        options.dump("candidates/" + k.name + "/" + std::to_string(i) + ".mlir", printed(**c));
      }

    dataflow::SchedulerOptions so;
    if (options.dump)
      so.dump = [&](const std::string& stageName, const std::string& t) {
        options.dump(k.name + "/" + stageName, t);
      };
    // An error of the KTIR compiler names a place in the kernel's KTIR (or none: a core's
    // resources): a note says which kernel, from which of the graph's ops, and the kernel's
    // KTIR goes to whoever keeps it for reproducing the error.
    FailureOr<spyrecode::Job> emitted = [&]() -> FailureOr<spyrecode::Job> {
      ScopedDiagnosticHandler inKernel(ctx, [&](Diagnostic& d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          d.attachNote(k.ops.front()->getLoc())
              << "in kernel " << k.name << " (" << k.ops.size() << " op"
              << (k.ops.size() == 1 ? "" : "s") << " of the graph from this '"
              << k.ops.front()->getName() << "'), which the KTIR compiler refused";
        return failure(); // and on to the caller's handler
      });
      auto job = dataflow::scheduleKernel(**kernel, arch, so);
      if (failed(job)) return failure();
      mlir::dfir::JobOp jobOp = *(*job)->getOps<mlir::dfir::JobOp>().begin();
      return dataflow::emitSpyreCode(jobOp, arch);
    }();
    if (failed(emitted)) {
      if (options.failedKernel) options.failedKernel(k.name, printed(**kernel));
      return failure();
    }
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

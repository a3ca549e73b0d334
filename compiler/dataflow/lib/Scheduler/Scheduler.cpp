//===- Scheduler.cpp - the Dataflow Scheduler's stages, in order ----------===//
//
// Part of chipless. See dataflow/Scheduler/Scheduler.h.
//
//===----------------------------------------------------------------------===//

#include "dataflow/Scheduler/Scheduler.h"

#include "Kernel.h"
#include "Lowering.h"
#include "Stages.h"
#include "dataflow/Dialect/Dfir/DfirDialect.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "ktir/Dialect/Ktdp/KtdpOps.h"
#include "ktir/Dialect/Ktdp/KtdpTileSets.h"
#include "ktir/Transforms/StrictLegality.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>
#include <sstream>

using namespace mlir;

namespace chipless::dataflow {

std::optional<ArgumentBounds> parseArgumentBounds(const std::string& text, std::string& why) {
  auto number = [&](const std::string& t, int64_t& v) {
    size_t used = 0;
    try {
      v = std::stoll(t, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    return !t.empty() && used == t.size();
  };
  ArgumentBounds b;
  std::string range = text;
  if (size_t slash = text.find('/'); slash != std::string::npos) {
    range = text.substr(0, slash);
    if (!number(text.substr(slash + 1), b.multipleOf) || b.multipleOf <= 0) {
      why = "'" + text.substr(slash + 1) + "' after '/' is not a positive integer";
      return std::nullopt;
    }
  }
  int64_t max = 0;
  if (size_t dots = range.find(".."); dots != std::string::npos) {
    if (!number(range.substr(0, dots), b.min) || !number(range.substr(dots + 2), max)) {
      why = "expected MIN..MAX, got '" + range + "'";
      return std::nullopt;
    }
  } else if (!number(range, max)) {
    why = "expected MAX, MIN..MAX, and optionally /MULTIPLE, got '" + text + "'";
    return std::nullopt;
  }
  if (b.min < 0 || max < b.min) {
    why = "the bounds " + std::to_string(b.min) + ".." + std::to_string(max) +
          " are empty or negative";
    return std::nullopt;
  }
  b.max = max;
  return b;
}

} // namespace chipless::dataflow

namespace chipless::dataflow {

namespace {

std::string printed(Operation* op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>> scheduleKernel(ModuleOp ktir, const SpyreArch& arch,
                                                const SchedulerOptions& options) {
  using namespace chipless::sched;
  MLIRContext* ctx = ktir.getContext();
  ctx->loadDialect<dfir::DfirDialect, arith::ArithDialect, scf::SCFDialect>();
  auto dump = [&](const std::string& stage, const std::string& text) {
    if (options.dump) options.dump(stage, text);
  };
  auto clock = std::chrono::steady_clock::now();
  auto lap = [&](const char* stage) {
    auto now = std::chrono::steady_clock::now();
    if (options.timing) options.timing(stage, std::chrono::duration<double>(now - clock).count());
    clock = now;
  };

  // chipless's legality rules beyond the dialect's verifiers (ktir/Transforms/StrictLegality.h).
  if (failed(chipless::ktir::checkStrictLegality(ktir))) return failure();

  // The entry function.
  func::FuncOp entry;
  SmallVector<func::FuncOp> funcs(ktir.getOps<func::FuncOp>());
  if (!options.entry.empty()) {
    entry = ktir.lookupSymbol<func::FuncOp>(options.entry);
    if (!entry)
      return ktir.emitError() << "has no function '" << options.entry << "' (--entry)", failure();
  } else if (funcs.size() == 1) {
    entry = funcs.front();
  } else {
    return ktir.emitError() << "has " << funcs.size()
                            << " functions; choose the kernel with --entry NAME",
           failure();
  }
  if (entry.isExternal()) return entry.emitOpError("has no body"), failure();
  if (entry.getNumResults() != 0)
    return entry.emitOpError("returns values; a kernel writes its results through memory"),
           failure();

  SourceNames sourceNames(options.sources); // names from the source text, read once
  // 1. Constants for integer arguments.
  std::set<std::string> used;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    BlockArgument arg = entry.getArgument(i);
    std::string name = sanitizeName(sourceNames.at(arg.getLoc()).value_or(""));
    if (auto real = dyn_cast<FloatType>(arg.getType())) {
      // A float argument fixed when compiling: a constant of its type.
      std::optional<std::pair<std::string, double>> given;
      for (const std::string& key : {name, "arg" + std::to_string(i)}) {
        if (given) break;
        if (auto r = options.realConstants.find(key); r != options.realConstants.end())
          given = *r;
        else if (auto n = options.constants.find(key); n != options.constants.end())
          given = std::make_pair(n->first, static_cast<double>(n->second));
      }
      if (!given) continue;
      used.insert(given->first);
      OpBuilder b(ctx);
      b.setInsertionPointToStart(&entry.getBody().front());
      Value c = b.create<arith::ConstantOp>(arg.getLoc(), b.getFloatAttr(real, given->second));
      arg.replaceAllUsesWith(c);
      continue;
    }
    auto it = options.constants.find(name);
    if (it == options.constants.end()) it = options.constants.find("arg" + std::to_string(i));
    if (it == options.constants.end()) {
      for (const std::string& key : {name, "arg" + std::to_string(i)})
        if (options.realConstants.count(key))
          return emitError(arg.getLoc())
                     << "--const " << key << ": the argument is not a float (f16, bf16, f32)",
                 failure();
      continue;
    }
    if (auto runtime = dyn_cast<ktdp::RuntimeArgType>(arg.getType())) {
      // A runtime argument fixed when compiling: its value within the type's contract.
      int64_t v = it->second;
      if (v < 0 || (runtime.getUpperbound() && v > *runtime.getUpperbound()) ||
          (runtime.getGranularity() && v % *runtime.getGranularity() != 0))
        return emitError(arg.getLoc())
                   << "--const " << it->first << "=" << v << ": the value must be a multiple of "
                   << runtime.getGranularity().value_or(1) << " between 0 and "
                   << runtime.getUpperbound().value_or(INT64_MAX) << " (" << runtime << ")",
               failure();
      used.insert(it->first);
      SmallVector<ktdp::RuntimeArgExtractOp> extracts;
      for (Operation* user : arg.getUsers())
        if (auto e = dyn_cast<ktdp::RuntimeArgExtractOp>(user)) extracts.push_back(e);
      for (auto e : extracts) {
        // The value, and the type's granularity and upperbound: constants now.
        int64_t k = v;
        if (e.getKind() == ktdp::RuntimeArgExtractKind::granularity)
          k = runtime.getGranularity().value_or(1);
        if (e.getKind() == ktdp::RuntimeArgExtractKind::upperbound) {
          if (!runtime.getUpperbound())
            return e.emitOpError("reads the upperbound of a runtime argument that declares none"),
                   failure();
          k = *runtime.getUpperbound();
        }
        OpBuilder b(e);
        Value c = b.create<arith::ConstantOp>(e.getLoc(), b.getIntegerAttr(e.getType(), k));
        e.getResult().replaceAllUsesWith(c);
        e.erase();
      }
      continue;
    }
    if (!arg.getType().isIntOrIndex())
      return emitError(arg.getLoc())
                 << "--const " << it->first << ": the argument is not an integer",
             failure();
    used.insert(it->first);
    OpBuilder b(ctx);
    b.setInsertionPointToStart(&entry.getBody().front());
    Value c =
        b.create<arith::ConstantOp>(arg.getLoc(), b.getIntegerAttr(arg.getType(), it->second));
    arg.replaceAllUsesWith(c);
  }
  for (const auto& [name, v] : options.constants)
    if (!used.count(name))
      return entry.emitOpError("has no integer argument named '") << name << "' (--const)",
             failure();
  for (const auto& [name, v] : options.realConstants)
    if (!used.count(name))
      return entry.emitOpError("has no float argument named '") << name << "' (--const)", failure();

  // Bounds of the scalars left symbolic: a runtime_arg's type, or --bound.
  std::map<int, ScalarBounds> bounds;
  std::set<std::string> bounded;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    BlockArgument arg = entry.getArgument(i);
    std::string name = sanitizeName(sourceNames.at(arg.getLoc()).value_or(""));
    auto given = options.bounds.find(name);
    if (given == options.bounds.end()) given = options.bounds.find("arg" + std::to_string(i));
    auto runtime = dyn_cast<ktdp::RuntimeArgType>(arg.getType());
    if (given != options.bounds.end()) {
      bounded.insert(given->first);
      if (runtime)
        return emitError(arg.getLoc()) << "--bound " << given->first << ": the argument is a "
                                       << runtime << ", whose type gives its bounds",
               failure();
      if (!arg.getType().isIntOrIndex())
        return emitError(arg.getLoc())
                   << "--bound " << given->first << ": the argument is not an integer",
               failure();
      if (options.constants.count(given->first))
        return emitError(arg.getLoc())
                   << "--bound " << given->first << ": the argument is fixed with --const",
               failure();
      bounds[static_cast<int>(i)] = given->second;
    } else if (runtime) {
      ScalarBounds b;
      b.multipleOf = runtime.getGranularity().value_or(1);
      b.max = runtime.getUpperbound();
      bounds[static_cast<int>(i)] = b;
    }
  }
  for (const auto& [name, b] : options.bounds)
    if (!bounded.count(name))
      return entry.emitOpError("has no integer argument named '") << name << "' (--bound)",
             failure();

  // 2. One specialised copy per tile.
  SmallVector<int64_t> grid = ktdp::getEnclosingGrid(entry).value_or(SmallVector<int64_t>{1});
  if (!options.grid.empty()) grid.assign(options.grid.begin(), options.grid.end());
  int64_t numTiles = 1;
  for (int64_t d : grid) numTiles *= d;
  if (numTiles < 1) return entry.emitOpError("has an empty grid"), failure();
  if (numTiles > arch.chip.cores)
    return entry.emitOpError("runs on a grid of ") << numTiles << " tiles, but the chip has "
                                                   << arch.chip.cores << " cores (chip.cores)",
           failure();
  OwningOpRef<ModuleOp> spec = ModuleOp::create(entry.getLoc());
  SmallVector<func::FuncOp> tiles;
  for (int64_t t = 0; t < numTiles; ++t) {
    auto clone = cast<func::FuncOp>(entry->clone());
    clone.setSymName((entry.getSymName() + "_tile" + std::to_string(t)).str());
    // Row-major coordinates of tile t.
    SmallVector<int64_t> coords(grid.size());
    int64_t rest = t;
    for (size_t d = grid.size(); d-- > 0;) {
      coords[d] = rest % grid[d];
      rest /= grid[d];
    }
    SmallVector<ktdp::GetComputeTileIdOp> ids;
    clone.walk([&](ktdp::GetComputeTileIdOp op) { ids.push_back(op); });
    for (auto op : ids) {
      OpBuilder b(op);
      for (auto [k, r] : llvm::enumerate(op.getIds()))
        r.replaceAllUsesWith(
            b.create<arith::ConstantIndexOp>(op.getLoc(), k < coords.size() ? coords[k] : 0));
      op.erase();
    }
    spec->push_back(clone);
    tiles.push_back(clone);
  }
  {
    PassManager pm(ctx);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*spec))) return failure();
  }
  lap("specialise");
  if (options.dump) dump("01-specialized.mlir", printed(*spec));

  // 3. Arguments.
  KernelArgs args;
  if (failed(discoverArguments(entry, tiles, bounds, sourceNames, args))) return failure();
  lap("arguments");
  {
    std::ostringstream os;
    for (const auto& t : args.tensors) {
      os << "tensor " << t.name << " " << dtypeName(t.dtype) << " [";
      for (size_t i = 0; i < t.shape.size(); ++i) {
        os << (i ? ", " : "");
        if (i < t.dimNames.size() && !t.dimNames[i].empty())
          os << t.dimNames[i] << " (<= " << t.shape[i] << ")";
        else
          os << t.shape[i];
      }
      os << "] " << (t.read && t.written ? "inout" : t.written ? "output" : "input");
      if (t.funcArg >= 0)
        os << "  <- argument " << t.funcArg << "\n";
      else
        os << "  <- constant addresses [" << t.constLo << ", " << t.constHi << ")"
           << (t.space >= 0 ? " of tile " + std::to_string(t.space) + "'s scratchpad view" : "")
           << "\n";
    }
    for (const auto& s : args.scalars) {
      os << "scalar " << s.name;
      if (s.real) os << " " << dtypeName(*s.real);
      os << "  <- argument " << s.funcArg;
      if (s.multipleOf != 1) os << ", multiple of " << s.multipleOf;
      if (s.min) os << ", min " << *s.min;
      if (s.max) os << ", max " << *s.max;
      os << "\n";
    }
    dump("02-arguments.txt", os.str());
  }

  // 4-6. Every core's schedule.
  std::vector<CoreSchedule> cores(static_cast<size_t>(numTiles));
  LowerOptions lowerOptions;
  lowerOptions.transferChunkBytes = arch.pt.accumulator_bytes;
  lowerOptions.exchangeIndex = numberExchanges(tiles);
  bool ring = false;
  for (int64_t t = 0; t < numTiles; ++t) {
    CoreSchedule& s = cores[static_cast<size_t>(t)];
    Lowering lowering(tiles[static_cast<size_t>(t)], static_cast<int>(t),
                      static_cast<int>(numTiles), args, arch, s, lowerOptions);
    if (failed(lowering.run())) return failure();
    ring |= lowering.usesRing();
    s.number();
  }
  lap("lower");
  // Exchange buffers (written by other cores) sit at the same address on every core, at
  // the top of the planning budget.
  const int64_t stick = arch.chip.stick_bytes;
  std::map<std::string, int64_t> exchangeBytes;
  for (const CoreSchedule& s : cores)
    for (const Buffer& b : s.buffers)
      if (!b.exchange.empty())
        exchangeBytes[b.exchange] = std::max(exchangeBytes[b.exchange], b.bytes);
  int64_t budget = arch.planningScratchpadBytes() / stick * stick;
  std::map<std::string, int64_t> exchangeAddr;
  for (const auto& [key, bytes] : exchangeBytes) {
    budget -= (bytes + stick - 1) / stick * stick;
    exchangeAddr[key] = budget;
  }
  if (budget < 0)
    return entry.emitOpError("exchanges more data over the ring than the scratchpad holds"),
           failure();
  for (CoreSchedule& s : cores)
    for (Buffer& b : s.buffers)
      if (!b.exchange.empty()) b.fixedAddr = exchangeAddr[b.exchange];
  // The ARRIVE token and one READY token per exchange (LowerOptions::exchangeIndex).
  const int reserved = ring ? 1 + static_cast<int>(lowerOptions.exchangeIndex.size()) : 0;
  std::string scheduleText;
  for (CoreSchedule& s : cores) {
    if (failed(allocateScratchpad(s, budget, stick, ctx))) return failure();
    if (failed(synchronize(s, arch.sync.tokens_per_core, reserved, ctx))) {
      // The schedule so far, to see which dependencies need the tokens.
      if (options.dump) dump("03-schedule.txt", scheduleText + s.dump());
      return failure();
    }
    if (options.dump) scheduleText += s.dump() + "\n";
  }
  lap("allocate+synchronise");
  dump("03-schedule.txt", scheduleText);

  // 7. The DataflowIR job.
  OwningOpRef<ModuleOp> job = writeJob(ctx, entry.getSymName().str(), args, cores);
  lap("write dataflow");
  if (failed(verify(*job))) return failure();
  lap("verify");
  if (options.dump) dump("04-dataflow.mlir", printed(*job));
  return job;
}

} // namespace chipless::dataflow

//===- DfirOps.cpp - the job, its arguments, programs and leaves ----------===//
//
// Part of chipless. Verifiers of the container ops (names unique, dimensions declared, no
// two programs on one engine), of the programs (unit, cores, corelet) and of the
// launch-bound leaves (inside a program; symbols that the job declares).
//
//===----------------------------------------------------------------------===//

#include "dataflow/Dialect/Dfir/DfirOps.h"

#include "dataflow/Dialect/Dfir/DfirIsa.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::dfir;
namespace sc = chipless::spyrecode;

#include "dataflow/Dialect/Dfir/DfirEnums.cpp.inc"
#include "dataflow/Dialect/Dfir/DfirOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dataflow/Dialect/Dfir/DfirOps.cpp.inc"

//===----------------------------------------------------------------------===//
// cores = [first, last] | all
//===----------------------------------------------------------------------===//

ParseResult mlir::dfir::parseCoreRange(OpAsmParser& parser, DenseI32ArrayAttr& cores) {
  if (succeeded(parser.parseOptionalKeyword("all"))) {
    cores = parser.getBuilder().getDenseI32ArrayAttr({0, sc::kAllCores});
    return success();
  }
  int32_t first = 0, last = 0;
  if (parser.parseLSquare() || parser.parseInteger(first) || parser.parseComma() ||
      parser.parseInteger(last) || parser.parseRSquare())
    return failure();
  cores = parser.getBuilder().getDenseI32ArrayAttr({first, last});
  return success();
}

void mlir::dfir::printCoreRange(OpAsmPrinter& p, Operation*, DenseI32ArrayAttr cores) {
  if (cores.size() == 2 && cores[0] == 0 && cores[1] == sc::kAllCores) {
    p << "all";
    return;
  }
  p << "[";
  llvm::interleaveComma(cores.asArrayRef(), p);
  p << "]";
}

//===----------------------------------------------------------------------===//
// dfir.job
//===----------------------------------------------------------------------===//

/// The name an argument declaration declares, or "" for other ops.
static StringRef declaredName(Operation* op) {
  if (auto arg = dyn_cast<TensorArgOp>(op)) return arg.getName();
  if (auto arg = dyn_cast<ScalarArgOp>(op)) return arg.getName();
  if (auto arg = dyn_cast<BufferOp>(op)) return arg.getName();
  return "";
}

Operation* JobOp::lookupArgument(StringRef name) {
  for (Operation& op : getBody().front())
    if (!declaredName(&op).empty() && declaredName(&op) == name) return &op;
  return nullptr;
}

/// True if two programs run on at least one common engine.
static bool sameEngines(ProgramOp a, ProgramOp b) {
  if (a.getUnit() != b.getUnit()) return false;
  if (a.getLastCore() < b.getFirstCore() || b.getLastCore() < a.getFirstCore()) return false;
  return a.getCoreletIndex() == -1 || b.getCoreletIndex() == -1 ||
         a.getCoreletIndex() == b.getCoreletIndex();
}

LogicalResult JobOp::verifyRegions() {
  llvm::StringMap<Operation*> names;
  SmallVector<ProgramOp> programs;
  for (Operation& op : getBody().front()) {
    if (auto program = dyn_cast<ProgramOp>(op)) {
      for (ProgramOp other : programs) {
        if (sameEngines(program, other)) {
          InFlightDiagnostic diag = program.emitOpError()
                                    << "runs on engines that another '" << program.getUnit()
                                    << "' program already runs on (one program per engine)";
          diag.attachNote(other.getLoc()) << "the other program";
          return diag;
        }
      }
      programs.push_back(program);
      continue;
    }
    StringRef name = declaredName(&op);
    if (name.empty())
      return op.emitOpError("is not allowed directly in a dfir.job (only dfir.tensor_arg, "
                            "dfir.scalar_arg, dfir.buffer and dfir.program are)");
    auto [it, inserted] = names.try_emplace(name, &op);
    if (!inserted) {
      InFlightDiagnostic diag = op.emitOpError()
                                << "declares '" << name << "', which the job already declares";
      diag.attachNote(it->second->getLoc()) << "first declared here";
      return diag;
    }
  }
  for (Operation& op : getBody().front()) {
    auto arg = dyn_cast<TensorArgOp>(op);
    if (!arg) continue;
    for (Attribute dim : arg.getShape()) {
      auto scalar = dyn_cast<StringAttr>(dim);
      if (!scalar) continue;
      auto it = names.find(scalar.getValue());
      if (it == names.end() || !isa<ScalarArgOp>(it->second))
        return arg.emitOpError() << "dimension \"" << scalar.getValue()
                                 << "\" is not a dfir.scalar_arg of the job";
      if (cast<ScalarArgOp>(it->second).getType())
        return arg.emitOpError() << "dimension \"" << scalar.getValue()
                                 << "\" is a real scalar and cannot size a tensor";
    }
  }
  // A real scalar is read only by float operands, and a float operand reads only one.
  // (or an integer scalar as a float: "N.f16", "N.bf16", "N.f32").
  auto realScalar = [&](StringRef name) {
    auto [base, suffix] = name.split('.');
    auto it = names.find(base);
    auto arg = it == names.end() ? ScalarArgOp() : dyn_cast<ScalarArgOp>(it->second);
    if (!arg) return false;
    if (suffix.empty()) return static_cast<bool>(arg.getType());
    return !arg.getType() && (suffix == "f16" || suffix == "bf16" || suffix == "f32");
  };
  WalkResult walk = getBody().walk([&](Operation* op) {
    if (auto splat = dyn_cast<SfuSplatOp>(op)) {
      auto symbol = dyn_cast<FlatSymbolRefAttr>(splat.getValue());
      if (symbol && !realScalar(symbol.getValue())) {
        splat.emitOpError() << "value @" << symbol.getValue()
                            << " is not a real scalar of the job (dfir.scalar_arg ... type)";
        return WalkResult::interrupt();
      }
    } else if (auto symbol = dyn_cast<SymbolOp>(op)) {
      if (realScalar(symbol.getName())) {
        symbol.emitOpError() << "\"" << symbol.getName()
                             << "\" is a real scalar; only a float operand can read it";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// True for names the SpyreCode plan and symbols accept: [A-Za-z_][A-Za-z0-9_]*.
static bool isPlainName(StringRef name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return llvm::all_of(
      name, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

LogicalResult TensorArgOp::verify() {
  if (!isPlainName(getName()))
    return emitOpError() << "name \"" << getName()
                         << "\" must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (!dtypeOf(getDtype()))
    return emitOpError() << "dtype must be f16, bf16, f32 or i32, got " << getDtype();
  if (getShape().empty()) return emitOpError("shape needs at least one dimension");
  for (Attribute dim : getShape()) {
    if (auto size = dyn_cast<IntegerAttr>(dim)) {
      if (size.getValue().getSExtValue() <= 0)
        return emitOpError() << "dimensions must be positive, got "
                             << size.getValue().getSExtValue();
    } else if (!isa<StringAttr>(dim)) {
      return emitOpError() << "a dimension is a positive integer or the name of a scalar, got "
                           << dim;
    }
  }
  if (getLayout() && *getLayout() != "stick" && *getLayout() != "row_major")
    return emitOpError() << "layout must be \"stick\" or \"row_major\", got \"" << *getLayout()
                         << "\"";
  return success();
}

LogicalResult ScalarArgOp::verify() {
  if (!isPlainName(getName()))
    return emitOpError() << "name \"" << getName()
                         << "\" must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (getMultipleOf() && static_cast<int64_t>(*getMultipleOf()) <= 0)
    return emitOpError() << "multiple_of must be positive, got "
                         << static_cast<int64_t>(*getMultipleOf());
  if (getMin() && getMax() && static_cast<int64_t>(*getMin()) > static_cast<int64_t>(*getMax()))
    return emitOpError() << "min " << static_cast<int64_t>(*getMin()) << " is greater than max "
                         << static_cast<int64_t>(*getMax());
  if (auto type = getType()) {
    if (!type->isF16() && !type->isBF16() && !type->isF32())
      return emitOpError() << "type must be f16, bf16 or f32 (a real scalar), got " << *type;
    if (getMultipleOf() || getMin() || getMax())
      return emitOpError() << "a real scalar takes no multiple_of, min or max";
  }
  return success();
}

LogicalResult BufferOp::verify() {
  if (!isPlainName(getName()))
    return emitOpError() << "name \"" << getName()
                         << "\" must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (getSize() <= 0) return emitOpError() << "size must be positive, got " << getSize();
  return success();
}

//===----------------------------------------------------------------------===//
// dfir.program
//===----------------------------------------------------------------------===//

sc::Unit ProgramOp::getUnitKind() {
  sc::Unit unit = sc::Unit::DmaIn;
  sc::parseUnit(getUnit().str(), unit);
  return unit;
}

LogicalResult ProgramOp::verify() {
  sc::Unit unit;
  if (!sc::parseUnit(getUnit().str(), unit))
    return emitOpError() << "unknown unit \"" << getUnit()
                         << "\" (expected dma_in, dma_out, ring, load, compute or store)";
  if (getCores().size() != 2) return emitOpError("cores must be [first, last] or all");
  if (getFirstCore() < 0 || getLastCore() < getFirstCore())
    return emitOpError() << "bad core range [" << getFirstCore() << ", " << getLastCore() << "]";
  if (!sc::isCoreletUnit(unit) && getCoreletIndex() != -1)
    return emitOpError() << "the " << getUnit()
                         << " unit exists once per core: corelet must be -1, got "
                         << getCoreletIndex();
  if (getCoreletIndex() < -1 || getCoreletIndex() > 127)
    return emitOpError() << "corelet must be -1 (every corelet) or 0..127, got "
                         << getCoreletIndex();
  return success();
}

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

static LogicalResult verifyInProgram(Operation* op) {
  if (!op->getParentOfType<ProgramOp>()) return op->emitOpError("must be inside a dfir.program");
  return success();
}

LogicalResult CoreIdOp::verify() {
  return verifyInProgram(*this);
}
LogicalResult CoreletIdOp::verify() {
  return verifyInProgram(*this);
}
LogicalResult NumCoresOp::verify() {
  return verifyInProgram(*this);
}

LogicalResult SymbolOp::verify() {
  if (failed(verifyInProgram(*this))) return failure();
  auto job = (*this)->getParentOfType<JobOp>();
  if (!job) return success();
  StringRef name = getName();
  if (job.lookupArgument(name)) return success();
  // "A.dK": dimension K of tensor argument A.
  size_t dot = name.rfind(".d");
  if (dot != StringRef::npos) {
    StringRef base = name.take_front(dot), digits = name.drop_front(dot + 2);
    unsigned k = 0;
    if (!digits.empty() && !digits.getAsInteger(10, k)) {
      auto arg = dyn_cast_or_null<TensorArgOp>(job.lookupArgument(base));
      if (!arg)
        return emitOpError() << "\"" << name << "\": '" << base
                             << "' is not a dfir.tensor_arg of the job";
      if (k >= arg.getShape().size())
        return emitOpError() << "\"" << name << "\": tensor '" << base << "' has "
                             << arg.getShape().size() << " dimension(s)";
      return success();
    }
  }
  return emitOpError() << "\"" << name
                       << "\" names no tensor argument (\"A\"), dimension (\"A.d1\"), scalar "
                          "or buffer of the job";
}

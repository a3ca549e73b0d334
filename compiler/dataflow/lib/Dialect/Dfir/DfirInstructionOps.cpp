//===- DfirInstructionOps.cpp - table-driven instruction ops --------------===//
//
// Part of chipless. The textual form and the verifier of every instruction op, driven by
// the SpyreCode opcode table: `dfir.dma_load sp = %a, mem = %m, bytes = %b, done = %t`
// takes exactly the operand names of dma.load, in any order, and prints them in table
// order. Element-typed ops start with the type (`dfir.sfu "add" f16 ...`).
//
//===----------------------------------------------------------------------===//

#include "dataflow/Dialect/Dfir/DfirIsa.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dfir;
namespace sc = chipless::spyrecode;

namespace {

/// True for operands an instruction op writes (everything but registers and hidden ones).
bool isWritten(const sc::OperandDecl& decl) {
  return decl.kind != sc::OperandKind::Hidden && decl.kind != sc::OperandKind::Reg;
}

/// "sp, mem, bytes, ..." for messages.
std::string operandList(const sc::OpcodeInfo& info) {
  std::string list;
  for (const sc::OperandDecl& decl : info.operands)
    if (isWritten(decl)) list += (list.empty() ? "" : ", ") + std::string(decl.name);
  return list;
}

/// A float immediate: a number, or "inf", "-inf", "nan" (quoted or as keywords inf/nan).
ParseResult parseIsaFloat(OpAsmParser& parser, double& value) {
  SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (succeeded(parser.parseOptionalString(&text))) {
    if (text == "inf" || text == "+inf") {
      value = INFINITY;
    } else if (text == "-inf") {
      value = -INFINITY;
    } else if (text == "nan") {
      value = NAN;
    } else {
      return parser.emitError(loc, "expected a number, \"inf\", \"-inf\" or \"nan\", got \"")
             << text << "\"";
    }
    return success();
  }
  if (succeeded(parser.parseOptionalKeyword("inf"))) {
    value = INFINITY;
    return success();
  }
  if (succeeded(parser.parseOptionalKeyword("nan"))) {
    value = NAN;
    return success();
  }
  APFloat parsed(0.0);
  if (parser.parseFloat(APFloat::IEEEdouble(), parsed)) return failure();
  value = parsed.convertToDouble();
  return success();
}

void printIsaFloat(OpAsmPrinter& p, double value) {
  if (std::isnan(value))
    p << "\"nan\"";
  else if (std::isinf(value))
    p << (value < 0 ? "\"-inf\"" : "\"inf\"");
  else
    p.printFloat(APFloat(value));
}

/// Units whose bit is set in `mask`, as "dma_in, ring".
std::string unitList(uint32_t mask) {
  std::string list;
  for (int u = 0; u < sc::kUnitCount; ++u)
    if (mask & (1u << u))
      list += (list.empty() ? "" : ", ") + std::string(sc::unitName(static_cast<sc::Unit>(u)));
  return list;
}

} // namespace

//===----------------------------------------------------------------------===//
// Parser and printer
//===----------------------------------------------------------------------===//

ParseResult mlir::dfir::parseInstruction(OpAsmParser& parser, OperationState& result,
                                         sc::Opcode opcode) {
  const sc::OpcodeInfo& info = sc::opcodeInfo(opcode);
  MLIRContext* context = parser.getContext();
  SMLoc opLoc = parser.getCurrentLocation();

  if (info.dtype != sc::DtypeRule::None) {
    Type type;
    if (info.dtype == sc::DtypeRule::Required) {
      if (parser.parseType(type)) return failure();
    } else {
      OptionalParseResult parsed = parser.parseOptionalType(type);
      if (parsed.has_value() && failed(*parsed)) return failure();
    }
    if (type) result.addAttribute("dtype", TypeAttr::get(type));
  }

  SmallVector<StringRef> names;
  for (const sc::OperandDecl& decl : info.operands)
    if (isWritten(decl)) names.push_back(decl.name);
  std::vector<std::optional<OpAsmParser::UnresolvedOperand>> values(info.operands.size());
  std::vector<bool> seen(info.operands.size(), false);
  bool anyRequired = llvm::any_of(
      info.operands, [](const sc::OperandDecl& d) { return isWritten(d) && !d.optional; });

  // The first name: required when the opcode has required operands; otherwise only one of
  // the opcode's names (so that `dfir.nop` does not swallow the next op's name).
  StringRef key;
  SMLoc keyLoc = parser.getCurrentLocation();
  bool more = anyRequired ? succeeded(parser.parseKeyword(&key))
                          : succeeded(parser.parseOptionalKeyword(&key, names));
  if (anyRequired && !more) return failure();
  while (more) {
    size_t index = info.operands.size();
    for (size_t i = 0; i < info.operands.size(); ++i)
      if (isWritten(info.operands[i]) && key == info.operands[i].name) index = i;
    if (index == info.operands.size())
      return parser.emitError(keyLoc) << info.mnemonic << " has no operand '" << key
                                      << "' (operands: " << operandList(info) << ")";
    if (seen[index]) return parser.emitError(keyLoc) << "operand '" << key << "' given twice";
    seen[index] = true;
    if (parser.parseEqual()) return failure();
    const sc::OperandDecl& decl = info.operands[index];
    SMLoc valueLoc = parser.getCurrentLocation();
    switch (decl.kind) {
    case sc::OperandKind::Expr: {
      OpAsmParser::UnresolvedOperand operand;
      if (parser.parseOperand(operand)) return failure();
      values[index] = operand;
      break;
    }
    case sc::OperandKind::Port:
    case sc::OperandKind::Enum: {
      std::string word;
      if (failed(parser.parseOptionalString(&word))) {
        StringRef keyword;
        if (parser.parseKeyword(&keyword)) return failure();
        word = keyword.str();
      }
      if (decl.kind == sc::OperandKind::Port) {
        int64_t port;
        if (!sc::parsePort(word, port))
          return parser.emitError(valueLoc) << "operand '" << decl.name
                                            << "': expected a port (\"in0\".., \"out0\"..,"
                                               " \"v0\".. or \"none\"), got \""
                                            << word << "\"";
      } else if (enumIndex(decl, word) < 0) {
        std::string choices;
        for (const std::string& c : decl.choices) choices += (choices.empty() ? "" : ", ") + c;
        return parser.emitError(valueLoc) << "operand '" << decl.name << "': expected one of "
                                          << choices << ", got '" << word << "'";
      }
      result.addAttribute(decl.name, StringAttr::get(context, word));
      break;
    }
    case sc::OperandKind::Float: {
      // A real scalar bound at launch: @name.
      FlatSymbolRefAttr symbol;
      if (parser.parseOptionalAttribute(symbol).has_value()) {
        if (!symbol) return failure();
        result.addAttribute(decl.name, symbol);
        break;
      }
      double value = 0;
      if (parseIsaFloat(parser, value)) return failure();
      result.addAttribute(decl.name, FloatAttr::get(Float64Type::get(context), value));
      break;
    }
    default:
      return parser.emitError(keyLoc) << "operand '" << key << "' cannot be written";
    }
    if (failed(parser.parseOptionalComma())) break;
    keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key)) return failure();
  }

  if (parser.parseOptionalAttrDict(result.attributes)) return failure();

  for (size_t i = 0; i < info.operands.size(); ++i) {
    const sc::OperandDecl& decl = info.operands[i];
    if (isWritten(decl) && !decl.optional && !seen[i] && !result.attributes.get(decl.name))
      return parser.emitError(opLoc) << info.mnemonic << " needs operand '" << decl.name
                                     << "' (operands: " << operandList(info) << ")";
  }
  Type index = parser.getBuilder().getIndexType();
  SmallVector<int32_t> segments;
  for (size_t i = 0; i < info.operands.size(); ++i) {
    if (info.operands[i].kind != sc::OperandKind::Expr) continue;
    segments.push_back(values[i] ? 1 : 0);
    if (values[i] && parser.resolveOperand(*values[i], index, result.operands)) return failure();
  }
  // Registers the instruction writes are the op's results.
  result.addTypes(SmallVector<Type>(countRegisterOperands(opcode), index));
  if (result.name.hasTrait<OpTrait::AttrSizedOperandSegments>())
    result.addAttribute("operandSegmentSizes", parser.getBuilder().getDenseI32ArrayAttr(segments));
  return success();
}

void mlir::dfir::printInstruction(OpAsmPrinter& p, InstructionOpInterface op) {
  Operation* operation = op.getOperation();
  SmallVector<StringRef> elided = {"operandSegmentSizes", "dtype", "kind"};
  if (auto dtype = operation->getAttrOfType<TypeAttr>("dtype")) p << " " << dtype.getValue();
  bool first = true;
  for (const IsaOperand& operand : getIsaOperands(op)) {
    if (operand.decl->kind == sc::OperandKind::Reg) continue; // printed as the op's results
    elided.push_back(operand.decl->name);
    if (!operand.present()) continue;
    p << (first ? " " : ", ") << operand.decl->name << " = ";
    first = false;
    switch (operand.decl->kind) {
    case sc::OperandKind::Expr:
      p << operand.value;
      break;
    case sc::OperandKind::Port:
      p << operand.attr;
      break;
    case sc::OperandKind::Enum:
      if (auto word = dyn_cast<StringAttr>(operand.attr))
        p << word.getValue();
      else
        p << operand.attr;
      break;
    case sc::OperandKind::Float:
      if (auto value = dyn_cast<FloatAttr>(operand.attr))
        printIsaFloat(p, value.getValueAsDouble());
      else
        p << operand.attr;
      break;
    default:
      p << operand.attr;
    }
  }
  p.printOptionalAttrDict(operation->getAttrs(), elided);
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

LogicalResult mlir::dfir::verifyInstruction(InstructionOpInterface op) {
  Operation* operation = op.getOperation();
  const sc::Opcode opcode = op.getOpcode();
  const sc::OpcodeInfo& info = sc::opcodeInfo(opcode);
  const std::string spelling = isaSpelling(op);

  // The unit of the enclosing program must be one the table lets run this opcode.
  auto program = operation->getParentOfType<ProgramOp>();
  if (!program) return op->emitOpError("must be inside a dfir.program");
  sc::Unit unit;
  if (sc::parseUnit(program.getUnit().str(), unit) &&
      !(info.unitMask & (1u << static_cast<unsigned>(unit))))
    return op->emitOpError() << "(" << spelling << ") cannot run in a '" << program.getUnit()
                             << "' program; it runs on: " << unitList(info.unitMask);

  // The SSA operand groups are the table's expression operands, in order.
  unsigned expected = countExpressionOperands(opcode);
  auto segments = operation->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  unsigned required = 0;
  for (const sc::OperandDecl& decl : info.operands)
    required += decl.kind == sc::OperandKind::Expr && !decl.optional;
  if (segments ? segments.size() != expected
               : operation->getNumOperands() < required || operation->getNumOperands() > expected)
    return op->emitOpError() << "does not match " << info.mnemonic << ", which has " << expected
                             << " expression operands";

  if (operation->getNumResults() != countRegisterOperands(opcode))
    return op->emitOpError() << "has " << operation->getNumResults() << " results but "
                             << info.mnemonic << " writes " << countRegisterOperands(opcode)
                             << " registers";

  // Element type.
  if (info.dtype != sc::DtypeRule::None) {
    auto dtype = operation->getAttrOfType<TypeAttr>("dtype");
    if (!dtype && info.dtype == sc::DtypeRule::Required)
      return op->emitOpError() << info.mnemonic << " needs an element type";
    if (dtype) {
      auto dt = dtypeOf(dtype.getValue());
      if (!dt || !(info.dtypeMask & (1u << static_cast<unsigned>(*dt)))) {
        std::string allowed;
        for (chipless::DType t : {chipless::DType::F16, chipless::DType::BF16, chipless::DType::F32,
                                  chipless::DType::I32})
          if (info.dtypeMask & (1u << static_cast<unsigned>(t)))
            allowed += (allowed.empty() ? "" : ", ") + std::string(chipless::dtypeName(t));
        return op->emitOpError() << info.mnemonic << " does not take element type "
                                 << dtype.getValue() << " (allowed: " << allowed << ")";
      }
    }
  }

  // Ports, enums and floats.
  std::optional<int64_t> firstFifo;
  for (const IsaOperand& operand : getIsaOperands(op)) {
    const sc::OperandDecl& decl = *operand.decl;
    if (decl.kind == sc::OperandKind::Reg) continue;
    if (decl.kind == sc::OperandKind::Expr) {
      // Token ids that are constants must be in range.
      std::optional<int64_t> value = constantIndex(operand.value);
      StringRef name = decl.name;
      if (value && (name == "token" || name == "done")) {
        const bool optional = decl.optional;
        if (*value < (optional ? -1 : 0))
          return op->emitOpError()
                 << "operand '" << name << "' is a token id ("
                 << (optional ? "-1 for none, or 0.." : "0..") << "), got " << *value;
      }
      continue;
    }
    if (!operand.attr) {
      if (!decl.optional)
        return op->emitOpError() << spelling << " needs operand '" << decl.name << "'";
      continue;
    }
    if (decl.kind == sc::OperandKind::Port) {
      std::optional<int64_t> port = portOf(operand.attr);
      if (!port)
        return op->emitOpError() << "operand '" << decl.name
                                 << "' must be a port (\"in0\".., \"out0\".., \"v0\".. or "
                                    "\"none\"), got "
                                 << operand.attr;
      PortRole role = portRole(opcode, decl.name);
      if (!portFits(role, *port))
        return op->emitOpError() << "operand '" << decl.name << "' of " << spelling << " must be "
                                 << describePortRole(role) << ", got " << operand.attr;
      // Two FIFO operands of one instruction must differ (ld.stream lanes, pt.mm a and b).
      bool fifo = *port >= sc::kPortIn && *port < sc::kPortReg;
      if ((opcode == sc::Opcode::LdStream || opcode == sc::Opcode::PtMm) && fifo &&
          decl.name != std::string("dst")) {
        if (firstFifo && *firstFifo == *port)
          return op->emitOpError() << "reads FIFO " << operand.attr << " twice";
        firstFifo = *port;
      }
    } else if (decl.kind == sc::OperandKind::Enum) {
      auto word = dyn_cast<StringAttr>(operand.attr);
      if (!word || enumIndex(decl, word.getValue()) < 0)
        return op->emitOpError() << "operand '" << decl.name << "' must be one of "
                                 << llvm::join(decl.choices, ", ") << ", got " << operand.attr;
    } else if (decl.kind == sc::OperandKind::Float) {
      if (!isa<FloatAttr, FlatSymbolRefAttr>(operand.attr))
        return op->emitOpError() << "operand '" << decl.name
                                 << "' must be a float or a real scalar (@name)";
    }
  }

  // pt.mm pushes its result only when emit is not 0: then it needs a destination FIFO.
  if (auto mm = dyn_cast<PtMmOp>(operation)) {
    std::optional<int64_t> emit = mm.getEmit() ? constantIndex(mm.getEmit()) : 1;
    bool noDst = !mm.getDst() || *mm.getDst() == "none";
    if (noDst && (!emit || *emit != 0))
      return op->emitOpError("emits its result (emit is not the constant 0) but has no "
                             "dst output FIFO");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// dfir.sfu: the opcode is its kind
//===----------------------------------------------------------------------===//

sc::Opcode SfuOp::getOpcode() {
  std::optional<sc::Opcode> opcode = sfuOpcode(getKind());
  return opcode ? *opcode : sc::Opcode::SfuMov;
}

/// "mov, neg, ..." : every kind dfir.sfu accepts.
static std::string sfuKinds() {
  std::string kinds;
  for (const sc::OpcodeInfo& info : sc::allOpcodes()) {
    StringRef mnemonic = info.mnemonic;
    if (mnemonic.consume_front("sfu.") && sfuOpcode(mnemonic))
      kinds += (kinds.empty() ? "" : ", ") + mnemonic.str();
  }
  return kinds;
}

ParseResult SfuOp::parse(OpAsmParser& parser, OperationState& result) {
  SMLoc loc = parser.getCurrentLocation();
  std::string kind;
  if (parser.parseString(&kind)) return failure();
  std::optional<sc::Opcode> opcode = sfuOpcode(kind);
  if (!opcode)
    return parser.emitError(loc) << "unknown SFU operation \"" << kind << "\" (expected one of "
                                 << sfuKinds() << ")";
  result.addAttribute("kind", parser.getBuilder().getStringAttr(kind));
  return parseInstruction(parser, result, *opcode);
}

void SfuOp::print(OpAsmPrinter& p) {
  p << " ";
  p.printString(getKind());
  printInstruction(p, *this);
}

LogicalResult SfuOp::verify() {
  std::optional<sc::Opcode> opcode = sfuOpcode(getKind());
  if (!opcode)
    return emitOpError() << "unknown SFU operation \"" << getKind() << "\" (expected one of "
                         << sfuKinds() << ")";
  // The ports the kind does not take must be absent.
  const sc::OpcodeInfo& info = sc::opcodeInfo(*opcode);
  for (StringRef port : {"cond", "b", "c"}) {
    bool takes =
        llvm::any_of(info.operands, [&](const sc::OperandDecl& d) { return port == d.name; });
    if (!takes && (*this)->getAttr(port))
      return emitOpError() << info.mnemonic << " has no operand '" << port
                           << "' (operands: " << operandList(info) << ")";
  }
  return verifyInstruction(*this);
}

//===- DfirIsa.cpp - dfir ops bound to the SpyreCode opcode table ---------===//
//
// Part of chipless. See DfirIsa.h.
//
//===----------------------------------------------------------------------===//

#include "dataflow/Dialect/Dfir/DfirIsa.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::dfir;
namespace sc = chipless::spyrecode;

SmallVector<IsaOperand> mlir::dfir::getIsaOperands(InstructionOpInterface op) {
  Operation* operation = op.getOperation();
  const sc::OpcodeInfo& info = sc::opcodeInfo(op.getOpcode());
  // Expression operands are the SSA operand groups in table order. Ops with several
  // optional ones have operandSegmentSizes; otherwise required groups hold one operand and
  // the (single) optional group what is left.
  auto segments = operation->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  unsigned required = 0;
  for (const sc::OperandDecl& decl : info.operands)
    required += decl.kind == sc::OperandKind::Expr && !decl.optional;
  const unsigned leftOver =
      operation->getNumOperands() > required ? operation->getNumOperands() - required : 0;
  SmallVector<IsaOperand> result;
  unsigned group = 0, next = 0, results = 0;
  for (const sc::OperandDecl& decl : info.operands) {
    if (decl.kind == sc::OperandKind::Hidden) continue;
    IsaOperand operand;
    operand.decl = &decl;
    if (decl.kind == sc::OperandKind::Reg) {
      // A register the instruction writes: the op's next result.
      if (results < operation->getNumResults()) operand.value = operation->getResult(results);
      ++results;
    } else if (decl.kind == sc::OperandKind::Expr) {
      unsigned size = decl.optional ? leftOver : 1;
      if (segments) size = group < segments.size() ? static_cast<unsigned>(segments[group]) : 0;
      if (size > 0 && next < operation->getNumOperands())
        operand.value = operation->getOperand(next);
      next += size;
      ++group;
    } else {
      operand.attr = operation->getAttr(decl.name);
    }
    result.push_back(operand);
  }
  return result;
}

unsigned mlir::dfir::countExpressionOperands(sc::Opcode opcode) {
  unsigned n = 0;
  for (const sc::OperandDecl& decl : sc::opcodeInfo(opcode).operands)
    n += decl.kind == sc::OperandKind::Expr;
  return n;
}

unsigned mlir::dfir::countRegisterOperands(sc::Opcode opcode) {
  unsigned n = 0;
  for (const sc::OperandDecl& decl : sc::opcodeInfo(opcode).operands)
    n += decl.kind == sc::OperandKind::Reg;
  return n;
}

std::optional<sc::Opcode> mlir::dfir::sfuOpcode(StringRef kind) {
  std::string mnemonic = "sfu." + kind.str();
  const sc::OpcodeInfo* info = sc::findOpcode(mnemonic);
  if (!info || info->op == sc::Opcode::SfuSplat) return std::nullopt;
  const bool vectorOp = (info->op >= sc::Opcode::SfuMov && info->op <= sc::Opcode::SfuLaneMin) ||
                        info->op == sc::Opcode::SfuLaneBcast;
  if (!vectorOp) return std::nullopt;
  return info->op;
}

std::optional<chipless::DType> mlir::dfir::dtypeOf(Type type) {
  if (!type) return std::nullopt;
  if (type.isF16()) return chipless::DType::F16;
  if (type.isBF16()) return chipless::DType::BF16;
  if (type.isF32()) return chipless::DType::F32;
  if (type.isSignlessInteger(32)) return chipless::DType::I32;
  return std::nullopt;
}

Type mlir::dfir::typeOf(MLIRContext* context, chipless::DType dtype) {
  switch (dtype) {
  case chipless::DType::F16:
    return Float16Type::get(context);
  case chipless::DType::BF16:
    return BFloat16Type::get(context);
  case chipless::DType::F32:
    return Float32Type::get(context);
  case chipless::DType::I32:
    return IntegerType::get(context, 32);
  default:
    return IntegerType::get(context, 8);
  }
}

PortRole mlir::dfir::portRole(sc::Opcode opcode, StringRef name) {
  switch (opcode) {
  case sc::Opcode::LdStream:
    return name == "fifo_b" ? PortRole::InputOrNone : PortRole::Input;
  case sc::Opcode::StStream:
    return PortRole::Output;
  case sc::Opcode::PtMm:
    return name == "dst" ? PortRole::OutputOrNone : PortRole::Input;
  case sc::Opcode::SfuSplat:
  case sc::Opcode::SfuLaneMask:
  case sc::Opcode::SfuSplatInt:
    return PortRole::Register;
  case sc::Opcode::SfuAccAdd:
  case sc::Opcode::SfuAccMax:
  case sc::Opcode::SfuAccMin:
    return name == "dst" ? PortRole::Register : PortRole::Source;
  default:
    return name == "dst" ? PortRole::Destination : PortRole::Source;
  }
}

const char* mlir::dfir::describePortRole(PortRole role) {
  switch (role) {
  case PortRole::Input:
    return "an input FIFO (\"in0\"..)";
  case PortRole::InputOrNone:
    return "an input FIFO (\"in0\"..) or \"none\"";
  case PortRole::Output:
    return "an output FIFO (\"out0\"..)";
  case PortRole::OutputOrNone:
    return "an output FIFO (\"out0\"..) or \"none\"";
  case PortRole::Source:
    return "an input FIFO (\"in0\"..) or an SFU register (\"v0\"..)";
  case PortRole::Destination:
    return "an output FIFO (\"out0\"..) or an SFU register (\"v0\"..)";
  case PortRole::Register:
    return "an SFU register (\"v0\"..)";
  }
  return "a port";
}

bool mlir::dfir::portFits(PortRole role, int64_t port) {
  const bool none = port == sc::kPortNone;
  const bool in = port >= sc::kPortIn && port < sc::kPortOut;
  const bool out = port >= sc::kPortOut && port < sc::kPortReg;
  const bool reg = port >= sc::kPortReg;
  switch (role) {
  case PortRole::Input:
    return in;
  case PortRole::InputOrNone:
    return in || none;
  case PortRole::Output:
    return out;
  case PortRole::OutputOrNone:
    return out || none;
  case PortRole::Source:
    return in || reg;
  case PortRole::Destination:
    return out || reg;
  case PortRole::Register:
    return reg;
  }
  return false;
}

std::optional<int64_t> mlir::dfir::portOf(Attribute attr) {
  auto text = dyn_cast_or_null<StringAttr>(attr);
  int64_t port = 0;
  if (!text || !sc::parsePort(text.getValue().str(), port)) return std::nullopt;
  return port;
}

int mlir::dfir::enumIndex(const sc::OperandDecl& decl, StringRef word) {
  for (size_t i = 0; i < decl.choices.size(); ++i)
    if (decl.choices[i] == word) return static_cast<int>(i);
  return -1;
}

std::string mlir::dfir::isaSpelling(InstructionOpInterface op) {
  std::string text = sc::opcodeInfo(op.getOpcode()).mnemonic;
  if (auto dtype = op->getAttrOfType<TypeAttr>("dtype"))
    if (auto dt = dtypeOf(dtype.getValue())) text += std::string(".") + chipless::dtypeName(*dt);
  return text;
}

std::optional<int64_t> mlir::dfir::constantIndex(Value value) {
  if (!value) return std::nullopt;
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  if (!constant) return std::nullopt;
  if (auto integer = dyn_cast<IntegerAttr>(constant.getValue())) {
    if (integer.getType().isInteger(1)) return integer.getValue().getZExtValue();
    return integer.getValue().getSExtValue();
  }
  return std::nullopt;
}

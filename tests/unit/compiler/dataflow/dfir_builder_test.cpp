// DataflowIR built through the C++ API, as the Dataflow Scheduler builds it, and emitted
// with chipless::dataflow::emitSpyreCode; the binding of the dfir ops to the SpyreCode
// opcode table.
#include "dataflow/DfirRegistration.h"
#include "dataflow/Dialect/Dfir/DfirIsa.h"
#include "dataflow/Dialect/Dfir/DfirOps.h"
#include "dataflow/Emit/EmitSpyreCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>
#include <set>

namespace chipless::dataflow {
namespace {

using namespace mlir;
namespace sc = chipless::spyrecode;

SpyreArch defaultArch() {
  return SpyreArch::load(std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/spyre.yaml");
}

class DfirBuilderTest : public ::testing::Test {
protected:
  DfirBuilderTest() : context_(makeRegistry()), builder_(&context_) {
    context_.loadAllAvailableDialects();
    module_ = ModuleOp::create(builder_.getUnknownLoc());
    builder_.setInsertionPointToEnd(module_->getBody());
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerDfirDialects(registry);
    return registry;
  }
  Location loc(int line) { return FileLineColLoc::get(&context_, "built.mlir", line, 1); }
  Value index(int64_t v) { return builder_.create<arith::ConstantIndexOp>(loc(0), v); }

  /// A job with scalar N, input X [N, 64] and one program of `unit`; the builder is left
  /// inside the program.
  dfir::JobOp beginJob(StringRef unit) {
    auto job = builder_.create<dfir::JobOp>(loc(1), "built");
    builder_.setInsertionPointToEnd(&job.getBody().emplaceBlock());
    builder_.create<dfir::ScalarArgOp>(loc(2), "N");
    builder_.create<dfir::TensorArgOp>(
        loc(3), builder_.getStringAttr("X"),
        dfir::ArgRoleAttr::get(&context_, dfir::ArgRole::Input),
        TypeAttr::get(builder_.getF16Type()),
        builder_.getArrayAttr({builder_.getStringAttr("N"), builder_.getI64IntegerAttr(64)}),
        StringAttr());
    auto program =
        builder_.create<dfir::ProgramOp>(loc(4), unit, ArrayRef<int32_t>{0, sc::kAllCores}, -1);
    builder_.setInsertionPointToEnd(&program.getBody().emplaceBlock());
    return job;
  }

  MLIRContext context_;
  OpBuilder builder_;
  OwningOpRef<ModuleOp> module_;
};

TEST_F(DfirBuilderTest, BuildsALoopOfSfuOpsAndEmitsIt) {
  dfir::JobOp job = beginJob("compute");
  Value n = builder_.create<dfir::SymbolOp>(loc(5), "N");
  Value one = index(1);
  builder_.create<scf::ForOp>(
      loc(6), index(0), n, one, ValueRange{}, [&](OpBuilder& b, Location l, Value i, ValueRange) {
        b.create<dfir::SfuSplatOp>(l, TypeAttr::get(b.getF16Type()), b.getStringAttr("v0"),
                                   b.getF64FloatAttr(0.5));
        b.create<dfir::SfuOp>(l, b.getStringAttr("mul"), TypeAttr::get(b.getF16Type()), i,
                              b.getStringAttr("out0"), StringAttr(), b.getStringAttr("in0"),
                              b.getStringAttr("v0"), StringAttr());
        b.create<scf::YieldOp>(l);
      });
  ASSERT_TRUE(succeeded(mlir::verify(*module_)));

  FailureOr<sc::Job> emitted = emitSpyreCode(job, defaultArch());
  ASSERT_TRUE(succeeded(emitted));
  EXPECT_EQ(emitted->plan.kernel, "built");
  ASSERT_EQ(emitted->plan.args.size(), 1u);
  EXPECT_EQ(emitted->plan.args[0].name, "X");
  ASSERT_EQ(emitted->binary.programs.size(), 1u);
  const sc::Program& program = emitted->binary.programs[0];
  EXPECT_EQ(program.unit, sc::Unit::Compute);
  EXPECT_EQ(program.corelet, -1);
  EXPECT_EQ(program.coreLast, sc::kAllCores);
  // li r0, 0 (the induction variable); loop @N; splat; mul n=r0; add r0, r0, 1; endloop
  std::vector<sc::Opcode> ops;
  for (const sc::Instruction& ins : program.code) ops.push_back(ins.op);
  EXPECT_EQ(ops,
            (std::vector<sc::Opcode>{sc::Opcode::Li, sc::Opcode::Loop, sc::Opcode::SfuSplat,
                                     sc::Opcode::SfuMul, sc::Opcode::Add, sc::Opcode::EndLoop}));
  EXPECT_EQ(emitted->binary.symbols, std::vector<std::string>{"N"});
  EXPECT_EQ(program.code[1].operands[0].sym, 0);            // loop @N
  EXPECT_EQ(program.code[3].operands[0].reg, 0);            // n = r0
  EXPECT_EQ(program.code[3].operands[3].imm, sc::kPortReg); // b = v0
  EXPECT_EQ(program.code[3].dtype, DType::F16);
}

TEST_F(DfirBuilderTest, EmitterErrorsAreDiagnosticsAtTheOp) {
  dfir::JobOp job = beginJob("load");
  Value one = index(1);
  builder_.create<dfir::LdStreamOp>(loc(42), one, builder_.getStringAttr("in9"), one, Value(),
                                    Value(), Value(), Value(), Value(), StringAttr(), Value(),
                                    Value(), Value(), Value());
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context_, [&](Diagnostic& d) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << d.getLocation() << ": " << d.str();
    messages.push_back(os.str());
    return success();
  });
  EXPECT_TRUE(failed(emitSpyreCode(job, defaultArch())));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("built.mlir\":42:1): operand 'fifo' names in9, but a corelet has 4 "
                             "input FIFOs"),
            std::string::npos)
      << messages[0];
}

TEST_F(DfirBuilderTest, EveryUnitInstructionOfTheIsaHasADfirOp) {
  // The opcodes that scalar code (arith, scf) covers; every other opcode of the table must
  // be some dfir op's (dfir.sfu covers the SFU vector opcodes by kind).
  const std::set<sc::Opcode> scalar = {
      sc::Opcode::Li,  sc::Opcode::Add, sc::Opcode::Sub, sc::Opcode::Mul,  sc::Opcode::Div,
      sc::Opcode::Rem, sc::Opcode::Shl, sc::Opcode::Shr, sc::Opcode::And,  sc::Opcode::Or,
      sc::Opcode::Xor, sc::Opcode::Min, sc::Opcode::Max, sc::Opcode::Jmp,  sc::Opcode::Beq,
      sc::Opcode::Bne, sc::Opcode::Blt, sc::Opcode::Bge, sc::Opcode::Loop, sc::Opcode::EndLoop};
  std::set<sc::Opcode> covered;
  for (RegisteredOperationName name : context_.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "dfir" || !name.hasInterface<dfir::InstructionOpInterface>())
      continue;
    if (name.getStringRef() == "dfir.sfu") continue;
    OperationState state(builder_.getUnknownLoc(), name);
    Operation* op = Operation::create(state);
    covered.insert(cast<dfir::InstructionOpInterface>(op).getOpcode());
    op->destroy();
  }
  for (const sc::OpcodeInfo& info : sc::allOpcodes()) {
    if (scalar.count(info.op)) continue;
    std::string mnemonic = info.mnemonic;
    if (mnemonic.rfind("sfu.", 0) == 0 && info.op != sc::Opcode::SfuSplat &&
        info.op != sc::Opcode::SfuLaneMask && info.op != sc::Opcode::SfuCvt &&
        info.op != sc::Opcode::SfuSplatInt) {
      EXPECT_TRUE(dfir::sfuOpcode(mnemonic.substr(4)).has_value()) << mnemonic;
      continue;
    }
    EXPECT_TRUE(covered.count(info.op)) << info.mnemonic << " has no dfir op";
  }
}

} // namespace
} // namespace chipless::dataflow

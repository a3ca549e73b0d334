/// The TPU program format: the opcode table, the assembler (errors name file and line), the
/// disassembler round trip (text -> job -> text -> the same job), the binary encoding and
/// every class of corrupt binary and plan.
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/binary.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"
#include "support/tpuprog/isa.h"
#include "support/tpuprog/plan.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <unistd.h>

namespace chipless::tpuprog {
namespace {

namespace fs = std::filesystem;

/// Exercises every operand kind, loops, labels, bundles, symbols and directives.
const char* kSample = R"(; a sample that uses every feature of the language
.kernel sample
.scalar N
.equ TILE 128
.equ ROW TILE*4
.input  X f32 [N, 256] tile=8x128
.input  W bf16 [256, 256] tile=128x128
.output Y f32 [N, 256] tile=8x128 placement=split
.buffer scratch 4096

.program cores=all chips=all
    li s1, @X.p0 | mul s2, @N, ROW        ; two scalar ops in one bundle
    dma.in dst=0, src=@X, bytes=s2, sem=0 | sst 16, 7
    sem.wait 0
    sld s3, 16
    loop s1
      vld.f32 v0, s4, n=8 | vsplat.f32 v8, 1.5, n=8
      vadd.f32 v16, v0, v8, n=8 | add s4, s4, 4096
      vst.f32 v16, s4+65536, n=8, stride=512
    endloop
    mxu.matmul.bf16 mxu=0, lhs=0, rows=8, k=128, rhs=8192, n=128, out=16384, acc=1, sem=2
    blt s3, 10, skip
    vexp.f32 v1, v2 | vld.i8 v6, 0, stride=0
    vcmp.lt.i32 v3, v4, v5
skip:
    ici.allreduce.f32 src=@X, dst=@Y, bytes=1024, sem=3 | sem.signal 1, count=2, core=0
    dma.out dst=@Y+s5, src=0, bytes=512, rows=4, src_stride=512, dst_stride=1024, mem=smem
    vbcast.i32 v9, s3 | nop cycles=4
    sem.wait 3 | fence
    ici.send chip=1, dst=@scratch, src=@X.d1, bytes=64, sem=1, done=2
.end

.program cores=0 chips=0-1
    jmp end
end:
.end
)";

Job assembled(const std::string& text, const std::string& name = "t.s") {
  static const AssembleOptions options =
      AssembleOptions::forArch(TpuArch::load(TpuArch::defaultFile()));
  return assemble(text, name, options);
}

std::string errorOf(const std::string& text) {
  try {
    assembled(text, "bad.s");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TpuIsa, TableIsConsistent) {
  std::set<std::string> names;
  for (const auto& info : allOpcodes()) {
    EXPECT_TRUE(names.insert(info.mnemonic).second) << info.mnemonic;
    EXPECT_EQ(findOpcode(info.mnemonic), &info);
    EXPECT_LE(info.positional, static_cast<int>(info.operands.size())) << info.mnemonic;
    EXPECT_EQ(info.dtype == DtypeRule::None, info.dtypeMask == 0) << info.mnemonic;
    std::set<std::string> operands;
    for (const auto& d : info.operands) EXPECT_TRUE(operands.insert(d.name).second);
  }
  EXPECT_EQ(allOpcodes().size(), static_cast<size_t>(Opcode::Count));
  EXPECT_EQ(opcodeInfo(Opcode::MxuMatmul).slot, Slot::Mxu);
  EXPECT_EQ(opcodeInfo(Opcode::DmaIn).slot, Slot::Dma);
  EXPECT_EQ(opcodeInfo(Opcode::IciAllReduce).slot, Slot::Dma);
  EXPECT_EQ(opcodeInfo(Opcode::Vld).slot, Slot::VLoad);
}

TEST(TpuIsa, RegisterNames) {
  int r;
  int64_t v;
  EXPECT_TRUE(parseReg("s0", r) && r == 0);
  EXPECT_TRUE(parseReg("s63", r) && r == 63);
  EXPECT_FALSE(parseReg("s64", r));
  EXPECT_FALSE(parseReg("s01", r));
  EXPECT_TRUE(parseReg("nchips", r) && r == kRegNChips);
  EXPECT_EQ(regName(kRegNMxu), "nmxu");
  EXPECT_TRUE(parseVReg("v31", v) && v == 31);
  EXPECT_FALSE(parseVReg("v256", v));
  EXPECT_FALSE(parseVReg("x1", v));
}

TEST(TpuAssembler, SampleAssembles) {
  Job job = assembled(kSample);
  EXPECT_EQ(job.plan.kernel, "sample");
  ASSERT_EQ(job.plan.args.size(), 3u);
  EXPECT_EQ(job.plan.args[0].tile[0], 8);
  EXPECT_EQ(job.plan.args[0].tile[1], 128);
  EXPECT_EQ(job.plan.args[2].placement, Placement::Split);
  EXPECT_EQ(job.plan.args[1].dtype, DType::BF16);
  ASSERT_EQ(job.binary.programs.size(), 2u);
  const Program& p = job.binary.programs[0];
  EXPECT_EQ(p.coreFirst, 0);
  EXPECT_EQ(p.coreLast, kAll);
  EXPECT_EQ(p.bundles[0].ops.size(), 2u);
  // The loop at bundle 4 ends after the endloop at bundle 8.
  EXPECT_EQ(p.bundles[4].ops[0].op, Opcode::Loop);
  EXPECT_EQ(p.bundles[4].ops[0].operands[1].imm, 9);
  EXPECT_EQ(p.bundles[8].ops[0].op, Opcode::EndLoop);
  EXPECT_EQ(p.bundles[8].ops[0].operands[0].imm, 4);
  EXPECT_EQ(job.binary.programs[1].chipLast, 1);
  // the standard plan: program at 0, buffer after it, inputs in, run, outputs out.
  ASSERT_EQ(job.plan.prepare.size(), 3u);
  EXPECT_EQ(job.plan.prepare[2].name, "scratch");
  EXPECT_EQ(parseDevPtr(job.plan.prepare[2].devPtr, "x") % 512, 0u);
  EXPECT_EQ(job.plan.execute.size(), 4u);
}

TEST(TpuAssembler, DisassemblyRoundTrips) {
  Job job = assembled(kSample);
  std::string text = disassemble(job);
  Job again = assembled(text, "again.s");
  EXPECT_TRUE(again.binary == job.binary) << text;
  EXPECT_TRUE(again.plan == job.plan) << text;
  EXPECT_EQ(disassemble(again), text);
}

TEST(TpuAssembler, EveryKernelRoundTrips) {
  std::string dir = std::string(CHIPLESS_SOURCE_DIR) + "/models/tpu-kernels";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".s") continue;
    ++n;
    Job job = assembled(readFile(e.path().string()), e.path().string());
    Job again = assembled(disassemble(job), "again.s");
    EXPECT_TRUE(again.binary == job.binary) << e.path();
    EXPECT_TRUE(again.plan == job.plan) << e.path();
    EXPECT_TRUE(decodeBinary(encodeBinary(job.binary), "x") == job.binary) << e.path();
  }
  EXPECT_GE(n, 3);
}

TEST(TpuAssembler, ErrorsNameFileAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string head = ".kernel k\n.input X f32 [8, 128]\n.program cores=all\n";
  const std::vector<Case> cases = {
      {head + "    vfoo.f32 v0, v1\n.end\n", "bad.s:4: unknown operation 'vfoo.f32'"},
      {head + "    vld.f32 v0, 0 | vld.f32 v1, 0\n.end\n",
       "bad.s:4: two operations for the vld slot"},
      {head + "    li s1, 1 | li s2, 2 | li s3, 3\n.end\n", "bad.s:4: more than 2 scalar"},
      {head + "    vadd v0, v1, v2\n.end\n", "bad.s:4: vadd needs an element type suffix"},
      {head + "    vexp.i32 v0, v1\n.end\n", "bad.s:4: vexp does not support i32"},
      {head + "    mxu.matmul.bf16 mxu=0, lhs=0, rows=8\n.end\n", "bad.s:4: mxu.matmul: missing"},
      {head + "    jmp nowhere\n.end\n", "bad.s:4: undefined label 'nowhere'"},
      {head + "    endloop\n.end\n", "bad.s:4: endloop without loop"},
      {head + "    loop 3\n.end\n", "bad.s:5: loop opened at line 4 has no endloop"},
      {head + "    li s1, @Z\n.end\n", "bad.s:4: li operand 'a': '@Z'"},
      {head + "    li s1, @X.d2\n.end\n", "expected X.d0 .. X.d1"},
      {head + "    li s70, 1\n.end\n", "bad.s:4: li operand 'rd': expected a scalar register"},
      {head + "    vmov.f32 v300, v1\n.end\n", "expected a vector register"},
      {head + "    dma.in dst=0, src=0, bytes=8, mem=hbm\n.end\n", "expected one of vmem, smem"},
      {head + "    li s1, 1, 2\n.end\n", "li takes at most 2 operands"},
      {head + "    li s1, 1\n", "bad.s:4: program started at line 3 has no .end"},
      {".kernel k\n.input X f16 [8]\n", "bad.s:2: .input X: unknown element type 'f16'"},
      {".kernel k\n.input X f32 [N]\n.program\n.end\n", "bad.s:2: dimension 'N' is not"},
      {".kernel k\n.input X f32 [8] tile=8\n", "tile=ROWSxCOLS"},
      {".kernel k\n.frobnicate\n", "bad.s:2: unknown directive '.frobnicate'"},
      {".program cores=all\n.end\n", "bad.s:1: missing .kernel"},
      {head + "    jmp L | loop 2\n    endloop\n.end\n", "two control operations"},
      {".kernel k\n.trap 1 no quotes\n", "bad.s:2: .trap CODE \"message\""},
      {".kernel k\n.trap 1 \"a\"\n.trap 1 \"b\"\n", "bad.s:3: .trap 1 given twice"},
      {".kernel k\n.trap 1 \"\"\n", "bad.s:2: .trap: the message must be non-empty"},
      // found by fuzz_tpu_asm: bytes that are not UTF-8 reached the JSON writer
      {".kernel k\n.trap 1 \"must b\x93" "e\"\n", "bad.s:2: .trap: the message must be UTF-8"},
      {".kernel k\n.trap 1 \"\xC0\xAF overlong\"\n", "bad.s:2: .trap: the message must be UTF-8"},
      {".kernel k\n.trap 1 \"\xED\xA0\x80 surrogate\"\n", "must be UTF-8"},
      {".kernel k\n.trap 1 \"tab\there\"\n", "bad.s:2: .trap: the message must be UTF-8"},
  };
  for (const auto& c : cases) {
    std::string msg = errorOf(c.text);
    EXPECT_NE(msg.find(c.message), std::string::npos)
        << "expected '" << c.message << "' in '" << msg << "' for:\n"
        << c.text;
  }
}

TEST(TpuBinary, EncodeDecodeRoundTrip) {
  Job job = assembled(kSample);
  std::string bytes = encodeBinary(job.binary);
  EXPECT_EQ(bytes.substr(0, 8), std::string("TPUPROG\0", 8));
  EXPECT_TRUE(decodeBinary(bytes, "p.bin") == job.binary);
  EXPECT_EQ(encodeBinary(decodeBinary(bytes, "p.bin")), bytes);
}

TEST(TpuBinary, EveryTruncationIsAnErrorNotACrash) {
  std::string bytes = encodeBinary(assembled(kSample).binary);
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      decodeBinary(bytes.substr(0, n), "p.bin");
      ADD_FAILURE() << "truncated to " << n << " bytes accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("p.bin: ", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(decodeBinary(bytes + "x", "p.bin"), Error);
}

TEST(TpuBinary, CorruptFieldsNameProgramBundleAndOperation) {
  Job job = assembled(".kernel k\n.program cores=all\n    li s1, 2 | add s2, s1, 3\n.end\n");
  std::string good = encodeBinary(job.binary);
  // header 20 bytes, no symbols, program header 20 bytes, then bundle 0: count, then op 0.
  const size_t bundle0 = 20 + 20, op0 = bundle0 + 1;
  auto corrupt = [&](size_t at, const std::string& bytes) {
    std::string b = good;
    b.replace(at, bytes.size(), bytes);
    try {
      decodeBinary(b, "p.bin");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(corrupt(0, "X").find("bad magic"), std::string::npos);
  EXPECT_NE(corrupt(8, std::string("\x02", 1)).find("version 2"), std::string::npos);
  EXPECT_NE(corrupt(op0, std::string("\xff\x00", 2)).find("program 0 bundle 0: unknown opcode"),
            std::string::npos);
  EXPECT_NE(
      corrupt(op0 + 2, std::string("\x02", 1)).find("bundle 0: li does not take element type"),
      std::string::npos);
  EXPECT_NE(
      corrupt(op0 + 3, std::string("\x05", 1)).find("bundle 0: li has 5 operands, expected 2"),
      std::string::npos);
  EXPECT_NE(corrupt(op0 + 4 + 8, std::string("\x70", 1)).find("operand 'rd' uses register"),
            std::string::npos);
  EXPECT_NE(corrupt(op0 + 4 + 16 + 12, std::string("\x05\x00\x00\x00", 4))
                .find("operand 'a' refers to symbol 5 of 0"),
            std::string::npos);
  EXPECT_NE(corrupt(bundle0, std::string("\x00", 1)).find("bundle 0: 0 operations"),
            std::string::npos);
  // Two vld in one bundle.
  Job two = assembled(".kernel k\n.program cores=all\n    vld.f32 v0, 0 | vst.f32 v0, 0\n.end\n");
  std::string b = encodeBinary(two.binary);
  size_t second = op0 + 4 + 5 * 16; // vld has 5 operands; make the vst a second vld

  b[second] = static_cast<char>(static_cast<int>(Opcode::Vld));
  b[second + 1] = 0;
  try {
    decodeBinary(b, "p.bin");
    ADD_FAILURE() << "two vld accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two operations for the vld slot"), std::string::npos)
        << e.what();
  }
}

TEST(TpuPlan, JsonRoundTripAndErrors) {
  Job job = assembled(kSample);
  std::string json = planToJson(job.plan);
  EXPECT_TRUE(parsePlan(json, "job.plan") == job.plan);
  auto errorFor = [&](const std::string& from, const std::string& to) {
    std::string t = json;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    try {
      parsePlan(t, "job.plan");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(errorFor("\"format\": \"tpuprog\"", "\"format\": \"spyrecode\"").find("use spyre-sim"),
            std::string::npos);
  EXPECT_NE(errorFor("\"version\": 1", "\"version\": 2").find("version: unsupported version 2"),
            std::string::npos);
  EXPECT_NE(errorFor("\"dtype\": \"f32\"", "\"dtype\": \"f16\"").find("arguments[0].dtype"),
            std::string::npos);
  EXPECT_NE(errorFor("\"placement\": \"replicated\"", "\"placement\": \"sharded\"")
                .find("arguments[0].placement: expected replicated or split"),
            std::string::npos);
  EXPECT_NE(errorFor("\"tile\": [\n        8,\n        128\n      ]", "\"tile\": [0, 1]")
                .find("arguments[0].tile"),
            std::string::npos);
  EXPECT_NE(errorFor("\"kernel\"", "\"kernal\"").find("kernal: unknown field"), std::string::npos);
  EXPECT_NE(errorFor("\"direction\": 0", "\"direction\": 7").find("execute[0].direction"),
            std::string::npos);
  EXPECT_NE(errorFor("\"host_handle\": \"X\"", "\"host_handle\": \"Q\"")
                .find("'Q' is not a tensor argument"),
            std::string::npos);
  std::string msg = errorFor("{", "{,");
  EXPECT_NE(msg.find("job.plan:1: malformed JSON"), std::string::npos) << msg;
}

TEST(TpuPlan, TrapMessagesAreOneLineOfText) {
  Job job = assembled(std::string(kSample) + ".trap 7 \"stop \xE2\x80\x94 too big\"\n");
  ASSERT_EQ(job.plan.traps.size(), 1u);
  std::string json = planToJson(job.plan);
  EXPECT_TRUE(parsePlan(json, "job.plan") == job.plan);
  // A message the assembler would refuse is refused in a plan too (it would not disassemble).
  std::string bad = json;
  bad.replace(bad.find("stop"), 4, "st\\u0001p");
  try {
    parsePlan(bad, "job.plan");
    ADD_FAILURE() << "accepted a control character in a trap message";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("traps[0].message: expected one line of text"),
              std::string::npos)
        << e.what();
  }
}

TEST(TpuDirectory, WriteReadAndSymbolChecks) {
  fs::path dir = fs::temp_directory_path() / ("chipless_tpuprog_" + std::to_string(getpid()));
  fs::remove_all(dir);
  Job job = assembled(kSample);
  job.arch.reset(); // a job without an architecture record (arch_record_test has those)
  writeJob(dir.string(), job);
  Job back = readJob((dir / "job.plan").string());
  EXPECT_TRUE(back.plan == job.plan);
  EXPECT_TRUE(back.binary == job.binary);
  // A binary whose symbol the plan does not declare.
  Job other = job;
  other.binary.symbols.push_back("ghost");
  writeFileAtomically((dir / "program.bin").string(), encodeBinary(other.binary));
  try {
    readJob((dir / "job.plan").string());
    ADD_FAILURE() << "undeclared symbol accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("symbol '@ghost'"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

} // namespace
} // namespace chipless::tpuprog

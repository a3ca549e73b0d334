#pragma once
/// What makes SpyreCode SpyreCode for the toolchain both formats share
/// (support/progformat/isa_table.h lists the members): the opcode table, the register and
/// port names, and the program shape: one program per engine (unit, corelet, core range)
/// holding a stream of instructions. Only support/spyrecode's sources include this; the rest
/// of the tree uses the public headers beside it.
#include "support/progformat/chip_traits.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/binary.h"

namespace chipless::spyrecode {

/// SpyreCode's traits (support/progformat/isa_table.h).
struct Traits : progformat::IsaTraits<OpcodeInfo, opcodeTable, registerNames> {
  using As = progformat::Assembler<Traits>; ///< the shared assembler over these traits

  // ---- the ISA table (isa.cpp: opcodes with the units that run them; r0..r15, core, ...)
  /// f16, bf16, f32, i32: what tensors and suffixes may be.
  static constexpr uint32_t kElementTypes =
      progformat::dtypeBit(DType::F16) | progformat::dtypeBit(DType::BF16) |
      progformat::dtypeBit(DType::F32) | progformat::dtypeBit(DType::I32);
  /// ring.send without a suffix moves f16.
  static constexpr DType kDefaultDtype = DType::F16;
  /// An op is an instruction; a program counts instructions, by pc; symbols ARG.dK only.
  static constexpr const char *kOpNoun = "instruction", *kStepNoun = "instruction", *kPcNoun = "pc",
                              *kDimLetters = "d";
  /// Port operands: "in0", "out1", "v3", "none".
  static bool parseValue(Kind, std::string_view text, int64_t& value) {
    return parsePort(text, value);
  }
  /// A Port operand as assembly.
  static std::string formatValue(Kind, int64_t value) { return portName(value); }
  /// Whether `value` encodes a port.
  static bool validValue(Kind, int64_t value) {
    int64_t back = 0;
    return parsePort(portName(value), back) && back == value;
  }
  /// What a Port operand must be, for errors.
  static std::string expectedText(Kind) { return "in0.., out0.., v0.. or none"; }

  // ---- the program shape: one engine's stream of instructions -------------------------
  static constexpr bool kBundles = false;             ///< a step is one instruction
  static constexpr size_t kMaxOpsPerStep = 1;         ///< (bundles only)
  using Program = spyrecode::Program;                 ///< one engine's program
  using Step = Instruction;                           ///< one instruction
  using JobBinary = spyrecode::JobBinary;             ///< init.bin
  using JobPlan = spyrecode::JobPlan;                 ///< job.plan
  using TensorArg = spyrecode::TensorArg;             ///< with its layout
  using Job = spyrecode::Job;                         ///< plan, binary, architecture
  using AssembleOptions = spyrecode::AssembleOptions; ///< program segment, alignment
  /// The instructions of a program.
  static std::vector<Step>& steps(Program& p) { return p.code; }
  /// The instructions of a program.
  static const std::vector<Step>& steps(const Program& p) { return p.code; }
  /// An instruction as a step of one op.
  static progformat::OpSpan<Op> ops(Step& s) { return {&s, 1}; }
  /// An instruction as a step of one op.
  static progformat::OpSpan<const Op> ops(const Step& s) { return {&s, 1}; }
  /// The step a line's one instruction makes.
  static Step makeStep(std::vector<Op> ops) { return std::move(ops[0]); }
  /// "sfu.add cannot run on the load unit", or "".
  static std::string placementError(const OpcodeInfo& info, const Program& p) {
    if (info.unitMask & (1u << static_cast<unsigned>(p.unit))) return "";
    return std::string(info.mnemonic) + " cannot run on the " + unitName(p.unit) + " unit";
  }
  /// Instruction streams have no rule per step.
  static std::string stepError(const Step&, const AssembleOptions*) { return ""; }

  // ---- assembly: `.program UNIT cores=F-L [corelet=K]`, `.input ... [row_major]` ----------
  static constexpr const char* kExtraDirectives = ""; ///< none beyond the shared ones
  /// SpyreCode has no directives of its own.
  static bool directive(As&, const std::string&, const std::string&) { return false; }
  /// The optional words after a tensor's shape: its layout, `stick` (the default) or
  /// `row_major`, and `padded_rows=N` (stick layout).
  static void argOptions(As& as, const std::string& word, TensorArg& a, const std::string& text) {
    std::istringstream after(text);
    std::string option;
    bool layoutSeen = false;
    while (after >> option) {
      if (option.rfind("padded_rows=", 0) == 0) {
        a.paddedRows = as.constantExpr(option.substr(12), "padded_rows");
        if (a.paddedRows <= 0)
          as.fail(word + " " + a.name + ": padded_rows must be positive (got " +
                  option.substr(12) + ")");
        continue;
      }
      if (layoutSeen || !parseLayout(option, a.layout))
        as.fail(word + " " + a.name + ": unexpected '" + option +
                "' after the shape (expected stick, row_major or padded_rows=N)");
      layoutSeen = true;
    }
    if (a.paddedRows && a.layout != Layout::Stick)
      as.fail(word + " " + a.name + ": padded_rows applies to the stick layout only");
  }
  /// The unit word that starts a .program line.
  static Program programStart(As& as, std::istringstream& words) {
    std::string unit;
    words >> unit;
    Program p;
    if (!parseUnit(unit, p.unit))
      as.fail("unknown unit '" + unit + "' (expected dma_in, dma_out, ring, load, compute, store)");
    return p;
  }
  /// The keys a .program line may have, for errors.
  static constexpr const char* kProgramKeys = "cores= and, for corelet units, corelet=";
  /// cores= and, for corelet units, corelet=; false for any other key.
  static bool programKey(As& as, Program& p, const std::string& key, const std::string& value) {
    if (key == "cores") {
      as.parseRange("cores", "core", value, p.coreFirst, p.coreLast);
      return true;
    }
    if (key != "corelet") return false;
    if (!isCoreletUnit(p.unit))
      as.fail("corelet= only applies to load, compute and store programs");
    int64_t corelet = value == "all" ? -1 : as.constantExpr(value, "corelet");
    if (corelet < -1 || corelet > 127) as.fail("bad corelet '" + value + "'"); // int8 in init.bin
    p.corelet = static_cast<int32_t>(corelet);
    return true;
  }
  /// cores= is required.
  static void programEnd(As& as, const Program&, const std::set<std::string>& keys) {
    if (!keys.count("cores")) as.fail(".program needs cores=FIRST-LAST or cores=all");
  }

  // ---- disassembly --------------------------------------------------------------------
  static constexpr const char* kTitle = "SpyreCode job"; ///< the first comment's words
  /// " row_major" for row-major tensors, " padded_rows=N" for padded stick columns.
  static std::string argSuffix(const TensorArg& a) {
    if (a.layout == Layout::RowMajor) return " row_major";
    return a.paddedRows ? " padded_rows=" + std::to_string(a.paddedRows) : "";
  }
  /// No directives of its own.
  static std::string planDirectives(const JobPlan&) { return ""; }
  /// "compute cores=0-31 corelet=all".
  static std::string programHeader(const Program& p) {
    std::string s = std::string(unitName(p.unit)) +
                    " cores=" + progformat::formatRange(p.coreFirst, p.coreLast);
    if (isCoreletUnit(p.unit))
      s += " corelet=" + (p.corelet < 0 ? std::string("all") : std::to_string(p.corelet));
    return s;
  }

  // ---- init.bin -----------------------------------------------------------------------
  static constexpr char kBinaryMagic[8] = "SPYRBIN";                  ///< the file's first 8 bytes
  static constexpr uint32_t kBinaryVersion = 1;                       ///< written and required
  static constexpr const char* kBinaryTitle = "SpyreCode job binary"; ///< in errors
  /// u8 unit, i8 corelet, u16 0, i32 first core, i32 last core.
  static void writeProgramHeader(ByteWriter& w, const Program& p) {
    w.put<uint8_t>(static_cast<uint8_t>(p.unit));
    w.put<int8_t>(static_cast<int8_t>(p.corelet));
    w.put<uint16_t>(0);
    progformat::writeRange(w, p.coreFirst, p.coreLast);
  }
  /// Reads and checks what writeProgramHeader wrote.
  static void readProgramHeader(ByteReader& r, const std::string& where, Program& p) {
    auto unit = r.get<uint8_t>("a program header");
    if (unit >= kUnitCount) r.fail(where + ": unknown unit " + std::to_string(unit));
    p.unit = static_cast<Unit>(unit);
    p.corelet = r.get<int8_t>("a program header");
    r.get<uint16_t>("a program header");
    progformat::readRange(r, where, "core", p.coreFirst, p.coreLast);
    if (p.corelet < -1) r.fail(where + ": bad corelet " + std::to_string(p.corelet));
  }
  /// "program 1 (compute) pc 2".
  static std::string location(const std::string& where, const Program& p, size_t pc) {
    return where + " (" + unitName(p.unit) + ") pc " + std::to_string(pc);
  }

  // ---- job.plan and the directory -----------------------------------------------------
  static constexpr const char* kPlanFormat = "spyrecode"; ///< the plan's "format"
  /// A tensor's own fields: its layout and its padded rows.
  static std::vector<const char*> argKeys() { return {"layout", "padded_rows"}; }
  /// Reads "layout" (optional, default stick) and "padded_rows" (optional, stick only).
  static void readArgFields(const JsonFields& r, TensorArg& a) {
    if (r.has("layout") && !parseLayout(r.str("layout"), a.layout))
      r.failField("layout", "expected \"stick\" or \"row_major\", got '" + r.str("layout") + "'");
    if (r.has("padded_rows")) {
      a.paddedRows = r.integer("padded_rows");
      if (a.paddedRows <= 0) r.failField("padded_rows", "must be positive");
      if (a.layout != Layout::Stick) r.failField("padded_rows", "applies to the stick layout only");
    }
  }
  /// Writes "layout" and, when set, "padded_rows".
  static void argFieldsToJson(const TensorArg& a, nlohmann::json& j) {
    j["layout"] = layoutName(a.layout);
    if (a.paddedRows) j["padded_rows"] = a.paddedRows;
  }
  /// No plan fields of its own.
  static std::vector<const char*> planKeys() { return {}; }
  /// No plan fields of its own.
  static void readPlanFields(const JsonFields&, const std::string&, JobPlan&) {}
  /// No plan fields of its own.
  static void planFieldsToJson(const JobPlan&, nlohmann::json&) {}
  /// What arch.yaml is read against.
  static const std::vector<ParamDecl>& archSchema() { return SpyreArch::schema(); }
};

} // namespace chipless::spyrecode

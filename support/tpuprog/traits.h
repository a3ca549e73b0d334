#pragma once
/// What makes a TPU program a TPU program for the toolchain both formats share
/// (support/progformat/isa_table.h lists the members): the opcode table, the scalar and
/// vector register names, and the program shape: one program per (chip range, core range)
/// holding VLIW bundles of operations with slot rules. Only support/tpuprog's sources
/// include this; the rest of the tree uses the public headers beside it.
#include "support/progformat/chip_traits.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/binary.h"

namespace chipless::tpuprog {

/// The TPU's traits (support/progformat/isa_table.h).
struct Traits : progformat::IsaTraits<OpcodeInfo, opcodeTable, registerNames> {
  using As = progformat::Assembler<Traits>; ///< the shared assembler over these traits

  // ---- the ISA table (isa.cpp: operations with their slots; s0..s63, core, ncores, ...) --
  /// bf16, f32, i32, i8 (no f16): what tensors and suffixes may be.
  static constexpr uint32_t kElementTypes =
      progformat::dtypeBit(DType::BF16) | progformat::dtypeBit(DType::F32) |
      progformat::dtypeBit(DType::I32) | progformat::dtypeBit(DType::I8);
  /// No TPU opcode has an optional suffix.
  static constexpr DType kDefaultDtype = DType::F32;
  /// An op is an operation of a bundle; programs count and index bundles; symbols ARG.dK
  /// and the padded ARG.pK.
  static constexpr const char *kOpNoun = "operation", *kStepNoun = "bundle", *kPcNoun = "bundle",
                              *kDimLetters = "dp";
  /// VReg operands: "v7".
  static bool parseValue(Kind, std::string_view text, int64_t& value) {
    return parseVReg(text, value);
  }
  /// A VReg operand as assembly.
  static std::string formatValue(Kind, int64_t value) { return vregName(value); }
  /// Whether `value` numbers a vector register the format allows.
  static bool validValue(Kind, int64_t value) { return value >= 0 && value < kMaxVRegs; }
  /// What a VReg operand must be, for errors.
  static std::string expectedText(Kind) {
    return "a vector register v0..v" + std::to_string(kMaxVRegs - 1);
  }

  // ---- the program shape: bundles of operations, one per slot -------------------------
  static constexpr bool kBundles = true;                     ///< a step is a bundle
  static constexpr size_t kMaxOpsPerStep = kMaxOpsPerBundle; ///< operations in one bundle
  using Program = tpuprog::Program;                          ///< one (chips, cores) program
  using Step = Bundle;                                       ///< one VLIW bundle
  using JobBinary = tpuprog::JobBinary;                      ///< program.bin
  using JobPlan = tpuprog::JobPlan;                          ///< job.plan, with traps
  using TensorArg = tpuprog::TensorArg;                      ///< with tile and placement
  using Job = tpuprog::Job;                                  ///< plan, binary, architecture
  using AssembleOptions = tpuprog::AssembleOptions;          ///< alignment, bundle width
  /// The bundles of a program.
  static std::vector<Step>& steps(Program& p) { return p.bundles; }
  /// The bundles of a program.
  static const std::vector<Step>& steps(const Program& p) { return p.bundles; }
  /// A bundle's operations.
  static progformat::OpSpan<Op> ops(Step& b) { return {b.ops.data(), b.ops.size()}; }
  /// A bundle's operations.
  static progformat::OpSpan<const Op> ops(const Step& b) { return {b.ops.data(), b.ops.size()}; }
  /// The bundle of a line's operations.
  static Step makeStep(std::vector<Op> ops) { return Bundle{std::move(ops)}; }
  /// Any slot issues anywhere: "".
  static std::string placementError(const OpcodeInfo&, const Program&) { return ""; }
  /// The slot rules, with the architecture's scalar.slots when assembling and the
  /// format's bound when decoding (`options` null).
  static std::string stepError(const Step& b, const AssembleOptions* options) {
    return checkBundleSlots(b, options ? options->scalarSlots : kMaxScalarSlots);
  }

  // ---- assembly: `.program [chips=F-L] [cores=F-L]`, `.input ... [tile=RxC] [placement=split]`
  static constexpr const char* kExtraDirectives = ".trap"; ///< what trap codes mean
  /// `.trap CODE "MESSAGE"`; false for any other word.
  static bool directive(As& as, const std::string& word, const std::string& rest) {
    if (word != ".trap") return false;
    size_t q = rest.find('"');
    if (q == std::string::npos || rest.size() < q + 2 || rest.back() != '"')
      as.fail(".trap CODE \"message\": the message goes in double quotes");
    std::string message = rest.substr(q + 1, rest.size() - q - 2);
    if (message.empty() || message.find('"') != std::string::npos)
      as.fail(".trap: the message must be non-empty and hold no double quote");
    if (!asmtext::isMessageText(message))
      as.fail(".trap: the message must be UTF-8 text without control characters");
    TrapMessage t{as.constantExpr(asmtext::trim(rest.substr(0, q)), ".trap code"), message};
    for (const auto& other : as.plan().traps)
      if (other.code == t.code) as.fail(".trap " + std::to_string(t.code) + " given twice");
    as.plan().traps.push_back(t);
    return true;
  }
  /// tile=ROWSxCOLS and placement=split|replicated after a tensor's shape.
  static void argOptions(As& as, const std::string& word, TensorArg& a, const std::string& text) {
    std::istringstream opts(text);
    std::string tok;
    while (opts >> tok) {
      auto eq = tok.find('=');
      std::string key = tok.substr(0, eq),
                  value = eq == std::string::npos ? "" : tok.substr(eq + 1);
      if (key == "tile" && !value.empty()) {
        auto x = value.find('x');
        if (x == std::string::npos)
          as.fail(word + " " + a.name + ": tile=ROWSxCOLS, got '" + value + "'");
        a.tile[0] = as.constantExpr(value.substr(0, x), "tile rows");
        a.tile[1] = as.constantExpr(value.substr(x + 1), "tile columns");
        if (a.tile[0] <= 0 || a.tile[1] <= 0 || a.tile[0] > (1 << 20) || a.tile[1] > (1 << 20))
          as.fail(word + " " + a.name + ": tile sizes must be positive, got '" + value + "'");
      } else if (key == "placement" && (value == "split" || value == "replicated")) {
        a.placement = value == "split" ? Placement::Split : Placement::Replicated;
      } else {
        as.fail(word + " " + a.name + ": unknown option '" + tok +
                "' (expected tile=ROWSxCOLS or placement=split|replicated)");
      }
    }
  }
  /// No leading word: every chip and core by default.
  static Program programStart(As&, std::istringstream&) { return Program{}; }
  /// The keys a .program line may have, for errors.
  static constexpr const char* kProgramKeys = "cores= and chips=";
  /// cores= and chips=; false for any other key.
  static bool programKey(As& as, Program& p, const std::string& key, const std::string& value) {
    if (key == "cores") as.parseRange(key, "core", value, p.coreFirst, p.coreLast);
    if (key == "chips") as.parseRange(key, "chip", value, p.chipFirst, p.chipLast);
    return key == "cores" || key == "chips";
  }
  /// Both ranges are optional.
  static void programEnd(As&, const Program&, const std::set<std::string>&) {}

  // ---- disassembly --------------------------------------------------------------------
  static constexpr const char* kTitle = "TPU program"; ///< the first comment's words
  /// " tile=8x128", " placement=split" where they are not the defaults.
  static std::string argSuffix(const TensorArg& a) {
    std::string s;
    if (a.tile[0] != 1 || a.tile[1] != 1)
      s += " tile=" + std::to_string(a.tile[0]) + "x" + std::to_string(a.tile[1]);
    if (a.placement == Placement::Split) s += " placement=split";
    return s;
  }
  /// The .trap lines.
  static std::string planDirectives(const JobPlan& plan) {
    std::string s;
    for (const auto& t : plan.traps)
      s += ".trap " + std::to_string(t.code) + " \"" + t.message + "\"\n";
    return s;
  }
  /// "chips=all cores=0-1".
  static std::string programHeader(const Program& p) {
    return "chips=" + progformat::formatRange(p.chipFirst, p.chipLast) +
           " cores=" + progformat::formatRange(p.coreFirst, p.coreLast);
  }

  // ---- program.bin --------------------------------------------------------------------
  static constexpr char kBinaryMagic[8] = "TPUPROG";                ///< the file's first 8 bytes
  static constexpr uint32_t kBinaryVersion = 1;                     ///< written and required
  static constexpr const char* kBinaryTitle = "TPU program binary"; ///< in errors
  /// The chip range, then the core range.
  static void writeProgramHeader(ByteWriter& w, const Program& p) {
    progformat::writeRange(w, p.chipFirst, p.chipLast);
    progformat::writeRange(w, p.coreFirst, p.coreLast);
  }
  /// Reads and checks what writeProgramHeader wrote.
  static void readProgramHeader(ByteReader& r, const std::string& where, Program& p) {
    progformat::readRange(r, where, "chip", p.chipFirst, p.chipLast);
    progformat::readRange(r, where, "core", p.coreFirst, p.coreLast);
  }
  /// "program 0 bundle 3".
  static std::string location(const std::string& where, const Program&, size_t pc) {
    return where + " bundle " + std::to_string(pc);
  }

  // ---- job.plan and the directory -----------------------------------------------------
  static constexpr const char* kPlanFormat = tpuprog::kPlanFormat; ///< "tpuprog"
  /// A tensor's own fields: its tile and placement.
  static std::vector<const char*> argKeys() { return {"tile", "placement"}; }
  /// Reads "tile" and "placement" (both optional).
  static void readArgFields(const JsonFields& r, TensorArg& a) {
    if (r.has("tile")) {
      const nlohmann::json& t = r.raw("tile");
      if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() ||
          !t[1].is_number_integer() || t[0].get<int64_t>() <= 0 || t[1].get<int64_t>() <= 0 ||
          t[0].get<int64_t>() > (1 << 20) || t[1].get<int64_t>() > (1 << 20))
        r.failField("tile", "expected [rows, cols] of two positive sizes, got " + t.dump());
      a.tile[0] = t[0].get<int64_t>();
      a.tile[1] = t[1].get<int64_t>();
    }
    if (r.has("placement")) {
      std::string p = r.str("placement");
      if (p != "replicated" && p != "split")
        r.failField("placement", "expected replicated or split, got '" + p + "'");
      a.placement = p == "split" ? Placement::Split : Placement::Replicated;
    }
  }
  /// Writes "tile" and "placement".
  static void argFieldsToJson(const TensorArg& a, nlohmann::json& j) {
    j["tile"] = {a.tile[0], a.tile[1]};
    j["placement"] = placementName(a.placement);
  }
  /// The plan's own field: the trap messages.
  static std::vector<const char*> planKeys() { return {"traps"}; }
  /// Reads "traps" (optional): [{"code": N, "message": "..."}], codes unique.
  static void readPlanFields(const JsonFields& r, const std::string& path, JobPlan& plan) {
    if (!r.has("traps")) return;
    const nlohmann::json& traps = r.raw("traps");
    if (!traps.is_array()) r.failField("traps", "expected an array");
    for (size_t i = 0; i < traps.size(); ++i) {
      JsonFields t(traps[i], path, indexedField("traps", i));
      t.only({"code", "message"});
      TrapMessage m{t.integer("code"), t.str("message")};
      if (m.message.empty() || m.message.find('"') != std::string::npos ||
          !asmtext::isMessageText(m.message))
        t.failField("message", "expected one line of text without double quotes or control "
                               "characters (the assembler's .trap message)");
      for (const auto& other : plan.traps)
        if (other.code == m.code)
          t.failField("code", "code " + std::to_string(m.code) + " is given twice");
      plan.traps.push_back(m);
    }
  }
  /// Writes "traps" when there are any.
  static void planFieldsToJson(const JobPlan& plan, nlohmann::json& root) {
    if (plan.traps.empty()) return;
    nlohmann::json traps = nlohmann::json::array();
    for (const auto& t : plan.traps) traps.push_back({{"code", t.code}, {"message", t.message}});
    root["traps"] = traps;
  }
  /// What arch.yaml is read against.
  static const std::vector<ParamDecl>& archSchema() { return TpuArch::schema(); }
};

} // namespace chipless::tpuprog

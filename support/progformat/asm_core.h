#pragma once
/// The one assembler of both program formats: lines, labels, the directives both have
/// (.kernel, .input/.output/.inout, .scalar, .buffer, .equ, .program, .end), operations with
/// their element-type suffix and positional or name=value operands, loops, symbols, and the
/// job it all makes. What differs per chip comes from `Chip` (isa_table.h) and these hooks:
///
///   kExtraDirectives, directive(as, word, rest)   the chip's own directives (TPU: .trap)
///   argOptions(as, word, arg, text)               what may follow a tensor's shape
///   programStart(as, words), programKey(as, program, key, value), kProgramKeys,
///   programEnd(as, program, keys)                 the words of a .program line
///
/// Errors throw chipless::Error as "file:line: message", in one wording on both chips
/// (with the chip's nouns: "unknown instruction" / "unknown operation").
#include "support/progformat/asm_source.h"
#include "support/progformat/binary_codec.h"
#include "support/progformat/isa_table.h"
#include "support/progformat/operand.h"
#include "support/progformat/plan.h"
#include "support/progformat/symbols.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace chipless::progformat {

/// Assembles one source file for chip `Chip`; run() returns the job.
template <typename Chip>
class Assembler : public asmtext::AsmSource {
public:
  using Job = typename Chip::Job;                 ///< what run() returns
  using Plan = typename Chip::JobPlan;            ///< the job's plan
  using Program = typename Chip::Program;         ///< one .program block
  using Step = typename Chip::Step;               ///< one line of code
  using Op = typename Chip::Op;                   ///< one op of a step
  using Info = typename Chip::OpcodeInfo;         ///< an opcode's table entry
  using Options = typename Chip::AssembleOptions; ///< placement and bundle width

  /// `path` names the source in errors; `options` place the job and bound its bundles.
  Assembler(const std::string& path, const Options& options) : AsmSource(path), options_(options) {}

  /// Assembles `text`: the plan (with the standard steps) and the binary.
  Job run(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
      line_ = ++line;
      std::string s = asmtext::stripComment(raw);
      if (!s.empty()) handleLine(s);
    }
    line_ = line;
    checkScalarDims(job_.plan.scalars);
    if (inProgram_)
      fail("program started at line " + std::to_string(programLine_) + " has no .end");
    if (job_.plan.kernel.empty()) fail("missing .kernel NAME directive", 1);
    if (job_.binary.programs.empty()) fail("no .program in the file", 1);
    for (const auto& p : pendingLabels_) {
      auto& labels = labels_[p.program];
      auto it = labels.find(p.label);
      if (it == labels.end())
        fail("undefined label '" + p.label + "' (labels are local to their .program)", p.line);
      Step& step = Chip::steps(job_.binary.programs[p.program])[p.step];
      Chip::ops(step)[p.op].operands[p.operand].imm = static_cast<int64_t>(it->second);
    }
    addStandardSteps(job_.plan, options_.programPtr,
                     static_cast<int64_t>(encodeBinary<Chip>(job_.binary).size()),
                     options_.alignment);
    job_.arch = options_.arch;
    return std::move(job_);
  }

  /// The plan being built (for the chip's directives).
  Plan& plan() { return job_.plan; }
  /// The options the job is assembled with.
  const Options& options() const { return options_; }

  /// "all", "3" or "0-15" of .program key `key` into [first, last]; `noun` names the range
  /// in errors ("bad core range '5-2'").
  void parseRange(const std::string& key, const char* noun, const std::string& value,
                  int32_t& first, int32_t& last) const {
    if (value == "all") {
      first = 0;
      last = kThroughLast;
      return;
    }
    auto dash = value.find('-');
    int64_t f = constantExpr(value.substr(0, dash), key);
    int64_t l = dash == std::string::npos ? f : constantExpr(value.substr(dash + 1), key);
    if (f < 0 || l < f || l > kThroughLast)
      fail(std::string("bad ") + noun + " range '" + value + "'");
    first = static_cast<int32_t>(f);
    last = static_cast<int32_t>(l);
  }

private:
  /// A label operand waiting for the end of its program.
  struct PendingLabel {
    size_t program, step, op, operand;
    std::string label;
    int line;
  };

  /// The program being read.
  Program& program() { return job_.binary.programs.back(); }

  /// One line without its comment: a label, a directive or a step.
  void handleLine(std::string s) {
    // Labels: "name:" possibly followed by a step.
    size_t colon = s.find(':');
    if (colon != std::string::npos && asmtext::isName(asmtext::trim(s.substr(0, colon))) &&
        s.find('=') > colon) {
      std::string label = asmtext::trim(s.substr(0, colon));
      if (!inProgram_) fail("label '" + label + "' outside a .program");
      auto& labels = labels_[job_.binary.programs.size() - 1];
      if (labels.count(label)) fail("label '" + label + "' defined twice in this program");
      labels[label] = Chip::steps(program()).size();
      s = asmtext::trim(s.substr(colon + 1));
      if (s.empty()) return;
    }
    if (s[0] == '.') return directive(s);
    if (!inProgram_) fail(std::string(Chip::kOpNoun) + " outside a .program ... .end block");
    step(s);
  }

  // ---- directives -------------------------------------------------------------------

  /// A line starting with '.'.
  void directive(const std::string& s) {
    std::string word = s.substr(0, s.find_first_of(" \t"));
    std::string rest = asmtext::trim(s.substr(word.size()));
    if (inProgram_ && word != ".end") fail(word + " inside a .program (missing .end?)");
    if (word == ".kernel") {
      if (!asmtext::isIdentifier(rest)) fail(".kernel needs a name");
      if (!job_.plan.kernel.empty()) fail(".kernel given twice");
      job_.plan.kernel = rest;
    } else if (word == ".input" || word == ".output" || word == ".inout") {
      tensorArg(word, rest);
    } else if (word == ".scalar") {
      job_.plan.scalars.push_back(scalarDirective(rest));
    } else if (word == ".buffer") {
      std::istringstream in(rest);
      std::string name, size;
      in >> name >> size;
      if (!asmtext::isName(name) || size.empty()) fail(".buffer needs a name and a size in bytes");
      declare(name);
      int64_t v = constantExpr(size, ".buffer size");
      if (v <= 0) fail(".buffer size must be positive");
      job_.plan.buffers.push_back({name, v});
    } else if (word == ".equ") {
      defineEqu(rest);
    } else if (word == ".program") {
      beginProgram(rest);
    } else if (word == ".end") {
      if (!inProgram_) fail(".end without .program");
      if (!loopStack_.empty())
        fail("loop opened at line " + std::to_string(loopStack_.back().second) + " has no endloop");
      inProgram_ = false;
    } else if (!Chip::directive(*this, word, rest)) {
      std::string extra = Chip::kExtraDirectives;
      fail("unknown directive '" + word +
           "' (expected .kernel, .input, .output, .inout, .scalar, " + ".buffer, " +
           (extra.empty() ? "" : extra + ", ") + ".equ, .program, .end)");
    }
  }

  /// .input NAME DTYPE [d0, d1, ...] followed by the chip's argument options.
  void tensorArg(const std::string& word, const std::string& rest) {
    size_t lb = rest.find('['), rb = rest.find(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb)
      fail(word + " NAME DTYPE [dims]: missing the shape in brackets");
    std::istringstream in(rest.substr(0, lb));
    std::string name, dt, extra;
    in >> name >> dt >> extra;
    if (!asmtext::isName(name)) fail(word + " needs a name");
    if (!extra.empty()) fail(word + " " + name + ": unexpected '" + extra + "' before the shape");
    auto dtype = parseDType(dt);
    if (!dtype || !(Chip::kElementTypes & dtypeBit(*dtype)))
      fail(word + " " + name + ": unknown element type '" + dt + "' (expected " +
           dtypeListText(Chip::kElementTypes) + ")");
    typename Chip::TensorArg a;
    a.name = name;
    a.dtype = *dtype;
    a.role = word == ".input"    ? ArgRole::Input
             : word == ".output" ? ArgRole::Output
                                 : ArgRole::InOut;
    for (const auto& d : asmtext::splitTop(rest.substr(lb + 1, rb - lb - 1), ',')) {
      if (d.empty()) fail(word + " " + name + ": empty dimension");
      if (asmtext::isName(d) && !isEqu(d)) {
        a.shape.push_back(d);
        useScalarDim(d);
      } else {
        int64_t v = constantExpr(d, "dimension");
        if (v <= 0) fail(word + " " + name + ": dimensions must be positive, got " + d);
        a.shape.push_back(v);
      }
    }
    if (a.shape.empty()) fail(word + " " + name + ": a tensor needs at least one dimension");
    Chip::argOptions(*this, word, a, rest.substr(rb + 1));
    declare(name);
    job_.plan.args.push_back(a);
  }

  /// `.program ...`: the chip's words, then key=value pairs.
  void beginProgram(const std::string& rest) {
    std::istringstream in(rest);
    Program p = Chip::programStart(*this, in);
    std::set<std::string> keys;
    std::string tok;
    while (in >> tok) {
      auto eq = tok.find('=');
      if (eq == std::string::npos) fail(".program: expected key=value, got '" + tok + "'");
      std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (!Chip::programKey(*this, p, key, value))
        fail(".program: unknown key '" + key + "' (expected " + Chip::kProgramKeys + ")");
      keys.insert(key);
    }
    Chip::programEnd(*this, p, keys);
    job_.binary.programs.push_back(p);
    labels_.emplace_back();
    loopStack_.clear();
    inProgram_ = true;
    programLine_ = line_;
  }

  // ---- steps ------------------------------------------------------------------------

  /// One line of code: an op, or on bundle chips ops separated by '|'.
  void step(const std::string& s) {
    const size_t pc = Chip::steps(program()).size();
    std::vector<std::string> parts = {s};
    if constexpr (Chip::kBundles) parts = asmtext::splitTop(s, '|');
    std::vector<Op> parsed;
    for (const auto& part : parts) {
      if (part.empty()) fail("empty " + std::string(Chip::kOpNoun) + " in bundle '" + s + "'");
      parsed.push_back(operation(part, pc, parsed.size()));
    }
    Step st = Chip::makeStep(std::move(parsed));
    if (std::string why = Chip::stepError(st, &options_); !why.empty()) fail(why);
    for (Op& op : Chip::ops(st)) {
      if (op.op == Chip::Opcode::Loop) loopStack_.push_back({pc, line_});
      if (op.op == Chip::Opcode::EndLoop) {
        if (loopStack_.empty()) fail("endloop without loop");
        size_t start = loopStack_.back().first;
        loopStack_.pop_back();
        if (start == pc)
          fail(std::string("a loop needs its endloop in a later ") + Chip::kStepNoun);
        // The loop's operand 1 (end) is the step after the endloop; the endloop's operand 0
        // (start) is the loop's step.
        for (Op& l : Chip::ops(Chip::steps(program())[start]))
          if (l.op == Chip::Opcode::Loop) l.operands[1].imm = static_cast<int64_t>(pc + 1);
        op.operands[0].imm = static_cast<int64_t>(start);
      }
    }
    Chip::steps(program()).push_back(std::move(st));
  }

  /// One op: mnemonic with its element-type suffix, then the operands.
  Op operation(const std::string& s, size_t pc, size_t index) {
    size_t sp = s.find_first_of(" \t");
    std::string mnemonic = s.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : asmtext::trim(s.substr(sp));
    const Info* info = Chip::table().find(mnemonic);
    Op op;
    if (!info) {
      // Try splitting off an element type suffix: "sfu.add.f16".
      auto dot = mnemonic.rfind('.');
      if (dot != std::string::npos) {
        info = Chip::table().find(mnemonic.substr(0, dot));
        auto dt = parseDType(mnemonic.substr(dot + 1));
        if (info && !dt)
          fail("unknown element type '" + mnemonic.substr(dot + 1) + "' in '" + mnemonic +
               "' (expected " + dtypeListText(Chip::kElementTypes) + ")");
        if (info) {
          if (info->dtype == DtypeRule::None)
            fail(std::string(info->mnemonic) + " takes no element type suffix");
          if (!(info->dtypeMask & dtypeBit(*dt)))
            fail(std::string(info->mnemonic) + " does not support " + dtypeName(*dt));
          op.dtype = dt;
        }
      }
      if (!info) fail("unknown " + std::string(Chip::kOpNoun) + " '" + mnemonic + "'");
    }
    if (!op.dtype && info->dtype == DtypeRule::Required)
      fail(std::string(info->mnemonic) + " needs an element type suffix, e.g. " + info->mnemonic +
           "." + dtypeName(firstType(info->dtypeMask)));
    if (!op.dtype && info->dtype == DtypeRule::Optional) op.dtype = Chip::kDefaultDtype;
    if (std::string why = Chip::placementError(*info, program()); !why.empty()) fail(why);
    op.op = info->op;

    std::vector<std::optional<Operand>> values(info->operands.size());
    auto parts = rest.empty() ? std::vector<std::string>{} : asmtext::splitTop(rest, ',');
    size_t positional = 0;
    bool sawKeyword = false;
    for (const auto& part : parts) {
      if (part.empty()) fail("empty operand in '" + s + "'");
      auto eq = part.find('=');
      size_t at;
      std::string text;
      if (eq != std::string::npos && asmtext::isName(asmtext::trim(part.substr(0, eq)))) {
        text = asmtext::trim(part.substr(eq + 1));
        at = findOperand(*info, asmtext::trim(part.substr(0, eq)));
        sawKeyword = true;
      } else {
        if (sawKeyword) fail("positional operand '" + part + "' after name=value operands");
        while (positional < info->operands.size() &&
               info->operands[positional].kind == OperandKind::Hidden)
          ++positional;
        if (positional >= info->operands.size()) {
          size_t visible = 0;
          for (const auto& d : info->operands) visible += d.kind != OperandKind::Hidden;
          fail(std::string(info->mnemonic) + " takes at most " + std::to_string(visible) +
               " operands");
        }
        at = positional++;
        text = part;
      }
      if (values[at]) fail("operand '" + std::string(info->operands[at].name) + "' given twice");
      values[at] = parseOperand(*info, at, text, pc, index);
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const OperandDecl& d = info->operands[i];
      if (values[i]) continue;
      if (d.kind == OperandKind::Hidden)
        values[i] = Operand{};
      else if (std::optional<int64_t> def =
                   d.optional ? operandDefault(d, options_.arch) : std::nullopt)
        values[i] = Operand{*def, -1, -1};
      else if (d.optional)
        fail(std::string(info->mnemonic) + ": operand '" + d.name + "' defaults to " +
             d.defaultParam + ", and the assembler was given no architecture; write it");
      else
        fail(std::string(info->mnemonic) + ": missing operand '" + d.name + "'");
    }
    for (auto& v : values) op.operands.push_back(*v);
    return op;
  }

  /// The first element type of `mask` (for the suffix example in errors).
  static DType firstType(uint32_t mask) {
    for (int t = 0; t <= static_cast<int>(DType::I8); ++t)
      if (mask & (1u << t)) return static_cast<DType>(t);
    return DType::F32;
  }

  /// The index of operand `key` of `info`; fails listing the operands.
  size_t findOperand(const Info& info, const std::string& key) const {
    for (size_t i = 0; i < info.operands.size(); ++i)
      if (key == info.operands[i].name && info.operands[i].kind != OperandKind::Hidden) return i;
    std::string list;
    for (const auto& d : info.operands)
      if (d.kind != OperandKind::Hidden) list += (list.empty() ? "" : ", ") + std::string(d.name);
    fail(std::string(info.mnemonic) + " has no operand '" + key +
         "' (operands: " + (list.empty() ? "none" : list) + ")");
  }

  /// Operand `index` of `info` written as `text`, in op `op` of step `pc`.
  Operand parseOperand(const Info& info, size_t index, const std::string& text, size_t pc,
                       size_t op) {
    const OperandDecl& d = info.operands[index];
    std::string what = std::string(info.mnemonic) + " operand '" + d.name + "'";
    Operand o;
    switch (d.kind) {
    case OperandKind::Reg: {
      int r;
      if (!Chip::registers().parse(text, r) || r >= Chip::registers().general)
        fail(what + ": expected " + Chip::registers().generalText() + ", got '" + text + "'");
      o.reg = static_cast<int8_t>(r);
      return o;
    }
    case OperandKind::Port:
    case OperandKind::VReg:
      if (!Chip::parseValue(d.kind, text, o.imm))
        fail(what + ": expected " + Chip::expectedText(d.kind) + ", got '" + text + "'");
      return o;
    case OperandKind::Label:
      if (!asmtext::isName(text)) fail(what + ": expected a label, got '" + text + "'");
      pendingLabels_.push_back({job_.binary.programs.size() - 1, pc, op, index, text, line_});
      return o;
    case OperandKind::Float: {
      if (!text.empty() && text[0] == '@') {
        // A real scalar bound at launch (checkSymbols checks what the symbol names).
        const std::string name = text.substr(1);
        const size_t dot = name.find('.'); // N.f16: an integer scalar as a float
        if (!asmtext::isName(name.substr(0, dot)) ||
            (dot != std::string::npos && !asmtext::isName(name.substr(dot + 1))))
          fail(what + ": expected a number or @scalar, got '" + text + "'");
        o.sym = symbol(name, what);
        if (!isRealScalar(name))
          fail(what + ": '@" + name + "' is not a real scalar (declare it with .scalar " + name +
               " type=f16, bf16 or f32, or write an integer scalar N as @N.f32)");
        return o;
      }
      double v;
      if (text == "inf" || text == "+inf")
        v = INFINITY;
      else if (text == "-inf")
        v = -INFINITY;
      else if (text == "nan")
        v = NAN;
      else {
        char* end = nullptr;
        v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0')
          fail(what + ": expected a number or @scalar, got '" + text + "'");
      }
      std::memcpy(&o.imm, &v, sizeof v);
      return o;
    }
    case OperandKind::Enum:
      for (size_t i = 0; i < d.choices.size(); ++i)
        if (d.choices[i] == text) {
          o.imm = static_cast<int64_t>(i);
          return o;
        }
      {
        std::string list;
        for (const auto& c : d.choices) list += (list.empty() ? "" : ", ") + c;
        fail(what + ": expected one of " + list + ", got '" + text + "'");
      }
    case OperandKind::Expr:
      return AsmSource::expression<Operand>(
          text, what, [](const std::string& t, int& r) { return Chip::registers().parse(t, r); },
          [this](const std::string& n, const std::string& w) {
            if (isRealScalar(n))
              fail(w + ": '@" + n + "' is a real scalar; only a float operand can take it");
            return symbol(n, w);
          });
    case OperandKind::Hidden:
      fail(what + " is set by the assembler");
    }
    return o;
  }

  /// Whether `name` is a real value: a scalar declared with a float type, or an integer
  /// scalar as a float (N.f32).
  bool isRealScalar(const std::string& name) const {
    std::string why;
    auto ref = resolveSymbol(job_.plan, name, Chip::kDimLetters, why);
    if (ref && ref->kind == SymbolRef::Kind::ScalarAsReal) return true;
    for (const auto& sc : job_.plan.scalars)
      if (sc.name == name) return sc.real.has_value();
    return false;
  }

  /// Interns `@name` after checking what it names.
  int32_t symbol(const std::string& name, const std::string& what) {
    std::string why;
    if (!resolveSymbol(job_.plan, name, Chip::kDimLetters, why))
      fail(what + ": '@" + name + "': " + why);
    auto& syms = job_.binary.symbols;
    for (size_t i = 0; i < syms.size(); ++i)
      if (syms[i] == name) return static_cast<int32_t>(i);
    syms.push_back(name);
    return static_cast<int32_t>(syms.size() - 1);
  }

  Options options_;                                   ///< as given
  Job job_;                                           ///< what is read so far
  bool inProgram_ = false;                            ///< between .program and .end
  int programLine_ = 0;                               ///< where the open .program started
  std::vector<std::map<std::string, size_t>> labels_; ///< per program: label -> step
  std::vector<std::pair<size_t, int>> loopStack_;     ///< open loops: step and line
  std::vector<PendingLabel> pendingLabels_;           ///< labels used, resolved at the end
};

} // namespace chipless::progformat

#include "support/spyrecode/assembler.h"

#include "support/asm_source.h"
#include "support/error.h"
#include "support/spyrecode/binary.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace chipless::spyrecode {

namespace {

using namespace asmtext;

/// A pending instruction whose labels are resolved once the whole program is read.
struct PendingLabel {
  size_t program, pc, operand;
  std::string label;
  int line;
};

class Assembler : public AsmSource {
public:
  Assembler(const std::string& path, const AssembleOptions& options)
      : AsmSource(path), options_(options) {}

  Job run(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
      ++line;
      line_ = line;
      std::string s = stripComment(raw);
      if (s.empty()) continue;
      handleLine(s);
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
      job_.binary.programs[p.program].code[p.pc].operands[p.operand].imm =
          static_cast<int64_t>(it->second);
    }
    std::string bin = encodeBinary(job_.binary);
    addStandardSteps(job_.plan, options_.programPtr, static_cast<int64_t>(bin.size()),
                     options_.alignment);
    job_.arch = options_.arch;
    return std::move(job_);
  }

private:
  void handleLine(std::string s) {
    // Labels: "name:" possibly followed by an instruction.
    size_t colon = s.find(':');
    if (colon != std::string::npos && isIdentifier(trim(s.substr(0, colon))) &&
        s.find('=') > colon) {
      std::string label = trim(s.substr(0, colon));
      if (!inProgram_) fail("label '" + label + "' outside a .program");
      auto& labels = labels_[job_.binary.programs.size() - 1];
      if (labels.count(label)) fail("label '" + label + "' defined twice in this program");
      labels[label] = currentCode().size();
      s = trim(s.substr(colon + 1));
      if (s.empty()) return;
    }
    if (s[0] == '.') return directive(s);
    if (!inProgram_) fail("instruction outside a .program ... .end block");
    instruction(s);
  }

  std::vector<Instruction>& currentCode() { return job_.binary.programs.back().code; }

  // ---- directives -------------------------------------------------------------------

  void directive(const std::string& s) {
    std::string word = s.substr(0, s.find_first_of(" \t"));
    std::string rest = trim(s.substr(word.size()));
    if (word == ".kernel") {
      if (!isIdentifier(rest)) fail(".kernel needs a name");
      job_.plan.kernel = rest;
    } else if (word == ".input" || word == ".output" || word == ".inout") {
      tensorArg(word, rest);
    } else if (word == ".scalar") {
      job_.plan.scalars.push_back(scalarDirective(rest));
    } else if (word == ".buffer") {
      std::istringstream in(rest);
      std::string name, size;
      in >> name >> size;
      if (!isIdentifier(name)) fail(".buffer needs a name and a size in bytes");
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
      endProgram();
    } else {
      fail("unknown directive '" + word +
           "' (expected .kernel, .input, .output, .inout, .scalar, .buffer, .equ, .program, .end)");
    }
  }

  void tensorArg(const std::string& word, const std::string& rest) {
    // .input NAME DTYPE [d0, d1, ...] [row_major]
    size_t lb = rest.find('['), rb = rest.rfind(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb)
      fail(word + " NAME DTYPE [dims]: missing the shape in brackets");
    std::istringstream in(rest.substr(0, lb));
    std::string name, dt;
    in >> name >> dt;
    if (!isIdentifier(name)) fail(word + " needs a name");
    auto dtype = parseDType(dt);
    if (!dtype)
      fail(word + " " + name + ": unknown element type '" + dt +
           "' (expected f16, bf16, f32 or i32)");
    TensorArg a;
    a.name = name;
    a.dtype = *dtype;
    a.role = word == ".input"    ? ArgRole::Input
             : word == ".output" ? ArgRole::Output
                                 : ArgRole::InOut;
    for (const auto& d : splitTop(rest.substr(lb + 1, rb - lb - 1), ',')) {
      if (d.empty()) fail(word + " " + name + ": empty dimension");
      if (isIdentifier(d) && !isEqu(d)) {
        a.shape.push_back(d);
        useScalarDim(d);
      } else {
        int64_t v = constantExpr(d, "dimension");
        if (v <= 0) fail(word + " " + name + ": dimensions must be positive, got " + d);
        a.shape.push_back(v);
      }
    }
    if (a.shape.empty()) fail(word + " " + name + ": a tensor needs at least one dimension");
    // An optional layout after the shape: `stick` (the default) or `row_major`.
    std::istringstream after(rest.substr(rb + 1));
    std::string layout, extra;
    if (after >> layout && !parseLayout(layout, a.layout))
      fail(word + " " + name + ": unknown layout '" + layout + "' (expected stick or row_major)");
    if (after >> extra) fail(word + " " + name + ": unexpected '" + extra + "' after the layout");
    declare(name);
    job_.plan.args.push_back(a);
  }

  void beginProgram(const std::string& rest) {
    if (inProgram_) fail(".program inside another .program (missing .end)");
    std::istringstream in(rest);
    std::string unitWord, tok;
    in >> unitWord;
    Program p;
    if (!parseUnit(unitWord, p.unit))
      fail("unknown unit '" + unitWord +
           "' (expected dma_in, dma_out, ring, load, compute, store)");
    bool haveCores = false;
    while (in >> tok) {
      auto eq = tok.find('=');
      if (eq == std::string::npos) fail(".program: expected key=value, got '" + tok + "'");
      std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (key == "cores") {
        haveCores = true;
        if (value == "all") {
          p.coreFirst = 0;
          p.coreLast = kAllCores;
        } else {
          auto dash = value.find('-');
          int64_t first = constantExpr(value.substr(0, dash), "cores");
          int64_t last =
              dash == std::string::npos ? first : constantExpr(value.substr(dash + 1), "cores");
          if (first < 0 || last < first || last > kAllCores) fail("bad core range '" + value + "'");
          p.coreFirst = static_cast<int32_t>(first);
          p.coreLast = static_cast<int32_t>(last);
        }
      } else if (key == "corelet") {
        if (!isCoreletUnit(p.unit))
          fail("corelet= only applies to load, compute and store programs");
        int64_t corelet = value == "all" ? -1 : constantExpr(value, "corelet");
        if (corelet < -1 || corelet > 127) fail("bad corelet '" + value + "'"); // int8 in init.bin
        p.corelet = static_cast<int32_t>(corelet);
      } else {
        fail(".program: unknown key '" + key +
             "' (expected cores= and, for corelet units, corelet=)");
      }
    }
    if (!haveCores) fail(".program needs cores=FIRST-LAST or cores=all");
    job_.binary.programs.push_back(p);
    labels_.emplace_back();
    loopStack_.clear();
    inProgram_ = true;
    programLine_ = line_;
  }

  void endProgram() {
    if (!loopStack_.empty())
      fail("loop opened at line " + std::to_string(loopStack_.back().second) + " has no endloop");
    inProgram_ = false;
  }

  // ---- instructions -----------------------------------------------------------------

  void instruction(const std::string& s) {
    size_t sp = s.find_first_of(" \t");
    std::string mnemonic = s.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : trim(s.substr(sp));
    const OpcodeInfo* info = findOpcode(mnemonic);
    Instruction ins;
    if (!info) {
      // Try splitting off an element type suffix: "sfu.add.f16".
      auto dot = mnemonic.rfind('.');
      if (dot != std::string::npos) {
        info = findOpcode(mnemonic.substr(0, dot));
        auto dt = parseDType(mnemonic.substr(dot + 1));
        if (info && !dt)
          fail("unknown element type '" + mnemonic.substr(dot + 1) + "' in '" + mnemonic +
               "' (expected f16, bf16, f32 or i32)");
        if (info) {
          if (info->dtype == DtypeRule::None)
            fail(std::string(info->mnemonic) + " takes no element type suffix");
          if (!(info->dtypeMask & (1u << static_cast<unsigned>(*dt))))
            fail(std::string(info->mnemonic) + " does not support " + dtypeName(*dt));
          ins.dtype = dt;
        }
      }
      if (!info) fail("unknown instruction '" + mnemonic + "'");
    }
    if (!ins.dtype && info->dtype == DtypeRule::Required)
      fail(std::string(info->mnemonic) + " needs an element type suffix, e.g. " + info->mnemonic +
           ".f16");
    if (!ins.dtype && info->dtype == DtypeRule::Optional) ins.dtype = DType::F16;
    Program& prog = job_.binary.programs.back();
    if (!(info->unitMask & (1u << static_cast<unsigned>(prog.unit))))
      fail(std::string(info->mnemonic) + " cannot run on the " + unitName(prog.unit) + " unit");
    ins.op = info->op;

    std::vector<std::optional<Operand>> values(info->operands.size());
    auto parts = rest.empty() ? std::vector<std::string>{} : splitTop(rest, ',');
    size_t positional = 0;
    bool sawKeyword = false;
    for (const auto& part : parts) {
      if (part.empty()) fail("empty operand in '" + s + "'");
      auto eq = part.find('=');
      size_t index;
      std::string text;
      if (eq != std::string::npos && isIdentifier(trim(part.substr(0, eq)))) {
        std::string key = trim(part.substr(0, eq));
        text = trim(part.substr(eq + 1));
        index = findOperand(*info, key);
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
        index = positional++;
        text = part;
      }
      if (values[index])
        fail("operand '" + std::string(info->operands[index].name) + "' given twice");
      values[index] =
          parseOperand(*info, index, text, job_.binary.programs.size() - 1, prog.code.size());
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const OperandDecl& d = info->operands[i];
      if (values[i]) continue;
      if (d.kind == OperandKind::Hidden) {
        values[i] = Operand{};
      } else if (d.optional) {
        values[i] = Operand{d.defaultValue, -1, -1};
      } else {
        fail(std::string(info->mnemonic) + ": missing operand '" + d.name + "'");
      }
    }
    for (auto& v : values) ins.operands.push_back(*v);
    size_t pc = prog.code.size();
    if (ins.op == Opcode::Loop) loopStack_.push_back({pc, line_});
    if (ins.op == Opcode::EndLoop) {
      if (loopStack_.empty()) fail("endloop without loop");
      size_t start = loopStack_.back().first;
      loopStack_.pop_back();
      ins.operands[0].imm = static_cast<int64_t>(start);
      prog.code[start].operands[1].imm = static_cast<int64_t>(pc + 1);
    }
    prog.code.push_back(std::move(ins));
  }

  size_t findOperand(const OpcodeInfo& info, const std::string& key) const {
    for (size_t i = 0; i < info.operands.size(); ++i)
      if (key == info.operands[i].name && info.operands[i].kind != OperandKind::Hidden) return i;
    std::string list;
    for (const auto& d : info.operands)
      if (d.kind != OperandKind::Hidden) list += (list.empty() ? "" : ", ") + std::string(d.name);
    fail(std::string(info.mnemonic) + " has no operand '" + key + "' (operands: " + list + ")");
  }

  Operand parseOperand(const OpcodeInfo& info, size_t index, const std::string& text,
                       size_t program, size_t pc) {
    const OperandDecl& d = info.operands[index];
    std::string what = std::string(info.mnemonic) + " operand '" + d.name + "'";
    Operand o;
    switch (d.kind) {
    case OperandKind::Reg: {
      int r;
      if (!parseReg(text, r) || r >= kNumGeneralRegs)
        fail(what + ": expected a register r0..r15, got '" + text + "'");
      o.reg = static_cast<int8_t>(r);
      return o;
    }
    case OperandKind::Port:
      if (!parsePort(text, o.imm))
        fail(what + ": expected in0.., out0.., v0.. or none, got '" + text + "'");
      return o;
    case OperandKind::Label:
      if (!isIdentifier(text)) fail(what + ": expected a label, got '" + text + "'");
      pendingLabels_.push_back({program, pc, index, text, line_});
      return o;
    case OperandKind::Float: {
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
        if (end == text.c_str() || *end != '\0')
          fail(what + ": expected a number, got '" + text + "'");
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
      return expression(text, what);
    case OperandKind::Hidden:
      fail(what + " is set by the assembler");
    }
    return o;
  }

  Operand expression(const std::string& text, const std::string& what) {
    return AsmSource::expression<Operand>(
        text, what, [](const std::string& t, int& r) { return parseReg(t, r); },
        [this](const std::string& n, const std::string& w) { return symbol(n, w); });
  }

  int32_t symbol(const std::string& name, const std::string& what) {
    // Allowed: a tensor argument (address), ARG.dK (dimension K), a scalar, a buffer.
    std::string base = name;
    auto dot = name.find('.');
    if (dot != std::string::npos) {
      base = name.substr(0, dot);
      std::string dim = name.substr(dot + 1);
      const TensorArg* a = job_.plan.findArg(base);
      if (!a) fail(what + ": '@" + name + "': '" + base + "' is not a tensor argument");
      if (dim.size() < 2 || dim.size() > 4 || dim[0] != 'd' ||
          dim.find_first_not_of("0123456789", 1) != std::string::npos ||
          std::stoul(dim.substr(1)) >= a->shape.size())
        fail(what + ": '@" + name + "': expected " + base + ".d0 .. " + base + ".d" +
             std::to_string(a->shape.size() - 1));
    } else if (!isDeclared(name)) {
      fail(what + ": '@" + name + "' is not a declared argument, scalar or buffer");
    }
    auto& syms = job_.binary.symbols;
    for (size_t i = 0; i < syms.size(); ++i)
      if (syms[i] == name) return static_cast<int32_t>(i);
    syms.push_back(name);
    return static_cast<int32_t>(syms.size() - 1);
  }

  AssembleOptions options_;
  Job job_;
  bool inProgram_ = false;
  int programLine_ = 0;
  std::vector<std::map<std::string, size_t>> labels_;
  std::vector<std::pair<size_t, int>> loopStack_;
  std::vector<PendingLabel> pendingLabels_;
};

} // namespace

AssembleOptions AssembleOptions::forArch(const SpyreArch& arch) {
  AssembleOptions o;
  o.programPtr = arch.programBase();
  o.alignment = static_cast<uint64_t>(arch.memory.alignment_bytes);
  o.arch = arch.description;
  return o;
}

Job assemble(const std::string& text, const std::string& path, const AssembleOptions& options) {
  return Assembler(path, options).run(text);
}

} // namespace chipless::spyrecode

#include "support/tpuprog/assembler.h"

#include "support/asm_source.h"
#include "support/error.h"
#include "support/tpuprog/binary.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace chipless::tpuprog {

namespace {

using namespace asmtext;

/// A label operand waiting for the end of its program.
struct PendingLabel {
  size_t program, bundle, op, operand;
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
      line_ = ++line;
      std::string s = stripComment(raw);
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
      job_.binary.programs[p.program].bundles[p.bundle].ops[p.op].operands[p.operand].imm =
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
    size_t colon = s.find(':');
    if (colon != std::string::npos && isName(trim(s.substr(0, colon))) && s.find('=') > colon) {
      std::string label = trim(s.substr(0, colon));
      if (!inProgram_) fail("label '" + label + "' outside a .program");
      auto& labels = labels_[job_.binary.programs.size() - 1];
      if (labels.count(label)) fail("label '" + label + "' defined twice in this program");
      labels[label] = program().bundles.size();
      s = trim(s.substr(colon + 1));
      if (s.empty()) return;
    }
    if (s[0] == '.') return directive(s);
    if (!inProgram_) fail("operation outside a .program ... .end block");
    bundle(s);
  }

  Program& program() { return job_.binary.programs.back(); }

  // ---- directives -------------------------------------------------------------------

  void directive(const std::string& s) {
    std::string word = s.substr(0, s.find_first_of(" \t"));
    std::string rest = trim(s.substr(word.size()));
    if (inProgram_ && word != ".end") fail(word + " inside a .program (missing .end?)");
    if (word == ".kernel") {
      if (!isName(rest)) fail(".kernel needs a name");
      if (!job_.plan.kernel.empty()) fail(".kernel given twice");
      job_.plan.kernel = rest;
    } else if (word == ".input" || word == ".output" || word == ".inout") {
      tensorArg(word, rest);
    } else if (word == ".scalar") {
      job_.plan.scalars.push_back(scalarDirective(rest));
    } else if (word == ".trap") {
      trapDirective(rest);
    } else if (word == ".buffer") {
      std::istringstream in(rest);
      std::string name, size;
      in >> name >> size;
      if (!isName(name) || size.empty()) fail(".buffer needs a name and a size in bytes");
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
    } else {
      fail("unknown directive '" + word +
           "' (expected .kernel, .input, .output, .inout, .scalar, .buffer, .trap, .equ, .program, "
           ".end)");
    }
  }

  void tensorArg(const std::string& word, const std::string& rest) {
    // .input NAME DTYPE [d0, d1, ...] [tile=RxC] [placement=split]
    size_t lb = rest.find('['), rb = rest.find(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb)
      fail(word + " NAME DTYPE [dims]: missing the shape in brackets");
    std::istringstream in(rest.substr(0, lb));
    std::string name, dt, extra;
    in >> name >> dt >> extra;
    if (!isName(name)) fail(word + " needs a name");
    if (!extra.empty()) fail(word + " " + name + ": unexpected '" + extra + "' before the shape");
    auto dtype = parseDType(dt);
    if (!dtype || *dtype == DType::F16)
      fail(word + " " + name + ": unknown element type '" + dt + "' (expected bf16, f32, i32, i8)");
    TensorArg a;
    a.name = name;
    a.dtype = *dtype;
    a.role = word == ".input"    ? ArgRole::Input
             : word == ".output" ? ArgRole::Output
                                 : ArgRole::InOut;
    for (const auto& d : splitTop(rest.substr(lb + 1, rb - lb - 1), ',')) {
      if (d.empty()) fail(word + " " + name + ": empty dimension");
      if (isName(d) && !isEqu(d)) {
        a.shape.push_back(d);
        useScalarDim(d);
      } else {
        int64_t v = constantExpr(d, "dimension");
        if (v <= 0) fail(word + " " + name + ": dimensions must be positive, got " + d);
        a.shape.push_back(v);
      }
    }
    if (a.shape.empty()) fail(word + " " + name + ": a tensor needs at least one dimension");
    std::istringstream opts(rest.substr(rb + 1));
    std::string tok;
    while (opts >> tok) {
      auto eq = tok.find('=');
      std::string key = tok.substr(0, eq),
                  value = eq == std::string::npos ? "" : tok.substr(eq + 1);
      if (key == "tile" && !value.empty()) {
        auto x = value.find('x');
        if (x == std::string::npos)
          fail(word + " " + name + ": tile=ROWSxCOLS, got '" + value + "'");
        a.tile[0] = constantExpr(value.substr(0, x), "tile rows");
        a.tile[1] = constantExpr(value.substr(x + 1), "tile columns");
        if (a.tile[0] <= 0 || a.tile[1] <= 0 || a.tile[0] > (1 << 20) || a.tile[1] > (1 << 20))
          fail(word + " " + name + ": tile sizes must be positive, got '" + value + "'");
      } else if (key == "placement" && (value == "split" || value == "replicated")) {
        a.placement = value == "split" ? Placement::Split : Placement::Replicated;
      } else {
        fail(word + " " + name + ": unknown option '" + tok +
             "' (expected tile=ROWSxCOLS or placement=split|replicated)");
      }
    }
    declare(name);
    job_.plan.args.push_back(a);
  }

  /// .trap CODE "what the code means"
  void trapDirective(const std::string& rest) {
    size_t q = rest.find('"');
    if (q == std::string::npos || rest.size() < q + 2 || rest.back() != '"')
      fail(".trap CODE \"message\": the message goes in double quotes");
    std::string message = rest.substr(q + 1, rest.size() - q - 2);
    if (message.empty() || message.find('"') != std::string::npos)
      fail(".trap: the message must be non-empty and hold no double quote");
    TrapMessage t{constantExpr(trim(rest.substr(0, q)), ".trap code"), message};
    for (const auto& other : job_.plan.traps)
      if (other.code == t.code) fail(".trap " + std::to_string(t.code) + " given twice");
    job_.plan.traps.push_back(t);
  }

  /// "all", "3" or "0-15" into [first, last].
  void parseRange(const std::string& key, const std::string& value, int32_t& first, int32_t& last) {
    if (value == "all") {
      first = 0;
      last = kAll;
      return;
    }
    auto dash = value.find('-');
    int64_t f = constantExpr(value.substr(0, dash), key);
    int64_t l = dash == std::string::npos ? f : constantExpr(value.substr(dash + 1), key);
    if (f < 0 || l < f || l >= kAll) fail("bad " + key + " range '" + value + "'");
    first = static_cast<int32_t>(f);
    last = static_cast<int32_t>(l);
  }

  void beginProgram(const std::string& rest) {
    std::istringstream in(rest);
    std::string tok;
    Program p;
    while (in >> tok) {
      auto eq = tok.find('=');
      if (eq == std::string::npos) fail(".program: expected key=value, got '" + tok + "'");
      std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (key == "cores")
        parseRange("cores", value, p.coreFirst, p.coreLast);
      else if (key == "chips")
        parseRange("chips", value, p.chipFirst, p.chipLast);
      else
        fail(".program: unknown key '" + key + "' (expected cores= and chips=)");
    }
    job_.binary.programs.push_back(p);
    labels_.emplace_back();
    loopStack_.clear();
    inProgram_ = true;
    programLine_ = line_;
  }

  // ---- bundles ------------------------------------------------------------------------

  void bundle(const std::string& s) {
    Bundle b;
    const size_t bi = program().bundles.size();
    for (const auto& part : splitTop(s, '|')) {
      if (part.empty()) fail("empty operation in bundle '" + s + "'");
      b.ops.push_back(operation(part, bi, b.ops.size()));
    }
    std::string slots = checkBundleSlots(b, options_.scalarSlots);
    if (!slots.empty()) fail(slots);
    for (Op& op : b.ops) {
      if (op.op == Opcode::Loop) loopStack_.push_back({bi, line_});
      if (op.op == Opcode::EndLoop) {
        if (loopStack_.empty()) fail("endloop without loop");
        size_t start = loopStack_.back().first;
        loopStack_.pop_back();
        if (start == bi) fail("a loop needs its endloop in a later bundle");
        for (Op& l : program().bundles[start].ops)
          if (l.op == Opcode::Loop) l.operands[1].imm = static_cast<int64_t>(bi + 1);
        op.operands[0].imm = static_cast<int64_t>(start);
      }
    }
    program().bundles.push_back(std::move(b));
  }

  Op operation(const std::string& s, size_t bi, size_t oi) {
    size_t sp = s.find_first_of(" \t");
    std::string mnemonic = s.substr(0, sp);
    std::string rest = sp == std::string::npos ? "" : trim(s.substr(sp));
    const OpcodeInfo* info = findOpcode(mnemonic);
    Op op;
    if (!info) {
      auto dot = mnemonic.rfind('.');
      if (dot != std::string::npos) {
        info = findOpcode(mnemonic.substr(0, dot));
        auto dt = parseDType(mnemonic.substr(dot + 1));
        if (info && !dt)
          fail("unknown element type '" + mnemonic.substr(dot + 1) + "' in '" + mnemonic +
               "' (expected bf16, f32, i32 or i8)");
        if (info) {
          if (info->dtype == DtypeRule::None)
            fail(std::string(info->mnemonic) + " takes no element type suffix");
          if (!(info->dtypeMask & (1u << static_cast<unsigned>(*dt))))
            fail(std::string(info->mnemonic) + " does not support " + dtypeName(*dt));
          op.dtype = dt;
        }
      }
      if (!info) fail("unknown operation '" + mnemonic + "'");
    }
    if (!op.dtype && info->dtype == DtypeRule::Required) {
      std::string example;
      for (int t = 0; t <= static_cast<int>(DType::I8) && example.empty(); ++t)
        if (info->dtypeMask & (1u << t)) example = dtypeName(static_cast<DType>(t));
      fail(std::string(info->mnemonic) + " needs an element type suffix, e.g. " + info->mnemonic +
           "." + example);
    }
    op.op = info->op;

    std::vector<std::optional<Operand>> values(info->operands.size());
    auto parts = rest.empty() ? std::vector<std::string>{} : splitTop(rest, ',');
    size_t positional = 0;
    bool sawKeyword = false;
    for (const auto& part : parts) {
      if (part.empty()) fail("empty operand in '" + s + "'");
      auto eq = part.find('=');
      size_t index;
      std::string text;
      if (eq != std::string::npos && isName(trim(part.substr(0, eq)))) {
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
      values[index] = parseOperand(*info, index, text, bi, oi);
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const OperandDecl& d = info->operands[i];
      if (values[i]) continue;
      if (d.kind == OperandKind::Hidden)
        values[i] = Operand{};
      else if (d.optional)
        values[i] = Operand{d.defaultValue, -1, -1};
      else
        fail(std::string(info->mnemonic) + ": missing operand '" + d.name + "'");
    }
    for (auto& v : values) op.operands.push_back(*v);
    return op;
  }

  size_t findOperand(const OpcodeInfo& info, const std::string& key) const {
    for (size_t i = 0; i < info.operands.size(); ++i)
      if (key == info.operands[i].name && info.operands[i].kind != OperandKind::Hidden) return i;
    std::string list;
    for (const auto& d : info.operands)
      if (d.kind != OperandKind::Hidden) list += (list.empty() ? "" : ", ") + std::string(d.name);
    fail(std::string(info.mnemonic) + " has no operand '" + key +
         "' (operands: " + (list.empty() ? "none" : list) + ")");
  }

  Operand parseOperand(const OpcodeInfo& info, size_t index, const std::string& text, size_t bi,
                       size_t oi) {
    const OperandDecl& d = info.operands[index];
    std::string what = std::string(info.mnemonic) + " operand '" + d.name + "'";
    Operand o;
    switch (d.kind) {
    case OperandKind::SReg: {
      int r;
      if (!parseReg(text, r) || r >= kMaxGeneralRegs)
        fail(what + ": expected a scalar register s0..s" + std::to_string(kMaxGeneralRegs - 1) +
             ", got '" + text + "'");
      o.reg = static_cast<int8_t>(r);
      return o;
    }
    case OperandKind::VReg:
      if (!parseVReg(text, o.imm))
        fail(what + ": expected a vector register v0..v" + std::to_string(kMaxVRegs - 1) +
             ", got '" + text + "'");
      return o;
    case OperandKind::Label:
      if (!isName(text)) fail(what + ": expected a label, got '" + text + "'");
      pendingLabels_.push_back({job_.binary.programs.size() - 1, bi, oi, index, text, line_});
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
        if (text.empty() || end == text.c_str() || *end != '\0')
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
    std::string why;
    if (!resolveSymbol(job_.plan, name, why)) fail(what + ": '@" + name + "': " + why);
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

AssembleOptions AssembleOptions::forArch(const TpuArch& arch) {
  AssembleOptions o;
  o.programPtr = 0;
  o.alignment = static_cast<uint64_t>(arch.hbm.alignment_bytes);
  o.scalarSlots = arch.scalar.slots;
  o.arch = arch.description;
  return o;
}

Job assemble(const std::string& text, const std::string& path, const AssembleOptions& options) {
  return Assembler(path, options).run(text);
}

} // namespace chipless::tpuprog

#pragma once
/// Helpers shared by the SpyreCode tests: error expectations, kernel files, temporary
/// directories and a synthetic job that uses every opcode of the table.
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/isa.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <functional>
#include <gtest/gtest.h>
#include <initializer_list>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace chipless::spyrecode::testing {

/// Runs `f`, which must throw chipless::Error; returns its message ("" after a failure).
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-chipless exception: " << e.what();
    return "";
  } catch (...) {
    ADD_FAILURE() << "threw something that is not a std::exception";
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}

/// Expects `f` to throw chipless::Error whose message contains every one of `parts`.
#define EXPECT_ERROR_PARTS(f, ...)                                                                 \
  do {                                                                                             \
    std::string msg_ = ::chipless::spyrecode::testing::errorOf(f);                                 \
    for (const std::string& part_ : std::initializer_list<std::string>{__VA_ARGS__})               \
      EXPECT_NE(msg_.find(part_), std::string::npos)                                               \
          << "message: " << msg_ << "\nexpected to contain: " << part_;                            \
  } while (0)

/// Assembly options as the default architecture gives them.
inline AssembleOptions defaultOptions() {
  static const AssembleOptions options =
      AssembleOptions::forArch(SpyreArch::load(SpyreArch::defaultFile()));
  return options;
}

/// `text` assembled as the file t.s.
inline Job as(const std::string& text, const AssembleOptions& options = defaultOptions()) {
  return assemble(text, "t.s", options);
}

/// Expects assembling `text` to fail at `line` of t.s with a message containing `words`.
inline void expectError(const std::string& text, int line,
                        std::initializer_list<std::string> words) {
  std::string msg = errorOf([&] { as(text); });
  std::string where = "t.s:" + std::to_string(line) + ": ";
  EXPECT_EQ(msg.rfind(where, 0), 0u) << "message: " << msg << "\nexpected to start with " << where;
  for (const auto& w : words)
    EXPECT_NE(msg.find(w), std::string::npos) << "message: " << msg << "\nexpected: " << w;
}

/// Every models/kernels/*.s, sorted.
inline std::vector<std::string> kernelFiles() {
  std::string dir = std::string(CHIPLESS_SOURCE_DIR) + "/models/kernels";
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 2 && name.compare(name.size() - 2, 2, ".s") == 0)
        out.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A fresh directory under /tmp, removed with its files (one level of subdirectories) at the
/// end of the scope.
class TempDir {
public:
  TempDir() {
    char pattern[] = "/tmp/chipless_spyrecode_XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() { removeTree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

private:
  static void removeTree(const std::string& dir) {
    if (DIR* d = ::opendir(dir.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        std::string p = dir + "/" + name;
        struct stat st;
        if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
          removeTree(p);
        else
          ::unlink(p.c_str());
      }
      ::closedir(d);
    }
    ::rmdir(dir.c_str());
  }
  std::string path_;
};

/// Symbols the synthetic job refers to (all declared by syntheticPlan()).
inline const std::vector<std::string>& syntheticSymbols() {
  static const std::vector<std::string> s = {"A", "A.d1", "M", "buf", "B", "B.d0"};
  return s;
}

/// Largest allowed element type other than f16 (f16 if it is the only one).
inline DType nonDefaultDtype(uint32_t mask) {
  for (int t = static_cast<int>(DType::I32); t >= 0; --t)
    if ((mask & (1u << t)) && t != static_cast<int>(DType::F16)) return static_cast<DType>(t);
  return DType::F16;
}

/// An operand value of the right kind that differs from the declared default. `salt` varies
/// the choice so the synthetic job mixes registers, symbols and constants.
inline Operand nonDefaultOperand(const OperandDecl& d, int salt, int64_t programSize) {
  Operand o;
  switch (d.kind) {
  case OperandKind::Reg:
    o.reg = static_cast<int8_t>((salt * 5 + 3) % kNumGeneralRegs);
    break;
  case OperandKind::Expr: {
    int form = salt % 5;
    int nsym = static_cast<int>(syntheticSymbols().size());
    if (form == 0) o.imm = 1000 + salt; // constant
    if (form == 1) {                    // register and negative constant
      o.reg = static_cast<int8_t>(salt % kNumRegs);
      o.imm = -(salt + 1);
    }
    if (form == 2) { // symbol and constant
      o.sym = salt % nsym;
      o.imm = 128 * salt;
    }
    if (form == 3) { // register and symbol
      o.reg = static_cast<int8_t>((salt + 7) % kNumRegs);
      o.sym = (salt + 1) % nsym;
    }
    if (form == 4) o.imm = -7 - salt; // negative constant
    if (d.optional && o.reg < 0 && o.sym < 0 && o.imm == d.defaultValue) o.imm += 1;
    break;
  }
  case OperandKind::Port: {
    static const int64_t ports[] = {kPortIn + 0,  kPortOut + 1,  kPortReg + 3, kPortIn + 2,
                                    kPortOut + 0, kPortReg + 15, kPortIn + 15, kPortReg + 63};
    o.imm = ports[salt % 8];
    if (d.optional && o.imm == d.defaultValue) o.imm = kPortIn + 1;
    break;
  }
  case OperandKind::Label:
    o.imm = salt % (programSize + 1);
    break;
  case OperandKind::Float: {
    static const double values[] = {1.5, -0.25, 3.0e-5, 65504.0, -1e30};
    double v = values[salt % 5];
    std::memcpy(&o.imm, &v, sizeof v);
    if (d.optional && o.imm == d.defaultValue) {
      v = 2.5;
      std::memcpy(&o.imm, &v, sizeof v);
    }
    break;
  }
  case OperandKind::Enum:
    o.imm = static_cast<int64_t>(d.choices.size()) - 1;
    if (o.imm == d.defaultValue && d.choices.size() > 1) o.imm = 0;
    break;
  case OperandKind::Hidden:
    break; // set by the caller (loop pairing)
  case OperandKind::VReg:
    break; // a TPU kind: no SpyreCode opcode has one
  }
  return o;
}

/// A job binary with, on every unit that may run it, one instruction of every opcode whose
/// operands all differ from their defaults. Loop and endloop appear as a pair.
inline JobBinary syntheticBinary() {
  JobBinary bin;
  bin.symbols = syntheticSymbols();
  for (int u = 0; u < kUnitCount; ++u) {
    Program p;
    p.unit = static_cast<Unit>(u);
    p.coreFirst = u;
    p.coreLast = u % 2 ? kAllCores : u + 3;
    p.corelet = isCoreletUnit(p.unit) ? (u % 2 ? 1 : -1) : -1;
    // First pass fixes the size (labels may point anywhere, including the end).
    size_t size = 0;
    for (const auto& info : allOpcodes())
      if ((info.unitMask & (1u << u)) && info.op != Opcode::EndLoop) size += 1;
    size += 1; // the endloop paired with loop
    int salt = u;
    for (const auto& info : allOpcodes()) {
      if (!(info.unitMask & (1u << u)) || info.op == Opcode::EndLoop) continue;
      Instruction ins;
      ins.op = info.op;
      if (info.dtype != DtypeRule::None) ins.dtype = nonDefaultDtype(info.dtypeMask);
      for (const auto& d : info.operands)
        ins.operands.push_back(nonDefaultOperand(d, salt++, static_cast<int64_t>(size)));
      if (info.op == Opcode::Loop) {
        size_t start = p.code.size();
        ins.operands[1].imm = static_cast<int64_t>(start + 2);
        p.code.push_back(ins);
        Instruction end;
        end.op = Opcode::EndLoop;
        end.operands.push_back(Operand{static_cast<int64_t>(start), -1, -1});
        p.code.push_back(end);
        continue;
      }
      p.code.push_back(ins);
    }
    bin.programs.push_back(p);
  }
  // Number the symbols in order of first use, as the assembler does.
  std::vector<int32_t> renumber(bin.symbols.size(), -1);
  std::vector<std::string> ordered;
  for (auto& p : bin.programs)
    for (auto& ins : p.code)
      for (auto& o : ins.operands) {
        if (o.sym < 0) continue;
        if (renumber[o.sym] < 0) {
          renumber[o.sym] = static_cast<int32_t>(ordered.size());
          ordered.push_back(bin.symbols[o.sym]);
        }
        o.sym = renumber[o.sym];
      }
  bin.symbols = ordered;
  return bin;
}

/// A plan that declares everything syntheticSymbols() names, with the standard steps for
/// `bin`.
inline JobPlan syntheticPlan(const JobBinary& bin) {
  JobPlan plan;
  plan.kernel = "synthetic";
  plan.scalars.push_back({"M"});
  plan.args.push_back({"A", ArgRole::Input, DType::F16, {std::string("M"), int64_t{128}}});
  plan.args.push_back({"B", ArgRole::InOut, DType::BF16, {int64_t{3}, int64_t{5}, int64_t{64}}});
  plan.args.push_back({"C", ArgRole::Output, DType::F32, {int64_t{7}}});
  plan.buffers.push_back({"buf", 4096});
  addStandardSteps(plan, 0x1C00000000ull, static_cast<int64_t>(encodeBinary(bin).size()), 128);
  return plan;
}

/// syntheticBinary() with its plan.
inline Job syntheticJob() {
  Job job;
  job.binary = syntheticBinary();
  job.plan = syntheticPlan(job.binary);
  return job;
}

} // namespace chipless::spyrecode::testing

// Tests for support/spyrecode/isa.h: the opcode table is consistent, and the names of units,
// ports and registers round-trip.
#include "support/dtype.h"
#include "support/spyrecode/isa.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace chipless::spyrecode {
namespace {

TEST(IsaTable, EntryIndexIsItsOpcode) {
  const auto& table = allOpcodes();
  ASSERT_EQ(table.size(), static_cast<size_t>(Opcode::Count));
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(table[i].op), i) << table[i].mnemonic;
    EXPECT_EQ(&opcodeInfo(static_cast<Opcode>(i)), &table[i]);
  }
}

TEST(IsaTable, MnemonicsAreUniqueAndWellFormed) {
  std::set<std::string> seen;
  for (const auto& info : allOpcodes()) {
    std::string m = info.mnemonic;
    ASSERT_FALSE(m.empty());
    EXPECT_TRUE(seen.insert(m).second) << "duplicate mnemonic " << m;
    for (char c : m)
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_')
          << "mnemonic " << m;
  }
}

TEST(IsaTable, EveryOpcodeHasASummaryAndAUnit) {
  for (const auto& info : allOpcodes()) {
    ASSERT_NE(info.summary, nullptr) << info.mnemonic;
    EXPECT_GT(std::string(info.summary).size(), 5u) << info.mnemonic;
    EXPECT_NE(info.unitMask, 0u) << info.mnemonic << " runs on no unit";
    EXPECT_EQ(info.unitMask & ~((1u << kUnitCount) - 1), 0u) << info.mnemonic;
  }
}

TEST(IsaTable, OperandDeclarationsAreConsistent) {
  for (const auto& info : allOpcodes()) {
    SCOPED_TRACE(info.mnemonic);
    EXPECT_LE(info.operands.size(), 255u); // the binary stores the count in one byte
    std::set<std::string> names;
    int visible = 0;
    for (const auto& d : info.operands) {
      ASSERT_NE(d.name, nullptr);
      EXPECT_FALSE(std::string(d.name).empty());
      EXPECT_TRUE(names.insert(d.name).second) << "operand " << d.name << " declared twice";
      if (d.kind == OperandKind::Enum) {
        EXPECT_FALSE(d.choices.empty()) << d.name;
        EXPECT_GE(d.defaultValue, 0) << d.name;
        EXPECT_LT(d.defaultValue, static_cast<int64_t>(d.choices.size())) << d.name;
        std::set<std::string> words(d.choices.begin(), d.choices.end());
        EXPECT_EQ(words.size(), d.choices.size()) << d.name << " repeats a choice";
      } else {
        EXPECT_TRUE(d.choices.empty()) << d.name << " has choices but is not an Enum";
      }
      if (d.kind == OperandKind::Hidden) {
        EXPECT_FALSE(d.optional) << d.name;
      } else {
        ++visible;
      }
      if (d.kind == OperandKind::Reg || d.kind == OperandKind::Label) {
        EXPECT_FALSE(d.optional) << d.name << ": registers and labels have no default";
      }
    }
    EXPECT_GE(info.positional, 0);
    EXPECT_LE(info.positional, visible);
  }
}

TEST(IsaTable, ElementTypeRules) {
  for (const auto& info : allOpcodes()) {
    SCOPED_TRACE(info.mnemonic);
    if (info.dtype == DtypeRule::None) {
      EXPECT_EQ(info.dtypeMask, 0u);
    } else {
      EXPECT_NE(info.dtypeMask, 0u);
      EXPECT_EQ(info.dtypeMask & ~((1u << (static_cast<int>(DType::I32) + 1)) - 1), 0u);
    }
    if (info.dtype == DtypeRule::Optional) { // the assembler's default must be allowed
      EXPECT_TRUE(info.dtypeMask & (1u << static_cast<int>(DType::F16)));
    }
    // A mnemonic with a suffix must never be mistaken for another mnemonic.
    for (int t = 0; t <= static_cast<int>(DType::I32); ++t)
      EXPECT_EQ(findOpcode(std::string(info.mnemonic) + "." + dtypeName(static_cast<DType>(t))),
                nullptr);
    std::string m = info.mnemonic;
    auto dot = m.rfind('.');
    if (dot != std::string::npos) {
      EXPECT_FALSE(parseDType(m.substr(dot + 1))) << "mnemonic ends in an element type";
    }
  }
}

TEST(IsaTable, FindOpcode) {
  for (const auto& info : allOpcodes()) EXPECT_EQ(findOpcode(info.mnemonic), &info);
  EXPECT_EQ(findOpcode("nope"), nullptr);
  EXPECT_EQ(findOpcode(""), nullptr);
  EXPECT_EQ(findOpcode("sfu.add.f16"), nullptr);
  EXPECT_EQ(findOpcode("ADD"), nullptr);
  EXPECT_EQ(findOpcode("add")->op, Opcode::Add);
  EXPECT_EQ(findOpcode("pt.mm")->op, Opcode::PtMm);
}

TEST(IsaTable, RingEnumsUseTheSharedWordLists) {
  const OpcodeInfo& info = opcodeInfo(Opcode::RingSend);
  bool sawDir = false, sawOp = false;
  for (const auto& d : info.operands) {
    if (std::string(d.name) == "dir") {
      sawDir = true;
      EXPECT_EQ(d.choices, kRingDirections);
    }
    if (std::string(d.name) == "op") {
      sawOp = true;
      EXPECT_EQ(d.choices, kRingOps);
    }
  }
  EXPECT_TRUE(sawDir && sawOp);
  EXPECT_EQ(kRingDirections, (std::vector<std::string>{"short", "cw", "ccw"}));
  EXPECT_EQ(kRingOps, (std::vector<std::string>{"none", "add", "max", "min"}));
}

TEST(IsaNames, Units) {
  std::set<std::string> names;
  for (int i = 0; i < kUnitCount; ++i) {
    Unit u = static_cast<Unit>(i);
    Unit back = Unit::Store;
    ASSERT_TRUE(parseUnit(unitName(u), back)) << unitName(u);
    EXPECT_EQ(back, u);
    names.insert(unitName(u));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kUnitCount));
  Unit u;
  EXPECT_FALSE(parseUnit("dma", u));
  EXPECT_FALSE(parseUnit("", u));
  EXPECT_FALSE(parseUnit("Load", u));
  EXPECT_TRUE(isCoreletUnit(Unit::Load));
  EXPECT_TRUE(isCoreletUnit(Unit::Compute));
  EXPECT_TRUE(isCoreletUnit(Unit::Store));
  EXPECT_FALSE(isCoreletUnit(Unit::DmaIn));
  EXPECT_FALSE(isCoreletUnit(Unit::DmaOut));
  EXPECT_FALSE(isCoreletUnit(Unit::Ring));
}

TEST(IsaNames, PortsRoundTrip) {
  std::vector<int64_t> ports = {kPortNone};
  for (int i = 0; i < 16; ++i) {
    ports.push_back(kPortIn + i);
    ports.push_back(kPortOut + i);
  }
  for (int i = 0; i < 64; ++i) ports.push_back(kPortReg + i);
  std::set<std::string> names;
  for (int64_t p : ports) {
    std::string name = portName(p);
    EXPECT_TRUE(names.insert(name).second) << name;
    int64_t back = -1;
    ASSERT_TRUE(parsePort(name, back)) << name;
    EXPECT_EQ(back, p) << name;
  }
  EXPECT_EQ(portName(kPortIn + 2), "in2");
  EXPECT_EQ(portName(kPortOut + 1), "out1");
  EXPECT_EQ(portName(kPortReg + 7), "v7");
  EXPECT_EQ(portName(kPortNone), "none");
  EXPECT_EQ(portName(5).rfind("port?", 0), 0u);
  int64_t out = 0;
  for (const char* bad :
       {"", "in", "in16", "out16", "v64", "x0", "in-1", "in1a", "IN0", " in0", "nonee", "v", "out"})
    EXPECT_FALSE(parsePort(bad, out)) << bad;
}

TEST(IsaNames, RegistersRoundTrip) {
  for (int r = 0; r < kNumRegs; ++r) {
    std::string name = regName(r);
    int back = -1;
    ASSERT_TRUE(parseReg(name, back)) << name;
    EXPECT_EQ(back, r);
  }
  EXPECT_EQ(regName(0), "r0");
  EXPECT_EQ(regName(15), "r15");
  EXPECT_EQ(regName(kRegCore), "core");
  EXPECT_EQ(regName(kRegCorelet), "corelet");
  EXPECT_EQ(regName(kRegNumCores), "ncores");
  int out = 0;
  for (const char* bad : {"", "r", "r16", "r-1", "x1", "R1", "r1x", "cores", "ncore"})
    EXPECT_FALSE(parseReg(bad, out)) << bad;
}

} // namespace
} // namespace chipless::spyrecode

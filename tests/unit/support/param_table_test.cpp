/// Tests of the parameter tables (support/spyre_params.def, support/tpu_params.def) and what
/// comes from them: the schema, each field filled from its key, the source each bundled
/// file's comments give, fingerprints, planned-with differences and the bundled names.
#include "support/arch_files.h"
#include "support/arch_record.h"
#include "support/arch_reference.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

namespace chipless {
namespace {

namespace fs = std::filesystem;

std::string hw(const std::string& file) {
  return std::string(CHIPLESS_SOURCE_DIR) + "/models/hw/" + file;
}

/// Key path -> the first word of the comment block above it ("public", "derived",
/// "estimate", or what else the block starts with). One block may cover consecutive keys.
std::map<std::string, std::string> sourcesInFile(const std::string& file) {
  std::map<std::string, std::string> out;
  std::istringstream in(readFile(file));
  std::string line, section, word;
  bool inBlock = false;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      if (!inBlock && first > 0) {
        std::string text = line.substr(line.find_first_not_of("# ", first));
        word = text.substr(0, text.find_first_of(" :,("));
      }
      inBlock = true;
      continue;
    }
    inBlock = false;
    std::string key = line.substr(first, line.find(':') - first);
    if (first == 0) {
      section = key;
      word.clear();
      continue;
    }
    out[section + "." + key] = word;
  }
  return out;
}

TEST(ParamTable, EachBundledFileSaysTheSourceItsTableDeclares) {
  struct Chip {
    std::vector<std::string> files;
    const std::vector<ParamDecl>& schema;
  };
  for (const Chip& chip :
       {Chip{{"spyre.yaml"}, SpyreArch::schema()},
        Chip{{"tpu-v4.yaml", "tpu-v5e.yaml", "tpu-v5p.yaml", "tpu-v6e.yaml"}, TpuArch::schema()}})
    for (const std::string& file : chip.files) {
      std::map<std::string, std::string> words = sourcesInFile(hw(file));
      EXPECT_EQ(words.size(), chip.schema.size()) << file;
      for (const ParamDecl& d : chip.schema) {
        ASSERT_TRUE(words.count(d.path)) << file << ": no " << d.path;
        EXPECT_EQ(words[d.path], paramSourceName(d.source))
            << file << ": the comment above " << d.path << " says '" << words[d.path]
            << "', the table declares " << paramSourceName(d.source);
      }
    }
}

TEST(ParamTable, EveryFieldIsFilledFromItsOwnKey) {
  // Give every integer and real parameter a distinct value, then read each field back by
  // its key: a field bound to the wrong key (or two keys to one field) shows up here.
  std::vector<std::string> sets;
  std::map<std::string, double> want;
  int n = 0;
  for (const ParamDecl& d : SpyreArch::schema()) {
    if (d.type != ParamType::Int && d.type != ParamType::Float) continue;
    double v = std::min(d.max, std::ceil(d.min) + 1 + n++);
    want[d.path] = v;
    std::ostringstream text;
    text.precision(17);
    text << v;
    sets.push_back(d.path + "=" + text.str());
  }
  ArchDescription desc = ArchDescription::load(hw("spyre.yaml"), SpyreArch::schema(), sets);
  SpyreArch a;
  SpyreArch::params().fill(a, desc);
  EXPECT_EQ(a.chip.cores, want["chip.cores"]);
  EXPECT_EQ(a.chip.corelets_per_core, want["chip.corelets_per_core"]);
  EXPECT_EQ(a.pt.rows, want["pt.rows"]);
  EXPECT_EQ(a.pt.cols, want["pt.cols"]);
  EXPECT_EQ(a.fifo.inputs_per_corelet, want["fifo.inputs_per_corelet"]);
  EXPECT_EQ(a.fifo.outputs_per_corelet, want["fifo.outputs_per_corelet"]);
  EXPECT_EQ(a.dram.latency_ns, want["dram.latency_ns"]);
  EXPECT_EQ(a.dram.channels, want["dram.channels"]);
  EXPECT_EQ(a.memory.segments, want["memory.segments"]);
  EXPECT_EQ(a.memory.program_segment, want["memory.program_segment"]);
  EXPECT_EQ(a.scalar.registers, want["scalar.registers"]);
  EXPECT_EQ(a.scalar.cycles_per_instruction, want["scalar.cycles_per_instruction"]);
  TpuArch t = TpuArch::load(hw("tpu-v4.yaml"));
  EXPECT_EQ(t.chip.tensorcores, 2);
  EXPECT_EQ(t.mxu.rows, 128);
  EXPECT_EQ(t.ici.topology, "torus3d");
  EXPECT_TRUE(t.mxu.overlap_weight_load);
}

TEST(ParamTable, ARangeItsFieldCannotHoldIsABugFoundWhenTheTableIsBuilt) {
  struct Tiny {
    struct {
      int n;
    } s;
  };
  ParamTable<Tiny> table;
  EXPECT_THROW(table.add(
                   ParamDecl{"s.n", ParamType::Int, 0, 1e12, {}, "", "too wide"},
                   +[](Tiny& t) -> int& { return t.s.n; }),
               Error);
  EXPECT_NO_THROW(table.add(
      ParamDecl{"s.n", ParamType::Int, 0, 100, {}, "", "fits"},
      +[](Tiny& t) -> int& { return t.s.n; }));
}

TEST(ParamTable, RolesMarkWhatTheCompilerPlansWith) {
  auto role = [](const std::vector<ParamDecl>& schema, const std::string& path) {
    for (const ParamDecl& d : schema)
      if (d.path == path) return d.role;
    ADD_FAILURE() << "no " << path;
    return ParamRole::Timing;
  };
  for (const char* planned : {"chip.cores", "chip.corelets_per_core", "scratchpad.bytes",
                              "scratchpad.planning_margin", "fifo.depth_sticks", "sfu.lanes"})
    EXPECT_EQ(role(SpyreArch::schema(), planned), ParamRole::Planned) << planned;
  for (const char* timing :
       {"chip.clock_ghz", "dram.bandwidth_gb_s", "ring.hop_latency_cycles", "dma.setup_cycles"})
    EXPECT_EQ(role(SpyreArch::schema(), timing), ParamRole::Timing) << timing;
  for (const char* planned :
       {"chip.tensorcores", "mxu.count", "mxu.rows", "vmem.bytes", "vpu.lanes", "scalar.slots"})
    EXPECT_EQ(role(TpuArch::schema(), planned), ParamRole::Planned) << planned;
  for (const char* timing : {"hbm.bandwidth_gb_s", "ici.latency_ns", "mxu.overlap_weight_load"})
    EXPECT_EQ(role(TpuArch::schema(), timing), ParamRole::Timing) << timing;
}

TEST(Fingerprint, NamesTheValuesNotWhereTheyCameFrom) {
  ArchDescription a = SpyreArch::load(hw("spyre.yaml")).description;
  ArchDescription b = SpyreArch::load(hw("spyre.yaml"), {"chip.cores=32"}).description;
  EXPECT_EQ(a.fingerprint(), b.fingerprint()) << "same values, one set by --set";
  const std::string copy = std::string(CHIPLESS_BINARY_DIR) + "/fingerprint-copy.yaml";
  a.writeResolved(copy);
  EXPECT_EQ(ArchDescription::load(copy, SpyreArch::schema(), {}).fingerprint(), a.fingerprint());
  fs::remove(copy);
  ArchDescription c = SpyreArch::load(hw("spyre.yaml"), {"dram.latency_ns=101"}).description;
  EXPECT_NE(c.fingerprint(), a.fingerprint());
  EXPECT_EQ(a.fingerprint().rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(a.fingerprint().size(), 24u);
}

TEST(PlannedDifferences, ListOnlyPlannedKeysWithBothValuesAndTheirOrigin) {
  ArchDescription compiled =
      SpyreArch::load(hw("spyre.yaml"), {"scratchpad.bytes=1048576"}).description;
  ArchDescription timingOnly =
      SpyreArch::load(hw("spyre.yaml"),
                      {"scratchpad.bytes=1048576", "dram.bandwidth_gb_s=400", "chip.clock_ghz=2"})
          .description;
  EXPECT_TRUE(timingOnly.plannedDifferences(compiled).empty());
  EXPECT_NO_THROW(checkPlannedParameters(compiled, timingOnly, "k/job.plan", "spyre-compile"));
  ArchDescription other = SpyreArch::load(hw("spyre.yaml"), {"chip.cores=16"}).description;
  std::vector<ParamDifference> d = other.plannedDifferences(compiled);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].path, "chip.cores");
  EXPECT_EQ(d[0].compiled, "32");
  EXPECT_EQ(d[0].requested, "16");
  EXPECT_EQ(d[0].origin, "--set chip.cores=16");
  EXPECT_EQ(d[1].path, "scratchpad.bytes");
  EXPECT_EQ(d[1].compiled, "1048576");
  EXPECT_EQ(d[1].requested, "2097152");
  EXPECT_NE(d[1].origin.find("spyre.yaml:"), std::string::npos) << d[1].origin;
  try {
    checkPlannedParameters(compiled, other, "k/job.plan", "spyre-compile");
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("k/job.plan"), std::string::npos) << m;
    EXPECT_NE(m.find("chip.cores: compiled for 32, requested 16 (--set chip.cores=16)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("spyre-compile ... --set chip.cores=16 --set scratchpad.bytes=2097152"),
              std::string::npos)
        << m;
  }
}

TEST(BundledArchs, NamesResolveForTheirChipOnly) {
  EXPECT_EQ(fs::path(resolveArchFile("", ChipKind::Spyre)).filename(), "spyre.yaml");
  EXPECT_EQ(fs::path(resolveArchFile("", ChipKind::Tpu)).filename(), "tpu-v5e.yaml");
  for (const char* gen : {"v4", "v5e", "v5p", "v6e"}) {
    EXPECT_TRUE(fs::exists(resolveArchFile(gen, ChipKind::Tpu))) << gen;
    EXPECT_EQ(resolveArchFile(std::string("tpu-") + gen, ChipKind::Tpu),
              resolveArchFile(gen, ChipKind::Tpu));
  }
  EXPECT_EQ(resolveArchFile("my/arch.yaml", ChipKind::Spyre), "my/arch.yaml");
  EXPECT_EQ(resolveArchFile("arch.yaml", ChipKind::Tpu), "arch.yaml");
  auto message = [](const std::string& name, ChipKind kind) {
    try {
      resolveArchFile(name, kind);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("v7", ChipKind::Tpu).find("spyre, v4, v5e, v5p, v6e"), std::string::npos);
  EXPECT_NE(message("v5p", ChipKind::Spyre).find("a tpu architecture"), std::string::npos);
  EXPECT_NE(message("spyre", ChipKind::Tpu).find("a spyre architecture"), std::string::npos);
}

TEST(ArchReference, DocsHoldTheGeneratedReference) {
  std::string docs = readFile(std::string(CHIPLESS_SOURCE_DIR) + "/docs/arch-parameters.md");
  EXPECT_EQ(docs, bundledArchReferenceMarkdown())
      << "docs/arch-parameters.md is stale: run build/bin/chipless-arch reference -o "
         "docs/arch-parameters.md";
  EXPECT_NE(docs.find("| `scratchpad.bytes` | integer 1024 .. 2^34 | bytes | planned | public |"),
            std::string::npos);
}

} // namespace
} // namespace chipless

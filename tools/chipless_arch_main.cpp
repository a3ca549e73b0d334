/// chipless-arch: the architecture descriptions and their parameters.
///
/// - `chipless-arch reference [-o FILE.md]`: the parameter reference (docs/arch-parameters.md)
/// - `chipless-arch show NAME|FILE [--set k=v ...] [--json]`: the resolved description, as a
///   run writes it (--json: every value with its type, unit and role)
/// - `chipless-arch check DIR/job.plan [--arch NAME|FILE] [--set k=v ...]`: would the program
///   run there, and with what
#include "support/any_arch.h"
#include "support/arch_files.h"
#include "support/arch_json.h"
#include "support/arch_record.h"
#include "support/arch_reference.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/progformat/plan_json.h"
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

using namespace chipless;

namespace {

/// Prints what a run of `plan` on `archOption` + `sets` would use, or throws the refusal.
void check(const std::string& plan, const std::string& archOption,
           const std::vector<std::string>& sets) {
  nlohmann::json root = nlohmann::json::parse(readFile(plan), nullptr, false);
  const bool tpu = progformat::planChip(root, plan) == ChipKind::Tpu;
  std::optional<ArchDescription> compiled;
  if (root.contains("arch"))
    compiled = readArchRecord(plan, archRecordFromJson(JsonFields(root["arch"], plan, "arch")),
                              tpu ? TpuArch::schema() : SpyreArch::schema());
  ArchDescription run =
      tpu ? runArchitecture<TpuArch>(compiled, plan, archOption, sets).description
          : runArchitecture<SpyreArch>(compiled, plan, archOption, sets).description;
  std::printf("%s runs on %s", plan.c_str(), run.sourceFile().c_str());
  for (const auto& s : sets) std::printf(" --set %s", s.c_str());
  std::printf(" (%s)\n", run.fingerprint().c_str());
  if (!compiled) return;
  int changed = 0;
  for (const ParamDecl& d : run.schema())
    if (run.valueText(d.path) != compiled->valueText(d.path)) {
      std::printf("  %s: %s -> %s (timing)\n", d.path.c_str(), compiled->valueText(d.path).c_str(),
                  run.valueText(d.path).c_str());
      ++changed;
    }
  if (changed == 0) std::printf("  the architecture it was compiled for, unchanged\n");
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"chipless-arch: architecture descriptions, their parameters and roles"};
  app.require_subcommand(1);
  std::string output, name, plan, archOption;
  std::vector<std::string> sets;
  CLI::App* ref = app.add_subcommand("reference", "print the parameter reference (Markdown)");
  ref->add_option("-o,--output", output, "write it to FILE instead of stdout");
  CLI::App* show = app.add_subcommand("show", "print a resolved description");
  show->add_option("arch", name, "spyre, v4, v5e, v5p, v6e or a file")->required();
  show->add_option("--set", sets, "key.path=value: override one parameter");
  bool json = false;
  show->add_flag("--json", json,
                 "print JSON instead: the chip, every value with its type, unit and role");
  CLI::App* chk = app.add_subcommand(
      "check", "say what a run of a program would run on, or why it would be refused");
  chk->add_option("plan", plan, "DIR/job.plan")->required();
  chk->add_option("--arch", archOption, "the run's --arch (default: what it was compiled for)");
  chk->add_option("--set", sets, "key.path=value: the run's --set");
  CLI11_PARSE(app, argc, argv);
  try {
    if (*ref) {
      std::string text = bundledArchReferenceMarkdown();
      if (output.empty())
        std::fputs(text.c_str(), stdout);
      else
        writeFileAtomically(output, text);
    } else if (*show) {
      ArchDescription description = loadAnyArch(name, sets);
      if (json)
        std::printf("%s\n", archDescriptionJson(description, chipOfArch(name)).dump(1).c_str());
      else
        std::fputs(description.toYaml().c_str(), stdout);
    } else {
      check(plan, archOption, sets);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chipless-arch: error: %s\n", e.what());
    return 1;
  }
}

#include "support/arch_record.h"

#include "support/atomic_file.h"
#include "support/error.h"

#include <spdlog/spdlog.h>

namespace chipless {

namespace {

/// Directory part of a path ("." when there is none).
std::string dirOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

nlohmann::json archRecordToJson(const ArchRecord& record) {
  return nlohmann::json{{"file", record.file}, {"fingerprint", record.fingerprint}};
}

ArchRecord archRecordFromJson(const JsonFields& fields) {
  fields.only({"file", "fingerprint"});
  ArchRecord r{fields.str("file"), fields.str("fingerprint")};
  if (r.file.empty() || r.file.find('/') != std::string::npos)
    fields.failField("file", "expected a file name in the plan's directory, got '" + r.file + "'");
  if (r.fingerprint.rfind("fnv1a64:", 0) != 0 || r.fingerprint.size() != 8 + 16)
    fields.failField("fingerprint",
                     "expected \"fnv1a64:\" and 16 hex digits, got '" + r.fingerprint + "'");
  return r;
}

ArchRecord writeArchRecord(const std::string& dir, const ArchDescription& arch) {
  writeFileAtomically(dir + "/" + kArchRecordFile, arch.toYaml());
  return {kArchRecordFile, arch.fingerprint()};
}

ArchDescription readArchRecord(const std::string& planPath, const ArchRecord& record,
                               const std::vector<ParamDecl>& schema) {
  std::string file = dirOf(planPath) + "/" + record.file;
  ArchDescription d = ArchDescription::load(file, schema, {});
  if (d.fingerprint() != record.fingerprint)
    throw Error(file + ": its values do not match the fingerprint " + planPath + " records (" +
                record.fingerprint + ", the file's is " + d.fingerprint() +
                "): it was changed after the program was compiled. Recompile, or give the "
                "changes to the run as --set key=value");
  return d;
}

void checkPlannedParameters(const ArchDescription& compiled, const ArchDescription& requested,
                            const std::string& program, const std::string& compiler) {
  std::vector<ParamDifference> diffs = requested.plannedDifferences(compiled);
  if (diffs.empty()) return;
  std::string msg = program + ": the run asks for a chip that differs from the one the program " +
                    "was compiled for (" + compiled.sourceFile() + ") in " +
                    std::to_string(diffs.size()) + " parameter" + (diffs.size() == 1 ? "" : "s") +
                    " the compiler planned with:";
  // The recompile hint: the run's own --arch and --set when it named another file, else
  // the values that differ.
  std::string hint;
  if (requested.sourceFile() != compiled.sourceFile()) {
    hint = " --arch " + requested.sourceFile();
    for (const std::string& s : requested.overrides()) hint += " --set " + s;
  }
  for (const ParamDifference& d : diffs) {
    msg += "\n  " + d.path + ": compiled for " + d.compiled + ", requested " + d.requested + " (" +
           d.origin + ")";
    if (requested.sourceFile() == compiled.sourceFile())
      hint += " --set " + d.path + "=" + d.requested;
  }
  msg += "\nRecompile for the requested chip (" + compiler + " ..." + hint +
         "); a run may change only timing parameters (bandwidths, latencies, clock; "
         "docs/architecture.md lists each parameter's role)";
  throw Error(msg);
}

ArchDescription runDescription(const std::optional<ArchDescription>& compiled,
                               const std::string& planPath, const std::string& archFile,
                               const std::string& defaultFile, const std::vector<ParamDecl>& schema,
                               const std::vector<std::string>& sets, const std::string& compiler) {
  if (!compiled) {
    const std::string& file = archFile.empty() ? defaultFile : archFile;
    spdlog::warn("{} does not record the architecture it was compiled for (it was written "
                 "before programs recorded it); running it on {}{}",
                 planPath, file, sets.empty() ? "" : " with the --set values given");
    return ArchDescription::load(file, schema, sets);
  }
  ArchDescription run =
      ArchDescription::load(archFile.empty() ? compiled->sourceFile() : archFile, schema, sets);
  checkPlannedParameters(*compiled, run, planPath, compiler);
  return run;
}

} // namespace chipless

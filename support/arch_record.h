#pragma once
/// The architecture a program was compiled for, recorded in its directory: the resolved
/// description in DIR/arch.yaml, and in job.plan the file's name and the fingerprint of its
/// values (docs/architecture.md, "The architecture record"). A run defaults to it and may
/// change only its timing parameters.
#include "support/arch_schema.h"
#include "support/json_fields.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace chipless {

/// What job.plan says about the architecture: `"arch": {"file": ..., "fingerprint": ...}`.
struct ArchRecord {
  std::string file;        ///< relative to the program directory
  std::string fingerprint; ///< ArchDescription::fingerprint() of the file's values
  bool operator==(const ArchRecord& o) const {
    return file == o.file && fingerprint == o.fingerprint;
  }
};

/// The file name a program directory's record is written to.
constexpr const char* kArchRecordFile = "arch.yaml";

/// The record as job.plan writes it.
nlohmann::json archRecordToJson(const ArchRecord& record);
/// Reads the record from the plan's `arch` object; errors name the file and the field.
ArchRecord archRecordFromJson(const JsonFields& fields);

/// Writes DIR/arch.yaml (atomically) for `arch` and returns the record that names it.
ArchRecord writeArchRecord(const std::string& dir, const ArchDescription& arch);

/// Loads the description `record` names next to `planPath` against `schema`. Throws
/// chipless::Error naming the file when it cannot be read or checked, and when its values
/// do not match the recorded fingerprint (the file was changed after compiling).
ArchDescription readArchRecord(const std::string& planPath, const ArchRecord& record,
                               const std::vector<ParamDecl>& schema);

/// Refuses to run a program compiled for `compiled` on `requested` when a planned-with
/// parameter differs: throws chipless::Error naming `program`, listing each differing key
/// with its compiled value, its requested value and where that came from, and the hint to
/// recompile with `compiler`. Does nothing when only timing parameters differ.
void checkPlannedParameters(const ArchDescription& compiled, const ArchDescription& requested,
                            const std::string& program, const std::string& compiler);

/// The description a run of the program at `planPath` uses: the one it was compiled for
/// (`compiled`), or `archFile` when the run names one, with `sets` applied; refused (as
/// checkPlannedParameters says) when a planned-with parameter would differ. A program
/// without a record runs on `archFile`, else `defaultFile`, with a warning naming it.
ArchDescription runDescription(const std::optional<ArchDescription>& compiled,
                               const std::string& planPath, const std::string& archFile,
                               const std::string& defaultFile, const std::vector<ParamDecl>& schema,
                               const std::vector<std::string>& sets, const std::string& compiler);

/// runDescription for a chip: `Arch` is SpyreArch or TpuArch; `archOption` is what the
/// user gave to --arch (a bundled name or a file; "" for none).
template <typename Arch>
Arch runArchitecture(const std::optional<ArchDescription>& compiled, const std::string& planPath,
                     const std::string& archOption, const std::vector<std::string>& sets) {
  return Arch::fromDescription(runDescription(
      compiled, planPath, archOption.empty() ? std::string() : Arch::resolveFile(archOption),
      Arch::defaultFile(), Arch::schema(), sets, Arch::kCompilers));
}

} // namespace chipless

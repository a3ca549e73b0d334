#pragma once
/// Architecture descriptions of either chip by name or file, for callers that are not tied
/// to one chip (chipless-arch, the Python module's `chipless.arch`).
#include "support/arch_files.h"
#include "support/arch_schema.h"

#include <string>
#include <vector>

namespace chipless {

/// The chip a description is for: a bundled name says it; a file says it by its sections
/// (TPU files have an `mxu` section). A word that is neither a bundled name nor a file gets
/// the error every tool's --arch gives.
ChipKind chipOfArch(const std::string& nameOrFile);

/// The description `nameOrFile` ("" for the chip's default) of chip `kind`, with `sets`
/// applied and checked.
ArchDescription loadArch(ChipKind kind, const std::string& nameOrFile,
                         const std::vector<std::string>& sets);

/// The description `nameOrFile` names, read against its chip's schema with `sets`
/// ("key.path=value") applied and checked.
ArchDescription loadAnyArch(const std::string& nameOrFile, const std::vector<std::string>& sets);

} // namespace chipless

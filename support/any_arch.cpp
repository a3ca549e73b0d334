#include "support/any_arch.h"

#include "support/atomic_file.h"
#include "support/spyre_arch.h"
#include "support/tpu_arch.h"

#include <filesystem>

namespace chipless {

ChipKind chipOfArch(const std::string& nameOrFile) {
  for (const auto& b : bundledArchs())
    if (nameOrFile == b.name || nameOrFile == "tpu-" + b.name) return b.kind;
  if (!std::filesystem::exists(nameOrFile)) resolveArchFile(nameOrFile, ChipKind::Spyre);
  return readFile(nameOrFile).find("\nmxu:") != std::string::npos ? ChipKind::Tpu : ChipKind::Spyre;
}

ArchDescription loadArch(ChipKind kind, const std::string& nameOrFile,
                         const std::vector<std::string>& sets) {
  if (kind == ChipKind::Tpu)
    return TpuArch::load(TpuArch::resolveFile(nameOrFile), sets).description;
  return SpyreArch::load(SpyreArch::resolveFile(nameOrFile), sets).description;
}

ArchDescription loadAnyArch(const std::string& nameOrFile, const std::vector<std::string>& sets) {
  return loadArch(chipOfArch(nameOrFile), nameOrFile, sets);
}

} // namespace chipless

#include "support/arch_files.h"

#include "support/error.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef CHIPLESS_SOURCE_DIR
#error "CHIPLESS_SOURCE_DIR must be defined by the build (support/CMakeLists.txt)"
#endif

namespace chipless {

namespace fs = std::filesystem;

const char* chipKindName(ChipKind kind) {
  return kind == ChipKind::Spyre ? "spyre" : "tpu";
}

ChipKind parseChipKind(const std::string& name, const std::string& what) {
  for (ChipKind k : {ChipKind::Spyre, ChipKind::Tpu})
    if (name == chipKindName(k)) return k;
  throw Error(what + " '" + name + "': expected 'spyre' or 'tpu'");
}

const std::vector<BundledArch>& bundledArchs() {
  static const std::vector<BundledArch> all = {
      {"spyre", "spyre.yaml", ChipKind::Spyre}, {"v4", "tpu-v4.yaml", ChipKind::Tpu},
      {"v5e", "tpu-v5e.yaml", ChipKind::Tpu},   {"v5p", "tpu-v5p.yaml", ChipKind::Tpu},
      {"v6e", "tpu-v6e.yaml", ChipKind::Tpu},
  };
  return all;
}

std::string bundledArchDir() {
  if (const char* dir = std::getenv("CHIPLESS_ARCH_DIR"); dir && *dir) return dir;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path candidate = exe.parent_path() / ".." / ".." / "models" / "hw";
    if (fs::is_directory(candidate, ec)) return candidate.lexically_normal().string();
  }
  return (fs::path(CHIPLESS_SOURCE_DIR) / "models" / "hw").string();
}

namespace {

/// "spyre, v4, v5e, v5p, v6e".
std::string bundledNames() {
  std::string list;
  for (const auto& b : bundledArchs()) list += (list.empty() ? "" : ", ") + b.name;
  return list;
}

/// The bundled description called `name` ("v5e" or "tpu-v5e"), or nullptr.
const BundledArch* findBundled(const std::string& name) {
  for (const auto& b : bundledArchs())
    if (name == b.name || (b.kind == ChipKind::Tpu && name == "tpu-" + b.name)) return &b;
  return nullptr;
}

} // namespace

std::string resolveArchFile(const std::string& nameOrPath, ChipKind kind) {
  std::string name = nameOrPath.empty() ? (kind == ChipKind::Spyre ? "spyre" : "v5e") : nameOrPath;
  if (const BundledArch* b = findBundled(name)) {
    if (b->kind != kind)
      throw Error("--arch " + name + ": that is a " + chipKindName(b->kind) +
                  " architecture, and this tool is for " + chipKindName(kind) +
                  " (bundled architectures: " + bundledNames() + ", or give a file)");
    return (fs::path(bundledArchDir()) / b->file).string();
  }
  std::error_code ec;
  bool looksLikePath = name.find('/') != std::string::npos ||
                       (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0) ||
                       (name.size() > 4 && name.compare(name.size() - 4, 4, ".yml") == 0);
  if (looksLikePath || fs::exists(name, ec)) return name;
  throw Error("--arch " + name + ": no such file, and not a bundled architecture (" +
              bundledNames() + ")");
}

} // namespace chipless

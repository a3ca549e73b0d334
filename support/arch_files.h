#pragma once
/// Where architecture descriptions are found: the files bundled in models/hw/ by name
/// ("spyre", "v4", "v5e", "v5p", "v6e"), or any file by path. Every tool's `--arch` goes
/// through resolveArchFile, so every tool accepts the same names and words the same errors.
#include <string>
#include <vector>

namespace chipless {

/// The chip families whose descriptions are bundled.
enum class ChipKind { Spyre, Tpu };

/// "spyre" or "tpu".
const char* chipKindName(ChipKind kind);
/// The chip `name` ("spyre" or "tpu") names; chipless::Error naming `what` otherwise.
ChipKind parseChipKind(const std::string& name, const std::string& what);

/// A description bundled in models/hw/.
struct BundledArch {
  std::string name; ///< what `--arch` accepts: "spyre", "v5e", ...
  std::string file; ///< file name in models/hw/: "spyre.yaml", "tpu-v5e.yaml", ...
  ChipKind kind;
};

/// Every bundled description, Spyre first, then the TPU generations oldest first.
const std::vector<BundledArch>& bundledArchs();

/// The directory of the bundled descriptions: $CHIPLESS_ARCH_DIR when set; else
/// <dir of the running executable>/../../models/hw when that exists (a build tree inside
/// the repository); else the source tree's models/hw.
std::string bundledArchDir();

/// The file `--arch VALUE` names for a tool of chip `kind`: "" is the chip's default
/// (spyre, v5e); a bundled name of that chip (a TPU generation also as "tpu-v5e") is its
/// file in bundledArchDir(); any other value is a path. Throws chipless::Error, listing the
/// bundled names, for a name of the other chip and for a value that is neither a bundled
/// name nor an existing file nor written like a path (with a '/' or a .yaml ending).
std::string resolveArchFile(const std::string& nameOrPath, ChipKind kind);

} // namespace chipless

#pragma once
/// The chip a format harness is built for: the same harness source reads SpyreCode or TPU
/// programs, as the two formats share one reader over chip traits (support/progformat).
/// CMake defines CHIPLESS_FUZZ_TPU for the TPU build of a harness.
#include "runtime/device.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/binary.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"
#include "support/spyrecode/plan.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/binary.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"
#include "support/tpuprog/plan.h"

namespace chipless::fuzz {

#if CHIPLESS_FUZZ_TPU
namespace format = ::chipless::tpuprog;
using ChipArch = ::chipless::TpuArch;
inline constexpr ChipKind kChip = ChipKind::Tpu;
inline constexpr const char* kHarnessChip = "tpu";
#else
namespace format = ::chipless::spyrecode;
using ChipArch = ::chipless::SpyreArch;
inline constexpr ChipKind kChip = ChipKind::Spyre;
inline constexpr const char* kHarnessChip = "spyre";
#endif

/// The chip's default architecture (models/hw), loaded once.
inline const ChipArch& defaultArch() {
  static const ChipArch arch = ChipArch::load(ChipArch::defaultFile());
  return arch;
}

} // namespace chipless::fuzz

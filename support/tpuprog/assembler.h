#pragma once
/// The TPU assembly language: text in, job plan + job binary out. The language is described
/// in docs/tpu-program.md; disassembler.h prints it back.
#include "support/tpuprog/plan.h"
#include "support/tpuprog/program.h"

#include <string>

namespace chipless::tpuprog {

/// A whole job, as the assembler produces it and a TPU program directory stores it.
struct Job {
  JobPlan plan;
  JobBinary binary;
};

/// Where the assembler places the job in HBM and how wide bundles may be (from the
/// architecture description: hbm.alignment_bytes, scalar.slots).
struct AssembleOptions {
  uint64_t programPtr = 0;
  uint64_t alignment = 512;
  int scalarSlots = 2;
};

/// Assembles `text` read from `path`. Errors throw chipless::Error naming path and line.
Job assemble(const std::string& text, const std::string& path, const AssembleOptions& options);

} // namespace chipless::tpuprog

#pragma once
/// A program directory on disk, for both formats: DIR/job.plan next to the job binary it
/// names and, when the job records its architecture, DIR/arch.yaml. Read and checked
/// against each other (the preparation plan loads that binary; every symbol of the binary
/// names something of the plan), and written all at once or not at all. What differs per
/// chip comes from `Chip` (isa_table.h) and `Chip::archSchema()`, the schema the recorded
/// architecture is read against.
#include "support/arch_record.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/progformat/binary_codec.h"
#include "support/progformat/job.h"
#include "support/progformat/plan_json.h"
#include "support/progformat/symbols.h"

#include <algorithm>
#include <string>

namespace chipless::progformat {

/// Checks every symbol of one of the job's binaries against its plan, and how each is used: a
/// float operand's symbol must be a real scalar (its value is the bits of a double) and an
/// integer expression's must not be. `binaryName` and `planName` are used in messages.
template <typename Chip>
void checkSymbols(const typename Chip::Job& job, const typename Chip::JobBinary& binary,
                  const std::string& binaryName, const std::string& planName) {
  std::vector<bool> real;
  for (const auto& name : binary.symbols) {
    std::string why;
    auto ref = resolveSymbol(job.plan, name, Chip::kDimLetters, why);
    if (!ref)
      throw Error(located(binaryName, 0, "symbol '@" + name + "' of " + planName + ": " + why));
    bool isReal = ref->kind == SymbolRef::Kind::ScalarAsReal;
    if (ref->kind == SymbolRef::Kind::Scalar)
      for (const auto& sc : job.plan.scalars) isReal |= sc.name == name && sc.real.has_value();
    real.push_back(isReal);
  }
  for (size_t pi = 0; pi < binary.programs.size(); ++pi) {
    const auto& p = binary.programs[pi];
    const auto& steps = Chip::steps(p);
    for (size_t pc = 0; pc < steps.size(); ++pc)
      for (const auto& op : Chip::ops(steps[pc])) {
        const auto& info = Chip::table()[op.op];
        for (size_t k = 0; k < op.operands.size() && k < info.operands.size(); ++k) {
          const int32_t sym = op.operands[k].sym;
          if (sym < 0 || static_cast<size_t>(sym) >= real.size()) continue;
          const bool wantReal = info.operands[k].kind == OperandKind::Float;
          if (wantReal == real[static_cast<size_t>(sym)]) continue;
          const std::string name = binary.symbols[static_cast<size_t>(sym)];
          throw Error(Chip::location(binaryName + ": program " + std::to_string(pi), p, pc) + ": " +
                      info.mnemonic + " operand '" + info.operands[k].name + "' uses '@" + name +
                      "', which " +
                      (wantReal ? "is not a real scalar (a float operand takes a constant or a "
                                  "scalar declared with type=f16, bf16 or f32)"
                                : "is a real scalar (only a float operand can take it)"));
        }
      }
  }
}

/// Reads `planPath` (DIR/job.plan), the binary it names (relative to DIR), every further
/// binary its preparation plan loads, and the recorded architecture. Errors name the file and the
/// field, line or step.
template <typename Chip>
typename Chip::Job readJob(const std::string& planPath) {
  typename Chip::Job job;
  job.plan = parsePlan<Chip>(readFile(planPath), planPath);
  std::string binPath = directoryOf(planPath) + "/" + job.plan.binaryFile;
  job.binary = decodeBinary<Chip>(readFile(binPath), binPath);
  if (job.plan.arch) job.arch = readArchRecord(planPath, *job.plan.arch, Chip::archSchema());
  // Every other file the preparation plan loads is a further binary (a multi-kernel job).
  for (const auto& c : job.plan.prepare) {
    if (c.kind != PlanCommand::Kind::InitTransfer || c.filePath == job.plan.binaryFile) continue;
    bool seen = false;
    for (const auto& [file, _] : job.extraBinaries) seen |= file == c.filePath;
    if (seen) continue;
    if (c.filePath.empty() || c.filePath.find('/') != std::string::npos || c.filePath[0] == '.')
      throw Error(located(planPath, 0,
                          "prepare: InitTransfer of '" + c.filePath +
                              "': a job binary is a file name in the plan's directory"));
    const std::string path = directoryOf(planPath) + "/" + c.filePath;
    job.extraBinaries.emplace_back(c.filePath, decodeBinary<Chip>(readFile(path), path));
  }
  checkSymbols<Chip>(job, job.binary, binPath, planPath);
  for (const auto& [file, binary] : job.extraBinaries)
    checkSymbols<Chip>(job, binary, directoryOf(planPath) + "/" + file, planPath);
  return job;
}

/// Stages DIR/job.plan, DIR/<binary> and, when the job names its architecture,
/// DIR/arch.yaml recorded in the plan, into `out` (creating DIR and its parents, removed
/// again if `out` is not committed).
template <typename Chip>
void stageJob(OutputSet& out, const std::string& dir, const typename Chip::Job& job) {
  out.makeDirectory(dir);
  typename Chip::JobPlan plan = job.plan;
  if (job.arch) {
    out.add(dir + "/" + kArchRecordFile, job.arch->toYaml());
    plan.arch = ArchRecord{kArchRecordFile, job.arch->fingerprint()};
  }
  out.add(dir + "/" + plan.binaryFile, encodeBinary<Chip>(job.binary));
  for (const auto& [file, binary] : job.extraBinaries)
    out.add(dir + "/" + file, encodeBinary<Chip>(binary));
  // The binaries of the job the directory held that this one does not have go, so that no
  // stale kernel lies beside the new plan (only files the old plan named; best effort).
  std::vector<std::string> mine{plan.binaryFile};
  for (const auto& [file, _] : job.extraBinaries) mine.push_back(file);
  try {
    const typename Chip::JobPlan old = parsePlan<Chip>(readFile(dir + "/job.plan"), dir);
    for (const auto& c : old.prepare)
      if (c.kind == PlanCommand::Kind::InitTransfer && !c.filePath.empty() &&
          c.filePath.find('/') == std::string::npos &&
          std::find(mine.begin(), mine.end(), c.filePath) == mine.end())
        out.removeAfterCommit(dir + "/" + c.filePath);
  } catch (const std::exception&) {
    // No earlier job there, or not one this build reads: nothing to remove.
  }
  out.add(dir + "/job.plan", planToJson<Chip>(plan));
}

/// stageJob and commit: the directory's files appear together, or none do.
template <typename Chip>
void writeJob(const std::string& dir, const typename Chip::Job& job) {
  OutputSet out;
  stageJob<Chip>(out, dir, job);
  out.commit();
}

} // namespace chipless::progformat

#include "support/tpuprog/directory.h"

#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyrecode/directory.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/binary.h"

namespace chipless::tpuprog {

void checkSymbols(const Job& job, const std::string& binaryName, const std::string& planName) {
  for (const auto& name : job.binary.symbols) {
    std::string why;
    if (!resolveSymbol(job.plan, name, why))
      throw Error(located(binaryName, 0, "symbol '@" + name + "' of " + planName + ": " + why));
  }
}

Job readJob(const std::string& planPath) {
  Job job;
  job.plan = parsePlan(readFile(planPath), planPath);
  std::string binPath = spyrecode::directoryOf(planPath) + "/" + job.plan.binaryFile;
  job.binary = decodeBinary(readFile(binPath), binPath);
  if (job.plan.arch) job.arch = readArchRecord(planPath, *job.plan.arch, TpuArch::schema());
  for (const auto& c : job.plan.prepare)
    if (c.kind == PlanCommand::Kind::InitTransfer && c.filePath != job.plan.binaryFile)
      throw Error(located(planPath, 0,
                          "prepare: InitTransfer of '" + c.filePath + "' but the job binary is '" +
                              job.plan.binaryFile + "'"));
  checkSymbols(job, binPath, planPath);
  return job;
}

void stageJob(OutputSet& out, const std::string& dir, const Job& job) {
  out.makeDirectory(dir);
  JobPlan plan = job.plan;
  if (job.arch) {
    out.add(dir + "/" + kArchRecordFile, job.arch->toYaml());
    plan.arch = ArchRecord{kArchRecordFile, job.arch->fingerprint()};
  }
  out.add(dir + "/" + plan.binaryFile, encodeBinary(job.binary));
  out.add(dir + "/job.plan", planToJson(plan));
}

void writeJob(const std::string& dir, const Job& job) {
  OutputSet out;
  stageJob(out, dir, job);
  out.commit();
}

} // namespace chipless::tpuprog

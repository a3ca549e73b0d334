#include "support/tpuprog/directory.h"

#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyrecode/directory.h"
#include "support/tpuprog/binary.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

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
  for (const auto& c : job.plan.prepare)
    if (c.kind == PlanCommand::Kind::InitTransfer && c.filePath != job.plan.binaryFile)
      throw Error(located(planPath, 0,
                          "prepare: InitTransfer of '" + c.filePath + "' but the job binary is '" +
                              job.plan.binaryFile + "'"));
  checkSymbols(job, binPath, planPath);
  return job;
}

void writeJob(const std::string& dir, const Job& job) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw Error(dir + ": cannot create directory: " + std::strerror(errno));
  writeFileAtomically(dir + "/" + job.plan.binaryFile, encodeBinary(job.binary));
  writeFileAtomically(dir + "/job.plan", planToJson(job.plan));
}

} // namespace chipless::tpuprog

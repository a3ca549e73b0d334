#include "support/spyrecode/directory.h"

#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/binary.h"

namespace chipless::spyrecode {

std::string directoryOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Job readJob(const std::string& planPath) {
  Job job;
  job.plan = parsePlan(readFile(planPath), planPath);
  std::string binPath = directoryOf(planPath) + "/" + job.plan.binaryFile;
  job.binary = decodeBinary(readFile(binPath), binPath);
  if (job.plan.arch) job.arch = readArchRecord(planPath, *job.plan.arch, SpyreArch::schema());
  for (const auto& c : job.plan.prepare)
    if (c.kind == PlanCommand::Kind::InitTransfer && c.filePath != job.plan.binaryFile)
      throw Error(located(planPath, 0,
                          "prepare: InitTransfer of '" + c.filePath + "' but the job binary is '" +
                              job.plan.binaryFile + "'"));
  for (const auto& name : job.binary.symbols) {
    auto dot = name.find('.');
    std::string base = name.substr(0, dot);
    if (dot != std::string::npos) {
      // ARG.dK: dimension K of a tensor argument (the runtime binds it to that size).
      const TensorArg* a = job.plan.findArg(base);
      std::string dim = name.substr(dot + 1);
      if (!a || dim.size() < 2 || dim.size() > 4 || dim[0] != 'd' ||
          dim.find_first_not_of("0123456789", 1) != std::string::npos ||
          std::stoul(dim.substr(1)) >= a->shape.size())
        throw Error(located(binPath, 0,
                            "symbol '@" + name +
                                "' is not a dimension ARG.dK of a tensor argument of " + planPath));
      continue;
    }
    bool known = job.plan.findArg(base) != nullptr;
    for (const auto& s : job.plan.scalars) known |= s.name == base;
    for (const auto& b : job.plan.buffers) known |= b.name == base;
    if (!known)
      throw Error(located(
          binPath, 0, "symbol '@" + name + "' names no argument, scalar or buffer of " + planPath));
  }
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

} // namespace chipless::spyrecode

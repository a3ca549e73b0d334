#include "runtime/remote/program_files.h"

#include "support/atomic_file.h"
#include "support/spyrecode/directory.h"
#include "support/tpuprog/directory.h"

#include <fstream>
#include <set>

namespace chipless::runtime::remote {

namespace {

/// The files of `job` besides its plan.
template <typename Job>
std::set<std::string> jobFiles(const Job& job) {
  std::set<std::string> files{job.plan.binaryFile};
  for (const auto& c : job.plan.prepare)
    if (c.kind == progformat::PlanCommand::Kind::InitTransfer) files.insert(c.filePath);
  if (job.plan.arch) files.insert(job.plan.arch->file);
  return files;
}

std::string baseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

void putProgramFiles(WireWriter& w, ChipKind kind, const std::string& planPath) {
  std::set<std::string> files = kind == ChipKind::Spyre ? jobFiles(spyrecode::readJob(planPath))
                                                        : jobFiles(tpuprog::readJob(planPath));
  std::string dir = progformat::directoryOf(planPath);
  std::string plan = baseName(planPath);
  files.erase(plan);
  w.putString(dir);
  w.putString(plan);
  w.put<uint32_t>(static_cast<uint32_t>(files.size() + 1));
  w.putString(plan);
  w.putBytes(readFile(planPath));
  for (const std::string& f : files) {
    w.putString(f);
    w.putBytes(readFile(dir + "/" + f));
  }
}

UnpackedProgram getProgramFiles(WireReader& r, const std::string& directory) {
  UnpackedProgram p;
  p.clientDirectory = r.getString("directory");
  std::string plan = r.getString("plan");
  auto plain = [&](const std::string& name, const char* field) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos)
      r.fail(field, "'" + name + "' is not a file name");
  };
  plain(plan, "plan");
  p.planPath = directory + "/" + plan;
  std::set<std::string> seen;
  for (uint32_t n = r.getCount("files", 16); n > 0; --n) {
    std::string name = r.getString("file name");
    plain(name, "file name");
    if (!seen.insert(name).second) r.fail("file name", "'" + name + "' given twice");
    std::string_view bytes = r.getBytes("file");
    std::ofstream out(directory + "/" + name, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error("device server: cannot write " + directory + "/" + name);
  }
  r.expectEnd();
  return p;
}

} // namespace chipless::runtime::remote

//===- Link.cpp - several kernel jobs as one SpyreCode job ----------------===//
//
// Part of chipless. See Link.h.
//
//===----------------------------------------------------------------------===//

#include "Link.h"

#include "support/error.h"
#include "support/progformat/symbols.h"
#include "support/spyrecode/traits.h"

#include <set>

namespace chipless::frontend {

spyrecode::Job linkKernels(const std::string& name, std::vector<CompiledKernel> kernels,
                           const std::vector<spyrecode::TensorArg>& args,
                           const std::map<std::string, int64_t>& bufferBytes,
                           const SpyreArch& arch) {
  if (kernels.empty()) throw Error(name + ": the graph has no kernel to run");
  spyrecode::Job out;
  out.plan.kernel = name;
  out.plan.args = args;
  out.arch = kernels.front().job.arch;
  std::set<std::string> argNames;
  for (const auto& a : args) argNames.insert(a.name);
  for (const auto& [buffer, bytes] : bufferBytes) out.plan.buffers.push_back({buffer, bytes});

  for (size_t k = 0; k < kernels.size(); ++k) {
    CompiledKernel& ck = kernels[k];
    const std::string prefix = "k" + std::to_string(k + 1) + "_";
    if (!ck.job.plan.scalars.empty())
      throw Error(ck.binaryFile + ": a kernel of a graph takes no scalars");
    // The kernel's own buffers (e.g. a transpose's staging memory) keep their contents to
    // themselves: renamed per kernel.
    std::map<std::string, std::string> renamed;
    for (const auto& b : ck.job.plan.buffers) {
      renamed[b.name] = prefix + b.name;
      out.plan.buffers.push_back({prefix + b.name, b.size});
    }
    for (const auto& a : ck.job.plan.args)
      if (!argNames.count(a.name) && !bufferBytes.count(a.name))
        throw Error(ck.binaryFile + ": internal error: the kernel's tensor '" + a.name +
                    "' is neither an argument nor an intermediate of the graph");
    for (std::string& s : ck.job.binary.symbols) {
      auto it = renamed.find(s);
      if (it != renamed.end()) s = it->second;
    }
    if (k == 0) {
      out.plan.binaryFile = ck.binaryFile;
      out.binary = std::move(ck.job.binary);
    } else {
      out.extraBinaries.emplace_back(ck.binaryFile, std::move(ck.job.binary));
    }
  }

  // Preparation: every binary, then every buffer, one after another in the SpyreCode
  // segment; execution: inputs in, the kernels in order, outputs out.
  std::vector<progformat::BinaryFile> files{
      {out.plan.binaryFile, static_cast<int64_t>(spyrecode::encodeBinary(out.binary).size())}};
  for (const auto& [file, binary] : out.extraBinaries)
    files.push_back({file, static_cast<int64_t>(spyrecode::encodeBinary(binary).size())});
  progformat::addSteps(out.plan, files, arch.programBase(),
                       static_cast<uint64_t>(arch.memory.alignment_bytes));

  // Every symbol of every binary must name something of the linked plan.
  auto check = [&](const std::string& file, const spyrecode::JobBinary& binary) {
    for (const std::string& s : binary.symbols) {
      std::string why;
      if (!progformat::resolveSymbol(out.plan, s, spyrecode::Traits::kDimLetters, why))
        throw Error(file + ": internal error: symbol '@" + s + "' of the linked job: " + why);
    }
  };
  check(out.plan.binaryFile, out.binary);
  for (const auto& [file, binary] : out.extraBinaries) check(file, binary);
  return out;
}

} // namespace chipless::frontend

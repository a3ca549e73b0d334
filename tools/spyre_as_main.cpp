/// spyre-as: SpyreCode assembly <-> SpyreCode directory (job.plan + init.bin + arch.yaml).
///
///   spyre-as KERNEL.s -o DIR [--arch spyre|FILE] [--set key.path=value]
///   spyre-as --disassemble DIR/job.plan [-o FILE.s]
///   spyre-as --isa-reference [-o FILE.md]
#include "support/atomic_file.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"
#include "support/spyrecode/isa_reference.h"
#include "tools/assembler_command.h"

using namespace chipless;

int main(int argc, char** argv) {
  tools::AssemblerChip chip{
      "spyre-as",
      "spyre-as: assemble SpyreCode assembly into a SpyreCode directory, or back",
      "SpyreCode directory",
      "architecture: spyre (the default) or a file",
      [] { return spyrecode::isaReferenceMarkdown(); },
      [](const std::string& plan) { return spyrecode::disassemble(spyrecode::readJob(plan)); },
      [](const std::string& input, const std::string& dir, const std::string& archFile,
         const std::vector<std::string>& sets) {
        SpyreArch arch = SpyreArch::load(SpyreArch::resolveFile(archFile), sets);
        spyrecode::writeJob(dir, spyrecode::assemble(readFile(input), input,
                                                     spyrecode::AssembleOptions::forArch(arch)));
      }};
  return tools::assemblerMain(chip, argc, argv);
}

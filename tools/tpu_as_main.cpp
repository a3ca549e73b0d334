/// tpu-as: TPU assembly <-> TPU program directory (job.plan + program.bin + arch.yaml).
///
///   tpu-as KERNEL.s -o DIR [--arch v4|v5e|v5p|v6e|FILE] [--set key.path=value]
///   tpu-as --disassemble DIR/job.plan [-o FILE.s]
///   tpu-as --isa-reference [-o FILE.md]
#include "support/atomic_file.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"
#include "support/tpuprog/isa_reference.h"
#include "tools/assembler_command.h"

using namespace chipless;

int main(int argc, char** argv) {
  tools::AssemblerChip chip{
      "tpu-as",
      "tpu-as: assemble TPU assembly into a TPU program directory, or back",
      "TPU program directory",
      "architecture: v4, v5e (the default), v5p, v6e or a file",
      [] { return tpuprog::isaReferenceMarkdown(); },
      [](const std::string& plan) { return tpuprog::disassemble(tpuprog::readJob(plan)); },
      [](const std::string& input, const std::string& dir, const std::string& archFile,
         const std::vector<std::string>& sets) {
        TpuArch arch = TpuArch::load(TpuArch::resolveFile(archFile), sets);
        tpuprog::writeJob(dir, tpuprog::assemble(readFile(input), input,
                                                 tpuprog::AssembleOptions::forArch(arch)));
      }};
  return tools::assemblerMain(chip, argc, argv);
}

/// spyre-as: SpyreCode assembly ↔ SpyreCode directory (job.plan + init.bin).
///
///   spyre-as KERNEL.s -o DIR [--arch FILE] [--set key.path=value]
///   spyre-as --disassemble DIR/job.plan [-o FILE.s]
///   spyre-as --isa-reference [-o FILE.md]
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"
#include "support/spyrecode/directory.h"
#include "support/spyrecode/disassembler.h"
#include "support/spyrecode/isa_reference.h"

#include <CLI/CLI.hpp>
#include <cstdio>

using namespace chipless;

int main(int argc, char** argv) {
  CLI::App app{"spyre-as: assemble SpyreCode assembly into a SpyreCode directory, or back"};
  std::string input, output, archFile;
  std::vector<std::string> sets;
  bool disassembleMode = false, isaReference = false;
  app.add_option("input", input, "KERNEL.s, or DIR/job.plan with --disassemble");
  app.add_option("-o,--output", output,
                 "output directory (assemble), .s file (disassemble) or .md file (ISA reference)");
  app.add_flag("-d,--disassemble", disassembleMode, "print a SpyreCode directory as assembly");
  app.add_flag("--isa-reference", isaReference,
               "print the instruction set reference (Markdown) generated from the opcode table");
  app.add_option("--arch", archFile, "architecture: spyre (the default) or a file");
  app.add_option("--set", sets, "key.path=value: override one architecture parameter");
  CLI11_PARSE(app, argc, argv);
  try {
    if (isaReference) {
      if (!input.empty() || disassembleMode) throw Error("--isa-reference takes no input");
      std::string text = spyrecode::isaReferenceMarkdown();
      if (output.empty())
        std::fputs(text.c_str(), stdout);
      else
        writeFileAtomically(output, text);
      return 0;
    }
    if (input.empty()) throw Error("missing input: KERNEL.s, or DIR/job.plan with --disassemble");
    if (disassembleMode) {
      std::string text = spyrecode::disassemble(spyrecode::readJob(input));
      if (output.empty())
        std::fputs(text.c_str(), stdout);
      else
        writeFileAtomically(output, text);
      return 0;
    }
    if (output.empty()) throw Error("assembling needs -o DIR");
    SpyreArch arch = SpyreArch::load(SpyreArch::resolveFile(archFile), sets);
    spyrecode::writeJob(output, spyrecode::assemble(readFile(input), input,
                                                    spyrecode::AssembleOptions::forArch(arch)));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spyre-as: error: %s\n", e.what());
    return 1;
  }
}

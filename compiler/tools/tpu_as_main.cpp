/// tpu-as: TPU assembly ↔ TPU program directory (job.plan + program.bin).
///
///   tpu-as KERNEL.s -o DIR [--arch FILE|GENERATION] [--set key.path=value]
///   tpu-as --disassemble DIR/job.plan [-o FILE.s]
///   tpu-as --isa-reference [-o FILE.md]
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"
#include "support/tpuprog/disassembler.h"
#include "support/tpuprog/isa_reference.h"

#include <CLI/CLI.hpp>
#include <cstdio>

using namespace chipless;

int main(int argc, char** argv) {
  CLI::App app{"tpu-as: assemble TPU assembly into a TPU program directory, or back"};
  std::string input, output, archFile;
  std::vector<std::string> sets;
  bool disassembleMode = false, isaReference = false;
  app.add_option("input", input, "KERNEL.s, or DIR/job.plan with --disassemble");
  app.add_option("-o,--output", output,
                 "output directory (assemble), .s file (disassemble) or .md file (ISA reference)");
  app.add_flag("-d,--disassemble", disassembleMode, "print a TPU program directory as assembly");
  app.add_flag("--isa-reference", isaReference,
               "print the instruction set reference (Markdown) generated from the opcode table");
  app.add_option("--arch", archFile,
                 "architecture: a file, or v4, v5e, v5p, v6e (default models/hw/tpu-v5e.yaml)");
  app.add_option("--set", sets, "key.path=value: override one architecture parameter");
  CLI11_PARSE(app, argc, argv);
  try {
    auto emit = [&](const std::string& text) {
      if (output.empty())
        std::fputs(text.c_str(), stdout);
      else
        writeFileAtomically(output, text);
    };
    if (isaReference) {
      if (!input.empty() || disassembleMode) throw Error("--isa-reference takes no input");
      emit(tpuprog::isaReferenceMarkdown());
      return 0;
    }
    if (input.empty()) throw Error("missing input: KERNEL.s, or DIR/job.plan with --disassemble");
    if (disassembleMode) {
      emit(tpuprog::disassemble(tpuprog::readJob(input)));
      return 0;
    }
    if (output.empty()) throw Error("assembling needs -o DIR");
    TpuArch arch = TpuArch::load(TpuArch::resolveFile(archFile), sets);
    tpuprog::writeJob(
        output, tpuprog::assemble(readFile(input), input, tpuprog::AssembleOptions::forArch(arch)));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpu-as: error: %s\n", e.what());
    return 1;
  }
}

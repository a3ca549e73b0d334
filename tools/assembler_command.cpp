#include "tools/assembler_command.h"

#include "support/atomic_file.h"
#include "support/error.h"

#include <CLI/CLI.hpp>
#include <cstdio>

namespace chipless::tools {

int assemblerMain(const AssemblerChip& chip, int argc, char** argv) {
  CLI::App app{chip.description};
  std::string input, output, archFile;
  std::vector<std::string> sets;
  bool disassembleMode = false, isaReference = false;
  app.add_option("input", input, "KERNEL.s, or DIR/job.plan with --disassemble");
  app.add_option("-o,--output", output,
                 "output directory (assemble), .s file (disassemble) or .md file (ISA reference)");
  app.add_flag("-d,--disassemble", disassembleMode,
               std::string("print a ") + chip.directory + " as assembly");
  app.add_flag("--isa-reference", isaReference,
               "print the instruction set reference (Markdown) generated from the opcode table");
  app.add_option("--arch", archFile, chip.archHelp);
  app.add_option("--set", sets, "key.path=value: override one architecture parameter");
  CLI11_PARSE(app, argc, argv);
  auto emit = [&](const std::string& text) {
    if (output.empty())
      std::fputs(text.c_str(), stdout);
    else
      writeFileAtomically(output, text);
  };
  try {
    if (isaReference) {
      if (!input.empty() || disassembleMode) throw Error("--isa-reference takes no input");
      emit(chip.isaReference());
      return 0;
    }
    if (input.empty()) throw Error("missing input: KERNEL.s, or DIR/job.plan with --disassemble");
    if (disassembleMode) {
      emit(chip.disassemble(input));
      return 0;
    }
    if (output.empty()) throw Error("assembling needs -o DIR");
    chip.assemble(input, output, archFile, sets);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", chip.tool, e.what());
    return 1;
  }
}

} // namespace chipless::tools

#pragma once
/// `spyre-as` and `tpu-as`, written once: assemble a kernel into a program directory (for the
/// architecture `--arch`/`--set` name, which the directory records), disassemble a directory
/// back into assembly, or print the ISA reference generated from the opcode table.
#include <functional>
#include <string>
#include <vector>

namespace chipless::tools {

/// What an assembler tool does for its chip.
struct AssemblerChip {
  const char* tool;        ///< "spyre-as"
  const char* description; ///< the --help headline
  const char* directory;   ///< what a program directory is called: "SpyreCode directory"
  const char* archHelp;    ///< the --arch help
  std::function<std::string()> isaReference;
  /// DIR/job.plan -> assembly text.
  std::function<std::string(const std::string& plan)> disassemble;
  /// KERNEL.s -> DIR, for the architecture --arch and --set name.
  std::function<void(const std::string& input, const std::string& dir, const std::string& arch,
                     const std::vector<std::string>& sets)>
      assemble;
};

/// main() of an assembler tool: errors are printed as "TOOL: error: ..." with status 1.
int assemblerMain(const AssemblerChip& chip, int argc, char** argv);

} // namespace chipless::tools

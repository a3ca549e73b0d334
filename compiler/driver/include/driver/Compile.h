//===- Compile.h - one compile of a kernel or graph into a program --*- C++ -*-===//
//
// Part of chipless. What spyre-compile and tpu-compile do, as a library: the tools and the
// Python module (`chipless.compile`) call the same code, so a program compiled either way is
// byte-identical and every error reads the same.
//
//===----------------------------------------------------------------------===//

#ifndef DRIVER_COMPILE_H
#define DRIVER_COMPILE_H

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace chipless::driver {

/// Everything a compile is told besides its source, as the tools' options spell it.
struct CompileRequest {
  std::string arch;              ///< --arch: a bundled name or a file ("" for the default)
  std::vector<std::string> sets; ///< --set key.path=value
  std::string outputDir;         ///< -o: the program directory to write
  std::string dumpDir;           ///< --dump-dir ("" for none)

  // Spyre, KTIR kernels only.
  std::string entry;                  ///< --entry FUNC
  std::vector<std::string> constants; ///< --const NAME=VALUE
  std::vector<std::string> bounds;    ///< --bound NAME=[MIN..]MAX[/G]
  std::vector<int64_t> grid;          ///< --grid N,...

  // Spyre, tensor graphs only.
  std::vector<std::string> divisions; ///< --division KERNEL=INDEX
  bool dumpCandidates = false;        ///< --dump-candidates
  bool keepInScratchpad = true;       ///< --keep-in-scratchpad (tensor graphs)

  // Spyre, for the lit suite.
  bool verifyDiagnostics = false; ///< check expected-error comments instead of reporting
  bool splitInputFile = false;    ///< compile each `// -----` chunk alone

  /// Receives the time each stage takes (--timing); empty for none.
  std::function<void(const std::string& stage, double seconds)> timing;
};

/// Compiles the KTIR kernel or tensor graph in `source` (its buffer name is the file name the
/// errors give) for Spyre into the SpyreCode directory `request.outputDir`. Located errors
/// (`file:line:col: error: ...`) go to `diagnostics` and the result is false; an error
/// without a location (a bad option, an unreadable architecture) throws chipless::Error.
/// Nothing is written unless the whole compile succeeds.
bool compileSpyre(std::unique_ptr<llvm::MemoryBuffer> source, const CompileRequest& request,
                  llvm::raw_ostream& diagnostics);

/// Compiles the tensor graph in `source` for a TPU into the program directory
/// `request.outputDir`; errors as compileSpyre. The Spyre-only fields must be empty.
bool compileTpu(std::unique_ptr<llvm::MemoryBuffer> source, const CompileRequest& request,
                llvm::raw_ostream& diagnostics);

} // namespace chipless::driver

#endif // DRIVER_COMPILE_H

//===- ktir_opt_main.cpp - ktir-opt: parse, verify, transform, print KTIR -===//
//
// Part of chipless. The MlirOptMain driver over the ktdp and spyreop dialects and the
// upstream dialects KTIR uses: `ktir-opt kernel.mlir` parses, verifies and prints;
// `-verify-diagnostics`, `-split-input-file` and upstream passes work as in mlir-opt.
// Each input chunk goes through the ParseGuard check first (GuardedOptMain.h), so text
// that would crash MLIR 19's parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#include "ktir/GuardedOptMain.h"
#include "ktir/KtirRegistration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <utility>

int main(int argc, char** argv) {
  // Stack traces on a crash, as MlirOptMain(argc, argv, …) sets up.
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  chipless::ktir::registerKtirDialects(registry);
  chipless::ktir::registerKtirPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "ktir-opt: KTIR (ktdp, spyreop) optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) // prints them without reading the input
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  mlir::LogicalResult result =
      chipless::ktir::guardedMlirOptMain(output->os(), std::move(file), registry, config);
  if (mlir::succeeded(result)) output->keep();
  return mlir::asMainReturnCode(result);
}

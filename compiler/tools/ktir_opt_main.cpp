//===- ktir_opt_main.cpp - ktir-opt: parse, verify, transform, print KTIR -===//
//
// Part of chipless. The MlirOptMain driver over the ktdp and spyreop dialects and the
// upstream dialects KTIR uses: `ktir-opt kernel.mlir` parses, verifies and prints;
// `-verify-diagnostics`, `-split-input-file` and upstream passes work as in mlir-opt.
// Each input chunk goes through the ParseGuard check first, so text that would crash
// MLIR 19's parser gets located errors instead.
//
//===----------------------------------------------------------------------===//

#include "ktir/KtirRegistration.h"
#include "ktir/ParseGuard.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>
#include <utility>

namespace {

/// Runs the ParseGuard check on one chunk. Errors go to stderr, or with
/// -verify-diagnostics to the expected-diagnostics verifier, whose verdict is returned.
/// Returns std::nullopt when the chunk passes (MlirOptMain then processes it).
std::optional<mlir::LogicalResult> guardChunk(const llvm::MemoryBuffer& chunk,
                                              bool verifyDiagnostics) {
  if (chipless::ktir::findParseHazards(chunk.getBuffer()).empty()) return std::nullopt;
  mlir::MLIRContext context;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(chunk.getBuffer(), chunk.getBufferIdentifier()),
      llvm::SMLoc());
  if (verifyDiagnostics) {
    mlir::SourceMgrDiagnosticVerifierHandler verifier(sources, &context);
    (void)chipless::ktir::checkParseHazards(sources, &context);
    return verifier.verify();
  }
  mlir::SourceMgrDiagnosticHandler handler(sources, &context, llvm::errs());
  return chipless::ktir::checkParseHazards(sources, &context);
}

} // namespace

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
  // Chunks are split here so that each is guarded before MlirOptMain sees it.
  mlir::MlirOptMainConfig chunkConfig = config;
  chunkConfig.splitInputFile("");
  auto processChunk = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                          llvm::raw_ostream& os) -> mlir::LogicalResult {
    if (std::optional<mlir::LogicalResult> guarded =
            guardChunk(*chunk, config.shouldVerifyDiagnostics()))
      return *guarded;
    return mlir::MlirOptMain(os, std::move(chunk), registry, chunkConfig);
  };
  mlir::LogicalResult result = mlir::splitAndProcessBuffer(
      std::move(file), processChunk, output->os(), std::as_const(config).inputSplitMarker(),
      std::as_const(config).outputSplitMarker());
  if (mlir::succeeded(result)) output->keep();
  return mlir::asMainReturnCode(result);
}

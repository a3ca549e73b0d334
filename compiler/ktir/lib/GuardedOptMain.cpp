//===- GuardedOptMain.cpp - MlirOptMain behind the ParseGuard check -------===//
//
// Part of chipless. See GuardedOptMain.h.
//
//===----------------------------------------------------------------------===//

#include "ktir/GuardedOptMain.h"

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

namespace chipless::ktir {

namespace {

/// Runs the ParseGuard check on one chunk. Errors go to stderr, or with
/// -verify-diagnostics to the expected-diagnostics verifier, whose verdict is returned.
/// Returns std::nullopt when the chunk passes (MlirOptMain then processes it).
std::optional<mlir::LogicalResult> guardChunk(const llvm::MemoryBuffer& chunk,
                                              bool verifyDiagnostics) {
  if (findParseHazards(chunk.getBuffer()).empty()) return std::nullopt;
  mlir::MLIRContext context;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(chunk.getBuffer(), chunk.getBufferIdentifier()),
      llvm::SMLoc());
  if (verifyDiagnostics) {
    mlir::SourceMgrDiagnosticVerifierHandler verifier(sources, &context);
    (void)checkParseHazards(sources, &context);
    return verifier.verify();
  }
  mlir::SourceMgrDiagnosticHandler handler(sources, &context, llvm::errs());
  return checkParseHazards(sources, &context);
}

} // namespace

int guardedOptMain(int argc, char** argv, llvm::StringRef toolName, mlir::DialectRegistry& registry,
                   llvm::function_ref<void(mlir::MlirOptMainConfig&)> adjust) {
  // Stack traces on a crash, as MlirOptMain(argc, argv, …) sets up.
  llvm::InitLLVM initLLVM(argc, argv);
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, toolName, registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (adjust) adjust(config);
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
    std::string prepared = prepareSource(chunk->getBuffer());
    if (prepared != chunk->getBuffer())
      chunk = llvm::MemoryBuffer::getMemBufferCopy(prepared, chunk->getBufferIdentifier());
    return mlir::MlirOptMain(os, std::move(chunk), registry, chunkConfig);
  };
  mlir::LogicalResult result = mlir::splitAndProcessBuffer(
      std::move(file), processChunk, output->os(), std::as_const(config).inputSplitMarker(),
      std::as_const(config).outputSplitMarker());
  if (mlir::succeeded(result)) output->keep();
  return mlir::asMainReturnCode(result);
}

} // namespace chipless::ktir

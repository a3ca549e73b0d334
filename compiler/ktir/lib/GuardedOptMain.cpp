//===- GuardedOptMain.cpp - MlirOptMain behind the ParseGuard check -------===//
//
// Part of chipless. See GuardedOptMain.h.
//
//===----------------------------------------------------------------------===//

#include "ktir/GuardedOptMain.h"

#include "ktir/ParseGuard.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

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

mlir::LogicalResult guardedMlirOptMain(llvm::raw_ostream& output,
                                       std::unique_ptr<llvm::MemoryBuffer> input,
                                       mlir::DialectRegistry& registry,
                                       const mlir::MlirOptMainConfig& config) {
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
  return mlir::splitAndProcessBuffer(std::move(input), processChunk, output,
                                     config.inputSplitMarker(), config.outputSplitMarker());
}

} // namespace chipless::ktir

//===- EmitFile.h - a DataflowIR file to a SpyreCode job --------*- C++ -*-===//
//
// Part of chipless. A plain C++ entry point with no MLIR in its interface, for tests and
// tools that are not MLIR tools (and do not take MLIR's compile flags).
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_EMIT_EMITFILE_H
#define DATAFLOW_EMIT_EMITFILE_H

#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <string>

namespace chipless::dataflow {

/// Parses and verifies the DataflowIR file `path` and emits the SpyreCode job of its
/// dfir.job (the one named `jobName` when the file has several) for `arch`. Throws
/// chipless::Error whose message holds every diagnostic ("FILE:LINE:COL: error: ...").
spyrecode::Job emitSpyreCodeFile(const std::string& path, const SpyreArch& arch,
                                 const std::string& jobName = "");

} // namespace chipless::dataflow

#endif // DATAFLOW_EMIT_EMITFILE_H

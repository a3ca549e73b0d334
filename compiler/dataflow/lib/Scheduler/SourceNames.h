//===- SourceNames.h - names read from the source text --------*- C++ -*-===//
//
// Part of chipless. Private to the Dataflow Scheduler. A plan's tensors and scalars are
// named after the SSA names of the KTIR text (docs/ktir.md, "How arguments bind"), which
// MLIR does not keep: they are read back from the text at each value's location.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_LIB_SCHEDULER_SOURCENAMES_H
#define DATAFLOW_LIB_SCHEDULER_SOURCENAMES_H

#include "mlir/IR/Location.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace chipless::sched {

/// SSA names recovered from the source text that locations point at ("%x_ptr: index" ->
/// "x_ptr"; "%A_addr = arith.constant" -> "A_addr"). One lives for one compile: the files it
/// reads are kept for that compile only, so a long-lived process (the device server, eager
/// PyTorch) neither grows with every kernel name it has seen nor reads a file it has since
/// changed from a stale copy.
class SourceNames {
public:
  /// Names read from the buffers of `sources` (the text that was parsed) where a location
  /// names one of them, else from the file the location names.
  explicit SourceNames(const llvm::SourceMgr* sources = nullptr) : sources_(sources) {}
  /// The name at `loc`; nullopt when the location is not a file position with a name there.
  std::optional<std::string> at(mlir::Location loc);

private:
  /// The lines of the buffer or file called `path`.
  std::vector<std::string> linesOf(const std::string& path) const;

  const llvm::SourceMgr* sources_;
  std::map<std::string, std::vector<std::string>> lines_;
};
/// A tensor argument name from an SSA name: without '%' and without the suffixes _ptr,
/// _addr, _address, _start_address, _base.
std::string argumentName(const std::string& ssaName);
/// A name usable as a SpyreCode symbol: letters, digits and '_', not starting with a digit.
std::string sanitizeName(const std::string& name);

} // namespace chipless::sched

#endif // DATAFLOW_LIB_SCHEDULER_SOURCENAMES_H

//===- Link.h - several kernel jobs as one SpyreCode job ---------*- C++ -*-===//
//
// Part of chipless. Each kernel of a graph compiles to a SpyreCode job of its own; linking
// makes them one job: the graph's arguments and results are its tensor arguments, every
// tensor kernels exchange is a buffer of the job (device memory kept between launches),
// each kernel's binary is loaded once at preparation, and every launch copies the inputs
// in, runs the kernels in order (one ComputeOnDevice each) and copies the outputs out.
//
//===----------------------------------------------------------------------===//

#ifndef FRONTEND_LINK_H
#define FRONTEND_LINK_H

#include "support/spyre_arch.h"
#include "support/spyrecode/assembler.h"

#include <string>
#include <vector>

namespace chipless::frontend {

/// One compiled kernel and the name of its binary file ("k1_matmul.bin").
struct CompiledKernel {
  std::string binaryFile;
  spyrecode::Job job;
};

/// Links `kernels` (in run order) into one job named `name` whose tensor arguments are
/// `args` (graph arguments and results); every other tensor a kernel names is a buffer of
/// `bufferBytes[name]` bytes. Throws chipless::Error on a kernel that cannot be linked.
spyrecode::Job linkKernels(const std::string& name, std::vector<CompiledKernel> kernels,
                           const std::vector<spyrecode::TensorArg>& args,
                           const std::map<std::string, int64_t>& bufferBytes,
                           const SpyreArch& arch);

} // namespace chipless::frontend

#endif // FRONTEND_LINK_H

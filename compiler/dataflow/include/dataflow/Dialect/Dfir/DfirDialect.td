//===- DfirDialect.td - the dfir (DataflowIR) dialect ------*- tablegen -*-===//
//
// Part of chipless. DataflowIR is the output of the Dataflow Scheduler and the input of
// the SpyreCode emitter: one program per hardware unit, ops that map one-to-one to
// SpyreCode instructions, scalar control in the upstream arith and scf dialects.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_DIALECT_DFIR_DFIRDIALECT_TD
#define DATAFLOW_DIALECT_DFIR_DFIRDIALECT_TD

include "mlir/IR/OpBase.td"

def Dfir_Dialect : Dialect {
  let name = "dfir";
  let cppNamespace = "::mlir::dfir";
  let summary = "DataflowIR: per-unit programs of SpyreCode instructions";
  let description = [{
    A `dfir.job` is one SpyreCode job: its tensor arguments, scalars and
    buffers, and one `dfir.program` per hardware unit (dma_in, dma_out, ring,
    load, compute, store) and range of cores/corelets. A program's body is
    scalar code on `index` values (upstream `arith` and `scf`) and one op per
    SpyreCode instruction family (`dfir.dma_load`, `dfir.ld_stream`,
    `dfir.sfu`, `dfir.pt_mm`, tokens, ...), whose operands are the operands
    of the instruction in the opcode table (support/spyrecode/isa.h). The
    emitter (compiler/dataflow/lib/Emit) allocates the scalar registers,
    lowers loops and branches and writes the SpyreCode directory. See
    docs/dataflow-ir.md.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

class Dfir_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dfir_Dialect, mnemonic, traits>;

#endif // DATAFLOW_DIALECT_DFIR_DFIRDIALECT_TD

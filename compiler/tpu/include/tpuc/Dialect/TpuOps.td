//===- TpuOps.td - the tpu dialect of the TPU compiler -----*- tablegen -*-===//
//
// Part of chipless. The TPU compiler (compiler/tpu) groups the ops of a tensor graph
// (docs/graph-ir.md) into kernels: one `tpu.kernel` per TPU kernel, holding the upstream
// linalg/tensor/arith ops it fuses. Later passes annotate each kernel with attributes (MXU
// tiling, HBM and VMEM allocation, the work of each TensorCore); the emitter turns them into
// TPU assembly (docs/tpu-program.md).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DIALECT_TPUOPS_TD
#define TPUC_DIALECT_TPUOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Tpu_Dialect : Dialect {
  let name = "tpu";
  let cppNamespace = "::chipless::tpuc";
  let summary = "Kernels of the TPU compiler";
  let description = [{
    The grouping the TPU compiler makes of a tensor graph: each `tpu.kernel`
    is one kernel of the TPU program (a matmul on the MXUs with fused
    element-wise and reduction epilogues on the VPU, or a VPU-only kernel).
    Its body holds ordinary upstream ops on tensors. See docs/graph-ir.md for
    the graph form and docs/tpu-compiler.md for the passes.
  }];
}

class Tpu_Op<string mnemonic, list<Trait> traits = []> : Op<Tpu_Dialect, mnemonic, traits>;

def Tpu_KernelOp : Tpu_Op<"kernel", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "One kernel of the TPU program";
  let description = [{
    The ops of the body run as one kernel: the first compute op is its *root*
    (a `linalg.matmul` / `linalg.batch_matmul` on the MXUs, or a
    `linalg.generic`), whose iteration space [batch..., M, N] the kernel walks
    in blocks of rows; the other ops are element-wise ops on that space and
    reductions over N, fused onto the VPU. Values from outside (function
    arguments, results of earlier kernels and views of them) are read from
    HBM; the yielded values are written to HBM and are the kernel's results.
    Kernels run one after another in program order.

    Passes add attributes: `tpu.mxu` (tiling of the matmul onto the MXUs),
    `tpu.results` (where each result goes in HBM), `tpu.vmem` (rows per unit
    of work and the VMEM layout), `tpu.cores` (the units of each TensorCore).

    Example:
    ```mlir
    %0 = tpu.kernel "k0_matmul" -> tensor<200x260xf32> {
      %e = tensor.empty() : tensor<200x260xf32>
      %c = arith.constant 0.0 : f32
      %f = linalg.fill ins(%c : f32) outs(%e : tensor<200x260xf32>) -> tensor<200x260xf32>
      %m = linalg.matmul ins(%a, %b : tensor<200x300xbf16>, tensor<300x260xbf16>)
                         outs(%f : tensor<200x260xf32>) -> tensor<200x260xf32>
      tpu.yield %m : tensor<200x260xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name attr-dict-with-keyword (`->` type($results)^)? $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The yield of the body.
    YieldOp getYield();
  }];
}

def Tpu_YieldOp : Tpu_Op<"yield", [Pure, ReturnLike, Terminator, HasParent<"KernelOp">]> {
  let summary = "The values a kernel writes to HBM";
  let description = [{
    Terminates a `tpu.kernel`; its operands become the kernel's results.

    Example: `tpu.yield %y, %z : tensor<8x128xf32>, tensor<8x128xbf16>`
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* empty */ }]>];
}

#endif // TPUC_DIALECT_TPUOPS_TD

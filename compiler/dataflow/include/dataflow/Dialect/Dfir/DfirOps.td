//===- DfirOps.td - dfir (DataflowIR) operations -----------*- tablegen -*-===//
//
// Part of chipless. The job container and its argument declarations, the per-unit
// programs, the launch-bound scalar leaves, and one op per SpyreCode instruction family.
//
// The instruction ops take exactly the operands of their opcode in the SpyreCode opcode
// table (support/spyrecode/isa.cpp), with the same names and in the same order:
// integer operands ("expressions") are `index` SSA values, ports, directions, reduction
// kinds and float immediates are attributes named like the operand. Their textual form,
// verifier and emission are driven by that table (DfirIsa.h), not restated here.
//
//===----------------------------------------------------------------------===//

#ifndef DATAFLOW_DIALECT_DFIR_DFIROPS_TD
#define DATAFLOW_DIALECT_DFIR_DFIROPS_TD

include "dataflow/Dialect/Dfir/DfirDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Dfir_ArgRole : I32EnumAttr<"ArgRole", "role of a tensor argument", [
    I32EnumAttrCase<"Input", 0, "input">,
    I32EnumAttrCase<"Output", 1, "output">,
    I32EnumAttrCase<"InOut", 2, "inout">
  ]> {
  let cppNamespace = "::mlir::dfir";
}

//===----------------------------------------------------------------------===//
// The job and its arguments
//===----------------------------------------------------------------------===//

def Dfir_JobOp : Dfir_Op<"job", [Symbol, NoTerminator, SingleBlock, IsolatedFromAbove,
                                 NoRegionArguments]> {
  let summary = "One SpyreCode job: arguments, scalars, buffers and unit programs";
  let description = [{
    The container of everything one SpyreCode directory holds. Its single
    block declares the tensor arguments (`dfir.tensor_arg`), the launch-bound
    scalars (`dfir.scalar_arg`) and the persistent device buffers
    (`dfir.buffer`), in launch order, and holds the programs
    (`dfir.program`). The symbol name becomes the kernel name of the plan.

    Rules: argument, scalar and buffer names are unique across the three
    kinds; a tensor dimension is a positive constant or the name of a
    declared scalar; no two programs run on the same engine (same unit, an
    overlapping core range and overlapping corelets).

    Example:
    ```mlir
    dfir.job @relu {
      dfir.scalar_arg "R"
      dfir.tensor_arg "X" role = input, dtype = f16, shape = ["R", 64]
      dfir.tensor_arg "Y" role = output, dtype = f16, shape = ["R", 64]
      dfir.program unit = "compute", cores = [0, 0], corelet = 0 {
        %r = dfir.symbol "R"
        dfir.sfu "relu" f16 n = %r, dst = "out0", a = "in0"
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The declaration named `name` (a tensor_arg, scalar_arg or buffer), or null.
    ::mlir::Operation* lookupArgument(::llvm::StringRef name);
  }];
}

def Dfir_TensorArgOp : Dfir_Op<"tensor_arg", [HasParent<"JobOp">]> {
  let summary = "A tensor argument of the job";
  let description = [{
    Declares tensor argument `name`, bound to fresh device memory at every
    launch: `role` says whether the job reads it (`input`), writes it
    (`output`) or both (`inout`); `dtype` is its element type on the device
    (`f16`, `bf16`, `f32` or `i32`); `shape` lists its host dimensions, each
    a positive integer or the name of a `dfir.scalar_arg`. `layout` is the
    device layout: `"stick"` (the default)
    or `"row_major"` (the elements packed as on the host, as KTIR kernels
    address global memory). Programs read the argument's device address with
    `dfir.symbol "NAME"` and its dimension K with `dfir.symbol "NAME.dK"`.

    Example:
    ```mlir
    dfir.tensor_arg "A" role = input, dtype = f16, shape = [32, "N"], layout = "stick"
    ```
  }];
  let arguments = (ins StrAttr:$name, Dfir_ArgRole:$role, TypeAttr:$dtype,
                       ArrayAttr:$shape, OptionalAttr<StrAttr>:$layout);
  let assemblyFormat = [{
    $name `role` `=` $role `,` `dtype` `=` $dtype `,` `shape` `=` $shape
    (`,` `layout` `=` $layout^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Dfir_ScalarArgOp : Dfir_Op<"scalar_arg", [HasParent<"JobOp">]> {
  let summary = "An integer or real argument bound at launch";
  let description = [{
    Declares scalar `name`: bound at launch (`spyre-sim run --scalar N=256`)
    or read off the shape of a tensor argument that names it. Programs read
    an integer scalar with `dfir.symbol "N"`. The optional constraints are
    the values the programs handle (a KTIR runtime_arg's granularity and
    upperbound); the runtime rejects any other value at launch. With
    `type`, the scalar is a real number (a KTIR `%eps: f16` argument),
    rounded to that float type at launch and read by float operands
    (`dfir.sfu_splat ... value = @eps`).

    Example:
    ```mlir
    dfir.scalar_arg "N"
    dfir.scalar_arg "n" multiple_of 4096 min 0 max 4194304
    dfir.scalar_arg "eps" type f16
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<I64Attr>:$multiple_of,
                       OptionalAttr<I64Attr>:$min, OptionalAttr<I64Attr>:$max,
                       OptionalAttr<TypeAttr>:$type);
  let assemblyFormat = [{
    $name (`multiple_of` $multiple_of^)? (`min` $min^)? (`max` $max^)? (`type` $type^)? attr-dict
  }];
  let builders = [
    // An unconstrained integer scalar.
    OpBuilder<(ins "::llvm::StringRef":$name), [{
      build($_builder, $_state, $_builder.getStringAttr(name), nullptr, nullptr, nullptr,
            nullptr);
    }]>
  ];
  let hasVerifier = 1;
}

def Dfir_BufferOp : Dfir_Op<"buffer", [HasParent<"JobOp">]> {
  let summary = "Device memory the job keeps between launches";
  let description = [{
    Declares buffer `name` of `size` bytes, allocated once at preparation in
    the SpyreCode segment. Programs read its device address with
    `dfir.symbol "tmp"`.

    Example:
    ```mlir
    dfir.buffer "tmp" size = 4096
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$size);
  let assemblyFormat = "$name `size` `=` $size attr-dict";
  let hasVerifier = 1;
}

def Dfir_ProgramOp : Dfir_Op<"program", [HasParent<"JobOp">, NoTerminator, SingleBlock,
                                         IsolatedFromAbove,
                                         NoRegionArguments]> {
  let summary = "The program of one hardware unit on a range of cores and corelets";
  let description = [{
    The instruction stream of unit `unit` (`"dma_in"`, `"dma_out"`,
    `"ring"`, `"load"`, `"compute"` or `"store"`) on every core in
    `cores = [first, last]` (or `cores = all`: through the last core of the
    chip), on corelet `corelet` of each (-1: every corelet; the per-core
    units dma_in, dma_out and ring always use -1). Every selected engine runs
    its own copy with its own registers; `dfir.core_id` and
    `dfir.corelet_id` tell the copies apart.

    The body is one block of scalar code: `index` values computed with
    `arith` (constant, addi, subi, muli, divsi, remsi, shli, shrsi, andi,
    ori, xori, minsi, maxsi, cmpi, select), control flow with `scf.for` and
    `scf.if`, the launch-bound leaves (`dfir.symbol`, `dfir.core_id`, ...)
    and the instruction ops, each of which must be one the unit may run.

    Example:
    ```mlir
    dfir.program unit = "load", cores = all, corelet = -1 {
      %c0 = arith.constant 0 : index
      %n = dfir.symbol "N"
      dfir.ld_stream n0 = %n, fifo = "in0", addr = %c0
    }
    ```
  }];
  let arguments = (ins StrAttr:$unit, DenseI32ArrayAttr:$cores, I32Attr:$corelet);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `unit` `=` $unit `,` `cores` `=` custom<CoreRange>($cores) `,` `corelet` `=` $corelet
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The unit, parsed (the verifier guarantees that it is valid).
    ::chipless::spyrecode::Unit getUnitKind();
    /// First and last core; the last is chipless::spyrecode::kAllCores for `cores = all`.
    int32_t getFirstCore() { return getCores()[0]; }
    int32_t getLastCore() { return getCores()[1]; }
    /// The corelet, -1 for every corelet.
    int32_t getCoreletIndex() { return static_cast<int32_t>(getCoreletAttr().getInt()); }
  }];
}

//===----------------------------------------------------------------------===//
// Launch-bound scalar leaves
//===----------------------------------------------------------------------===//

class Dfir_LeafOp<string mnemonic> : Dfir_Op<mnemonic, [Pure]> {
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, $_builder.getIndexType()); }]>];
}

def Dfir_CoreIdOp : Dfir_LeafOp<"core_id"> {
  let summary = "Index of the core running this copy of the program";
  let description = [{
    The read-only register `core` of the engine: 0..ncores-1. Costs no
    instruction; it is folded into the operands that use it.

    Example:
    ```mlir
    %core = dfir.core_id
    ```
  }];
}

def Dfir_CoreletIdOp : Dfir_LeafOp<"corelet_id"> {
  let summary = "Index of the corelet running this copy of the program";
  let description = [{
    The read-only register `corelet` of the engine (0 on the per-core units
    dma_in, dma_out and ring).

    Example:
    ```mlir
    %l = dfir.corelet_id
    ```
  }];
}

def Dfir_NumCoresOp : Dfir_LeafOp<"num_cores"> {
  let summary = "Number of cores of the chip";
  let description = [{
    The read-only register `ncores`: the chip's core count, so that one
    program divides work over any chip size.

    Example:
    ```mlir
    %nc = dfir.num_cores
    ```
  }];
}

def Dfir_SymbolOp : Dfir_Op<"symbol", [Pure]> {
  let summary = "A value bound at launch: address, dimension, scalar or buffer";
  let description = [{
    The launch value of symbol `name`: the device address of tensor argument
    `A` (`"A"`), the size of its host dimension K (`"A.dK"`), the value of a
    scalar (`"N"`) or the device address of a buffer (`"tmp"`). Costs no
    instruction: an operand may add one symbol to a register and a constant
    (`%sym + %r + 64` is one operand).

    Example:
    ```mlir
    %a = dfir.symbol "A"
    %cols = dfir.symbol "A.d1"
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name), [{
    build($_builder, $_state, $_builder.getIndexType(), name);
  }]>];
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

def Dfir_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::mlir::dfir";
  let description = [{
    An op that is one SpyreCode instruction. Its operands and attributes are
    the instruction's operands in the opcode table (DfirIsa.h reads them by
    the table's names and order).
  }];
  let methods = [
    InterfaceMethod<"The SpyreCode opcode this op encodes.",
                    "::chipless::spyrecode::Opcode", "getOpcode">
  ];
}

/// An instruction op. Parsing, printing and verification are driven by the opcode table;
/// `opcode` names the opcode (an enumerator of chipless::spyrecode::Opcode), or is empty
/// when the op computes it (dfir.sfu).
class Dfir_InstrOp<string mnemonic, string opcode, list<Trait> traits = []>
    : Dfir_Op<mnemonic, traits # [DeclareOpInterfaceMethods<Dfir_InstructionOpInterface>]> {
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDefinition = !if(!empty(opcode), "", [{
    ::chipless::spyrecode::Opcode $cppClass::getOpcode() {
      return ::chipless::spyrecode::Opcode::}] # opcode # [{;
    }
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser& parser,
                                         ::mlir::OperationState& result) {
      return ::mlir::dfir::parseInstruction(parser, result,
                                            ::chipless::spyrecode::Opcode::}] # opcode # [{);
    }
    void $cppClass::print(::mlir::OpAsmPrinter& p) { ::mlir::dfir::printInstruction(p, *this); }
    ::mlir::LogicalResult $cppClass::verify() { return ::mlir::dfir::verifyInstruction(*this); }
  }]);
}

def Dfir_TokenSendOp : Dfir_InstrOp<"token_send", "TSend"> {
  let summary = "tsend: send one token";
  let description = [{
    Adds a token to id `token` of this core, or of core `core` when given
    (the token then travels the ring). Tokens are counting semaphores that
    carry times: this is how engines say "buffer full" or "buffer free" to
    each other. Emits `tsend token[, core=…]`.

    Example:
    ```mlir
    dfir.token_send token = %c4
    dfir.token_send token = %t, core = %next
    ```
  }];
  let arguments = (ins Index:$token, Optional<Index>:$core);
}

def Dfir_TokenWaitOp : Dfir_InstrOp<"token_wait", "TWait"> {
  let summary = "twait: wait for a token and consume it";
  let description = [{
    Waits until id `token` of this core has a token, takes the earliest and
    stalls the engine until its time. Emits `twait token`.

    Example:
    ```mlir
    dfir.token_wait token = %c0
    ```
  }];
  let arguments = (ins Index:$token);
}

def Dfir_NopOp : Dfir_InstrOp<"nop", "Nop"> {
  let summary = "nop: spend cycles doing nothing";
  let description = [{
    Spends `cycles` cycles (default 1). Emits `nop[ cycles]`.

    Example:
    ```mlir
    dfir.nop
    dfir.nop cycles = %c4
    ```
  }];
  let arguments = (ins Optional<Index>:$cycles);
}

class Dfir_DmaOp<string mnemonic, string opcode> : Dfir_InstrOp<mnemonic, opcode,
                                                                [AttrSizedOperandSegments]> {
  let arguments = (ins Index:$sp, Index:$mem, Index:$bytes,
                       Optional<Index>:$n1, Optional<Index>:$ms1, Optional<Index>:$ss1,
                       Optional<Index>:$n2, Optional<Index>:$ms2, Optional<Index>:$ss2,
                       Optional<Index>:$n3, Optional<Index>:$ms3, Optional<Index>:$ss3,
                       Optional<Index>:$done);
}

def Dfir_DmaLoadOp : Dfir_DmaOp<"dma_load", "DmaLoad"> {
  let summary = "dma.load: device memory to the scratchpad";
  let description = [{
    Copies runs of `bytes` (whole sticks) from device memory at `mem` to the
    scratchpad at `sp`, repeated over up to three outer dimensions (count
    `nK`, memory stride `msK`, scratchpad stride `ssK`); token `done` fires
    on this core when the data has landed. Only on the dma_in unit. Emits
    `dma.load sp=…, mem=…, bytes=…, …`.

    Example:
    ```mlir
    %x = dfir.symbol "X"
    dfir.dma_load sp = %c0, mem = %x, bytes = %b, n1 = %s, ms1 = %ms, ss1 = %ss, done = %c0
    ```
  }];
}

def Dfir_DmaStoreOp : Dfir_DmaOp<"dma_store", "DmaStore"> {
  let summary = "dma.store: the scratchpad to device memory";
  let description = [{
    Copies the scratchpad to device memory; operands as `dfir.dma_load`;
    token `done` fires when the data is in device memory. Only on the
    dma_out unit. Emits `dma.store sp=…, mem=…, bytes=…, …`.

    Example:
    ```mlir
    %y = dfir.symbol "Y"
    dfir.dma_store sp = %buf, mem = %y, bytes = %b, done = %c8
    ```
  }];
}

def Dfir_RingSendOp : Dfir_InstrOp<"ring_send", "RingSend", [AttrSizedOperandSegments]> {
  let summary = "ring.send: scratchpad to another core's scratchpad";
  let description = [{
    Sends `bytes` from this core's scratchpad at `src` to core `core`'s
    scratchpad at `dst` over the ring: the shortest way, or `dir = cw` /
    `ccw`. `op = add | max | min` combines with the data at the destination
    in element type `dtype` (optional, f16 when omitted); `token` fires on the
    destination core on arrival, `done` here once the source was read. Only
    on the ring unit. Emits `ring.send[.T] core=…, src=…, dst=…, bytes=…, …`.

    Example:
    ```mlir
    dfir.ring_send f32 core = %next, src = %c0, dst = %off, bytes = %b, dir = cw, op = add, token = %c1
    ```
  }];
  let arguments = (ins Index:$core, Index:$src, Index:$dst, Index:$bytes,
                       OptionalAttr<StrAttr>:$dir, OptionalAttr<StrAttr>:$op,
                       Optional<Index>:$token, Optional<Index>:$done,
                       OptionalAttr<TypeAttr>:$dtype);
}

def Dfir_LdStreamOp : Dfir_InstrOp<"ld_stream", "LdStream", [AttrSizedOperandSegments]> {
  let summary = "ld.stream: scratchpad sticks into an input FIFO";
  let description = [{
    Pushes n0*n1*n2 sticks into input FIFO `fifo` (`"in0"`..); stick
    (i0, i1, i2) is read at `addr + i0*s0 + i1*s1 + i2*s2` (s0 defaults to
    one stick, 128 bytes). An optional second lane (`fifo_b`, `addr_b`,
    `sb0..sb2`) is pushed in lockstep. Only on the load unit. Emits
    `ld.stream n0=…, fifo=…, addr=…, …`.

    Example:
    ```mlir
    dfir.ld_stream n0 = %n, fifo = "in0", addr = %a, fifo_b = "in1", addr_b = %b
    ```
  }];
  let arguments = (ins Index:$n0, StrAttr:$fifo, Index:$addr,
                       Optional<Index>:$s0, Optional<Index>:$s1, Optional<Index>:$s2,
                       Optional<Index>:$n1, Optional<Index>:$n2,
                       OptionalAttr<StrAttr>:$fifo_b, Optional<Index>:$addr_b,
                       Optional<Index>:$sb0, Optional<Index>:$sb1, Optional<Index>:$sb2);
}

def Dfir_StStreamOp : Dfir_InstrOp<"st_stream", "StStream", [AttrSizedOperandSegments]> {
  let summary = "st.stream: an output FIFO into scratchpad sticks";
  let description = [{
    Pops n0*n1*n2 sticks from output FIFO `fifo` (`"out0"`..) into the
    scratchpad at `addr + i0*s0 + i1*s1 + i2*s2`. Only on the store unit.
    Emits `st.stream n0=…, fifo=…, addr=…, …`.

    Example:
    ```mlir
    dfir.st_stream n0 = %n, fifo = "out0", addr = %y, s0 = %stride
    ```
  }];
  let arguments = (ins Index:$n0, StrAttr:$fifo, Index:$addr,
                       Optional<Index>:$s0, Optional<Index>:$s1, Optional<Index>:$s2,
                       Optional<Index>:$n1, Optional<Index>:$n2);
}

def Dfir_SfuOp : Dfir_InstrOp<"sfu", ""> {
  let summary = "sfu.KIND.T: one vector instruction of the SFU";
  let description = [{
    One SFU instruction `sfu.KIND.T` over `n` sticks: KIND is any SFU opcode
    of the table but splat (`mov`, `neg`, `abs`, `exp`, `log`, `recip`,
    `rsqrt`, `sqrt`, `sigmoid`, `tanh`, `gelu`, `silu`, `relu`, `add`, `sub`,
    `mul`, `div`, `max`, `min`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `fma`,
    `select`, `acc.add`, `acc.max`, `acc.min`, `lane.add`, `lane.max`,
    `lane.min`) and T the element type. Its ports are the ones the table
    lists for KIND (`dst`, `a` and, as the kind needs, `b`, `c`, `cond`):
    sources are input FIFOs or SFU registers (`"in0"`, `"v3"`), destinations
    output FIFOs or registers (`"out0"`, `"v1"`; a register for `acc.*`).
    Only on the compute unit.

    Example:
    ```mlir
    dfir.sfu "add" f16 n = %n, dst = "out0", a = "in0", b = "in1"
    dfir.sfu "acc.max" f16 n = %s, dst = "v0", a = "in0"
    ```
  }];
  let arguments = (ins StrAttr:$kind, TypeAttr:$dtype, Index:$n, StrAttr:$dst,
                       OptionalAttr<StrAttr>:$cond, StrAttr:$a,
                       OptionalAttr<StrAttr>:$b, OptionalAttr<StrAttr>:$c);
}

def Dfir_SfuSplatOp : Dfir_InstrOp<"sfu_splat", "SfuSplat"> {
  let summary = "sfu.splat.T: fill an SFU register with a constant or a real scalar";
  let description = [{
    Sets every lane of SFU register `dst` (`"v0"`..) to `value`: a float (a
    number, or "inf", "-inf", "nan"), or `@name`, a real scalar of the job
    bound at launch (a KTIR `%eps: f16` argument). Only on the compute unit.

    Example:
    ```mlir
    dfir.sfu_splat f16 dst = "v0", value = "-inf"
    dfir.sfu_splat f32 dst = "v2", value = 0.000000e+00
    dfir.sfu_splat f16 dst = "v1", value = @eps
    ```
  }];
  let arguments = (ins TypeAttr:$dtype, StrAttr:$dst, AnyAttr:$value);
}

def Dfir_SfuLaneMaskOp : Dfir_InstrOp<"sfu_lane_mask", "SfuLaneMask"> {
  let summary = "sfu.lane.mask.T: a register of 1 in the lanes below a count, 0 above";
  let description = [{
    Sets SFU register `dst` (`"v0"`..) to 1 in the lanes below `lanes` and 0
    in the others: the condition of an `sfu.select` that writes the lanes
    past a row's last element. Only on the compute unit.

    Example:
    ```mlir
    dfir.sfu_lane_mask f16 dst = "v0", lanes = %c48
    ```
  }];
  let arguments = (ins TypeAttr:$dtype, StrAttr:$dst, Index:$lanes);
}

def Dfir_SfuSplatIntOp : Dfir_InstrOp<"sfu_splat_int", "SfuSplatInt"> {
  let summary = "sfu.splat.int.T: an index value in every lane of a register";
  let description = [{
    Sets every lane of SFU register `dst` (`"v0"`..) to the integer `value`
    (an index value: a loop variable, a tile's position, an integer launch
    value, or arithmetic on them), converted to T. How a KTIR
    `linalg.generic` body reads an index computed outside it. Only on the
    compute unit.

    Example:
    ```mlir
    dfir.sfu_splat_int i32 dst = "v0", value = %j16
    ```
  }];
  let arguments = (ins TypeAttr:$dtype, StrAttr:$dst, Index:$value);
}

def Dfir_SfuCvtOp : Dfir_InstrOp<"sfu_cvt", "SfuCvt"> {
  let summary = "sfu.cvt.T: sticks of element type `from` converted to T";
  let description = [{
    Converts `n` result sticks of element type T from sticks of element type
    `from` (`f16` default, `bf16`, `f32`, `i32`) read from source `a` (and
    `b`): lane by lane between types of one size; a widening (16 to 32 bits)
    takes half `part` (0 or 1) of each stick of `a`; a narrowing (32 to 16
    bits) puts `a`'s lanes in the first half of each result stick and `b`'s in
    the second. The destination is an output FIFO. Only on the compute unit.

    Example:
    ```mlir
    dfir.sfu_cvt f32 n = %n, dst = "out0", a = "in0", from = f16, part = %c1
    dfir.sfu_cvt f16 n = %n, dst = "out0", a = "in0", b = "in1", from = f32
    ```
  }];
  let arguments = (ins TypeAttr:$dtype, Index:$n, StrAttr:$dst, StrAttr:$a,
                       OptionalAttr<StrAttr>:$b, OptionalAttr<StrAttr>:$from,
                       Optional<Index>:$part);
}

def Dfir_PtMmOp : Dfir_InstrOp<"pt_mm", "PtMm", [AttrSizedOperandSegments]> {
  let summary = "pt.mm.T: a matmul tile on the PT array";
  let description = [{
    Loads B (k x n, row-major) from input FIFO `b` as stationary weights,
    streams A (m x k) from input FIFO `a` and accumulates in fp32: `acc` = 1
    adds to the previous tile's accumulators, 0 (default) starts from zero;
    `emit` = 1 (default) pushes the m x n result to output FIFO `dst` in
    element type `out` (`f16` default, `bf16`, `f32`). Only on the compute
    unit.

    Example:
    ```mlir
    dfir.pt_mm f16 m = %m, k = %k, n = %n, a = "in0", b = "in1", dst = "out0", acc = %c1, out = f32
    ```
  }];
  let arguments = (ins TypeAttr:$dtype, Index:$m, Index:$k, Index:$n, StrAttr:$a,
                       StrAttr:$b, OptionalAttr<StrAttr>:$dst, Optional<Index>:$acc,
                       Optional<Index>:$emit, OptionalAttr<StrAttr>:$out);
}


def Dfir_DmaLoadBytesOp : Dfir_DmaOp<"dma_loadb", "DmaLoadB"> {
  let summary = "dma.loadb: device memory to the scratchpad, at byte granularity";
  let description = [{
    `dfir.dma_load` for data that is not laid out in whole sticks: `bytes`,
    both addresses and every stride may be any number of bytes (rows shorter
    than a stick, element gathers). The transfer costs every stick a run
    touches in device memory. Only on the dma_in unit. Emits
    `dma.loadb sp=…, mem=…, bytes=…, …`.

    Example:
    ```mlir
    dfir.dma_loadb sp = %buf, mem = %x, bytes = %c8, n1 = %c4, ms1 = %c8, ss1 = %c128
    ```
  }];
}

def Dfir_DmaStoreBytesOp : Dfir_DmaOp<"dma_storeb", "DmaStoreB"> {
  let summary = "dma.storeb: the scratchpad to device memory, at byte granularity";
  let description = [{
    `dfir.dma_store` that writes exactly `bytes` of each run, at any address
    and stride. Only on the dma_out unit. Emits `dma.storeb sp=…, mem=…, …`.

    Example:
    ```mlir
    dfir.dma_storeb sp = %buf, mem = %y, bytes = %c8, done = %c3
    ```
  }];
}

def Dfir_LdScalarOp : Dfir_InstrOp<"ld_scalar", "LdScalar"> {
  let summary = "ld.scalar.T: read an index from the scratchpad";
  let description = [{
    The element of type T (`i32`) at scratchpad byte address `addr` (a
    multiple of the element size), sign-extended to an `index`: how an engine
    reads an index that the kernel computed or loaded (gather and scatter
    addresses). Any unit. The result is a register value like any other
    scalar. Emits `ld.scalar.T rd, addr`.

    Example:
    ```mlir
    %row = dfir.ld_scalar i32 addr = %slot
    ```
  }];
  let arguments = (ins TypeAttr:$dtype, Index:$addr);
  let results = (outs Index:$rd);
  let builders = [OpBuilder<(ins "::mlir::Type":$dtype, "::mlir::Value":$addr), [{
    build($_builder, $_state, $_builder.getIndexType(), ::mlir::TypeAttr::get(dtype), addr);
  }]>];
}

#endif // DATAFLOW_DIALECT_DFIR_DFIROPS_TD

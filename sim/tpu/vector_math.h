#pragma once
/// What the VPU computes (the numbers; timing is in tensor_core_vector.cpp): conversions between
/// VMEM rows and 32-bit register lanes, and the element-wise, fill and reduction operations
/// on whole (sublanes x lanes) vector registers. Lanes hold f32 or i32 bits.
#include "support/dtype.h"
#include "support/tpuprog/isa.h"

#include <cstdint>

namespace chipless::sim::tpu {

/// Loads `lanes` elements of `type` from `row` into 32-bit lanes: bf16 widens to f32, i8
/// sign-extends to i32, f32 and i32 copy.
void loadRow(DType type, const uint8_t* row, uint32_t* lanes, int count);
/// Stores 32-bit lanes as `type`: f32 rounds to bf16 (nearest even), i32 saturates to i8.
void storeRow(DType type, const uint32_t* lanes, uint8_t* row, int count);

/// Whether an operation runs on the transcendental pipeline (exp, log, rcp, rsqrt, sqrt,
/// tanh, div).
bool isTranscendental(tpuprog::Opcode op);

/// One vector-ALU operation on one register of `size` lanes (sublanes * lanes), laid out
/// sublane-major. `a`, `b`, `c` are the sources the opcode uses (c is the condition of vsel),
/// `scalar` the value of vsplat (double) or vbcast (integer).
void valu(tpuprog::Opcode op, DType type, uint32_t* d, const uint32_t* a, const uint32_t* b,
          const uint32_t* c, double scalar, int sublanes, int lanes);

/// viota on register `index` (0..n-1) of the operation: every element its lane index
/// (`sublaneAxis` false) or its row index index*sublanes + r, as f32 or i32.
void iota(DType type, uint32_t* d, bool sublaneAxis, int64_t index, int sublanes, int lanes);

} // namespace chipless::sim::tpu

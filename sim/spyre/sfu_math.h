#pragma once
/// The arithmetic of the SFU and of ring reductions, on sticks. Lanes are held as 32-bit
/// patterns: fp32 values for floating-point element types, int32 for i32. Inputs are
/// decoded exactly, computed in fp32 (int32 for i32) and rounded once when written to a
/// stick in its element type; SFU registers keep full fp32.
#include "support/dtype.h"
#include "support/numerics.h"
#include "support/spyre_arch.h"
#include "support/spyrecode/isa.h"

#include <cstddef>
#include <cstdint>

namespace chipless::sim::spyre {

/// Elements of type dt in one stick.
inline int lanesOf(DType dt, int64_t stickBytes) {
  return static_cast<int>(elementsInStick(stickBytes, static_cast<int64_t>(dtypeSize(dt))));
}

/// Decodes n elements (one stick, or several back to back) into 32-bit lanes, in bulk
/// (support/numerics_bulk.h).
void decodeStick(DType dt, Fp16Format fmt, const uint8_t* stick, uint32_t* lanes, size_t n);
/// Encodes n lanes into elements (one stick or several), rounding to nearest even.
void encodeStick(DType dt, Fp16Format fmt, const uint32_t* lanes, uint8_t* stick, size_t n);

/// True for ops that use the SFU's transcendental latency.
bool isTranscendental(spyrecode::Opcode op);
/// Elementwise SFU op on n lanes; b and c are only read by ops that take them.
void applyElementwise(spyrecode::Opcode op, DType dt, int n, const uint32_t* a, const uint32_t* b,
                      const uint32_t* c, uint32_t* out);
/// applyElementwise over `items` sticks of n lanes, with the op chosen once for the whole
/// run: stick `it` of out (back to back) = op of a + it*aStride, b + it*bStride and
/// c + it*cStride, where a stride is 0 for a register (the same stick every item) or n for
/// a stream. out may be a source of stride n (the same stick is read, then written) but
/// must not otherwise overlap the sources. b and c may be null for ops that do not read them.
void applyElementwiseRun(spyrecode::Opcode op, DType dt, int n, int64_t items, const uint32_t* a,
                         int64_t aStride, const uint32_t* b, int64_t bStride, const uint32_t* c,
                         int64_t cStride, uint32_t* out);
/// One lane of an elementwise float op, dispatched per call: the reference the bulk runs are
/// tested against.
float sfuFloatOp(spyrecode::Opcode op, float a, float b, float c);
/// One lane of an elementwise i32 op (wrapping), dispatched per call.
int32_t sfuIntOp(spyrecode::Opcode op, int32_t a, int32_t b, int32_t c);
/// acc = acc (+|max|min) a, lane by lane (sfu.acc.*).
void applyAccumulate(spyrecode::Opcode op, DType dt, int n, const uint32_t* a, uint32_t* acc);
/// out[every lane] = reduction of a's n lanes (sfu.lane.*).
void applyLaneReduce(spyrecode::Opcode op, DType dt, int n, const uint32_t* a, uint32_t* out);

/// How ring.send combines data with the destination.
enum class RingOp : int { None = 0, Add = 1, Max = 2, Min = 3 };
/// dst = dst (op) src over `sticks` sticks of element type dt.
void combineSticks(RingOp op, DType dt, Fp16Format fmt, const uint8_t* src, uint8_t* dst,
                   size_t sticks, size_t stickBytes);

} // namespace chipless::sim::spyre

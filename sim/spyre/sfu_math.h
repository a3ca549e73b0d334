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

/// Decodes the n elements of a stick into 32-bit lanes.
void decodeStick(DType dt, Fp16Format fmt, const uint8_t* stick, uint32_t* lanes, int n);
/// Encodes n lanes into a stick, rounding to nearest even.
void encodeStick(DType dt, Fp16Format fmt, const uint32_t* lanes, uint8_t* stick, int n);

/// True for ops that use the SFU's transcendental latency.
bool isTranscendental(spyrecode::Opcode op);
/// Elementwise SFU op on n lanes; b and c are only read by ops that take them.
void applyElementwise(spyrecode::Opcode op, DType dt, int n, const uint32_t* a, const uint32_t* b,
                      const uint32_t* c, uint32_t* out);
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

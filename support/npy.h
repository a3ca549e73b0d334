#pragma once
/// NumPy .npy files: how tensors enter and leave the platform (spyre-sim --input/--output,
/// the Python module, the conformance suite).
#include "support/dtype.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chipless {

/// A dense tensor as stored in a .npy file: C (row-major) order, little-endian elements.
/// Invariant: data.size() == elements() * dtypeSize(dtype).
struct NpyArray {
  /// Element type; .npy files carry F16 ('<f2'), F32 ('<f4'), I32 ('<i4') or I8 ('|i1').
  DType dtype = DType::F32;
  /// Extent of each dimension, outermost first; empty for a 0-d (scalar) array.
  std::vector<int64_t> shape;
  /// The raw little-endian element bytes in C order.
  std::vector<uint8_t> data;

  /// Number of elements: the product of `shape` (1 for a scalar, 0 if any extent is 0).
  size_t elements() const;
};

/// Reads a .npy file (format versions 1.0, 2.0 and 3.0) with dtype '<f2', '<f4', '<i4' or '|i1'
/// ('=' and '|' byte-order marks are accepted as little-endian on this little-endian host).
/// Every problem throws chipless::Error "path: <field>: what was found and what was expected":
/// unreadable file, bad magic, unsupported version, malformed header, missing or malformed
/// 'descr' / 'fortran_order' / 'shape', unsupported or big-endian dtype, Fortran order, and
/// data shorter or longer than the shape requires.
NpyArray readNpy(const std::string& path);

/// Writes `array` as a version 1.0 .npy file byte-for-byte as numpy.save would (header padded
/// to a multiple of 64 bytes), atomically: `path` only appears once complete. Throws
/// chipless::Error naming `path` if the array is inconsistent (negative extent, data size not
/// matching the shape), its dtype is BF16 (numpy has no bfloat16), or the write fails.
void writeNpy(const std::string& path, const NpyArray& array);
/// The bytes writeNpy writes; errors name `path` (the file they are meant for).
std::string encodeNpy(const NpyArray& array, const std::string& path);
/// The header of those bytes (magic, version, dict, padding): what comes before the data.
/// Checks the array as encodeNpy does. Header then npyData(array) is encodeNpy's output
/// without copying a large tensor into one string.
std::string npyHeader(const NpyArray& array, const std::string& path);
/// The data bytes of `array`, as they follow the header in a .npy file.
std::string_view npyData(const NpyArray& array);

/// A zero-filled array of the given type and shape, ready to be filled and written.
NpyArray makeNpy(DType dtype, std::vector<int64_t> shape);

} // namespace chipless

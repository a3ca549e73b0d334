#pragma once
/// Large host buffers (device memory regions, scratchpads, tensors read from and written to
/// .npy files) without the cost of small page faults.
///
/// A functional run touches hundreds of megabytes of fresh memory. In 4 KB pages every first
/// touch is a page fault (about 4 us each on the CI's virtual machines: a second for 256 MB);
/// in 2 MB transparent huge pages it is 512 times fewer faults. Linux hands out huge pages for
/// memory that asks for them (`madvise(MADV_HUGEPAGE)`, the usual `madvise` setting of
/// /sys/kernel/mm/transparent_hugepage/enabled) before it is first touched. Elsewhere the
/// advice is a no-op and everything works as plain memory.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace chipless {

/// Asks the kernel to back the whole 2 MB pages inside [data, data + bytes) with huge pages;
/// call it before the memory is first touched. Small ranges and other systems: nothing.
void adviseHugePages(void* data, size_t bytes);

/// Resizes `bytes` to `size`, new bytes zero, reserving first and advising huge pages so that a
/// large buffer is faulted in 2 MB pages when the zeros are written.
void resizeHuge(std::vector<uint8_t>& bytes, size_t size);

/// A zero-filled byte buffer of fixed size that costs nothing until it is touched: large ones
/// are anonymous memory mappings (zero pages handed out on first touch, 2 MB huge pages where
/// the kernel can), small ones come from calloc. Move-only.
class ZeroedBuffer {
public:
  ZeroedBuffer() = default;
  /// `size` zero bytes (none: data() is null).
  explicit ZeroedBuffer(size_t size);
  ZeroedBuffer(ZeroedBuffer&& other) noexcept;
  ZeroedBuffer& operator=(ZeroedBuffer&& other) noexcept;
  ZeroedBuffer(const ZeroedBuffer&) = delete;
  ZeroedBuffer& operator=(const ZeroedBuffer&) = delete;
  ~ZeroedBuffer();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

private:
  void release();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr; ///< the whole mapping (null: data_ came from calloc)
  size_t mappingBytes_ = 0;
};

} // namespace chipless

#include "support/host_buffer.h"

#include <cstdlib>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace chipless {
namespace {

/// The size of a transparent huge page on x86-64 and arm64 (4 KB base pages).
constexpr size_t kHugePage = size_t(2) << 20;

} // namespace

void adviseHugePages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t last = (begin + bytes) / kHugePage * kHugePage;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

void resizeHuge(std::vector<uint8_t>& bytes, size_t size) {
  if (size > bytes.capacity()) {
    bytes.reserve(size);
    adviseHugePages(bytes.data() + bytes.size(), size - bytes.size());
  }
  bytes.resize(size);
}

ZeroedBuffer::ZeroedBuffer(size_t size) : size_(size) {
  if (size == 0) return;
#if defined(__linux__)
  if (size >= kHugePage) {
    // Room to start at a 2 MB boundary, so that every 2 MB of the buffer can be a huge page.
    mappingBytes_ = size + kHugePage;
    void* m =
        ::mmap(nullptr, mappingBytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    mapping_ = m;
    const uintptr_t at = (reinterpret_cast<uintptr_t>(m) + kHugePage - 1) / kHugePage * kHugePage;
    data_ = reinterpret_cast<uint8_t*>(at);
    adviseHugePages(data_, size);
    return;
  }
#endif
  data_ = static_cast<uint8_t*>(std::calloc(size, 1));
  if (!data_) throw std::bad_alloc();
}

ZeroedBuffer::ZeroedBuffer(ZeroedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      mappingBytes_(std::exchange(other.mappingBytes_, 0)) {}

ZeroedBuffer& ZeroedBuffer::operator=(ZeroedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mappingBytes_ = std::exchange(other.mappingBytes_, 0);
  }
  return *this;
}

ZeroedBuffer::~ZeroedBuffer() {
  release();
}

void ZeroedBuffer::release() {
#if defined(__linux__)
  if (mapping_) {
    ::munmap(mapping_, mappingBytes_);
  } else {
    std::free(data_);
  }
#else
  std::free(data_);
#endif
  data_ = nullptr;
  size_ = 0;
  mapping_ = nullptr;
  mappingBytes_ = 0;
}

} // namespace chipless

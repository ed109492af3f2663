// A heap buffer aligned for O_DIRECT I/O (BlockFile::write_at_direct), sized up to a whole number
// of kDirectAlign blocks. Not copyable; the owner wipes it if it held secrets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/io/file.h"

namespace warpvol {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t n) : size_((n + kDirectAlign - 1) / kDirectAlign * kDirectAlign) {
    void* p = nullptr;
    if (size_ && posix_memalign(&p, kDirectAlign, size_) != 0) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
  }
  AlignedBuffer(AlignedBuffer&& o) noexcept : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = o.data_;
      size_ = o.size_;
      o.data_ = nullptr;
      o.size_ = 0;
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }  // allocated bytes (a multiple of kDirectAlign)

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace warpvol

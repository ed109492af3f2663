// A job's data buffer, handed out by the engine that will process it (XtsEngine::io_buffer): page-locked memory on
// the GPU engine, so that a block read from the file is DMAed to the GPU straight from it (no pageable -> pinned
// staging copy in and out); ordinary page-aligned memory on the CPU engine. Either way it is aligned and sized for
// BlockFile::write_at_direct (multiples of kDirectAlign). Move-only; the owner wipes it if it held secrets (a
// released buffer may be kept by the engine for the next job).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

namespace warpvol {

class IoBuffer {
 public:
  using Release = std::function<void(uint8_t*, size_t)>;
  IoBuffer() = default;
  IoBuffer(uint8_t* data, size_t size, Release release, bool pinned)
      : data_(data), size_(size), release_(std::move(release)), pinned_(pinned) {}
  IoBuffer(IoBuffer&& o) noexcept { swap(o); }
  IoBuffer& operator=(IoBuffer&& o) noexcept {
    if (this != &o) {
      IoBuffer t(std::move(o));
      swap(t);
    }
    return *this;
  }
  IoBuffer(const IoBuffer&) = delete;
  IoBuffer& operator=(const IoBuffer&) = delete;
  ~IoBuffer() {
    if (data_ && release_) release_(data_, size_);
  }

  // Page-aligned heap memory (AlignedBuffer's allocation: 2 MiB pages for large buffers where THP is on).
  static IoBuffer aligned(size_t bytes);

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }  // a multiple of kDirectAlign, at least what was asked for
  bool pinned() const { return pinned_; }  // page-locked (the GPU engine DMAs from it without a copy)

 private:
  void swap(IoBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(release_, o.release_);
    std::swap(pinned_, o.pinned_);
  }
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  Release release_;
  bool pinned_ = false;
};

}  // namespace warpvol

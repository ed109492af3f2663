// A small binary writer and reader for warpvol's own formats (the re-encryption journal, the mount spec passed to
// warpvol-mountd): fixed-width integers in a stated byte order and raw bytes. The reader is bounded: every read
// checks what is left and throws Error(Format) "<what>: truncated" on short input, so a parser built on it cannot
// read past its buffer whatever the input says.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpvol {

class ByteWriter {
 public:
  // Appends to `out` (growing it).
  explicit ByteWriter(std::vector<uint8_t>& out) : vec_(&out) {}
  // Writes into the fixed buffer [buf, buf + cap), never reallocating (key material stays in locked memory);
  // going past cap throws Error(Format) "<what>: too long".
  ByteWriter(uint8_t* buf, size_t cap, std::string what) : buf_(buf), cap_(cap), what_(std::move(what)) {}

  void bytes(const void* p, size_t n);
  void u8(uint8_t v) { bytes(&v, 1); }
  void u16le(uint16_t v) { put_le(v, 2); }
  void u32le(uint32_t v) { put_le(v, 4); }
  void u64le(uint64_t v) { put_le(v, 8); }
  void u16be(uint16_t v) { put_be(v, 2); }
  void u32be(uint32_t v) { put_be(v, 4); }
  void u64be(uint64_t v) { put_be(v, 8); }
  size_t size() const { return vec_ ? vec_->size() : n_; }

 private:
  void put_le(uint64_t v, int width);
  void put_be(uint64_t v, int width);
  std::vector<uint8_t>* vec_ = nullptr;
  uint8_t* buf_ = nullptr;
  size_t cap_ = 0, n_ = 0;
  std::string what_;
};

class ByteReader {
 public:
  // `what` prefixes the error message ("" = none).
  ByteReader(const uint8_t* p, size_t n, std::string what = "") : p_(p), n_(n), what_(std::move(what)) {}

  // The next n bytes, in place; throws when fewer are left.
  const uint8_t* take(size_t n);
  void bytes(void* out, size_t n);
  uint8_t u8() { return *take(1); }
  uint16_t u16le() { return uint16_t(get_le(2)); }
  uint32_t u32le() { return uint32_t(get_le(4)); }
  uint64_t u64le() { return get_le(8); }
  uint16_t u16be() { return uint16_t(get_be(2)); }
  uint32_t u32be() { return uint32_t(get_be(4)); }
  uint64_t u64be() { return get_be(8); }
  size_t left() const { return n_ - pos_; }
  bool done() const { return pos_ == n_; }

 private:
  uint64_t get_le(int width);
  uint64_t get_be(int width);
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
  std::string what_;
};

}  // namespace warpvol

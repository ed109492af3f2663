#include "core/io/binary.h"

#include <cstring>

#include "core/util/error.h"

namespace warpvol {

namespace {
std::string message(const std::string& what, const char* problem) {
  return what.empty() ? std::string(problem) : what + ": " + problem;
}
}  // namespace

void ByteWriter::bytes(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  if (vec_) {
    vec_->insert(vec_->end(), b, b + n);
    return;
  }
  if (n > cap_ - n_) throw Error(ErrorKind::Format, message(what_, "too long"));
  if (n) std::memcpy(buf_ + n_, b, n);  // an empty key has no buffer: memcpy from nullptr is undefined
  n_ += n;
}

void ByteWriter::put_le(uint64_t v, int width) {
  uint8_t b[8];
  for (int i = 0; i < width; ++i) b[i] = uint8_t(v >> (8 * i));
  bytes(b, size_t(width));
}

void ByteWriter::put_be(uint64_t v, int width) {
  uint8_t b[8];
  for (int i = 0; i < width; ++i) b[i] = uint8_t(v >> (8 * (width - 1 - i)));
  bytes(b, size_t(width));
}

const uint8_t* ByteReader::take(size_t n) {
  if (n > n_ - pos_) throw Error(ErrorKind::Format, message(what_, "truncated"));
  const uint8_t* r = p_ + pos_;
  pos_ += n;
  return r;
}

void ByteReader::bytes(void* out, size_t n) {
  const uint8_t* p = take(n);
  if (n) std::memcpy(out, p, n);  // an empty key has no buffer: memcpy(nullptr, ..., 0) is undefined
}

uint64_t ByteReader::get_le(int width) {
  const uint8_t* b = take(size_t(width));
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = v << 8 | b[i];
  return v;
}

uint64_t ByteReader::get_be(int width) {
  const uint8_t* b = take(size_t(width));
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = v << 8 | b[i];
  return v;
}

}  // namespace warpvol

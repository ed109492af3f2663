#include "tests/fuzz/support.h"

#include <algorithm>
#include <cstring>

#include "core/util/error.h"

namespace warpvol::fuzz {

MemoryFile::MemoryFile(const uint8_t* data, size_t len, uint64_t size) : data_(data), len_(len), size_(size) {}

void MemoryFile::read_at(uint64_t offset, uint8_t* buf, size_t len) {
  // The same contract as PosixFile: a read past the end is an error, never a short read.
  if (offset > size_ || len > size_ - offset) throw Error(ErrorKind::Io, path_ + ": read past the end");
  std::memset(buf, 0, len);
  if (offset < len_) std::memcpy(buf, data_ + offset, size_t(std::min<uint64_t>(len, len_ - offset)));
}

void MemoryFile::write_at(uint64_t, const uint8_t*, size_t) { throw Error(ErrorKind::Io, path_ + ": read-only"); }
void MemoryFile::truncate(uint64_t) { throw Error(ErrorKind::Io, path_ + ": read-only"); }

uint64_t take_le(const uint8_t*& p, size_t& n, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (n) {
      v |= uint64_t(*p) << (8 * i);
      ++p;
      --n;
    }
  }
  return v;
}

void put_le(std::vector<uint8_t>& out, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace warpvol::fuzz

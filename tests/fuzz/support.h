// Shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp) and the seed generator (make_corpus.cpp).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/io/file.h"

namespace warpvol::fuzz {

// A property the harness checks on top of what the sanitizers catch. A failure aborts, so libFuzzer reports it as
// a crash and keeps the input.
#define WARPVOL_FUZZ_CHECK(cond, what)                                                         \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::fprintf(stderr, "fuzz property violated: %s (%s:%d)\n", what, __FILE__, __LINE__);  \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)

// A read-only BlockFile over bytes in memory that claims `size` bytes: what lies past the given bytes reads as
// zeros, so a few hundred bytes of fuzz input can stand for a container of any size.
class MemoryFile final : public BlockFile {
 public:
  MemoryFile(const uint8_t* data, size_t len, uint64_t size);
  uint64_t size() const override { return size_; }
  void read_at(uint64_t offset, uint8_t* buf, size_t len) override;
  void write_at(uint64_t, const uint8_t*, size_t) override;
  void sync() override {}
  bool writable() const override { return false; }
  const std::string& path() const override { return path_; }
  void truncate(uint64_t) override;

 private:
  const uint8_t* data_;
  size_t len_;
  uint64_t size_;
  std::string path_ = "fuzz-input";
};

// Little-endian integers from the front of an input, zero when it is too short (each target's input layout is
// documented at its top; make_corpus.cpp writes the same layout).
uint64_t take_le(const uint8_t*& p, size_t& n, size_t bytes);
void put_le(std::vector<uint8_t>& out, uint64_t v, size_t bytes);

}  // namespace warpvol::fuzz

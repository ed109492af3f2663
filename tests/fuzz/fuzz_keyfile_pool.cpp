// The keyfile pool (docs/format-spec.md §4.2) through apply_keyfiles, the function every command uses: keyfiles are
// memfd files passed by their /proc/self/fd path. The result is compared with an independent implementation of
// the pool (bitwise CRC-32, written from the specification, sharing no code with core/kdf/keyfiles.cpp).
//
// Input: u8 flags (bit 0: TrueCrypt pool; bits 1-7: password length) | password | then keyfiles, each
//   u16 length | bytes (a length running past the input takes what is left).
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/kdf/keyfiles.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"

using namespace warpvol;

namespace {

// CRC-32 (reflected 0xEDB88320) register after one more byte, without the final xor: VeraCrypt's UPDC32.
uint32_t crc_step_bitwise(uint32_t crc, uint8_t b) {
  crc ^= b;
  for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  return crc;
}

std::vector<uint8_t> expected_kdf_input(const std::vector<uint8_t>& pw, const std::vector<std::vector<uint8_t>>& files,
                                        bool truecrypt) {
  if (files.empty()) return pw;
  const size_t pool_size = (truecrypt || pw.size() <= 64) ? 64 : 128;
  std::vector<uint8_t> pool(pool_size, 0);
  for (const auto& f : files) {
    uint32_t crc = 0xFFFFFFFFu;
    size_t pos = 0;
    for (size_t i = 0; i < f.size() && i < (1u << 20); ++i) {
      crc = crc_step_bitwise(crc, f[i]);
      for (int s = 24; s >= 0; s -= 8) {
        pool[pos] = uint8_t(pool[pos] + uint8_t(crc >> s));
        if (++pos == pool_size) pos = 0;
      }
    }
  }
  std::vector<uint8_t> out(pool_size);
  for (size_t i = 0; i < pool_size; ++i) out[i] = uint8_t((i < pw.size() ? pw[i] : 0) + pool[i]);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* p = data;
  size_t n = size;
  const unsigned flags = unsigned(fuzz::take_le(p, n, 1));
  const bool truecrypt = flags & 1;
  const size_t pw_len = std::min<size_t>(flags >> 1, n);
  std::vector<uint8_t> pw(p, p + pw_len);
  p += pw_len;
  n -= pw_len;
  std::vector<std::vector<uint8_t>> files;
  while (n && files.size() < 8) {
    const size_t len = std::min<size_t>(size_t(fuzz::take_le(p, n, 2)), n);
    files.emplace_back(p, p + len);
    p += len;
    n -= len;
  }

  std::vector<int> fds;
  std::vector<std::string> paths;
  for (const auto& f : files) {
    const int fd = ::memfd_create("fuzz-keyfile", MFD_CLOEXEC);
    WARPVOL_FUZZ_CHECK(fd >= 0, "memfd_create failed");
    WARPVOL_FUZZ_CHECK(f.empty() || ::write(fd, f.data(), f.size()) == ssize_t(f.size()), "memfd write failed");
    fds.push_back(fd);
    paths.push_back("/proc/self/fd/" + std::to_string(fd));
  }
  bool any_empty = false;
  for (const auto& f : files) any_empty |= f.empty();
  try {
    const LockedBytes pwb(pw.data(), pw.size());
    const LockedBytes got = apply_keyfiles(pwb, paths, truecrypt);
    WARPVOL_FUZZ_CHECK(!any_empty, "an empty keyfile was accepted");
    const auto want = expected_kdf_input(pw, files, truecrypt);
    WARPVOL_FUZZ_CHECK(got.size() == want.size() && (want.empty() || std::memcmp(got.data(), want.data(), want.size()) == 0),
                       "keyfile pool differs from the independent implementation");
  } catch (const Error&) {
    WARPVOL_FUZZ_CHECK(any_empty, "a readable, non-empty keyfile was refused");
  }
  for (int fd : fds) ::close(fd);
  return 0;
}

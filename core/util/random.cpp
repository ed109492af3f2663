#include "core/util/random.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cryptopp/sha.h>
#include <cstring>
#include <mutex>

#include "core/io/fd_io.h"
#include "core/util/error.h"

namespace warpvol {
namespace {

std::mutex g_mu;
bool g_have_source = false;
uint8_t g_source_digest[64];
uint64_t g_counter = 0;

void os_random(uint8_t* p, size_t n) {
  while (n) {
    ssize_t r = ::getrandom(p, n, 0);  // blocks only until the kernel pool is initialised
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_errno("getrandom");
    }
    p += r;
    n -= size_t(r);
  }
}

}  // namespace

void random_bytes(uint8_t* p, size_t n) {
  os_random(p, n);
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_have_source) return;
  CryptoPP::SHA512 sha;
  uint8_t mix[64];
  for (size_t off = 0; off < n; off += 64) {
    const size_t len = std::min<size_t>(64, n - off);
    uint8_t ctr[8];
    const uint64_t c = g_counter++;
    for (int i = 0; i < 8; ++i) ctr[i] = uint8_t(c >> (8 * i));
    sha.Update(g_source_digest, sizeof g_source_digest);
    sha.Update(ctr, sizeof ctr);
    sha.Final(mix);
    for (size_t i = 0; i < len; ++i) p[off + i] ^= mix[i];
  }
  secure_wipe(mix, sizeof mix);
}

LockedBytes random_locked(size_t n) {
  LockedBytes b(n);
  random_bytes(b.data(), n);
  return b;
}

size_t set_random_source(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("--random-source " + path);
  CryptoPP::SHA512 sha;
  SecureBytes buf(65536);
  size_t total = 0;
  constexpr size_t kMax = size_t(1) << 20;
  while (total < kMax) {
    const size_t want = std::min(buf.size(), kMax - total);
    const ssize_t r = read_full(fd, buf.data(), want);
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      throw_errno("--random-source " + path, e);
    }
    sha.Update(buf.data(), size_t(r));
    total += size_t(r);
    if (size_t(r) < want) break;  // end of file
  }
  ::close(fd);
  if (total == 0) throw Error(ErrorKind::Usage, "--random-source " + path + ": the file is empty");
  std::lock_guard<std::mutex> lk(g_mu);
  sha.Final(g_source_digest);
  g_have_source = true;
  return total;
}

void clear_random_source() {
  std::lock_guard<std::mutex> lk(g_mu);
  secure_wipe(g_source_digest, sizeof g_source_digest);
  g_have_source = false;
}

bool random_source_set() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_have_source;
}

}  // namespace warpvol

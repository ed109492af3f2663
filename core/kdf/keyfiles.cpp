#include "core/kdf/keyfiles.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/io/safe_open.h"
#include "core/io/fd_io.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace warpvol {

namespace {

constexpr size_t kKeyfileMaxBytes = 1 << 20;  // only the first 1 MiB of a keyfile counts
// A keyfile is read and mixed in chunks of this size: the locked, wiped read buffer stays a few pages however large
// the keyfile. A buffer for the whole 1 MiB would cost a 1 MiB mlock, its page faults and its wipe for every
// keyfile, and more locked memory than a small RLIMIT_MEMLOCK allows.
constexpr size_t kKeyfileChunkBytes = 16 << 10;

// One keyfile's contribution to the pool (format-spec §4.2), fed in pieces: VeraCrypt's CRC-32 register and the
// pool position carry over from one piece to the next, so any split gives the pool of the whole file.
struct PoolMixer {
  uint32_t crc = 0xFFFFFFFFu;
  size_t pos = 0;
  size_t mixed = 0;  // bytes taken so far; only the first kKeyfileMaxBytes count

  void add(uint8_t* pool, size_t pool_size, const uint8_t* data, size_t len) {
    len = std::min(len, kKeyfileMaxBytes - mixed);
    mixed += len;
    for (size_t i = 0; i < len; ++i) {
      crc = crc32_step(crc, data[i]);
      pool[pos++] += uint8_t(crc >> 24);
      pool[pos++] += uint8_t(crc >> 16);
      pool[pos++] += uint8_t(crc >> 8);
      pool[pos++] += uint8_t(crc);
      if (pos >= pool_size) pos = 0;
    }
  }
};

std::vector<std::string> expand_keyfiles(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) throw Error(ErrorKind::Io, "keyfile " + p + ": no such file or folder");
    if (fs::is_directory(st)) {
      // A folder means its regular, non-hidden files (not recursive), as in VeraCrypt.
      size_t before = files.size();
      for (const auto& e : fs::directory_iterator(p, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        if (!e.is_regular_file()) continue;
        files.push_back(e.path().string());
      }
      if (ec) throw Error(ErrorKind::Io, "keyfile folder " + p + ": " + ec.message());
      if (files.size() == before) throw Error(ErrorKind::Io, "keyfile folder " + p + " holds no usable file");
    } else {
      files.push_back(p);
    }
  }
  return files;
}

}  // namespace

void keyfile_pool_add(uint8_t* pool, size_t pool_size, const uint8_t* data, size_t len) {
  PoolMixer m;
  m.add(pool, pool_size, data, len);
}

LockedBytes keyfile_pool(const std::vector<std::string>& keyfiles, size_t pool_size) {
  LockedBytes pool(pool_size);
  std::fill(pool.data(), pool.data() + pool_size, 0);
  LockedBytes buf(kKeyfileChunkBytes);
  for (const auto& f : expand_keyfiles(keyfiles)) {
    // A FIFO or a device given as a keyfile would block in open() or never end: refused before reading.
    const int fd = open_regular_or_block(f, O_RDONLY, "keyfile " + f);
    PoolMixer m;
    int read_errno = 0;
    while (m.mixed < kKeyfileMaxBytes) {
      const ssize_t r = ::read(fd, buf.data(), std::min(kKeyfileChunkBytes, kKeyfileMaxBytes - m.mixed));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) read_errno = errno;
      if (r <= 0) break;
      m.add(pool.data(), pool_size, buf.data(), size_t(r));
    }
    ::close(fd);
    if (read_errno) throw Error(ErrorKind::Io, "keyfile " + f + ": read error (" + std::strerror(read_errno) + ")");
    if (m.mixed == 0) throw Error(ErrorKind::Io, "keyfile " + f + " is empty");
  }
  return pool;
}

LockedBytes apply_keyfiles(const LockedBytes& password, const std::vector<std::string>& keyfiles, bool truecrypt) {
  if (keyfiles.empty()) return password;
  const size_t pool_size = (truecrypt || password.size() <= 64) ? 64 : 128;
  LockedBytes pool = keyfile_pool(keyfiles, pool_size);
  LockedBytes out(pool_size);
  for (size_t i = 0; i < pool_size; ++i) out[i] = uint8_t((i < password.size() ? password[i] : 0) + pool[i]);
  return out;
}

}  // namespace warpvol

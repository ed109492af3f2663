#include "core/mount/mount_spec.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/util/error.h"

namespace warpvol::mount {

namespace {

constexpr uint32_t kSpecMagic = 0x57564d31;  // "WVM1"

class Writer {
 public:
  explicit Writer(size_t cap) : buf_(cap) {}
  void u64(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
    bytes(b, 8);
  }
  void str(const std::string& s) {
    u64(s.size());
    bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  void bytes(const uint8_t* p, size_t n) {
    if (n > buf_.size() - n_) throw Error(ErrorKind::Format, "mount spec: too long");
    if (n) std::memcpy(buf_.data() + n_, p, n);  // an empty key has no buffer: memcpy from nullptr is undefined
    n_ += n;
  }
  const uint8_t* data() const { return buf_.data(); }
  size_t size() const { return n_; }

 private:
  LockedBytes buf_;  // the key material passes through it
  size_t n_ = 0;
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint64_t u64() {
    need(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p_[pos_ + size_t(i)]) << (8 * i);
    pos_ += 8;
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (n > 65536) throw Error(ErrorKind::Format, "mount spec: string too long");
    need(size_t(n));
    std::string s(reinterpret_cast<const char*>(p_ + pos_), size_t(n));
    pos_ += size_t(n);
    return s;
  }
  void bytes(uint8_t* out, size_t n) {
    need(n);
    if (n) std::memcpy(out, p_ + pos_, n);  // an empty key has no buffer: memcpy(nullptr, ..., 0) is undefined
    pos_ += n;
  }
  bool done() const { return pos_ == n_; }

 private:
  void need(size_t n) {
    if (n > n_ - pos_) throw Error(ErrorKind::Format, "mount spec: truncated");
  }
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

}  // namespace

void write_spec(int fd, const MountSpec& s) {
  Writer w(64 * 24 + s.container.size() + s.aux_dir.size() + s.state_file.size() + s.key_material.size());
  w.u64(kSpecMagic);
  w.u64(uint64_t(s.slot));
  w.str(s.container);
  w.str(s.aux_dir);
  w.str(s.state_file);
  w.u64(s.read_only);
  w.u64(s.direct_io);
  w.u64(uint64_t(s.engine));
  w.u64(uint64_t(s.chain));
  // 0: XTS; else 1 + algorithm * 4 + mode.
  w.u64(s.legacy ? 1 + uint64_t(s.legacy->ea) * 4 + uint64_t(s.legacy->mode) : 0);
  w.u64(s.key_material.size());
  w.bytes(s.key_material.data(), s.key_material.size());
  w.u64(s.data_offset);
  w.u64(s.data_size);
  w.u64(s.first_unit);
  w.u64(s.sector_size);
  w.u64(s.protect);
  w.u64(s.protect_start);
  w.u64(s.protect_end);
  w.u64(s.uid);
  w.u64(s.gid);
  w.u64(s.allow_other);
  // Length prefix, then the body.
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = uint8_t(uint64_t(w.size()) >> (8 * i));
  auto put = [fd](const uint8_t* p, size_t n) {
    while (n) {
      ssize_t r = ::write(fd, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) throw_errno("cannot pass the mount parameters to the FUSE process");
      p += r;
      n -= size_t(r);
    }
  };
  put(len, 8);
  put(w.data(), w.size());
}

MountSpec read_spec(int fd) {
  auto get = [fd](uint8_t* p, size_t n) {
    while (n) {
      ssize_t r = ::read(fd, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw_errno("cannot read the mount parameters");
      if (r == 0) throw Error(ErrorKind::Io, "cannot read the mount parameters: pipe closed early");
      p += r;
      n -= size_t(r);
    }
  };
  uint8_t len8[8];
  get(len8, 8);
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= uint64_t(len8[i]) << (8 * i);
  if (len > (1u << 20)) throw Error(ErrorKind::Format, "mount spec: too long");
  LockedBytes body(size_t(len) ? size_t(len) : 1);
  get(body.data(), size_t(len));
  return parse_spec(body.data(), size_t(len));
}

MountSpec parse_spec(const uint8_t* body, size_t len) {
  Reader r(body, len);
  if (r.u64() != kSpecMagic) throw Error(ErrorKind::Format, "mount spec: bad magic (warpvol and warpvol-mountd differ?)");
  MountSpec s;
  s.slot = int(r.u64());
  s.container = r.str();
  s.aux_dir = r.str();
  s.state_file = r.str();
  s.read_only = r.u64() != 0;
  s.direct_io = r.u64() != 0;
  s.engine = EngineChoice(r.u64());
  s.chain = ChainId(r.u64());
  if (const uint64_t l = r.u64()) {
    const uint64_t ea = (l - 1) / 4, mode = (l - 1) % 4;
    if (ea >= all_legacy_eas().size()) throw Error(ErrorKind::Format, "mount spec: bad legacy mode");
    s.legacy = LegacySuite{LegacyEaId(ea), LegacyMode(mode)};
  }
  const uint64_t kn = r.u64();
  if (kn > 4096) throw Error(ErrorKind::Format, "mount spec: key too long");
  s.key_material = LockedBytes(size_t(kn));
  r.bytes(s.key_material.data(), size_t(kn));
  s.data_offset = r.u64();
  s.data_size = r.u64();
  s.first_unit = r.u64();
  s.sector_size = uint32_t(r.u64());
  s.protect = r.u64() != 0;
  s.protect_start = r.u64();
  s.protect_end = r.u64();
  s.uid = uint32_t(r.u64());
  s.gid = uint32_t(r.u64());
  s.allow_other = r.u64() != 0;
  if (!r.done()) throw Error(ErrorKind::Format, "mount spec: trailing bytes");
  return s;
}

}  // namespace warpvol::mount

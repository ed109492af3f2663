#include "core/mount/mount_spec.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/io/binary.h"
#include "core/io/fd_io.h"
#include "core/util/error.h"

namespace warpvol::mount {

namespace {

constexpr uint32_t kSpecMagic = 0x57564d31;  // "WVM1"

// Strings: a u64 length, then the bytes.
void put_str(ByteWriter& w, const std::string& s) {
  w.u64le(s.size());
  w.bytes(s.data(), s.size());
}
std::string get_str(ByteReader& r) {
  const uint64_t n = r.u64le();
  if (n > 65536) throw Error(ErrorKind::Format, "mount spec: string too long");
  const uint8_t* p = r.take(size_t(n));
  return std::string(reinterpret_cast<const char*>(p), size_t(n));
}

}  // namespace

void write_spec(int fd, const MountSpec& s) {
  // Length prefix (filled in last), then the body, in locked memory: the key material passes through it.
  LockedBytes buf(8 + 64 * 24 + s.container.size() + s.aux_dir.size() + s.state_file.size() + s.key_material.size());
  ByteWriter w(buf.data() + 8, buf.size() - 8, "mount spec");
  w.u64le(kSpecMagic);
  w.u64le(uint64_t(s.slot));
  put_str(w, s.container);
  put_str(w, s.aux_dir);
  put_str(w, s.state_file);
  w.u64le(s.read_only);
  w.u64le(s.direct_io);
  w.u64le(uint64_t(s.engine));
  w.u64le(uint64_t(s.chain));
  // 0: XTS; else 1 + algorithm * 4 + mode.
  w.u64le(s.legacy ? 1 + uint64_t(s.legacy->ea) * 4 + uint64_t(s.legacy->mode) : 0);
  w.u64le(s.key_material.size());
  w.bytes(s.key_material.data(), s.key_material.size());
  w.u64le(s.data_offset);
  w.u64le(s.data_size);
  w.u64le(s.first_unit);
  w.u64le(s.sector_size);
  w.u64le(s.protect);
  w.u64le(s.protect_start);
  w.u64le(s.protect_end);
  w.u64le(s.uid);
  w.u64le(s.gid);
  w.u64le(s.allow_other);
  if (s.encrypted_begin != 0 || s.encrypted_end != UINT64_MAX) {
    w.u64le(s.encrypted_begin);
    w.u64le(s.encrypted_end);
  }
  const size_t body = w.size();
  ByteWriter(buf.data(), 8, "mount spec").u64le(body);
  if (write_full(fd, buf.data(), 8 + body) < 0) throw_errno("cannot pass the mount parameters to the FUSE process");
}

MountSpec read_spec(int fd) {
  auto get = [fd](uint8_t* p, size_t n) {
    const ssize_t r = read_full(fd, p, n);
    if (r < 0) throw_errno("cannot read the mount parameters");
    if (size_t(r) < n) throw Error(ErrorKind::Io, "cannot read the mount parameters: pipe closed early");
  };
  uint8_t len8[8];
  get(len8, 8);
  const uint64_t len = ByteReader(len8, 8).u64le();
  if (len > (1u << 20)) throw Error(ErrorKind::Format, "mount spec: too long");
  LockedBytes body(size_t(len) ? size_t(len) : 1);
  get(body.data(), size_t(len));
  return parse_spec(body.data(), size_t(len));
}

MountSpec parse_spec(const uint8_t* body, size_t len) {
  ByteReader r(body, len, "mount spec");
  if (r.u64le() != kSpecMagic) throw Error(ErrorKind::Format, "mount spec: bad magic (warpvol and warpvol-mountd differ?)");
  MountSpec s;
  s.slot = int(r.u64le());
  s.container = get_str(r);
  s.aux_dir = get_str(r);
  s.state_file = get_str(r);
  s.read_only = r.u64le() != 0;
  s.direct_io = r.u64le() != 0;
  s.engine = EngineChoice(r.u64le());
  s.chain = ChainId(r.u64le());
  if (const uint64_t l = r.u64le()) {
    const uint64_t ea = (l - 1) / 4, mode = (l - 1) % 4;
    if (ea >= all_legacy_eas().size()) throw Error(ErrorKind::Format, "mount spec: bad legacy mode");
    s.legacy = LegacySuite{LegacyEaId(ea), LegacyMode(mode)};
  }
  const uint64_t kn = r.u64le();
  if (kn > 4096) throw Error(ErrorKind::Format, "mount spec: key too long");
  s.key_material = LockedBytes(size_t(kn));
  r.bytes(s.key_material.data(), size_t(kn));
  s.data_offset = r.u64le();
  s.data_size = r.u64le();
  s.first_unit = r.u64le();
  s.sector_size = uint32_t(r.u64le());
  s.protect = r.u64le() != 0;
  s.protect_start = r.u64le();
  s.protect_end = r.u64le();
  s.uid = uint32_t(r.u64le());
  s.gid = uint32_t(r.u64le());
  s.allow_other = r.u64le() != 0;
  if (!r.done()) {
    s.encrypted_begin = r.u64le();
    s.encrypted_end = r.u64le();
    if (s.encrypted_begin > s.encrypted_end) throw Error(ErrorKind::Format, "mount spec: bad encrypted extent");
  }
  if (!r.done()) throw Error(ErrorKind::Format, "mount spec: trailing bytes");
  return s;
}

}  // namespace warpvol::mount

// What `mount` hands the FUSE process (warpvol-mountd) through a pipe: the layout and the master key material of
// the opened header (so the password is derived once, and never passed on), where to mount, and the options. A
// small binary encoding; the key bytes travel only through LockedBytes and the pipe.
#pragma once
#include <cstdint>
#include <string>

#include "core/crypto/chain.h"
#include "core/crypto/legacy_mode.h"
#include <optional>
#include "core/engine/engine_factory.h"
#include "core/util/secure.h"

namespace warpvol::mount {

struct MountSpec {
  int slot = 0;
  std::string container;   // path, for messages and fsname
  std::string aux_dir;     // FUSE mount point
  std::string state_file;  // where the process reports (runtime.h DaemonState)
  bool read_only = false;
  bool direct_io = true;   // FOPEN_DIRECT_IO on the plaintext file
  EngineChoice engine = EngineChoice::Auto;
  ChainId chain = ChainId::Aes;
  std::optional<LegacySuite> legacy;  // TrueCrypt before 5.0: the key material is in legacy_mode.h's layout
  LockedBytes key_material;  // the header's master key area (2K bytes used)
  uint64_t data_offset = 0, data_size = 0, first_unit = 0;
  uint32_t sector_size = 512;
  bool protect = false;
  uint64_t protect_start = 0, protect_end = 0;
  uint32_t uid = 0, gid = 0;  // owner of the plaintext file
  // FUSE allow_other: root, too, may use the plaintext file. Always on as root; for a normal user only when asked
  // (udisks2 attaches its loop device as root), which needs user_allow_other in /etc/fuse.conf. The file stays
  // 0600 and owned by uid under default_permissions, so other users are still refused.
  bool allow_other = false;
  // DataLayout's ciphertext part of the data area (an unfinished system encryption: the rest is plaintext as it
  // lies). Sent only when it is not the whole area, so every other spec keeps its bytes.
  uint64_t encrypted_begin = 0, encrypted_end = UINT64_MAX;
};

// Throw Error(Io) on a short pipe, Error(Format) on a malformed spec.
void write_spec(int fd, const MountSpec& s);
MountSpec read_spec(int fd);
// The body read_spec reads after the 8-byte length prefix: bytes in, spec out, Error(Format) when malformed.
// read_spec's parser, separate so that tests and tests/fuzz/fuzz_mount_spec.cpp reach it without a pipe.
MountSpec parse_spec(const uint8_t* body, size_t len);

}  // namespace warpvol::mount

// The space a file system reports free, for the checks that run before a job writes anything.
#pragma once
#include <sys/statvfs.h>

#include <cstdint>
#include <optional>

namespace warpvol {

// Bytes free for an unprivileged writer; nullopt where the file system reports no size at all (f_blocks 0: tmpfs
// mounted with size=0, some FUSE file systems), so that nothing can be checked ahead and the writes find out.
inline std::optional<uint64_t> available_bytes(const struct statvfs& v) {
  if (v.f_blocks == 0) return std::nullopt;
  return uint64_t(v.f_bavail) * uint64_t(v.f_frsize);
}

}  // namespace warpvol

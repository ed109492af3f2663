// The mount spec warpvol-mountd reads from its parent (core/mount/mount_spec.h): parse_spec on the body bytes.
// Property: a spec that parses survives write_spec -> read_spec through a pipe unchanged.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "core/mount/mount_spec.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"

using namespace warpvol;
using warpvol::mount::MountSpec;

namespace {

bool same(const MountSpec& a, const MountSpec& b) {
  return a.slot == b.slot && a.container == b.container && a.aux_dir == b.aux_dir && a.state_file == b.state_file &&
         a.read_only == b.read_only && a.direct_io == b.direct_io && a.engine == b.engine && a.chain == b.chain &&
         a.key_material.size() == b.key_material.size() &&
         (a.key_material.empty() ||
          std::memcmp(a.key_material.data(), b.key_material.data(), a.key_material.size()) == 0) &&
         a.data_offset == b.data_offset && a.data_size == b.data_size && a.first_unit == b.first_unit &&
         a.sector_size == b.sector_size && a.protect == b.protect && a.protect_start == b.protect_start &&
         a.protect_end == b.protect_end && a.uid == b.uid && a.gid == b.gid && a.allow_other == b.allow_other &&
         a.encrypted_begin == b.encrypted_begin && a.encrypted_end == b.encrypted_end;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  MountSpec s;
  try {
    s = mount::parse_spec(data, size);
  } catch (const Error&) {
    return 0;
  }
  int fds[2];
  WARPVOL_FUZZ_CHECK(::pipe2(fds, O_CLOEXEC) == 0, "pipe failed");
  // Room for the largest spec parse_spec takes (three 64 KiB strings and a 4 KiB key) without a reader thread.
  (void)::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  const int cap = ::fcntl(fds[1], F_GETPIPE_SZ);
  if (cap > 0 && size + 512 < size_t(cap)) {
    mount::write_spec(fds[1], s);
    const MountSpec back = mount::read_spec(fds[0]);
    WARPVOL_FUZZ_CHECK(same(s, back), "mount spec changed through write_spec/read_spec");
  }
  ::close(fds[0]);
  ::close(fds[1]);
  return 0;
}

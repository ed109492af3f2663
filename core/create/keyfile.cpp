#include "core/create/keyfile.h"

#include "core/create/output_file.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "core/util/secure.h"

namespace warpvol {

void create_keyfile(const std::string& path, size_t size, bool force) {
  if (size < kKeyfileMinSize || size > kKeyfileMaxSize)
    throw Error(ErrorKind::Usage, "keyfile size must be between 64 bytes and 1 MiB (1048576 bytes)");
  TargetCheck t = check_target(path, force);
  if (t.is_block_device) throw Error(ErrorKind::Usage, path + ": is a block device, not a keyfile name");
  AtomicFile out(path, force);
  if (force) out.lock_target();
  LockedBytes bytes = random_locked(size);
  out.file().write_at(0, bytes.data(), bytes.size());
  out.commit();
}

}  // namespace warpvol

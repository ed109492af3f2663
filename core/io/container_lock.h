// The exclusive flock() on a container that marks it in use: warpvol-mountd holds it for as long as the volume
// is mounted and reencrypt while it works. Whoever is about to replace or rewrite a container asks here first.
#pragma once
#include <string>

namespace warpvol {

// Error(Busy) "<path>: in use (mounted by warpvol or being re-encrypted); dismount it first" when another open
// file description holds the lock. Nothing happens for a path that does not exist or cannot be opened (the caller's
// own checks report those).
void refuse_container_in_use(const std::string& path);

}  // namespace warpvol

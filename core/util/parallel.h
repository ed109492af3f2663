// Splitting one piece of work over a few threads and waiting for all of it (hash a hot zone, write its parts,
// spread a large engine request): the caller's thread takes part 0, so n parts cost n - 1 thread starts.
#pragma once
#include <functional>

namespace warpvol {

// Runs part(0) .. part(n - 1) at once: parts 1.. on threads of their own, part 0 on the caller's thread (as does a
// part whose thread cannot be started). Returns once every part has finished; then rethrows the first error.
void run_parts(unsigned n, const std::function<void(unsigned)>& part);

}  // namespace warpvol

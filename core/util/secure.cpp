#include "core/util/secure.h"

#include <sys/mman.h>

#include <cstring>

namespace warpvol {

void lock_memory(const void* p, size_t n) {
  if (p && n) (void)::mlock(p, n);
}

void unlock_memory(const void* p, size_t n) {
  if (p && n) (void)::munlock(p, n);
}

void secure_wipe(void* p, size_t n) {
  if (!p || !n) return;
  explicit_bzero(p, n);
}

}  // namespace warpvol

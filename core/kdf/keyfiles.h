// Keyfiles: VeraCrypt/TrueCrypt pool algorithm (docs/format-spec.md §4.2). A folder means the regular, non-hidden files
// directly in it. Order is irrelevant; the same file twice counts twice.
#pragma once
#include <string>
#include <vector>

#include "core/util/secure.h"

namespace warpvol {

// Applies keyfiles to the password and returns the KDF input. truecrypt: pool is always 64 bytes (VeraCrypt uses
// 128 when the password is longer than 64). Throws Error(Io/Auth) for unreadable, empty files or empty folders.
// With no keyfiles, returns the password unchanged.
LockedBytes apply_keyfiles(const LockedBytes& password, const std::vector<std::string>& keyfiles, bool truecrypt);

// The pool itself (exposed for vector tests): pool_size 64 or 128.
LockedBytes keyfile_pool(const std::vector<std::string>& keyfiles, size_t pool_size);
// Mixes one keyfile's bytes into a pool (first 1 MiB).
void keyfile_pool_add(uint8_t* pool, size_t pool_size, const uint8_t* data, size_t len);

}  // namespace warpvol

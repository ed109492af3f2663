// What a NEW password may contain. VeraCrypt takes a password as typed text: UTF-8 without NUL (its C strings end
// there, and its pre-boot and GUI input cannot produce invalid UTF-8), so a volume created with such bytes could
// never be opened by VeraCrypt. New credentials (create, import, change's and reencrypt's new password) are
// checked; an EXISTING volume is opened with whatever bytes are given.
#pragma once
#include <string>

#include "core/util/secure.h"

namespace warpvol::cli {

bool is_valid_utf8(const uint8_t* p, size_t n);  // strict: no overlong forms, surrogates or code points > U+10FFFF

// Error(Usage) naming `what` ("the new password") when the password holds a NUL byte or is not valid UTF-8.
void check_new_password(const LockedBytes& password, const std::string& what);

}  // namespace warpvol::cli

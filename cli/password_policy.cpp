#include "cli/password_policy.h"

#include "core/util/error.h"

namespace warpvol::cli {

bool is_valid_utf8(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    const uint8_t c = p[i];
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (n - i < len) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

void check_new_password(const LockedBytes& pw, const std::string& what) {
  for (size_t i = 0; i < pw.size(); ++i)
    if (pw[i] == 0)
      throw Error(ErrorKind::Usage, what + " contains a NUL byte: VeraCrypt could never type it (choose another)");
  if (!is_valid_utf8(pw.data(), pw.size()))
    throw Error(ErrorKind::Usage,
                what + " is not valid UTF-8: VeraCrypt takes passwords as UTF-8 text and could never type it");
}

}  // namespace warpvol::cli

#include "cli/argv_scrub.h"

#include <cstring>

#include "core/util/secure.h"

namespace warpvol::cli {

const char* const* secret_option_names() {
  // Every password source option of credentials.cpp and new_credentials.cpp (prefixes "", new-, hidden-, outer-)
  // and the protected hidden volume's of mount.
  static const char* const names[] = {"password",       "new-password",   "hidden-password",
                                      "outer-password", "protect-hidden-password", nullptr};
  return names;
}

void wipe_secret_options(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--") == 0) break;
    if (a[0] != '-' || a[1] != '-') continue;
    const char* name = a + 2;
    for (const char* const* s = secret_option_names(); *s; ++s) {
      const size_t n = std::strlen(*s);
      if (std::strncmp(name, *s, n) != 0) continue;
      if (name[n] == '\0' && i + 1 < argc) {
        secure_wipe(argv[i + 1], std::strlen(argv[i + 1]));
        ++i;
      } else if (name[n] == '=') {
        secure_wipe(argv[i] + 2 + n + 1, std::strlen(argv[i] + 2 + n + 1));
      } else {
        continue;
      }
      break;
    }
  }
}

}  // namespace warpvol::cli

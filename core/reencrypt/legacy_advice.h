// What to tell the owner of a TrueCrypt volume with the V1 layout (TrueCrypt 5.x and older, the LRW/CBC ones
// included) who asks to convert it (or to re-encrypt a hidden one): why a header rewrite cannot make it a VeraCrypt
// volume, the in-place migration `warpvol reencrypt` does for a normal volume (core/reencrypt/migrate.h), and the
// export + import route that always works.
#pragma once
#include <string>

#include "core/format/open.h"

namespace warpvol::reenc {

// One line: the reason, then "warpvol reencrypt ..." (normal volumes) and "warpvol export ... && warpvol import ...".
std::string v1_layout_advice(const std::string& path, const OpenedHeader& h, uint64_t container_size);

}  // namespace warpvol::reenc

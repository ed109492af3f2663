// What to tell the owner of a TrueCrypt volume with the V1 layout (TrueCrypt 5.x and older, the LRW/CBC ones
// included) who asks to re-encrypt or convert it: why it cannot become a VeraCrypt volume in the same container,
// and the two commands that get its data into one.
#pragma once
#include <string>

#include "core/format/open.h"

namespace warpvol::reenc {

// One line (no trailing period issues): the reason with the sizes, then "warpvol export ... && warpvol import ...".
std::string v1_layout_advice(const std::string& path, const OpenedHeader& h, uint64_t container_size);

}  // namespace warpvol::reenc

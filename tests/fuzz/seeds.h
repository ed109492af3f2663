// Constants the seed generator (make_corpus.cpp) and the targets must agree on.
#pragma once
#include <vector>

#include "core/reencrypt/journal.h"

namespace warpvol::fuzz {

// The journal MAC key of the seed journals: journal_mac_key over two fixed 256-byte key areas (old, new).
inline reenc::MacKey journal_fuzz_mac_key() {
  std::vector<uint8_t> old_area(256, 0x11), new_area(256, 0x22);
  return reenc::journal_mac_key({old_area.data(), new_area.data()});
}

}  // namespace warpvol::fuzz

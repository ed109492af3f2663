// Constants the seed generator (make_corpus.cpp) and the targets must agree on.
#pragma once
#include <cstdint>
#include <vector>

#include "core/reencrypt/journal.h"

namespace warpvol::fuzz {

// fuzz_open_header derives its keys with this PBKDF2 iteration count (OpenOptions::test_only_pbkdf2_iterations)
// and its seed headers are sealed with it: an input then costs microseconds of KDF instead of milliseconds, and
// the fuzzer spends its executions in the search over locations, the decryption and the layout decision. Two, not
// one, so that PBKDF2's iteration loop runs.
constexpr uint32_t kOpenHeaderFuzzIterations = 2;

// The journal MAC key of the seed journals: journal_mac_key over two fixed 256-byte key areas (old, new).
inline reenc::MacKey journal_fuzz_mac_key() {
  std::vector<uint8_t> old_area(256, 0x11), new_area(256, 0x22);
  return reenc::journal_mac_key({old_area.data(), new_area.data()});
}

}  // namespace warpvol::fuzz

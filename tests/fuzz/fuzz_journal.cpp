// The re-encryption journal reader: parse_journal_file and newest_authentic_slot (every format version, as resume
// reads it), and for the single-record format parse_journal (structure), verify_journal_mac (authentication) and
// validate_journal (semantics), on the whole file as bytes. The MAC key is the one make_corpus.cpp signed the
// seed journals with, so unmodified seeds authenticate and mutations of them reach the semantic checks.
//
// Properties beyond the sanitizers: the format has exactly one encoding, so serializing what was parsed gives the
// input back byte for byte, and the input's MAC verifies exactly when it equals the MAC of that serialization.
#include <cstring>
#include <vector>

#include "core/reencrypt/journal.h"
#include "core/util/error.h"
#include "tests/fuzz/support.h"
#include "tests/fuzz/seeds.h"

using namespace warpvol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const reenc::MacKey key = fuzz::journal_fuzz_mac_key();
  const std::vector<uint8_t> bytes(data, data + size);
  // The reader of every format version (resume's): Format errors only, and a chosen state is one of the slots.
  try {
    const reenc::LoadedJournal lj = reenc::parse_journal_file(bytes);
    const auto chosen = reenc::newest_authentic_slot(bytes, lj, key);
    WARPVOL_FUZZ_CHECK(!chosen || chosen->index < 2, "newest_authentic_slot chose a slot that does not exist");
  } catch (const Error&) {
  }
  reenc::Journal j;
  try {
    j = reenc::parse_journal(bytes);
  } catch (const Error&) {
    return 0;
  }
  const bool authentic = reenc::verify_journal_mac(bytes, j, key);
  try {
    reenc::validate_journal(j);
  } catch (const Error&) {
  }
  const reenc::JournalBytes again = reenc::serialize_journal(j, key);
  WARPVOL_FUZZ_CHECK(again.total() == bytes.size(), "re-serialized journal has another size");
  WARPVOL_FUZZ_CHECK(std::memcmp(again.prefix.data(), bytes.data(), again.prefix.size()) == 0,
                     "re-serialized journal differs");
  WARPVOL_FUZZ_CHECK(again.protection_size == 0 ||
                         std::memcmp(again.protection, bytes.data() + again.prefix.size(), again.protection_size) == 0,
                     "re-serialized protection bytes differ");
  const bool same_mac = std::memcmp(again.mac.data(), bytes.data() + bytes.size() - reenc::kMacSize,
                                    reenc::kMacSize) == 0;
  WARPVOL_FUZZ_CHECK(authentic == same_mac, "verify_journal_mac disagrees with the MAC of the serialization");
  return 0;
}

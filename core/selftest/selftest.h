// Built-in known-answer tests (`warpvol test`): every cipher, XTS, all 15 chains at every CPU path this machine
// runs, hashes, HMAC, PBKDF2, Argon2id, the keyfile pool, CRC-32 and the iteration-count/PIM tables. The vectors
// are embedded (selftest_vectors.inc, generated from testvectors/*.json), so the tests need no files.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace warpvol::selftest {

struct Result {
  std::string name;    // "AES-256 ECB", "XTS chain AES-Twofish", "PBKDF2-HMAC-SHA-512", ...
  bool ok = false;
  int cases = 0;       // vectors/checks that passed (all of them when ok)
  std::string detail;  // what was covered when ok; the first mismatch when not
  double seconds = 0;
};

// Runs every test in order; on_result (may be empty) is called after each one, so a caller can print as it goes.
std::vector<Result> run_all(const std::function<void(const Result&)>& on_result = {});

}  // namespace warpvol::selftest

// The journal's protection digest computed while a hot zone's checksum entries are produced (OrderedDigest):
// whatever order and threads the ranges come in, it must equal the format's tree digest (journal.h: SHA-256 of the
// concatenated SHA-256 digests of the 1 MiB pieces), computed here straight from OpenSSL as the oracle.
#include <openssl/sha.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "core/reencrypt/journal.h"
#include "core/util/error.h"

using namespace warpvol;
using namespace warpvol::reenc;

namespace {

constexpr size_t kMiB = size_t(1) << 20;

Digest oracle(const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> concat;
  for (size_t at = 0; at < bytes.size(); at += kMiB) {
    uint8_t d[32];
    SHA256(bytes.data() + at, std::min(kMiB, bytes.size() - at), d);
    concat.insert(concat.end(), d, d + 32);
  }
  Digest out{};
  SHA256(concat.data(), concat.size(), out.data());
  return out;
}

// [0, n) cut into ranges of random lengths (some crossing 1 MiB piece edges), shuffled.
std::vector<std::pair<uint64_t, size_t>> shuffled_ranges(size_t n, std::mt19937_64& rng) {
  std::vector<std::pair<uint64_t, size_t>> r;
  std::uniform_int_distribution<size_t> len(1, 300 * 1024);
  for (size_t at = 0; at < n;) {
    const size_t l = std::min(n - at, len(rng));
    r.push_back({at, l});
    at += l;
  }
  std::shuffle(r.begin(), r.end(), rng);
  return r;
}

}  // namespace

TEST_CASE("journal: the protection digest fed in pieces equals the tree digest, any order, several threads",
          "[reencrypt][journal]") {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t(0), size_t(16), kMiB - 16, kMiB, kMiB + 16, 3 * kMiB + 12345, 5 * kMiB}) {
    INFO("n = " << n);
    std::vector<uint8_t> bytes(n);
    for (auto& b : bytes) b = uint8_t(rng());
    const Digest want = oracle(bytes);
    REQUIRE(protection_digest(bytes.data(), bytes.size()) == want);
    for (unsigned threads : {1u, 2u, 4u}) {
      INFO("threads = " << threads);
      const auto ranges = shuffled_ranges(n, rng);
      OrderedDigest d(bytes.data(), n);
      std::atomic<size_t> next{0};
      std::vector<std::thread> ts;
      for (unsigned t = 0; t < threads; ++t)
        ts.emplace_back([&] {
          for (size_t i; (i = next++) < ranges.size();) d.add(ranges[i].first, ranges[i].second);
        });
      for (auto& t : ts) t.join();
      CHECK(d.finish() == want);
    }
  }
}

TEST_CASE("journal: the piecewise protection digest refuses to finish early or to take a range twice",
          "[reencrypt][journal]") {
  std::vector<uint8_t> bytes(2 * kMiB + 100, 0x5a);
  {
    OrderedDigest d(bytes.data(), bytes.size());
    d.add(0, kMiB);
    d.add(kMiB + 100, kMiB);  // a gap at [1 MiB, 1 MiB + 100)
    CHECK_THROWS_AS(d.finish(), Error);
    CHECK_THROWS_AS(d.add(kMiB + 50, 100), Error);  // overlaps a range not hashed yet
    d.add(kMiB, 100);
    CHECK(d.finish() == oracle(bytes));
  }
  {
    OrderedDigest d(bytes.data(), bytes.size());
    CHECK_THROWS_AS(d.add(bytes.size() - 10, 11), Error);  // past the end
  }
}

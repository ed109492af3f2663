// The hand-written Whirlpool / PBKDF2-HMAC-Whirlpool (core/kdf/whirlpool.h) against independent references: the
// ISO/IEC 10118-3 (NESSIE) Whirlpool vectors, OpenSSL's Whirlpool (hash_bytes), and PBKDF2 spelled out over
// hmac_bytes(PrfId::Whirlpool) (OpenSSL's Whirlpool through the generic HMAC code).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "core/kdf/prf.h"
#include "core/kdf/whirlpool.h"
#include "core/util/bytes.h"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(seed + 31 * i + (i >> 3));
  return v;
}

std::string our_hash(const std::vector<uint8_t>& in) {
  uint8_t d[64];
  whirlpool_hash(in.data(), in.size(), d);
  return to_hex(d, 64);
}

}  // namespace

TEST_CASE("Whirlpool: ISO/IEC 10118-3 (NESSIE) vectors", "[whirlpool]") {
  const std::pair<std::string, std::string> v[] = {
      {"", "19fa61d75522a4669b44e39c1d2e1726c530232130d407f89afee0964997f7a73e83be698b288febcf88e3e03c4f0757ea8964e59b63"
           "d93708b138cc42a66eb3"},
      {"a", "8aca2602792aec6f11a67206531fb7d7f0dff59413145e6973c45001d0087b42d11bc645413aeff63a42391a39145a591a92200d5601"
            "95e53b478584fdae231a"},
      {"abc", "4e2448a4c6f486bb16b6562c73b4020bf3043e3a731bce721ae1b303d97e6d4c7181eebdb6c57e277d0e34957114cbd6c797fc9d"
              "95d8b582d225292076d4eef5"},
      {"message digest", "378c84a4126e2dc6e56dcc7458377aac838d00032230f53ce1f5700c0ffb4d3b8421557659ef55c106b4b52ac5a4aa"
                         "a692ed920052838f3362e86dbd37a8903e"},
      {"abcdefghijklmnopqrstuvwxyz", "f1d754662636ffe92c82ebb9212a484a8d38631ead4238f5442ee13b8054e41b08bf2a9251c30b6a"
                                     "0b8aae86177ab4a6f68f673e7207865d5d9819a3dba4eb3b"},
      {"The quick brown fox jumps over the lazy dog",
       "b97de512e91e3828b40d2b0fdce9ceb3c4a71f9bea8d88e75c4fa854df36725fd2b52eb6544edcacd6f8beddfea403cb55ae31f03ad62a5e"
       "f54e42ee82c3fb35"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "466ef18babb0154d25b9d38a6414f5c08784372bccb204d6549c4afadb6014294d5bd8df2a6c44e538cd047b2681a51a2c60481e88c5a20b"
       "2c2a80cf3a9a083b"},
  };
  for (const auto& [in, want] : v) {
    INFO(in);
    CHECK(our_hash(bytes_of(in)) == want);
  }
}

TEST_CASE("Whirlpool: equals OpenSSL's for every length 0..300 (all padding cases)", "[whirlpool]") {
  const auto data = pattern(300, 7);
  for (size_t n = 0; n <= data.size(); ++n) {
    INFO(n);
    std::vector<uint8_t> in(data.begin(), data.begin() + n);
    REQUIRE(our_hash(in) == to_hex(hash_bytes(PrfId::Whirlpool, in.data(), in.size())));
  }
}

TEST_CASE("PBKDF2-HMAC-Whirlpool block equals PBKDF2 over the generic HMAC", "[whirlpool][pbkdf2]") {
  const size_t pw_lens[] = {0, 1, 63, 64, 65, 200};
  const size_t salt_lens[] = {17, 64};
  const uint32_t iteration_counts[] = {1, 2, 3, 1025};
  int checked = 0;
  for (size_t pl : pw_lens)
    for (size_t sl : salt_lens) {
      const auto pw = pattern(pl, uint8_t(pl + 1)), salt = pattern(sl, uint8_t(0x5a + sl));
      for (uint32_t it : iteration_counts)
        for (uint32_t block = 1; block <= 4; ++block) {
          INFO("password " << pl << " salt " << sl << " iterations " << it << " block " << block);
          uint8_t out[64];
          std::memset(out, 0xee, sizeof out);
          REQUIRE(whirlpool_pbkdf2_block(pw.data(), pw.size(), salt.data(), salt.size(), it, block, out, nullptr));
          CHECK(to_hex(out, 64) == to_hex(wvtest::pbkdf2_over_hmac(PrfId::Whirlpool, pw, salt, it, block)));
          ++checked;
        }
    }
  CHECK(checked == 6 * 2 * 4 * 4);
}

TEST_CASE("PBKDF2-HMAC-Whirlpool block: cancellation", "[whirlpool][pbkdf2]") {
  const auto pw = bytes_of("password"), salt = pattern(64, 3);
  uint8_t out[64], ref[64];
  std::atomic<bool> cancel{true};
  CHECK_FALSE(whirlpool_pbkdf2_block(pw.data(), pw.size(), salt.data(), salt.size(), 500000, 1, out, &cancel));
  cancel = false;
  REQUIRE(whirlpool_pbkdf2_block(pw.data(), pw.size(), salt.data(), salt.size(), 2000, 2, out, &cancel));
  REQUIRE(whirlpool_pbkdf2_block(pw.data(), pw.size(), salt.data(), salt.size(), 2000, 2, ref, nullptr));
  CHECK(to_hex(out, 64) == to_hex(ref, 64));
  pbkdf2_block(PrfId::Whirlpool, pw.data(), pw.size(), salt.data(), salt.size(), 2000, 2, ref);
  CHECK(to_hex(out, 64) == to_hex(ref, 64));
}

// new_header_keys: several header keys derived together (the PBKDF2 blocks of one password and KDF in one call,
// SIMD lanes where the threads are fewer than the blocks) give, for every key, what derive_header_key gives for its
// salt alone; every key gets its own salt.
#include <catch2/catch.hpp>

#include <set>

#include "core/crypto/chain.h"
#include "core/format/header.h"
#include "core/format/header_writer.h"
#include "core/kdf/prf.h"
#include "core/util/bytes.h"

using namespace warpvol;

namespace {

LockedBytes password(const char* s) {
  return LockedBytes(reinterpret_cast<const uint8_t*>(s), std::char_traits<char>::length(s));
}

}  // namespace

TEST_CASE("Header keys derived together equal each key derived alone", "[kdf][header]") {
  const LockedBytes old_pw = password("old password"), new_pw = password("new password");
  // Small counts: the grouping, not the iteration count, is under test (1000 and more run on threads).
  const KdfChoice sha512{PrfId::Sha512, 1200, {}}, sha512_other{PrfId::Sha512, 1300, {}},
      sha256{PrfId::Sha256, 1100, {}}, whirlpool{PrfId::Whirlpool, 1000, {}};
  const KdfChoice argon = new_header_kdf(PrfId::Argon2id, VolumeFormat::VeraCrypt, 1);
  const std::vector<HeaderKeySpec> specs = {
      {ChainId::AesTwofishSerpent, &sha512, &old_pw},  // 3 SHA-512 blocks
      {ChainId::Aes, &sha512, &new_pw},                // 1 block, another password
      {ChainId::AesTwofishSerpent, &sha512, &new_pw},  // grouped with the one above
      {ChainId::AesTwofishSerpent, &sha512, &new_pw},
      {ChainId::SerpentAes, &sha512_other, &new_pw},   // another iteration count: a group of its own
      {ChainId::KuznyechikSerpentCamellia, &sha256, &new_pw},
      {ChainId::Twofish, &whirlpool, &old_pw},
      {ChainId::Serpent, &argon, &new_pw},
  };
  for (unsigned threads : {1u, 2u, 3u, 0u}) {
    const std::vector<HeaderKey> keys = new_header_keys(specs, threads);
    REQUIRE(keys.size() == specs.size());
    std::set<std::string> salts;
    for (size_t i = 0; i < specs.size(); ++i) {
      INFO(threads << " threads, key " << i << " (" << specs[i].kdf->describe() << ")");
      CHECK(keys[i].chain == specs[i].chain);
      const size_t len = 2 * chain_info(specs[i].chain).key_size();
      REQUIRE(keys[i].key.size() == len);
      LockedBytes alone(len);
      derive_header_key(*specs[i].kdf, *specs[i].kdf_password, keys[i].salt.data(), alone.data(), len);
      CHECK(to_hex(keys[i].key.data(), len) == to_hex(alone.data(), len));
      salts.insert(to_hex(keys[i].salt.data(), keys[i].salt.size()));
    }
    CHECK(salts.size() == specs.size());
  }
}

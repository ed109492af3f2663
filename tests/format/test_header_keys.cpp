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

TEST_CASE("Header keys whose blocks were lent and derived elsewhere equal each key derived alone", "[kdf][header]") {
  const LockedBytes old_pw = password("old password"), new_pw = password("new password");
  const KdfChoice sha512{PrfId::Sha512, 1200, {}}, ripemd{PrfId::Ripemd160, 1000, {}};
  const std::vector<HeaderKeySpec> specs = {
      {ChainId::AesTwofishSerpent, &sha512, &old_pw},  // lent: 3 blocks
      {ChainId::AesTwofishSerpent, &ripemd, &old_pw},  // lent in a second call: 10 blocks of 20 bytes for 192
      {ChainId::Serpent, &sha512, &new_pw},            // another password: never lent
      {ChainId::Aes, &sha512, &old_pw},                // lent with the first: 1 block
  };
  for (const bool derive_lent : {true, false}) {
    INFO((derive_lent ? "lent blocks derived" : "lent blocks left underived"));
    HeaderKeyBatch batch(specs);
    const std::vector<Pbkdf2Block> a = batch.lend_blocks(PrfId::Sha512, 1200, old_pw);
    CHECK(a.size() == 4);
    CHECK(batch.lend_blocks(PrfId::Sha512, 1200, old_pw).empty());  // lent once
    CHECK(batch.lend_blocks(PrfId::Sha512, 1201, old_pw).empty());
    const std::vector<Pbkdf2Block> b = batch.lend_blocks(PrfId::Ripemd160, 1000, old_pw);
    CHECK(b.size() == 10);
    if (derive_lent) {
      pbkdf2_many(PrfId::Sha512, old_pw.data(), old_pw.size(), a.data(), a.size(), 1200, 2);
      pbkdf2_many(PrfId::Ripemd160, old_pw.data(), old_pw.size(), b.data(), b.size(), 1000, 1);
    }
    const std::vector<HeaderKey> keys = batch.keys(2, derive_lent);
    REQUIRE(keys.size() == specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      INFO("key " << i);
      const size_t len = 2 * chain_info(specs[i].chain).key_size();
      LockedBytes alone(len);
      derive_header_key(*specs[i].kdf, *specs[i].kdf_password, keys[i].salt.data(), alone.data(), len);
      CHECK(to_hex(keys[i].key.data(), len) == to_hex(alone.data(), len));
    }
  }
}

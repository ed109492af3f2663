// Known answers for TrueCrypt's legacy primitives (testvectors/truecrypt71a_legacy.json, from TrueCrypt 7.1a's
// Common/Tests.c): Blowfish in TrueCrypt's little-endian-word form, CAST5, Triple DES, LRW-AES, HMAC-SHA-1 and
// HMAC-RIPEMD-160; TrueCrypt's CRCs of whole sectors in each legacy mode (testvectors/truecrypt_legacy_modes_crc.json,
// from its volume library's EncryptionTest.cpp); and the structure of the legacy modes (CBC IV/whitening, LRW index
// continuity).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "core/crypto/legacy_cipher.h"
#include "core/crypto/legacy_mode.h"
#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using json = nlohmann::json;

namespace {

json legacy_vectors() { return wvtest::load_vectors("truecrypt71a_legacy.json"); }

// Each 4-byte half reversed: the Counterpane vectors are for big-endian words, TrueCrypt's Blowfish loads
// little-endian words (the file's note; TrueCrypt's own test swaps the same way).
std::vector<uint8_t> swap_halves(std::vector<uint8_t> b) {
  std::swap(b[0], b[3]);
  std::swap(b[1], b[2]);
  std::swap(b[4], b[7]);
  std::swap(b[5], b[6]);
  return b;
}

// The Counterpane vectors use 8-byte keys; Blowfish's schedule cycles a short key, so an 8-byte key repeated to
// 56 bytes gives the same cipher, which is how a 56-byte-key implementation can run them.
std::vector<uint8_t> cycle_key(const std::vector<uint8_t>& k, size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = k[i % k.size()];
  return out;
}

}  // namespace

TEST_CASE("Blowfish (TrueCrypt little-endian words): Counterpane vectors", "[legacy][cipher]") {
  auto j = legacy_vectors();
  int n = 0;
  for (const auto& v : j["blowfish_ecb"]["vectors"]) {
    auto key = cycle_key(wvtest::hex_bytes(v["key_hex"]), 56);
    auto c = make_legacy_cipher(LegacyCipherId::Blowfish, key.data());
    auto pt = swap_halves(wvtest::hex_bytes(v["plaintext_hex"]));
    std::vector<uint8_t> out(8);
    c->encrypt(pt.data(), out.data(), 1);
    INFO("key " << v["key_hex"].get<std::string>());
    CHECK(to_hex(swap_halves(out)) == v["ciphertext_hex"].get<std::string>());
    c->decrypt(out.data(), out.data(), 1);
    CHECK(out == pt);
    ++n;
  }
  CHECK(n >= 30);
}

TEST_CASE("CAST5 and Triple DES: TrueCrypt's vectors", "[legacy][cipher]") {
  auto j = legacy_vectors();
  for (auto [name, id] : {std::pair{"cast5_ecb", LegacyCipherId::Cast5}, std::pair{"tripledes_ecb", LegacyCipherId::TripleDes}}) {
    for (const auto& v : j[name]) {
      auto key = wvtest::hex_bytes(v["key_hex"]);
      REQUIRE(key.size() == legacy_cipher_info(id).key_size);
      auto c = make_legacy_cipher(id, key.data());
      auto pt = wvtest::hex_bytes(v["plaintext_hex"]);
      std::vector<uint8_t> out(8);
      c->encrypt(pt.data(), out.data(), 1);
      INFO(name);
      CHECK(to_hex(out) == v["ciphertext_hex"].get<std::string>());
      c->decrypt(out.data(), out.data(), 1);
      CHECK(out == pt);
    }
  }
}

TEST_CASE("LRW-AES: TrueCrypt's vectors, by hand and through the header path", "[legacy][lrw]") {
  auto j = legacy_vectors();
  for (const auto& v : j["lrw_aes"]["vectors"]) {
    auto k1 = wvtest::hex_bytes(v["key1_hex"]), k2 = wvtest::hex_bytes(v["key2_hex"]);
    auto idx = wvtest::hex_bytes(v["index_be128_hex"]);
    auto pt = wvtest::hex_bytes(v["plaintext_hex"]);
    uint8_t t[16];
    lrw_gf_mul(k2.data(), idx.data(), t, 16);
    auto aes = make_legacy_cipher(LegacyCipherId::Aes, k1.data());
    uint8_t b[16];
    for (int i = 0; i < 16; ++i) b[i] = pt[i] ^ t[i];
    aes->encrypt(b, b, 1);
    for (int i = 0; i < 16; ++i) b[i] ^= t[i];
    CHECK(to_hex(b, 16) == v["ciphertext_hex"].get<std::string>());
  }
  // Vector 1 has block index 1, where TrueCrypt's header encryption starts.
  const auto& v = j["lrw_aes"]["vectors"][0];
  std::vector<uint8_t> key(32 + 32, 0);
  auto k2 = wvtest::hex_bytes(v["key2_hex"]), k1 = wvtest::hex_bytes(v["key1_hex"]);
  std::memcpy(key.data(), k2.data(), 16);
  std::memcpy(key.data() + 32, k1.data(), 32);
  LegacyCrypt lc({LegacyEaId::Aes, LegacyMode::Lrw}, key.data(), 1);
  std::vector<uint8_t> h(448, 0);
  auto pt = wvtest::hex_bytes(v["plaintext_hex"]);
  std::memcpy(h.data(), pt.data(), 16);
  lc.header(Direction::Encrypt, h.data());
  CHECK(to_hex(h.data(), 16) == v["ciphertext_hex"].get<std::string>());
}

// TrueCrypt's own known answers for its legacy modes (testvectors/truecrypt_legacy_modes_crc.json, from the
// volume library's EncryptionTest::TestLegacyModes): a CRC-32 of two sectors encrypted with fixed keys, for LRW
// with every algorithm TrueCrypt had in it (the 64-bit-block LRW of Blowfish, CAST5 and Triple DES included) and for
// CBC, outer-CBC and inner-CBC. TrueCrypt computed these, so a bug shared by warpvol's encryption and decryption
// cannot pass.
TEST_CASE("LRW and CBC: known answers from TrueCrypt TestLegacyModes", "[legacy][lrw][modes][tc_kat]") {
  auto j = wvtest::load_vectors("truecrypt_legacy_modes_crc.json");
  const uint64_t sector = std::stoull(j["sector_index_hex"].get<std::string>(), nullptr, 16);
  const uint64_t offset = j["sector_offset"].get<uint64_t>();
  const size_t sectors = j["sectors"].get<size_t>();
  REQUIRE(j["sector_size"].get<size_t>() == 512);
  int lrw64 = 0, n = 0;
  for (const auto& v : j["vectors"]) {
    const std::string ea_name = v["ea"], mode = v["mode"];
    INFO(ea_name << " " << mode);
    auto ea = parse_legacy_ea(ea_name);
    REQUIRE(ea);
    const LegacyEaInfo& info = legacy_ea_info(*ea);
    // TrueCrypt's one CBC class is plain CBC for one cipher, outer- or inner-CBC for a cascade: the EA's own
    // CBC-family mode.
    std::optional<LegacyMode> m;
    for (LegacyMode x : info.modes)
      if ((mode == "LRW") == (x == LegacyMode::Lrw)) m = x;
    REQUIRE(m);
    LegacySuite s{*ea, *m};
    // Key area: the 32-byte mode key (00..1f), then the ciphers' keys in encryption order (00 01 02 ..).
    std::vector<uint8_t> key;
    for (size_t i = 0; i < 32; ++i) key.push_back(uint8_t(i));
    for (size_t i = 0; key.size() < s.key_bytes(); ++i) key.push_back(uint8_t(i));
    std::vector<uint8_t> buf(sectors * 512);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = uint8_t(i);
    const std::vector<uint8_t> plain = buf;
    LegacyCrypt lc(s, key.data(), offset);
    lc.units(Direction::Encrypt, sector, buf.data(), sectors);
    char got[9];
    std::snprintf(got, sizeof got, "%08x", crc32(buf.data(), buf.size()));
    CHECK(std::string(got) == v["crc32_hex"].get<std::string>());
    lc.units(Direction::Decrypt, sector, buf.data(), sectors);
    CHECK(buf == plain);
    if (*m == LegacyMode::Lrw && s.block_size() == 8) ++lrw64;
    ++n;
  }
  CHECK(lrw64 == 3);  // Blowfish, CAST5, Triple DES
  CHECK(n == 19);
}

TEST_CASE("GF(2^64) for LRW-64: x^64 = x^4 + x^3 + x + 1", "[legacy][lrw]") {
  const uint8_t x63[8] = {0x80, 0, 0, 0, 0, 0, 0, 0};
  const uint8_t x1[8] = {0, 0, 0, 0, 0, 0, 0, 2};
  uint8_t out[8];
  lrw_gf_mul(x63, x1, out, 8);
  CHECK(to_hex(out, 8) == "000000000000001b");
  const uint8_t x127[16] = {0x80};
  const uint8_t y1[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  uint8_t o16[16];
  lrw_gf_mul(x127, y1, o16, 16);
  CHECK(to_hex(o16, 16) == "00000000000000000000000000000087");
}

TEST_CASE("LRW: a run of units equals the units one at a time (index continues across units)", "[legacy][lrw]") {
  std::mt19937 rng(7);
  for (auto ea : {LegacyEaId::Aes, LegacyEaId::Blowfish, LegacyEaId::SerpentTwofishAes}) {
    LegacySuite s{ea, LegacyMode::Lrw};
    std::vector<uint8_t> key(s.key_bytes());
    for (auto& b : key) b = uint8_t(rng());
    LegacyCrypt lc(s, key.data(), 1);
    std::vector<uint8_t> a(4 * 512), b;
    for (auto& x : a) x = uint8_t(rng());
    b = a;
    lc.units(Direction::Encrypt, 5, a.data(), 4);
    for (int u = 0; u < 4; ++u) lc.units(Direction::Encrypt, 5 + u, b.data() + 512 * u, 1);
    CHECK(a == b);
    lc.units(Direction::Decrypt, 5, a.data(), 4);
    lc.units(Direction::Decrypt, 5, b.data(), 4);
    CHECK(a == b);
  }
}

TEST_CASE("Legacy suites round-trip and differ per unit", "[legacy][modes]") {
  std::mt19937 rng(11);
  CHECK(all_legacy_suites().size() == 24);
  for (const auto& s : all_legacy_suites()) {
    std::vector<uint8_t> key(s.key_bytes());
    for (auto& b : key) b = uint8_t(rng());
    LegacyCrypt lc(s, key.data(), 1);
    std::vector<uint8_t> plain(2 * 512, 0x5a), data = plain;
    lc.units(Direction::Encrypt, 3, data.data(), 2);
    INFO(s.name());
    CHECK(data != plain);
    CHECK(std::memcmp(data.data(), data.data() + 512, 512) != 0);  // same plaintext, other unit
    lc.units(Direction::Decrypt, 3, data.data(), 2);
    CHECK(data == plain);
    std::vector<uint8_t> h(448, 0x11), h0 = h;
    lc.header(Direction::Encrypt, h.data());
    CHECK(h != h0);
    lc.header(Direction::Decrypt, h.data());
    CHECK(h == h0);
  }
}

TEST_CASE("CBC sector IV and whitening as TrueCrypt derives them", "[legacy][cbc]") {
  uint8_t seed[32];
  for (int i = 0; i < 32; ++i) seed[i] = uint8_t(i);
  uint8_t iv[16], wh[8];
  legacy_sector_iv(seed, 0x0102, 16, iv, wh);
  // IV: seed words 0 and 1 xor LE64(unit).
  CHECK(iv[0] == (0 ^ 0x02));
  CHECK(iv[1] == (1 ^ 0x01));
  CHECK(iv[8] == (8 ^ 0x02));
  // Whitening: CRC-32 of 32-bit words 4^7 and 5^6 of the xored seed, stored little-endian.
  uint8_t w[32];
  for (int k = 0; k < 4; ++k) store_le64(w + 8 * k, load_le64(seed + 8 * k) ^ 0x0102);
  CHECK(load_le32(wh) == (crc32(w + 16, 4) ^ crc32(w + 28, 4)));
  CHECK(load_le32(wh + 4) == (crc32(w + 20, 4) ^ crc32(w + 24, 4)));
  legacy_sector_iv(seed, 0x0102, 8, iv, wh);
  CHECK(load_le32(wh) == (crc32(w + 8, 4) ^ crc32(w + 20, 4)));
  CHECK(load_le32(wh + 4) == (crc32(w + 12, 4) ^ crc32(w + 16, 4)));
}

TEST_CASE("HMAC-SHA-1 and HMAC-RIPEMD-160: TrueCrypt's vectors, legacy iteration counts", "[legacy][kdf]") {
  auto j = legacy_vectors();
  for (auto [name, prf] : {std::pair{"hmac_sha1", PrfId::Sha1}, std::pair{"hmac_ripemd160", PrfId::Ripemd160}}) {
    for (const auto& v : j[name]) {
      auto key = wvtest::hex_bytes(v["key_hex"]), data = wvtest::hex_bytes(v["data_hex"]);
      INFO(name);
      CHECK(to_hex(hmac_bytes(prf, key.data(), key.size(), data.data(), data.size())) ==
            v["mac_hex"].get<std::string>());
    }
  }
  CHECK(pbkdf2_iterations(PrfId::Sha1, VolumeFormat::TrueCrypt, 0, false) == 2000);
  CHECK(pbkdf2_iterations(PrfId::Whirlpool, VolumeFormat::TrueCrypt, 0, false) == 1000);
  CHECK(pbkdf2_iterations(PrfId::Ripemd160, VolumeFormat::TrueCrypt, 0, false) == 2000);
}

TEST_CASE("Legacy suites: one key used by several threads at once gives what it gives alone", "[legacy][modes]") {
  // Engines share one prepared key between their threads. Crypto++'s CAST-128 keeps scratch words in the cipher
  // object, so two threads on one object corrupted each other's blocks (rarely: a block in a few hundred thousand).
  std::mt19937_64 rng(11);
  for (LegacySuite s : {LegacySuite{LegacyEaId::Cast5, LegacyMode::Cbc}, LegacySuite{LegacyEaId::Cast5, LegacyMode::Lrw},
                        LegacySuite{LegacyEaId::Blowfish, LegacyMode::Cbc},
                        LegacySuite{LegacyEaId::TripleDes, LegacyMode::Lrw}}) {
    INFO(s.name());
    std::vector<uint8_t> key(s.key_bytes());
    for (auto& b : key) b = uint8_t(rng());
    const LegacyCrypt crypt(s, key.data(), 1);
    constexpr size_t kThreads = 4, kUnits = 2048;  // 1 MiB per thread
    std::vector<uint8_t> data(kThreads * kUnits * 512);
    for (auto& b : data) b = uint8_t(rng());
    std::vector<uint8_t> alone = data;
    crypt.units(Direction::Decrypt, 1, alone.data(), kThreads * kUnits);
    for (int round = 0; round < 4; ++round) {
      std::vector<uint8_t> mine = data;
      std::vector<std::thread> th;
      for (size_t t = 0; t < kThreads; ++t)
        th.emplace_back([&, t] {
          crypt.units(Direction::Decrypt, 1 + t * kUnits, mine.data() + t * kUnits * 512, kUnits);
        });
      for (auto& x : th) x.join();
      size_t differing = 0;  // blocks of 8 bytes (a whole-vector CHECK would print megabytes)
      for (size_t i = 0; i < mine.size(); i += 8) differing += std::memcmp(mine.data() + i, alone.data() + i, 8) != 0;
      CHECK(differing == 0);
    }
  }
}

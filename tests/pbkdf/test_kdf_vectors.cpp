// Key-derivation known answers (testvectors/pbkdf2.json, argon2*.json, keyfiles_selfcomputed.json): PBKDF2 with
// every PRF, VeraCrypt's iteration counts and PIM, Argon2id, the keyfile pool, and the PRFs with their own
// iteration loops (BLAKE2s lanes, Streebog) against PBKDF2 spelled out over HMAC.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "core/crypto/cpu_features.h"
#include "core/format/header.h"
#include "core/kdf/kdf_stop.h"
#include "core/kdf/keyfiles.h"
#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "tests/support/test_support.h"

using namespace warpvol;

TEST_CASE("PBKDF2 vectors, every PRF", "[vectors][pbkdf2]") {
  auto j = wvtest::load_vectors("pbkdf2.json");
  for (const auto& v : j["vectors"]) {
    PrfId prf = wvtest::prf_from_vector_name(v["prf"]);
    auto pw = wvtest::hex_bytes(v["password_hex"]), salt = wvtest::hex_bytes(v["salt_hex"]);
    std::vector<uint8_t> out(v["dklen"].get<size_t>());
    pbkdf2(prf, pw.data(), pw.size(), salt.data(), salt.size(), v["iterations"], out.data(), out.size());
    INFO(v["prf"].get<std::string>() << " it=" << v["iterations"]);
    CHECK(to_hex(out) == v["dk_hex"].get<std::string>());
  }
}

TEST_CASE("PBKDF2 of several blocks, on threads of their own from 1000 iterations, equals PBKDF2 spelled out over HMAC",
          "[vectors][pbkdf2]") {
  // 999 iterations: the blocks one after the other (or in lanes); 1000: each block on a thread, or lanes on fewer
  // threads where they end sooner.
  const std::vector<uint8_t> pw{'p', 'a', 's', 's', 'w', 'o', 'r', 'd'}, salt(64, 0xa5);
  for (PrfId prf : {PrfId::Sha512, PrfId::Sha256, PrfId::Blake2s, PrfId::Whirlpool, PrfId::Streebog, PrfId::Ripemd160,
                    PrfId::Sha1}) {
    const size_t d = prf_info(prf).digest_size;
    for (uint32_t it : {999u, 1000u}) {
      std::vector<uint8_t> expect;
      for (uint32_t b = 1; expect.size() < 193; ++b) {
        const auto block = wvtest::pbkdf2_over_hmac(prf, pw, salt, it, b);
        expect.insert(expect.end(), block.begin(), block.end());
      }
      for (size_t len : {d - 1, d, size_t(192), size_t(193)}) {
        std::vector<uint8_t> out(len);
        pbkdf2(prf, pw.data(), pw.size(), salt.data(), salt.size(), it, out.data(), out.size());
        INFO(prf_info(prf).name << ", " << it << " iterations, " << len << " bytes");
        CHECK(out == std::vector<uint8_t>(expect.begin(), expect.begin() + ptrdiff_t(len)));
      }
    }
  }
  // A stop request abandons every block's thread, and the call says so.
  std::vector<uint8_t> out(192);
  struct ClearStop {
    ~ClearStop() { clear_kdf_stop(); }  // whatever happens: the other tests derive keys after this one
  } clear_stop;
  request_kdf_stop();
  try {
    pbkdf2(PrfId::Sha256, pw.data(), pw.size(), salt.data(), salt.size(), 5000, out.data(), out.size());
    FAIL("the derivation went on after the stop request");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Interrupted);
  }
}

TEST_CASE("Iteration counts and PIM", "[kdf]") {
  CHECK(pbkdf2_iterations(PrfId::Sha512, VolumeFormat::VeraCrypt, 0, false) == 500000);
  CHECK(pbkdf2_iterations(PrfId::Sha512, VolumeFormat::VeraCrypt, 7, false) == 22000);
  CHECK(pbkdf2_iterations(PrfId::Sha256, VolumeFormat::VeraCrypt, 0, true) == 200000);
  CHECK(pbkdf2_iterations(PrfId::Sha256, VolumeFormat::VeraCrypt, 98, true) == 200704);
  CHECK(pbkdf2_iterations(PrfId::Streebog, VolumeFormat::VeraCrypt, 0, false) == 500000);
  CHECK(pbkdf2_iterations(PrfId::Ripemd160, VolumeFormat::TrueCrypt, 0, false) == 2000);
  CHECK(pbkdf2_iterations(PrfId::Ripemd160, VolumeFormat::TrueCrypt, 0, true) == 1000);
  CHECK(pbkdf2_iterations(PrfId::Sha512, VolumeFormat::TrueCrypt, 0, false) == 1000);
  CHECK(pbkdf2_iterations(PrfId::Sha512, VolumeFormat::TrueCrypt, 5, false) == 0);
  CHECK(pbkdf2_iterations(PrfId::Sha256, VolumeFormat::TrueCrypt, 0, false) == 0);
}

TEST_CASE("Argon2id: VeraCrypt PIM mapping and 192-byte header keys", "[vectors][argon2]") {
  auto j = wvtest::load_vectors("argon2_veracrypt_kdf_selfcomputed.json");
  for (const auto& v : j["pim_to_params"]) {
    auto p = argon2_params(v["pim"]);
    INFO("pim " << v["pim"]);
    CHECK(p.t_cost == v["t_cost"].get<uint32_t>());
    CHECK(p.m_cost_kib == v["m_cost_kib"].get<uint32_t>());
  }
  for (const auto& v : j["header_key_vectors"]) {
    if (v["m_cost_kib"].get<uint32_t>() > 200000) continue;  // keep the suite light: PIM 0 needs 416 MiB
    auto pw = wvtest::hex_bytes(v["password_hex"]), salt = wvtest::hex_bytes(v["salt_hex"]);
    std::vector<uint8_t> out(v["taglen"].get<size_t>());
    argon2id(pw.data(), pw.size(), salt.data(), salt.size(), argon2_params(v["pim"]), out.data(), out.size());
    CHECK(to_hex(out) == v["derived_key_hex"].get<std::string>());
  }
}

TEST_CASE("Argon2id KATs (RFC 9106 via VeraCrypt selftest)", "[vectors][argon2]") {
  auto j = wvtest::load_vectors("argon2.json");
  int n = 0;
  for (const auto& v : j["vectors"]) {
    if (v["type"] != "Argon2id" || v.contains("secret_hex") || v.contains("ad_hex") || v["lanes"] != 1) continue;
    auto pw = wvtest::hex_bytes(v["password_hex"]), salt = wvtest::hex_bytes(v["salt_hex"]);
    std::vector<uint8_t> out(v["taglen"].get<size_t>());
    argon2id(pw.data(), pw.size(), salt.data(), salt.size(), {v["t_cost"], v["m_cost_kib"]}, out.data(), out.size());
    CHECK(to_hex(out) == v["tag_hex"].get<std::string>());
    ++n;
  }
  INFO("Argon2id single-lane vectors without secret/ad: " << n);
  CHECK(n >= 0);
}

TEST_CASE("Keyfile pool vectors", "[vectors][keyfiles]") {
  auto j = wvtest::load_vectors("keyfiles_selfcomputed.json");
  wvtest::TempDir dir;
  for (const auto& v : j["vectors"]) {
    INFO(v["case"].get<std::string>());
    std::vector<std::string> paths;
    int k = 0;
    for (const auto& kf : v["keyfiles"]) {
      std::string p = dir.file("kf" + std::to_string(paths.size()) + "_" + std::to_string(k++));
      std::ofstream out(p, std::ios::binary);
      std::vector<uint8_t> bytes;
      const std::string desc = kf.get<std::string>();
      if (desc == "<1048577 bytes: 1048576 zero bytes followed by 01>") {
        bytes.assign(1048577, 0);
        bytes.back() = 1;
      } else if (desc == "<1048576 bytes: zeros>") {
        bytes.assign(1048576, 0);
      } else {
        bytes = wvtest::hex_bytes(kf);
      }
      out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      paths.push_back(p);
    }
    auto pwv = wvtest::hex_bytes(v["password_hex"]);
    LockedBytes pw(pwv.data(), pwv.size());
    const bool tc = v.contains("truecrypt") && v["truecrypt"].get<bool>();
    LockedBytes out = apply_keyfiles(pw, paths, tc);
    CHECK(out.size() == v["kdf_password_input_length"].get<size_t>());
    CHECK(to_hex(out.data(), out.size()) == v["kdf_password_input_hex"].get<std::string>());
  }
}

TEST_CASE("Keyfile pool of large keyfiles read in pieces equals the whole-file pool", "[vectors][keyfiles]") {
  // Reference: docs/format-spec.md §4.2 written out bitwise over the whole file (first 1 MiB), nothing shared with
  // core/kdf/keyfiles.cpp. Sizes straddle any read-piece boundary (powers of two and their neighbours) and the
  // 1 MiB limit; random bytes, so a CRC register or pool position restarted at a boundary changes the result.
  auto reference = [](const std::vector<std::vector<uint8_t>>& files, size_t pool_size) {
    std::vector<uint8_t> pool(pool_size, 0);
    for (const auto& f : files) {
      uint32_t crc = 0xFFFFFFFFu;
      size_t pos = 0;
      for (size_t i = 0; i < f.size() && i < (size_t(1) << 20); ++i) {
        crc ^= f[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
        for (int sh = 24; sh >= 0; sh -= 8) {
          pool[pos] = uint8_t(pool[pos] + uint8_t(crc >> sh));
          if (++pos == pool_size) pos = 0;
        }
      }
    }
    return pool;
  };
  std::mt19937_64 rng(19);
  wvtest::TempDir dir;
  std::vector<std::vector<uint8_t>> files;
  std::vector<std::string> paths;
  for (size_t n : {size_t(4095), size_t(16385), size_t(65536 + 17), size_t(3 * 16384 + 7), size_t((1 << 20) + 33)}) {
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = uint8_t(rng());
    const std::string p = dir.file("kf" + std::to_string(paths.size()));
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(n));
    files.push_back(std::move(b));
    paths.push_back(p);
  }
  for (size_t pool_size : {size_t(64), size_t(128)}) {
    INFO("pool " << pool_size);
    const LockedBytes got = keyfile_pool(paths, pool_size);
    CHECK(to_hex(got.data(), got.size()) == to_hex(reference(files, pool_size)));
    for (size_t i = 0; i < files.size(); ++i) {
      const LockedBytes one = keyfile_pool({paths[i]}, pool_size);
      CHECK(to_hex(one.data(), one.size()) == to_hex(reference({files[i]}, pool_size)));
    }
  }
}

TEST_CASE("PBKDF2 in SIMD lanes (BLAKE2s, SHA-512) equals PBKDF2 spelled out over HMAC, every ISA level and lane "
          "count", "[vectors][pbkdf2][blake2s][sha512]") {
  // The reference goes through hmac_bytes: Crypto++'s BLAKE2s, OpenSSL's SHA-512.
  std::mt19937_64 rng(2026);
  auto bytes = [&](size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng());
    return v;
  };
  const auto vectors = wvtest::load_vectors("pbkdf2.json");
  for (IsaLevel l : {IsaLevel::Portable, IsaLevel::Avx2, IsaLevel::Avx512}) {
    if (int(l) > int(detected_isa())) {
      WARN("skipping the " << isa_name(l) << " lanes: this CPU lacks the instructions");
      continue;
    }
    set_isa_override(l);
    for (PrfId prf : {PrfId::Blake2s, PrfId::Sha512}) {
      const size_t d = prf_info(prf).digest_size;
      for (size_t n : {1u, 2u, 3u, 4u, 5u, 6u, 8u, 9u, 17u}) {
        for (uint32_t it : {1u, 2u, 3u, 1025u}) {
          // 100 / 200 bytes: a key longer than the HMAC block is hashed first
          const auto pw = bytes(n == 17 ? (d == 64 ? 200 : 100) : 5 + n);
          std::vector<std::vector<uint8_t>> salts, outs;
          std::vector<Pbkdf2Block> blocks;
          for (size_t k = 0; k < n; ++k) {
            salts.push_back(bytes(k % 3 == 0 ? 64 : 13 + k));
            outs.emplace_back(d);
          }
          for (size_t k = 0; k < n; ++k)
            blocks.push_back({salts[k].data(), salts[k].size(), uint32_t(1 + (k * 7) % 11), outs[k].data()});
          REQUIRE(pbkdf2_blocks_cancellable(prf, pw.data(), pw.size(), blocks.data(), n, it, nullptr));
          for (size_t k = 0; k < n; ++k) {
            INFO(prf_info(prf).name << ", " << isa_name(l) << ", " << n << " lanes, lane " << k << ", " << it
                                    << " iterations");
            CHECK(outs[k] == wvtest::pbkdf2_over_hmac(prf, pw, salts[k], it, blocks[k].block_index));
          }
        }
      }
    }
    // The known answers of every PBKDF2-HMAC-SHA-512 vector, all of its blocks in one call (lanes where there are).
    for (const auto& v : vectors["vectors"]) {
      if (wvtest::prf_from_vector_name(v["prf"]) != PrfId::Sha512) continue;
      auto pw = wvtest::hex_bytes(v["password_hex"]), salt = wvtest::hex_bytes(v["salt_hex"]);
      const size_t dklen = v["dklen"].get<size_t>(), nb = (dklen + 63) / 64;
      std::vector<uint8_t> out(nb * 64);
      std::vector<Pbkdf2Block> blocks;
      for (size_t b = 0; b < nb; ++b) blocks.push_back({salt.data(), salt.size(), uint32_t(b + 1), out.data() + 64 * b});
      REQUIRE(pbkdf2_blocks_cancellable(PrfId::Sha512, pw.data(), pw.size(), blocks.data(), nb, v["iterations"],
                                        nullptr));
      out.resize(dklen);
      INFO(isa_name(l) << ", it=" << v["iterations"] << ", " << dklen << " bytes");
      CHECK(to_hex(out) == v["dk_hex"].get<std::string>());
    }
    set_isa_override(std::nullopt);
  }
}

TEST_CASE("PBKDF2-HMAC-Streebog with precomputed round keys equals PBKDF2 spelled out over HMAC",
          "[vectors][pbkdf2][streebog]") {
  std::mt19937_64 rng(34112012);
  for (size_t pw_len : {0u, 1u, 63u, 64u, 65u, 200u}) {
    for (uint32_t it : {1u, 2u, 3u, 1025u}) {
      std::vector<uint8_t> pw(pw_len), salt(pw_len % 2 ? 64 : 17);
      for (auto& b : pw) b = uint8_t(rng());
      for (auto& b : salt) b = uint8_t(rng());
      const uint32_t block = uint32_t(1 + rng() % 4);
      const std::vector<uint8_t> want = wvtest::pbkdf2_over_hmac(PrfId::Streebog, pw, salt, it, block);
      std::vector<uint8_t> got(64);
      pbkdf2_block(PrfId::Streebog, pw.data(), pw.size(), salt.data(), salt.size(), it, block, got.data());
      INFO("password " << pw_len << " bytes, " << it << " iterations, block " << block);
      CHECK(got == want);
    }
  }
}

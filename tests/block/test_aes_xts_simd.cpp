// AES-256-XTS SIMD paths (core/crypto/simd/aes_*): each a provider run over the XTS vector files
// (tests/support/xts_vectors.h), and long random differential tests against the portable path, for every AES level
// this CPU runs (factories called directly from the registry, and through make_xts with each level forced).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/crypto/cpu_features.h"
#include "core/crypto/simd/aes_xts.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/crypto/xts.h"
#include "core/util/bytes.h"
#include "tests/support/xts_vectors.h"

using namespace warpvol;

namespace {

// Whether this CPU can run a kernel of the given level: the AES kernels use exactly what each level checks
// (core/crypto/cpu_features.cpp), so a level runs when it is at most the detected one (WARPVOL_CPU_PATH aside).
bool cpu_runs(IsaLevel level) { return level <= detected_isa(); }

// The AES SIMD implementations this CPU can run.
std::vector<simd::XtsImpl> runnable_aes_impls() {
  std::vector<simd::XtsImpl> all, out;
  simd::add_aes_impls(all);
  for (const auto& impl : all) {
    if (impl.cipher != CipherId::Aes) continue;
    if (cpu_runs(impl.level))
      out.push_back(impl);
    else
      WARN("AES XTS level " << isa_name(impl.level) << " not run: this CPU lacks its instructions");
  }
  CHECK(all.size() == 3);
  return out;
}

}  // namespace

TEST_CASE("AES-256 key schedule matches FIPS-197", "[aes][simd]") {
  if (!cpu_runs(IsaLevel::AesNi)) {
    WARN("no AES-NI: key schedule not tested");
    return;
  }
  // FIPS-197 Appendix A.3: key 603deb10...; last round key w[56..59] = fe4890d1 e6188d0b 046df344 706c631e.
  const auto key = from_hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
  simd::aes::Aes256Schedule s{};
  simd::aes::expand_key_aesni(key.data(), &s);
  CHECK(to_hex(s.enc[0], 16) == "603deb1015ca71be2b73aef0857d7781");
  CHECK(to_hex(s.enc[1], 16) == "1f352c073b6108d72d9810a30914dff4");
  CHECK(to_hex(s.enc[2], 16) == "9ba354118e6925afa51a8b5f2067fcde");
  CHECK(to_hex(s.enc[14], 16) == "fe4890d1e6188d0b046df344706c631e");
  CHECK(to_hex(s.dec[0], 16) == to_hex(s.enc[14], 16));
  CHECK(to_hex(s.dec[14], 16) == to_hex(s.enc[0], 16));
}

TEST_CASE("AES-256-XTS SIMD paths reproduce the IEEE 1619 vectors", "[aes][simd]") {
  // Each AES level is a provider of the AES chain: the IEEE file and VeraCrypt's AES CRCs run through it.
  std::vector<wvtest::XtsProvider> providers;
  for (const auto& impl : runnable_aes_impls()) {
    uint8_t k1[32] = {}, k2[32];
    std::memset(k2, 0x5a, sizeof k2);
    CHECK(impl.make(k1, k2)->impl_name() == isa_name(impl.level));
    providers.push_back(wvtest::cipher_provider("AES/" + std::string(isa_name(impl.level)), CipherId::Aes, impl.make));
  }
  wvtest::check_ieee1619_vectors(providers);
  wvtest::check_cascade_crc_vectors(providers);
}

TEST_CASE("AES-256-XTS SIMD paths match the portable path on random data", "[aes][simd]") {
  const auto impls = runnable_aes_impls();
  std::mt19937_64 rng(0x5eed'a35'0001ull);
  auto fill = [&](uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng());
  };
  const uint64_t units[] = {0, 1, 3, 0xffffffffull, (1ull << 40) + 3, ~0ull - 4 /* 2^64-5: wraps */, ~0ull};
  std::vector<size_t> counts;
  for (size_t n = 1; n <= 40; ++n) counts.push_back(n);
  counts.push_back(63);
  counts.push_back(2048);  // 1 MiB
  counts.push_back(2053);
  for (int rep = 0; rep < 2; ++rep) {
    uint8_t k1[32], k2[32];
    fill(k1, 32);
    fill(k2, 32);
    auto ref = make_xts_portable(CipherId::Aes, k1, k2);
    std::vector<std::unique_ptr<XtsCipher>> xs;
    for (const auto& impl : impls) xs.push_back(impl.make(k1, k2));
    for (uint64_t unit0 : units) {
      for (size_t n : counts) {
        // Offset by one byte: the kernels must not assume alignment.
        std::vector<uint8_t> storage(n * 512 + 1);
        uint8_t* pt = storage.data() + 1;
        fill(pt, n * 512);
        std::vector<uint8_t> want(pt, pt + n * 512);
        ref->encrypt(unit0, want.data(), n);
        for (const auto& x : xs) {
          INFO(x->impl_name() << " unit0=" << unit0 << " nunits=" << n << " rep=" << rep);
          std::vector<uint8_t> got_storage(storage);
          uint8_t* got = got_storage.data() + 1;
          x->encrypt(unit0, got, n);
          REQUIRE(std::memcmp(got, want.data(), n * 512) == 0);
          x->decrypt(unit0, got, n);
          REQUIRE(std::memcmp(got, pt, n * 512) == 0);
          REQUIRE(got_storage[0] == storage[0]);  // nothing written before the buffer
        }
        // Decrypting random "ciphertext" must also agree (not only round trips).
        std::vector<uint8_t> wantd(pt, pt + n * 512);
        ref->decrypt(unit0, wantd.data(), n);
        for (const auto& x : xs) {
          INFO(x->impl_name() << " decrypt unit0=" << unit0 << " nunits=" << n);
          std::vector<uint8_t> got(pt, pt + n * 512);
          x->decrypt(unit0, got.data(), n);
          REQUIRE(got == wantd);
        }
      }
    }
  }
}

TEST_CASE("AES-256-XTS: split calls equal one call, nunits 0 is a no-op", "[aes][simd]") {
  const auto impls = runnable_aes_impls();
  std::mt19937_64 rng(42);
  uint8_t k1[32], k2[32];
  for (auto& b : k1) b = static_cast<uint8_t>(rng());
  for (auto& b : k2) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> pt(97 * 512);
  for (auto& b : pt) b = static_cast<uint8_t>(rng());
  for (const auto& impl : impls) {
    auto x = impl.make(k1, k2);
    INFO(x->impl_name());
    std::vector<uint8_t> whole = pt, parts = pt;
    const uint64_t unit0 = ~0ull - 50;
    x->encrypt(unit0, whole.data(), 97);
    size_t done = 0;
    for (size_t step : {1, 5, 13, 31, 47}) {
      x->encrypt(unit0 + done, parts.data() + done * 512, step);
      done += step;
    }
    REQUIRE(done == 97);
    CHECK(whole == parts);
    x->encrypt(7, whole.data(), 0);
    x->decrypt(7, whole.data(), 0);
    CHECK(whole == parts);
  }
}

TEST_CASE("make_xts picks the AES SIMD path for each forced ISA level", "[aes][simd]") {
  std::mt19937_64 rng(7);
  uint8_t k1[32], k2[32];
  for (auto& b : k1) b = static_cast<uint8_t>(rng());
  for (auto& b : k2) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> pt(37 * 512);
  for (auto& b : pt) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> want = pt;
  make_xts_portable(CipherId::Aes, k1, k2)->encrypt(1ull << 40, want.data(), 37);
  for (IsaLevel l : {IsaLevel::Portable, IsaLevel::AesNi, IsaLevel::Avx2, IsaLevel::Avx512}) {
    if (static_cast<int>(l) > static_cast<int>(detected_isa())) continue;
    set_isa_override(l);
    auto x = make_xts(CipherId::Aes, k1, k2);
    set_isa_override(std::nullopt);
    INFO("forced " << isa_name(l));
    CHECK(x->impl_name() == isa_name(l));
    std::vector<uint8_t> got = pt;
    x->encrypt(1ull << 40, got.data(), 37);
    CHECK(got == want);
  }
}

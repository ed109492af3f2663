// Serpent / Twofish / Camellia XTS SIMD paths (core/crypto/simd/{serpent,twofish,camellia}_*): own key schedules
// against the ECB vectors and Crypto++, VeraCrypt's XTS self-test CRCs, and random differential tests against the
// portable (Crypto++) path for every registered level this CPU runs. Levels the CPU cannot run are reported with
// WARN; the AVX-512 Serpent code shape (16 lanes, ternary-logic S-boxes) additionally runs on an emulated vector
// type so it is exercised on every machine.
// The kernels force-inline everything (right for the ISA files). Here they run on emulated vectors, where that
// would build enormous functions and take minutes to compile: let the compiler decide instead.
#define SERPENT_INLINE inline
#define TWOFISH_INLINE inline
#define CAMELLIA_INLINE inline

#include <catch2/catch.hpp>
#include <cryptopp/camellia.h>
#include <cryptopp/serpent.h>
#include <cryptopp/twofish.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/crypto/cpu_features.h"
#include "core/crypto/simd/camellia_consts.h"
#include "core/crypto/simd/camellia_kernel.h"
#include "core/crypto/simd/camellia_xts.h"
#include "core/crypto/simd/serpent_kernel.h"
#include "core/crypto/simd/serpent_xts.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/crypto/simd/twofish_kernel.h"
#include "core/crypto/simd/twofish_xts.h"
#include "core/crypto/xts.h"
#include "core/util/bytes.h"
#include "tests/support/vectors.h"
#include "tests/support/xts_vectors.h"

using namespace warpvol;

namespace {

// __builtin_cpu_supports takes only string literals.
#define has(feature) (__builtin_cpu_init(), __builtin_cpu_supports(feature))

// Whether this CPU runs the kernel a cipher registered at a level: below AVX-512, checked per instruction set
// the kernel uses (the AVX2 level also demands BMI2, VAES and VPCLMULQDQ, which most of these AVX2 kernels do not
// use); __builtin_cpu_supports also checks that the OS saves the YMM state. Every *_avx512.cpp is built with all
// of the AVX-512 level's instruction sets allowed (core/CMakeLists.txt), so that level runs exactly where it is
// detected.
bool cpu_runs(CipherId id, IsaLevel level) {
  switch (level) {
    case IsaLevel::Portable: return true;
    case IsaLevel::AesNi:
      if (id == CipherId::Camellia) return has("aes") && has("ssse3") && has("sse4.1");
      return true;  // SSE2 / scalar code
    case IsaLevel::Avx2:
      if (id == CipherId::Camellia) return has("avx2") && has("aes") && has("vaes");
      return has("avx2");
    case IsaLevel::Avx512:
      return detected_isa() == IsaLevel::Avx512;
  }
  return false;
}

std::vector<simd::XtsImpl> registered(CipherId id) {
  std::vector<simd::XtsImpl> all, out;
  switch (id) {
    case CipherId::Serpent: simd::add_serpent_impls(all); break;
    case CipherId::Twofish: simd::add_twofish_impls(all); break;
    case CipherId::Camellia: simd::add_camellia_impls(all); break;
    default: break;
  }
  for (const auto& impl : all) {
    CHECK(impl.cipher == id);
    out.push_back(impl);
  }
  return out;
}

struct NamedXts {
  std::string name;
  std::function<std::unique_ptr<XtsCipher>(const uint8_t*, const uint8_t*)> make;
};

// The registered implementations of a cipher this CPU runs (others WARNed), plus extra test-only ones.
std::vector<NamedXts> runnable(CipherId id, std::vector<NamedXts> extra = {}) {
  std::vector<NamedXts> out;
  for (const auto& impl : registered(id)) {
    const std::string name = std::string(cipher_name(id)) + "/" + std::string(isa_name(impl.level));
    if (cpu_runs(id, impl.level))
      out.push_back({name, impl.make});
    else
      WARN(name << " not run: this CPU lacks its instructions");
  }
  for (auto& e : extra) out.push_back(std::move(e));
  return out;
}

void fill(std::mt19937_64& rng, uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng());
}

// Random differential test against make_xts_portable: nunits 1..40 and larger, unit numbers 0, 2^32-1,
// 2^40+3 and a 2^64 wrap, unaligned buffers, both directions, and split calls equal to one call.
void differential(CipherId id, const std::vector<NamedXts>& impls, uint64_t seed, bool large = true) {
  REQUIRE(!impls.empty());
  std::mt19937_64 rng(seed);
  const uint64_t units[] = {0, 0xffffffffull, (1ull << 40) + 3, ~0ull - 2};
  std::vector<size_t> counts;
  for (size_t n = 1; n <= 40; ++n) counts.push_back(n);
  counts.push_back(65);
  if (large) counts.push_back(2048);  // 1 MiB
  uint8_t k1[32], k2[32];
  fill(rng, k1, 32);
  fill(rng, k2, 32);
  auto ref = make_xts_portable(id, k1, k2);
  std::vector<std::unique_ptr<XtsCipher>> xs;
  for (const auto& impl : impls) {
    xs.push_back(impl.make(k1, k2));
    CHECK(xs.back()->cipher() == id);
  }
  for (uint64_t unit0 : units) {
    for (size_t n : counts) {
      std::vector<uint8_t> storage(n * 512 + 1);
      uint8_t* pt = storage.data() + 1;  // the kernels must not assume alignment
      fill(rng, pt, n * 512);
      std::vector<uint8_t> want(pt, pt + n * 512), wantd(pt, pt + n * 512);
      ref->encrypt(unit0, want.data(), n);
      ref->decrypt(unit0, wantd.data(), n);
      for (size_t i = 0; i < xs.size(); ++i) {
        INFO(impls[i].name << " (" << xs[i]->impl_name() << ") unit0=" << unit0 << " nunits=" << n);
        std::vector<uint8_t> got_storage(storage);
        uint8_t* got = got_storage.data() + 1;
        xs[i]->encrypt(unit0, got, n);
        REQUIRE(std::memcmp(got, want.data(), n * 512) == 0);
        xs[i]->decrypt(unit0, got, n);
        REQUIRE(std::memcmp(got, pt, n * 512) == 0);
        REQUIRE(got_storage[0] == storage[0]);
        std::vector<uint8_t> d(pt, pt + n * 512);
        xs[i]->decrypt(unit0, d.data(), n);
        REQUIRE(d == wantd);
      }
    }
  }
  // Split calls: same result as one call over 97 units across the 2^64 wrap.
  std::vector<uint8_t> pt(97 * 512);
  fill(rng, pt.data(), pt.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    INFO(impls[i].name << " split calls");
    std::vector<uint8_t> whole = pt, parts = pt;
    const uint64_t unit0 = ~0ull - 50;
    xs[i]->encrypt(unit0, whole.data(), 97);
    size_t done = 0;
    for (size_t step : {1, 5, 13, 31, 47}) {
      xs[i]->encrypt(unit0 + done, parts.data() + done * 512, step);
      done += step;
    }
    REQUIRE(done == 97);
    CHECK(whole == parts);
    std::vector<uint8_t> none = pt;
    xs[i]->encrypt(5, none.data(), 0);
    xs[i]->decrypt(5, none.data(), 0);
    CHECK(none == pt);
  }
}

// A cipher's paths as providers of its chain, run over VeraCrypt's XTS self-test CRCs (xts_cascades_crc.json) by
// the vector check every engine runs too.
void veracrypt_crc(CipherId id, const std::vector<NamedXts>& impls) {
  REQUIRE(!impls.empty());
  std::vector<wvtest::XtsProvider> providers;
  for (const auto& impl : impls) providers.push_back(wvtest::cipher_provider(impl.name, id, impl.make));
  wvtest::check_cascade_crc_vectors(providers);
}

struct EcbVector {
  std::vector<uint8_t> key, pt, ct;
};

// 256-bit-key ECB vectors of a cipher from block_ciphers_ecb.json (VeraCrypt) and cryptsetup_crypto_vectors.json.
std::vector<EcbVector> ecb_vectors(const std::string& veracrypt_prefix, const std::string& cryptsetup_name) {
  std::vector<EcbVector> out;
  const auto veracrypt = wvtest::load_vectors("block_ciphers_ecb.json");  // named: a temporary would dangle in the loop
  for (const auto& v : veracrypt.at("vectors")) {
    if (v.at("cipher").get<std::string>().rfind(veracrypt_prefix, 0) != 0) continue;
    out.push_back({wvtest::hex_bytes(v.at("key_hex")), wvtest::hex_bytes(v.at("plaintext_hex")),
                   wvtest::hex_bytes(v.at("ciphertext_hex"))});
  }
  const auto cryptsetup = wvtest::load_vectors("cryptsetup_crypto_vectors.json");
  for (const auto& v : cryptsetup.at("cipher_vectors")) {
    if (v.at("cipher").get<std::string>() != cryptsetup_name || v.at("mode").get<std::string>() != "ecb") continue;
    auto key = wvtest::hex_bytes(v.at("key_hex"));
    if (key.size() != 32) continue;  // VeraCrypt uses 256-bit keys only; the schedules here are 256-bit
    out.push_back({key, wvtest::hex_bytes(v.at("plaintext_hex")), wvtest::hex_bytes(v.at("ciphertext_hex"))});
  }
  REQUIRE(out.size() >= 2);
  return out;
}

// ------------------------------------------------------------------------------------------- Serpent helpers
// A 16-lane emulated vector with the AVX-512 wrapper's contract (serpent_kernel.h): runs the AVX-512 shape of the
// Serpent code (ternary-logic S-boxes, 16 blocks per set, 2 sets per batch) on any CPU.
struct Emu512 {
  uint32_t v[16];
  static constexpr int kBlocks = 4;
  static constexpr bool kTernlog = true;
  // Out of line on purpose: the Serpent kernel force-inlines every operation, and inlined 16-lane loops would make
  // this file take minutes to compile.
#define EMU_OP __attribute__((noinline))
  EMU_OP static Emu512 load(const uint8_t* p) {
    Emu512 r;
    std::memcpy(r.v, p, 64);
    return r;
  }
  EMU_OP static void store(uint8_t* p, Emu512 x) { std::memcpy(p, x.v, 64); }
  EMU_OP static Emu512 set1(uint32_t w) {
    Emu512 r;
    for (auto& x : r.v) x = w;
    return r;
  }
  EMU_OP static Emu512 bin(Emu512 a, Emu512 b, int op) {
    for (int i = 0; i < 16; ++i) a.v[i] = op == 0 ? a.v[i] ^ b.v[i] : op == 1 ? a.v[i] & b.v[i] : a.v[i] | b.v[i];
    return a;
  }
  friend Emu512 operator^(Emu512 a, Emu512 b) { return bin(a, b, 0); }
  friend Emu512 operator&(Emu512 a, Emu512 b) { return bin(a, b, 1); }
  friend Emu512 operator|(Emu512 a, Emu512 b) { return bin(a, b, 2); }
  EMU_OP friend Emu512 operator~(Emu512 a) {
    for (auto& x : a.v) x = ~x;
    return a;
  }
  Emu512& operator^=(Emu512 b) { return *this = *this ^ b; }
  Emu512& operator&=(Emu512 b) { return *this = *this & b; }
  Emu512& operator|=(Emu512 b) { return *this = *this | b; }
  EMU_OP static Emu512 rot(Emu512 a, int n, bool rotate) {
    for (auto& x : a.v) x = (x << n) | (rotate ? x >> (32 - n) : 0);
    return a;
  }
  template <int n>
  static Emu512 rotl(Emu512 a) { return rot(a, n, true); }
  template <int n>
  static Emu512 shl(Emu512 a) { return rot(a, n, false); }
  static Emu512 xor3(Emu512 a, Emu512 b, Emu512 c) { return a ^ b ^ c; }
  // vpternlogd: result bit = bit (a << 2 | b << 1 | c) of imm, as the sum of the minterms imm selects.
  static uint32_t tern_word(int imm, uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r = 0;
    for (int i = 0; i < 8; ++i)
      if ((imm >> i) & 1) r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
    return r;
  }
  EMU_OP static Emu512 tern_rt(int imm, Emu512 a, Emu512 b, Emu512 c) {
    for (int i = 0; i < 16; ++i) a.v[i] = tern_word(imm, a.v[i], b.v[i], c.v[i]);
    return a;
  }
  template <int imm>
  static Emu512 tern(Emu512 a, Emu512 b, Emu512 c) { return tern_rt(imm, a, b, c); }
  EMU_OP static void transpose(Emu512& a, Emu512& b, Emu512& c, Emu512& d) {
    Emu512* m[4] = {&a, &b, &c, &d};
    Emu512 in[4] = {a, b, c, d};
    for (int lane = 0; lane < 4; ++lane)
      for (int r = 0; r < 4; ++r)
        for (int col = 0; col < 4; ++col) m[r]->v[4 * lane + col] = in[col].v[4 * lane + r];
  }
  EMU_OP static Emu512 mul_xk_rt(Emu512 t, int k) {
    for (int lane = 0; lane < 4; ++lane) {
      uint8_t b[16];
      std::memcpy(b, t.v + 4 * lane, 16);
      for (int i = 0; i < k; ++i) xts_mul_alpha(b);
      std::memcpy(t.v + 4 * lane, b, 16);
    }
    return t;
  }
  template <int k>
  static Emu512 mul_xk(Emu512 t) { return mul_xk_rt(t, k); }
#undef EMU_OP
};

// Test-only XtsCipher over the emulated AVX-512 shape.
class SerpentEmu512Xts final : public XtsCipher {
 public:
  SerpentEmu512Xts(const uint8_t* k1, const uint8_t* k2) {
    simd::serpent::expand_key(k1, keys_.k1);
    simd::serpent::expand_key(k2, keys_.k2);
  }
  CipherId cipher() const override { return CipherId::Serpent; }
  std::string_view impl_name() const override { return "emulated-avx512"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t n) const override {
    simd::serpent::Xts<Emu512, 2>::run<true>(keys_.k1, keys_.k2, unit0, data, n);
  }
  void decrypt(uint64_t unit0, uint8_t* data, size_t n) const override {
    simd::serpent::Xts<Emu512, 2>::run<false>(keys_.k1, keys_.k2, unit0, data, n);
  }

 private:
  simd::serpent::SerpentXtsKeys keys_;
};

// ------------------------------------------------------------------------------------------- Twofish helpers
// 16 lanes of 32 bits with the AVX-512 wrapper's contract (twofish_kernel.h): runs the AVX-512 gather shape.
struct TwofishEmu512 {
  uint32_t v[16];
  static constexpr int kBlocks = 4;
#define EMU_OP __attribute__((noinline))
  EMU_OP static TwofishEmu512 load(const uint8_t* p) {
    TwofishEmu512 r;
    std::memcpy(r.v, p, 64);
    return r;
  }
  EMU_OP static void store(uint8_t* p, TwofishEmu512 x) { std::memcpy(p, x.v, 64); }
  EMU_OP static TwofishEmu512 set1(uint32_t w) {
    TwofishEmu512 r;
    for (auto& x : r.v) x = w;
    return r;
  }
  EMU_OP friend TwofishEmu512 operator^(TwofishEmu512 a, TwofishEmu512 b) {
    for (int i = 0; i < 16; ++i) a.v[i] ^= b.v[i];
    return a;
  }
  EMU_OP friend TwofishEmu512 operator+(TwofishEmu512 a, TwofishEmu512 b) {
    for (int i = 0; i < 16; ++i) a.v[i] += b.v[i];
    return a;
  }
  EMU_OP static TwofishEmu512 rot(TwofishEmu512 a, int n) {
    for (auto& x : a.v) x = (x << n) | (x >> (32 - n));
    return a;
  }
  template <int n>
  static TwofishEmu512 rotl(TwofishEmu512 a) { return rot(a, n); }
  EMU_OP static TwofishEmu512 byte_rt(TwofishEmu512 a, int j) {
    for (auto& x : a.v) x = (x >> (8 * j)) & 0xff;
    return a;
  }
  template <int j>
  static TwofishEmu512 byte(TwofishEmu512 a) { return byte_rt(a, j); }
  EMU_OP static TwofishEmu512 gather(const uint32_t* table, TwofishEmu512 idx) {
    for (auto& x : idx.v) x = table[x];
    return idx;
  }
  EMU_OP static void transpose(TwofishEmu512& a, TwofishEmu512& b, TwofishEmu512& c, TwofishEmu512& d) {
    TwofishEmu512* m[4] = {&a, &b, &c, &d};
    TwofishEmu512 in[4] = {a, b, c, d};
    for (int lane = 0; lane < 4; ++lane)
      for (int r = 0; r < 4; ++r)
        for (int col = 0; col < 4; ++col) m[r]->v[4 * lane + col] = in[col].v[4 * lane + r];
  }
  EMU_OP static TwofishEmu512 mul_xk_rt(TwofishEmu512 t, int k) {
    for (int lane = 0; lane < 4; ++lane) {
      uint8_t b[16];
      std::memcpy(b, t.v + 4 * lane, 16);
      for (int i = 0; i < k; ++i) xts_mul_alpha(b);
      std::memcpy(t.v + 4 * lane, b, 16);
    }
    return t;
  }
  template <int k>
  static TwofishEmu512 mul_xk(TwofishEmu512 t) { return mul_xk_rt(t, k); }
#undef EMU_OP
};

// The kernel template over the emulated lanes, with g() by gathers (GatherG) or by the byte-permute kernel's
// decomposition (TwofishEmuPermuteG below).
template <class Lookup>
class TwofishEmu512Xts final : public XtsCipher {
 public:
  TwofishEmu512Xts(const uint8_t* k1, const uint8_t* k2) : keys_(new simd::twofish::TwofishXtsKeys) {
    simd::twofish::expand_key(k1, &keys_->k1);
    simd::twofish::expand_key(k2, &keys_->k2);
  }
  CipherId cipher() const override { return CipherId::Twofish; }
  std::string_view impl_name() const override { return "emulated-avx512"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t n) const override {
    simd::twofish::Xts<TwofishEmu512, 2, Lookup>::template run<true>(keys_.get(), unit0, data, n);
  }
  void decrypt(uint64_t unit0, uint8_t* data, size_t n) const override {
    simd::twofish::Xts<TwofishEmu512, 2, Lookup>::template run<false>(keys_.get(), unit0, data, n);
  }

 private:
  std::unique_ptr<simd::twofish::TwofishXtsKeys> keys_;
};

// ------------------------------------------------------------------------------------------ Camellia helpers
uint8_t gf256_inv(uint8_t x) {  // inversion in AES's field (0 -> 0)
  static const auto table = [] {
    auto mul = [](uint8_t a, uint8_t b) {
      uint8_t r = 0;
      for (int i = 0; i < 8; ++i) {
        if ((b >> i) & 1) r ^= a;
        a = uint8_t((a << 1) ^ ((a & 0x80) ? 0x1B : 0));
      }
      return r;
    };
    std::vector<uint8_t> t(256, 0);
    for (int a = 1; a < 256; ++a)
      for (int b = 1; b < 256; ++b)
        if (mul(uint8_t(a), uint8_t(b)) == 1) t[a] = uint8_t(b);
    return t;
  }();
  return table[x];
}

// vgf2p8affineqb on one byte: bit i = parity(x & byte (7 - i) of the matrix) ^ bit i of c.
uint8_t gfni_affine(uint8_t x, uint64_t m, uint8_t c) {
  uint8_t r = 0;
  for (int i = 0; i < 8; ++i) r |= uint8_t((__builtin_popcount(x & uint8_t(m >> (8 * (7 - i)))) & 1) << i);
  return r ^ c;
}

// g() as the AVX-512 VBMI kernel computes it (twofish_xts_avx512.cpp, PermuteG), one lane at a time: the keyed
// S-box bytes, their products with 0xEF and 0x5B through vgf2p8affineqb's matrices, and the MDS multiply as
// kMdsByRotation's rotations. Runs that decomposition on CPUs without AVX-512 (CI); the intrinsics themselves run
// only where the CPU has them.
struct TwofishEmuPermuteG {
  static uint32_t g_lane(const simd::twofish::TwofishKey* k, uint32_t x) {
    using simd::twofish::kMdsByRotation, simd::twofish::mds_mul_matrix;
    uint8_t y[4], ef[4], fb[4];
    for (int p = 0; p < 4; ++p) {
      y[p] = k->sbox[p][(x >> (8 * p)) & 0xff];
      ef[p] = gfni_affine(y[p], mds_mul_matrix(0xEF), 0);
      fb[p] = gfni_affine(y[p], mds_mul_matrix(0x5B), 0);
    }
    uint32_t out = 0;
    for (int r = 0; r < 4; ++r) {
      uint32_t z = 0;
      for (int p = 0; p < 4; ++p) {
        const uint8_t c = kMdsByRotation[r][p];
        z |= uint32_t(c == 0x01 ? y[p] : c == 0xEF ? ef[p] : fb[p]) << (8 * p);
      }
      out ^= r ? (z << (8 * r)) | (z >> (32 - 8 * r)) : z;
    }
    return out;
  }
  static TwofishEmu512 g0(const simd::twofish::TwofishKey* k, TwofishEmu512 x) {
    for (auto& w : x.v) w = g_lane(k, w);
    return x;
  }
  static TwofishEmu512 g1(const simd::twofish::TwofishKey* k, TwofishEmu512 x) {
    for (auto& w : x.v) w = g_lane(k, (w << 8) | (w >> 24));
    return x;
  }
};

// 4 lanes of 16 bytes with the AVX-512+GFNI wrapper's contract (camellia_kernel.h).
struct CamelliaEmuGfni {
  uint8_t v[64];
  static constexpr int kLanes = 4;
#define EMU_OP __attribute__((noinline))
  template <class P>
  static CamelliaEmuGfni loadg(const P (&p)[4], int i) {
    CamelliaEmuGfni r;
    for (int g = 0; g < 4; ++g) std::memcpy(r.v + 16 * g, p[g] + 16 * i, 16);
    return r;
  }
  static void storeg(uint8_t* const (&p)[4], int i, CamelliaEmuGfni x) {
    for (int g = 0; g < 4; ++g) std::memcpy(p[g] + 16 * i, x.v + 16 * g, 16);
  }
  EMU_OP static CamelliaEmuGfni bin(CamelliaEmuGfni a, const CamelliaEmuGfni& b, int op) {
    for (int i = 0; i < 64; ++i) a.v[i] = uint8_t(op == 0 ? a.v[i] ^ b.v[i] : op == 1 ? a.v[i] & b.v[i] : a.v[i] | b.v[i]);
    return a;
  }
  friend CamelliaEmuGfni operator^(CamelliaEmuGfni a, CamelliaEmuGfni b) { return bin(a, b, 0); }
  friend CamelliaEmuGfni operator&(CamelliaEmuGfni a, CamelliaEmuGfni b) { return bin(a, b, 1); }
  friend CamelliaEmuGfni operator|(CamelliaEmuGfni a, CamelliaEmuGfni b) { return bin(a, b, 2); }
  EMU_OP static CamelliaEmuGfni bcast(uint8_t b) {
    CamelliaEmuGfni r;
    std::memset(r.v, b, 64);
    return r;
  }
  EMU_OP static CamelliaEmuGfni shl1b(CamelliaEmuGfni a) {
    for (auto& x : a.v) x = uint8_t(x << 1);
    return a;
  }
  EMU_OP static CamelliaEmuGfni shr7b(CamelliaEmuGfni a) {
    for (auto& x : a.v) x = uint8_t(x >> 7);
    return a;
  }
  EMU_OP static CamelliaEmuGfni unpack(CamelliaEmuGfni a, CamelliaEmuGfni b, int half) {  // punpck{l,h}bw per lane
    CamelliaEmuGfni r;
    for (int g = 0; g < 4; ++g)
      for (int i = 0; i < 8; ++i) {
        r.v[16 * g + 2 * i] = a.v[16 * g + 8 * half + i];
        r.v[16 * g + 2 * i + 1] = b.v[16 * g + 8 * half + i];
      }
    return r;
  }
  static CamelliaEmuGfni unpacklo8(CamelliaEmuGfni a, CamelliaEmuGfni b) { return unpack(a, b, 0); }
  static CamelliaEmuGfni unpackhi8(CamelliaEmuGfni a, CamelliaEmuGfni b) { return unpack(a, b, 1); }
  EMU_OP static CamelliaEmuGfni sbox_rt(CamelliaEmuGfni x, int s) {
    for (auto& b : x.v) {
      const uint8_t z = gfni_affine(b, simd::camellia::kGfniPre[s - 1], simd::camellia::kGfniPreC[s - 1]);
      b = gfni_affine(gf256_inv(z), simd::camellia::kGfniPost[s - 1], simd::camellia::kGfniPostC[s - 1]);
    }
    return x;
  }
  template <int s, bool kD2>
  static CamelliaEmuGfni sbox(CamelliaEmuGfni x) { return sbox_rt(x, s); }
  static CamelliaEmuGfni to_d2_order(CamelliaEmuGfni x) { return x; }
  static CamelliaEmuGfni from_d2_order(CamelliaEmuGfni x) { return x; }
  EMU_OP static CamelliaEmuGfni mul_x(CamelliaEmuGfni t) {
    for (int g = 0; g < 4; ++g) xts_mul_alpha(t.v + 16 * g);
    return t;
  }
#undef EMU_OP
};

class CamelliaEmuGfniXts final : public XtsCipher {
 public:
  CamelliaEmuGfniXts(const uint8_t* k1, const uint8_t* k2) {
    simd::camellia::CamelliaSchedule unused;
    simd::camellia::expand_key(k1, &keys_.enc1, &keys_.dec1);
    simd::camellia::expand_key(k2, &keys_.enc2, &unused);
  }
  CipherId cipher() const override { return CipherId::Camellia; }
  std::string_view impl_name() const override { return "emulated-avx512-gfni"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t n) const override {
    simd::camellia::Xts<CamelliaEmuGfni>::run<true>(&keys_, unit0, data, n);
  }
  void decrypt(uint64_t unit0, uint8_t* data, size_t n) const override {
    simd::camellia::Xts<CamelliaEmuGfni>::run<false>(&keys_, unit0, data, n);
  }

 private:
  simd::camellia::CamelliaXtsKeys keys_;
};

// Truth-table "vector": bit j of every word is the S-box evaluated at nibble j (x0 = 0xAAAA, ...).
struct TruthTable {
  uint32_t v;
  static constexpr bool kTernlog = true;
  friend TruthTable operator^(TruthTable a, TruthTable b) { return {a.v ^ b.v}; }
  friend TruthTable operator&(TruthTable a, TruthTable b) { return {a.v & b.v}; }
  friend TruthTable operator|(TruthTable a, TruthTable b) { return {a.v | b.v}; }
  friend TruthTable operator~(TruthTable a) { return {~a.v}; }
  TruthTable& operator^=(TruthTable b) { return *this = *this ^ b; }
  TruthTable& operator&=(TruthTable b) { return *this = *this & b; }
  TruthTable& operator|=(TruthTable b) { return *this = *this | b; }
  template <int imm>
  static TruthTable tern(TruthTable a, TruthTable b, TruthTable c) { return {Emu512::tern_word(imm, a.v, b.v, c.v)}; }
};

template <class F>
void check_sbox_circuit(F f, const unsigned char* table, const char* what) {
  TruthTable x[4];
  for (int k = 0; k < 4; ++k) {
    x[k].v = 0;
    for (int j = 0; j < 16; ++j)
      if ((j >> k) & 1) x[k].v |= 1u << j;
  }
  f(x[0], x[1], x[2], x[3]);
  for (int j = 0; j < 16; ++j) {
    int y = 0;
    for (int k = 0; k < 4; ++k) y |= int((x[k].v >> j) & 1) << k;
    INFO(what << " input " << j);
    CHECK(y == table[j]);
  }
}

}  // namespace

// ================================================================================================== Serpent
TEST_CASE("Serpent S-box circuits (gates and ternary logic) equal the S-box tables", "[serpent][simd]") {
  using namespace simd::serpent;
  unsigned char inv[8][16];
  for (int s = 0; s < 8; ++s)
    for (int j = 0; j < 16; ++j) inv[s][kSbox[s][j]] = static_cast<unsigned char>(j);
  // Serpent S0 from the specification, independent of the generated table.
  const unsigned char s0[16] = {3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12};
  CHECK(std::memcmp(kSbox[0], s0, 16) == 0);
  using T = TruthTable;
  check_sbox_circuit(sbox0_gates<T>, kSbox[0], "S0 gates");
  check_sbox_circuit(sbox1_gates<T>, kSbox[1], "S1 gates");
  check_sbox_circuit(sbox2_gates<T>, kSbox[2], "S2 gates");
  check_sbox_circuit(sbox3_gates<T>, kSbox[3], "S3 gates");
  check_sbox_circuit(sbox4_gates<T>, kSbox[4], "S4 gates");
  check_sbox_circuit(sbox5_gates<T>, kSbox[5], "S5 gates");
  check_sbox_circuit(sbox6_gates<T>, kSbox[6], "S6 gates");
  check_sbox_circuit(sbox7_gates<T>, kSbox[7], "S7 gates");
  check_sbox_circuit(sbox0_tl<T>, kSbox[0], "S0 ternlog");
  check_sbox_circuit(sbox1_tl<T>, kSbox[1], "S1 ternlog");
  check_sbox_circuit(sbox2_tl<T>, kSbox[2], "S2 ternlog");
  check_sbox_circuit(sbox3_tl<T>, kSbox[3], "S3 ternlog");
  check_sbox_circuit(sbox4_tl<T>, kSbox[4], "S4 ternlog");
  check_sbox_circuit(sbox5_tl<T>, kSbox[5], "S5 ternlog");
  check_sbox_circuit(sbox6_tl<T>, kSbox[6], "S6 ternlog");
  check_sbox_circuit(sbox7_tl<T>, kSbox[7], "S7 ternlog");
  check_sbox_circuit(ibox0_gates<T>, inv[0], "I0 gates");
  check_sbox_circuit(ibox1_gates<T>, inv[1], "I1 gates");
  check_sbox_circuit(ibox2_gates<T>, inv[2], "I2 gates");
  check_sbox_circuit(ibox3_gates<T>, inv[3], "I3 gates");
  check_sbox_circuit(ibox4_gates<T>, inv[4], "I4 gates");
  check_sbox_circuit(ibox5_gates<T>, inv[5], "I5 gates");
  check_sbox_circuit(ibox6_gates<T>, inv[6], "I6 gates");
  check_sbox_circuit(ibox7_gates<T>, inv[7], "I7 gates");
  check_sbox_circuit(ibox0_tl<T>, inv[0], "I0 ternlog");
  check_sbox_circuit(ibox1_tl<T>, inv[1], "I1 ternlog");
  check_sbox_circuit(ibox2_tl<T>, inv[2], "I2 ternlog");
  check_sbox_circuit(ibox3_tl<T>, inv[3], "I3 ternlog");
  check_sbox_circuit(ibox4_tl<T>, inv[4], "I4 ternlog");
  check_sbox_circuit(ibox5_tl<T>, inv[5], "I5 ternlog");
  check_sbox_circuit(ibox6_tl<T>, inv[6], "I6 ternlog");
  check_sbox_circuit(ibox7_tl<T>, inv[7], "I7 ternlog");
}

TEST_CASE("Serpent key schedule: ECB vectors and Crypto++", "[serpent][simd]") {
  for (const auto& v : ecb_vectors("Serpent", "serpent")) {
    uint32_t rk[simd::serpent::kRoundKeyWords];
    simd::serpent::expand_key(v.key.data(), rk);
    INFO("key " << to_hex(v.key.data(), v.key.size()));
    REQUIRE(v.pt.size() % 16 == 0);
    for (size_t b = 0; b < v.pt.size(); b += 16) {
      uint8_t out[16], back[16];
      simd::serpent::encrypt_block(rk, v.pt.data() + b, out);
      CHECK(to_hex(out, 16) == to_hex(v.ct.data() + b, 16));
      simd::serpent::decrypt_block(rk, out, back);
      CHECK(to_hex(back, 16) == to_hex(v.pt.data() + b, 16));
    }
  }
  std::mt19937_64 rng(0x5e7'9e47);
  for (int i = 0; i < 200; ++i) {
    uint8_t key[32], pt[16], want[16], got[16];
    fill(rng, key, 32);
    fill(rng, pt, 16);
    CryptoPP::Serpent::Encryption ref(key, 32);
    ref.ProcessBlock(pt, want);
    uint32_t rk[simd::serpent::kRoundKeyWords];
    simd::serpent::expand_key(key, rk);
    simd::serpent::encrypt_block(rk, pt, got);
    REQUIRE(to_hex(got, 16) == to_hex(want, 16));
  }
}

TEST_CASE("Serpent-XTS SIMD paths: VeraCrypt XTS self-test CRCs", "[serpent][simd]") {
  veracrypt_crc(CipherId::Serpent,
                runnable(CipherId::Serpent, {{"Serpent/emulated-avx512", [](const uint8_t* a, const uint8_t* b) {
                                                return std::make_unique<SerpentEmu512Xts>(a, b);
                                              }}}));
}

TEST_CASE("Serpent-XTS SIMD paths match the portable path on random data", "[serpent][simd]") {
  differential(CipherId::Serpent, runnable(CipherId::Serpent), 0x5e7'0001);
  // The emulated AVX-512 shape is slow: no 1 MiB case.
  differential(CipherId::Serpent,
               {{"Serpent/emulated-avx512",
                 [](const uint8_t* a, const uint8_t* b) { return std::make_unique<SerpentEmu512Xts>(a, b); }}},
               0x5e7'0002, false);
}

TEST_CASE("Serpent-XTS: make_xts picks a SIMD path at each runnable level", "[serpent][simd]") {
  uint8_t k1[32] = {1}, k2[32] = {2};
  for (IsaLevel level : {IsaLevel::AesNi, IsaLevel::Avx2, IsaLevel::Avx512}) {
    if (static_cast<int>(level) > static_cast<int>(detected_isa())) continue;
    auto x = make_xts(CipherId::Serpent, k1, k2, level);
    INFO(isa_name(level));
    CHECK(x->cipher() == CipherId::Serpent);
    CHECK(x->impl_name() != "portable");
  }
}

// ================================================================================================== Twofish
TEST_CASE("Twofish key schedule and tables: ECB vectors and Crypto++", "[twofish][simd]") {
  auto k = std::make_unique<simd::twofish::TwofishKey>();
  for (const auto& v : ecb_vectors("Twofish", "twofish")) {
    simd::twofish::expand_key(v.key.data(), k.get());
    INFO("key " << to_hex(v.key.data(), v.key.size()));
    for (size_t b = 0; b < v.pt.size(); b += 16) {
      uint8_t out[16], back[16];
      simd::twofish::encrypt_block(k.get(), v.pt.data() + b, out);
      CHECK(to_hex(out, 16) == to_hex(v.ct.data() + b, 16));
      simd::twofish::decrypt_block(k.get(), out, back);
      CHECK(to_hex(back, 16) == to_hex(v.pt.data() + b, 16));
    }
  }
  // The paper's 256-bit test: key 0, plaintext 0.
  const uint8_t zero[32] = {};
  uint8_t out[16];
  simd::twofish::expand_key(zero, k.get());
  simd::twofish::encrypt_block(k.get(), zero, out);
  CHECK(to_hex(out, 16) == "57ff739d4dc92c1bd7fc01700cc8216f");
  std::mt19937_64 rng(0x7f'15'4);
  for (int i = 0; i < 100; ++i) {
    uint8_t key[32], pt[16], want[16], got[16];
    fill(rng, key, 32);
    fill(rng, pt, 16);
    CryptoPP::Twofish::Encryption ref(key, 32);
    ref.ProcessBlock(pt, want);
    simd::twofish::expand_key(key, k.get());
    simd::twofish::encrypt_block(k.get(), pt, got);
    REQUIRE(to_hex(got, 16) == to_hex(want, 16));
  }
}

namespace {
// The Twofish gather kernels are not registered (twofish_impls.cpp says why), so test them here.
class TwofishKernelXts final : public XtsCipher {
 public:
  TwofishKernelXts(simd::twofish::XtsKernel e, simd::twofish::XtsKernel d, const uint8_t* k1, const uint8_t* k2)
      : keys_(new simd::twofish::TwofishXtsKeys), e_(e), d_(d) {
    simd::twofish::expand_key(k1, &keys_->k1);
    simd::twofish::expand_key(k2, &keys_->k2);
  }
  CipherId cipher() const override { return CipherId::Twofish; }
  std::string_view impl_name() const override { return "kernel"; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t n) const override { e_(keys_.get(), unit0, data, n); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t n) const override { d_(keys_.get(), unit0, data, n); }

 private:
  std::unique_ptr<simd::twofish::TwofishXtsKeys> keys_;
  simd::twofish::XtsKernel e_, d_;
};

std::vector<NamedXts> twofish_gather_kernels() {
  std::vector<NamedXts> out;
  if (cpu_runs(CipherId::Twofish, IsaLevel::Avx2))
    out.push_back({"Twofish/avx2-gather", [](const uint8_t* a, const uint8_t* b) {
                     return std::make_unique<TwofishKernelXts>(simd::twofish::xts_encrypt_avx2,
                                                               simd::twofish::xts_decrypt_avx2, a, b);
                   }});
  else
    WARN("Twofish AVX2 gather kernel not run: this CPU lacks AVX2");
  if (cpu_runs(CipherId::Twofish, IsaLevel::Avx512))
    out.push_back({"Twofish/avx512-gather", [](const uint8_t* a, const uint8_t* b) {
                     return std::make_unique<TwofishKernelXts>(simd::twofish::xts_encrypt_avx512,
                                                               simd::twofish::xts_decrypt_avx512, a, b);
                   }});
  else
    WARN("Twofish AVX-512 gather kernel not run natively: this CPU lacks AVX-512 (the emulated shape runs)");
  return out;
}

NamedXts twofish_emu() {
  return {"Twofish/emulated-avx512", [](const uint8_t* a, const uint8_t* b) {
            return std::make_unique<TwofishEmu512Xts<simd::twofish::GatherG<TwofishEmu512>>>(a, b);
          }};
}
NamedXts twofish_emu_permute() {
  return {"Twofish/emulated-avx512-vbmi", [](const uint8_t* a, const uint8_t* b) {
            return std::make_unique<TwofishEmu512Xts<TwofishEmuPermuteG>>(a, b);
          }};
}
NamedXts camellia_emu() {
  return {"Camellia/emulated-avx512-gfni",
          [](const uint8_t* a, const uint8_t* b) { return std::make_unique<CamelliaEmuGfniXts>(a, b); }};
}
}  // namespace

TEST_CASE("Twofish-XTS SIMD paths: VeraCrypt XTS self-test CRCs", "[twofish][simd]") {
  auto extra = twofish_gather_kernels();
  extra.push_back(twofish_emu());
  extra.push_back(twofish_emu_permute());
  veracrypt_crc(CipherId::Twofish, runnable(CipherId::Twofish, extra));
}

TEST_CASE("Twofish-XTS SIMD paths match the portable path on random data", "[twofish][simd]") {
  differential(CipherId::Twofish, runnable(CipherId::Twofish, twofish_gather_kernels()), 0x7f'0001);
  differential(CipherId::Twofish, {twofish_emu(), twofish_emu_permute()}, 0x7f'0002, false);
}

TEST_CASE("Twofish byte-permute g(): keyed S-box bytes and the MDS multiply by rotations equal the folded tables",
          "[twofish][simd]") {
  auto k = std::make_unique<simd::twofish::TwofishKey>();
  std::mt19937_64 rng(0x7f'0003);
  for (int key = 0; key < 4; ++key) {
    uint8_t kb[32];
    fill(rng, kb, 32);
    simd::twofish::expand_key(kb, k.get());
    for (int x = 0; x < 256; ++x)  // each folded table is MDS column j times the S-box byte
      for (int j = 0; j < 4; ++j) {
        const uint32_t one_byte = uint32_t(x) << (8 * j);
        REQUIRE(TwofishEmuPermuteG::g_lane(k.get(), one_byte) ==
                (k->s[j][x] ^ k->s[0][0] ^ k->s[1][0] ^ k->s[2][0] ^ k->s[3][0] ^ k->s[j][0]));
      }
    for (int i = 0; i < 1000; ++i) {
      const uint32_t w = uint32_t(rng());
      REQUIRE(TwofishEmuPermuteG::g_lane(k.get(), w) ==
              (k->s[0][w & 0xff] ^ k->s[1][(w >> 8) & 0xff] ^ k->s[2][(w >> 16) & 0xff] ^ k->s[3][w >> 24]));
    }
  }
}

// ================================================================================================= Camellia
TEST_CASE("Camellia S-box constants: AES-NI (both forms) and GFNI equal SBOX1..4", "[camellia][simd]") {
  using namespace simd::camellia;
  // RFC 3713 SBOX1 starts 112, 130, 44, 236.
  CHECK(kSbox1[0] == 112);
  CHECK(kSbox1[1] == 130);
  CHECK(kSbox1[2] == 44);
  CHECK(kSbox1[3] == 236);
  auto rotl8 = [](uint8_t x, int n) { return uint8_t((x << n) | (x >> (8 - n))); };
  // AES S-box from its definition, for the AES-NI form.
  auto aes_sbox = [&](uint8_t x) {
    const uint8_t v = gf256_inv(x);
    return uint8_t(v ^ rotl8(v, 1) ^ rotl8(v, 2) ^ rotl8(v, 3) ^ rotl8(v, 4) ^ 0x63);
  };
  REQUIRE(aes_sbox(0x53) == 0xED);
  for (int s = 1; s <= 4; ++s) {
    for (int x = 0; x < 256; ++x) {
      uint8_t want = s == 1 ? kSbox1[x] : s == 2 ? rotl8(kSbox1[x], 1) : s == 3 ? rotl8(kSbox1[x], 7)
                                                                             : kSbox1[rotl8(uint8_t(x), 1)];
      const uint8_t z = gfni_affine(uint8_t(x), kGfniPre[s - 1], kGfniPreC[s - 1]);
      INFO("s" << s << " x=" << x);
      CHECK(gfni_affine(gf256_inv(z), kGfniPost[s - 1], kGfniPostC[s - 1]) == want);
      const uint8_t za = kPreLo[s - 1][x & 15] ^ kPreHi[s - 1][x >> 4];
      const uint8_t y = aes_sbox(za);
      CHECK(uint8_t(kPostLo[s - 1][y & 15] ^ kPostHi[s - 1][y >> 4]) == want);
      // aesdeclast form: through the AES inverse S-box
      const uint8_t zd = kDecPreLo[s - 1][x & 15] ^ kDecPreHi[s - 1][x >> 4];
      uint8_t yd = 0;
      while (aes_sbox(yd) != zd) ++yd;
      CHECK(uint8_t(kDecPostLo[s - 1][yd & 15] ^ kDecPostHi[s - 1][yd >> 4]) == want);
    }
  }
}

TEST_CASE("Camellia key schedule: ECB vectors and Crypto++", "[camellia][simd]") {
  simd::camellia::CamelliaSchedule enc, dec;
  for (const auto& v : ecb_vectors("Camellia", "camellia")) {
    simd::camellia::expand_key(v.key.data(), &enc, &dec);
    INFO("key " << to_hex(v.key.data(), v.key.size()));
    for (size_t b = 0; b < v.pt.size(); b += 16) {
      uint8_t out[16], back[16];
      simd::camellia::crypt_block(&enc, v.pt.data() + b, out);
      CHECK(to_hex(out, 16) == to_hex(v.ct.data() + b, 16));
      simd::camellia::crypt_block(&dec, out, back);
      CHECK(to_hex(back, 16) == to_hex(v.pt.data() + b, 16));
    }
  }
  std::mt19937_64 rng(0xca'3e11);
  for (int i = 0; i < 100; ++i) {
    uint8_t key[32], pt[16], want[16], got[16];
    fill(rng, key, 32);
    fill(rng, pt, 16);
    CryptoPP::Camellia::Encryption ref(key, 32);
    ref.ProcessBlock(pt, want);
    simd::camellia::expand_key(key, &enc, &dec);
    simd::camellia::crypt_block(&enc, pt, got);
    REQUIRE(to_hex(got, 16) == to_hex(want, 16));
  }
}

TEST_CASE("Camellia-XTS SIMD paths: VeraCrypt XTS self-test CRCs", "[camellia][simd]") {
  veracrypt_crc(CipherId::Camellia, runnable(CipherId::Camellia, {camellia_emu()}));
}

TEST_CASE("Camellia-XTS SIMD paths match the portable path on random data", "[camellia][simd]") {
  differential(CipherId::Camellia, runnable(CipherId::Camellia), 0xca'0001);
  differential(CipherId::Camellia, {camellia_emu()}, 0xca'0002, false);
}

TEST_CASE("Twofish/Camellia-XTS: make_xts picks a SIMD path at each runnable level", "[twofish][camellia][simd]") {
  uint8_t k1[32] = {1}, k2[32] = {2};
  for (CipherId id : {CipherId::Twofish, CipherId::Camellia}) {
    for (IsaLevel level : {IsaLevel::AesNi, IsaLevel::Avx2, IsaLevel::Avx512}) {
      if (static_cast<int>(level) > static_cast<int>(detected_isa())) continue;
      auto x = make_xts(id, k1, k2, level);
      INFO(cipher_name(id) << " " << isa_name(level));
      CHECK(x->cipher() == id);
      CHECK(x->impl_name() != "portable");
    }
  }
}

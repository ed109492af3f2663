// Streebog-512 (GOST R 34.11-2012, RFC 6986), hand-written: Crypto++ has no Streebog.
//
// Byte order: RFC 6986 writes 512-bit vectors most significant byte first; the message is processed as a byte stream
// where the first byte is the least significant one (RFC M1 "323130...3130" is the ASCII string "0123...012"), and
// the digest is output least significant byte first. So the state is kept as 8 little-endian uint64 lanes over the
// bytes in memory order (lane i = bytes 8i..8i+7), and the published constants are byte-reversed into that form.
//
// Speed: the LPS transform (S-box, byte transposition P, linear map L) is done with the usual 8 x 256 uint64 tables
// (Ax): LPS(x) lane i = XOR_j Ax[j][byte i of lane j]. One compression g_N is 25 LPS = 1600 table lookups.
#include "core/kdf/streebog.h"

#include <cstring>
#include <emmintrin.h>
#include <utility>

#include "core/crypto/kuznyechik.h"  // kPi: GOST R 34.11-2012 and 34.12-2015 share the substitution pi
#include "core/kdf/prf.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

// Rows of the matrix A of the linear transformation l (RFC 6986 section 5.3), A[0] for the most significant bit.
constexpr uint64_t kA[64] = {
    0x8e20faa72ba0b470, 0x47107ddd9b505a38, 0xad08b0e0c3282d1c, 0xd8045870ef14980e, 0x6c022c38f90a4c07,
    0x3601161cf205268d, 0x1b8e0b0e798c13c8, 0x83478b07b2468764, 0xa011d380818e8f40, 0x5086e740ce47c920,
    0x2843fd2067adea10, 0x14aff010bdd87508, 0x0ad97808d06cb404, 0x05e23c0468365a02, 0x8c711e02341b2d01,
    0x46b60f011a83988e, 0x90dab52a387ae76f, 0x486dd4151c3dfdb9, 0x24b86a840e90f0d2, 0x125c354207487869,
    0x092e94218d243cba, 0x8a174a9ec8121e5d, 0x4585254f64090fa0, 0xaccc9ca9328a8950, 0x9d4df05d5f661451,
    0xc0a878a0a1330aa6, 0x60543c50de970553, 0x302a1e286fc58ca7, 0x18150f14b9ec46dd, 0x0c84890ad27623e0,
    0x0642ca05693b9f70, 0x0321658cba93c138, 0x86275df09ce8aaa8, 0x439da0784e745554, 0xafc0503c273aa42a,
    0xd960281e9d1d5215, 0xe230140fc0802984, 0x71180a8960409a42, 0xb60c05ca30204d21, 0x5b068c651810a89e,
    0x456c34887a3805b9, 0xac361a443d1c8cd2, 0x561b0d22900e4669, 0x2b838811480723ba, 0x9bcf4486248d9f5d,
    0xc3e9224312c8c1a0, 0xeffa11af0964ee50, 0xf97d86d98a327728, 0xe4fa2054a80b329c, 0x727d102a548b194e,
    0x39b008152acb8227, 0x9258048415eb419d, 0x492c024284fbaec0, 0xaa16012142f35760, 0x550b8e9e21f7a530,
    0xa48b474f9ef5dc18, 0x70a6a56e2440598e, 0x3853dc371220a247, 0x1ca76e95091051ad, 0x0edd37c48a08a6d8,
    0x07e095624504536c, 0x8d70c431ac02a736, 0xc83862965601dd1b, 0x641c314b2b8ee083};

// Iteration constants C_1..C_12 (RFC 6986 section 6), as written there (most significant byte first).
constexpr const char* kCHex[12] = {
    "b1085bda1ecadae9ebcb2f81c0657c1f2f6a76432e45d016714eb88d7585c4fc4b7ce09192676901a2422a08a460d31505767436cc744d23dd80"
    "6559f2a64507",
    "6fa3b58aa99d2f1a4fe39d460f70b5d7f3feea720a232b9861d55e0f16b501319ab5176b12d699585cb561c2db0aa7ca55dda21bd7cbcd56e679"
    "047021b19bb7",
    "f574dcac2bce2fc70a39fc286a3d843506f15e5f529c1f8bf2ea7514b1297b7bd3e20fe490359eb1c1c93a376062db09c2b6f443867adb31991e"
    "96f50aba0ab2",
    "ef1fdfb3e81566d2f948e1a05d71e4dd488e857e335c3c7d9d721cad685e353fa9d72c82ed03d675d8b71333935203be3453eaa193e837f1220c"
    "bebc84e3d12e",
    "4bea6bacad4747999a3f410c6ca923637f151c1f1686104a359e35d7800fffbdbfcd1747253af5a3dfff00b723271a167a56a27ea9ea63f56017"
    "58fd7c6cfe57",
    "ae4faeae1d3ad3d96fa4c33b7a3039c02d66c4f95142a46c187f9ab49af08ec6cffaa6b71c9ab7b40af21f66c2bec6b6bf71c57236904f35fa68"
    "407a46647d6e",
    "f4c70e16eeaac5ec51ac86febf240954399ec6c7e6bf87c9d3473e33197a93c90992abc52d822c3706476983284a05043517454ca23c4af38886"
    "564d3a14d493",
    "9b1f5b424d93c9a703e7aa020c6e41414eb7f8719c36de1e89b4443b4ddbc49af4892bcb929b069069d18d2bd1a5c42f36acc2355951a8d9a47f"
    "0dd4bf02e71e",
    "378f5a541631229b944c9ad8ec165fde3a7d3a1b258942243cd955b7e00d0984800a440bdbb2ceb17b2b8a9aa6079c540e38dc92cb1f2a607261"
    "445183235adb",
    "abbedea680056f52382ae548b2e4f3f38941e71cff8a78db1fffe18a1b3361039fe76702af69334b7a1e6c303b7652f43698fad1153bb6c374b4"
    "c7fb98459ced",
    "7bcd9ed0efc889fb3002c6cd635afe94d8fa6bbbebab076120018021148466798a1d71efea48b9caefbacd1d7d476e98dea2594ac06fd85d6bca"
    "a4cd81f32d1b",
    "378ee767f11631bad21380b00449b17acda43c32bcdf1d77f82012d430219f9b5d80ef9d1891cc86e71da4aa88e12852faf417d5d9b21b9948bc"
    "924af11bd720",
};

struct Consts {
  alignas(64) uint64_t ax[8][256];  // ax[j][v]: contribution of byte value v in byte position j of a lane
  alignas(64) uint64_t c[12][8];    // C_i as little-endian lanes
};

constexpr uint8_t hexval(char ch) {
  return static_cast<uint8_t>(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
}

const Consts& consts() {
  static const Consts* cs = [] {
    auto* c = new Consts;
    // l(b) = XOR over set bits i of b (bit 0 = least significant) of A[63 - i]. Input byte position j of a lane
    // holds bits 8j..8j+7; with P being the byte transposition, byte i of lane j lands in byte j of lane i, so
    // ax[j][v] = l(pi(v) << 8j) is what lane i gets from byte i of lane j.
    for (int j = 0; j < 8; ++j) {
      for (int v = 0; v < 256; ++v) {
        const uint8_t s = kuznyechik::kPi[v];
        uint64_t acc = 0;
        for (int bit = 0; bit < 8; ++bit)
          if (s & (1u << bit)) acc ^= kA[63 - (8 * j + bit)];
        c->ax[j][v] = acc;
      }
    }
    for (int i = 0; i < 12; ++i) {
      uint8_t bytes[64];
      for (int k = 0; k < 64; ++k) {  // reverse: memory byte k = written byte 63 - k
        const char* p = kCHex[i] + 2 * (63 - k);
        bytes[k] = static_cast<uint8_t>((hexval(p[0]) << 4) | hexval(p[1]));
      }
      std::memcpy(c->c[i], bytes, 64);  // little-endian host (x86-64)
    }
    return c;
  }();
  return *cs;
}

#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__)

// out = LPS(a ^ b), as inline assembly: with the C form below GCC spends more ALU instructions on extracting the
// 64 table indexes than on anything else (Zen 3 has 4 integer ALUs; the loads are not the limit). Here each input
// lane is loaded and XORed once and its bytes taken pairwise through %al/%ah (movzbl) with a shift by 16 between
// pairs -- Whirlpool's scheme (kdf/whirlpool.cpp) -- and the 64 table entries are XORed into the 8 outputs in
// SSE registers, so the vector units do the XORs and the integer ALUs only compute indexes: faster than the C form
// and than the same scheme with the XORs in integer registers (docs/perf/design-figures.md, "Streebog").
//
// SB_MOV: the first lane's lookups start the outputs; SB_XOR: later lanes XOR theirs in, through a temporary
// (SSE2's pxor takes no unaligned memory operand).
#define SB_MOV(disp, idx, out, tmp) "movq " #disp "(%[t],%%" #idx ",8), %[" #out "]\n\t"
#define SB_XOR(disp, idx, out, tmp) \
  "movq " #disp "(%[t],%%" #idx ",8), %[" #tmp "]\n\tpxor %[" #tmp "], %[" #out "]\n\t"
#define SB_LANE(off, L, disp)                                        \
  "movq " #off "(%[a]), %%rax\n\t"                                   \
  "xorq " #off "(%[b]), %%rax\n\t"                                   \
  "movzbl %%al, %%ecx\n\t"                                           \
  "movzbl %%ah, %%edx\n\t" L(disp, rcx, o0, x0) L(disp, rdx, o1, x1) \
  "shrq $16, %%rax\n\t"                                              \
  "movzbl %%al, %%ecx\n\t"                                           \
  "movzbl %%ah, %%edx\n\t" L(disp, rcx, o2, x2) L(disp, rdx, o3, x3) \
  "shrq $16, %%rax\n\t"                                              \
  "movzbl %%al, %%ecx\n\t"                                           \
  "movzbl %%ah, %%edx\n\t" L(disp, rcx, o4, x0) L(disp, rdx, o5, x1) \
  "shrq $16, %%rax\n\t"                                              \
  "movzbl %%al, %%ecx\n\t"                                           \
  "movzbl %%ah, %%edx\n\t" L(disp, rcx, o6, x2) L(disp, rdx, o7, x3)
inline void lps_xor(const uint64_t (*ax)[256], const uint64_t* a, const uint64_t* b, uint64_t* out) {
  __m128i o0, o1, o2, o3, o4, o5, o6, o7, x0, x1, x2, x3;
  asm volatile(SB_LANE(0, SB_MOV, 0) SB_LANE(8, SB_XOR, 2048) SB_LANE(16, SB_XOR, 4096)
                   SB_LANE(24, SB_XOR, 6144) SB_LANE(32, SB_XOR, 8192) SB_LANE(40, SB_XOR, 10240)
                       SB_LANE(48, SB_XOR, 12288) SB_LANE(56, SB_XOR, 14336)
               "movq %[o0], 0(%[out])\n\t"
               "movq %[o1], 8(%[out])\n\t"
               "movq %[o2], 16(%[out])\n\t"
               "movq %[o3], 24(%[out])\n\t"
               "movq %[o4], 32(%[out])\n\t"
               "movq %[o5], 40(%[out])\n\t"
               "movq %[o6], 48(%[out])\n\t"
               "movq %[o7], 56(%[out])\n\t"
               : [o0] "=&x"(o0), [o1] "=&x"(o1), [o2] "=&x"(o2), [o3] "=&x"(o3), [o4] "=&x"(o4), [o5] "=&x"(o5),
                 [o6] "=&x"(o6), [o7] "=&x"(o7), [x0] "=&x"(x0), [x1] "=&x"(x1), [x2] "=&x"(x2), [x3] "=&x"(x3)
               : [a] "r"(a), [b] "r"(b), [t] "r"(ax), [out] "r"(out)
               : "rax", "rcx", "rdx", "memory", "cc");
}
#undef SB_MOV
#undef SB_XOR
#undef SB_LANE

#else  // portable

// out = LPS(a ^ b).
inline void lps_xor(const uint64_t (*ax)[256], const uint64_t* a, const uint64_t* b, uint64_t* out) {
  uint64_t x[8];
  for (int j = 0; j < 8; ++j) x[j] = a[j] ^ b[j];
  for (int i = 0; i < 8; ++i) {
    const int sh = 8 * i;
    out[i] = ax[0][(x[0] >> sh) & 0xff] ^ ax[1][(x[1] >> sh) & 0xff] ^ ax[2][(x[2] >> sh) & 0xff] ^
             ax[3][(x[3] >> sh) & 0xff] ^ ax[4][(x[4] >> sh) & 0xff] ^ ax[5][(x[5] >> sh) & 0xff] ^
             ax[6][(x[6] >> sh) & 0xff] ^ ax[7][(x[7] >> sh) & 0xff];
  }
}

#endif

// h = g_N(h, m) = E(LPS(h ^ N), m) ^ h ^ m, E(K, m) = X[K13] LPSX[K12] ... LPSX[K1](m), K_{i+1} = LPS(K_i ^ C_i).
void g(const Consts& cs, uint64_t* h, const uint64_t* n, const uint64_t* m) {
  alignas(64) uint64_t w[4][8];  // round key and state, double-buffered
  uint64_t *k = w[0], *s = w[1], *k2 = w[2], *s2 = w[3];
  lps_xor(cs.ax, h, n, k);
  lps_xor(cs.ax, k, m, s);
  for (int i = 0; i < 11; ++i) {
    lps_xor(cs.ax, k, cs.c[i], k2);
    lps_xor(cs.ax, s, k2, s2);
    std::swap(k, k2);
    std::swap(s, s2);
  }
  lps_xor(cs.ax, k, cs.c[11], k2);
  for (int j = 0; j < 8; ++j) h[j] ^= s[j] ^ k2[j] ^ m[j];
  secure_wipe(w, sizeof w);
}

// a += b mod 2^512 (little-endian lanes).
inline void add512(uint64_t* a, const uint64_t* b) {
  unsigned char carry = 0;
  for (int i = 0; i < 8; ++i) {
    const uint64_t s = a[i] + b[i];
    const unsigned char c1 = s < a[i];
    const uint64_t r = s + carry;
    carry = c1 | (r < s);
    a[i] = r;
  }
}

inline void add512_small(uint64_t* a, uint64_t v) {
  for (int i = 0; i < 8 && v; ++i) {
    const uint64_t r = a[i] + v;
    v = r < a[i];
    a[i] = r;
  }
}

// The round keys K_1..K_13 of g_N(h, .) for a fixed h and N.
void round_keys(const Consts& cs, const uint64_t* h, const uint64_t* n, uint64_t (*k)[8]) {
  lps_xor(cs.ax, h, n, k[0]);
  for (int i = 0; i < 12; ++i) lps_xor(cs.ax, k[i], cs.c[i], k[i + 1]);
}

// h = g_N(h, m) with the round keys of (h, N) given: 12 LPS instead of 25.
void g_keyed(const Consts& cs, uint64_t* h, const uint64_t (*k)[8], const uint64_t* m) {
  alignas(64) uint64_t s[2][8];
  lps_xor(cs.ax, k[0], m, s[0]);
  for (int i = 1; i < 12; ++i) lps_xor(cs.ax, s[(i - 1) & 1], k[i], s[i & 1]);
  for (int j = 0; j < 8; ++j) h[j] ^= s[1][j] ^ k[12][j] ^ m[j];
  secure_wipe(s, sizeof s);
}

// State of Streebog-512 after one 64-byte block (the HMAC key block): h, N = 512, Sigma = the block.
struct KeyedState {
  alignas(64) uint64_t h[8] = {};
  alignas(64) uint64_t sigma[8];
  alignas(64) uint64_t keys[13][8];  // round keys of the next block's compression (h, N = 512)
  KeyedState(const Consts& cs, const uint8_t* block) {
    uint64_t zero[8] = {}, n512[8] = {512};
    std::memcpy(sigma, block, 64);
    g(cs, h, zero, sigma);
    round_keys(cs, h, n512, keys);
  }
  ~KeyedState() { secure_wipe(this, sizeof *this); }
};

// digest = Streebog-512(key block || m) for a 64-byte m, from the keyed state.
void hash_after_key(const Consts& cs, const KeyedState& st, const uint64_t* m, uint64_t* digest) {
  static const uint64_t kZero[8] = {}, kN1024[8] = {1024}, kPad[8] = {1};  // the empty last block: 0x01, zeros
  uint64_t sigma[8];
  std::memcpy(digest, st.h, 64);
  g_keyed(cs, digest, st.keys, m);  // N = 512 (the keys hold it)
  std::memcpy(sigma, st.sigma, 64);
  add512(sigma, m);
  g(cs, digest, kN1024, kPad);      // stage 3 with the empty remainder: N = 1024, N += 0
  add512(sigma, kPad);
  g(cs, digest, kZero, kN1024);
  g(cs, digest, kZero, sigma);
  secure_wipe(sigma, sizeof sigma);
}

}  // namespace

bool streebog_pbkdf2_block(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len,
                           uint32_t iterations, uint32_t block_index, uint8_t* out, const std::atomic<bool>* cancel) {
  const Consts& cs = consts();
  alignas(64) uint8_t k[64] = {};
  if (pw_len > 64) {
    Streebog512 kh;
    kh.Update(pw, pw_len);
    kh.TruncatedFinal(k, 64);
  } else if (pw_len) {
    std::memcpy(k, pw, pw_len);
  }
  alignas(64) uint8_t pad[64];
  for (int i = 0; i < 64; ++i) pad[i] = k[i] ^ 0x36;
  const KeyedState inner(cs, pad);
  // U_1 = HMAC(salt || INT(block)) with the general code (the message is not one block).
  alignas(64) uint64_t u[8], acc[8], d[8];
  {
    Streebog512 hi, ho;
    hi.Update(pad, 64);
    hi.Update(salt, salt_len);
    uint8_t idx[4] = {uint8_t(block_index >> 24), uint8_t(block_index >> 16), uint8_t(block_index >> 8),
                      uint8_t(block_index)};
    hi.Update(idx, 4);
    hi.TruncatedFinal(reinterpret_cast<uint8_t*>(d), 64);
    for (int i = 0; i < 64; ++i) pad[i] = k[i] ^ 0x5c;
    ho.Update(pad, 64);
    ho.Update(reinterpret_cast<const uint8_t*>(d), 64);
    ho.TruncatedFinal(reinterpret_cast<uint8_t*>(u), 64);
  }
  const KeyedState outer(cs, pad);
  secure_wipe(k, sizeof k);
  secure_wipe(pad, sizeof pad);
  std::memcpy(acc, u, 64);
  bool ok = true;
  for (uint32_t i = 1; i < iterations; ++i) {
    if (pbkdf2_cancelled(cancel, i)) {
      ok = false;
      break;
    }
    hash_after_key(cs, inner, u, d);
    hash_after_key(cs, outer, d, u);
    for (int j = 0; j < 8; ++j) acc[j] ^= u[j];
  }
  if (ok) std::memcpy(out, acc, 64);
  secure_wipe(u, sizeof u);
  secure_wipe(d, sizeof d);
  secure_wipe(acc, sizeof acc);
  return ok;
}

Streebog512::~Streebog512() {
  secure_wipe(h_, sizeof h_);
  secure_wipe(n_, sizeof n_);
  secure_wipe(sigma_, sizeof sigma_);
  secure_wipe(buf_, sizeof buf_);
}

void Streebog512::Restart() {
  std::memset(h_, 0, sizeof h_);  // IV of the 512-bit variant: 0^512
  std::memset(n_, 0, sizeof n_);
  std::memset(sigma_, 0, sizeof sigma_);
  secure_wipe(buf_, sizeof buf_);
  buf_len_ = 0;
}

void Streebog512::compress(const uint8_t* block) {
  uint64_t m[8];
  std::memcpy(m, block, 64);
  g(consts(), h_, n_, m);
  add512_small(n_, 512);
  add512(sigma_, m);
  secure_wipe(m, sizeof m);
}

void Streebog512::Update(const CryptoPP::byte* input, size_t length) {
  if (buf_len_) {
    const size_t take = length < 64 - buf_len_ ? length : 64 - buf_len_;
    std::memcpy(buf_ + buf_len_, input, take);
    buf_len_ += take;
    input += take;
    length -= take;
    if (buf_len_ < 64) return;
    compress(buf_);
    buf_len_ = 0;
  }
  for (; length >= 64; input += 64, length -= 64) compress(input);
  if (length) {
    std::memcpy(buf_, input, length);
    buf_len_ = length;
  }
}

void Streebog512::TruncatedFinal(CryptoPP::byte* digest, size_t digestSize) {
  ThrowIfInvalidTruncatedSize(digestSize);
  const Consts& cs = consts();
  // Stage 3: the last (partial, possibly empty) block padded as 0...01 || M, i.e. in memory M, 0x01, zeros.
  uint64_t m[8];
  uint8_t* mb = reinterpret_cast<uint8_t*>(m);
  std::memset(m, 0, sizeof m);
  std::memcpy(mb, buf_, buf_len_);
  mb[buf_len_] = 0x01;
  g(cs, h_, n_, m);
  add512_small(n_, 8 * static_cast<uint64_t>(buf_len_));
  add512(sigma_, m);
  const uint64_t zero[8] = {};
  g(cs, h_, zero, n_);
  g(cs, h_, zero, sigma_);
  std::memcpy(digest, h_, digestSize);
  secure_wipe(m, sizeof m);
  Restart();
}

}  // namespace warpvol

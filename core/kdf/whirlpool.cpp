// Whirlpool and PBKDF2-HMAC-Whirlpool, hand-written for the PBKDF2 hot path (500,000 iterations per block, and
// opening a volume with a wrong password derives 9 blocks).
//
// Why not OpenSSL: its Whirlpool exposes only WHIRLPOOL_Init/Update/Final, so every iteration pays the context
// copies and the Update/Final bookkeeping (buffering, 256-bit length counter, padding), and the cipher's key
// schedule of the compression after the fixed ipad/opad block (always keyed by the same chaining value) is
// recomputed every time. Here one iteration is, for the inner and for the outer hash:
//   * the compression of U (64 bytes) keyed by the fixed chaining value H1 after the ipad (opad) block: the 10
//     round keys of Whirlpool's W cipher are computed once per PBKDF2 block, so it costs 10 rounds instead of 20;
//   * the compression of the constant padding block (0x80, zeros, 256-bit big-endian length 1024), keyed by the
//     variable chaining value: full cost (key schedule and state rounds interleave, they are independent).
// So 60 round transforms per iteration instead of 80, with no per-iteration bookkeeping.
//
// Round transform rho = sigma[k] o theta o pi o gamma, with the usual 8 x 256 uint64 tables generated at first use
// from the S-box (built from the mini-boxes E, E^-1, R) and the circulant MDS matrix circ(1,1,4,1,8,5,2,9) over
// GF(2^8) mod x^8+x^4+x^3+x^2+1; round constants from the S-box. Byte order: the state is 8 uint64 words, word i
// = row i = bytes 8i..8i+7 of the block, little-endian (byte j of the row = bits 8j..8j+7); the tables are built
// in that form, so blocks and digests are plain little-endian loads/stores (the reference code's big-endian
// words, byte-reversed). Output row i = XOR_k T[k][byte k of row (i-k) mod 8].
//
// On x86-64 (GCC/Clang, optimized builds) one round is inline assembly: the compiler's code for the 64 lookups
// spilled and shuffled registers (~180 instructions per round). The index extraction, not the loads, limits on
// Zen 3 (4 ALUs): each input row is loaded once and its bytes taken pairwise with movzbl %al / %ah and shrq $16
// (11 ALU ops per row) instead of a shift per byte, each table load is folded into a movq/xorq, and the 8 output
// rows stay in registers until they are stored. Of the variants tried (C gather form, asm taking some bytes of each
// row from memory, OpenSSL-style loop), this one was fastest, and a PBKDF2 block runs in well under the OpenSSL
// path's time (docs/perf/design-figures.md, "Whirlpool"; hidden test [.whirlpool-bench] in
// tests/hash/test_whirlpool_pbkdf2.cpp compares them).
#include "core/kdf/whirlpool.h"

#include <algorithm>
#include <cstring>

#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

struct Tables {
  alignas(64) uint64_t t[8][256];
  uint64_t rc[11];  // rc[r] for round r = 1..10 (row 0 only)
};

uint8_t gf_mul(uint8_t a, uint8_t b) {  // GF(2^8) mod x^8+x^4+x^3+x^2+1 (0x11d)
  uint8_t r = 0;
  while (b) {
    if (b & 1) r ^= a;
    a = uint8_t((a << 1) ^ ((a & 0x80) ? 0x1d : 0));
    b >>= 1;
  }
  return r;
}

Tables make_tables() {
  Tables tb{};
  static constexpr uint8_t kE[16] = {0x1, 0xB, 0x9, 0xC, 0xD, 0x6, 0xF, 0x3, 0xE, 0x8, 0x7, 0x4, 0xA, 0x2, 0x5, 0x0};
  static constexpr uint8_t kR[16] = {0x7, 0xC, 0xB, 0xD, 0xE, 0x4, 0x9, 0xF, 0x6, 0x3, 0x8, 0xA, 0x2, 0x5, 0x1, 0x0};
  uint8_t e_inv[16];
  for (int i = 0; i < 16; ++i) e_inv[kE[i]] = uint8_t(i);
  uint8_t sbox[256];
  for (int x = 0; x < 256; ++x) {
    const uint8_t a = kE[x >> 4], b = e_inv[x & 15], r = kR[a ^ b];
    sbox[x] = uint8_t(kE[a ^ r] << 4 | e_inv[b ^ r]);
  }
  static constexpr uint8_t kC[8] = {1, 1, 4, 1, 8, 5, 2, 9};  // first row of the circulant MDS matrix
  // Byte k of an input row lands (after pi) in column k and contributes S(x) * C[k][j] = S(x) * c[(j - k) mod 8]
  // to column j of its output row.
  for (int k = 0; k < 8; ++k)
    for (int x = 0; x < 256; ++x) {
      uint64_t v = 0;
      for (int j = 0; j < 8; ++j) v |= uint64_t(gf_mul(sbox[x], kC[(j - k) & 7])) << (8 * j);
      tb.t[k][x] = v;
    }
  for (int r = 1; r <= 10; ++r) {
    uint64_t v = 0;
    for (int j = 0; j < 8; ++j) v |= uint64_t(sbox[8 * (r - 1) + j]) << (8 * j);
    tb.rc[r] = v;
  }
  return tb;
}

const Tables& tables() {
  static const Tables tb = make_tables();
  return tb;
}

void load_block(const uint8_t* p, uint64_t* w) {
  for (int i = 0; i < 8; ++i) w[i] = load_le64(p + 8 * i);
}

void store_block(uint8_t* p, const uint64_t* w) {
  for (int i = 0; i < 8; ++i) store_le64(p + 8 * i, w[i]);
}

#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__)

// One input row j: bytes pairwise through %al/%ah, byte k looked up in table k (2048 bytes apart) into output row
// (j + k) mod 8. OP is movq for row 0 (first contribution to every output) and xorq for the others.
#define WP_LOOKUP(op, disp, idx, out) #op " " #disp "(%[t],%%" #idx ",8), %[" #out "]\n\t"
#define WP_ROW(off, op, o0, o1, o2, o3, o4, o5, o6, o7)                                                    \
  "movq " #off "(%[s]), %%rax\n\t"                                                                         \
  "movzbl %%al, %%ecx\n\t"                                                                                 \
  "movzbl %%ah, %%edx\n\t" WP_LOOKUP(op, 0, rcx, o0) WP_LOOKUP(op, 2048, rdx, o1) "shrq $16, %%rax\n\t"  \
  "movzbl %%al, %%ecx\n\t"                                                                                 \
  "movzbl %%ah, %%edx\n\t" WP_LOOKUP(op, 4096, rcx, o2) WP_LOOKUP(op, 6144, rdx, o3) "shrq $16, %%rax\n\t" \
  "movzbl %%al, %%ecx\n\t"                                                                                 \
  "movzbl %%ah, %%edx\n\t" WP_LOOKUP(op, 8192, rcx, o4) WP_LOOKUP(op, 10240, rdx, o5) "shrq $16, %%rax\n\t" \
  "movzbl %%al, %%ecx\n\t"                                                                                 \
  "movzbl %%ah, %%edx\n\t" WP_LOOKUP(op, 12288, rcx, o6) WP_LOOKUP(op, 14336, rdx, o7)
#define WP_RHO_BODY                                        \
  WP_ROW(0, movq, b0, b1, b2, b3, b4, b5, b6, b7)          \
  WP_ROW(8, xorq, b1, b2, b3, b4, b5, b6, b7, b0)          \
  WP_ROW(16, xorq, b2, b3, b4, b5, b6, b7, b0, b1)         \
  WP_ROW(24, xorq, b3, b4, b5, b6, b7, b0, b1, b2)         \
  WP_ROW(32, xorq, b4, b5, b6, b7, b0, b1, b2, b3)         \
  WP_ROW(40, xorq, b5, b6, b7, b0, b1, b2, b3, b4)         \
  WP_ROW(48, xorq, b6, b7, b0, b1, b2, b3, b4, b5)         \
  WP_ROW(56, xorq, b7, b0, b1, b2, b3, b4, b5, b6)
#define WP_STORE                                                                                            \
  "movq %[b0], 0(%[s])\n\t"                                                                                 \
  "movq %[b1], 8(%[s])\n\t"                                                                                 \
  "movq %[b2], 16(%[s])\n\t"                                                                                \
  "movq %[b3], 24(%[s])\n\t"                                                                                \
  "movq %[b4], 32(%[s])\n\t"                                                                                \
  "movq %[b5], 40(%[s])\n\t"                                                                                \
  "movq %[b6], 48(%[s])\n\t"                                                                                \
  "movq %[b7], 56(%[s])\n\t"
#define WP_OPERANDS                                                                                          \
  : [b0] "=&r"(b0), [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3), [b4] "=&r"(b4), [b5] "=&r"(b5),          \
    [b6] "=&r"(b6), [b7] "=&r"(b7)                                                                           \
  : [s] "r"(s), [k] "r"(k), [t] "r"(t)                                                                       \
  : "rax", "rcx", "rdx", "memory", "cc"

// s = rho(s) ^ k (8 key rows).
inline void rho_key(uint64_t* s, const uint64_t* k, const uint64_t* t) {
  uint64_t b0, b1, b2, b3, b4, b5, b6, b7;
  asm volatile(WP_RHO_BODY
               "xorq 0(%[k]), %[b0]\n\t"
               "xorq 8(%[k]), %[b1]\n\t"
               "xorq 16(%[k]), %[b2]\n\t"
               "xorq 24(%[k]), %[b3]\n\t"
               "xorq 32(%[k]), %[b4]\n\t"
               "xorq 40(%[k]), %[b5]\n\t"
               "xorq 48(%[k]), %[b6]\n\t"
               "xorq 56(%[k]), %[b7]\n\t" WP_STORE WP_OPERANDS);
}

// s = rho(s) ^ (k[0], 0, ..., 0): the key schedule's round with the round constant in row 0.
inline void rho_rc(uint64_t* s, const uint64_t* k, const uint64_t* t) {
  uint64_t b0, b1, b2, b3, b4, b5, b6, b7;
  asm volatile(WP_RHO_BODY "xorq 0(%[k]), %[b0]\n\t" WP_STORE WP_OPERANDS);
}

#undef WP_LOOKUP
#undef WP_ROW
#undef WP_RHO_BODY
#undef WP_STORE
#undef WP_OPERANDS

#else  // portable

inline void rho_rows(const uint64_t* a, uint64_t* o, const uint64_t* t) {
  for (int i = 0; i < 8; ++i) {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v ^= t[256 * k + uint8_t(a[(i - k) & 7] >> (8 * k))];
    o[i] = v;
  }
}
inline void rho_key(uint64_t* s, const uint64_t* k, const uint64_t* t) {
  uint64_t o[8];
  rho_rows(s, o, t);
  for (int i = 0; i < 8; ++i) s[i] = o[i] ^ k[i];
}
inline void rho_rc(uint64_t* s, const uint64_t* k, const uint64_t* t) {
  uint64_t o[8];
  rho_rows(s, o, t);
  o[0] ^= k[0];
  for (int i = 0; i < 8; ++i) s[i] = o[i];
}

#endif

// Working rows of a compression, owned (and wiped once) by the caller: no wipe on the hot path.
struct Scratch {
  alignas(64) uint64_t key[8];
  alignas(64) uint64_t st[8];
};

// Miyaguchi-Preneel: h = W_h(m) ^ h ^ m, the key schedule and the state rounds interleaved.
inline void compress(const Tables& tb, uint64_t* h, const uint64_t* m, Scratch& sc) {
  uint64_t* key = sc.key;
  uint64_t* st = sc.st;
  for (int i = 0; i < 8; ++i) {
    key[i] = h[i];
    st[i] = m[i] ^ h[i];
  }
  for (int r = 1; r <= 10; ++r) {
    rho_rc(key, &tb.rc[r], &tb.t[0][0]);
    rho_key(st, key, &tb.t[0][0]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= st[i] ^ m[i];
}

struct RoundKeys {
  alignas(64) uint64_t k[11][8];  // k[0] = the chaining value, k[r] = round key r
};

void schedule(const Tables& tb, const uint64_t* h, RoundKeys& ks) {
  std::memcpy(ks.k[0], h, 64);
  for (int r = 1; r <= 10; ++r) {
    std::memcpy(ks.k[r], ks.k[r - 1], 64);
    rho_rc(ks.k[r], &tb.rc[r], &tb.t[0][0]);
  }
}

// out = W_h(m) ^ h ^ m with the round keys of h precomputed: only the state rounds.
inline void compress_keyed(const Tables& tb, const RoundKeys& ks, const uint64_t* m, uint64_t* out, Scratch& sc) {
  uint64_t* st = sc.st;
  for (int i = 0; i < 8; ++i) st[i] = m[i] ^ ks.k[0][i];
  for (int r = 1; r <= 10; ++r) rho_key(st, ks.k[r], &tb.t[0][0]);
  for (int i = 0; i < 8; ++i) out[i] = st[i] ^ m[i] ^ ks.k[0][i];
}

// Streaming hash from a chaining value (for the first PBKDF2 iteration, the long-key hash and the plain hash).
struct Stream {
  const Tables& tb;
  uint64_t h[8];
  uint8_t buf[64];
  uint64_t m[8];
  Scratch sc;
  size_t n = 0;       // bytes in buf
  uint64_t total = 0;  // bytes hashed so far, including the blocks behind h

  Stream(const Tables& t, const uint64_t* h0, uint64_t already) : tb(t), total(already) { std::memcpy(h, h0, 64); }
  ~Stream() {
    secure_wipe(h, sizeof h);
    secure_wipe(buf, sizeof buf);
    secure_wipe(m, sizeof m);
    secure_wipe(&sc, sizeof sc);
  }
  void block(const uint8_t* p) {
    load_block(p, m);
    compress(tb, h, m, sc);
  }
  void update(const uint8_t* p, size_t len) {
    if (len == 0) return;  // p may be null then, which memcpy's arguments must not be
    total += len;
    if (n) {
      const size_t take = std::min(len, 64 - n);
      std::memcpy(buf + n, p, take);
      n += take, p += take, len -= take;
      if (n < 64) return;
      block(buf);
      n = 0;
    }
    for (; len >= 64; p += 64, len -= 64) block(p);
    std::memcpy(buf, p, len);
    n = len;
  }
  void final(uint8_t* out) {
    buf[n++] = 0x80;
    if (n > 32) {
      std::memset(buf + n, 0, 64 - n);
      block(buf);
      n = 0;
    }
    std::memset(buf + n, 0, 64 - n);
    // 256-bit big-endian length in bits (bytes 32..63).
    store_be64(buf + 56, total << 3);
    buf[55] = uint8_t(total >> 61);
    block(buf);
    store_block(out, h);
  }
};

}  // namespace

void whirlpool_hash(const uint8_t* data, size_t len, uint8_t out[64]) {
  static constexpr uint64_t kZero[8] = {};
  Stream s(tables(), kZero, 0);
  s.update(data, len);
  s.final(out);
}

bool whirlpool_pbkdf2_block(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len,
                            uint32_t iterations, uint32_t block_index, uint8_t* out,
                            const std::atomic<bool>* cancel) {
  const Tables& tb = tables();
  uint8_t key[64] = {};
  if (pw_len > 64)
    whirlpool_hash(pw, pw_len, key);
  else if (pw_len)
    std::memcpy(key, pw, pw_len);

  // Chaining values after the ipad and opad blocks, and their round keys.
  Scratch sc;
  alignas(64) uint64_t hi[8] = {}, ho[8] = {}, pad[8];
  load_block(key, pad);
  for (int i = 0; i < 8; ++i) pad[i] ^= 0x3636363636363636ULL;
  compress(tb, hi, pad, sc);
  for (int i = 0; i < 8; ++i) pad[i] ^= 0x3636363636363636ULL ^ 0x5c5c5c5c5c5c5c5cULL;
  compress(tb, ho, pad, sc);
  secure_wipe(key, sizeof key);
  secure_wipe(pad, sizeof pad);
  RoundKeys ki, ko;
  schedule(tb, hi, ki);
  schedule(tb, ho, ko);

  // The padding block of a 128-byte message: 0x80, zeros, length 1024 bits = 0x400 in the last two bytes.
  alignas(64) static constexpr uint64_t kPad[8] = {0x80, 0, 0, 0, 0, 0, 0, uint64_t(0x04) << 48};
  alignas(64) uint64_t u[8], x[8], acc[8];

  // U1 = HMAC(P, S || INT(i)).
  {
    uint8_t idx[4], d[64];
    store_be32(idx, block_index);
    Stream s(tb, hi, 64);
    s.update(salt, salt_len);
    s.update(idx, 4);
    s.final(d);
    load_block(d, x);
    secure_wipe(d, sizeof d);
  }
  compress_keyed(tb, ko, x, u, sc);
  compress(tb, u, kPad, sc);
  std::memcpy(acc, u, 64);

  bool ok = true;
  for (uint32_t it = 1; it < iterations; ++it) {
    if (pbkdf2_cancelled(cancel, it)) {
      ok = false;
      break;
    }
    compress_keyed(tb, ki, u, x, sc);
    compress(tb, x, kPad, sc);
    compress_keyed(tb, ko, x, u, sc);
    compress(tb, u, kPad, sc);
    for (int i = 0; i < 8; ++i) acc[i] ^= u[i];
  }
  if (ok) store_block(out, acc);
  secure_wipe(&sc, sizeof sc);
  secure_wipe(&ki, sizeof ki);
  secure_wipe(&ko, sizeof ko);
  secure_wipe(hi, sizeof hi);
  secure_wipe(ho, sizeof ho);
  secure_wipe(u, sizeof u);
  secure_wipe(x, sizeof x);
  secure_wipe(acc, sizeof acc);
  return ok;
}

}  // namespace warpvol

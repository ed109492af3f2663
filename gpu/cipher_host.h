// Host side of the CUDA engine: key schedules in the exact form the kernels consume, the key-independent lookup
// tables they copy into shared memory, and small reference block ciphers over those schedules (used to check the
// schedules against Crypto++ and the known-answer vectors, and by the self-checks). Independent of core's ciphers
// except where core's form is the kernels' form (Twofish key schedule, Kuznyechik pi and L).
//
// Word conventions (all little-endian loads of the 16-byte block unless noted):
//   AES       state = 4 LE column words; rk/dk = 60 words (dk = equivalent inverse cipher schedule).
//   Serpent   4 LE words (bitslice order as VeraCrypt/Crypto++); 132 subkey words.
//   Twofish   4 LE words; 40 subkey words + 4x256 key-dependent g() tables (q-boxes and MDS folded in).
//   Camellia  4 big-endian words (byte-swapped from the LE loads); 68 subkey words as hi/lo pairs, in the order
//             the kernel applies them (decryption schedule = encryption schedule reversed).
//   Kuznyechik 4 LE words of the block in memory order; 40 words of round keys (decryption keys L^-1-transformed).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/crypto/cipher.h"

namespace warpvol::gpu::host {

constexpr int kSchedWords = 132;  // largest schedule (Serpent)

// Key-independent tables, laid out as the kernels' global source copies.
struct Tables {
  uint32_t aes_te[4][256];   // Te_r = rotl(Te0, 8r), Te0[x] = (2s, s, s, 3s) as LE bytes
  uint32_t aes_td[4][256];   // Td_r = rotl(Td0, 8r), Td0[x] = (e s', 9 s', d s', b s')
  uint32_t aes_isb[256];     // InvS[x] * 0x01010101
  uint32_t cam_sp[4][256];   // SP1110, SP0222, SP3033, SP4404 (big-endian word patterns)
  uint32_t kuz_t[16][256][4];   // L(S(b) at byte i), 16 bytes as 4 LE words
  uint32_t kuz_ti[16][256][4];  // L^-1(S^-1(b) at byte i)
  uint32_t kuz_s[256];          // S[b] (low byte)
  uint32_t kuz_si[256];         // S^-1[b]
  uint8_t aes_s[256], aes_si[256];
  uint8_t kuz_pi[256], kuz_pi_inv[256];
};
const Tables& tables();

// A single cipher's schedule for one direction (what one kernel layer consumes for its data key).
struct Sched {
  uint32_t w[kSchedWords];
  uint32_t tf_sbox[4][256];  // Twofish only: key-dependent g() tables
};

// encrypt=true: the encryption schedule (also what the tweak key always uses); false: decryption schedule.
void expand_key(CipherId c, const uint8_t key[32], bool encrypt, Sched& out);

// Reference block functions over a schedule made with the matching `encrypt` flag. In place, one 16-byte block.
void encrypt_block(CipherId c, const Sched& s, uint8_t blk[16]);
void decrypt_block(CipherId c, const Sched& s, uint8_t blk[16]);

}  // namespace warpvol::gpu::host

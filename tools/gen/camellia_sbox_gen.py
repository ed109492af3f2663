#!/usr/bin/env python3
"""Generates core/crypto/simd/camellia_consts.h: Camellia's SBOX1 (RFC 3713, section 2.4.4; the same values as
Crypto++'s Camellia::Base::s1, checked by the tests through whole-cipher comparisons) and the constants that compute
the four Camellia S-boxes with AES hardware:

  s1(x) = B * inv(A * x ^ 0xb3) ^ 0x6e        (inv: inversion in GF(2^8) modulo x^8+x^4+x^3+x+1, AES's field)
  s2(x) = s1(x) <<< 1,  s3(x) = s1(x) >>> 1,  s4(x) = s1(x <<< 1)

A and B (8x8 bit matrices) are found here, not copied: Camellia's S-box is affine-equivalent to inversion. The
search uses the difference table: for input difference u the unique output difference with 4 solutions is
B(inv(A u)), which pins the input offset; the 4 solutions also reveal the conjugate of multiplication by a cube
root of unity, and a small backtracking over A's images (A(1) = 1 w.l.o.g.) with a linearity check on B finishes.
The result is verified on all 256 inputs before anything is written.

Outputs, per S-box S = 1..4:
  GFNI (vgf2p8affineqb then vgf2p8affineinvqb): pre matrix/constant, post matrix/constant in Intel's qword format
     (bit i of the result = parity(x & byte[7 - i] of the matrix) ^ bit i of the constant).
  AES-NI (aesenclast with a zero round key computes ShiftRows(SubBytes(x)) = ShiftRows(M * inv(x) ^ 0x63)): the
     affine maps as 4-bit-nibble lookup tables for pshufb, the post map absorbing M^-1 and 0x63.
  AES-NI, aesdeclast form (InvShiftRows(InvSubBytes(z)), InvSubBytes(z) = inv(M^-1 (z ^ 0x63))): the pre map
     absorbs M and 0x63, the post map is B itself. The kernel uses aesenclast for F(D1) and aesdeclast for F(D2), so
     the two ShiftRows permutations cancel instead of being undone with a shuffle before every S-box.

Usage: python3 tools/gen/camellia_sbox_gen.py > core/crypto/simd/camellia_consts.h
"""
SBOX1 = [
    0x70, 0x82, 0x2c, 0xec, 0xb3, 0x27, 0xc0, 0xe5, 0xe4, 0x85, 0x57, 0x35, 0xea, 0x0c, 0xae, 0x41,
    0x23, 0xef, 0x6b, 0x93, 0x45, 0x19, 0xa5, 0x21, 0xed, 0x0e, 0x4f, 0x4e, 0x1d, 0x65, 0x92, 0xbd,
    0x86, 0xb8, 0xaf, 0x8f, 0x7c, 0xeb, 0x1f, 0xce, 0x3e, 0x30, 0xdc, 0x5f, 0x5e, 0xc5, 0x0b, 0x1a,
    0xa6, 0xe1, 0x39, 0xca, 0xd5, 0x47, 0x5d, 0x3d, 0xd9, 0x01, 0x5a, 0xd6, 0x51, 0x56, 0x6c, 0x4d,
    0x8b, 0x0d, 0x9a, 0x66, 0xfb, 0xcc, 0xb0, 0x2d, 0x74, 0x12, 0x2b, 0x20, 0xf0, 0xb1, 0x84, 0x99,
    0xdf, 0x4c, 0xcb, 0xc2, 0x34, 0x7e, 0x76, 0x05, 0x6d, 0xb7, 0xa9, 0x31, 0xd1, 0x17, 0x04, 0xd7,
    0x14, 0x58, 0x3a, 0x61, 0xde, 0x1b, 0x11, 0x1c, 0x32, 0x0f, 0x9c, 0x16, 0x53, 0x18, 0xf2, 0x22,
    0xfe, 0x44, 0xcf, 0xb2, 0xc3, 0xb5, 0x7a, 0x91, 0x24, 0x08, 0xe8, 0xa8, 0x60, 0xfc, 0x69, 0x50,
    0xaa, 0xd0, 0xa0, 0x7d, 0xa1, 0x89, 0x62, 0x97, 0x54, 0x5b, 0x1e, 0x95, 0xe0, 0xff, 0x64, 0xd2,
    0x10, 0xc4, 0x00, 0x48, 0xa3, 0xf7, 0x75, 0xdb, 0x8a, 0x03, 0xe6, 0xda, 0x09, 0x3f, 0xdd, 0x94,
    0x87, 0x5c, 0x83, 0x02, 0xcd, 0x4a, 0x90, 0x33, 0x73, 0x67, 0xf6, 0xf3, 0x9d, 0x7f, 0xbf, 0xe2,
    0x52, 0x9b, 0xd8, 0x26, 0xc8, 0x37, 0xc6, 0x3b, 0x81, 0x96, 0x6f, 0x4b, 0x13, 0xbe, 0x63, 0x2e,
    0xe9, 0x79, 0xa7, 0x8c, 0x9f, 0x6e, 0xbc, 0x8e, 0x29, 0xf5, 0xf9, 0xb6, 0x2f, 0xfd, 0xb4, 0x59,
    0x78, 0x98, 0x06, 0x6a, 0xe7, 0x46, 0x71, 0xba, 0xd4, 0x25, 0xab, 0x42, 0x88, 0xa2, 0x8d, 0xfa,
    0x72, 0x07, 0xb9, 0x55, 0xf8, 0xee, 0xac, 0x0a, 0x36, 0x49, 0x2a, 0x68, 0x3c, 0x38, 0xf1, 0xa4,
    0x40, 0x28, 0xd3, 0x7b, 0xbb, 0xc9, 0x43, 0xc1, 0x15, 0xe3, 0xad, 0xf4, 0x77, 0xc7, 0x80, 0x9e,
]


def gmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return r


INV = [0] * 256
for x in range(1, 256):
    for y in range(1, 256):
        if gmul(x, y) == 1:
            INV[x] = y
            break


def lin(cols, x):
    y = 0
    for i in range(8):
        if (x >> i) & 1:
            y ^= cols[i]
    return y


def rank(vs):
    basis = []
    for v in vs:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    return len(basis)


def derive():
    s1 = SBOX1
    omega = [w for w in range(2, 256) if gmul(w, w) ^ w ^ 1 == 0][0]
    d, sols4 = {}, {}
    for u in range(1, 256):
        cnt = {}
        for x in range(256):
            cnt.setdefault(s1[x] ^ s1[x ^ u], []).append(x)
        four = [c for c, l in cnt.items() if len(l) == 4]
        assert len(four) == 1
        d[u], sols4[u] = four[0], cnt[four[0]]
    x0 = [x for x in range(256) if all(s1[u ^ x] ^ s1[x] == d[u] for u in range(1, 256))]
    assert len(x0) == 1
    x0 = x0[0]
    b = s1[x0]
    T = [s1[u ^ x0] ^ b for u in range(256)]
    W = {}
    for u in range(1, 256):
        s = sorted(v ^ x0 for v in sols4[u])
        W[u] = min(v for v in s if v not in (0, u))

    def find_omega(cols):
        m = len(cols)
        for u in range(1, 1 << m):
            if lin(cols, u) not in (W[u], W[u] ^ u):
                return None
        if m == 8:
            return cols
        for c in (W[1 << m], W[1 << m] ^ (1 << m)):
            r = find_omega(cols + [c])
            if r:
                return r
        return None

    om = find_omega([])

    def consistent(amap):
        keys = list(amap)
        pairs = []
        for m in range(1, 1 << len(keys)):
            u = y = 0
            for i, k in enumerate(keys):
                if (m >> i) & 1:
                    u ^= k
                    y ^= amap[k]
            if y == 0:
                return False
            pairs.append((T[u], INV[y]))
        return rank([(t << 8) | y for t, y in pairs]) == rank([t for t, _ in pairs])

    def bt(amap, basis):
        if len(basis) == 8:
            return amap
        u = next(v for v in range(1, 256) if rank(basis + [v]) > len(basis))
        ou = lin(om, u)
        for a in ([1] if not amap else range(1, 256)):
            m = dict(amap)
            m[u], m[ou] = a, gmul(omega, a)
            if consistent(m):
                r = bt(m, basis + [u, ou])
                if r:
                    return r
        return None

    amap = bt({}, [])
    keys = list(amap)
    acols = []
    for i in range(8):
        for m in range(1, 256):
            u = y = 0
            for j, k in enumerate(keys):
                if (m >> j) & 1:
                    u ^= k
                    y ^= amap[k]
            if u == 1 << i:
                acols.append(y)
                break
    bmap = {INV[lin(acols, u)]: T[u] for u in range(256)}
    bcols = [bmap[1 << i] for i in range(8)]
    c_pre = lin(acols, x0)
    for x in range(256):
        assert lin(bcols, INV[lin(acols, x) ^ c_pre]) ^ b == s1[x]
    return acols, c_pre, bcols, b


def rotl1(v):
    return ((v << 1) | (v >> 7)) & 0xFF


def rotr1(v):
    return ((v >> 1) | (v << 7)) & 0xFF


def compose(outer, inner):  # column form of outer * inner
    return [lin(outer, c) for c in inner]


ROTL_COLS = [rotl1(1 << i) for i in range(8)]
ROTR_COLS = [rotr1(1 << i) for i in range(8)]
ID = [1 << i for i in range(8)]


def aes_linear(v):  # the linear part of AES's affine map: v ^ (v <<< 1) ^ (v <<< 2) ^ (v <<< 3) ^ (v <<< 4)
    r = 0
    for k in range(5):
        r ^= ((v << k) | (v >> (8 - k))) & 0xFF
    return r


def aes_sbox(x):
    return aes_linear(INV[x]) ^ 0x63


def gfni_qword(cols):
    q = 0
    for i in range(8):  # row i: which input bits feed output bit i
        row = sum(((cols[j] >> i) & 1) << j for j in range(8))
        q |= row << (8 * (7 - i))
    return q


def gfni_affine(x, q, c):
    r = 0
    for i in range(8):
        row = (q >> (8 * (7 - i))) & 0xFF
        r |= (bin(row & x).count("1") & 1) << i
    return r ^ c


def inverse_cols(cols):
    table = {lin(cols, x): x for x in range(256)}
    return [table[1 << i] for i in range(8)]


def main():
    A, c_pre, B, c_post = derive()
    sboxes = [
        SBOX1,
        [rotl1(v) for v in SBOX1],
        [rotr1(v) for v in SBOX1],
        [SBOX1[rotl1(x)] for x in range(256)],
    ]
    pre = [(A, c_pre), (A, c_pre), (A, c_pre), (compose(A, ROTL_COLS), c_pre)]
    post = [(B, c_post), (compose(ROTL_COLS, B), rotl1(c_post)), (compose(ROTR_COLS, B), rotr1(c_post)), (B, c_post)]
    # AES-NI form: inv(z) = M^-1 (SB(z) ^ 0x63)
    M = [aes_linear(1 << i) for i in range(8)]
    assert aes_sbox(0) == 0x63 and aes_sbox(1) == 0x7C and aes_sbox(0x53) == 0xED
    Minv = inverse_cols(M)
    post_aes = [(compose(Bs, Minv), lin(compose(Bs, Minv), 0x63) ^ cs) for Bs, cs in post]
    pre_dec = [(compose(M, As), lin(M, cs) ^ 0x63) for As, cs in pre]

    def aes_inv_sbox(z):
        return INV[lin(Minv, z ^ 0x63)]
    assert all(aes_sbox(aes_inv_sbox(z)) == z for z in range(256))
    out = []
    for s in range(4):
        pm, pc = pre[s]
        qm, qc = post[s]
        am, ac = post_aes[s]
        for x in range(256):
            assert gfni_affine(INV[gfni_affine(x, gfni_qword(pm), pc)], gfni_qword(qm), qc) == sboxes[s][x]
            z = lin(pm, x) ^ pc
            assert lin(am, aes_sbox(z)) ^ ac == sboxes[s][x]
            zd = lin(pre_dec[s][0], x) ^ pre_dec[s][1]
            assert lin(qm, aes_inv_sbox(zd)) ^ qc == sboxes[s][x]
        out.append(dict(
            pre_q=gfni_qword(pm), pre_c=pc, post_q=gfni_qword(qm), post_c=qc,
            pre_lo=[lin(pm, n) ^ pc for n in range(16)], pre_hi=[lin(pm, n << 4) for n in range(16)],
            aes_lo=[lin(am, n) ^ ac for n in range(16)], aes_hi=[lin(am, n << 4) for n in range(16)],
            dpre_lo=[lin(pre_dec[s][0], n) ^ pre_dec[s][1] for n in range(16)],
            dpre_hi=[lin(pre_dec[s][0], n << 4) for n in range(16)],
            dpost_lo=[lin(qm, n) ^ qc for n in range(16)], dpost_hi=[lin(qm, n << 4) for n in range(16)]))

    def arr(v):
        return "{" + ", ".join(f"0x{x:02x}" for x in v) + "}"

    print("// GENERATED by tools/gen/camellia_sbox_gen.py (see there for the derivation). Do not edit; rerun the generator.")
    print("#pragma once")
    print("#include <cstdint>\n")
    print("namespace warpvol::simd::camellia {\n")
    print("// SBOX1, RFC 3713 section 2.4.4.")
    print("inline constexpr uint8_t kSbox1[256] = {")
    for i in range(0, 256, 16):
        print("    " + ", ".join(f"0x{v:02x}" for v in SBOX1[i:i + 16]) + ",")
    print("};\n")
    print(f"// s1(x) = B * inv(A * x ^ 0x{c_pre:02x}) ^ 0x{c_post:02x}; A, B by columns (image of bit 0..7).")
    print(f"inline constexpr uint8_t kAffineA[8] = {arr(A)};")
    print(f"inline constexpr uint8_t kAffineB[8] = {arr(B)};\n")
    print("// Index s - 1 for S-box s. GFNI: vgf2p8affineqb(x, kGfniPre, kGfniPreC) then vgf2p8affineinvqb(., kGfniPost,")
    print("// kGfniPostC). The immediates must be compile-time constants, hence the separate arrays.")
    print("inline constexpr uint64_t kGfniPre[4] = {" + ", ".join(f"0x{o['pre_q']:016x}ull" for o in out) + "};")
    print("inline constexpr uint8_t kGfniPreC[4] = {" + ", ".join(f"0x{o['pre_c']:02x}" for o in out) + "};")
    print("inline constexpr uint64_t kGfniPost[4] = {" + ", ".join(f"0x{o['post_q']:016x}ull" for o in out) + "};")
    print("inline constexpr uint8_t kGfniPostC[4] = {" + ", ".join(f"0x{o['post_c']:02x}" for o in out) + "};\n")
    print("// AES-NI: z = kPreLo[x & 15] ^ kPreHi[x >> 4]; s(x) = kPostLo[y & 15] ^ kPostHi[y >> 4] with y the AES")
    print("// S-box of z (aesenclast with a zero key, after undoing its ShiftRows).")
    print("// aesdeclast form: z = kDecPreLo[x & 15] ^ kDecPreHi[x >> 4]; s(x) = kDecPostLo[y & 15] ^ kDecPostHi[y >> 4]")
    print("// with y the AES inverse S-box of z.")
    for name, key in (("kPreLo", "pre_lo"), ("kPreHi", "pre_hi"), ("kPostLo", "aes_lo"), ("kPostHi", "aes_hi"),
                      ("kDecPreLo", "dpre_lo"), ("kDecPreHi", "dpre_hi"), ("kDecPostLo", "dpost_lo"),
                      ("kDecPostHi", "dpost_hi")):
        print(f"alignas(16) inline constexpr uint8_t {name}[4][16] = {{" + ", ".join(arr(o[key]) for o in out) + "};")
    print("\n}  // namespace warpvol::simd::camellia")


if __name__ == "__main__":
    main()

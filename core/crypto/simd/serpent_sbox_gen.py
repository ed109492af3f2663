#!/usr/bin/env python3
"""Generates core/crypto/simd/serpent_sboxes.h: the 16 bitsliced Serpent S-boxes (8 forward, 8 inverse) as C++
templates over a 32-bit-lane vector type, in two forms:

  *_gates: Dag Arne Osvik's two-input-gate sequences ("Speeding up Serpent", 2000) as published in Crypto++'s
           serpentp.h (public domain). Used by the scalar key schedule and the SSE/AVX2 paths, which have no
           three-input logic instruction.
  *_tl:    circuits of three-input boolean operations (AVX-512 vpternlogd), found here by a greedy search over
           truth tables. Used by the AVX-512 path.

Every circuit is checked here against the S-box tables (all 16 inputs) before it is written, and the tests check
the generated header again (tests/block/test_simd_ciphers.cpp, exhaustive over the 16 nibble values).

Convention: the input nibble of bit position j is x0_j + 2*x1_j + 4*x2_j + 8*x3_j (x0 = first little-endian word of
the block), the S-box output nibble is y0..y3 the same way, written back in place into x0..x3.

Usage: python3 serpent_sbox_gen.py /usr/include/cryptopp/serpentp.h > serpent_sboxes.h
"""
import itertools
import re
import sys

SBOX = [
    [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12],
    [15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4],
    [8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2],
    [0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14],
    [1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13],
    [15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1],
    [7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0],
    [1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6],
]
INV = [[s.index(v) for v in range(16)] for s in SBOX]
FULL = 0xFFFF
X = [sum(1 << v for v in range(16) if (v >> k) & 1) for k in range(4)]  # truth tables of x0..x3


def outputs_tt(table):
    return [sum(1 << v for v in range(16) if (table[v] >> k) & 1) for k in range(4)]


# ---------------------------------------------------------------- Osvik gate sequences from serpentp.h
def parse_osvik(path):
    text = open(path).read()
    out = {}
    for m in re.finditer(r"#define ([SI][0-7])\(i, r0, r1, r2, r3, r4\) \\\n(.*?)\n\s*}\s*\n", text, re.S):
        body = m.group(2)
        stmts = re.findall(r"(r[0-4])\s*(\^=|&=|\|=|=)\s*(~?)(r[0-4])\s*;", body)
        out[m.group(1)] = stmts
    assert len(out) == 16, sorted(out)
    return out


def simulate(stmts):
    r = {"r0": X[0], "r1": X[1], "r2": X[2], "r3": X[3], "r4": None}
    for dst, op, neg, src in stmts:
        v = r[src]
        assert v is not None
        if neg:
            v = ~v & FULL
        if op == "=":
            r[dst] = v
        elif op == "^=":
            r[dst] ^= v
        elif op == "&=":
            r[dst] &= v
        else:
            r[dst] |= v
    return r


def osvik_function(name, stmts, table):
    r = simulate(stmts)
    want = outputs_tt(table)
    mapping = []
    for k in range(4):
        regs = [n for n in ("r0", "r1", "r2", "r3", "r4") if r[n] == want[k]]
        assert regs, f"{name}: output bit {k} not found"
        mapping.append(regs[0])
    lines = [f"template <class V>\nSERPENT_INLINE void {name}(V& x0, V& x1, V& x2, V& x3) {{",
             "  V r0 = x0, r1 = x1, r2 = x2, r3 = x3, r4;"]
    for dst, op, neg, src in stmts:
        lines.append(f"  {dst} {op} {'~' if neg else ''}{src};")
    lines.append("  " + " ".join(f"x{k} = {mapping[k]};" for k in range(4)))
    lines.append("}")
    return "\n".join(lines), len(stmts)


# ---------------------------------------------------------------- ternary-logic circuit search
def tern(imm, a, b, c):
    r = 0
    for i in range(8):
        if (imm >> i) & 1:
            r |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
    return r & FULL


def realize(f, a, b, c):
    """imm with tern(imm, a, b, c) == f, or None."""
    imm = 0
    seen = 0
    for v in range(16):
        idx = (((a >> v) & 1) << 2) | (((b >> v) & 1) << 1) | ((c >> v) & 1)
        bit = (f >> v) & 1
        if (seen >> idx) & 1:
            if ((imm >> idx) & 1) != bit:
                return None
        else:
            seen |= 1 << idx
            imm |= bit << idx
    # unused indices: pick 0 (any value is correct)
    return imm


def find_direct(f, nodes):
    best = None
    for tri in itertools.combinations_with_replacement(range(len(nodes)), 3):
        imm = realize(f, *(nodes[i][1] for i in tri))
        if imm is not None:
            # prefer fewer distinct operands (cheaper register pressure)
            key = len(set(tri))
            if best is None or key < best[0]:
                best = (key, tri, imm)
    return None if best is None else (best[1], best[2])


def classes(a, b):
    return [m for m in ((~a & ~b) & FULL, (~a & b) & FULL, (a & ~b) & FULL, (a & b)) if m]


def usable_with(g, f, a, b):
    for cl in classes(a, b):
        d = (g ^ f) & cl
        if d != 0 and d != cl:
            return False
    return True


def search(table):
    want = outputs_tt(table)
    nodes = [(f"x{k}", X[k]) for k in range(4)]  # (expr name, truth table)
    ops = []  # (name, imm, (i, j, k))
    done = [None] * 4
    tmp = 0

    def add(tt, tri, imm, name=None):
        nonlocal tmp
        if name is None:
            name = f"t{tmp}"
            tmp += 1
        ops.append((name, imm, tuple(nodes[i][0] for i in tri)))
        nodes.append((name, tt))
        return len(nodes) - 1

    while True:
        progress = True
        while progress:
            progress = False
            for k in range(4):
                if done[k] is not None:
                    continue
                found = [i for i, (_, tt) in enumerate(nodes) if tt == want[k]]
                if found:
                    done[k] = found[0]
                    progress = True
                    continue
                d = find_direct(want[k], nodes)
                if d:
                    done[k] = add(want[k], d[0], d[1], f"y{k}")
                    progress = True
        todo = [k for k in range(4) if done[k] is None]
        if not todo:
            break
        # one new intermediate g = T(p, q, r) that lets the most remaining outputs be one more operation
        existing = {tt for _, tt in nodes}
        best = None
        n = len(nodes)
        for tri in itertools.combinations(range(n), 3):
            a, b, c = (nodes[i][1] for i in tri)
            seen = set()
            for imm in range(256):
                g = tern(imm, a, b, c)
                if g in existing or g in seen or g in (0, FULL):
                    continue
                seen.add(g)
                score = 0
                for k in todo:
                    if any(usable_with(g, want[k], nodes[i][1], nodes[j][1])
                           for i, j in itertools.combinations_with_replacement(range(n), 2)):
                        score += 1
                if score and (best is None or score > best[0]):
                    best = (score, tri, imm, g)
        if best:
            add(best[3], best[1], best[2])
            continue
        # Shannon expansion on x3 for the first remaining output: f = x3 ? f1 : f0, f0/f1 functions of x0..x2
        k = todo[0]
        f = want[k]
        f0 = f & ~X[3] & FULL
        f0 |= (f0 << 8) & FULL
        f1 = f & X[3]
        f1 |= f1 >> 8
        i0 = add(f0, (0, 1, 2), realize(f0, X[0], X[1], X[2]))
        i1 = add(f1, (0, 1, 2), realize(f1, X[0], X[1], X[2]))
        done[k] = add(f, (3, i1, i0), realize(f, X[3], f1, f0), f"y{k}")
    # verify by evaluation
    env = {f"x{k}": X[k] for k in range(4)}
    for name, imm, (a, b, c) in ops:
        env[name] = tern(imm, env[a], env[b], env[c])
    for k in range(4):
        assert env[nodes[done[k]][0]] == want[k]
    return ops, [nodes[done[k]][0] for k in range(4)]


def tl_function(name, table):
    ops, outs = search(table)
    lines = [f"template <class V>\nSERPENT_INLINE void {name}(V& x0, V& x1, V& x2, V& x3) {{"]
    for n, imm, (a, b, c) in ops:
        lines.append(f"  const V {n} = V::template tern<0x{imm:02x}>({a}, {b}, {c});")
    lines.append("  " + " ".join(f"x{k} = {outs[k]};" for k in range(4)))
    lines.append("}")
    return "\n".join(lines), len(ops)


def main():
    osvik = parse_osvik(sys.argv[1] if len(sys.argv) > 1 else "/usr/include/cryptopp/serpentp.h")
    print("// GENERATED by serpent_sbox_gen.py from Crypto++'s serpentp.h (Osvik's gate sequences, public domain) and")
    print("// a ternary-logic circuit search. Do not edit; rerun the generator. See the generator for the conventions.")
    print("#pragma once\n")
    print("#ifndef SERPENT_INLINE\n#define SERPENT_INLINE inline __attribute__((always_inline))\n#endif\n")
    print("namespace warpvol::simd::serpent {\n")
    print("inline constexpr unsigned char kSbox[8][16] = {")
    for s in SBOX:
        print("    {" + ", ".join(map(str, s)) + "},")
    print("};\n")
    stats = []
    for i in range(8):
        for kind, table in (("s", SBOX[i]), ("i", INV[i])):
            macro = ("S" if kind == "s" else "I") + str(i)
            code, n = osvik_function(f"{kind}box{i}_gates", osvik[macro], table)
            print(code + "\n")
            code2, n2 = tl_function(f"{kind}box{i}_tl", table)
            print(code2 + "\n")
            stats.append((f"{kind}{i}", n, n2))
    print("}  // namespace warpvol::simd::serpent")
    sys.stderr.write("".join(f"{n}: gates {a}, ternlog {b}\n" for n, a, b in stats))
    sys.stderr.write(f"total ternlog ops: enc {sum(b for n, a, b in stats if n[0] == 's')}, "
                     f"dec {sum(b for n, a, b in stats if n[0] == 'i')}\n")


if __name__ == "__main__":
    main()

// Generates both files of Serpent's bitsliced S-boxes (8 forward, 8 inverse) from one circuit search:
//
//   serpent_sboxes simd SERPENTP_H > core/crypto/simd/serpent_sboxes.h
//       C++ templates over a 32-bit-lane vector type V, two forms per box:
//       *_gates  Dag Arne Osvik's two-input-gate sequences ("Speeding up Serpent", 2000), read from Crypto++'s
//                serpentp.h (public domain): the scalar key schedule and the SSE/AVX2 paths, which have no
//                three-input logic instruction.
//       *_tl     the circuits of three-input operations found here (V::tern<imm>, vpternlogd): the AVX-512 path.
//   serpent_sboxes gpu > gpu/serpent_sbox.inc
//       the same circuits as LOP3 gates (wv_lop3<imm>) for the CUDA kernels.
//
// The search is greedy over all 24 output orders: an output costs 1 gate if it is a function of three signals
// already computed, 2 gates if of (a new gate over three signals, two signals), else 3 (Shannon expansion on x3).
// A three-input operation's immediate has bit (a << 2 | b << 1 | c) = f(a, b, c), as vpternlogd and LOP3 define it.
// Every circuit, and every Osvik sequence, is checked over all 16 inputs before anything is printed; the tests check
// the generated header again (tests/test_simd_ciphers.cpp). ctest's generated.files runs this and compares.
//
// Convention: the input nibble of bit position j is x0_j + 2*x1_j + 4*x2_j + 8*x3_j (x0 = first little-endian word of
// the block, the least significant bit plane); the output nibble y0..y3 the same way, written back into x0..x3.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

const uint8_t kS[8][16] = {
    {3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12}, {15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
    {8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2}, {0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
    {1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13}, {15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
    {7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0}, {1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6}};

using TT = uint16_t;  // truth table over the 16 input nibbles
constexpr TT kInputs[4] = {0xAAAA, 0xCCCC, 0xF0F0, 0xFF00};

TT lop(TT a, TT b, TT c, int imm) {
  TT r = 0;
  for (int i = 0; i < 8; ++i)
    if (imm >> i & 1) r |= TT((i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c));
  return r;
}
// If out is a function of (a,b,c), its immediate, else -1.
int fit(TT a, TT b, TT c, TT out) {
  int imm = 0, seen = 0;
  for (int n = 0; n < 16; ++n) {
    int i = (a >> n & 1) << 2 | (b >> n & 1) << 1 | (c >> n & 1);
    int o = out >> n & 1;
    if (seen >> i & 1) {
      if ((imm >> i & 1) != o) return -1;
    } else {
      seen |= 1 << i;
      imm |= o << i;
    }
  }
  return imm;  // unseen combinations: 0 (don't care)
}
struct Gate {
  int a, b, c, imm;
};
struct Circuit {
  std::vector<TT> sig;  // 0..3 inputs, then one per gate
  std::vector<Gate> gates;
  int out[4];
};

bool try1(Circuit& C, TT target, int& idx) {
  int n = C.sig.size();
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      for (int c = b + 1; c < n; ++c) {
        int imm = fit(C.sig[a], C.sig[b], C.sig[c], target);
        if (imm >= 0) {
          C.gates.push_back({a, b, c, imm});
          C.sig.push_back(lop(C.sig[a], C.sig[b], C.sig[c], imm));
          idx = C.sig.size() - 1;
          return true;
        }
      }
  return false;
}
bool try2(Circuit& C, TT target, int& idx) {
  int n = C.sig.size();
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      for (int c = b + 1; c < n; ++c)
        for (int imm1 = 1; imm1 < 255; ++imm1) {
          TT g = lop(C.sig[a], C.sig[b], C.sig[c], imm1);
          for (int s = 0; s < n; ++s)
            for (int t = s + 1; t < n; ++t) {
              int imm2 = fit(g, C.sig[s], C.sig[t], target);
              if (imm2 >= 0) {
                C.gates.push_back({a, b, c, imm1});
                C.sig.push_back(g);
                int gi = C.sig.size() - 1;
                C.gates.push_back({gi, s, t, imm2});
                C.sig.push_back(lop(g, C.sig[s], C.sig[t], imm2));
                idx = C.sig.size() - 1;
                return true;
              }
            }
        }
  return false;
}
void shannon(Circuit& C, TT target, int& idx) {
  int imm0 = 0, imm1 = 0;  // functions of x0,x1,x2 for x3 = 0 / 1
  for (int n = 0; n < 16; ++n) {
    int i = (n >> 0 & 1) << 2 | (n >> 1 & 1) << 1 | (n >> 2 & 1);
    if (n >> 3 & 1)
      imm1 |= (target >> n & 1) << i;
    else
      imm0 |= (target >> n & 1) << i;
  }
  C.gates.push_back({0, 1, 2, imm0});
  C.sig.push_back(lop(C.sig[0], C.sig[1], C.sig[2], imm0));
  int g0 = C.sig.size() - 1;
  C.gates.push_back({0, 1, 2, imm1});
  C.sig.push_back(lop(C.sig[0], C.sig[1], C.sig[2], imm1));
  int g1 = C.sig.size() - 1;
  C.gates.push_back({3, g1, g0, 0xCA});
  C.sig.push_back(lop(C.sig[3], C.sig[g1], C.sig[g0], 0xCA));
  idx = C.sig.size() - 1;
}

Circuit build(const uint8_t* box, const int order[4]) {
  Circuit C;
  C.sig.assign(kInputs, kInputs + 4);
  TT tgt[4];
  for (int j = 0; j < 4; ++j) {
    tgt[j] = 0;
    for (int n = 0; n < 16; ++n) tgt[j] |= TT((box[n] >> j) & 1) << n;
  }
  bool done[4] = {};
  // pass 1: any output doable with 1 gate (repeat, since new signals can help)
  for (int pass = 0; pass < 4; ++pass)
    for (int k = 0; k < 4; ++k) {
      int j = order[k];
      if (!done[j] && try1(C, tgt[j], C.out[j])) done[j] = true;
    }
  for (int k = 0; k < 4; ++k) {
    int j = order[k];
    if (done[j]) continue;
    if (try1(C, tgt[j], C.out[j]) || try2(C, tgt[j], C.out[j])) {
      done[j] = true;
      continue;
    }
    shannon(C, tgt[j], C.out[j]);
    done[j] = true;
  }
  return C;
}

bool computes(const Circuit& C, const uint8_t* box) {
  for (int n = 0; n < 16; ++n) {
    std::vector<int> v = {n & 1, n >> 1 & 1, n >> 2 & 1, n >> 3 & 1};
    for (auto& g : C.gates) v.push_back(g.imm >> (v[g.a] << 2 | v[g.b] << 1 | v[g.c]) & 1);
    int o = 0;
    for (int j = 0; j < 4; ++j) o |= v[C.out[j]] << j;
    if (o != box[n]) return false;
  }
  return true;
}

// The fewest gates over all output orders (the first order found among equals).
Circuit search(const uint8_t* box) {
  int order[4] = {0, 1, 2, 3};
  Circuit best;
  size_t bestn = 1000;
  do {
    Circuit C = build(box, order);
    if (C.gates.size() < bestn) {
      bestn = C.gates.size();
      best = C;
    }
  } while (std::next_permutation(order, order + 4));
  if (!computes(best, box)) {
    std::fprintf(stderr, "circuit verification failed\n");
    std::exit(1);
  }
  return best;
}

// Box s forward (inv = 0) or inverse (inv = 1) as a table.
void table(int s, int inv, uint8_t* box) {
  for (int n = 0; n < 16; ++n) {
    if (inv)
      box[kS[s][n]] = uint8_t(n);
    else
      box[n] = kS[s][n];
  }
}

// printf into a string (GCC 12 warns falsely, -Wrestrict, on "x" + std::to_string(i)).
template <class... A>
std::string fmt(const char* f, A... a) {
  char b[256];
  std::snprintf(b, sizeof b, f, a...);
  return b;
}
std::string name(int i) { return i < 4 ? fmt("x%d", i) : fmt("t%d", i - 4); }

int print_gpu() {
  std::printf(
      "// Generated by tools/gen/serpent_sboxes.cpp: Serpent S-boxes (sbN) and inverses (ibN) in bitslice form\n"
      "// as LOP3 gates; x0 is the least significant bit plane. Do not edit by hand.\n#pragma once\n\n");
  int total = 0;
  for (int inv = 0; inv < 2; ++inv)
    for (int s = 0; s < 8; ++s) {
      uint8_t box[16];
      table(s, inv, box);
      Circuit best = search(box);
      total += best.gates.size();
      std::printf("// %d gates\nWV_SBOX_FN void %s%d(uint32_t& x0, uint32_t& x1, uint32_t& x2, uint32_t& x3) {\n",
                  int(best.gates.size()), inv ? "ib" : "sb", s);
      for (size_t g = 0; g < best.gates.size(); ++g) {
        auto& G = best.gates[g];
        std::printf("  const uint32_t %s = wv_lop3<0x%02x>(%s, %s, %s);\n", name(4 + g).c_str(), G.imm,
                    name(G.a).c_str(), name(G.b).c_str(), name(G.c).c_str());
      }
      std::printf("  x0 = %s; x1 = %s; x2 = %s; x3 = %s;\n}\n\n", name(best.out[0]).c_str(),
                  name(best.out[1]).c_str(), name(best.out[2]).c_str(), name(best.out[3]).c_str());
    }
  std::fprintf(stderr, "total gates %d (16 boxes; Shannon bound 192)\n", total);
  return 0;
}

// ---- Osvik's sequences: statements "rD op= [~]rS;" over five registers, from serpentp.h's S0..S7 and I0..I7.
struct Stmt {
  int dst;
  std::string op;
  bool neg;
  int src;
};

std::map<std::string, std::vector<Stmt>> parse_osvik(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string raw = ss.str();
  raw.erase(std::remove(raw.begin(), raw.end(), '\r'), raw.end());  // the file has CRLF line ends
  const std::string text = raw;
  std::map<std::string, std::vector<Stmt>> out;
  const std::regex head(R"(#define ([SI][0-7])\(i, r0, r1, r2, r3, r4\) \\\n)");
  const std::regex close(R"(\n\s*\}\s*\n)");
  const std::regex stmt(R"((r[0-4])\s*(\^=|&=|\|=|=)\s*(~?)(r[0-4])\s*;)");
  for (std::sregex_iterator it(text.begin(), text.end(), head), end; it != end; ++it) {
    const auto from = text.begin() + it->position(0) + it->length(0);
    std::smatch m;
    if (!std::regex_search(from, text.end(), m, close)) continue;
    const std::string body(from, m[0].first);
    std::vector<Stmt>& v = out[(*it)[1]];
    for (std::sregex_iterator s(body.begin(), body.end(), stmt); s != std::sregex_iterator(); ++s)
      v.push_back({(*s)[1].str()[1] - '0', (*s)[2].str(), !(*s)[3].str().empty(), (*s)[4].str()[1] - '0'});
  }
  if (out.size() != 16) {
    std::fprintf(stderr, "%s: found %zu of the 16 S-box macros\n", path.c_str(), out.size());
    std::exit(1);
  }
  return out;
}

std::string osvik_function(const std::string& fname, const std::vector<Stmt>& stmts, const uint8_t* box) {
  int r[5] = {kInputs[0], kInputs[1], kInputs[2], kInputs[3], -1};
  for (const Stmt& s : stmts) {
    if (r[s.src] < 0) {
      std::fprintf(stderr, "%s: r%d read before it is written\n", fname.c_str(), s.src);
      std::exit(1);
    }
    int v = s.neg ? (~r[s.src] & 0xFFFF) : r[s.src];
    if (s.op == "=")
      r[s.dst] = v;
    else if (s.op == "^=")
      r[s.dst] ^= v;
    else if (s.op == "&=")
      r[s.dst] &= v;
    else
      r[s.dst] |= v;
  }
  int mapping[4];
  for (int k = 0; k < 4; ++k) {
    int want = 0;
    for (int n = 0; n < 16; ++n) want |= ((box[n] >> k) & 1) << n;
    mapping[k] = -1;
    for (int q = 0; q < 5 && mapping[k] < 0; ++q)
      if (r[q] == want) mapping[k] = q;
    if (mapping[k] < 0) {
      std::fprintf(stderr, "%s: output bit %d not found\n", fname.c_str(), k);
      std::exit(1);
    }
  }
  std::string o = fmt("template <class V>\nSERPENT_INLINE void %s(V& x0, V& x1, V& x2, V& x3) {\n", fname.c_str());
  o += "  V r0 = x0, r1 = x1, r2 = x2, r3 = x3, r4;\n";
  for (const Stmt& s : stmts)
    o += fmt("  r%d %s %sr%d;\n", s.dst, s.op.c_str(), s.neg ? "~" : "", s.src);
  o += "  ";
  for (int k = 0; k < 4; ++k) o += fmt(k ? " x%d = r%d;" : "x%d = r%d;", k, mapping[k]);
  return o + "\n}\n";
}

std::string tl_function(const std::string& fname, const Circuit& C) {
  std::string o = fmt("template <class V>\nSERPENT_INLINE void %s(V& x0, V& x1, V& x2, V& x3) {\n", fname.c_str());
  for (size_t g = 0; g < C.gates.size(); ++g) {
    const Gate& G = C.gates[g];
    o += fmt("  const V %s = V::template tern<0x%02x>(%s, %s, %s);\n", name(4 + g).c_str(), G.imm, name(G.a).c_str(),
             name(G.b).c_str(), name(G.c).c_str());
  }
  o += "  ";
  for (int k = 0; k < 4; ++k) o += fmt(k ? " x%d = %s;" : "x%d = %s;", k, name(C.out[k]).c_str());
  return o + "\n}\n";
}

int print_simd(const std::string& serpentp) {
  const auto osvik = parse_osvik(serpentp);
  std::printf(
      "// GENERATED by tools/gen/serpent_sboxes.cpp from Crypto++'s serpentp.h (Osvik's gate sequences, public "
      "domain)\n// and a ternary-logic circuit search. Do not edit; rerun the generator. See the generator for the "
      "conventions.\n"
      "#pragma once\n\n#ifndef SERPENT_INLINE\n#define SERPENT_INLINE inline __attribute__((always_inline))\n#endif\n\n"
      "namespace warpvol::simd::serpent {\n\ninline constexpr unsigned char kSbox[8][16] = {\n");
  for (const auto& s : kS) {
    std::printf("    {");
    for (int n = 0; n < 16; ++n) std::printf(n ? ", %d" : "%d", s[n]);
    std::printf("},\n");
  }
  std::printf("};\n\n");
  for (int s = 0; s < 8; ++s)
    for (int inv = 0; inv < 2; ++inv) {
      uint8_t box[16];
      table(s, inv, box);
      const std::string kind = inv ? "i" : "s";
      const std::string macro = fmt("%c%d", inv ? 'I' : 'S', s);
      std::printf("%s\n", osvik_function(fmt("%sbox%d_gates", kind.c_str(), s), osvik.at(macro), box).c_str());
      std::printf("%s\n", tl_function(fmt("%sbox%d_tl", kind.c_str(), s), search(box)).c_str());
    }
  std::printf("}  // namespace warpvol::simd::serpent\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "gpu" && argc == 2) return print_gpu();
  if (mode == "simd" && argc == 3) return print_simd(argv[2]);
  std::fprintf(stderr,
               "usage: %s gpu > gpu/serpent_sbox.inc\n"
               "       %s simd SERPENTP_H > core/crypto/simd/serpent_sboxes.h\n",
               argv[0], argv[0]);
  return 2;
}

// Serpent / Twofish / Camellia XTS throughput per core: every kernel in core/crypto/simd/{serpent,twofish,camellia}_*
// that this CPU runs, next to Crypto++ (make_xts_portable) in the same run. 1 MiB of random data in 512-byte
// units, encrypt and decrypt in place, one thread.
//
// Usage: cipher_xts_bench [seconds per measurement, default 0.3] [repeats, default 5]
// Reports the best repeat, by thread CPU time (robust on a shared machine: time while descheduled is not counted)
// and by wall clock.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/crypto/cpu_features.h"
#include "core/crypto/simd/camellia_xts.h"
#include "core/crypto/simd/serpent_xts.h"
#include "core/crypto/simd/twofish_xts.h"
#include "core/crypto/xts.h"

using namespace warpvol;

namespace {

double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Result {
  double cpu_gbs, wall_gbs;
};

Result measure(const std::function<void(uint8_t*, size_t)>& f, std::vector<uint8_t>& buf, double secs, int reps) {
  const size_t units = buf.size() / 512;
  f(buf.data(), units);  // warm-up
  double best_cpu = 1e30, best_wall = 1e30;
  for (int r = 0; r < reps; ++r) {
    int iters = 0;
    const double c0 = thread_seconds(), w0 = wall_seconds();
    double c1, w1;
    do {
      f(buf.data(), units);
      ++iters;
      c1 = thread_seconds();
      w1 = wall_seconds();
    } while (w1 - w0 < secs);
    best_cpu = std::min(best_cpu, (c1 - c0) / iters);
    best_wall = std::min(best_wall, (w1 - w0) / iters);
  }
  return {double(buf.size()) / best_cpu / 1e9, double(buf.size()) / best_wall / 1e9};
}

struct Path {
  std::string cipher, name;
  bool runs;
  std::function<void(uint8_t*, size_t)> enc, dec;
};

}  // namespace

int main(int argc, char** argv) {
  const double secs = argc > 1 ? std::atof(argv[1]) : 0.3;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  __builtin_cpu_init();
  const bool aes = __builtin_cpu_supports("aes") && __builtin_cpu_supports("ssse3");
  const bool avx2 = __builtin_cpu_supports("avx2");
  const bool vaes = avx2 && __builtin_cpu_supports("vaes") && aes;
  // Every *_avx512.cpp may use all of the AVX-512 level's instruction sets (core/crypto/cpu_features.h).
  const bool avx512 = detected_isa() == IsaLevel::Avx512;

  std::mt19937_64 rng(1);
  uint8_t k1[32], k2[32];
  for (auto& b : k1) b = uint8_t(rng());
  for (auto& b : k2) b = uint8_t(rng());
  std::vector<uint8_t> buf(1 << 20);
  for (auto& b : buf) b = uint8_t(rng());

  static simd::serpent::SerpentXtsKeys sk;
  simd::serpent::expand_key(k1, sk.k1);
  simd::serpent::expand_key(k2, sk.k2);
  static simd::twofish::TwofishXtsKeys tk;
  simd::twofish::expand_key(k1, &tk.k1);
  simd::twofish::expand_key(k2, &tk.k2);
  static simd::camellia::CamelliaXtsKeys ck;
  simd::camellia::CamelliaSchedule unused;
  simd::camellia::expand_key(k1, &ck.enc1, &ck.dec1);
  simd::camellia::expand_key(k2, &ck.enc2, &unused);

  std::vector<Path> paths;
  auto portable = [&](CipherId id, const char* cname) {
    auto x = std::shared_ptr<XtsCipher>(make_xts_portable(id, k1, k2));
    paths.push_back({cname, "Crypto++ (portable)", true, [x](uint8_t* p, size_t n) { x->encrypt(0, p, n); },
                     [x](uint8_t* p, size_t n) { x->decrypt(0, p, n); }});
  };
  auto serpent = [&](const char* name, bool runs, simd::serpent::XtsKernel e, simd::serpent::XtsKernel d) {
    paths.push_back({"Serpent", name, runs, [e](uint8_t* p, size_t n) { e(&sk, 0, p, n); },
                     [d](uint8_t* p, size_t n) { d(&sk, 0, p, n); }});
  };
  auto twofish = [&](const char* name, bool runs, simd::twofish::XtsKernel e, simd::twofish::XtsKernel d) {
    paths.push_back({"Twofish", name, runs, [e](uint8_t* p, size_t n) { e(&tk, 0, p, n); },
                     [d](uint8_t* p, size_t n) { d(&tk, 0, p, n); }});
  };
  auto camellia = [&](const char* name, bool runs, simd::camellia::XtsKernel e, simd::camellia::XtsKernel d) {
    paths.push_back({"Camellia", name, runs, [e](uint8_t* p, size_t n) { e(&ck, 0, p, n); },
                     [d](uint8_t* p, size_t n) { d(&ck, 0, p, n); }});
  };
  portable(CipherId::Serpent, "Serpent");
  serpent("sse2 bitsliced (4 blk/set)", true, simd::serpent::xts_encrypt_sse2, simd::serpent::xts_decrypt_sse2);
  serpent("avx2 bitsliced (8 blk/set)", avx2, simd::serpent::xts_encrypt_avx2, simd::serpent::xts_decrypt_avx2);
  serpent("avx512 bitsliced ternlog (16)", avx512, simd::serpent::xts_encrypt_avx512,
          simd::serpent::xts_decrypt_avx512);
  portable(CipherId::Twofish, "Twofish");
  twofish("scalar, 4 blocks in flight", true, simd::twofish::xts_encrypt_scalar, simd::twofish::xts_decrypt_scalar);
  twofish("avx2 vpgatherdd (8 blk/set)", avx2, simd::twofish::xts_encrypt_avx2, simd::twofish::xts_decrypt_avx2);
  twofish("avx512 vpgatherdd (16 blk/set)", avx512, simd::twofish::xts_encrypt_avx512,
          simd::twofish::xts_decrypt_avx512);
  twofish("avx512 vpermi2b+gfni (16 blk/set)", avx512, simd::twofish::xts_encrypt_avx512_vbmi,
          simd::twofish::xts_decrypt_avx512_vbmi);
  portable(CipherId::Camellia, "Camellia");
  camellia("aes-ni byte-sliced (16 blk)", aes, simd::camellia::xts_encrypt_aesni, simd::camellia::xts_decrypt_aesni);
  camellia("avx2+vaes byte-sliced (32 blk)", vaes, simd::camellia::xts_encrypt_avx2,
           simd::camellia::xts_decrypt_avx2);
  camellia("avx512+gfni byte-sliced (64)", avx512, simd::camellia::xts_encrypt_avx512,
           simd::camellia::xts_decrypt_avx512);

  std::printf("1 MiB buffers, 512-byte units, 1 thread; GB/s = 1e9 bytes/s, best of %d x %.2f s\n", reps, secs);
  std::printf("%-9s %-32s %9s %9s %9s %9s\n", "cipher", "path", "enc(cpu)", "dec(cpu)", "enc(wall)", "dec(wall)");
  for (auto& p : paths) {
    if (!p.runs) {
      std::printf("%-9s %-32s %s\n", p.cipher.c_str(), p.name.c_str(), "not run: CPU lacks the instructions");
      continue;
    }
    const Result e = measure(p.enc, buf, secs, reps), d = measure(p.dec, buf, secs, reps);
    std::printf("%-9s %-32s %9.3f %9.3f %9.3f %9.3f\n", p.cipher.c_str(), p.name.c_str(), e.cpu_gbs, d.cpu_gbs,
                e.wall_gbs, d.wall_gbs);
    std::fflush(stdout);
  }
  return 0;
}

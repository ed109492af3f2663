// AES-256-XTS throughput per core, 512-byte data units over a buffer (default 1 MiB) of random data, for every
// AES path this CPU runs (the registered SIMD kernels, the portable Crypto++-based path) and, for comparison,
// OpenSSL's EVP aes-256-xts in the same process: once the way `openssl speed -evp aes-256-xts -bytes 512` calls it
// (one EVP_CipherUpdate per 512 bytes, IV set once) and once with the IV reset per data unit as a volume would.
// Usage: aes_xts_bench [seconds per measurement = 2] [buffer KiB = 1024] [rounds = 8]. Every path and direction is
// measured in `rounds` windows of seconds/rounds, interleaved with the others, and the best window is reported.
// GB/s = 1e9 bytes per second; B/c = bytes per core clock cycle (clock estimated with a dependent IMUL chain).
#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/crypto/cpu_features.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/crypto/xts.h"
#include "imul_clock.h"

using namespace warpvol;

namespace {

bool cpu_runs(IsaLevel level) { return level <= detected_isa(); }

// Bytes per second of one call of fn over `bytes`, timed over a window of about `seconds`.
double window(double seconds, size_t bytes, const std::function<void()>& fn) {
  using clk = std::chrono::steady_clock;
  size_t iters = 0;
  const auto t0 = clk::now();
  double el = 0;
  do {
    fn();
    ++iters;
    el = std::chrono::duration<double>(clk::now() - t0).count();
  } while (el < seconds);
  return iters * static_cast<double>(bytes) / el;
}

// Core clock estimate: the best of five 50-million-iteration IMUL chains (bench/imul_clock.h).
double estimate_ghz() {
  using clk = std::chrono::steady_clock;
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = clk::now();
    bench::imul_chain(50'000'000);
    const double s = std::chrono::duration<double>(clk::now() - t0).count();
    best = std::max(best, 50e6 * bench::kImulChainCycles / s / 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  const size_t kib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1024;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 8;
  const size_t bytes = kib * 1024;
  const size_t nunits = bytes / kDataUnitSize;

  std::mt19937_64 rng(1);
  std::vector<uint8_t> buf(bytes);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  uint8_t key[64];
  for (auto& b : key) b = static_cast<uint8_t>(rng());
  const uint64_t unit0 = 123456789;

  std::printf("AES-256-XTS, 512-byte data units, %zu KiB buffer, 1 thread; detected ISA level: %s\n", kib,
              std::string(isa_name(detected_isa())).c_str());
  const double ghz = estimate_ghz();
  std::printf("core clock estimate (dependent IMUL chain): %.2f GHz; B/cyc = bytes per such cycle\n", ghz);
  std::printf("%-30s %10s %10s %8s %8s\n", "path", "enc GB/s", "dec GB/s", "enc B/c", "dec B/c");

  // Every measurement is a function over the buffer; all of them run in turn, `rounds` times, and each keeps its
  // best window: on a shared or virtual machine this is fairer than measuring one path after the other.
  struct Row {
    std::string name;
    std::function<void()> enc, dec;
    double best_enc = 0, best_dec = 0;
  };
  std::vector<Row> rows;
  std::vector<std::unique_ptr<XtsCipher>> keep;
  keep.push_back(make_xts_portable(CipherId::Aes, key, key + 32));
  std::vector<simd::XtsImpl> impls;
  simd::add_aes_impls(impls);
  std::vector<std::string> missing;
  for (const auto& impl : impls) {
    if (impl.cipher != CipherId::Aes) continue;
    if (!cpu_runs(impl.level)) {
      missing.emplace_back(isa_name(impl.level));
      continue;
    }
    keep.push_back(impl.make(key, key + 32));
  }
  for (auto& x : keep) {
    XtsCipher* c = x.get();
    std::string name(c->impl_name());
    if (name == "portable") name += " (Crypto++)";
    rows.push_back({name, [=, &buf] { c->encrypt(unit0, buf.data(), nunits); },
                    [=, &buf] { c->decrypt(unit0, buf.data(), nunits); }});
  }
  // OpenSSL EVP in this process.
  EVP_CIPHER_CTX* ctx[2][2];  // [per_unit_iv][enc]
  for (int per_unit_iv = 0; per_unit_iv < 2; ++per_unit_iv)
    for (int enc = 0; enc < 2; ++enc) {
      uint8_t iv[16] = {};
      ctx[per_unit_iv][enc] = EVP_CIPHER_CTX_new();
      if (!ctx[per_unit_iv][enc] ||
          EVP_CipherInit_ex(ctx[per_unit_iv][enc], EVP_aes_256_xts(), nullptr, key, iv, enc) != 1) {
        std::printf("OpenSSL EVP aes-256-xts init failed\n");
        return 1;
      }
    }
  auto evp = [&](int per_unit_iv, int enc) {
    return [&, per_unit_iv, enc] {
      EVP_CIPHER_CTX* c = ctx[per_unit_iv][enc];
      int outl = 0;
      uint8_t iv[16] = {};
      for (size_t u = 0; u < nunits; ++u) {
        uint8_t* p = buf.data() + u * kDataUnitSize;
        if (per_unit_iv) {
          const uint64_t unit = unit0 + u;
          std::memcpy(iv, &unit, 8);
          EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, iv, -1);
        }
        EVP_CipherUpdate(c, p, &outl, p, static_cast<int>(kDataUnitSize));
      }
    };
  };
  rows.push_back({"openssl EVP (as `speed`)", evp(0, 1), evp(0, 0)});
  rows.push_back({"openssl EVP (IV per unit)", evp(1, 1), evp(1, 0)});

  for (auto& r : rows) {  // warm up
    r.enc();
    r.dec();
  }
  for (int round = 0; round < rounds; ++round)
    for (auto& r : rows) {
      r.best_enc = std::max(r.best_enc, window(seconds / rounds, bytes, r.enc));
      r.best_dec = std::max(r.best_dec, window(seconds / rounds, bytes, r.dec));
    }
  for (const auto& r : rows)
    std::printf("%-30s %10.2f %10.2f %8.2f %8.2f\n", r.name.c_str(), r.best_enc / 1e9, r.best_dec / 1e9,
                r.best_enc / 1e9 / ghz, r.best_dec / 1e9 / ghz);
  for (const auto& m : missing) std::printf("%-30s not run: this CPU lacks its instructions\n", m.c_str());
  for (auto& a : ctx)
    for (auto* c : a) EVP_CIPHER_CTX_free(c);
  std::printf("(%s)\n", OpenSSL_version(OPENSSL_VERSION));
  return 0;
}

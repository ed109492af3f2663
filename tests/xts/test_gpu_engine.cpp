// The CUDA engine (gpu/) against the CPU reference (XtsChain, CpuEngine), the host key schedules against Crypto++
// and the ECB vectors, and its fault handling. The XTS known answers run on it as one of the engines under test
// (tests/xts/test_xts_vectors.cpp). Tagged [gpu]; without a CUDA device every GPU case WARNs
// "no CUDA device: GPU tests skipped" and returns (a visible skip). [sanitize] marks the reduced subset run under
// compute-sanitizer.
#include <catch2/catch.hpp>

#ifdef WARPVOL_HAVE_GPU

#include <cryptopp/aes.h>
#include <cryptopp/camellia.h>
#include <cryptopp/serpent.h>
#include <cryptopp/twofish.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/crypto/chain.h"
#include "core/crypto/unit_xxh3.h"
#include "core/engine/cpu_engine.h"
#include "core/util/bytes.h"
#include "gpu/cipher_host.h"
#include "gpu/copy_crew.h"
#include "gpu/gpu_engine.h"
#include "gpu/kernel_api.h"
#include "gpu/xxh3_device.cuh"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x = rng();
    std::memcpy(&v[i], &x, 8);
  }
  for (; i < n; ++i) v[i] = uint8_t(rng());
  return v;
}

// One engine for the suite (context creation is the slow part). Small chunks so that the pipeline, the slot ring
// and the multi-chunk paths are exercised by moderate sizes.
std::shared_ptr<XtsEngine> shared_gpu() {
  static std::shared_ptr<XtsEngine> eng;
  static bool tried = false;
  static std::string why;
  if (!tried) {
    tried = true;
    gpu::GpuEngineOptions o;
    o.chunk_bytes = size_t(4) << 20;
    o.streams = 3;
    eng = gpu::make_engine(o, why);
  }
  if (!eng) WARN("no CUDA device: GPU tests skipped (" << why << ")");
  return eng;
}

std::vector<uint8_t> random_key(std::mt19937_64& rng, ChainId c) {
  return random_bytes(rng, 2 * chain_info(c).key_size());
}

// GPU result vs XtsChain on the same random data, both directions.
void compare_chain(XtsEngine& g, ChainId c, size_t nunits, uint64_t unit0, std::mt19937_64& rng) {
  INFO(chain_info(c).name << ", " << nunits << " units at unit " << unit0);
  auto km = random_key(rng, c);
  auto key = g.prepare(c, km.data());
  XtsChain ref(c, km.data());
  auto plain = random_bytes(rng, nunits * 512);
  for (Direction d : {Direction::Encrypt, Direction::Decrypt}) {
    auto a = plain, b = plain;
    g.process(*key, d, unit0, a.data(), nunits);
    ref.process(d, unit0, b.data(), nunits);
    CHECK(a == b);
  }
  auto rt = plain;
  g.process(*key, Direction::Encrypt, unit0, rt.data(), nunits);
  CHECK(rt != plain);
  g.process(*key, Direction::Decrypt, unit0, rt.data(), nunits);
  CHECK(rt == plain);
}

// Captures what is written to stderr (fd 2) while alive.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    f_ = std::tmpfile();
    saved_ = dup(2);
    dup2(fileno(f_), 2);
  }
  std::string finish() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    std::rewind(f_);
    std::string s;
    char buf[512];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f_)) > 0) s.append(buf, n);
    std::fclose(f_);
    return s;
  }

 private:
  FILE* f_;
  int saved_;
};

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

// No device needed: the kernels' key schedules and tables, checked on the host.
TEST_CASE("GPU host key schedules match Crypto++ and the ECB vectors", "[gpu][host]") {
  using gpu::host::Sched;
  std::mt19937_64 rng(7);
  auto run = [&](CipherId c, auto enc_obj, auto dec_obj) {
    for (int t = 0; t < 100; ++t) {
      auto k = random_bytes(rng, 32), p = random_bytes(rng, 16);
      Sched se, sd;
      gpu::host::expand_key(c, k.data(), true, se);
      gpu::host::expand_key(c, k.data(), false, sd);
      uint8_t a[16], b[16];
      enc_obj.SetKey(k.data(), 32);
      enc_obj.ProcessBlock(p.data(), a);
      std::memcpy(b, p.data(), 16);
      gpu::host::encrypt_block(c, se, b);
      CHECK(std::memcmp(a, b, 16) == 0);
      dec_obj.SetKey(k.data(), 32);
      dec_obj.ProcessBlock(p.data(), a);
      std::memcpy(b, p.data(), 16);
      gpu::host::decrypt_block(c, sd, b);
      CHECK(std::memcmp(a, b, 16) == 0);
    }
  };
  run(CipherId::Aes, CryptoPP::AES::Encryption(), CryptoPP::AES::Decryption());
  run(CipherId::Serpent, CryptoPP::Serpent::Encryption(), CryptoPP::Serpent::Decryption());
  run(CipherId::Twofish, CryptoPP::Twofish::Encryption(), CryptoPP::Twofish::Decryption());
  run(CipherId::Camellia, CryptoPP::Camellia::Encryption(), CryptoPP::Camellia::Decryption());
  // Kuznyechik (no Crypto++): against core's reference block cipher, and the ECB vectors for all five.
  for (int t = 0; t < 100; ++t) {
    auto k = random_bytes(rng, 32), p = random_bytes(rng, 16);
    Sched se, sd;
    gpu::host::expand_key(CipherId::Kuznyechik, k.data(), true, se);
    gpu::host::expand_key(CipherId::Kuznyechik, k.data(), false, sd);
    auto ref = make_block_cipher(CipherId::Kuznyechik, k.data());
    uint8_t a[16], b[16];
    ref->encrypt(p.data(), a, 1);
    std::memcpy(b, p.data(), 16);
    gpu::host::encrypt_block(CipherId::Kuznyechik, se, b);
    CHECK(std::memcmp(a, b, 16) == 0);
    gpu::host::decrypt_block(CipherId::Kuznyechik, sd, b);
    CHECK(std::memcmp(b, p.data(), 16) == 0);
  }
  auto j = wvtest::load_vectors("block_ciphers_ecb.json");
  int n = 0;
  for (const auto& v : j["vectors"]) {
    std::string name = v["cipher"].get<std::string>();
    auto c = parse_cipher(name.substr(0, name.find_first_of(" -")));
    REQUIRE(c.has_value());
    INFO(name);
    auto k = wvtest::hex_bytes(v["key_hex"]), p = wvtest::hex_bytes(v["plaintext_hex"]),
         x = wvtest::hex_bytes(v["ciphertext_hex"]);
    Sched se, sd;
    gpu::host::expand_key(*c, k.data(), true, se);
    gpu::host::expand_key(*c, k.data(), false, sd);
    gpu::host::encrypt_block(*c, se, p.data());
    CHECK(to_hex(p) == to_hex(x));
    gpu::host::decrypt_block(*c, sd, p.data());
    CHECK(to_hex(p) == v["plaintext_hex"].get<std::string>());
    ++n;
  }
  CHECK(n == 9);
}

TEST_CASE("GPU engine matches XtsChain: every chain, both directions, sizes and start units", "[gpu]") {
  auto g = shared_gpu();
  if (!g) return;
  std::mt19937_64 rng(20261122);
  const uint64_t starts[] = {0, 256, 0xFFFFFFFFull, (uint64_t(1) << 40) + 3};
  for (const auto& ci : all_chains())
    for (size_t n : {size_t(1), size_t(31), size_t(511), size_t(512), size_t(513)})
      for (uint64_t u0 : starts) compare_chain(*g, ci.id, n, u0, rng);
}

TEST_CASE("GPU engine: every warp tile size (units per warp) gives the same result", "[gpu]") {
  // Small requests run with tiles of fewer than 32 units (grid_for); force each size so none depends on the sizes
  // the automatic choice happens to pick on this device.
  if (!shared_gpu()) return;
  std::mt19937_64 rng(7);
  for (unsigned tile : {1u, 2u, 3u, 7u, 16u, 31u, 32u}) {
    gpu::GpuEngineOptions o;
    o.chunk_bytes = size_t(1) << 20;
    o.streams = 3;
    o.tile_units = tile;
    std::string why;
    auto g = gpu::make_engine(o, why);
    REQUIRE(g);
    INFO("tile " << tile);
    for (ChainId c : {ChainId::Aes, ChainId::Serpent, ChainId::Kuznyechik, ChainId::AesTwofishSerpent})
      for (size_t n : {size_t(1), size_t(tile), size_t(tile + 1), size_t(97), size_t(4099)})
        compare_chain(*g, c, n, 0xFFFFFFFFull - 40, rng);
  }
}

TEST_CASE("GPU engine matches the CPU engine on 64 MiB + 512 bytes, every chain", "[gpu][large]") {
  auto g = shared_gpu();
  if (!g) return;
  std::mt19937_64 rng(42);
  CpuEngine cpu;
  const size_t n = 131073;  // 64 MiB + 512 bytes
  auto plain = random_bytes(rng, n * 512);
  for (const auto& ci : all_chains()) {
    INFO(ci.name);
    auto km = random_key(rng, ci.id);
    auto kg = g->prepare(ci.id, km.data());
    auto kc = cpu.prepare(ci.id, km.data());
    const uint64_t u0 = 0xFFFFFFFFull - 1000;  // crosses 2^32
    auto a = plain, b = plain;
    g->process(*kg, Direction::Encrypt, u0, a.data(), n);
    cpu.process(*kc, Direction::Encrypt, u0, b.data(), n);
    CHECK(a == b);
    g->process(*kg, Direction::Decrypt, u0, a.data(), n);
    CHECK(a == plain);
  }
}

TEST_CASE("GPU engine: page-locked buffers take the direct path and match", "[gpu]") {
  auto g = shared_gpu();
  if (!g) return;
  std::mt19937_64 rng(3);
  const size_t n = 20000;  // several 4 MiB chunks
  auto* p = static_cast<uint8_t*>(gpu::alloc_pinned(n * 512));
  REQUIRE(p != nullptr);
  auto plain = random_bytes(rng, n * 512);
  for (ChainId c : {ChainId::Aes, ChainId::AesTwofishSerpent, ChainId::KuznyechikSerpentCamellia}) {
    auto km = random_key(rng, c);
    auto key = g->prepare(c, km.data());
    XtsChain ref(c, km.data());
    std::memcpy(p, plain.data(), n * 512);
    auto b = plain;
    g->process(*key, Direction::Encrypt, 777, p, n);
    ref.encrypt(777, b.data(), n);
    CHECK(std::memcmp(p, b.data(), n * 512) == 0);
  }
  gpu::free_pinned(p);
}

TEST_CASE("GPU engine: fused re-encryption equals decrypt then encrypt", "[gpu][reencrypt]") {
  auto g = shared_gpu();
  if (!g) return;
  std::mt19937_64 rng(11);
  const size_t n = 9000;  // > 2 chunks of 4 MiB
  const uint64_t u0 = (uint64_t(1) << 32) - 5;
  auto data = random_bytes(rng, n * 512);
  int pairs = 0;
  for (const auto& from : all_chains())
    for (const auto& to : all_chains()) {
      // Every pair on one unit-sized run (compiled kernels for all 225 pairs), every 7th pair on the larger run.
      const size_t units = (pairs % 7 == 0) ? n : 33;
      ++pairs;
      INFO(from.name << " -> " << to.name << ", " << units << " units");
      auto ka = random_key(rng, from.id), kb = random_key(rng, to.id);
      auto ga = g->prepare(from.id, ka.data()), gb = g->prepare(to.id, kb.data());
      XtsChain ra(from.id, ka.data()), rb(to.id, kb.data());
      std::vector<uint8_t> x(data.begin(), data.begin() + units * 512), y = x;
      g->reencrypt(*ga, *gb, u0, x.data(), units);
      ra.decrypt(u0, y.data(), units);
      rb.encrypt(u0, y.data(), units);
      CHECK(x == y);
    }
}

// The path of builds without the fused re-encryption kernels (-DWARPVOL_GPU_FUSED_REENCRYPT=OFF, the default where
// no GPU is present at configure time): decrypt kernel then encrypt kernel on the chunk in GPU memory.
TEST_CASE("GPU engine: re-encryption without fused kernels runs two kernels per chunk and matches", "[gpu][reencrypt]") {
  if (!shared_gpu()) return;
  std::mt19937_64 rng(12);
  gpu::GpuEngineOptions o;
  o.chunk_bytes = size_t(1) << 20;
  o.fused_reencrypt = false;
  std::string why;
  auto g = gpu::make_engine(o, why);
  REQUIRE(g);
  const size_t n = 2048 * 3 + 5;  // 4 chunks of 1 MiB
  const std::pair<ChainId, ChainId> pairs[] = {{ChainId::Aes, ChainId::Serpent},
                                               {ChainId::AesTwofishSerpent, ChainId::KuznyechikSerpentCamellia},
                                               {ChainId::Twofish, ChainId::Twofish}};
  for (auto [from, to] : pairs) {
    INFO(chain_info(from).name << " -> " << chain_info(to).name);
    auto ka = random_key(rng, from), kb = random_key(rng, to);
    auto ga = g->prepare(from, ka.data()), gb = g->prepare(to, kb.data());
    XtsChain ra(from, ka.data()), rb(to, kb.data());
    auto x = random_bytes(rng, n * 512), y = x;
    const uint64_t before = gpu::engine_status(*g).launches;
    g->reencrypt(*ga, *gb, 77, x.data(), n);
    CHECK(gpu::engine_status(*g).launches - before == 2 * 4);
    ra.decrypt(77, y.data(), n);
    rb.encrypt(77, y.data(), n);
    CHECK(x == y);
  }
  CHECK_FALSE(gpu::engine_status(*g).failed);
}

TEST_CASE("GPU engine: a failed launch sends the rest of the job to the CPU, reported once", "[gpu][fault][sanitize]") {
  if (!shared_gpu()) return;
  std::mt19937_64 rng(5);
  const size_t n = 8 * 2048 + 17;  // 8 MiB + 17 units: 9 chunks of 1 MiB
  for (ChainId c : {ChainId::Serpent, ChainId::AesTwofishSerpent}) {
    INFO(chain_info(c).name);
    gpu::GpuEngineOptions o;
    o.chunk_bytes = size_t(1) << 20;
    o.fail_launch = 3;
    std::string why;
    auto g = gpu::make_engine(o, why);
    REQUIRE(g);
    auto km = random_key(rng, c);
    auto key = g->prepare(c, km.data());
    XtsChain ref(c, km.data());
    auto plain = random_bytes(rng, n * 512);
    auto a = plain, b = plain;
    StderrCapture cap;
    g->process(*key, Direction::Encrypt, 99, a.data(), n);
    ref.encrypt(99, b.data(), n);
    auto a2 = a;  // a second job on the failed engine: all CPU, no second report
    g->process(*key, Direction::Decrypt, 99, a2.data(), n);
    const std::string err = cap.finish();
    CHECK(a == b);
    CHECK(a2 == plain);
    auto st = gpu::engine_status(*g);
    CHECK(st.is_gpu);
    CHECK(st.failed);
    CHECK(st.launches == 3);
    CHECK(st.cpu_units == (n - 2 * 2048) + n);  // chunks 3.. of the first job, all of the second
    CHECK(count_of(err, "GPU engine error") == 1);
    CHECK(err.find("injected launch failure") != std::string::npos);
  }
  // The environment variable route, on re-encryption.
  setenv("WARPVOL_GPU_FAIL_LAUNCH", "1", 1);
  gpu::GpuEngineOptions o;
  std::string why;
  auto g = gpu::make_engine(o, why);
  unsetenv("WARPVOL_GPU_FAIL_LAUNCH");
  REQUIRE(g);
  auto ka = random_key(rng, ChainId::Twofish), kb = random_key(rng, ChainId::CamelliaKuznyechik);
  auto ga = g->prepare(ChainId::Twofish, ka.data()), gb = g->prepare(ChainId::CamelliaKuznyechik, kb.data());
  XtsChain ra(ChainId::Twofish, ka.data()), rb(ChainId::CamelliaKuznyechik, kb.data());
  auto x = random_bytes(rng, 3000 * 512), y = x;
  StderrCapture cap;
  g->reencrypt(*ga, *gb, 5, x.data(), 3000);
  const std::string err = cap.finish();
  ra.decrypt(5, y.data(), 3000);
  rb.encrypt(5, y.data(), 3000);
  CHECK(x == y);
  CHECK(gpu::engine_status(*g).failed);
  CHECK(count_of(err, "GPU engine error") == 1);
}

// Re-encryption's checksum entries hashed on the GPU (reencrypt_hashed) against the CPU engine's data and XXH3: on
// pageable and page-locked memory, over several chunks, and after a failed launch (the CPU fallback hashes the
// rest).
TEST_CASE("GPU engine: re-encryption with unit hashes gives the CPU engine's data and XXH3-128 entries",
          "[gpu][reencrypt]") {
  auto shared = shared_gpu();
  if (!shared) return;
  std::mt19937_64 rng(21);
  const size_t n = 3 * 8192 + 11;  // 12 MiB + 11 units: 4 chunks of 4 MiB
  auto* pinned = static_cast<uint8_t*>(gpu::alloc_pinned(n * 512));
  REQUIRE(pinned != nullptr);
  gpu::GpuEngineOptions failing;
  failing.chunk_bytes = size_t(1) << 20;
  failing.fail_launch = 4;
  std::string why;
  std::shared_ptr<XtsEngine> fails = gpu::make_engine(failing, why);
  REQUIRE(fails);
  CpuEngine cpu(2);
  const std::pair<ChainId, ChainId> pairs[] = {{ChainId::Serpent, ChainId::Aes},
                                               {ChainId::AesTwofishSerpent, ChainId::KuznyechikSerpentCamellia}};
  for (auto [from, to] : pairs)
    for (int mode = 0; mode < 3; ++mode) {  // pageable, page-locked, a launch fails
      INFO(chain_info(from).name << " -> " << chain_info(to).name << ", mode " << mode);
      XtsEngine& g = mode == 2 ? *fails : *shared;
      auto ka = random_key(rng, from), kb = random_key(rng, to);
      auto ga = g.prepare(from, ka.data()), gb = g.prepare(to, kb.data());
      auto ca = cpu.prepare(from, ka.data()), cb = cpu.prepare(to, kb.data());
      auto want = random_bytes(rng, n * 512);
      std::vector<uint8_t> x = want;
      uint8_t* data = mode == 1 ? pinned : x.data();
      if (mode == 1) std::memcpy(pinned, want.data(), n * 512);
      std::vector<uint8_t> hashes(n * 16, 0xA5), want_hashes(n * 16);
      StderrCapture cap;
      g.reencrypt_hashed(*ga, *gb, 1000, data, n, hashes.data());
      cap.finish();
      cpu.reencrypt(*ca, *cb, 1000, want.data(), n);
      xxh3_128_units(want.data(), n, want_hashes.data());
      CHECK(std::memcmp(data, want.data(), n * 512) == 0);
      CHECK(hashes == want_hashes);
    }
  CHECK(gpu::engine_status(*fails).failed);
  CHECK(gpu::engine_status(*fails).cpu_units > 0);
  gpu::free_pinned(pinned);
}

TEST_CASE("GPU engine: concurrent callers share one engine", "[gpu]") {
  auto g = shared_gpu();
  if (!g) return;
  std::mt19937_64 rng(8);
  const size_t n = 12000;
  std::vector<std::vector<uint8_t>> bufs, refs;
  std::vector<std::shared_ptr<const EngineKey>> keys;
  const ChainId cs[] = {ChainId::Aes, ChainId::Twofish, ChainId::SerpentTwofishAes, ChainId::Kuznyechik};
  for (ChainId c : cs) {
    auto km = random_key(rng, c);
    keys.push_back(g->prepare(c, km.data()));
    bufs.push_back(random_bytes(rng, n * 512));
    refs.push_back(bufs.back());
    XtsChain(c, km.data()).encrypt(1000, refs.back().data(), n);
  }
  std::vector<std::future<void>> fs;
  for (size_t i = 0; i < 4; ++i) fs.push_back(g->submit(keys[i], Direction::Encrypt, 1000, bufs[i].data(), n));
  for (auto& f : fs) f.get();
  for (size_t i = 0; i < 4; ++i) CHECK(bufs[i] == refs[i]);
}

TEST_CASE("GPU engine: many callers with small requests on few slots neither deadlock nor mix data", "[gpu]") {
  // Requests up to 16 MiB hold several slots while they finish their own pieces (GpuEngine::run, take_slot); with
  // more callers than slots each must make progress and get exactly its own result.
  if (!shared_gpu()) return;
  gpu::GpuEngineOptions o;
  o.chunk_bytes = size_t(1) << 20;
  o.streams = 3;
  std::string why;
  auto g = gpu::make_engine(o, why);
  REQUIRE(g);
  std::mt19937_64 seed_rng(12);
  const ChainId cs[] = {ChainId::Serpent, ChainId::Kuznyechik, ChainId::TwofishSerpent, ChainId::Aes};
  std::vector<std::thread> callers;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 8; ++t) {
    const uint64_t seed = seed_rng();
    callers.emplace_back([&, t, seed] {
      std::mt19937_64 rng(seed);
      const ChainId c = cs[t % 4];
      auto km = random_key(rng, c);
      auto key = g->prepare(c, km.data());
      XtsChain ref(c, km.data());
      for (int r = 0; r < 12; ++r) {
        const size_t n = 1 + rng() % 6000;  // up to ~3 MiB: several 512 KiB pieces, more than the 3 slots
        auto a = random_bytes(rng, n * 512), b = a;
        g->process(*key, Direction::Encrypt, 77 + r, a.data(), n);
        ref.encrypt(77 + r, b.data(), n);
        if (a != b) ++mismatches;
      }
    });
  }
  for (auto& th : callers) th.join();
  CHECK(mismatches == 0);
}

TEST_CASE("GPU engine sanitizer subset: every chain and direction, small runs", "[gpu][sanitize]") {
  auto g = shared_gpu();
  if (!g) return;
  std::mt19937_64 rng(99);
  // Every kernel (15 chains x 2 directions) once on a partial tile and once on a full tile plus one unit; three
  // chains over several 4 MiB chunks (the slot ring); re-encryption, plain and with unit hashes. Kept small:
  // kernels run 10-100x slower under the tools.
  for (const auto& ci : all_chains())
    for (size_t n : {size_t(1), size_t(33)}) compare_chain(*g, ci.id, n, 1ull << 33, rng);
  // WARPVOL_TEST_SMALL=1 (for racecheck, which is far slower than memcheck): 40 units instead of 8200.
  const size_t several = std::getenv("WARPVOL_TEST_SMALL") ? 40 : 8200;
  for (ChainId c : {ChainId::Aes, ChainId::TwofishSerpent, ChainId::KuznyechikSerpentCamellia})
    compare_chain(*g, c, several, 5, rng);
  auto ka = random_key(rng, ChainId::AesTwofishSerpent), kb = random_key(rng, ChainId::KuznyechikSerpentCamellia);
  auto ga = g->prepare(ChainId::AesTwofishSerpent, ka.data());
  auto gb = g->prepare(ChainId::KuznyechikSerpentCamellia, kb.data());
  auto x = random_bytes(rng, 100 * 512), y = x;
  g->reencrypt(*ga, *gb, 3, x.data(), 100);
  XtsChain(ChainId::AesTwofishSerpent, ka.data()).decrypt(3, y.data(), 100);
  XtsChain(ChainId::KuznyechikSerpentCamellia, kb.data()).encrypt(3, y.data(), 100);
  CHECK(x == y);
  // The unit-hash kernel (XXH3-128 of each re-encrypted unit, in device memory) on a partial and a full tile.
  for (size_t n : {size_t(1), size_t(33)}) {
    auto z = random_bytes(rng, n * 512), w = z;
    std::vector<uint8_t> hashes(n * 16), want_hashes(n * 16);
    g->reencrypt_hashed(*ga, *gb, 7, z.data(), n, hashes.data());
    XtsChain(ChainId::AesTwofishSerpent, ka.data()).decrypt(7, w.data(), n);
    XtsChain(ChainId::KuznyechikSerpentCamellia, kb.data()).encrypt(7, w.data(), n);
    xxh3_128_units(w.data(), n, want_hashes.data());
    CHECK(z == w);
    CHECK(hashes == want_hashes);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Host emulation of the kernels (no device needed, so CI checks the device code too): the per-thread cipher code,
// the shared-memory plans and table layouts of gpu/xts_device.cuh compiled for the CPU, driven tile by tile and
// lane by lane the way xts_kernel does (tweak per lane, T_u * alpha^lane, every layer in registers).
// Compiled without optimisation: the fully unrolled kernels take minutes through an optimising host compiler.
#pragma GCC push_options
#pragma GCC optimize("O0")
#define WV_HOST_EMULATION 1
#include "gpu/xts_device.cuh"

namespace {
namespace dev = warpvol::gpu::dev;

template <class LL>
void emulate(dev::Params<LL::n>& p) {
  using PL = dev::PlanOf<LL>;
  constexpr int NL = LL::n;
  dev::blockDim.x = gpu::kThreads;
  for (unsigned t = 0; t < gpu::kThreads; ++t) {
    dev::threadIdx.x = t;
    dev::LayerOps<LL>::template fill<PL, NL>(p);
  }
  const unsigned long long ntiles = (p.nunits + 31) / 32;
  for (unsigned long long tile = 0; tile < ntiles; ++tile) {
    std::vector<std::array<uint4, NL>> tw(32);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const dev::Lane ln{lane * 4, (lane & 15) * 4};
      const unsigned long long unit = p.unit0 + tile * 32 + lane;
      uint4 t[NL];
      dev::LayerOps<LL>::template tweaks<PL, NL>(t, make_uint4(uint32_t(unit), uint32_t(unit >> 32), 0, 0), p, ln);
      for (int l = 0; l < NL; ++l) tw[lane][l] = t[l];
    }
    const int cnt = int(std::min<unsigned long long>(32, p.nunits - tile * 32));
    for (int u = 0; u < cnt; ++u)
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const dev::Lane ln{lane * 4, (lane & 15) * 4};
        uint4 t[NL];
        for (int l = 0; l < NL; ++l) t[l] = dev::mul_alpha_pow(tw[u][l], lane);
        uint4* ptr = p.data + (tile * 32 + u) * 32 + lane;
        *ptr = dev::LayerOps<LL>::template apply<PL, NL>(*ptr, t, p, ln);
      }
  }
}

// Layer keys as GpuKey builds them, with host copies of the Twofish tables standing in for device memory.
struct EmuKeys {
  std::vector<gpu::LayerKey> enc, dec;
  std::vector<std::unique_ptr<gpu::host::Sched>> keep;
  EmuKeys(ChainId c, const uint8_t* km) {
    const auto& order = chain_info(c).order;
    const size_t n = order.size(), K = chain_info(c).key_size();
    enc.resize(n);
    dec.resize(n);
    for (size_t i = 0; i < n; ++i) {
      auto a = std::make_unique<gpu::host::Sched>(), b = std::make_unique<gpu::host::Sched>(),
           t = std::make_unique<gpu::host::Sched>();
      gpu::host::expand_key(order[i], km + 32 * i, true, *a);
      gpu::host::expand_key(order[i], km + 32 * i, false, *b);
      gpu::host::expand_key(order[i], km + K + 32 * i, true, *t);
      gpu::LayerKey& e = enc[i];
      gpu::LayerKey& d = dec[n - 1 - i];
      std::memcpy(e.k1, a->w, sizeof e.k1);
      std::memcpy(d.k1, b->w, sizeof d.k1);
      std::memcpy(e.k2, t->w, sizeof e.k2);
      std::memcpy(d.k2, t->w, sizeof d.k2);
      e.tf1 = d.tf1 = &a->tf_sbox[0][0];
      e.tf2 = d.tf2 = &t->tf_sbox[0][0];
      keep.push_back(std::move(a));
      keep.push_back(std::move(b));
      keep.push_back(std::move(t));
    }
  }
};

const std::vector<uint32_t>& emu_tables() {
  static const std::vector<uint32_t> t = gpu::build_source_tables();
  return t;
}

template <class LL>
void emu_run(const std::vector<gpu::LayerKey>& keys, uint64_t unit0, uint8_t* data, size_t nunits) {
  dev::Params<LL::n> p{};
  p.data = reinterpret_cast<uint4*>(data);
  p.unit0 = unit0;
  p.nunits = nunits;
  p.tabs = emu_tables().data();
  REQUIRE(keys.size() == size_t(LL::n));
  for (int i = 0; i < LL::n; ++i) p.key[i] = keys[i];
  emulate<LL>(p);
}

template <ChainId C>
void emu_chain(std::mt19937_64& rng) {
  INFO(chain_info(C).name);
  auto km = random_key(rng, C);
  EmuKeys k(C, km.data());
  XtsChain ref(C, km.data());
  const size_t n = 37;
  const uint64_t u0 = 0xFFFFFFFFull - 20;
  auto plain = random_bytes(rng, n * 512);
  auto a = plain, b = plain;
  emu_run<dev::EncOf<C>>(k.enc, u0, a.data(), n);
  ref.encrypt(u0, b.data(), n);
  CHECK(a == b);
  emu_run<dev::DecOf<C>>(k.dec, u0, a.data(), n);
  CHECK(a == plain);
}

template <ChainId A, ChainId B>
void emu_reenc(std::mt19937_64& rng) {
  INFO(chain_info(A).name << " -> " << chain_info(B).name);
  auto ka = random_key(rng, A), kb = random_key(rng, B);
  EmuKeys ea(A, ka.data()), eb(B, kb.data());
  std::vector<gpu::LayerKey> keys = ea.dec;
  keys.insert(keys.end(), eb.enc.begin(), eb.enc.end());
  auto x = random_bytes(rng, 33 * 512), y = x;
  emu_run<dev::ReencOf<A, B>>(keys, 12345, x.data(), 33);
  XtsChain(A, ka.data()).decrypt(12345, y.data(), 33);
  XtsChain(B, kb.data()).encrypt(12345, y.data(), 33);
  CHECK(x == y);
}

}  // namespace

TEST_CASE("GPU copy crew: parallel staging copies are exact, back to back and from several crews (no device needed)",
          "[gpu][copy]") {
  std::mt19937_64 rng(99);
  gpu::CopyCrew a(3), b(2), none(0);
  auto copy = [](uint8_t* d, const uint8_t* s, size_t n) { std::memcpy(d, s, n); };
  for (int round = 0; round < 150; ++round) {
    const size_t n = 1 + rng() % (2 << 20);
    const size_t piece = size_t(1) << (8 + rng() % 12);
    std::vector<uint8_t> src(n), d1(n + 1, 0xEE), d2(n + 1, 0xEE), d3(n + 1, 0xEE);
    for (auto& x : src) x = uint8_t(rng());
    std::thread other([&] { b.copy(d2.data(), src.data(), n, piece, copy); });
    a.copy(d1.data(), src.data(), n, piece, copy);
    none.copy(d3.data(), src.data(), n, piece, copy);
    other.join();
    INFO("round " << round << ": " << n << " bytes in pieces of " << piece);
    REQUIRE(std::memcmp(d1.data(), src.data(), n) == 0);
    REQUIRE(std::memcmp(d2.data(), src.data(), n) == 0);
    REQUIRE(std::memcmp(d3.data(), src.data(), n) == 0);
    REQUIRE(d1[n] == 0xEE);  // nothing past the end
    REQUIRE(d2[n] == 0xEE);
    if (round % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // helpers go to sleep
  }
}

TEST_CASE("GPU kernels emulated on the host match XtsChain (no device needed)", "[gpu][emulation]") {
  std::mt19937_64 rng(1234);
  emu_chain<ChainId::Aes>(rng);
  emu_chain<ChainId::Serpent>(rng);
  emu_chain<ChainId::Twofish>(rng);
  emu_chain<ChainId::Camellia>(rng);
  emu_chain<ChainId::Kuznyechik>(rng);
  emu_chain<ChainId::AesTwofish>(rng);
  emu_chain<ChainId::AesTwofishSerpent>(rng);
  emu_chain<ChainId::SerpentAes>(rng);
  emu_chain<ChainId::SerpentTwofishAes>(rng);
  emu_chain<ChainId::TwofishSerpent>(rng);
  emu_chain<ChainId::CamelliaKuznyechik>(rng);
  emu_chain<ChainId::KuznyechikTwofish>(rng);
  emu_chain<ChainId::CamelliaSerpent>(rng);
  emu_chain<ChainId::KuznyechikAes>(rng);
  emu_chain<ChainId::KuznyechikSerpentCamellia>(rng);
  // Re-encryption layer lists with the largest shared-memory plans (two keyed Twofish layers, AES both ways).
  emu_reenc<ChainId::AesTwofishSerpent, ChainId::SerpentTwofishAes>(rng);
  emu_reenc<ChainId::KuznyechikAes, ChainId::KuznyechikTwofish>(rng);
  emu_reenc<ChainId::Twofish, ChainId::Twofish>(rng);
  emu_reenc<ChainId::KuznyechikSerpentCamellia, ChainId::Aes>(rng);
}
#pragma GCC pop_options

TEST_CASE("GPU unit hash emulated on the host equals XXH3-128 (no device needed)", "[gpu][emulation]") {
  std::mt19937_64 rng(77);
  const size_t n = 257;
  auto data = random_bytes(rng, n * 512);
  std::memset(data.data(), 0, 512);              // zeros
  std::memset(data.data() + 512, 0xFF, 512);     // all ones: every carry of the accumulators
  constexpr gpu::UnitXxh3Keys keys = gpu::unit_xxh3_keys();
  std::vector<uint8_t> got(n * 16), want(n * 16);
  for (size_t i = 0; i < n; ++i) {
    alignas(8) uint64_t unit[64];
    std::memcpy(unit, data.data() + i * 512, 512);
    gpu::unit_xxh3(unit, keys, got.data() + i * 16);
  }
  xxh3_128_units(data.data(), n, want.data());
  CHECK(got == want);
}

#else  // no CUDA compiler at build time

TEST_CASE("GPU engine not built", "[gpu]") { WARN("GPU engine not built (no CUDA compiler): GPU tests skipped"); }

#endif

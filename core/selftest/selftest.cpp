#include "core/selftest/selftest.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "core/crypto/chain.h"
#include "core/crypto/cipher.h"
#include "core/crypto/cpu_features.h"
#include "core/crypto/xts.h"
#include "core/engine/cpu_engine.h"
#include "core/format/header.h"
#include "core/kdf/keyfiles.h"
#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace warpvol::selftest {
namespace {

#include "core/selftest/selftest_vectors.inc"

using Bytes = std::vector<uint8_t>;

Bytes hx(const char* s) { return from_hex(s ? s : ""); }

// Collects the outcome of one self-test line: counts passing checks, keeps the first failure.
class Check {
 public:
  void expect(bool ok, const std::string& what) {
    if (ok) {
      ++passed_;
    } else if (failure_.empty()) {
      failure_ = what;
    }
  }
  void expect_eq(const uint8_t* got, const Bytes& want, const std::string& what) {
    bool ok = std::memcmp(got, want.data(), want.size()) == 0;
    expect(ok, ok ? what : what + ": got " + to_hex(got, want.size()).substr(0, 32) + "..., want " +
                               to_hex(want).substr(0, 32) + "...");
  }
  void expect_eq(const Bytes& got, const Bytes& want, const std::string& what) {
    if (got.size() != want.size()) {
      expect(false, what + ": length " + std::to_string(got.size()) + ", want " + std::to_string(want.size()));
      return;
    }
    expect_eq(got.data(), want, what);
  }
  void expect_crc(const uint8_t* p, size_t n, uint32_t want, const std::string& what) {
    uint32_t got = crc32(p, n);
    char buf[64];
    std::snprintf(buf, sizeof buf, ": CRC 0x%08x, want 0x%08x", got, want);
    expect(got == want, what + buf);
  }
  bool ok() const { return failure_.empty() && passed_ > 0; }
  int passed() const { return passed_; }
  const std::string& failure() const { return failure_; }

 private:
  int passed_ = 0;
  std::string failure_;
};

// The CPU paths to check: every level from portable up to the active one (WARPVOL_CPU_PATH lowers it).
std::vector<IsaLevel> levels_to_test() {
  std::vector<IsaLevel> out;
  for (int l = 0; l <= static_cast<int>(active_isa()); ++l) out.push_back(static_cast<IsaLevel>(l));
  return out;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// ---- tests ----------------------------------------------------------------------------------------------------------

std::string test_crc32(Check& c) {
  Bytes table(1024);
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t v = crc32_step(0, uint8_t(i));
    for (int k = 0; k < 4; ++k) table[4 * i + k] = uint8_t(v >> (8 * k));
  }
  c.expect_crc(table.data(), table.size(), kCrcTableCrc, "CRC of the CRC table");
  Bytes unit = hx(kCascadeUnit);
  Bytes four;
  for (int i = 0; i < 4; ++i) four.insert(four.end(), unit.begin(), unit.end());
  c.expect_crc(four.data(), four.size(), kCrcXtsPlainCrc, "CRC of 4 XTS plaintext units");
  Bytes in = hx(kCrcBytesInput);
  c.expect_crc(in.data(), in.size(), kCrcBytesCrc, "CRC of bytes 00..1f");
  return "3 vectors (VeraCrypt Crc.c)";
}

std::string test_cipher(Check& c, CipherId id) {
  std::set<std::string> sources;
  int n = 0;
  for (const auto& v : kEcbVectors) {
    if (v.cipher != id) continue;
    Bytes key = hx(v.key), pt = hx(v.pt), ct = hx(v.ct);
    auto bc = make_block_cipher(id, key.data());
    Bytes buf(pt.size());
    bc->encrypt(pt.data(), buf.data(), pt.size() / kBlockSize);
    c.expect_eq(buf, ct, "vector " + std::to_string(n) + " encrypt");
    bc->decrypt(buf.data(), buf.data(), buf.size() / kBlockSize);
    c.expect_eq(buf, pt, "vector " + std::to_string(n) + " decrypt");
    sources.insert(std::string(v.source).substr(0, std::string(v.source).find(' ')));
    ++n;
  }
  std::string extra;
  if (id == CipherId::Aes) {
    Bytes key = hx(kAesBulkKey), buf(1024);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = uint8_t(i);
    auto bc = make_block_cipher(id, key.data());
    bc->encrypt(buf.data(), buf.data(), buf.size() / kBlockSize);
    c.expect_crc(buf.data(), buf.size(), kAesBulkCrc, "bulk ECB CRC");
    extra = " + bulk CRC";
  }
  return std::to_string(n) + " vectors" + extra + " (" + join(sources) + ")";
}

std::string test_xts_aes(Check& c) {
  std::set<std::string> impls;
  for (const auto& v : kXtsAesVectors) {
    Bytes k1 = hx(v.key1), k2 = hx(v.key2), pt = hx(v.pt), ct = hx(v.ct);
    std::vector<std::unique_ptr<XtsCipher>> xs;
    xs.push_back(make_xts_portable(CipherId::Aes, k1.data(), k2.data()));
    for (IsaLevel l : levels_to_test()) xs.push_back(make_xts(CipherId::Aes, k1.data(), k2.data(), l));
    for (const auto& x : xs) {
      std::string who = std::string(v.name) + " [" + std::string(x->impl_name()) + "]";
      impls.insert(std::string(x->impl_name()));
      Bytes buf = pt;
      x->encrypt(v.unit, buf.data(), 1);
      c.expect_eq(buf, ct, who + " encrypt");
      x->decrypt(v.unit, buf.data(), 1);
      c.expect_eq(buf, pt, who + " decrypt");
    }
  }
  return "IEEE 1619 vectors 10-14 on " + join(impls);
}

std::string test_chain(Check& c, const CascadeVector& v) {
  auto id = parse_chain(v.ea);
  if (!id) throw std::runtime_error(std::string("unknown chain name ") + v.ea);
  const ChainInfo& info = chain_info(*id);
  const size_t K = info.key_size();
  Bytes key1 = hx(kCascadeKey1), key2 = hx(kCascadeKey2);
  Bytes keymat(2 * K);
  std::memcpy(keymat.data(), key1.data(), K);
  std::memcpy(keymat.data() + K, key2.data(), K);
  Bytes unit = hx(kCascadeUnit), plain;
  for (int i = 0; i < 4; ++i) plain.insert(plain.end(), unit.begin(), unit.end());

  std::set<std::string> impls;
  auto run_one = [&](const std::string& who, const std::function<void(Direction, uint64_t, uint8_t*, size_t)>& fn) {
    for (int cs = 0; cs < 4; ++cs) {
      Bytes buf = plain;
      uint64_t u0 = 0xFFFFFFFFFFull - uint64_t(cs);
      fn(Direction::Encrypt, u0, buf.data(), 4);
      c.expect_crc(buf.data(), buf.size(), v.unit_crc[cs], who + " case " + std::to_string(cs));
      fn(Direction::Decrypt, u0, buf.data(), 4);
      c.expect_crc(buf.data(), buf.size(), kCascadePlainCrc, who + " case " + std::to_string(cs) + " decrypt");
    }
    Bytes buf = plain;
    fn(Direction::Encrypt, 0, buf.data(), 4);
    c.expect_crc(buf.data(), buf.size(), v.buffer_crc, who + " buffer from unit 0");
    fn(Direction::Decrypt, 0, buf.data(), 4);
    c.expect_crc(buf.data(), buf.size(), kCascadePlainCrc, who + " buffer decrypt");
  };
  for (IsaLevel l : levels_to_test()) {
    XtsChain chain(*id, keymat.data(), l);
    std::string who = std::string(isa_name(l)) + " path (" + chain.impl_names() + ")";
    impls.insert(chain.impl_names());
    run_one(who, [&](Direction d, uint64_t u0, uint8_t* p, size_t n) { chain.process(d, u0, p, n); });
  }
  // The multi-threaded engine that export/mount use, on the active path.
  {
    CpuEngine engine(0);
    auto key = engine.prepare(*id, keymat.data());
    run_one("cpu engine", [&](Direction d, uint64_t u0, uint8_t* p, size_t n) { engine.process(*key, d, u0, p, n); });
  }
  // Header encryption (448 bytes of unit 0, reference ciphers) must equal the first 448 bytes of the data path.
  {
    Bytes hdr(plain.begin(), plain.begin() + 448), full(plain.begin(), plain.begin() + 512);
    chain_header_crypt(*id, keymat.data(), Direction::Encrypt, hdr.data());
    XtsChain(*id, keymat.data(), IsaLevel::Portable).encrypt(0, full.data(), 1);
    c.expect(std::memcmp(hdr.data(), full.data(), 448) == 0, "header encryption differs from unit-0 XTS");
    chain_header_crypt(*id, keymat.data(), Direction::Decrypt, hdr.data());
    c.expect(std::memcmp(hdr.data(), plain.data(), 448) == 0, "header decryption does not restore");
  }
  return "4 unit cases + buffer (VeraCrypt Tests.c CRCs) on " + join(impls) + ", cpu engine, header crypt";
}

std::string test_hash(Check& c, PrfId prf) {
  int n = 0;
  std::set<std::string> sources;
  for (const auto& v : kHashVectors) {
    if (v.prf != prf) continue;
    Bytes in = hx(v.input);
    c.expect_eq(hash_bytes(prf, in.data(), in.size()), hx(v.digest), "vector " + std::to_string(n));
    sources.insert(std::string(v.source).substr(0, std::string(v.source).find(' ')));
    ++n;
  }
  return std::to_string(n) + " vectors (" + join(sources) + ")";
}

std::string test_hmac(Check& c, PrfId prf) {
  int n = 0;
  std::set<std::string> sources;
  for (const auto& v : kHmacVectors) {
    if (v.prf != prf) continue;
    Bytes key = hx(v.key), data = hx(v.data), mac = hx(v.mac);
    Bytes got = hmac_bytes(prf, key.data(), key.size(), data.data(), data.size());
    if (got.size() > mac.size()) got.resize(mac.size());  // RFC 4231 case 5 style truncation, if present
    c.expect_eq(got, mac, "vector " + std::to_string(n));
    sources.insert(std::string(v.source).substr(0, std::string(v.source).find(' ')));
    ++n;
  }
  return std::to_string(n) + " vectors (" + join(sources) + ")";
}

std::string test_pbkdf2(Check& c, PrfId prf) {
  int n = 0;
  uint32_t max_iter = 0;
  std::set<std::string> sources;
  for (const auto& v : kPbkdf2Vectors) {
    if (v.prf != prf) continue;
    Bytes pw = hx(v.password), salt = hx(v.salt), dk = hx(v.dk), out(dk.size());
    pbkdf2(prf, pw.data(), pw.size(), salt.data(), salt.size(), v.iterations, out.data(), out.size());
    c.expect_eq(out, dk, "vector " + std::to_string(n));
    // One block at a time must give the same bytes (opening derives only the blocks a chain needs).
    const size_t ds = prf_info(prf).digest_size;
    Bytes blk(ds);
    for (uint32_t b = 1; (b - 1) * ds < dk.size(); ++b) {
      pbkdf2_block(prf, pw.data(), pw.size(), salt.data(), salt.size(), v.iterations, b, blk.data());
      size_t len = std::min(ds, dk.size() - (b - 1) * ds);
      c.expect(std::memcmp(blk.data(), dk.data() + (b - 1) * ds, len) == 0,
               "vector " + std::to_string(n) + " block " + std::to_string(b));
    }
    max_iter = std::max(max_iter, v.iterations);
    sources.insert(v.source);
    ++n;
  }
  return std::to_string(n) + " vectors, up to " + std::to_string(max_iter) + " iterations, per-block too (" +
         join(sources) + ")";
}

std::string test_iterations(Check& c) {
  const auto VC = VolumeFormat::VeraCrypt, TC = VolumeFormat::TrueCrypt;
  struct Row { PrfId prf; VolumeFormat fmt; int pim; bool system; uint32_t want; };
  // docs/format-spec.md §5.2.
  const Row rows[] = {
      {PrfId::Sha512, VC, 0, false, 500000},    {PrfId::Sha256, VC, 0, false, 500000},
      {PrfId::Blake2s, VC, 0, false, 500000},   {PrfId::Whirlpool, VC, 0, false, 500000},
      {PrfId::Streebog, VC, 0, false, 500000},  {PrfId::Sha512, VC, 7, false, 22000},
      {PrfId::Sha256, VC, 485, false, 500000},  {PrfId::Streebog, VC, 1, false, 16000},
      {PrfId::Sha256, VC, 0, true, 200000},     {PrfId::Blake2s, VC, 0, true, 200000},
      {PrfId::Sha256, VC, 98, true, 200704},    {PrfId::Blake2s, VC, 10, true, 20480},
      {PrfId::Sha512, VC, 0, true, 500000},     {PrfId::Sha512, VC, 5, true, 20000},
      {PrfId::Whirlpool, VC, 0, true, 500000},  {PrfId::Sha512, TC, 0, false, 1000},
      {PrfId::Whirlpool, TC, 0, false, 1000},   {PrfId::Ripemd160, TC, 0, false, 2000},
      {PrfId::Sha1, TC, 0, false, 2000},        {PrfId::Ripemd160, TC, 0, true, 1000},
      {PrfId::Sha256, TC, 0, false, 0},         {PrfId::Sha512, TC, 5, false, 0},
  };
  for (const auto& r : rows) {
    uint32_t got = pbkdf2_iterations(r.prf, r.fmt, r.pim, r.system);
    c.expect(got == r.want, std::string(prf_info(r.prf).name) + (r.fmt == VC ? " VeraCrypt" : " TrueCrypt") +
                                (r.system ? " system" : "") + " PIM " + std::to_string(r.pim) + ": " +
                                std::to_string(got) + " iterations, want " + std::to_string(r.want));
  }
  for (const auto& v : kArgon2PimVectors) {
    Argon2Params p = argon2_params(v.pim);
    c.expect(p.t_cost == v.t_cost && p.m_cost_kib == v.m_cost_kib,
             "Argon2id PIM " + std::to_string(v.pim) + ": t=" + std::to_string(p.t_cost) + " m=" +
                 std::to_string(p.m_cost_kib) + " KiB, want t=" + std::to_string(v.t_cost) + " m=" +
                 std::to_string(v.m_cost_kib));
  }
  return std::to_string(std::size(rows)) + " PBKDF2 counts (VeraCrypt/TrueCrypt, normal/system, PIM) + " +
         std::to_string(std::size(kArgon2PimVectors)) + " Argon2id PIM mappings";
}

std::string test_argon2(Check& c) {
  int n = 0;
  for (const auto& v : kArgon2Vectors) {
    Bytes pw = hx(v.password), salt = hx(v.salt), tag = hx(v.tag), out(tag.size());
    argon2id(pw.data(), pw.size(), salt.data(), salt.size(), Argon2Params{v.t_cost, v.m_cost_kib}, out.data(),
             out.size());
    c.expect_eq(out, tag, std::string("t=") + std::to_string(v.t_cost) + " m=" + std::to_string(v.m_cost_kib) +
                              " (" + v.source + ")");
    ++n;
  }
  return std::to_string(n) + " vectors, one lane (Argon2 selftest.c, cryptsetup, VeraCrypt 192-byte header key)";
}

Bytes keyfile_content(const char* spec) {
  std::string s(spec);
  if (s.rfind("zeros1:", 0) == 0) {
    Bytes b(std::stoul(s.substr(7)), 0);
    b.push_back(1);
    return b;
  }
  if (s.rfind("zeros:", 0) == 0) return Bytes(std::stoul(s.substr(6)), 0);
  return hx(spec);
}

std::string test_keyfiles(Check& c) {
  // In memory: the pool itself.
  int n = 0;
  for (const auto& v : kKeyfileVectors) {
    Bytes pw = hx(v.password), want = hx(v.kdf_input);
    Bytes pool(v.pool_size, 0);
    for (const char* kf : v.keyfiles) {
      if (!kf) continue;
      Bytes data = keyfile_content(kf);
      keyfile_pool_add(pool.data(), pool.size(), data.data(), data.size());
    }
    Bytes mixed = pool;
    for (size_t i = 0; i < pw.size(); ++i) mixed[i] = uint8_t(mixed[i] + pw[i]);
    c.expect_eq(mixed, want, std::string("pool: ") + v.name);
    ++n;
  }
  // Through files, as a user's keyfiles are read (apply_keyfiles: file reading, pool size choice, mixing).
  char tmpl[] = "/tmp/warpvol-selftest-XXXXXX";
  const char* env_tmp = std::getenv("TMPDIR");
  std::string dir_tmpl = std::string(env_tmp && *env_tmp ? env_tmp : "/tmp") + "/warpvol-selftest-XXXXXX";
  std::vector<char> buf(dir_tmpl.begin(), dir_tmpl.end());
  buf.push_back('\0');
  char* dir = mkdtemp(buf.data());
  if (!dir) dir = mkdtemp(tmpl);
  if (!dir) throw Error(ErrorKind::Io, "cannot create a temporary folder for the keyfile test");
  std::filesystem::path root(dir);
  int m = 0;
  try {
    for (const auto& v : kKeyfileVectors) {
      std::vector<std::string> paths;
      int k = 0;
      for (const char* kf : v.keyfiles) {
        if (!kf) continue;
        Bytes data = keyfile_content(kf);
        std::string p = (root / ("kf" + std::to_string(m) + "_" + std::to_string(k++))).string();
        FILE* f = std::fopen(p.c_str(), "wb");
        if (!f || std::fwrite(data.data(), 1, data.size(), f) != data.size()) {
          if (f) std::fclose(f);
          throw Error(ErrorKind::Io, "cannot write " + p);
        }
        std::fclose(f);
        paths.push_back(p);
      }
      Bytes pw = hx(v.password);
      LockedBytes password(pw.data(), pw.size());
      LockedBytes out = apply_keyfiles(password, paths, false);
      c.expect_eq(Bytes(out.data(), out.data() + out.size()), hx(v.kdf_input), std::string("files: ") + v.name);
      ++m;
    }
  } catch (...) {
    std::filesystem::remove_all(root);
    throw;
  }
  std::filesystem::remove_all(root);
  return std::to_string(n) + " pool vectors in memory + " + std::to_string(m) +
         " through keyfiles on disk (keyfiles_selfcomputed.json)";
}

std::string test_headers(Check& c) {
  int n = 0;
  for (const auto& v : kHeaderVectors) {
    auto id = parse_chain(v.ea);
    if (!id) throw std::runtime_error(std::string("unknown chain name ") + v.ea);
    Bytes hdr = hx(v.header), key = hx(v.header_key), plain = hx(v.plain_64_511);
    decrypt_header(*id, key.data(), hdr.data());
    const std::string who = v.name;
    c.expect_eq(hdr.data() + 64, plain, who + " decrypted bytes 64..511");
    c.expect(check_header(hdr.data(), v.magic) == HeaderCheck::Ok, who + " header check");
    HeaderFields f = parse_header(hdr.data());
    c.expect(f.magic == v.magic && f.version == v.version && f.required_version == v.required_version,
             who + " magic/version fields");
    c.expect(f.volume_size == v.volume_size && f.encrypted_area_start == v.area_start &&
                 f.encrypted_area_length == v.area_length && f.sector_size == v.sector_size,
             who + " size/offset fields");
    Bytes mkp = hx(v.mk_primary), mks = hx(v.mk_secondary);
    c.expect(std::memcmp(f.key_area.data(), mkp.data(), mkp.size()) == 0 &&
                 std::memcmp(f.key_area.data() + mkp.size(), mks.data(), mks.size()) == 0,
             who + " master key");
    // First data sector with the master key (unit number = byte offset / 512).
    Bytes mk = mkp;
    mk.insert(mk.end(), mks.begin(), mks.end());
    Bytes sector = hx(v.sector_ct);
    XtsChain(*id, mk.data()).decrypt(v.unit, sector.data(), sector.size() / kDataUnitSize);
    c.expect_eq(sector, hx(v.sector_pt), who + " first data sector");
    // Re-encrypting the parsed fields gives the same ciphertext (serialize + encrypt round trip).
    Bytes again(hdr.begin(), hdr.end());
    serialize_header(f, again.data());
    c.expect_eq(Bytes(again.begin() + 64, again.end()), plain, who + " serialize");
    encrypt_header(*id, key.data(), again.data());
    c.expect_eq(again, hx(v.header), who + " re-encrypt");
    ++n;
  }
  return std::to_string(n) + " headers of tc-play test containers (VeraCrypt and TrueCrypt): decrypt, fields, "
         "master key, first sector, re-encrypt";
}

}  // namespace

std::vector<Result> run_all(const std::function<void(const Result&)>& on_result) {
  std::vector<Result> results;
  auto run = [&](const std::string& name, const std::function<std::string(Check&)>& fn) {
    Result r;
    r.name = name;
    Check c;
    auto t0 = std::chrono::steady_clock::now();
    try {
      std::string covered = fn(c);
      r.ok = c.ok();
      r.detail = c.failure().empty() ? (c.passed() ? covered : "no vectors ran") : c.failure();
    } catch (const std::exception& e) {
      r.ok = false;
      r.detail = std::string("exception: ") + e.what();
    }
    r.cases = c.passed();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (on_result) on_result(r);
    results.push_back(std::move(r));
  };

  run("CRC-32", test_crc32);
  for (CipherId id : {CipherId::Aes, CipherId::Serpent, CipherId::Twofish, CipherId::Camellia, CipherId::Kuznyechik})
    run(std::string(cipher_name(id)) + "-256 block cipher", [id](Check& c) { return test_cipher(c, id); });
  run("XTS-AES-256", test_xts_aes);
  // Chains in VeraCrypt's order.
  for (const ChainInfo& ci : all_chains()) {
    const CascadeVector* vec = nullptr;
    for (const auto& v : kCascadeVectors)
      if (parse_chain(v.ea) == ci.id) vec = &v;
    run("XTS chain " + std::string(ci.name), [vec, &ci](Check& c) -> std::string {
      if (!vec) throw std::runtime_error("no vector for chain " + std::string(ci.name));
      return test_chain(c, *vec);
    });
  }
  const PrfId hashes[] = {PrfId::Sha512, PrfId::Sha256, PrfId::Blake2s, PrfId::Whirlpool, PrfId::Streebog,
                          PrfId::Ripemd160};
  for (PrfId p : hashes) run(std::string(prf_info(p).name) + " hash", [p](Check& c) { return test_hash(c, p); });
  const PrfId macs[] = {PrfId::Sha512, PrfId::Sha256, PrfId::Blake2s, PrfId::Whirlpool, PrfId::Streebog,
                        PrfId::Ripemd160, PrfId::Sha1};
  for (PrfId p : macs) run("HMAC-" + std::string(prf_info(p).name), [p](Check& c) { return test_hmac(c, p); });
  for (PrfId p : macs)
    run("PBKDF2-HMAC-" + std::string(prf_info(p).name), [p](Check& c) { return test_pbkdf2(c, p); });
  run("Iteration counts and PIM", test_iterations);
  run("Argon2id", test_argon2);
  run("Keyfile pool", test_keyfiles);
  run("Volume header", test_headers);
  return results;
}

}  // namespace warpvol::selftest

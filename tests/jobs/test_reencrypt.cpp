// Re-encryption (core/reencrypt): chain, PRF, PIM and credential changes on generated containers and on the real
// VeraCrypt 1.26.27 containers of testvectors/veracrypt (their data-area sha256 from the manifest must survive),
// hidden volumes, TrueCrypt -> VeraCrypt, the half-re-encrypted marker, batches.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/crypto/chain.h"
#include "core/io/memory_fs.h"
#include "core/kdf/prf.h"
#include "core/reencrypt/batch.h"
#include "core/reencrypt/marker.h"
#include "core/util/error.h"
#include "tests/support/reencrypt_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using namespace warpvol::reenc;
using namespace rtest;
using json = nlohmann::json;

namespace {

constexpr uint64_t kKiB = 1024;

VolumeRequest request(const std::string& path, const Credentials& old_c, std::optional<PrfId> prf = PrfId::Sha512) {
  VolumeRequest r;
  r.path = path;
  r.open = open_opts(old_c, prf);
  r.no_hidden_volume = true;
  return r;
}

bool journal_exists(const std::string& path) { return std::filesystem::exists(journal_path_for(path)); }

// The header the options open must be an ordinary, finished VeraCrypt header.
void check_final_header(const OpenedHeader& h, ChainId chain, PrfId prf) {
  CHECK(h.format == VolumeFormat::VeraCrypt);
  CHECK(h.fields.magic == kMagicVera);
  CHECK(h.fields.version == 5);
  CHECK(h.fields.required_version == kVeraRequiredVersion);
  CHECK(h.chain == chain);
  CHECK(h.kdf.prf == prf);
  CHECK(!h.from_backup);
}

// Both embedded headers (primary and backup) open with the credentials and agree.
void check_both_headers(const std::string& path, const OpenOptions& o) {
  OpenOptions b = o;
  b.backup_only = true;
  OpenedHeader p = header_of(path, o), k = header_of(path, b);
  CHECK(k.from_backup);
  CHECK(std::memcmp(p.fields.key_area.data(), k.fields.key_area.data(), 256) == 0);
  CHECK(p.fields.required_version == k.fields.required_version);
}

const json& manifest() {
  static const json m = json::parse(wvtest::read_text(wvtest::vectors_dir() + "/veracrypt/MANIFEST.json"));
  return m;
}
const json& entry(const std::string& c) {
  for (const auto& f : manifest()["files"])
    if (f["case"] == c) return f;
  throw std::runtime_error("no manifest entry " + c);
}
Credentials manifest_creds(const json& e) {
  Credentials c = creds(e["password"].get<std::string>(), e["pim"].get<int>());
  for (const auto& k : e["keyfiles"]) c.keyfiles.push_back(wvtest::vectors_dir() + "/veracrypt/" + k.get<std::string>());
  return c;
}

}  // namespace

TEST_CASE("reencrypt: every single cipher and cascades as target, both resilience modes", "[reencrypt]") {
  wvtest::TempDir dir;
  const std::vector<std::pair<ChainId, ChainId>> cases = {
      {ChainId::SerpentTwofishAes, ChainId::Aes},   {ChainId::Aes, ChainId::Serpent},
      {ChainId::Serpent, ChainId::Twofish},         {ChainId::Twofish, ChainId::Camellia},
      {ChainId::Camellia, ChainId::Kuznyechik},     {ChainId::Kuznyechik, ChainId::AesTwofishSerpent},
      {ChainId::Aes, ChainId::KuznyechikSerpentCamellia}, {ChainId::CamelliaKuznyechik, ChainId::TwofishSerpent},
  };
  int k = 0;
  for (const auto& [from, to] : cases) {
    const Resilience res = k++ % 2 ? Resilience::Journal : Resilience::Checksum;
    INFO(chain_info(from).name << " -> " << chain_info(to).name << ", " << resilience_name(res));
    const std::string path = dir.file("c" + std::to_string(k) + ".hc");
    const auto plain = noise(600 * kKiB);  // not a multiple of the hot zone
    const Credentials c = creds("pw-" + std::to_string(k));
    make_container(path, plain, from, PrfId::Sha512, c);
    const OpenedHeader before = header_of(path, open_opts(c));
    VolumeRequest r = request(path, c);
    r.next.chain = to;
    const JobResult jr = reencrypt(r, job_options(res, 128 * kKiB));
    CHECK(jr.bytes == plain.size());
    CHECK_FALSE(journal_exists(path));
    const OpenedHeader after = header_of(path, open_opts(c));
    check_final_header(after, to, PrfId::Sha512);
    CHECK(std::memcmp(before.fields.key_area.data(), after.fields.key_area.data(), 64) != 0);  // new master keys
    CHECK(sha256_hex(read_plain(path, open_opts(c))) == sha256_hex(plain));
    check_both_headers(path, open_opts(c));
  }
}

TEST_CASE("reencrypt: PRF, PIM, password and keyfile changes, old credentials stop working", "[reencrypt]") {
  wvtest::TempDir dir;
  const auto plain = noise(300 * kKiB);
  const std::string path = dir.file("v.hc");
  const Credentials old_c = creds("old password", 2);
  make_container(path, plain, ChainId::Aes, PrfId::Sha512, old_c);
  // keyfile for the new credentials
  const std::string kf = dir.file("new.key");
  {
    auto f = open_file(kf, OpenMode::CreateNew);
    auto b = noise(200);
    f->write_at(0, b.data(), b.size());
  }
  SECTION("PRF only (keeps password and PIM)") {
    for (PrfId to : {PrfId::Whirlpool, PrfId::Sha256, PrfId::Blake2s, PrfId::Streebog}) {
      INFO(prf_info(to).name);
      const OpenedHeader cur = header_of(path, open_opts(old_c));
      VolumeRequest r = request(path, old_c, cur.kdf.prf);
      r.next.prf = to;
      reencrypt(r, job_options(Resilience::Checksum, 64 * kKiB));
      const OpenedHeader h = header_of(path, open_opts(old_c));
      check_final_header(h, ChainId::Aes, to);
      CHECK(h.kdf.iterations == 15000 + 1000 * 2);
      CHECK(sha256_hex(read_plain(path, open_opts(old_c))) == sha256_hex(plain));
    }
  }
  SECTION("Argon2id") {
    VolumeRequest r = request(path, old_c);
    r.next.prf = PrfId::Argon2id;
    r.next.pim = 1;  // t=3, m=64 MiB: quick
    reencrypt(r, job_options(Resilience::Journal, 64 * kKiB));
    Credentials nc = creds("old password", 1);
    OpenOptions o = open_opts(nc, PrfId::Argon2id);
    check_final_header(header_of(path, o), ChainId::Aes, PrfId::Argon2id);
    CHECK(sha256_hex(read_plain(path, o)) == sha256_hex(plain));
  }
  SECTION("password, PIM and keyfile") {
    VolumeRequest r = request(path, old_c);
    r.next.password = pw("a new password");
    r.next.pim = 3;
    r.next.keyfiles = std::vector<std::string>{kf};
    r.next.chain = ChainId::SerpentAes;
    reencrypt(r, job_options(Resilience::Checksum, 64 * kKiB));
    const Credentials nc = creds("a new password", 3, {kf});
    check_final_header(header_of(path, open_opts(nc)), ChainId::SerpentAes, PrfId::Sha512);
    CHECK(sha256_hex(read_plain(path, open_opts(nc))) == sha256_hex(plain));
    CHECK_THROWS_MATCHES(header_of(path, open_opts(old_c)), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Auth; }));
    CHECK_THROWS(header_of(path, open_opts(creds("a new password", 3))));  // keyfile missing
  }
  SECTION("a PRF VeraCrypt 1.26 no longer opens is refused as the new PRF") {
    VolumeRequest r = request(path, old_c);
    r.next.prf = PrfId::Ripemd160;
    const std::string before = file_sha256(path);
    CHECK_THROWS_AS(Job::prepare(r, job_options(Resilience::Checksum, 64 * kKiB)), Error);
    CHECK(file_sha256(path) == before);
  }
}

TEST_CASE("reencrypt: real VeraCrypt 1.26.27 containers keep their data (manifest sha256)", "[reencrypt][veracrypt]") {
  wvtest::TempDir dir;
  struct Case {
    const char* name;
    std::optional<ChainId> chain;
    std::optional<PrfId> prf;
    bool new_password;
  };
  const std::vector<Case> cases = {
      {"enc-aes", ChainId::SerpentTwofishAes, std::nullopt, false},
      {"enc-kuznyechik-serpent-camellia", ChainId::Aes, std::nullopt, false},
      {"hash-whirlpool", std::nullopt, PrfId::Sha256, false},
      {"keyfile2", ChainId::Twofish, std::nullopt, true},
      {"sector4096", ChainId::Camellia, std::nullopt, false},
      {"pim7", std::nullopt, std::nullopt, true},
  };
  for (const Case& c : cases) {
    const json& e = entry(c.name);
    INFO("container " << c.name);
    const std::string path = dir.file(e["file"].get<std::string>());
    copy_file(wvtest::vectors_dir() + "/veracrypt/" + e["file"].get<std::string>(), path);
    const Credentials oc = manifest_creds(e);
    const PrfId old_prf = *parse_prf(e["hash"].get<std::string>());
    VolumeRequest r = request(path, oc, old_prf);
    r.next.chain = c.chain;
    r.next.prf = c.prf;
    Credentials nc = creds(e["password"].get<std::string>(), e["pim"].get<int>());
    nc.keyfiles = oc.keyfiles;
    if (c.new_password) {
      r.next.password = pw("new-" + std::string(c.name));
      r.next.keyfiles = std::vector<std::string>{};
      r.next.pim = 5;
      nc = creds("new-" + std::string(c.name), 5);
    }
    reencrypt(r, job_options(Resilience::Checksum, 64 * kKiB));
    const PrfId new_prf = c.prf.value_or(old_prf);
    const OpenedHeader h = header_of(path, open_opts(nc, new_prf));
    const ChainId want_chain = c.chain.value_or(*parse_chain(e["encryption"].get<std::string>()));
    check_final_header(h, want_chain, new_prf);
    CHECK(h.fields.sector_size == e["sector_size"].get<uint32_t>());
    CHECK(h.data_offset == e["data_area_offset"].get<uint64_t>());
    CHECK(h.data_size == e["decrypted_data_area_size"].get<uint64_t>());
    const auto data = read_plain(path, open_opts(nc, new_prf));
    CHECK(sha256_hex(data) == e["decrypted_data_area_sha256"].get<std::string>());
    CHECK(file_sha256(path) != e["container_sha256"].get<std::string>());
  }
}

TEST_CASE("reencrypt: VeraCrypt outer + hidden container, both credentials", "[reencrypt][veracrypt][hidden]") {
  wvtest::TempDir dir;
  const json& eo = entry("outer");
  const json& eh = entry("hidden");
  const std::string path = dir.file("outer-hidden.hc");
  copy_file(wvtest::vectors_dir() + "/veracrypt/outer-hidden.hc", path);
  const Credentials oc = manifest_creds(eo), hc = manifest_creds(eh);
  OpenOptions ho = open_opts(hc, PrfId::Sha512);
  ho.slot = SlotKind::Hidden;
  const auto outer_before = read_plain(path, open_opts(oc, PrfId::Sha512));
  CHECK(sha256_hex(outer_before) == eo["decrypted_data_area_sha256"].get<std::string>());

  SECTION("outer alone without --no-hidden-volume: refused, nothing written") {
    VolumeRequest r = request(path, oc);
    r.no_hidden_volume = false;
    const std::string before = file_sha256(path);
    CHECK_THROWS_MATCHES(Job::prepare(r, job_options(Resilience::Checksum, 64 * kKiB)), Error,
                         Catch::Predicate<Error>([](const Error& e) {
                           return e.kind() == ErrorKind::Usage &&
                                  std::string(e.what()).find("hidden volume") != std::string::npos;
                         }));
    CHECK(file_sha256(path) == before);
    CHECK_FALSE(journal_exists(path));
  }
  SECTION("outer and hidden together") {
    VolumeRequest r = request(path, oc);
    r.no_hidden_volume = false;
    r.hidden = ho;
    r.next.chain = ChainId::Serpent;
    r.next.password = pw("new outer password");
    reencrypt(r, job_options(Resilience::Journal, 64 * kKiB));
    const Credentials noc = creds("new outer password", 0);
    const auto outer_after = read_plain(path, open_opts(noc, PrfId::Sha512));
    // The outer volume's own data (outside the hidden range) and the hidden volume are intact.
    const OpenedHeader hh = header_of(path, ho);
    check_final_header(hh, ChainId::Serpent, PrfId::Sha512);
    CHECK(hh.slot == SlotKind::Hidden);
    const auto hidden_after = read_plain(path, ho);
    CHECK(sha256_hex(hidden_after) == eh["decrypted_data_area_sha256"].get<std::string>());
    const uint64_t hid_rel = hh.data_offset - kDataOffsetV2;
    REQUIRE(outer_after.size() == outer_before.size());
    CHECK(std::equal(outer_after.begin(), outer_after.begin() + long(hid_rel), outer_before.begin()));
    CHECK(std::equal(outer_after.begin() + long(hid_rel + hh.data_size), outer_after.end(),
                     outer_before.begin() + long(hid_rel + hh.data_size)));
  }
  SECTION("the hidden volume alone; the outer volume's data and headers stay") {
    const std::string outer_hdr_before = sha256_hex(read_plain(path, open_opts(oc, PrfId::Sha512)));
    auto f0 = open_file(path, OpenMode::ReadOnly);
    std::vector<uint8_t> h0(512);
    f0->read_at(0, h0.data(), 512);
    f0.reset();
    VolumeRequest r;
    r.path = path;
    r.open = ho;
    r.next.chain = ChainId::TwofishSerpent;
    reencrypt(r, job_options(Resilience::Checksum, 64 * kKiB));
    check_final_header(header_of(path, ho), ChainId::TwofishSerpent, PrfId::Sha512);
    CHECK(sha256_hex(read_plain(path, ho)) == eh["decrypted_data_area_sha256"].get<std::string>());
    // Outer: its view of everything outside the hidden range is unchanged, and its header bytes too.
    const auto outer_after = read_plain(path, open_opts(oc, PrfId::Sha512));
    const OpenedHeader hh = header_of(path, ho);
    const uint64_t hid_rel = hh.data_offset - kDataOffsetV2;
    CHECK(std::equal(outer_after.begin(), outer_after.begin() + long(hid_rel), outer_before.begin()));
    auto f1 = open_file(path, OpenMode::ReadOnly);
    std::vector<uint8_t> h1(512);
    f1->read_at(0, h1.data(), 512);
    CHECK(h0 == h1);
    (void)outer_hdr_before;
  }
  SECTION("hidden credentials that do not open the hidden volume: refused, nothing written") {
    VolumeRequest r = request(path, oc);
    r.no_hidden_volume = false;
    OpenOptions wrong = ho;
    wrong.credentials.password = pw("not the hidden password");
    r.hidden = wrong;
    const std::string before = file_sha256(path);
    CHECK_THROWS_AS(Job::prepare(r, job_options(Resilience::Checksum, 64 * kKiB)), Error);
    CHECK(file_sha256(path) == before);
  }
}

TEST_CASE("reencrypt: generated outer + hidden volume, both re-encrypted, different chains", "[reencrypt][hidden]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("oh.hc");
  const Credentials oc = creds("outer"), hc = creds("hidden");
  make_container(path, noise(3 * 1024 * kKiB), ChainId::Aes, PrfId::Sha512, oc);
  const uint64_t S = 1024 * kKiB;
  const HiddenLayout l = hidden_layout(3 * 1024 * kKiB + 262144, S, 512);
  const auto hidden_plain = noise(size_t(l.data_size));
  add_hidden_volume(path, S, hidden_plain, ChainId::Serpent, hc);
  const auto outer_plain = read_plain(path, open_opts(oc));
  OpenOptions ho = open_opts(hc);
  ho.slot = SlotKind::Hidden;
  REQUIRE(sha256_hex(read_plain(path, ho)) == sha256_hex(hidden_plain));
  VolumeRequest r = request(path, oc);
  r.no_hidden_volume = false;
  r.hidden = ho;
  r.next.chain = ChainId::KuznyechikAes;
  reencrypt(r, job_options(Resilience::Checksum, 256 * kKiB));  // zones straddle the hidden range's edges
  CHECK(sha256_hex(read_plain(path, ho)) == sha256_hex(hidden_plain));
  const auto outer_after = read_plain(path, open_opts(oc));
  const uint64_t rel = l.data_start - kDataOffsetV2;
  CHECK(std::equal(outer_after.begin(), outer_after.begin() + long(rel), outer_plain.begin()));
  CHECK(std::equal(outer_after.begin() + long(rel + l.data_size), outer_after.end(),
                   outer_plain.begin() + long(rel + l.data_size)));
  check_final_header(header_of(path, ho), ChainId::KuznyechikAes, PrfId::Sha512);
  check_final_header(header_of(path, open_opts(oc)), ChainId::KuznyechikAes, PrfId::Sha512);
}

TEST_CASE("reencrypt: a TrueCrypt volume becomes a VeraCrypt volume", "[reencrypt][truecrypt]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("tc.tc");
  const auto plain = noise(256 * kKiB);
  const Credentials c = creds("truecrypt pw", 0);
  make_container(path, plain, ChainId::TwofishSerpent, PrfId::Ripemd160, c, VolumeFormat::TrueCrypt);
  OpenOptions o = open_opts(c, PrfId::Ripemd160);
  o.format = VolumeFormat::TrueCrypt;
  REQUIRE(header_of(path, o).format == VolumeFormat::TrueCrypt);
  VolumeRequest r;
  r.path = path;
  r.open = o;
  r.no_hidden_volume = true;
  r.next.pim = 1;
  reencrypt(r, job_options(Resilience::Checksum, 64 * kKiB));  // RIPEMD-160 -> SHA-512 by default
  const OpenOptions vo = open_opts(creds("truecrypt pw", 1), PrfId::Sha512);
  check_final_header(header_of(path, vo), ChainId::TwofishSerpent, PrfId::Sha512);
  CHECK(sha256_hex(read_plain(path, vo)) == sha256_hex(plain));
}

TEST_CASE("reencrypt: interrupted at a safe point, the container is refused until resumed", "[reencrypt]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("i.hc");
  const auto plain = noise(1024 * kKiB);
  const Credentials oc = creds("old"), nc = creds("new");
  make_container(path, plain, ChainId::Aes, PrfId::Sha512, oc);
  VolumeRequest r = request(path, oc);
  r.next.password = pw("new");
  r.next.chain = ChainId::Serpent;
  JobOptions jo = job_options(Resilience::Checksum, 64 * kKiB);
  // With two zones prepared ahead, the second waits for a commit that the stop never makes: it must be released.
  jo.zones_ahead = GENERATE(1u, 2u);
  int zones = 0;
  jo.cancel.requested = [&] { return ++zones >= 3; };
  auto job = Job::prepare(r, jo);
  CHECK_THROWS_MATCHES(job->run(), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Interrupted; }));
  job.reset();
  REQUIRE(journal_exists(path));
  // Both sets of credentials find a marked header and are refused with a pointer to --resume.
  for (const Credentials* c : {&oc, &nc}) {
    CHECK_THROWS_MATCHES(header_of(path, open_opts(*c)), Error, Catch::Predicate<Error>([](const Error& e) {
                           return e.kind() == ErrorKind::Format &&
                                  std::string(e.what()).find("reencrypt --resume") != std::string::npos;
                         }));
  }
  // The raw header fields carry the marker, which VeraCrypt reads as "required program version" 0xFE01 > 0x0126
  // (1.26) and refuses ("newer version required"): primary = old header, backup = new header.
  {
    auto f = open_file(path, OpenMode::ReadOnly);
    const uint64_t H = f->size();
    auto raw = [&](uint64_t off, const Credentials& c, ChainId chain) {
      EncryptedHeader h;
      f->read_at(off, h.data(), h.size());
      KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::VeraCrypt, c.pim);
      SecureBytes key(kHeaderKeyMaterial);
      derive_header_key(kdf, header_kdf_password(c, VolumeFormat::VeraCrypt), h.data(), key.data(),
                        2 * chain_info(chain).key_size());
      decrypt_header(chain, key.data(), h.data());
      REQUIRE(check_header(h.data(), kMagicVera) == HeaderCheck::Ok);
      return parse_header(h.data());
    };
    CHECK(raw(0, oc, ChainId::Aes).required_version == kReencryptMarkerVersion);
    CHECK(raw(H - kHeaderGroupSize, nc, ChainId::Serpent).required_version == kReencryptMarkerVersion);
    CHECK(kReencryptMarkerVersion > 0x0126);
    CHECK(kReencryptMarkerVersion > 0x071a);
  }
  // Resume (the same request) finishes it.
  JobOptions again = job_options(Resilience::Checksum, 64 * kKiB);
  auto job2 = Job::prepare(r, again);
  CHECK(job2->resuming());
  CHECK(job2->done_bytes() == 3 * 64 * kKiB);
  job2->run();
  CHECK_FALSE(journal_exists(path));
  CHECK(sha256_hex(read_plain(path, open_opts(nc))) == sha256_hex(plain));
  check_final_header(header_of(path, open_opts(nc)), ChainId::Serpent, PrfId::Sha512);
}

TEST_CASE("reencrypt: header keys derived along the open, their marked and final headers", "[reencrypt]") {
  wvtest::TempDir dir;
  const auto plain = noise(384 * kKiB);
  const Credentials oc = creds("old pw");
  struct Case {
    const char* name;
    PrfId prf;                           // the volume's, named with --hash
    ChainId from;
    bool chain_named;                    // the open's chain given
    std::optional<ChainId> to;           // --new-encryption
    std::optional<std::string> new_pw;   // new credentials (their keys do not share the open's password)
    std::optional<PrfId> new_prf;
  };
  const std::vector<Case> cases = {
      {"same credentials", PrfId::Sha512, ChainId::SerpentTwofishAes, true, ChainId::KuznyechikSerpentCamellia, {},
       {}},
      {"a new password", PrfId::Sha512, ChainId::SerpentTwofishAes, true, ChainId::KuznyechikSerpentCamellia, "new pw",
       {}},
      {"a new PRF", PrfId::Sha512, ChainId::SerpentTwofishAes, true, ChainId::Aes, {}, PrfId::Sha256},
      {"the chain not named, a cascade kept", PrfId::Sha512, ChainId::SerpentTwofishAes, false, {}, {}, {}},
      {"the chain not named, AES to Serpent", PrfId::Sha512, ChainId::Aes, false, ChainId::Serpent, {}, {}},
      {"the chain not named, AES kept, a new password", PrfId::Sha512, ChainId::Aes, false, {}, "new pw", {}},
      {"AES named, kept", PrfId::Sha512, ChainId::Aes, true, {}, {}, {}},
      {"BLAKE2s, the chain not named, Twofish to a cascade", PrfId::Blake2s, ChainId::Twofish, false,
       ChainId::CamelliaKuznyechik, {}, {}},
      {"Whirlpool (no lanes), the chain named", PrfId::Whirlpool, ChainId::Serpent, true, {}, {}, {}},
      {"Whirlpool (no lanes), the chain not named", PrfId::Whirlpool, ChainId::Serpent, false, {}, {}, {}},
  };
  int k = 0;
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = dir.file("a" + std::to_string(k++) + ".hc");
    make_container(path, plain, c.from, c.prf, oc);
    VolumeRequest r = request(path, oc, c.prf);
    if (c.chain_named) r.open.chain = c.from;
    r.open.kdf_threads = 1;  // a batch's share: the keys and the open in the lanes of one thread
    r.next.chain = c.to;
    if (c.new_pw) r.next.password = pw(*c.new_pw);
    r.next.prf = c.new_prf;
    const Credentials nc = c.new_pw ? creds(*c.new_pw) : oc;
    const PrfId final_prf = c.new_prf.value_or(c.prf);
    // A chain not named is planned at 192 bytes where the PRF has SIMD lanes (a shorter key is its prefix).
    const bool lanes = pbkdf2_lane_width(c.prf) > 1;
    const ChainId final_chain = c.to.value_or(c.from);
    // Interrupted after its first zone: the marked primary opens with the old credentials, the marked backup with
    // the new ones (both say the volume is half re-encrypted: the header decrypted).
    JobOptions stop = job_options(Resilience::Checksum, 128 * kKiB);
    stop.cancel.requested = [] { return true; };
    auto job = Job::prepare(r, stop);
    CHECK(job->header_keys_derived_with_open() == (c.chain_named || lanes));
    CHECK_THROWS(job->run());
    job.reset();
    REQUIRE(journal_exists(path));
    OpenOptions marked_backup = open_opts(nc, final_prf);
    marked_backup.backup_only = true;
    for (const OpenOptions& o : {open_opts(oc, c.prf), marked_backup})
      CHECK_THROWS_MATCHES(header_of(path, o), Error, Catch::Predicate<Error>([](const Error& e) {
                             return e.kind() == ErrorKind::Format &&
                                    std::string(e.what()).find(kHalfReencryptedPhrase) != std::string::npos;
                           }));
    reencrypt(r, job_options(Resilience::Checksum, 128 * kKiB));
    CHECK_FALSE(journal_exists(path));
    check_final_header(header_of(path, open_opts(nc)), final_chain, final_prf);
    check_both_headers(path, open_opts(nc));
    CHECK(sha256_hex(read_plain(path, open_opts(nc))) == sha256_hex(plain));
    if (c.new_pw)
      CHECK_THROWS_MATCHES(header_of(path, open_opts(oc)), Error,
                           Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Auth; }));
  }
}

TEST_CASE("reencrypt: resume-only, wrong credentials and changed settings on resume", "[reencrypt]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("r.hc");
  const auto plain = noise(512 * kKiB);
  const Credentials oc = creds("old"), nc = creds("new");
  make_container(path, plain, ChainId::Aes, PrfId::Sha512, oc);
  VolumeRequest r = request(path, oc);
  r.next.password = pw("new");
  JobOptions only = job_options(Resilience::Checksum, 64 * kKiB);
  only.policy = StartPolicy::ResumeOnly;
  CHECK_THROWS_MATCHES(Job::prepare(r, only), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Usage; }));
  JobOptions jo = job_options(Resilience::Journal, 64 * kKiB);
  jo.cancel.requested = [] { return true; };
  CHECK_THROWS(Job::prepare(r, jo)->run());
  const std::string state = file_sha256(path), jstate = file_sha256(journal_path_for(path));
  SECTION("wrong old password") {
    VolumeRequest bad = r;
    bad.open.credentials.password = pw("wrong");
    CHECK_THROWS_MATCHES(Job::prepare(bad, only), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Auth; }));
  }
  SECTION("wrong new password") {
    VolumeRequest bad = r;
    bad.next.password = pw("other");
    CHECK_THROWS_MATCHES(Job::prepare(bad, only), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Auth; }));
  }
  SECTION("a different target chain") {
    VolumeRequest bad = r;
    bad.next.chain = ChainId::Twofish;
    CHECK_THROWS_MATCHES(Job::prepare(bad, only), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Usage; }));
  }
  CHECK(file_sha256(path) == state);
  CHECK(file_sha256(journal_path_for(path)) == jstate);
  Job::prepare(r, only)->run();
  CHECK(sha256_hex(read_plain(path, open_opts(nc))) == sha256_hex(plain));
}

TEST_CASE("reencrypt: a second process is refused while one runs (lock)", "[reencrypt]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("l.hc");
  const Credentials c = creds("pw");
  make_container(path, noise(128 * kKiB), ChainId::Aes, PrfId::Sha512, c);
  auto job = Job::prepare(request(path, c), job_options(Resilience::Checksum, 64 * kKiB));
  CHECK_THROWS_MATCHES(Job::prepare(request(path, c), job_options(Resilience::Checksum, 64 * kKiB)), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Busy; }));
}

TEST_CASE("reencrypt: batch of 5, one wrong password", "[reencrypt][batch]") {
  wvtest::TempDir dir;
  std::vector<std::string> paths;
  std::vector<std::vector<uint8_t>> plains;
  std::vector<VolumeRequest> reqs;
  for (int i = 0; i < 5; ++i) {
    paths.push_back(dir.file("b" + std::to_string(i) + ".hc"));
    plains.push_back(noise(256 * kKiB));
    make_container(paths[i], plains[i], ChainId::Aes, PrfId::Sha512, creds("pw" + std::to_string(i)));
    VolumeRequest r = request(paths[i], creds(i == 3 ? "WRONG" : "pw" + std::to_string(i)));
    r.next.chain = ChainId::Serpent;
    reqs.push_back(std::move(r));
  }
  std::vector<std::string> before;
  for (const auto& p : paths) before.push_back(file_sha256(p));
  BatchOptions bo;
  bo.job = job_options(Resilience::Checksum, 64 * kKiB);
  bo.jobs = 2;
  SECTION("without --skip-bad: that one fails up front, nothing is written anywhere") {
    const auto res = run_batch(reqs, bo);
    REQUIRE(res.size() == 5);
    for (int i = 0; i < 5; ++i) {
      INFO(paths[i]);
      CHECK(file_sha256(paths[i]) == before[i]);
      CHECK_FALSE(journal_exists(paths[i]));
      if (i == 3) {
        CHECK(res[i].status == ItemStatus::Failed);
        CHECK(res[i].kind == ErrorKind::Auth);
        CHECK(res[i].preflight_failed);
      } else {
        CHECK(res[i].status == ItemStatus::Skipped);
        CHECK(res[i].kind == ErrorKind::Auth);  // the batch's exit code is the failure's
      }
    }
  }
  SECTION("with --skip-bad: the four others are re-encrypted") {
    bo.skip_bad = true;
    const auto res = run_batch(reqs, bo);
    for (int i = 0; i < 5; ++i) {
      INFO(paths[i]);
      if (i == 3) {
        CHECK(res[i].status == ItemStatus::Failed);
        CHECK(file_sha256(paths[i]) == before[i]);
      } else {
        CHECK(res[i].status == ItemStatus::Done);
        const Credentials c = creds("pw" + std::to_string(i));
        CHECK(header_of(paths[i], open_opts(c)).chain == ChainId::Serpent);
        CHECK(sha256_hex(read_plain(paths[i], open_opts(c))) == sha256_hex(plains[i]));
      }
    }
  }
  SECTION("the same container twice is refused") {
    std::vector<VolumeRequest> dup = {reqs[0], reqs[0]};
    CHECK_THROWS_AS(run_batch(dup, bo), Error);
  }
}

TEST_CASE("reencrypt: pre-flight refuses a journal folder that is missing or not a folder, nothing written",
          "[reencrypt]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("p.hc");
  const Credentials c = creds("pw");
  make_container(path, noise(128 * kKiB), ChainId::Aes, PrfId::Sha512, c);
  const std::string before = file_sha256(path);
  const std::string not_a_folder = dir.file("plain-file");
  {
    auto f = open_file(not_a_folder, OpenMode::CreateNew);
    f->write_at(0, reinterpret_cast<const uint8_t*>("x"), 1);
  }
  for (const std::string& jd : {dir.file("no-such-folder"), not_a_folder}) {
    INFO("journal folder " << jd);
    JobOptions o = job_options(Resilience::Journal, 64 * kKiB);
    o.journal_dir = jd;
    CHECK_THROWS_MATCHES(Job::prepare(request(path, c), o), Error, Catch::Predicate<Error>([](const Error& e) {
                           return e.kind() == ErrorKind::Io || e.kind() == ErrorKind::Format;
                         }));
    CHECK(file_sha256(path) == before);
    CHECK_FALSE(std::filesystem::exists(journal_path_for(path, jd)));
  }
  // The default (the container's folder) works.
  reencrypt(request(path, c), job_options(Resilience::Journal, 64 * kKiB));
  CHECK(file_sha256(path) != before);
}

TEST_CASE("reencrypt: the journal holds no master key in the clear", "[reencrypt][journal]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("k.hc");
  const Credentials oc = creds("old key test"), nc = creds("new key test");
  make_container(path, noise(512 * kKiB), ChainId::AesTwofish, PrfId::Sha512, oc);
  const OpenedHeader before = header_of(path, open_opts(oc));
  for (Resilience res : {Resilience::Checksum, Resilience::Journal}) {
    INFO(resilience_name(res));
    VolumeRequest r = request(path, res == Resilience::Checksum ? oc : nc);
    r.next.password = pw(res == Resilience::Checksum ? "new key test" : "old key test");
    const OpenedHeader cur = header_of(path, r.open);
    JobOptions o = job_options(res, 64 * kKiB);
    int n = 0;
    o.cancel.requested = [&n] { return ++n >= 2; };
    CHECK_THROWS(Job::prepare(r, o)->run());
    std::vector<uint8_t> journal;
    {
      auto f = open_file(journal_path_for(path), OpenMode::ReadOnly);
      journal.resize(size_t(f->size()));
      f->read_at(0, journal.data(), journal.size());
    }
    REQUIRE(journal.size() > 2000);
    reencrypt(r, job_options(res, 64 * kKiB));  // finish: the new master keys are now in the header
    const OpenedHeader after = header_of(path, open_opts(res == Resilience::Checksum ? nc : oc));
    // Each 32-byte key of the old and the new chain (primary and secondary halves) must not occur in the journal.
    const size_t key_bytes = 2 * chain_info(ChainId::AesTwofish).key_size();
    for (const OpenedHeader* h : {&cur, &after}) {
      for (size_t k = 0; k + 32 <= key_bytes; k += 32) {
        const uint8_t* key = h->fields.key_area.data() + k;
        CHECK(std::search(journal.begin(), journal.end(), key, key + 32) == journal.end());
      }
    }
    CHECK(std::memcmp(cur.fields.key_area.data(), after.fields.key_area.data(), key_bytes) != 0);
  }
  CHECK(std::memcmp(before.fields.key_area.data(), header_of(path, open_opts(oc)).fields.key_area.data(), 64) != 0);
}

TEST_CASE("reencrypt: a new job's hot zone is 4 MiB in memory on the GPU's pipeline with checksums, else 32 MiB",
          "[reencrypt]") {
  CHECK_FALSE(on_memory_file_system("/dev/null"));  // a device node: on devtmpfs, its data is not
  CHECK_FALSE(on_memory_file_system("/no/such/path"));
  FastDir mem;
  if (!on_memory_file_system(mem.path().string())) {
    WARN("SKIPPED: /dev/shm is not a memory file system here");
    return;
  }
  // A CPU engine that reports four callers stands in for the GPU's pipeline.
  struct Wide : CpuEngine {
    Wide() : CpuEngine(1) {}
    unsigned concurrency() const override { return 4; }
  };
  const auto wide = std::make_shared<Wide>();
  const Credentials c = creds("pw");
  std::vector<std::string> lines;
  auto job_for = [&](const std::string& path, std::shared_ptr<XtsEngine> e, Resilience res, uint64_t given = 0,
                     const std::string& journal_dir = "") {
    make_container(path, noise(9 * 1024 * kKiB + 96 * kKiB), ChainId::Aes, PrfId::Sha512, c);
    JobOptions o = job_options(res, given);
    o.engine = std::move(e);
    o.journal_dir = journal_dir;
    o.summary = [&lines](const std::string& m) { lines.push_back(m); };
    return Job::prepare(request(path, c), o);
  };
  CHECK(job_for(mem.file("b.hc"), engine(), Resilience::Checksum)->hotzone() == kDefaultHotzone);  // one caller
  CHECK(job_for(mem.file("c.hc"), wide, Resilience::Journal)->hotzone() == kDefaultHotzone);
  CHECK(job_for(mem.file("d.hc"), wide, Resilience::Checksum, 1024 * kKiB)->hotzone() == 1024 * kKiB);
  wvtest::TempDir disk;
  if (on_memory_file_system(disk.path().string())) {
    WARN("SKIPPED (the cases on a disk): " << disk.path().string() << " is a memory file system here");
  } else {
    CHECK(job_for(disk.file("e.hc"), wide, Resilience::Checksum)->hotzone() == kDefaultHotzone);
    CHECK(job_for(mem.file("f.hc"), wide, Resilience::Checksum, 0, disk.path().string())->hotzone() ==
          kDefaultHotzone);  // the journal's fsyncs go to a disk
  }
  // Chosen: three zones, the last one short; the data survives and --verbose says why.
  const std::string path = mem.file("a.hc");
  auto job = job_for(path, wide, Resilience::Checksum);
  REQUIRE(job->hotzone() == kMemoryHotzone);
  const auto plain = read_plain(path, open_opts(c));
  CHECK(job->run().bytes == plain.size());
  CHECK(sha256_hex(read_plain(path, open_opts(c))) == sha256_hex(plain));
  REQUIRE(!lines.empty());
  CHECK(lines.back().find("hot zones of 4 MiB (the container and its journal in memory") != std::string::npos);
}

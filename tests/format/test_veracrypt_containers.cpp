// Containers made by the real VeraCrypt 1.26.27 (testvectors/veracrypt/MANIFEST.json): every entry opens with its
// credentials, the header matches the manifest (chain, PRF, iterations, offsets, sizes, sector size), and the
// sha256 of the whole decrypted data area equals VeraCrypt's, on every engine under test (each CPU path this CPU
// runs, and the GPU when built and present). Most tests narrow the PRF (--hash) to keep the suite fast; the
// [autodetect] tests open without any hint. Each container is also exported to a file through core's export job
// (core/job/export.h) on every engine, its sha256 against VeraCrypt's. fat.hc is exported through the real binary
// and read back with mtools.
#include <cryptopp/sha.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "core/crypto/chain.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/job/export.h"
#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "core/volume/volume.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

using json = nlohmann::json;
using namespace warpvol;

namespace {

std::string vc_dir() { return wvtest::vectors_dir() + "/veracrypt"; }

const json& manifest() {
  static const json m = json::parse(wvtest::read_text(vc_dir() + "/MANIFEST.json"));
  return m;
}

const json& entry(const std::string& name) {
  for (const auto& f : manifest()["files"])
    if (f["case"] == name) return f;
  throw std::runtime_error("no manifest entry " + name);
}

std::string sha256_hex(const uint8_t* p, size_t n) {
  CryptoPP::SHA256 h;
  uint8_t d[32];
  h.CalculateDigest(d, p, n);
  return to_hex(d, 32);
}

OpenOptions options_for(const json& e, bool narrow) {
  OpenOptions o;
  const std::string pw = e["password"];
  o.credentials.password = LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
  o.credentials.pim = e["pim"].get<int>();
  for (const auto& k : e["keyfiles"]) o.credentials.keyfiles.push_back(vc_dir() + "/" + k.get<std::string>());
  if (narrow) {
    auto prf = parse_prf(e["hash"].get<std::string>());
    REQUIRE(prf);
    o.prf = *prf;
    if (e["volume_type"] == "hidden") o.slot = SlotKind::Hidden;
  }
  return o;
}

void check_header_against_manifest(const OpenedHeader& h, const json& e) {
  INFO("container " << e["file"].get<std::string>() << " (" << e["case"].get<std::string>() << ")");
  CHECK(h.format == VolumeFormat::VeraCrypt);
  CHECK(h.fields.magic == kMagicVera);
  CHECK(h.fields.version == 5);
  CHECK(std::string(chain_info(h.chain).name) == e["encryption"].get<std::string>());
  auto prf = parse_prf(e["hash"].get<std::string>());
  REQUIRE(prf);
  CHECK(h.kdf.prf == *prf);
  CHECK(h.kdf.iterations == e["kdf_iterations"].get<uint32_t>());
  CHECK(h.data_offset == e["data_area_offset"].get<uint64_t>());
  CHECK(h.data_size == e["decrypted_data_area_size"].get<uint64_t>());
  CHECK(h.fields.sector_size == e["sector_size"].get<uint32_t>());
  CHECK(h.first_unit == h.data_offset / 512);
  CHECK(h.from_backup == false);
  if (e["volume_type"] == "hidden") {
    CHECK(h.slot == SlotKind::Hidden);
    CHECK(h.header_offset == 65536);
  } else {
    CHECK(h.slot == SlotKind::Normal);
    CHECK(h.header_offset == 0);
  }
}

// Reads the data area through Volume::read in pieces of an odd size (so partial data units are exercised too) and
// checks the whole-area sha256 and each known-plaintext range.
void check_data_on_engine(const std::string& path, const OpenedHeader& h, const json& e,
                          const wvtest::NamedEngine& ne) {
  INFO("engine " << ne.name << ", container " << e["file"].get<std::string>());
  Volume vol(open_file(path, OpenMode::ReadOnly), h, ne.engine);
  REQUIRE(vol.size() == e["decrypted_data_area_size"].get<uint64_t>());
  std::vector<uint8_t> data(vol.size());
  const size_t piece = 100000;  // not a multiple of 512
  for (size_t off = 0; off < data.size(); off += piece)
    vol.read(off, data.data() + off, std::min(piece, data.size() - off));
  CHECK(sha256_hex(data.data(), data.size()) == e["decrypted_data_area_sha256"].get<std::string>());
  CHECK(sha256_hex(data.data(), 4096) == e["decrypted_first_4096_sha256"].get<std::string>());
  CHECK(sha256_hex(data.data() + data.size() - 4096, 4096) == e["decrypted_last_4096_sha256"].get<std::string>());
  if (e.contains("known_plaintext"))
    for (const auto& kp : e["known_plaintext"]) {
      const size_t off = kp["offset"], len = kp["length"];
      REQUIRE(off + len <= data.size());
      CHECK(sha256_hex(data.data() + off, len) == kp["sha256"].get<std::string>());
    }
  // A whole-area read in one request (the export path) gives the same bytes.
  std::vector<uint8_t> again(vol.size());
  vol.read(0, again.data(), again.size());
  CHECK(again == data);
  // Core's export job into a new file, in chunks smaller than the area, gives VeraCrypt's bytes too.
  wvtest::TempDir dir;
  const std::string out_path = dir.file("image.raw");
  ExportTarget out(out_path, false, nullptr);
  ExportOptions xo;
  xo.chunk_bytes = 64 * 1024;
  export_volume(vol, *ne.engine, out, xo);
  const std::vector<uint8_t> exported = wvtest::read_binary(out_path);
  REQUIRE(exported.size() == data.size());
  CHECK(sha256_hex(exported.data(), exported.size()) == e["decrypted_data_area_sha256"].get<std::string>());
}

void container_test(const std::string& name) {
  const json& e = entry(name);
  const std::string path = vc_dir() + "/" + e["file"].get<std::string>();
  auto file = open_file(path, OpenMode::ReadOnly);
  REQUIRE(file->size() == e["container_size"].get<uint64_t>());
  OpenedHeader h = open_header(*file, options_for(e, true));
  check_header_against_manifest(h, e);
  const auto engines = wvtest::engines_under_test();
  REQUIRE(!engines.empty());
  for (const auto& ne : engines) check_data_on_engine(path, h, e, ne);
}

}  // namespace

// One test case per manifest entry (so ctest runs them in parallel and names the failing one).
#define VC_CONTAINER_TEST(name) \
  TEST_CASE("VeraCrypt container " name, "[veracrypt][container]") { container_test(name); }

VC_CONTAINER_TEST("enc-aes")
VC_CONTAINER_TEST("enc-serpent")
VC_CONTAINER_TEST("enc-twofish")
VC_CONTAINER_TEST("enc-camellia")
VC_CONTAINER_TEST("enc-kuznyechik")
VC_CONTAINER_TEST("enc-aes-twofish")
VC_CONTAINER_TEST("enc-aes-twofish-serpent")
VC_CONTAINER_TEST("enc-camellia-kuznyechik")
VC_CONTAINER_TEST("enc-camellia-serpent")
VC_CONTAINER_TEST("enc-kuznyechik-aes")
VC_CONTAINER_TEST("enc-kuznyechik-serpent-camellia")
VC_CONTAINER_TEST("enc-kuznyechik-twofish")
VC_CONTAINER_TEST("enc-serpent-aes")
VC_CONTAINER_TEST("enc-serpent-twofish-aes")
VC_CONTAINER_TEST("enc-twofish-serpent")
VC_CONTAINER_TEST("hash-sha256")
VC_CONTAINER_TEST("hash-whirlpool")
VC_CONTAINER_TEST("hash-streebog")
VC_CONTAINER_TEST("hash-blake2s")
VC_CONTAINER_TEST("pim7")
VC_CONTAINER_TEST("keyfile1")
VC_CONTAINER_TEST("keyfile2")
VC_CONTAINER_TEST("outer")
VC_CONTAINER_TEST("hidden")
VC_CONTAINER_TEST("sector4096")
VC_CONTAINER_TEST("fat")

TEST_CASE("VeraCrypt manifest: every entry has a container test above", "[veracrypt]") {
  const std::set<std::string> covered = {
      "enc-aes", "enc-serpent", "enc-twofish", "enc-camellia", "enc-kuznyechik", "enc-aes-twofish",
      "enc-aes-twofish-serpent", "enc-camellia-kuznyechik", "enc-camellia-serpent", "enc-kuznyechik-aes",
      "enc-kuznyechik-serpent-camellia", "enc-kuznyechik-twofish", "enc-serpent-aes", "enc-serpent-twofish-aes",
      "enc-twofish-serpent", "hash-sha256", "hash-whirlpool", "hash-streebog", "hash-blake2s", "pim7", "keyfile1",
      "keyfile2", "outer", "hidden", "sector4096", "fat"};
  std::set<std::string> in_manifest;
  for (const auto& f : manifest()["files"]) in_manifest.insert(f["case"].get<std::string>());
  CHECK(in_manifest == covered);
  // All 15 chains and all five VeraCrypt PBKDF2 PRFs are among them.
  std::set<std::string> chains, hashes;
  for (const auto& f : manifest()["files"]) {
    chains.insert(f["encryption"].get<std::string>());
    hashes.insert(f["hash"].get<std::string>());
  }
  CHECK(chains.size() == 15);
  CHECK(hashes.size() == 5);
}

// Full auto-detection (no --hash, no --encryption, no --hidden): every slot x format x PRF x chain is searched. One
// test on a few volumes, since each search costs many PBKDF2 derivations: keyfiles (SHA-512/AES), a non-default
// PRF (BLAKE2s), and the hidden volume found by its own password in the hidden slot.
TEST_CASE("VeraCrypt containers: full auto-detection", "[veracrypt][autodetect]") {
  for (const char* name : {"keyfile2", "hash-blake2s", "hidden"}) {
    const json& e = entry(name);
    const std::string path = vc_dir() + "/" + e["file"].get<std::string>();
    auto file = open_file(path, OpenMode::ReadOnly);
    OpenedHeader h = open_header(*file, options_for(e, false));
    check_header_against_manifest(h, e);
    check_data_on_engine(path, h, e, wvtest::engines_under_test().back());
  }
}

TEST_CASE("export job: an interrupted export leaves no new file and a replaced file as it was", "[veracrypt][job]") {
  const json& e = entry("enc-serpent");
  const std::string path = vc_dir() + "/" + e["file"].get<std::string>();
  auto file = open_file(path, OpenMode::ReadOnly);
  OpenedHeader h = open_header(*file, options_for(e, true));
  const auto engines = wvtest::engines_under_test();
  Volume vol(std::move(file), h, engines.front().engine);
  REQUIRE(vol.size() >= 16 * 8192);  // many chunks, so the cancel lands mid-way
  wvtest::TempDir dir;
  const std::string fresh = dir.file("new.raw"), old = dir.file("old.raw");
  {
    std::ofstream(old, std::ios::binary) << "the file that was there";
  }
  for (const std::string& target : {fresh, old}) {
    INFO("target " << target);
    ExportTarget out(target, true, nullptr);
    ExportOptions xo;
    xo.chunk_bytes = 8192;
    std::atomic<int> updates{0};
    xo.progress = [&updates](const ProgressUpdate& u) {
      if (u.bytes_done > 0) ++updates;
    };
    xo.cancel.requested = [&updates] { return updates.load() >= 2; };
    CHECK_THROWS_MATCHES(export_volume(vol, *engines.front().engine, out, xo), Error,
                         Catch::Predicate<Error>([](const Error& x) { return x.kind() == ErrorKind::Interrupted; }));
  }
  CHECK(!std::filesystem::exists(fresh));
  CHECK(wvtest::read_text(old) == "the file that was there");
  // Nothing else was left in the folder (the temporary files are gone).
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);
}

TEST_CASE("VeraCrypt fat.hc: exported image holds HELLO.TXT (read with mtools)", "[veracrypt][cli][mtools]") {
  const json& e = entry("fat");
  REQUIRE(e.contains("files"));
  const std::string content = e["files"][0]["content"];
  INFO("mtools (mdir, mtype) are needed: scripts/test.sh installs them");
  REQUIRE(wvtest::proc::have_program("mtype"));
  REQUIRE(wvtest::proc::have_program("mdir"));
  wvtest::TempDir dir;
  const std::string img = dir.file("fat.img");
  auto r = wvtest::proc::run_warpvol({"export", vc_dir() + "/fat.hc", img, "--password-stdin", "--hash", "sha512"},
                               e["password"].get<std::string>() + "\n");
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  auto bytes = wvtest::read_binary(img);
  CHECK(sha256_hex(bytes.data(), bytes.size()) == e["decrypted_data_area_sha256"].get<std::string>());
  // MTOOLS_SKIP_CHECK: the image is a bare FAT12 filesystem without a partition table.
  wvtest::proc::ProcOptions po;
  po.env = {"MTOOLS_SKIP_CHECK=1"};
  auto dirlist = wvtest::proc::run_process({"mdir", "-i", img, "::"}, po);
  INFO("mdir: " << dirlist.out << dirlist.err);
  CHECK(dirlist.code == 0);
  CHECK(dirlist.out.find("HELLO    TXT") != std::string::npos);
  auto typed = wvtest::proc::run_process({"mtype", "-i", img, "::HELLO.TXT"}, po);
  INFO("mtype stderr: " << typed.err);
  CHECK(typed.code == 0);
  CHECK(typed.out == content);
}

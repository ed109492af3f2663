// The real warpvol binary, end to end: each subcommand (stdin password, --password-fd, keyfiles and keyfile
// folders, --json parsed back), the exit-code table, and the negative cases -- each asserting the exit code, the
// message on stderr, nothing on stdout, and that no output file (not even a temporary one) was left behind.
//
// Most cases narrow the search (--hash sha512 --encryption aes) so a wrong password costs a few PBKDF2 blocks
// rather than the full search; the container tests cover auto-detection.
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cryptopp/sha.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

using json = nlohmann::json;
namespace fs = std::filesystem;
using wvtest::proc::run_warpvol;

namespace {

std::string vc(const std::string& f) { return wvtest::vectors_dir() + "/veracrypt/" + f; }

const json& manifest_entry(const std::string& name) {
  static const json m = json::parse(wvtest::read_text(vc("MANIFEST.json")));
  for (const auto& f : m["files"])
    if (f["case"] == name) return f;
  throw std::runtime_error("no manifest entry " + name);
}

std::string sha256_file(const std::string& path) {
  auto b = wvtest::read_binary(path);
  CryptoPP::SHA256 h;
  uint8_t d[32];
  h.CalculateDigest(d, b.data(), b.size());
  return warpvol::to_hex(d, 32);
}

std::string sha256_str(const std::string& s) {
  CryptoPP::SHA256 h;
  uint8_t d[32];
  h.CalculateDigest(d, reinterpret_cast<const uint8_t*>(s.data()), s.size());
  return warpvol::to_hex(d, 32);
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

void copy_file(const std::string& from, const std::string& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

void flip_bit(const std::string& path, uint64_t offset, int bit) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(std::streamoff(offset));
  char c;
  f.read(&c, 1);
  c = char(c ^ (1 << bit));
  f.seekp(std::streamoff(offset));
  f.write(&c, 1);
}

void write_file(const std::string& path, const std::vector<uint8_t>& data) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
}

// Case-insensitive substring.
bool contains(const std::string& hay, const std::string& needle) {
  auto low = [](std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return low(hay).find(low(needle)) != std::string::npos;
}

// A failed export: exit code, one "warpvol: ..." line naming the problem, no data, no file in the output folder.
void expect_export_fails(const std::vector<std::string>& extra, const std::string& volume, const std::string& pw,
                         int code, const std::string& message) {
  wvtest::TempDir out;
  std::vector<std::string> args = {"export", volume, out.file("image.raw"), "--password-stdin"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_warpvol(args, pw + "\n");
  INFO("args: " << [&] { std::string s; for (auto& a : args) s += a + " "; return s; }());
  INFO("stderr: " << r.err);
  CHECK(r.code == code);
  CHECK(contains(r.err, message));
  CHECK(r.err.rfind("warpvol: ", 0) == 0);
  CHECK(r.out.empty());
  CHECK(dir_entries(out.path().string()).empty());
}

const std::vector<std::string> kFast = {"--hash", "sha512", "--encryption", "aes"};

std::vector<std::string> with_fast(std::vector<std::string> v) {
  v.insert(v.end(), kFast.begin(), kFast.end());
  return v;
}

}  // namespace

// ---- general --------------------------------------------------------------------------------------------------------

TEST_CASE("cli: help, version and usage errors", "[cli]") {
  auto r = run_warpvol({"--help"});
  CHECK(r.code == 0);
  for (const char* c : {"info", "export", "test", "benchmark", "Exit codes"}) CHECK(contains(r.out, c));
  r = run_warpvol({"info", "--help"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "--password-stdin"));
  CHECK(contains(r.out, "--keyfile"));
  r = run_warpvol({"help", "export"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "--progress-json"));
  r = run_warpvol({"--version"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "warpvol "));

  r = run_warpvol({});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "no command"));
  r = run_warpvol({"frobnicate"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "unknown command 'frobnicate'"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--bogus"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "--bogus"));
  r = run_warpvol({"info"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "missing VOLUME"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--pim", "abc", "--password-stdin"}, "x\n");
  CHECK(r.code == 1);
  r = run_warpvol({"info", vc("enc-aes.hc"), "--hash", "md5", "--password-stdin"}, "x\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "unknown hash 'md5'"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--encryption", "des", "--password-stdin"}, "x\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "unknown encryption 'des'"));
  r = run_warpvol({"export", vc("enc-aes.hc"), "/tmp/x", "--engine", "quantum", "--password-stdin"}, "x\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "unknown engine"));
}

TEST_CASE("cli: --json errors carry the exit code", "[cli]") {
  auto r = run_warpvol(with_fast({"info", vc("enc-aes.hc"), "--json", "--password-stdin"}), "not-the-password\n");
  CHECK(r.code == 2);
  auto j = json::parse(r.out);
  CHECK(j["code"] == 2);
  CHECK(contains(j["error"].get<std::string>(), "wrong password"));
  CHECK(contains(r.err, "warpvol: wrong password"));

  r = run_warpvol({"info", "/nonexistent/volume.hc", "--json", "--password-stdin"}, "x\n");
  CHECK(r.code == 3);
  j = json::parse(r.out);
  CHECK(j["code"] == 3);
  r = run_warpvol({"info", vc("enc-aes.hc"), "--json", "--frob"});
  CHECK(r.code == 1);
  CHECK(json::parse(r.out)["code"] == 1);
}

// ---- info -----------------------------------------------------------------------------------------------------------

TEST_CASE("cli info: text and --json with a stdin password", "[cli][info]") {
  const json& e = manifest_entry("enc-aes-twofish");
  auto r = run_warpvol({"info", vc("enc-aes-twofish.hc"), "--password-stdin", "--hash", "sha512"},
                       e["password"].get<std::string>() + "\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "Format:                VeraCrypt"));
  CHECK(contains(r.out, "AES-Twofish"));
  CHECK(contains(r.out, "HMAC-SHA-512, 500000 iterations"));
  CHECK(contains(r.out, "primary header"));
  CHECK(r.err.empty());

  r = run_warpvol({"info", vc("enc-aes-twofish.hc"), "--password-stdin", "--hash", "sha512", "--json"},
                  e["password"].get<std::string>() + "\n");
  REQUIRE(r.code == 0);
  auto j = json::parse(r.out);
  CHECK(j["format"] == "VeraCrypt");
  CHECK(j["header_version"] == 5);
  CHECK(j["encryption"] == "AES-Twofish");
  CHECK(j["encryption_order"] == json::array({"Twofish", "AES"}));
  CHECK(j["prf"] == "sha512");
  CHECK(j["kdf"]["iterations"] == 500000);
  CHECK(j["sector_size"] == 512);
  CHECK(j["data_offset"] == e["data_area_offset"]);
  CHECK(j["data_size"] == e["decrypted_data_area_size"]);
  CHECK(j["volume_type"] == "normal");
  CHECK(j["header"]["used"] == "primary");
  CHECK(j["header"]["offset"] == 0);
  CHECK(j["flags"] == 0);
  CHECK(j["master_key_vulnerable"] == false);
}

TEST_CASE("cli info: --json matches the manifest for PIM, keyfiles, hidden and 4096-byte sectors", "[cli][info]") {
  struct Case {
    std::string name;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases = {
      {"pim7", {"--pim", "7"}},
      {"keyfile1", {"-k", vc("keyfile-a.key")}},
      {"keyfile2", {"--keyfile", vc("keyfile-c.key"), "-k", vc("keyfile-b.key")}},  // order does not matter
      {"hidden", {"--hidden"}},
      {"sector4096", {}},
  };
  for (const auto& c : cases) {
    const json& e = manifest_entry(c.name);
    std::vector<std::string> args = {"info", vc(e["file"]), "--json", "--password-stdin", "--hash", "sha512"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_warpvol(args, e["password"].get<std::string>() + "\n");
    INFO(c.name << ": " << r.err);
    REQUIRE(r.code == 0);
    auto j = json::parse(r.out);
    CHECK(j["encryption"] == e["encryption"]);
    CHECK(j["kdf"]["iterations"] == e["kdf_iterations"]);
    CHECK(j["data_offset"] == e["data_area_offset"]);
    CHECK(j["data_size"] == e["decrypted_data_area_size"]);
    CHECK(j["sector_size"] == e["sector_size"]);
    CHECK(j["volume_type"] == (e["volume_type"] == "hidden" ? "hidden" : "normal"));
    CHECK(j["header"]["offset"] == (e["volume_type"] == "hidden" ? 65536 : 0));
  }
}

TEST_CASE("cli info: keyfile folder and --password-fd", "[cli][info]") {
  const json& e = manifest_entry("keyfile2");
  wvtest::TempDir kd;
  copy_file(vc("keyfile-b.key"), kd.file("b.key"));
  copy_file(vc("keyfile-c.key"), kd.file("c.key"));
  int p[2];
  REQUIRE(::pipe(p) == 0);
  const std::string pw = e["password"].get<std::string>() + "\n";
  REQUIRE(::write(p[1], pw.data(), pw.size()) == ssize_t(pw.size()));
  ::close(p[1]);
  wvtest::proc::ProcOptions po;
  po.inherit_fds = {p[0]};
  auto r = run_warpvol(with_fast({"info", vc("keyfile2.hc"), "--json", "--password-fd", std::to_string(p[0]), "-k",
                                  kd.path().string()}),
                       po);
  ::close(p[0]);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(json::parse(r.out)["data_size"] == e["decrypted_data_area_size"]);
}

TEST_CASE("cli info: explicit --password and keyfile-only refusal without password", "[cli][info]") {
  const json& e = manifest_entry("enc-aes");
  auto r = run_warpvol(with_fast({"info", vc("enc-aes.hc"), "--password", e["password"].get<std::string>()}));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(contains(r.out, "AES"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--non-interactive"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "--non-interactive"));
  r = run_warpvol({"info", vc("enc-aes.hc")});  // stdin is a pipe here, not a terminal: no prompt
  CHECK(r.code == 1);
  CHECK(contains(r.err, "not a terminal"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--password-stdin"}, "\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "empty password"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--password-stdin", "--password", "x"}, "x\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "one way"));
}

TEST_CASE("cli: password length limits are usage errors", "[cli]") {
  std::string p128(128, 'a'), p129(129, 'a'), p65(65, 'a');
  // 128 bytes is allowed (and wrong), 129 is refused before any key derivation.
  auto r = run_warpvol(with_fast({"info", vc("enc-aes.hc"), "--password-stdin"}), p128 + "\n");
  CHECK(r.code == 2);
  r = run_warpvol(with_fast({"info", vc("enc-aes.hc"), "--password-stdin"}), p129 + "\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "longer than 128 bytes"));
  r = run_warpvol(with_fast({"info", vc("enc-aes.hc"), "--password", p129}));
  CHECK(r.code == 1);
  r = run_warpvol({"info", vc("enc-aes.hc"), "--truecrypt", "--password-stdin"}, p65 + "\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "longer than 64 bytes"));
  r = run_warpvol({"info", vc("enc-aes.hc"), "--truecrypt", "--pim", "5", "--password-stdin"}, "x\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "PIM"));
}

// ---- export ---------------------------------------------------------------------------------------------------------

TEST_CASE("cli export: to a file and to stdout, sha256 equals VeraCrypt's", "[cli][export]") {
  const json& e = manifest_entry("enc-serpent-aes");
  wvtest::TempDir out;
  const std::string img = out.file("img.raw");
  auto r = run_warpvol({"export", vc("enc-serpent-aes.hc"), img, "--password-stdin", "--hash", "sha512",
                        "--engine", "cpu"},
                       e["password"].get<std::string>() + "\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  CHECK(sha256_file(img) == e["decrypted_data_area_sha256"]);
  CHECK(dir_entries(out.path().string()) == std::vector<std::string>{"img.raw"});  // no temporary left
  struct stat st;
  REQUIRE(::stat(img.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // plaintext image: owner only

  r = run_warpvol({"export", vc("enc-serpent-aes.hc"), "-", "--password-stdin", "--hash", "sha512"},
                  e["password"].get<std::string>() + "\n");
  REQUIRE(r.code == 0);
  CHECK(r.out.size() == e["decrypted_data_area_size"].get<size_t>());
  CHECK(sha256_str(r.out) == e["decrypted_data_area_sha256"]);
}

TEST_CASE("cli export: hidden volume, small chunks, progress JSON lines", "[cli][export]") {
  const json& e = manifest_entry("hidden");
  wvtest::TempDir out;
  const std::string img = out.file("hidden.raw");
  auto r = run_warpvol(with_fast({"export", vc("outer-hidden.hc"), img, "--password-stdin", "--hidden",
                                  "--chunk-size", "64K", "--progress-json"}),
                       e["password"].get<std::string>() + "\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(sha256_file(img) == e["decrypted_data_area_sha256"]);
  // stderr: JSON progress lines, the last one finished with every byte.
  std::vector<json> lines;
  std::istringstream ss(r.err);
  for (std::string line; std::getline(ss, line);)
    if (!line.empty()) lines.push_back(json::parse(line));
  REQUIRE(lines.size() >= 2);
  CHECK(lines.front()["phase"] == "export");
  CHECK(lines.front()["bytes_done"] == 0);
  CHECK(lines.back()["finished"] == true);
  CHECK(lines.back()["bytes_done"] == e["decrypted_data_area_size"]);
  CHECK(lines.back()["bytes_total"] == e["decrypted_data_area_size"]);
}

TEST_CASE("cli export: existing output is kept unless --force", "[cli][export]") {
  const json& e = manifest_entry("enc-aes");
  wvtest::TempDir out;
  const std::string img = out.file("img.raw");
  write_file(img, {1, 2, 3});
  auto r = run_warpvol(with_fast({"export", vc("enc-aes.hc"), img, "--password-stdin"}),
                       e["password"].get<std::string>() + "\n");
  CHECK(r.code == 5);
  CHECK(contains(r.err, "exists"));
  CHECK(wvtest::read_binary(img) == std::vector<uint8_t>{1, 2, 3});
  CHECK(dir_entries(out.path().string()).size() == 1);
  r = run_warpvol(with_fast({"export", vc("enc-aes.hc"), img, "--password-stdin", "--force"}),
                  e["password"].get<std::string>() + "\n");
  CHECK(r.code == 0);
  CHECK(sha256_file(img) == e["decrypted_data_area_sha256"]);
  // The volume itself is never an output.
  r = run_warpvol(with_fast({"export", vc("enc-aes.hc"), vc("enc-aes.hc"), "--password-stdin", "--force"}),
                  e["password"].get<std::string>() + "\n");
  CHECK(r.code == 1);
  CHECK(contains(r.err, "volume itself"));
  r = run_warpvol(with_fast({"export", vc("enc-aes.hc"), out.file("missing-dir/img.raw"), "--password-stdin"}),
                  e["password"].get<std::string>() + "\n");
  CHECK(r.code == 3);
  CHECK(dir_entries(out.path().string()).size() == 1);
}

// ---- negative cases ---------------------------------------------------------------------------------------------------

TEST_CASE("cli negative: wrong password, PIM, missing/extra keyfile", "[cli][negative]") {
  expect_export_fails(kFast, vc("enc-aes.hc"), "wrong-password", 2, "wrong password, PIM or keyfile");
  // pim7.hc needs PIM 7.
  expect_export_fails(with_fast({"--pim", "8"}), vc("pim7.hc"), "warpvol-dev-pim7", 2, "wrong password");
  // ... and the default PIM is wrong too.
  expect_export_fails(kFast, vc("pim7.hc"), "warpvol-dev-pim7", 2, "wrong password");
  // keyfile1.hc needs keyfile-a.key: missing, and an extra one.
  expect_export_fails(kFast, vc("keyfile1.hc"), "warpvol-dev-keyfile1", 2, "wrong password, PIM or keyfile");
  expect_export_fails(with_fast({"-k", vc("keyfile-a.key"), "-k", vc("keyfile-b.key")}), vc("keyfile1.hc"),
                      "warpvol-dev-keyfile1", 2, "wrong password, PIM or keyfile");
  // keyfile2.hc with only one of its two keyfiles.
  expect_export_fails(with_fast({"-k", vc("keyfile-b.key")}), vc("keyfile2.hc"), "warpvol-dev-keyfile2", 2,
                      "wrong password");
  // A keyfile that does not exist is an I/O error naming it.
  expect_export_fails(with_fast({"-k", vc("no-such.key")}), vc("keyfile1.hc"), "warpvol-dev-keyfile1", 3,
                      "no-such.key");
}

TEST_CASE("cli negative: files that are not volumes", "[cli][negative]") {
  wvtest::TempDir d;
  write_file(d.file("empty"), {});
  expect_export_fails(kFast, d.file("empty"), "pw", 2, "not a TrueCrypt/VeraCrypt volume (0 bytes");
  write_file(d.file("short"), std::vector<uint8_t>(300, 0x41));
  expect_export_fails(kFast, d.file("short"), "pw", 2, "smaller than one 512-byte header");
  std::vector<uint8_t> rnd(512 * 1024);
  std::mt19937 rng(12345);
  for (auto& b : rnd) b = uint8_t(rng());
  write_file(d.file("random"), rnd);
  expect_export_fails(kFast, d.file("random"), "pw", 2, "not a TrueCrypt/VeraCrypt volume");
  fs::create_directory(d.file("a-directory"));
  expect_export_fails(kFast, d.file("a-directory"), "pw", 3, "is a directory");
  expect_export_fails(kFast, d.file("does-not-exist"), "pw", 3, "No such file");
}

TEST_CASE("cli negative: unreadable file", "[cli][negative]") {
  wvtest::TempDir d;
  if (::geteuid() != 0) {
    copy_file(vc("enc-aes.hc"), d.file("locked.hc"));
    REQUIRE(::chmod(d.file("locked.hc").c_str(), 0) == 0);
    expect_export_fails(kFast, d.file("locked.hc"), "warpvol-dev-enc-aes", 3, "Permission denied");
  } else {
    // As root (CI), chmod 000 does not stop reads: use a path that cannot be opened at all instead, a symbolic
    // link that points to itself (open fails with ELOOP).
    WARN("running as root: a self-referencing symlink stands in for an unreadable file");
    fs::create_symlink(d.file("loop.hc"), d.file("loop.hc"));
    expect_export_fails(kFast, d.file("loop.hc"), "warpvol-dev-enc-aes", 3, "symbolic links");
  }
}

TEST_CASE("cli negative: damaged primary header opens via the backup and says so", "[cli][negative]") {
  const json& e = manifest_entry("enc-aes");
  wvtest::TempDir d;
  const std::string vol = d.file("damaged.hc");
  copy_file(vc("enc-aes.hc"), vol);
  flip_bit(vol, 100, 3);  // inside the encrypted part of the primary header
  wvtest::TempDir out;
  auto r = run_warpvol(with_fast({"export", vol, out.file("img.raw"), "--password-stdin"}),
                       e["password"].get<std::string>() + "\n");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(contains(r.err, "backup header"));
  CHECK(sha256_file(out.file("img.raw")) == e["decrypted_data_area_sha256"]);
  r = run_warpvol(with_fast({"info", vol, "--json", "--password-stdin"}), e["password"].get<std::string>() + "\n");
  REQUIRE(r.code == 0);
  auto j = json::parse(r.out);
  CHECK(j["header"]["used"] == "backup");
  CHECK(j["header"]["offset"] == e["container_size"].get<uint64_t>() - 131072);
  CHECK(contains(r.err, "backup header"));
}

TEST_CASE("cli negative: both headers damaged", "[cli][negative]") {
  const json& e = manifest_entry("enc-aes");
  wvtest::TempDir d;
  const std::string vol = d.file("both.hc");
  copy_file(vc("enc-aes.hc"), vol);
  flip_bit(vol, 100, 3);
  flip_bit(vol, e["container_size"].get<uint64_t>() - 131072 + 100, 3);
  expect_export_fails(kFast, vol, e["password"], 2, "wrong password, PIM or keyfile, or not a TrueCrypt/VeraCrypt");
}

TEST_CASE("cli negative: interrupted while waiting for the password", "[cli][negative]") {
  wvtest::TempDir out;
  wvtest::proc::ProcOptions po;
  po.stdin_open = true;  // the password line never comes
  po.signal_after_ms = 300;
  po.signal = SIGTERM;
  auto r = run_warpvol({"export", vc("enc-aes.hc"), out.file("img.raw"), "--password-stdin"}, po);
  CHECK(r.code == 6);
  CHECK(contains(r.err, "interrupted"));
  CHECK(dir_entries(out.path().string()).empty());
}

// ---- test and benchmark --------------------------------------------------------------------------------------------

TEST_CASE("cli test: every self-test passes, text and --json", "[cli][selftest]") {
  auto r = run_warpvol({"test"});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(contains(r.out, "all "));
  CHECK(!contains(r.out, "FAIL"));
  r = run_warpvol({"test", "--json"});
  REQUIRE(r.code == 0);
  auto j = json::parse(r.out);
  CHECK(j["failed"] == 0);
  CHECK(j["passed"].get<int>() == int(j["results"].size()));
  std::set<std::string> names;
  for (const auto& t : j["results"]) {
    CHECK(t["ok"] == true);
    CHECK(t["cases"].get<int>() > 0);
    names.insert(t["name"].get<std::string>());
  }
  // Every cipher, all 15 chains, the KDFs and the keyfile pool have their line.
  for (const char* n : {"AES-256 block cipher", "Serpent-256 block cipher", "Twofish-256 block cipher",
                        "Camellia-256 block cipher", "Kuznyechik-256 block cipher", "XTS-AES-256", "Argon2id",
                        "Keyfile pool", "PBKDF2-HMAC-SHA-512", "PBKDF2-HMAC-Streebog", "HMAC-Whirlpool",
                        "XTS chain Kuznyechik-Serpent-Camellia", "Volume header"})
    CHECK(names.count(n) == 1);
  int chains = 0;
  for (const auto& n : names) chains += n.rfind("XTS chain ", 0) == 0;
  CHECK(chains == 15);
}

TEST_CASE("cli benchmark: --json rows for XTS and KDF", "[cli][benchmark]") {
  auto r = run_warpvol({"benchmark", "--size", "64K", "--min-time", "0", "--engine", "cpu", "--threads", "1",
                        "--iterations", "1000", "--hash", "sha512", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto j = json::parse(r.out);
  REQUIRE(j.is_array());
  int xts = 0, kdf = 0;
  std::set<int> blocks;
  for (const auto& row : j) {
    if (row["kind"] == "xts") {
      ++xts;
      CHECK(row["engine"] == "cpu");
      CHECK(row["threads"] == 1);
      CHECK(row["size_bytes"] == 65536);
      CHECK(row["encrypt_MBps"].get<double>() > 0);
      CHECK(row["decrypt_MBps"].get<double>() > 0);
      CHECK(!row["isa"].get<std::string>().empty());
    } else if (row["kind"] == "kdf") {
      ++kdf;
      CHECK(row["prf"] == "sha512");
      CHECK(row["iterations"] == 1000);
      CHECK(row["seconds"].get<double>() >= 0);
      blocks.insert(row["blocks"].get<int>());
    }
  }
  CHECK(xts == 15);
  // One block; where SHA-512 has SIMD lanes on this CPU, also one header location's three blocks together.
  if (warpvol::pbkdf2_lane_width(warpvol::PrfId::Sha512) > 1) {
    CHECK(kdf == 2);
    CHECK(blocks == std::set<int>{1, 3});
  } else {
    CHECK(kdf == 1);
    CHECK(blocks == std::set<int>{1});
  }

  r = run_warpvol({"benchmark", "--size", "64K", "--min-time", "0", "--engine", "cpu", "--encryption", "aes",
                   "--xts-only"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "CPU path:"));
  CHECK(contains(r.out, "AES"));
  r = run_warpvol({"benchmark", "--size", "1000"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "multiple of 512"));
#ifndef WARPVOL_HAVE_GPU
  r = run_warpvol({"benchmark", "--engine", "gpu", "--size", "64K"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "gpu"));
  r = run_warpvol({"benchmark", "--calibrate"});
  CHECK(r.code == 1);
  CHECK(contains(r.err, "calibrate"));
#endif
}

// ---- terminal ---------------------------------------------------------------------------------------------------------


namespace {

struct PtyRun {
  int code = -1;
  std::string output;     // everything the terminal showed (stdout and stderr)
  bool echo_was_off = false;
};

// Runs warpvol on a pseudo-terminal; when the password prompt appears, records whether echo is off and types
// `typed` followed by Enter.
PtyRun run_on_pty(const std::vector<std::string>& args, const std::string& typed) {
  PtyRun r;
  int master = -1;
  std::vector<std::string> argv{wvtest::proc::warpvol_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  bool typed_done = false;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EIO once the child has exited and the slave is closed
    r.output.append(buf, size_t(n));
    if (!typed_done && r.output.find("Enter password for") != std::string::npos) {
      struct termios t;
      // Wait until the program has switched echo off (it does so right after printing the prompt).
      for (int i = 0; i < 200; ++i) {
        if (::tcgetattr(master, &t) == 0 && !(t.c_lflag & ECHO)) {
          r.echo_was_off = true;
          break;
        }
        ::usleep(10000);
      }
      std::string line = typed + "\n";
      REQUIRE(::write(master, line.data(), line.size()) == ssize_t(line.size()));
      typed_done = true;
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace

TEST_CASE("cli on a terminal: password prompt with echo off", "[cli][tty]") {
  const json& e = manifest_entry("enc-aes");
  const std::string pw = e["password"];
  auto r = run_on_pty(with_fast({"info", vc("enc-aes.hc")}), pw);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.echo_was_off);
  CHECK(contains(r.output, "Enter password for " + vc("enc-aes.hc") + ": "));
  CHECK(r.output.find(pw) == std::string::npos);  // the typed password never appears
  CHECK(contains(r.output, "VeraCrypt"));
  // --non-interactive never prompts, even on a terminal.
  auto n = run_on_pty({"info", vc("enc-aes.hc"), "--non-interactive"}, pw);
  CHECK(n.code == 1);
  CHECK(!contains(n.output, "Enter password"));
}

TEST_CASE("cli on a terminal: export shows a progress line, refuses binary to the terminal", "[cli][tty]") {
  const json& e = manifest_entry("fat");
  wvtest::TempDir out;
  auto r = run_on_pty(with_fast({"export", vc("fat.hc"), out.file("img.raw")}), e["password"]);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(contains(r.output, "export"));
  CHECK(contains(r.output, "768 KiB / 768 KiB"));
  CHECK(contains(r.output, "100.0%"));
  CHECK(sha256_file(out.file("img.raw")) == e["decrypted_data_area_sha256"]);
  auto t = run_on_pty(with_fast({"export", vc("fat.hc"), "-"}), e["password"]);
  CHECK(t.code == 1);
  CHECK(contains(t.output, "refusing to write decrypted data to a terminal"));
}

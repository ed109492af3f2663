// The byte-level entry points of parsers that the fuzz targets (tests/fuzz/) drive: each gives the same answers
// as the file- or pipe-reading function around it.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/credentials_file.h"
#include "core/engine/engine_factory.h"
#include "core/format/header_writer.h"
#include "core/format/open.h"
#include "core/kdf/prf.h"
#include "core/mount/mount_spec.h"
#include "core/mount/runtime.h"
#include "core/util/error.h"
#include "tests/support/test_support.h"

using namespace warpvol;

TEST_CASE("open_decrypted_header decides as open_header does for the same header", "[seams]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("tc.hc");
  const uint64_t H = 1 << 20;
  { std::ofstream create(path); }
  std::filesystem::resize_file(path, H);
  Credentials cred;
  cred.password = LockedBytes(reinterpret_cast<const uint8_t*>("fuzz"), 4);
  const KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::TrueCrypt, 0);
  const HeaderKey key = new_header_key(ChainId::Serpent, kdf, header_kdf_password(cred, VolumeFormat::TrueCrypt));
  HeaderFields f = normal_volume_fields(H, 512, ChainId::Serpent, new_master_key(ChainId::Serpent));
  f.magic = kMagicTrue;
  f.required_version = kTrueRequiredVersion;
  const EncryptedHeader enc = seal_header(f, key);
  {
    auto file = open_file(path, OpenMode::ReadWrite);
    write_header(*file, 0, enc);
  }
  auto file = open_file(path, OpenMode::ReadOnly);
  OpenOptions opt;
  opt.credentials = cred;
  opt.format = VolumeFormat::TrueCrypt;
  opt.prf = PrfId::Sha512;
  opt.chain = ChainId::Serpent;
  const OpenedHeader by_search = open_header(*file, opt);

  EncryptedHeader plain = enc;
  decrypt_header(ChainId::Serpent, key.key.data(), plain.data());
  DecryptedHeader d;
  d.plain = plain.data();
  d.loc = {SlotKind::Normal, 0, false};
  d.format = VolumeFormat::TrueCrypt;
  d.chain = ChainId::Serpent;
  d.kdf = kdf;
  const OpenedHeader direct = open_decrypted_header(*file, opt, d);
  CHECK(direct.data_offset == by_search.data_offset);
  CHECK(direct.data_size == by_search.data_size);
  CHECK(direct.first_unit == by_search.first_unit);
  CHECK(direct.slot == by_search.slot);
  CHECK(direct.salt == by_search.salt);
  CHECK(direct.data_offset == kDataOffsetV2);

  plain[100] ^= 1;  // a field byte: the header CRC no longer matches, as for a wrong key
  try {
    open_decrypted_header(*file, opt, d);
    FAIL("a header with a bad CRC was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Auth);
  }
}

TEST_CASE("parse_spec reads what write_spec wrote and refuses trailing bytes", "[seams]") {
  mount::MountSpec s;
  s.slot = 5;
  s.container = "/c.hc";
  s.key_material = LockedBytes(64);
  s.data_size = 4096;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  mount::write_spec(fds[1], s);
  ::close(fds[1]);
  std::vector<uint8_t> all(1 << 16);
  const ssize_t n = ::read(fds[0], all.data(), all.size());
  ::close(fds[0]);
  REQUIRE(n > 8);
  all.resize(size_t(n));
  const mount::MountSpec back = mount::parse_spec(all.data() + 8, all.size() - 8);
  CHECK(back.slot == 5);
  CHECK(back.container == "/c.hc");
  CHECK(back.data_size == 4096);
  all.push_back(0);
  CHECK_THROWS_AS(mount::parse_spec(all.data() + 8, all.size() - 8), Error);
}

TEST_CASE("crossover_from_json: named chains override the defaults, damage gives the defaults", "[seams]") {
  const auto defaults = crossover_from_json("");
  const auto c = crossover_from_json(R"({"aes": 12345, "serpent": null})");
  CHECK(c.at(ChainId::Aes) == 12345);
  CHECK(c.at(ChainId::Serpent) == SIZE_MAX);
  CHECK(c.at(ChainId::Twofish) == defaults.at(ChainId::Twofish));
  CHECK(crossover_from_json("{\"aes\": ") == defaults);
}

TEST_CASE("parse_credentials_text counts entries and names the bad line", "[seams]") {
  CHECK(cli::parse_credentials_text("{\"volume\": \"a.hc\", \"password\": \"x\"}\n\n"
                                    "{\"volume\": \"b.hc\", \"keyfiles\": [\"k\"]}\n",
                                    "creds") == 2);
  try {
    cli::parse_credentials_text("{\"volume\": \"a.hc\", \"password\": \"x\"}\n{\"volume\": \"b\", \"pasword\": \"y\"}\n",
                                "creds");
    FAIL("an unknown key was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()).find("creds line 2") != std::string::npos);
  }
}

// Found by tests/fuzz: numbers that nlohmann's get<int>() would convert with an undefined (1e300) or silently
// truncating (2.5, -1 as uid_t) cast are refused.
TEST_CASE("mount records and daemon states refuse non-integer and out-of-range numbers", "[seams]") {
  CHECK(mount::record_from_json(R"({"slot": 3, "uid": 1000})").slot == 3);
  CHECK_THROWS_AS(mount::record_from_json(R"({"slot": 1e300})"), Error);
  CHECK_THROWS_AS(mount::record_from_json(R"({"slot": 2.5})"), Error);
  CHECK_THROWS_AS(mount::record_from_json(R"({"slot": 2, "uid": -1})"), Error);
  CHECK_THROWS_AS(mount::record_from_json(R"({"slot": 2, "pid": 4294967296})"), Error);
  CHECK(mount::state_from_json(R"({"reads": 18446744073709551615})").reads == UINT64_MAX);
  CHECK_THROWS_AS(mount::state_from_json(R"({"reads": 1.5})"), Error);
  CHECK_THROWS_AS(mount::state_from_json(R"({"reads": -1})"), Error);
}

TEST_CASE("a credentials file's PIM must be a whole number in range", "[seams]") {
  CHECK(cli::parse_credentials_text("{\"volume\": \"a\", \"password\": \"x\", \"pim\": 7}\n", "c") == 1);
  for (const char* pim : {"7.9", "1e300", "-1", "18446744073709551615"}) {
    INFO(pim);
    CHECK_THROWS_AS(
        cli::parse_credentials_text(std::string("{\"volume\": \"a\", \"password\": \"x\", \"pim\": ") + pim + "}\n", "c"),
        Error);
  }
}

namespace {

// A 1 MiB container whose primary normal header is sealed with password "fuzz", TrueCrypt, HMAC-SHA-512 and AES
// at `iterations` PBKDF2 iterations.
void write_truecrypt_container(const std::string& path, uint32_t iterations) {
  const uint64_t H = 1 << 20;
  { std::ofstream create(path); }
  std::filesystem::resize_file(path, H);
  Credentials cred;
  cred.password = LockedBytes(reinterpret_cast<const uint8_t*>("fuzz"), 4);
  KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::TrueCrypt, 0);
  kdf.iterations = iterations;
  HeaderFields f = normal_volume_fields(H, 512, ChainId::Aes, new_master_key(ChainId::Aes));
  f.magic = kMagicTrue;
  f.required_version = kTrueRequiredVersion;
  const EncryptedHeader enc = build_header(f, ChainId::Aes, kdf, header_kdf_password(cred, VolumeFormat::TrueCrypt));
  auto file = open_file(path, OpenMode::ReadWrite);
  write_header(*file, 0, enc);
}

OpenOptions truecrypt_sha512_aes() {
  OpenOptions opt;
  opt.credentials.password = LockedBytes(reinterpret_cast<const uint8_t*>("fuzz"), 4);
  opt.format = VolumeFormat::TrueCrypt;
  opt.prf = PrfId::Sha512;
  opt.chain = ChainId::Aes;
  return opt;
}

// The ErrorKind open_header throws, as a number; 0 when the header opened.
int open_error(BlockFile& file, const OpenOptions& opt) {
  try {
    open_header(file, opt);
  } catch (const Error& e) {
    return int(e.kind());
  }
  return 0;
}

}  // namespace

TEST_CASE("the test-only PBKDF2 iteration seam opens cheap headers and stays off by default", "[seams]") {
  const uint32_t real = pbkdf2_iterations(PrfId::Sha512, VolumeFormat::TrueCrypt, 0, false);
  REQUIRE(real == 1000);
  wvtest::TempDir dir;
  const std::string cheap_path = dir.file("cheap.hc"), real_path = dir.file("real.hc");
  write_truecrypt_container(cheap_path, 2);
  write_truecrypt_container(real_path, real);
  auto cheap = open_file(cheap_path, OpenMode::ReadOnly);
  auto real_file = open_file(real_path, OpenMode::ReadOnly);

  // With the seam: the cheap header opens, derived at the seam's count; the real one does not.
  OpenOptions seam = truecrypt_sha512_aes();
  seam.test_only_pbkdf2_iterations = 2;
  const OpenedHeader o = open_header(*cheap, seam);
  CHECK(o.kdf.iterations == 2);
  CHECK(o.chain == ChainId::Aes);
  CHECK(o.data_offset == kDataOffsetV2);
  CHECK(open_error(*real_file, seam) == int(ErrorKind::Auth));

  // Default options: the real count. The cheap header is a wrong password, the real one opens at 1000 iterations.
  const OpenOptions plain = truecrypt_sha512_aes();
  CHECK(plain.test_only_pbkdf2_iterations == 0);
  CHECK(open_error(*cheap, plain) == int(ErrorKind::Auth));
  const OpenedHeader r = open_header(*real_file, plain);
  CHECK(r.kdf.iterations == real);
}

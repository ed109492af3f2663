// System encryption as VeraCrypt maps it: a drive image's partition table (MBR with logical partitions, GPT), the
// partition itself as the volume with data units counted from the drive's start, and an encryption that did not
// finish (ciphertext only over the encrypted-area length, the rest plaintext, read-only, a notice whose numbers
// say which is which); an image of ONE partition, opened with its offset within the drive and the header from a
// separate file (the drive's first track, a 512-byte copy of sector 62, a rescue-disk ISO), through the core and
// through the command line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>

#include "core/crypto/chain.h"
#include "core/engine/cpu_engine.h"
#include "core/format/header_writer.h"
#include "core/format/partition_table.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/volume/volume.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

void mbr_entry(std::vector<uint8_t>& sector, int i, uint8_t type, uint32_t lba, uint32_t n) {
  uint8_t* e = sector.data() + 446 + 16 * i;
  e[4] = type;
  store_le32(e + 8, lba);
  store_le32(e + 12, n);
  sector[510] = 0x55;
  sector[511] = 0xaa;
}

void write_file(const std::string& path, const std::vector<uint8_t>& d) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(d.data()), std::streamsize(d.size()));
}

std::vector<uint8_t> read_whole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& d, size_t off, size_t n) {
  return {d.begin() + std::ptrdiff_t(off), d.begin() + std::ptrdiff_t(off + n)};
}

constexpr uint32_t kP1 = 128, kP1n = 64, kP2 = 256, kP2n = 512;  // sectors
constexpr size_t kDrive = 1024 * 512;

// A drive image: MBR with partition 1 [128, +64) and 2 [256, +512) sectors; a system header at sector 62 whose key
// scope is partition 2 and whose encrypted length is `encrypted` bytes; partition 2's first `encrypted` bytes
// encrypted with data units numbered from the drive's start, the rest plaintext.
std::vector<uint8_t> system_drive(const std::vector<uint8_t>& plain, uint64_t encrypted, LockedBytes& pw) {
  std::vector<uint8_t> d(kDrive, 0);
  std::vector<uint8_t> mbr(512, 0);
  mbr_entry(mbr, 0, 0x07, kP1, kP1n);
  mbr_entry(mbr, 1, 0x07, kP2, kP2n);
  std::memcpy(d.data(), mbr.data(), 512);
  std::mt19937 rng(3);
  HeaderFields f;
  f.flags = kFlagSystem;
  f.volume_size = uint64_t(kP2n) * 512;
  f.encrypted_area_start = uint64_t(kP2) * 512;
  f.encrypted_area_length = encrypted;
  for (size_t i = 0; i < 64; ++i) f.key_area.data()[i] = uint8_t(rng());
  KdfChoice kdf{PrfId::Sha256, pbkdf2_iterations(PrfId::Sha256, VolumeFormat::VeraCrypt, 0, true)};
  auto h = build_header(f, ChainId::Aes, kdf, pw);
  std::memcpy(d.data() + kSystemHeaderOffset, h.data(), h.size());
  std::vector<uint8_t> data = plain;
  XtsChain(ChainId::Aes, f.key_area.data()).encrypt(kP2, data.data(), encrypted / 512);
  std::memcpy(d.data() + size_t(kP2) * 512, data.data(), data.size());
  return d;
}

// Partition 2's plaintext: seeded noise of its size.
std::vector<uint8_t> partition_plain(unsigned seed) {
  std::vector<uint8_t> plain(size_t(kP2n) * 512);
  std::mt19937 rng(seed);
  for (auto& b : plain) b = uint8_t(rng());
  return plain;
}

OpenOptions system_options(LockedBytes& pw) {
  OpenOptions o;
  o.credentials.password = LockedBytes(pw.data(), pw.size());
  o.system = true;
  o.prf = PrfId::Sha256;
  o.chain = ChainId::Aes;
  return o;
}

}  // namespace

TEST_CASE("Partition tables: MBR primaries and logical partitions, GPT", "[system][partition]") {
  wvtest::TempDir tmp;
  std::vector<uint8_t> d(2048 * 512, 0);
  std::vector<uint8_t> mbr(512, 0);
  mbr_entry(mbr, 0, 0x07, 2, 10);
  mbr_entry(mbr, 1, 0x0f, 100, 900);  // extended
  std::memcpy(d.data(), mbr.data(), 512);
  std::vector<uint8_t> ebr1(512, 0), ebr2(512, 0);
  mbr_entry(ebr1, 0, 0x83, 1, 20);    // sda5 at 101
  mbr_entry(ebr1, 1, 0x05, 50, 30);   // next EBR at 100 + 50
  mbr_entry(ebr2, 0, 0x83, 2, 7);     // sda6 at 152
  std::memcpy(d.data() + 100 * 512, ebr1.data(), 512);
  std::memcpy(d.data() + 150 * 512, ebr2.data(), 512);
  write_file(tmp.file("mbr.img"), d);
  auto f = open_file(tmp.file("mbr.img"), OpenMode::ReadOnly);
  auto parts = read_partition_table(*f);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].number == 1);
  CHECK(parts[0].offset == 2 * 512);
  CHECK(parts[1].number == 5);
  CHECK(parts[1].offset == 101 * 512);
  CHECK(parts[1].size == 20 * 512);
  CHECK(parts[2].number == 6);
  CHECK(parts[2].offset == 152 * 512);
  CHECK(partition_containing(parts, 152 * 512 + 100)->number == 6);

  // GPT: protective MBR, header at LBA 1, 128 entries of 128 bytes at LBA 2; entries 1 and 3 used.
  std::vector<uint8_t> g(2048 * 512, 0);
  std::vector<uint8_t> pm(512, 0);
  mbr_entry(pm, 0, 0xee, 1, 2047);
  std::memcpy(g.data(), pm.data(), 512);
  std::memcpy(g.data() + 512, "EFI PART", 8);
  store_le64(g.data() + 512 + 72, 2);
  store_le32(g.data() + 512 + 80, 128);
  store_le32(g.data() + 512 + 84, 128);
  auto entry = [&](int i, uint64_t first, uint64_t last) {
    uint8_t* e = g.data() + 2 * 512 + 128 * i;
    e[0] = 0xa2;  // any non-zero type GUID
    store_le64(e + 32, first);
    store_le64(e + 40, last);
  };
  entry(0, 34, 99);
  entry(2, 200, 299);
  write_file(tmp.file("gpt.img"), g);
  auto gf = open_file(tmp.file("gpt.img"), OpenMode::ReadOnly);
  auto gp = read_partition_table(*gf);
  REQUIRE(gp.size() == 2);
  CHECK(gp[0].number == 1);
  CHECK(gp[0].size == 66 * 512);
  CHECK(gp[1].number == 3);
  CHECK(gp[1].offset == 200 * 512);
}

TEST_CASE("System partition: the partition itself, units from the drive's start, unfinished encryption",
          "[system][partition]") {
  wvtest::TempDir tmp;
  LockedBytes pw(reinterpret_cast<const uint8_t*>("system pw"), 9);
  const std::vector<uint8_t> plain = partition_plain(5);
  auto engine = std::make_shared<CpuEngine>(1);

  SECTION("finished: the default partition is the one holding the first encrypted byte") {
    write_file(tmp.file("d.img"), system_drive(plain, plain.size(), pw));
    for (std::optional<int> n : {std::optional<int>(), std::optional<int>(2)}) {
      OpenOptions o = system_options(pw);
      o.system_partition = n;
      auto v = Volume::open(tmp.file("d.img"), o, engine, false);
      CHECK(v->header().system_partition == 2);
      CHECK(v->header().data_offset == kP2 * 512);
      CHECK(v->size() == plain.size());
      CHECK(v->header().first_unit == kP2);
      CHECK_FALSE(v->header().read_only);
      std::vector<uint8_t> got(plain.size());
      v->read(0, got.data(), got.size());
      CHECK(got == plain);
    }
    OpenOptions o = system_options(pw);
    o.system_partition = 1;  // outside the key scope
    CHECK_THROWS_AS(Volume::open(tmp.file("d.img"), o, engine, false), Error);
    o.system_partition = 9;
    CHECK_THROWS_AS(Volume::open(tmp.file("d.img"), o, engine, false), Error);
  }

  SECTION("unfinished: ciphertext only over the encrypted length, the rest as it lies, read-only") {
    const uint64_t encrypted = 100 * 512;
    write_file(tmp.file("d.img"), system_drive(plain, encrypted, pw));
    OpenOptions o = system_options(pw);
    std::string notice;
    o.notice = [&](const std::string& m) { notice += m; };
    auto v = Volume::open(tmp.file("d.img"), o, engine, true);
    CHECK(v->size() == plain.size());  // the partition, not the encrypted length
    CHECK(v->header().read_only);
    std::vector<uint8_t> got(plain.size());
    v->read(0, got.data(), got.size());
    CHECK(got == plain);
    // Each number with its role: the volume's size, then the bytes encrypted.
    CHECK(notice.find("of its " + std::to_string(plain.size()) + "-byte volume") != std::string::npos);
    CHECK(notice.find("only " + std::to_string(encrypted) + " bytes are encrypted") != std::string::npos);
    uint8_t b[512] = {};
    CHECK_THROWS_AS(v->write(0, b, sizeof b), Error);
  }
}

namespace {

// The files a user holding one partition's image would have: the partition (sectors [kP2, kP2 + n) of the drive),
// and the header's copies: the drive's first 63 sectors, sector 62 alone (the EFI rescue disk's svh_bak) and a
// rescue-disk ISO (ISO 9660 descriptor at 0x8000, the boot track's copy at 0xd000, so the header at 0xd000 + 31744).
struct PartitionImageFiles {
  std::string partition, track, sector62, iso, drive;
};

PartitionImageFiles partition_image_files(const wvtest::TempDir& tmp, const std::vector<uint8_t>& drive,
                                          size_t sectors = kP2n) {
  PartitionImageFiles f{tmp.file("part.img"), tmp.file("track.img"), tmp.file("svh_bak"), tmp.file("rescue.iso"),
                        tmp.file("drive.img")};
  write_file(f.drive, drive);
  write_file(f.partition, slice(drive, size_t(kP2) * 512, sectors * 512));
  write_file(f.track, slice(drive, 0, 63 * 512));
  write_file(f.sector62, slice(drive, kSystemHeaderOffset, 512));
  std::vector<uint8_t> iso(0xd000 + 63 * 512, 0);
  std::memcpy(iso.data() + 0x8000, "\1CD001\1", 7);
  std::memcpy(iso.data() + 0xd000 + kSystemHeaderOffset, drive.data() + kSystemHeaderOffset, 512);
  write_file(f.iso, iso);
  return f;
}

ErrorKind error_kind_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind();
  }
  FAIL("no error");
  return ErrorKind::Interrupted;
}

}  // namespace

TEST_CASE("System partition image: --partition-offset with the header from a separate file",
          "[system][partition][partition_offset]") {
  wvtest::TempDir tmp;
  LockedBytes pw(reinterpret_cast<const uint8_t*>("system pw"), 9);
  const std::vector<uint8_t> plain = partition_plain(11);
  auto engine = std::make_shared<CpuEngine>(1);

  SECTION("finished: the image itself is the volume, units from the given offset, any header copy") {
    const auto f = partition_image_files(tmp, system_drive(plain, plain.size(), pw));
    // The same partition opened from the whole drive, as a reference.
    OpenOptions whole = system_options(pw);
    whole.system_partition = 2;
    auto ref = Volume::open(f.drive, whole, engine, false);
    std::vector<uint8_t> from_drive(plain.size());
    ref->read(0, from_drive.data(), from_drive.size());
    REQUIRE(from_drive == plain);
    for (const std::string& header : {f.track, f.sector62, f.iso, f.drive}) {
      INFO(header);
      OpenOptions o = system_options(pw);
      o.system_partition_offset = uint64_t(kP2) * 512;
      o.system_header_file = header;
      auto v = Volume::open(f.partition, o, engine, false);
      CHECK(v->header().data_offset == 0);
      CHECK(v->size() == plain.size());
      CHECK(v->header().first_unit == kP2);
      CHECK(v->header().header_file == header);
      CHECK_FALSE(v->header().read_only);
      std::vector<uint8_t> got(plain.size());
      v->read(0, got.data(), got.size());
      CHECK(got == from_drive);
    }
  }

  SECTION("the offset sets the tweaks: a wrong one inside the key scope reads garbage, one outside is refused") {
    // The first half of the partition: an image that fits the key scope at more than one offset.
    const size_t half = kP2n / 2;
    const auto f = partition_image_files(tmp, system_drive(plain, plain.size(), pw), half);
    const std::vector<uint8_t> want = slice(plain, 0, half * 512);
    auto read_at_offset = [&](uint64_t off) {
      OpenOptions o = system_options(pw);
      o.system_partition_offset = off;
      o.system_header_file = f.track;
      auto v = Volume::open(f.partition, o, engine, false);
      std::vector<uint8_t> got(v->size());
      v->read(0, got.data(), got.size());
      return got;
    };
    CHECK(read_at_offset(uint64_t(kP2) * 512) == want);
    const auto wrong = read_at_offset(uint64_t(kP2 + 1) * 512);
    REQUIRE(wrong.size() == want.size());
    size_t same = 0;
    for (size_t i = 0; i < want.size(); ++i) same += wrong[i] == want[i];
    CHECK(same < want.size() / 64);  // chance agreement only
    for (uint64_t off : {uint64_t(kP1) * 512, uint64_t(kP2 + kP2n) * 512, uint64_t(kP2) * 512 + 100}) {
      OpenOptions o = system_options(pw);
      o.system_partition_offset = off;
      o.system_header_file = f.track;
      CHECK(error_kind_of([&] { Volume::open(f.partition, o, engine, false); }) == ErrorKind::Usage);
    }
  }

  SECTION("unfinished: the whole partition, ciphertext only over the encrypted length, read-only") {
    const uint64_t encrypted = 100 * 512;
    const auto f = partition_image_files(tmp, system_drive(plain, encrypted, pw));
    OpenOptions o = system_options(pw);
    o.system_partition_offset = uint64_t(kP2) * 512;
    o.system_header_file = f.sector62;
    std::string notice;
    o.notice = [&](const std::string& m) { notice += m; };
    auto v = Volume::open(f.partition, o, engine, true);
    CHECK(v->size() == plain.size());
    CHECK(v->header().read_only);
    std::vector<uint8_t> got(plain.size());
    v->read(0, got.data(), got.size());
    CHECK(got == plain);
    CHECK(notice.find("of its " + std::to_string(plain.size()) + "-byte volume") != std::string::npos);
    CHECK(notice.find("only " + std::to_string(encrypted) + " bytes are encrypted") != std::string::npos);
    uint8_t b[512] = {};
    CHECK_THROWS_AS(v->write(0, b, sizeof b), Error);
  }

  SECTION("no header: the partition image alone, or a header file that is none of the known kinds") {
    const auto f = partition_image_files(tmp, system_drive(plain, plain.size(), pw));
    OpenOptions o = system_options(pw);
    o.system_partition_offset = uint64_t(kP2) * 512;
    CHECK(error_kind_of([&] { Volume::open(f.partition, o, engine, false); }) == ErrorKind::Usage);
    write_file(tmp.file("short"), std::vector<uint8_t>(1000, 0));
    o.system_header_file = tmp.file("short");
    CHECK(error_kind_of([&] { Volume::open(f.partition, o, engine, false); }) == ErrorKind::Usage);
    o.system_header_file = tmp.file("missing");
    CHECK(error_kind_of([&] { Volume::open(f.partition, o, engine, false); }) == ErrorKind::Io);
    // The header copy of another drive: nothing decrypts.
    write_file(tmp.file("zeros"), std::vector<uint8_t>(63 * 512, 0));
    o.system_header_file = tmp.file("zeros");
    CHECK(error_kind_of([&] { Volume::open(f.partition, o, engine, false); }) == ErrorKind::Auth);
  }
}

TEST_CASE("System partition image from the command line: info, export, bad option combinations",
          "[system][partition][partition_offset][cli]") {
  using wvtest::proc::run_warpvol;
  wvtest::TempDir tmp;
  LockedBytes pw(reinterpret_cast<const uint8_t*>("system pw"), 9);
  const std::vector<uint8_t> plain = partition_plain(13);
  const auto f = partition_image_files(tmp, system_drive(plain, plain.size(), pw));
  const std::vector<std::string> narrow = {"--system", "--hash", "sha256", "--encryption", "aes", "--password-stdin"};
  auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), narrow.begin(), narrow.end());
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::string sectors = std::to_string(kP2) + "s", bytes = std::to_string(uint64_t(kP2) * 512);

  SECTION("export: the partition's plaintext, the same as from the whole drive with --partition 2") {
    auto r = run_warpvol(with({"export", f.partition, tmp.file("a.raw")}, {"--partition-offset", sectors,
                                                                           "--header-file", f.track}),
                         "system pw\n");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(read_whole(tmp.file("a.raw")) == plain);
    r = run_warpvol(with({"export", f.drive, tmp.file("b.raw")}, {"--partition", "2"}), "system pw\n");
    REQUIRE(r.code == 0);
    CHECK(read_whole(tmp.file("b.raw")) == plain);
    // A whole drive takes a header copy too (its own sector 62 damaged: the rescue disk's copy).
    r = run_warpvol(with({"export", f.drive, tmp.file("c.raw")}, {"--partition", "2", "--header-file", f.iso}),
                    "system pw\n");
    REQUIRE(r.code == 0);
    CHECK(read_whole(tmp.file("c.raw")) == plain);
    // Bytes work as well as sectors; info names the header's file and the first data unit.
    r = run_warpvol(with({"info", f.partition}, {"--partition-offset", bytes, "--header-file", f.sector62}),
                    "system pw\n");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("First data unit:       " + std::to_string(kP2)) != std::string::npos);
    CHECK(r.out.find("of " + f.sector62) != std::string::npos);
  }

  SECTION("bad combinations and values: one clear line, exit 1") {
    struct Bad {
      std::vector<std::string> args;
      std::string says;
    };
    const std::vector<Bad> bad = {
        {{"info", f.partition, "--partition-offset", sectors, "--header-file", f.track, "--password-stdin"},
         "goes with --system"},
        {with({"info", f.partition}, {"--partition-offset", sectors}), "needs --header-file"},
        {with({"info", f.partition}, {"--partition-offset", sectors, "--partition", "2", "--header-file", f.track}),
         "exclude each other"},
        {with({"info", f.partition}, {"--partition-offset", "1000", "--header-file", f.track}), "multiple of 512"},
        {with({"info", f.partition}, {"--partition-offset", "12x", "--header-file", f.track}), "bad size unit"},
        {with({"info", f.partition}, {"--partition-offset", "s", "--header-file", f.track}), "sector count"},
        {{"info", f.partition, "--header-file", f.track, "--password-stdin"}, "goes with --system"},
        {with({"info", f.partition}, {"--partition-offset", std::to_string(kP1) + "s", "--header-file", f.track}),
         "outside the system encryption's key scope"},
    };
    for (const Bad& b : bad) {
      auto r = run_warpvol(b.args, "system pw\n");
      INFO(b.args[2] << " " << b.args[3] << ": " << r.err);
      CHECK(r.code == 1);
      CHECK(r.err.find(b.says) != std::string::npos);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    // A missing header file is an I/O error, reported before any password is asked for.
    auto r = run_warpvol(with({"info", f.partition}, {"--partition-offset", sectors, "--header-file",
                                                      tmp.file("missing")}));
    CHECK(r.code == 3);
  }
}

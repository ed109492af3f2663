// Mount logic that needs no root: the plaintext device (reads against VeraCrypt's own plaintext hashes, partial
// and concurrent writes against an independent reader, hidden-volume protection on VeraCrypt's outer+hidden
// container), the registry, the spec passed to the FUSE process, filesystem detection, option parsing, mkfs
// checks. The FUSE/loop end-to-end paths are in test_mount_e2e.cpp and tests/scripts/test_mount_*.sh.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cryptopp/hex.h>
#include <cryptopp/sha.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "core/engine/cpu_engine.h"
#include "core/format/open.h"
#include "core/mount/filesystem.h"
#include "core/mount/mount_spec.h"
#include "core/mount/runtime.h"
#include "core/util/aligned_buffer.h"
#include "core/util/error.h"
#include "core/volume/plain_device.h"
#include "core/volume/volume.h"
#include "tests/support/test_support.h"
#include "tests/support/thread_checks.h"

using namespace warpvol;
using namespace warpvol::mount;
using json = nlohmann::json;

namespace {

std::string sha256_hex(const uint8_t* p, size_t n) {
  CryptoPP::SHA256 h;
  std::string out;
  uint8_t d[32];
  h.CalculateDigest(d, p, n);
  CryptoPP::StringSource ss(d, 32, true, new CryptoPP::HexEncoder(new CryptoPP::StringSink(out), false));
  return out;
}

json manifest_entry(const std::string& file, const std::string& kase) {
  json m = json::parse(wvtest::read_text(wvtest::vectors_dir() + "/veracrypt/MANIFEST.json"));
  for (const auto& f : m["files"])
    if (f["file"] == file && f["case"] == kase) return f;
  FAIL("no manifest entry " << file << " / " << kase);
  return {};
}

OpenOptions options_for(const json& e, std::optional<SlotKind> slot = std::nullopt) {
  OpenOptions o;
  const std::string pw = e["password"].get<std::string>();
  o.credentials.password = LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
  o.prf = PrfId::Sha512;
  o.chain = ChainId::Aes;
  o.slot = slot;
  return o;
}

std::string copy_vector(const wvtest::TempDir& dir, const std::string& name) {
  const std::string dst = dir.file(name);
  std::filesystem::copy_file(wvtest::vectors_dir() + "/veracrypt/" + name, dst);
  return dst;
}

struct Opened {
  std::unique_ptr<BlockFile> file;
  OpenedHeader header;
  std::shared_ptr<XtsEngine> engine;
  std::shared_ptr<const EngineKey> key;
  DataLayout layout() const { return {header.data_offset, header.data_size, header.first_unit}; }
};

// The device as warpvol-mountd builds it: from the layout alone.
PlainDevice device(Opened& o, bool read_only, HiddenProtection prot = {}) {
  DeviceOptions d;
  d.read_only = read_only;
  d.protection = prot;
  d.direct_reads = true;
  return PlainDevice(*o.file, o.layout(), o.engine, o.key, d);
}

std::unique_ptr<Opened> open_fd(const std::string& path, const OpenOptions& o, bool writable) {
  auto r = std::make_unique<Opened>();
  r->file = open_file(path, writable ? OpenMode::ReadWrite : OpenMode::ReadOnly);
  r->header = open_header(*r->file, o);
  r->engine = std::make_shared<CpuEngine>(2);
  r->key = r->engine->prepare(r->header.chain, r->header.fields.key_area.data());
  return r;
}

std::vector<uint8_t> read_all(PlainDevice& d) {
  std::vector<uint8_t> v(d.size());
  d.read(0, v.data(), v.size());
  return v;
}

// The independent reader: core's Volume (its own open of the file).
std::vector<uint8_t> read_with_volume(const std::string& path, const OpenOptions& o) {
  auto vol = Volume::open(path, o, std::make_shared<CpuEngine>(1), false);
  std::vector<uint8_t> v(vol->size());
  vol->read(0, v.data(), v.size());
  return v;
}

}  // namespace

TEST_CASE("plain device reads VeraCrypt's plaintext (whole area, unaligned pieces)", "[mount]") {
  const json e = manifest_entry("fat.hc", "fat");
  auto o = open_fd(wvtest::vectors_dir() + "/veracrypt/fat.hc", options_for(e), false);
  PlainDevice dev = device(*o, true);
  REQUIRE(dev.size() == e["decrypted_data_area_size"].get<uint64_t>());
  auto all = read_all(dev);
  CHECK(sha256_hex(all.data(), all.size()) == e["decrypted_data_area_sha256"].get<std::string>());
  // Unaligned reads of every size class give the same bytes.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    const uint64_t off = rng() % dev.size();
    const size_t len = size_t(1 + rng() % std::min<uint64_t>(dev.size() - off, i % 3 == 0 ? 9000 : 700));
    std::vector<uint8_t> b(len);
    REQUIRE(errno_of([&] { dev.read(off, b.data(), len); }) == 0);
    REQUIRE(std::equal(b.begin(), b.end(), all.begin() + long(off)));
  }
  // The filesystem VeraCrypt made is recognised.
  CHECK(probe_filesystem_bytes(all.data(), all.size()) == "vfat");
  // Read-only: writes are refused.
  uint8_t z[512] = {};
  CHECK(errno_of([&] { dev.write(0, z, sizeof z); }) == -EROFS);
  CHECK(errno_of([&] { dev.write_scratch(0, z, sizeof z); }) == -EROFS);
  // Reads past the end are refused, not clipped silently.
  CHECK(errno_of([&] { dev.read(dev.size() - 10, z, 20); }) == -EINVAL);
}

TEST_CASE("plain device writes: random offsets and sizes, partial units, match an independent reader", "[mount]") {
  wvtest::TempDir dir;
  const json e = manifest_entry("enc-aes.hc", "enc-aes");
  const std::string path = copy_vector(dir, "enc-aes.hc");
  std::vector<uint8_t> model;
  {
    auto o = open_fd(path, options_for(e), true);
    PlainDevice dev = device(*o, false);
    model = read_all(dev);
    std::mt19937_64 rng(42);
    for (int i = 0; i < 400; ++i) {
      const uint64_t off = rng() % dev.size();
      const size_t len = size_t(1 + rng() % std::min<uint64_t>(dev.size() - off, i % 4 == 0 ? 70000 : 1500));
      std::vector<uint8_t> b(len);
      for (auto& x : b) x = uint8_t(rng());
      if (i % 2) {
        REQUIRE(errno_of([&] { dev.write(off, b.data(), len); }) == 0);
      } else {
        std::vector<uint8_t> scratch = b;
        REQUIRE(errno_of([&] { dev.write_scratch(off, scratch.data(), len); }) == 0);
      }
      std::copy(b.begin(), b.end(), model.begin() + long(off));
    }
    REQUIRE(errno_of([&] { dev.sync(); }) == 0);
    CHECK(read_all(dev) == model);
    // Past the end: ENOSPC, nothing written.
    uint8_t z[16] = {};
    CHECK(errno_of([&] { dev.write(dev.size() - 8, z, 16); }) == -ENOSPC);
  }
  CHECK(read_with_volume(path, options_for(e)) == model);
}

TEST_CASE("plain device: aligned reads go around the page cache and still see the latest writes", "[mount]") {
  wvtest::TempDir dir;
  const json e = manifest_entry("enc-aes.hc", "enc-aes");
  const std::string path = copy_vector(dir, "enc-aes.hc");
  auto o = open_fd(path, options_for(e), true);
  PlainDevice dev = device(*o, false);
  std::vector<uint8_t> model = read_all(dev);  // unaligned vector: buffered reads
  // Buffered writes leave dirty pages in the container's page cache; a direct read of the same range must write
  // them back first and return the new bytes, not the old ones on the disk.
  std::mt19937_64 rng(11);
  AlignedBuffer buf(size_t(64) << 10);
  for (int i = 0; i < 40; ++i) {
    const size_t len = size_t(1 + rng() % (buf.size() / 4096)) * 4096;
    const uint64_t off = (rng() % ((dev.size() - len) / 4096)) * 4096;
    std::vector<uint8_t> b(len - (i % 3 == 0 ? 100 : 0));  // some writes end in a partial data unit
    for (auto& x : b) x = uint8_t(rng());
    REQUIRE(errno_of([&] { dev.write(off + (len - b.size()), b.data(), b.size()); }) == 0);
    std::copy(b.begin(), b.end(), model.begin() + long(off + (len - b.size())));
    REQUIRE(errno_of([&] { dev.read(off, buf.data(), len); }) == 0);
    REQUIRE(std::equal(buf.data(), buf.data() + len, model.begin() + long(off)));
  }
  const int probe = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (probe >= 0) {
    ::close(probe);
    CHECK(dev.direct_reads() >= 40);
  } else {
    WARN("the temporary folder's file system refuses O_DIRECT: only buffered reads tested");
  }
  REQUIRE(errno_of([&] { dev.sync(); }) == 0);
  CHECK(read_with_volume(path, options_for(e)) == model);
}

TEST_CASE("plain device: concurrent writers sharing data units lose no bytes", "[mount]") {
  wvtest::TempDir dir;
  const json e = manifest_entry("enc-aes.hc", "enc-aes");
  const std::string path = copy_vector(dir, "enc-aes.hc");
  auto o = open_fd(path, options_for(e), true);
  PlainDevice dev = device(*o, false);
  // Each thread owns every 4th 100-byte stripe of the first 64 KiB: stripes share 512-byte units with other
  // threads' stripes, so a read-modify-write that is not exclusive would bring old bytes back.
  constexpr size_t kStripe = 100, kArea = 65536;
  std::vector<std::thread> threads;
  wvtest::ThreadChecks checks;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<uint8_t> b(kStripe, uint8_t(0xA0 + t));
      for (int round = 0; round < 3; ++round)
        for (size_t s = size_t(t); s * kStripe + kStripe <= kArea; s += 4)
          checks.expect(errno_of([&] { dev.write(s * kStripe, b.data(), kStripe); }) == 0, "a stripe's write failed");
    });
  }
  // Meanwhile an aligned writer works on a disjoint region.
  threads.emplace_back([&] {
    std::vector<uint8_t> b(32768);
    for (int round = 0; round < 20; ++round) {
      std::fill(b.begin(), b.end(), uint8_t(0x55));  // write_scratch encrypts the buffer in place
      checks.expect(errno_of([&] { dev.write_scratch(131072, b.data(), b.size()); }) == 0,
                    "the aligned write failed");
    }
  });
  for (auto& th : threads) th.join();
  REQUIRE(checks.failures() == "");
  auto all = read_all(dev);
  for (size_t s = 0; s * kStripe + kStripe <= kArea; ++s)
    for (size_t i = 0; i < kStripe; ++i) REQUIRE(all[s * kStripe + i] == uint8_t(0xA0 + s % 4));
  for (size_t i = 131072; i < 131072 + 32768; ++i) REQUIRE(all[i] == 0x55);
}

TEST_CASE("hidden volume protection on VeraCrypt's outer+hidden container", "[mount]") {
  wvtest::TempDir dir;
  const json outer = manifest_entry("outer-hidden.hc", "outer");
  const json hidden = manifest_entry("outer-hidden.hc", "hidden");
  const std::string path = copy_vector(dir, "outer-hidden.hc");
  auto o = open_fd(path, options_for(outer), true);
  REQUIRE(o->header.slot == SlotKind::Normal);
  OpenedHeader hh;
  {
    auto f = open_file(path, OpenMode::ReadOnly);
    hh = open_header(*f, options_for(hidden, SlotKind::Hidden));
  }
  REQUIRE(hh.data_offset == hidden["data_area_offset"].get<uint64_t>());
  const uint64_t pstart = hh.data_offset, pend = hh.data_offset + hh.data_size;
  PlainDevice dev = device(*o, false, HiddenProtection(pstart, pend));
  std::vector<std::string> triggers;
  dev.on_trigger([&](const std::string& s) { triggers.push_back(s); });

  // The outer data area covers the hidden one: plaintext offset of the protected range's start.
  const uint64_t prot_plain = pstart - o->header.data_offset;
  std::vector<uint8_t> b(8192, 0x11);
  // Below the range: fine, and the unit that ends exactly at the range start does not trigger.
  REQUIRE(errno_of([&] { dev.write(0, b.data(), 4096); }) == 0);
  REQUIRE(errno_of([&] { dev.write(prot_plain - 512, b.data(), 512); }) == 0);
  CHECK_FALSE(dev.protection_triggered());
  // A 1-byte write whose 512-byte unit is inside the range triggers (the unit would be rewritten).
  CHECK(errno_of([&] { dev.write(prot_plain + 3, b.data(), 1); }) == -EIO);
  CHECK(dev.protection_triggered());
  REQUIRE(triggers.size() == 1);
  // From now on every write fails, also far from the hidden volume; reads still work.
  CHECK(errno_of([&] { dev.write(0, b.data(), 512); }) == -EIO);
  CHECK(errno_of([&] { dev.write_scratch(4096, b.data(), 4096); }) == -EIO);
  std::vector<uint8_t> r(4096);
  CHECK(errno_of([&] { dev.read(0, r.data(), r.size()); }) == 0);
  CHECK(r == std::vector<uint8_t>(4096, 0x11));
  CHECK(triggers.size() == 1);
  o.reset();

  // The hidden volume is unchanged: VeraCrypt's hash of its plaintext.
  auto hv = read_with_volume(path, options_for(hidden, SlotKind::Hidden));
  CHECK(sha256_hex(hv.data(), hv.size()) == hidden["decrypted_data_area_sha256"].get<std::string>());
}

TEST_CASE("hidden volume protection: a large write straddling the range start is refused whole", "[mount]") {
  wvtest::TempDir dir;
  const json outer = manifest_entry("outer-hidden.hc", "outer");
  const json hidden = manifest_entry("outer-hidden.hc", "hidden");
  const std::string path = copy_vector(dir, "outer-hidden.hc");
  auto o = open_fd(path, options_for(outer), true);
  const uint64_t pstart = hidden["data_area_offset"].get<uint64_t>();
  const uint64_t psize = hidden["decrypted_data_area_size"].get<uint64_t>();
  PlainDevice dev = device(*o, false, HiddenProtection(pstart, pstart + psize));
  const uint64_t prot_plain = pstart - o->header.data_offset;
  std::vector<uint8_t> before(65536);
  REQUIRE(errno_of([&] { dev.read(prot_plain - 32768, before.data(), before.size()); }) == 0);
  std::vector<uint8_t> b(65536, 0x77);
  CHECK(errno_of([&] { dev.write_scratch(prot_plain - 32768, b.data(), b.size()); }) == -EIO);
  std::vector<uint8_t> after(65536);
  REQUIRE(errno_of([&] { dev.read(prot_plain - 32768, after.data(), after.size()); }) == 0);
  CHECK(after == before);  // not even the part outside the range was written
  o.reset();
  auto hv = read_with_volume(path, options_for(hidden, SlotKind::Hidden));
  CHECK(sha256_hex(hv.data(), hv.size()) == hidden["decrypted_data_area_sha256"].get<std::string>());
}

TEST_CASE("mount registry: records, reservation, state, process liveness", "[mount]") {
  wvtest::TempDir dir;
  Registry reg(dir.file("run"));
  MountRecord r;
  r.volume = "/tmp/x.hc";
  r.pid = int(getpid());
  r.pid_start = process_start_time(getpid());
  r.created_dirs = {"/a", "/a/b"};
  r.protect_hidden = true;
  r.protected_start = 655360;
  r.protected_end = 913408;
  {
    auto lock = reg.lock();
    CHECK(reg.reserve(0, r) == 1);
    CHECK(reg.reserve(0, r) == 2);
    CHECK(reg.reserve(7, r) == 7);
    CHECK_THROWS_AS(reg.reserve(7, r), Error);
    CHECK_THROWS_AS(reg.reserve(65, r), Error);
  }
  auto all = reg.load_all();
  REQUIRE(all.size() == 3);
  CHECK(all[2].slot == 7);
  CHECK(all[0].state == "mounting");
  CHECK(all[0].created_dirs == r.created_dirs);
  CHECK(all[0].protected_end == 913408);
  r.slot = 2;
  r.state = "mounted";
  reg.save(r);
  CHECK(reg.load(2)->state == "mounted");
  reg.remove(1);
  CHECK_FALSE(reg.load(1));
  {
    auto lock = reg.lock();
    CHECK(reg.reserve(0, r) == 1);  // the freed slot is reused
  }
  // State written by the FUSE process.
  DaemonState s;
  s.protection_triggered = true;
  s.trigger_detail = "write at 0";
  s.closed = "ok";
  write_daemon_state(reg.state_path(2), s);
  auto back = read_daemon_state(reg.state_path(2));
  CHECK(back.protection_triggered);
  CHECK(back.closed == "ok");
  CHECK_FALSE(read_daemon_state(reg.state_path(9)).protection_triggered);
  // Liveness: this process, a bad start time, a process that exited.
  CHECK(process_alive(getpid(), process_start_time(getpid())));
  CHECK_FALSE(process_alive(getpid(), process_start_time(getpid()) + 1));
  pid_t child = fork();
  if (child == 0) _exit(0);
  int st;
  waitpid(child, &st, 0);
  CHECK_FALSE(process_alive(child, 0));
  CHECK_THROWS_AS(record_from_json("{\"slot\": 99}"), Error);
  CHECK_THROWS_AS(record_from_json("not json"), Error);
}

TEST_CASE("mount spec round trip through a pipe", "[mount]") {
  MountSpec s;
  s.slot = 5;
  s.container = "/x/y z.hc";
  s.aux_dir = "/run/warpvol/aux/slot5";
  s.state_file = "/run/warpvol/slot5.state";
  s.read_only = true;
  s.engine = EngineChoice::Cpu;
  s.chain = ChainId::SerpentTwofishAes;
  s.key_material = LockedBytes(256);
  for (size_t i = 0; i < 256; ++i) s.key_material[i] = uint8_t(i * 7);
  s.data_offset = 131072;
  s.data_size = 1ull << 40;
  s.first_unit = 256;
  s.protect = true;
  s.protect_start = 1000 * 512;
  s.protect_end = 2000 * 512;
  s.uid = 1000;
  int p[2];
  REQUIRE(pipe(p) == 0);
  write_spec(p[1], s);
  close(p[1]);
  MountSpec r = read_spec(p[0]);
  close(p[0]);
  CHECK(r.slot == 5);
  CHECK(r.container == s.container);
  CHECK(r.read_only);
  CHECK(r.engine == EngineChoice::Cpu);
  CHECK(r.chain == ChainId::SerpentTwofishAes);
  CHECK(std::equal(r.key_material.data(), r.key_material.data() + 256, s.key_material.data()));
  CHECK(r.data_size == s.data_size);
  CHECK(r.protect_end == s.protect_end);
  CHECK(r.uid == 1000);
  CHECK_FALSE(r.legacy.has_value());
  // A TrueCrypt legacy mode travels too (the FUSE process prepares its key with prepare_legacy).
  s.legacy = LegacySuite{LegacyEaId::AesBlowfishSerpent, LegacyMode::InnerCbc};
  REQUIRE(pipe(p) == 0);
  write_spec(p[1], s);
  close(p[1]);
  MountSpec rl = read_spec(p[0]);
  close(p[0]);
  REQUIRE(rl.legacy.has_value());
  CHECK(*rl.legacy == *s.legacy);
  s.legacy.reset();
  // A truncated spec is an error, not a half-filled struct.
  REQUIRE(pipe(p) == 0);
  uint8_t len[8] = {200, 0, 0, 0, 0, 0, 0, 0};
  REQUIRE(write(p[1], len, 8) == 8);
  REQUIRE(write(p[1], "abc", 3) == 3);
  close(p[1]);
  CHECK_THROWS_AS(read_spec(p[0]), Error);
  close(p[0]);
}

TEST_CASE("filesystem detection, mount options, mkfs tools", "[mount]") {
  std::vector<unsigned char> img(65536 + 4096, 0);
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "");
  img[1024 + 56] = 0x53;
  img[1024 + 57] = 0xEF;
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "ext4");
  std::fill(img.begin(), img.end(), 0);
  std::memcpy(&img[3], "NTFS    ", 8);
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "ntfs");
  std::fill(img.begin(), img.end(), 0);
  std::memcpy(&img[3], "EXFAT   ", 8);
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "exfat");
  std::fill(img.begin(), img.end(), 0);
  std::memcpy(&img[65536 + 64], "_BHRfS_M", 8);
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "btrfs");
  std::fill(img.begin(), img.end(), 0);
  std::memcpy(&img[82], "FAT32   ", 8);
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "");  // no boot signature
  img[510] = 0x55;
  img[511] = 0xAA;
  CHECK(probe_filesystem_bytes(img.data(), img.size()) == "vfat");

  CHECK(kernel_fs_type("FAT") == "vfat");
  CHECK(kernel_fs_type("ntfs") == "ntfs3");
  CHECK(kernel_fs_type("ext4") == "ext4");

  auto m = parse_fs_options("noatime,nodev,data=ordered,ro,errors=remount-ro", false);
  CHECK((m.flags & MS_NOATIME));
  CHECK((m.flags & MS_NODEV));
  CHECK((m.flags & MS_RDONLY));
  CHECK(m.read_only);
  CHECK(m.data == "data=ordered,errors=remount-ro");
  auto m2 = parse_fs_options("rw", true);  // --read-only wins over rw
  CHECK(m2.read_only);
  CHECK((m2.flags & MS_RDONLY));

  CHECK_THROWS_AS(check_mkfs_available("zfsx"), Error);
  try {
    check_mkfs_available("zfsx");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
  }
  if (!find_program("mkfs.ext4").empty()) CHECK(check_mkfs_available("ext4").program.find("mkfs.ext4") != std::string::npos);
  // A tool that is surely missing gives an Io error naming the package.
  if (find_program("mkfs.btrfs").empty()) {
    try {
      check_mkfs_available("btrfs");
      FAIL("mkfs.btrfs reported present");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Io);
      CHECK(std::string(e.what()).find("btrfs-progs") != std::string::npos);
    }
  }
  std::string out;
  CHECK(run_program({"/bin/sh", "-c", "echo hi; echo err >&2; exit 3"}, &out) == 3);
  CHECK(out.find("hi") != std::string::npos);
  CHECK(out.find("err") != std::string::npos);
}

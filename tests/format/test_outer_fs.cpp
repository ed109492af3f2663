// The outer-filesystem scan that places a hidden volume (core/create/outer_fs.h): where the used space of FAT,
// exFAT, NTFS and ext2/3/4 ends. Images are made by the filesystems' own mkfs tools (and files put in by their
// own userspace tools); the oracle is those tools again: after everything from the reported end onwards is
// overwritten, the files read back unchanged and the checkers find the filesystem consistent. A crafted FAT boot
// sector claiming a huge FAT shows the scan's memory is bounded by its chunk, not by what the boot sector says.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/create/outer_fs.h"
#include "core/create/outer_fs_probe.h"
#include "core/util/error.h"
#include "tests/support/cli_run.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using wvtest::TempDir;

namespace {

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

OuterFsInfo scan_image(const std::string& path) {
  const std::vector<uint8_t> img = read_all(path);
  return scan_outer_filesystem(
      [&](uint64_t off, uint8_t* buf, size_t len) {
        REQUIRE(off + len <= img.size());
        std::memcpy(buf, img.data() + off, len);
      },
      img.size());
}

// Overwrites [from, end) of the image with a pattern: what a hidden volume placed there would do.
void clobber_from(const std::string& path, uint64_t from) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const uint64_t size = uint64_t(f.tellg());
  std::vector<char> junk(1 << 16, char(0xA5));
  for (uint64_t o = from; o < size; o += junk.size()) {
    f.seekp(std::streamoff(o));
    f.write(junk.data(), std::streamsize(std::min<uint64_t>(junk.size(), size - o)));
  }
}

int sh(const std::string& cmd) {
  auto r = wvtest::proc::run_process({"/bin/sh", "-c", cmd});
  INFO(cmd << "\n" << r.out << r.err);
  return r.code;
}

void make_sized(const std::string& path, uint64_t size) {
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary).close();
  std::filesystem::resize_file(path, size);
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(g());
  return v;
}

}  // namespace

TEST_CASE("outer FAT scan: a boot sector claiming a huge FAT costs reads of one chunk, not its size in memory",
          "[outer_fs][hidden]") {
  // FAT32, 4096-byte sectors, 128 sectors per cluster, a FAT of 2^28 sectors (1 TiB) and 2^32-1 sectors in all:
  // about 31.5 million clusters, whose entries are the first 126 MiB of that FAT.
  std::vector<uint8_t> bs(4096, 0);
  bs[0] = 0xEB;
  bs[11] = 0x00, bs[12] = 0x10;  // 4096 bytes per sector
  bs[13] = 128;
  bs[14] = 32;  // reserved sectors
  bs[16] = 1;   // one FAT
  const uint32_t fatsz = 1u << 28, totsec = 0xFFFFFFFF;
  std::memcpy(&bs[32], &totsec, 4);
  std::memcpy(&bs[36], &fatsz, 4);
  bs[510] = 0x55, bs[511] = 0xAA;
  const uint64_t first_data = 32 + uint64_t(fatsz);
  const uint64_t clusters = (uint64_t(totsec) - first_data) / 128;
  const uint64_t data_size = uint64_t(totsec) * 4096 + 4096;
  // The last cluster is in use: its FAT entry (at byte 32*4096 + 4*(clusters+1)) is non-zero.
  const uint64_t last_entry = 32 * 4096 + 4 * (clusters + 1);
  size_t max_read = 0;
  uint64_t total_read = 0;
  auto reader = [&](uint64_t off, uint8_t* buf, size_t len) {
    max_read = std::max(max_read, len);
    total_read += len;
    std::memset(buf, 0, len);
    if (off < bs.size()) std::memcpy(buf, bs.data() + off, std::min<uint64_t>(len, bs.size() - off));
    if (last_entry >= off && last_entry < off + len) buf[last_entry - off] = 0xFF;
  };
  OuterFsInfo info;
  REQUIRE_NOTHROW(info = scan_outer_filesystem(reader, data_size));
  CHECK(info.type == "FAT32");
  CHECK(info.understood);
  CHECK(info.used_end == (first_data + clusters * 128) * 4096);
  CHECK(max_read <= outer_fs::kScanChunk + 2);
  CHECK(total_read < (uint64_t(200) << 20));  // the entries that exist, not the FAT's claimed terabyte
}

TEST_CASE("outer FAT scan: files copied in by mtools stay intact when everything after the used end is overwritten",
          "[outer_fs][hidden]") {
  TempDir dir;
  const std::string img = dir.file("fat.img"), big = dir.file("big.bin"), back = dir.file("back.bin");
  make_sized(img, 32 << 20);
  REQUIRE(sh("mkfs.vfat -F 16 '" + img + "' >/dev/null") == 0);
  const auto data = random_bytes(5 << 20, 1);
  wvtest::write_bytes(big, data);
  REQUIRE(sh("mcopy -i '" + img + "' '" + big + "' ::BIG.BIN") == 0);
  const OuterFsInfo info = scan_image(img);
  CHECK(info.type == "FAT16");
  REQUIRE(info.understood);
  CHECK(info.used_end >= (5u << 20));
  CHECK(info.used_end < (8u << 20));
  clobber_from(img, info.used_end);
  REQUIRE(sh("mcopy -i '" + img + "' ::BIG.BIN '" + back + "'") == 0);
  CHECK(read_all(back) == data);
  CHECK(sh("fsck.vfat -n '" + img + "' >/dev/null") == 0);
}

TEST_CASE("outer ext4 scan: files put in by mkfs.ext4 -d survive, e2fsck finds the filesystem clean",
          "[outer_fs][hidden]") {
  TempDir dir;
  const std::string img = dir.file("ext4.img"), root = dir.file("root"), back = dir.file("back.bin");
  std::filesystem::create_directory(root);
  const auto data = random_bytes(6 << 20, 2);
  wvtest::write_bytes(root + "/big.bin", data);
  wvtest::write_bytes(root + "/small.txt", random_bytes(100, 3));
  for (const char* blocks : {"1024", "4096"}) {
    CAPTURE(blocks);
    make_sized(img, 64 << 20);
    REQUIRE(sh(std::string("mkfs.ext4 -q -F -b ") + blocks + " -d '" + root + "' '" + img + "'") == 0);
    const OuterFsInfo info = scan_image(img);
    CHECK(info.type == "ext2/3/4");
    REQUIRE(info.understood);
    CHECK(info.used_end >= (6u << 20));
    CHECK(info.used_end < (64u << 20));
    clobber_from(img, info.used_end);
    CHECK(sh("e2fsck -fn '" + img + "' >/dev/null 2>&1") == 0);
    std::filesystem::remove(back);
    REQUIRE(sh("debugfs -R 'dump /big.bin " + back + "' '" + img + "' >/dev/null 2>&1") == 0);
    CHECK(read_all(back) == data);
  }
}

TEST_CASE("outer exFAT and NTFS scans: a fresh exFAT stays consistent, a file put in by ntfscp survives",
          "[outer_fs][hidden]") {
  TempDir dir;
  const std::string img = dir.file("x.img");
  make_sized(img, 64 << 20);
  REQUIRE(sh("mkfs.exfat '" + img + "' >/dev/null") == 0);
  OuterFsInfo info = scan_image(img);
  CHECK(info.type == "exFAT");
  REQUIRE(info.understood);
  CHECK(info.used_end > 0);
  CHECK(info.used_end < (16u << 20));
  clobber_from(img, info.used_end);
  CHECK(sh("fsck.exfat -n '" + img + "' >/dev/null 2>&1") == 0);

  // NTFS, with a file copied in by ntfs-3g's ntfscp.
  const std::string big = dir.file("big.bin"), back = dir.file("back.bin");
  const auto data = random_bytes(5 << 20, 4);
  wvtest::write_bytes(big, data);
  make_sized(img, 64 << 20);
  REQUIRE(sh("mkntfs -F -Q -q '" + img + "' >/dev/null 2>&1") == 0);
  REQUIRE(sh("ntfscp -f '" + img + "' '" + big + "' big.bin >/dev/null 2>&1") == 0);
  info = scan_image(img);
  CHECK(info.type == "NTFS");
  REQUIRE(info.understood);
  CHECK(info.used_end >= (5u << 20));
  CHECK(info.used_end < (64u << 20));
  clobber_from(img, info.used_end);
  REQUIRE(sh("ntfscat '" + img + "' big.bin > '" + back + "' 2>/dev/null") == 0);
  CHECK(read_all(back) == data);
  CHECK(sh("ntfsls '" + img + "' 2>/dev/null | grep -qx big.bin") == 0);
}

TEST_CASE("outer scan: unknown content is not understood, a damaged exFAT is a format error", "[outer_fs][hidden]") {
  std::vector<uint8_t> img(1 << 20, 0);
  auto reader = [&](uint64_t off, uint8_t* buf, size_t len) { std::memcpy(buf, img.data() + off, len); };
  OuterFsInfo info = scan_outer_filesystem(reader, img.size());
  CHECK(info.type == "none");
  CHECK_FALSE(info.understood);
  std::memcpy(&img[0], "XFSB", 4);
  CHECK(scan_outer_filesystem(reader, img.size()).type == "XFS");
  std::memset(&img[0], 0, 4);
  std::memcpy(&img[3], "EXFAT   ", 8);
  img[108] = 9, img[109] = 3;
  CHECK_THROWS_AS(scan_outer_filesystem(reader, img.size()), Error);  // geometry does not fit
}

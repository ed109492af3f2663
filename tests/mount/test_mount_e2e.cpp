// End-to-end mount tests with real FUSE, loop devices and ext4 (root only; skipped with a visible message
// elsewhere): the ext4 and stress scripts (tests/scripts/test_mount_ext4.sh, test_mount_stress.sh) run on a
// container made here with core's header writer, so they do not depend on `warpvol create`. The same scripts
// also run on their own under ctest, where they use `warpvol create`.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/format/header_writer.h"
#include "core/io/file.h"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

constexpr const char* kPassword = "e2e-mount-password";

// A VeraCrypt-format AES / SHA-512 container of `size` bytes, PIM 1 (16000 iterations: quick to open). The data
// area is left sparse (its plaintext is noise until a filesystem is made).
void make_container(const std::string& path, uint64_t size) {
  Credentials c;
  c.password = LockedBytes(reinterpret_cast<const uint8_t*>(kPassword), std::strlen(kPassword));
  c.pim = 1;
  const KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::VeraCrypt, 1);
  const LockedBytes pw = header_kdf_password(c, VolumeFormat::VeraCrypt);
  const HeaderFields f = normal_volume_fields(size, 512, ChainId::Aes, new_master_key(ChainId::Aes));
  auto h = build_headers(f, ChainId::Aes, kdf, pw, 2);
  auto file = open_file(path, OpenMode::CreateNew);
  file->truncate(size);
  write_header_slot(*file, header_offset(SlotKind::Normal, false, size), h[0]);
  write_header_slot(*file, header_offset(SlotKind::Hidden, false, size), build_fake_header(ChainId::Aes, size, 512));
  write_header_slot(*file, header_offset(SlotKind::Normal, true, size), h[1]);
  write_header_slot(*file, header_offset(SlotKind::Hidden, true, size), build_fake_header(ChainId::Aes, size, 512));
  file->sync();
}

std::string why_no_mount_env() {
  if (geteuid() != 0) return "not root";
  struct stat st;
  if (stat("/dev/fuse", &st) != 0) return "no /dev/fuse";
  if (stat("/dev/loop-control", &st) != 0) return "no loop devices";
  return "";
}

// Runs a mount script with the container; returns its exit status (77 = it skipped).
int run_script(const std::string& script, const std::string& container) {
  setenv("WARPVOL_TEST_CONTAINER", container.c_str(), 1);
  setenv("WARPVOL_TEST_PASSWORD", kPassword, 1);
  setenv("WARPVOL_TEST_CREDS", "--hash sha512 --encryption aes --pim 1", 1);
  const std::string cmd = "bash '" + std::string(WARPVOL_SOURCE_DIR) + "/tests/scripts/" + script + "' '" +
                          WARPVOL_BINARY + "' '" + WARPVOL_SOURCE_DIR + "'";
  const int st = std::system(cmd.c_str());
  unsetenv("WARPVOL_TEST_CONTAINER");
  unsetenv("WARPVOL_TEST_PASSWORD");
  unsetenv("WARPVOL_TEST_CREDS");
  REQUIRE(WIFEXITED(st));
  return WEXITSTATUS(st);
}

void script_case(const std::string& script, uint64_t size) {
  const std::string why = why_no_mount_env();
  if (!why.empty()) {
    WARN("skipped " << script << ": " << why);
    return;
  }
  wvtest::TempDir dir;
  const std::string vol = dir.file("e2e.hc");
  make_container(vol, size);
  const int rc = run_script(script, vol);
  if (rc == 77) {
    WARN(script << " skipped itself (see its output)");
    return;
  }
  CHECK(rc == 0);
}

}  // namespace

TEST_CASE("mount e2e: ext4 write, dismount, remount, read-only, busy", "[mount][e2e]") {
  script_case("test_mount_ext4.sh", uint64_t(64) << 20);
}

TEST_CASE("mount e2e: fio readers and writers, kill -9 of the FUSE process, cleanup", "[mount][e2e]") {
  script_case("test_mount_stress.sh", uint64_t(96) << 20);
}

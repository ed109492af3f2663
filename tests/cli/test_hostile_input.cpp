// Hostile and careless input to the real warpvol binary: signals during the key search, secrets in argv, FIFOs,
// block-device outputs, containers in use, headers whose fields contradict the layout, core-dump and memory-lock
// protection of secrets, and password/PIM values that VeraCrypt could not use.
//
// A wrong password with a huge PIM (--pim 100000: 100 million PBKDF2 iterations per block) keeps a process in
// its key search for minutes, which gives the tests a running process to signal or inspect.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <random>
#include <thread>

#include "core/create/create.h"
#include "core/format/header_writer.h"
#include "core/io/file.h"
#include "core/util/secure.h"
#include "tests/support/cli_run.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using wvtest::proc::ProcOptions;
using wvtest::proc::ProcResult;
using wvtest::proc::run_warpvol;

namespace {

constexpr const char* kHugePim = "100000";
// A huge Argon2id PIM would take 1 GiB per derivation: a small one is already seconds long.
constexpr const char* kArgon2Pim = "10";

void write_random(const std::string& path, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<char> b(n);
  for (auto& c : b) c = char(rng());
  std::ofstream(path, std::ios::binary).write(b.data(), std::streamsize(n));
}

// A child process running warpvol with args; stdin/stdout/stderr to /dev/null. Killed (SIGKILL) if still alive
// at destruction.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    std::vector<std::string> argv{wvtest::proc::warpvol_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(const_cast<char*>(a.c_str()));
    c.push_back(nullptr);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execv(c[0], c.data());
      ::_exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  pid_t pid() const { return pid_; }
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string cmdline() const { return wvtest::read_text("/proc/" + std::to_string(pid_) + "/cmdline"); }

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("hostile: SIGINT/SIGTERM stop the key search within a fraction of a second (exit 6)", "[hostile][signal]") {
  wvtest::TempDir d;
  const std::string vol = d.file("random.bin"), out = d.file("out.raw"), backup = d.file("hdr.bin");
  write_random(vol, 1 << 20, 1);
  const std::vector<std::string> wrong{"--password", "wrong", "--pim", kHugePim, "--non-interactive"};
  const std::vector<std::string> wrong_argon2{"--password", "wrong", "--pim", kArgon2Pim, "--non-interactive"};
  struct Case {
    std::string name;
    std::vector<std::string> args;
  };
  auto with_wrong = [&](std::vector<std::string> a) {
    const bool argon2 = std::find(a.begin(), a.end(), "argon2") != a.end();
    const auto& w = argon2 ? wrong_argon2 : wrong;
    a.insert(a.end(), w.begin(), w.end());
    return a;
  };
  const std::vector<Case> cases = {
      {"info", with_wrong({"info", vol})},
      {"export", with_wrong({"export", vol, out})},
      {"mount", with_wrong({"mount", vol, "--filesystem", "none"})},
      {"change", with_wrong({"change", vol, "--new-password", "new"})},
      {"reencrypt", with_wrong({"reencrypt", vol, "--no-hidden-volume", "--new-password", "new"})},
      {"backup-headers", with_wrong({"backup-headers", vol, backup})},
      {"restore-headers", with_wrong({"restore-headers", vol, "--from-embedded-backup"})},
      // create derives the NEW header's key with the huge PIM.
      {"create", {"create", d.file("new.hc"), "--size", "1M", "--quick", "--password", "pw", "--pim", kHugePim,
                  "--non-interactive"}},
      // Argon2id (libargon2, no progress hook) in the search and for a new header: PIM 10 is 6 passes over
      // 352 MiB, seconds per derivation even on a fast idle core, so derivations still run when the signal comes.
      {"info-argon2", with_wrong({"info", vol, "--hash", "argon2"})},
      {"create-argon2", {"create", d.file("new.hc"), "--size", "1M", "--quick", "--password", "pw", "--hash",
                         "argon2", "--pim", kArgon2Pim, "--non-interactive"}},
  };
  for (int sig : {SIGINT, SIGTERM}) {
    for (const auto& c : cases) {
      if (sig == SIGTERM && c.name != "info" && c.name != "create") continue;  // one signal per command is enough
      DYNAMIC_SECTION(c.name << " signal " << sig) {
        ProcOptions o;
        o.signal_after_ms = 1000;
        o.signal = sig;
        o.env = {"WARPVOL_RUNTIME_DIR=" + d.file("run"), "WARPVOL_MEDIA_DIR=" + d.file("media")};
        const auto t0 = std::chrono::steady_clock::now();
        ProcResult r = run_warpvol(c.args, o);
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        INFO(c.name << ": " << r.err);
        CHECK(r.code == 6);
        CHECK(r.err.find("interrupted") != std::string::npos);
        // 1000 ms until the signal; the search polls every few ms (the margin is for a loaded machine).
        CHECK(ms < 1700);
        CHECK_FALSE(fs::exists(out));
        CHECK_FALSE(fs::exists(backup));
        CHECK_FALSE(fs::exists(d.file("new.hc")));
      }
    }
  }
}

TEST_CASE("hostile: every secret option is wiped from /proc/PID/cmdline", "[hostile][argv]") {
  wvtest::TempDir d;
  const std::string vol = d.file("random.bin");
  write_random(vol, 1 << 20, 2);
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> secrets;
  };
  // Each process stays in its key search (wrong password, huge PIM) while its cmdline is read.
  const std::vector<Case> cases = {
      {{"change", vol, "--password", "SECRET-A1", "--pim", kHugePim, "--new-password=SECRET-B2", "--non-interactive"},
       {"SECRET-A1", "SECRET-B2"}},
      {{"change", vol, "--password=SECRET-C3", "--pim", kHugePim, "--new-password", "SECRET-D4", "--non-interactive"},
       {"SECRET-C3", "SECRET-D4"}},
      {{"backup-headers", vol, d.file("b.hdr"), "--password", "SECRET-E5", "--pim", kHugePim, "--hidden-password",
        "SECRET-F6", "--non-interactive"},
       {"SECRET-E5", "SECRET-F6"}},
      {{"backup-headers", vol, d.file("b.hdr"), "--password", "x", "--pim", kHugePim, "--hidden-password=SECRET-G7",
        "--non-interactive"},
       {"SECRET-G7"}},
      {{"create", vol, "--type", "hidden", "--size", "64K", "--password", "SECRET-H8", "--outer-password",
        "SECRET-I9", "--outer-pim", kHugePim, "--non-interactive"},
       {"SECRET-H8", "SECRET-I9"}},
      {{"create", vol, "--type", "hidden", "--size", "64K", "--password=SECRET-J0", "--outer-password=SECRET-K1",
        "--outer-pim", kHugePim, "--non-interactive"},
       {"SECRET-J0", "SECRET-K1"}},
  };
  for (const auto& c : cases) {
    Child child(c.args);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const std::string cl = child.cmdline();
    INFO(c.args[0] << ": " << cl);
    REQUIRE(cl.find(c.args[0]) != std::string::npos);  // still running, and the cmdline is readable
    for (const auto& s : c.secrets) CHECK(cl.find(s) == std::string::npos);
    ::kill(child.pid(), SIGTERM);
    CHECK(child.wait() == 6);
  }
}

TEST_CASE("hostile: a FIFO as volume or keyfile is refused at once (exit 3), never opened blocking", "[hostile][fifo]") {
  wvtest::TempDir d;
  const std::string fifo = d.file("fifo"), vol = d.file("random.bin");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  write_random(vol, 1 << 20, 3);
  const std::vector<std::vector<std::string>> cases = {
      {"info", fifo, "--password", "x", "--non-interactive"},
      {"export", fifo, d.file("out.raw"), "--password", "x", "--non-interactive"},
      {"change", fifo, "--password", "x", "--new-password", "y", "--non-interactive"},
      {"mount", fifo, "--filesystem", "none", "--password", "x", "--non-interactive"},
      {"info", vol, "-k", fifo, "--password", "x", "--non-interactive"},
      {"export", vol, d.file("out.raw"), "--keyfile", fifo, "--non-interactive"},
      {"create", d.file("new.hc"), "--size", "1M", "--quick", "--password", "x", "-k", fifo, "--non-interactive"},
  };
  for (const auto& args : cases) {
    ProcOptions o;
    o.signal_after_ms = 5000;  // a process blocked in open() is killed (and fails the test)
    o.signal = SIGKILL;
    ProcResult r = run_warpvol(args, o);
    INFO(args[0] << " " << args[1] << ": " << r.err);
    CHECK(r.code == 3);
    CHECK(r.err.find("not a regular file or block device") != std::string::npos);
    CHECK_FALSE(fs::exists(d.file("out.raw")));
    CHECK_FALSE(fs::exists(d.file("new.hc")));
  }
}

TEST_CASE("hostile: --system --pim above 65535 is a usage error, iteration counts never wrap", "[hostile][pim]") {
  wvtest::TempDir d;
  const std::string vol = d.file("random.bin");
  write_random(vol, 1 << 20, 4);
  for (const char* pim : {"65536", "2097152", "2147468"}) {
    ProcResult r = run_warpvol({"info", vol, "--system", "--pim", pim, "--password", "x", "--non-interactive"});
    INFO(pim << ": " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("65535") != std::string::npos);
  }
  using warpvol::PrfId;
  using warpvol::VolumeFormat;
  // 2048 * 2097152 = 2^32 would wrap to 0 and 2048 * 2097153 to 2048 iterations.
  for (PrfId p : {PrfId::Sha256, PrfId::Blake2s, PrfId::Streebog, PrfId::Ripemd160}) {
    CHECK(warpvol::pbkdf2_iterations(p, VolumeFormat::VeraCrypt, 65535, true) == 2048u * 65535u);
    CHECK(warpvol::pbkdf2_iterations(p, VolumeFormat::VeraCrypt, 2097153, true) == 0);
    CHECK(warpvol::pbkdf2_iterations(p, VolumeFormat::VeraCrypt, 2147468, false) == 15000u + 1000u * 2147468u);
    CHECK(warpvol::pbkdf2_iterations(p, VolumeFormat::VeraCrypt, 2147469, false) == 0);
  }
}

TEST_CASE("hostile: new passwords with NUL bytes or invalid UTF-8 are refused (exit 1), existing ones still open",
          "[hostile][password]") {
  wvtest::TempDir d;
  const std::string out = d.file("new.hc");
  const std::vector<std::string> bad = {std::string("pass\0word", 9), "caf\xe9", "\xc0\xafoverlong", "\xed\xa0\x80x"};
  for (const auto& pw : bad) {
    for (const char* cmd : {"create", "import"}) {
      std::vector<std::string> args = {cmd};
      if (std::string(cmd) == "import") {
        write_random(d.file("raw.img"), 65536, 5);
        args.push_back(d.file("raw.img"));
      }
      args.insert(args.end(), {out, "--password-stdin", "--pim", "1", "--non-interactive"});
      if (std::string(cmd) == "create") args.insert(args.end(), {"--size", "1M", "--quick"});
      ProcResult r = run_warpvol(args, pw + "\n");
      INFO(cmd << ": " << r.err);
      CHECK(r.code == 1);
      CHECK((r.err.find("UTF-8") != std::string::npos || r.err.find("NUL") != std::string::npos));
      CHECK_FALSE(fs::exists(out));
    }
  }
  // A good volume; change to a bad new password is refused and the old password still opens it. A volume whose
  // password has such bytes (made through the core API, as another program might) opens.
  const std::string vol = d.file("good.hc");
  ProcResult c = run_warpvol({"create", vol, "--size", "1M", "--quick", "--password-stdin", "--pim", "1",
                              "--non-interactive"}, "correct horse battery staple\n");
  REQUIRE(c.code == 0);
  ProcResult ch = run_warpvol({"change", vol, "--password-stdin", "--pim", "1", "--new-password-stdin",
                               "--new-pim", "1", "--non-interactive"},
                              std::string("correct horse battery staple\n") + "caf\xe9\n");
  INFO(ch.err);
  CHECK(ch.code == 1);
  CHECK(ch.err.find("UTF-8") != std::string::npos);
  ProcResult re = run_warpvol({"reencrypt", vol, "--password-stdin", "--pim", "1", "--new-password-stdin",
                               "--no-hidden-volume", "--non-interactive"},
                              std::string("correct horse battery staple\n") + std::string("a\0b", 3) + "\n");
  INFO(re.err);
  CHECK(re.code == 1);
  CHECK(re.err.find("NUL") != std::string::npos);
  CHECK(run_warpvol({"info", vol, "--password-stdin", "--pim", "1"}, "correct horse battery staple\n").code == 0);
  const std::string odd = d.file("odd.hc");
  warpvol::create_volume(wvtest::normal_options(odd, 1 << 20, "caf\xe9", warpvol::ChainId::Aes,
                                                warpvol::PrfId::Sha512, true));
  ProcResult oi = run_warpvol({"info", odd, "--password-stdin", "--pim", "1", "--hash", "sha512"}, "caf\xe9\n");
  INFO(oi.err);
  CHECK(oi.code == 0);
}

namespace {

// A 1 MiB volume (password "pw", PIM 1, AES, SHA-512) whose primary and backup headers are then rewritten with
// `edit` applied to otherwise correct fields: the header decrypts (right password, valid CRCs) but lies.
void write_crafted_volume(const std::string& path, const std::function<void(warpvol::HeaderFields&)>& edit) {
  using namespace warpvol;
  constexpr uint64_t H = 1 << 20;
  create_volume(wvtest::normal_options(path, H, "pw", ChainId::Aes, PrfId::Sha512, true));
  HeaderFields f = normal_volume_fields(H, 512, ChainId::Aes, new_master_key(ChainId::Aes));
  edit(f);
  const KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::VeraCrypt, 1);
  const LockedBytes pw = header_kdf_password(wvtest::creds("pw", 1), VolumeFormat::VeraCrypt);
  auto h = build_headers(f, ChainId::Aes, kdf, pw, 2);
  auto file = open_file(path, OpenMode::ReadWrite);
  write_header(*file, header_offset(SlotKind::Normal, false, H), h[0]);
  write_header(*file, header_offset(SlotKind::Normal, true, H), h[1]);
  file->sync();
}

}  // namespace

TEST_CASE("hostile: headers whose fields contradict the layout are exit 4 in every command", "[hostile][layout]") {
  constexpr uint64_t H = 1 << 20;
  struct Case {
    std::string name;
    std::function<void(warpvol::HeaderFields&)> edit;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"size not a multiple of 512", [](auto& f) { f.volume_size = f.encrypted_area_length = H - 262144 - 100; },
       "not a multiple of 512"},
      {"data over the primary header", [](auto& f) { f.encrypted_area_start = 0; }, "overlaps the header slots"},
      {"data over the hidden header slot", [](auto& f) { f.encrypted_area_start = 65536; },
       "overlaps the header slots"},
      {"data over the backup headers",
       [](auto& f) { f.volume_size = f.encrypted_area_length = H - 131072 - 512; }, "overlaps the header slots"},
      {"data past the end", [](auto& f) { f.volume_size = f.encrypted_area_length = H; }, "past the end"},
      {"size 0", [](auto& f) { f.volume_size = f.encrypted_area_length = 0; }, "empty"},
      {"header version 2", [](auto& f) { f.version = 2; }, "inconsistent volume header"},
      {"header version 3", [](auto& f) { f.version = 3; }, "header version 3"},
      {"VeraCrypt required version 0x0100", [](auto& f) { f.required_version = 0x0100; }, "0x0100"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      wvtest::TempDir d;
      const std::string vol = d.file("crafted.hc"), out = d.file("out.raw");
      write_crafted_volume(vol, c.edit);
      const std::vector<std::string> cred{"--password", "pw", "--pim", "1", "--hash", "sha512", "--non-interactive"};
      for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
               {"info", vol}, {"export", vol, out}, {"mount", vol, "--filesystem", "none", "--read-only"},
               {"change", vol, "--new-password", "a-new-password-long-enough-not-to-warn"}}) {
        args.insert(args.end(), cred.begin(), cred.end());
        ProcOptions po;  // a mount that should not happen stays in this test's own registry
        po.env = {"WARPVOL_RUNTIME_DIR=" + d.file("run"), "WARPVOL_MEDIA_DIR=" + d.file("media")};
        ProcResult r = run_warpvol(args, po);
        INFO(c.name << ", " << args[0] << ": " << r.err);
        CHECK(r.code == 4);
        CHECK(r.err.find(c.expect) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line
        CHECK_FALSE(fs::exists(out));
      }
    }
  }
  SECTION("the well-formed header opens") {
    wvtest::TempDir d;
    write_crafted_volume(d.file("good.hc"), [](auto&) {});
    CHECK(run_warpvol({"info", d.file("good.hc"), "--password", "pw", "--pim", "1", "--non-interactive"}).code == 0);
  }
}

namespace {

uint64_t vm_locked_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmLck:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

int g_locks = 0, g_unlocks = 0;
int counting_lock(const void*, size_t) { return ++g_locks, 0; }
int counting_unlock(const void*, size_t) { return ++g_unlocks, 0; }
int failing_lock(const void*, size_t) { return errno = ENOMEM, -1; }

}  // namespace

TEST_CASE("hostile: memory locking is counted per page", "[hostile][mlock]") {
  const size_t ps = size_t(::sysconf(_SC_PAGESIZE));
  uint8_t* page = static_cast<uint8_t*>(std::aligned_alloc(ps, 2 * ps));
  REQUIRE(page);
  SECTION("two secrets on one page: freeing one keeps the page locked (real mlock, VmLck)") {
    const uint64_t before = vm_locked_kb();
    warpvol::lock_memory(page, 64);
    warpvol::lock_memory(page + 128, 64);
    const uint64_t locked = vm_locked_kb();
    if (locked == before) {
      WARN("mlock() does not work here (RLIMIT_MEMLOCK): only the counting backend below is checked");
    } else {
      CHECK(locked == before + ps / 1024);
      warpvol::unlock_memory(page, 64);
      CHECK(vm_locked_kb() == locked);  // the other secret's page is still locked
      warpvol::unlock_memory(page + 128, 64);
      CHECK(vm_locked_kb() == before);
    }
    warpvol::unlock_memory(page, 64);  // no-ops when already released
    warpvol::unlock_memory(page + 128, 64);
  }
  SECTION("the backend sees one lock and one unlock per page; a range over two pages counts both") {
    g_locks = g_unlocks = 0;
    const auto old = warpvol::set_memory_lock_backend({counting_lock, counting_unlock});
    warpvol::lock_memory(page, 64);
    warpvol::lock_memory(page + 100, 64);
    warpvol::lock_memory(page + ps - 10, 20);  // also the second page
    CHECK(g_locks == 2);  // page 1 once, page 2 once
    CHECK(warpvol::memory_lock_count(page) == 3);
    CHECK(warpvol::memory_lock_count(page + ps) == 1);
    warpvol::unlock_memory(page, 64);
    warpvol::unlock_memory(page + ps - 10, 20);
    CHECK(g_unlocks == 1);  // page 2 only
    CHECK(warpvol::memory_lock_count(page) == 1);
    warpvol::unlock_memory(page + 100, 64);
    CHECK(g_unlocks == 2);
    CHECK(warpvol::memory_lock_count(page) == 0);
    warpvol::set_memory_lock_backend(old);
  }
  SECTION("a failed mlock is reported once") {
    const auto old = warpvol::set_memory_lock_backend({failing_lock, counting_unlock});
    std::vector<std::string> notes;
    warpvol::set_memory_lock_failure_notice([&](const std::string& m) { notes.push_back(m); });
    warpvol::lock_memory(page, 64);
    warpvol::lock_memory(page + ps, 64);
    warpvol::unlock_memory(page, 64);
    warpvol::unlock_memory(page + ps, 64);
    warpvol::set_memory_lock_failure_notice({});
    warpvol::set_memory_lock_backend(old);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("mlock") != std::string::npos);
  }
  std::free(page);
}

TEST_CASE("hostile: warpvol is not dumpable: SIGABRT during the key search writes no core", "[hostile][dump]") {
  if (wvtest::read_text("/proc/sys/fs/suid_dumpable").rfind("2", 0) == 0) {
    WARN("fs.suid_dumpable = 2 dumps even non-dumpable processes (as root only): not checked here");
    return;
  }
  wvtest::TempDir d;
  const std::string vol = d.file("random.bin");
  write_random(vol, 1 << 20, 6);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    struct rlimit rl{RLIM_INFINITY, RLIM_INFINITY};
    ::setrlimit(RLIMIT_CORE, &rl);
    if (::chdir(d.path().c_str()) != 0) ::_exit(126);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    const std::string bin = wvtest::proc::warpvol_binary();
    ::execl(bin.c_str(), bin.c_str(), "info", vol.c_str(), "--password", "x", "--pim", kHugePim,
            "--non-interactive", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGABRT);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  CHECK_FALSE(WCOREDUMP(status));
  for (const auto& e : fs::directory_iterator(d.path())) CHECK(e.path().filename().string().rfind("core", 0) != 0);
}

namespace {

// losetup -f --show FILE: the loop device's path, "" when this machine cannot have one (no root, no loop driver).
std::string attach_loop(const std::string& file) {
  if (::geteuid() != 0 || !wvtest::proc::have_program("losetup")) return {};
  ProcResult r = wvtest::proc::run_process({"losetup", "-f", "--show", file});
  if (r.code != 0) return {};
  std::string dev = r.out;
  while (!dev.empty() && (dev.back() == '\n' || dev.back() == ' ')) dev.pop_back();
  return dev;
}

}  // namespace

TEST_CASE("hostile: export never writes into the container it reads", "[hostile][export]") {
  wvtest::TempDir d;
  const std::string vol = d.file("vol.hc");
  REQUIRE(run_warpvol({"create", vol, "--size", "1M", "--quick", "--password", "pw", "--pim", "1",
                       "--non-interactive"}).code == 0);
  const auto before = wvtest::read_binary(vol);
  const std::vector<std::string> cred{"--password", "pw", "--pim", "1", "--non-interactive"};
  auto exp = [&](const std::string& out, bool force) {
    std::vector<std::string> a{"export", vol, out};
    a.insert(a.end(), cred.begin(), cred.end());
    if (force) a.push_back("--force");
    return run_warpvol(a);
  };
  SECTION("the same file, a hard link or a symlink to it, even with --force (no root needed)") {
    fs::create_hard_link(vol, d.file("hard"));
    fs::create_symlink(vol, d.file("soft"));
    for (const char* out : {"vol.hc", "hard", "soft"}) {
      ProcResult r = exp(d.file(out), true);
      INFO(out << ": " << r.err);
      CHECK(r.code == 1);
      CHECK(r.err.find("is the volume itself") != std::string::npos);
    }
  }
  SECTION("a loop device: backed by the container refused outright, another one needs --force") {
    const std::string loop = attach_loop(vol);
    if (loop.empty()) {
      WARN("SKIPPED: no loop device can exist here (needs root and the loop driver)");
      return;
    }
    const std::string target_file = d.file("target.img");
    {
      std::ofstream(target_file, std::ios::binary) << std::string(1 << 20, 'T');
    }
    const std::string other = attach_loop(target_file);
    struct Detach {
      std::vector<std::string> devs;
      ~Detach() {
        for (auto& dv : devs)
          if (!dv.empty()) wvtest::proc::run_process({"losetup", "-d", dv});
      }
    } detach{{loop, other}};
    REQUIRE_FALSE(other.empty());
    ProcResult self = exp(loop, true);
    INFO(self.err);
    CHECK(self.code == 1);
    CHECK(self.err.find("is the volume itself") != std::string::npos);
    ProcResult no_force = exp(other, false);
    INFO(no_force.err);
    CHECK(no_force.code == 5);
    CHECK(no_force.err.find("--force") != std::string::npos);
    CHECK((wvtest::read_binary(target_file) == std::vector<uint8_t>(1 << 20, 'T')));  // (( )): no 1 MiB dump
    ProcResult forced = exp(other, true);
    INFO(forced.err);
    CHECK(forced.code == 0);
  }
  CHECK((wvtest::read_binary(vol) == before));
}

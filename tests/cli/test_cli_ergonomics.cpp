// What a VeraCrypt user meets on day one, through the real binary: `change --new-keyfile` keeps the password (and
// a terminal session that would set an empty one asks first), the change summary names what changed, VeraCrypt's
// option spellings, the benchmark's CPU-path line, reencrypt's messages, and the progress rate of tiny intervals.
#include <catch2/catch.hpp>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "cli/cpu_path_text.h"
#include "cli/progress.h"
#include "tests/support/cli_run.h"
#include "core/create/create.h"
#include "core/create/keyfile.h"
#include "tests/support/create_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;
using namespace wvtest;

namespace {

// Runs warpvol on a pseudo-terminal: for each (expected text, reply) pair, waits until the output so far contains
// the text and then types the reply. Returns the exit status and everything printed.
struct PtyResult {
  int code = -1;
  std::string output;
};
PtyResult run_on_terminal(const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& dialogue) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<std::string> full = {WARPVOL_BINARY};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  PtyResult r;
  size_t step = 0, seen_upto = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    if (step < dialogue.size() && r.output.find(dialogue[step].first, seen_upto) != std::string::npos) {
      seen_upto = r.output.find(dialogue[step].first, seen_upto) + dialogue[step].first.size();
      // The program turns echo off after printing its prompt, with TCSAFLUSH, which drops input typed before:
      // give it a moment.
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      const std::string line = dialogue[step].second + "\n";
      REQUIRE(::write(master, line.data(), line.size()) == ssize_t(line.size()));
      ++step;
      continue;
    }
    struct pollfd p = {master, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      char buf[4096];
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n <= 0) break;  // EIO: the child closed the terminal
      r.output.append(buf, size_t(n));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      break;
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string make_volume(const TempDir& dir, const std::string& name, const std::string& password) {
  const std::string v = dir.file(name);
  create_volume(normal_options(v, 1 << 20, password, ChainId::Aes, PrfId::Sha512, true));
  return v;
}

}  // namespace

TEST_CASE("change --new-keyfile keeps the password and says what changed", "[cli][change]") {
  TempDir dir;
  const std::string v = make_volume(dir, "kf.hc", "the-old-password-1234");
  const std::string k = dir.file("k.key");
  write_bytes(k, std::vector<uint8_t>(64, 0x42));
  auto r = run_warpvol({"change", v, "--pim", "1", "--password-stdin", "--new-keyfile", k}, "the-old-password-1234\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Password:       unchanged") != std::string::npos);
  CHECK(r.out.find("Keyfiles:       none -> 1 keyfile") != std::string::npos);
  CHECK(r.out.find("PIM:            unchanged (1)") != std::string::npos);
  CHECK(r.out.find("PRF:            unchanged (SHA-512)") != std::string::npos);
  CHECK(opens(v, open_opts("the-old-password-1234", 1, {k})));
  CHECK_FALSE(opens(v, open_opts("", 1, {k})));  // the keyfile alone does not open it
  CHECK_FALSE(opens(v, open_opts("the-old-password-1234", 1)));

  // --new-pim alone: password and keyfiles stay.
  r = run_warpvol({"change", v, "--pim", "1", "-k", k, "--password-stdin", "--new-pim", "2"}, "the-old-password-1234\n");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("PIM:            1 -> 2") != std::string::npos);
  CHECK(r.out.find("Keyfiles:       unchanged (1 keyfile)") != std::string::npos);
  CHECK(opens(v, open_opts("the-old-password-1234", 2, {k})));
}

TEST_CASE("change on a terminal: an empty or short new password is warned about and must be confirmed",
          "[cli][change]") {
  TempDir dir;
  const std::string v = make_volume(dir, "tty.hc", "terminal-old-password-99");
  const std::string k = dir.file("k.key");
  write_bytes(k, std::vector<uint8_t>(64, 0x17));
  // Only a keyfile added: asked for the current password only, never for a new one.
  auto r = run_on_terminal({"change", v, "--pim", "1", "--new-keyfile", k}, {{"password", "terminal-old-password-99"}});
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("NEW password") == std::string::npos);
  CHECK(opens(v, open_opts("terminal-old-password-99", 1, {k})));

  // Asking for a new password and pressing Enter twice: a warning and a question; "n" changes nothing.
  r = run_on_terminal({"change", v, "--pim", "1", "-k", k, "--prompt-new-password"},
                      {{"password", "terminal-old-password-99"}, {"NEW password", ""}, {"again", ""}, {"[y/N]", "n"}});
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(r.output.find("EMPTY") != std::string::npos);
  CHECK(opens(v, open_opts("terminal-old-password-99", 1, {k})));
  // A short one: warned, confirmed with "y", then set.
  r = run_on_terminal({"change", v, "--pim", "1", "-k", k, "--prompt-new-password"},
                      {{"password", "terminal-old-password-99"}, {"NEW password", "short"}, {"again", "short"},
                       {"[y/N]", "y"}});
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("shorter than 20") == std::string::npos);  // with a keyfile, a short password is fine
  CHECK(opens(v, open_opts("short", 1, {k})));
}

TEST_CASE("progress: no rate from an interval too short to measure", "[cli][progress]") {
  CHECK(cli::progress_rate(uint64_t(1) << 40, 0.000002) < 0);
  CHECK(cli::progress_rate(1000, 0) < 0);
  CHECK(cli::progress_rate(100 << 20, 1.0) == Approx(100 << 20));
}

TEST_CASE("VeraCrypt's option spellings are accepted, or warpvol's is named", "[cli][veracrypt-options]") {
  TempDir dir;
  const std::string v = dir.file("vc.hc"), k1 = dir.file("a.key"), k2 = dir.file("b.key");
  write_bytes(k1, std::vector<uint8_t>(64, 1));
  write_bytes(k2, std::vector<uint8_t>(64, 2));
  // VeraCrypt's: the command as an option, '=' values, a comma-separated keyfile list, --volume-type, --stdin,
  // names as VeraCrypt writes them.
  auto r = run_warpvol({"--text", "--create", v, "--size=1M", "--volume-type=normal", "--encryption=AES-Twofish",
                        "--hash=SHA-512", "--filesystem=NONE", "--pim=1", "--keyfiles=" + k1 + "," + k2, "--quick",
                        "--stdin", "--non-interactive"},
                       "veracrypt-spelling-password\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("AES-Twofish") != std::string::npos);
  CHECK(opens(v, open_opts("veracrypt-spelling-password", 1, {k1, k2})));
  CHECK_FALSE(opens(v, open_opts("veracrypt-spelling-password", 1, {k1})));
  r = run_warpvol({"info", v, "--pim", "1", "--keyfiles", k2 + "," + k1, "--password-stdin"},
                  "veracrypt-spelling-password\n");
  CHECK(r.code == 0);
  // --new-keyfiles with change: the keyfiles replaced, the password kept.
  r = run_warpvol({"change", v, "--pim", "1", "--keyfiles=" + k1 + "," + k2, "--password-stdin", "--new-keyfiles=" + k2},
                  "veracrypt-spelling-password\n");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(opens(v, open_opts("veracrypt-spelling-password", 1, {k2})));
  // An option VeraCrypt has and warpvol spells otherwise: the error names warpvol's spelling.
  r = run_warpvol({"mount", v, "--protection-password=x"});
  CHECK(r.code == 1);
  CHECK(r.err.find("--protect-hidden-password-stdin") != std::string::npos);
  r = run_warpvol({"mount", v, "--mount-options=timestamp", "--password-stdin"}, "x\n");
  CHECK(r.code == 1);
  CHECK(r.err.find("--fs-options") != std::string::npos);
}

TEST_CASE("benchmark: the CPU path line says whether WARPVOL_CPU_PATH lowered it", "[cli][benchmark]") {
  CHECK(cli::cpu_path_line(IsaLevel::Avx512, IsaLevel::Avx512) ==
        "CPU path: avx512 (the best this CPU offers; WARPVOL_CPU_PATH=portable|aesni|avx2 would force a lower one)");
  CHECK(cli::cpu_path_line(IsaLevel::AesNi, IsaLevel::Avx512) ==
        "CPU path: aesni (lowered by WARPVOL_CPU_PATH; this CPU offers avx512)");
  CHECK(cli::cpu_path_line(IsaLevel::Portable, IsaLevel::Portable) == "CPU path: portable (the best this CPU offers)");
  wvtest::proc::ProcOptions o;
  o.env = {"WARPVOL_CPU_PATH=portable"};
  auto r = wvtest::proc::run_warpvol({"benchmark", "--kdf-only", "--hash", "sha256", "--iterations", "1"}, o);
  REQUIRE(r.code == 0);
  if (detected_isa() != IsaLevel::Portable) CHECK(r.out.find("CPU path: portable (lowered by WARPVOL_CPU_PATH") == 0);
  r = wvtest::proc::run_warpvol({"benchmark", "--kdf-only", "--hash", "sha256", "--iterations", "1"});
  CHECK(r.out.find("(the best this CPU offers") != std::string::npos);
}

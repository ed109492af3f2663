// Argon2id derivations end within milliseconds of a cancel flag or the process-wide stop request (SIGINT/SIGTERM,
// the GUI's Cancel), although libargon2 cannot be interrupted: the abandoned derivation finishes on its own thread.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/kdf/kdf_stop.h"
#include "core/kdf/prf.h"
#include "core/util/error.h"

using namespace warpvol;
using Clock = std::chrono::steady_clock;

namespace {

// 40 passes over 32 MiB: about a second on an idle core, many under load; far more than the 300 ms allowed below.
constexpr Argon2Params kSlow{40, 32 * 1024};

long ms_since(Clock::time_point t0) {
  return long(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

// Waits for every derivation of this process (abandoned ones included) to end, so that none outlives the test.
void wait_for_abandoned() {
  const auto t0 = Clock::now();
  while (argon2id_running() > 0 && ms_since(t0) < 300000)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(argon2id_running() == 0);
}

}  // namespace

TEST_CASE("Argon2id: a cancel flag ends the derivation at once", "[argon2][kdf][signal]") {
  const std::vector<uint8_t> pw{'p', 'w'}, salt(64, 7);
  std::vector<uint8_t> out(192, 0);
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  const auto t0 = Clock::now();
  const bool finished =
      argon2id_cancellable(pw.data(), pw.size(), salt.data(), salt.size(), kSlow, out.data(), out.size(), &cancel);
  const long ms = ms_since(t0);
  canceller.join();
  CHECK_FALSE(finished);
  CHECK(ms < 300);
  CHECK(out == std::vector<uint8_t>(192, 0));  // the abandoned derivation never writes into the caller's buffer
  wait_for_abandoned();
}

TEST_CASE("Argon2id: the stop request (SIGINT, Cancel) interrupts a header-key derivation", "[argon2][kdf][signal]") {
  const std::vector<uint8_t> pw{'p', 'w'}, salt(64, 9);
  std::vector<uint8_t> out(192, 0);
  clear_kdf_stop();
  std::thread signaller([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    request_kdf_stop();
  });
  const auto t0 = Clock::now();
  bool interrupted = false;
  try {
    argon2id(pw.data(), pw.size(), salt.data(), salt.size(), kSlow, out.data(), out.size());
  } catch (const Error& e) {
    interrupted = e.kind() == ErrorKind::Interrupted;
  }
  const long ms = ms_since(t0);
  signaller.join();
  clear_kdf_stop();
  CHECK(interrupted);
  CHECK(ms < 300);
  wait_for_abandoned();
  // Once the stop is cleared (the GUI's next operation), derivations run to the end again.
  std::vector<uint8_t> a(32), b(32);
  argon2id(pw.data(), pw.size(), salt.data(), salt.size(), {2, 64}, a.data(), a.size());
  argon2id(pw.data(), pw.size(), salt.data(), salt.size(), {2, 64}, b.data(), b.size());
  CHECK(a == b);
  CHECK(a != std::vector<uint8_t>(32, 0));
}

// Argon2id (format-spec §5.4), cancellable although libargon2 is not.
//
// argon2id_hash_raw() has no progress callback and runs for seconds over up to 1 GiB, so a stop request (SIGINT,
// the GUI's Cancel) or a match found by another candidate could only wait for it. Instead each derivation runs on
// a detached thread of its own and the caller waits for it in 10 ms slices, checking its flags in between; on
// cancel the caller returns at once and the thread is abandoned.
//
// An abandoned thread outlives the caller's stack and may outlive main(): it owns everything it touches. Its
// inputs and output are copies in a job object shared with the caller (the last owner frees it, and LockedBytes
// wipes on release); libargon2 wipes its own memory blocks before freeing them. Beyond the job it touches only
// objects that are never destroyed (the memory-lock table of secure.cpp and the counter below), so static
// destructors at exit cannot race it; the process ending simply ends it.
#include <argon2.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/kdf/kdf_stop.h"
#include "core/kdf/prf.h"
#include "core/util/error.h"
#include "core/util/secure.h"

namespace warpvol {

namespace {

std::atomic<size_t>& running() {
  static auto* n = new std::atomic<size_t>(0);  // never destroyed: abandoned threads decrement it after main()
  return *n;
}

struct Argon2Job {
  Argon2Job(const uint8_t* pw, size_t pw_len, const uint8_t* s, size_t s_len, const Argon2Params& p, size_t out_len)
      : password(pw, pw_len), salt(s, s_len), params(p), out(out_len) {}
  const LockedBytes password;
  const LockedBytes salt;
  const Argon2Params params;
  LockedBytes out;
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;  // under mu
  int rc = ARGON2_OK;     // under mu once finished
};

void run_job(std::shared_ptr<Argon2Job> job) {
  Argon2Job& j = *job;
  const int rc = argon2id_hash_raw(j.params.t_cost, j.params.m_cost_kib, 1, j.password.data(), j.password.size(),
                                   j.salt.data(), j.salt.size(), j.out.data(), j.out.size());
  {
    std::lock_guard<std::mutex> lk(j.mu);
    j.rc = rc;
    j.finished = true;
    j.cv.notify_all();
  }
  job.reset();  // wipes the copies here if the caller is gone
  running().fetch_sub(1);
}

bool stop_wanted(const std::atomic<bool>* cancel) {
  return (cancel && cancel->load(std::memory_order_relaxed)) || kdf_stop_requested();
}

}  // namespace

bool argon2id_cancellable(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len,
                          const Argon2Params& p, uint8_t* out, size_t out_len, const std::atomic<bool>* cancel) {
  if (stop_wanted(cancel)) return false;
  auto job = std::make_shared<Argon2Job>(pw, pw_len, salt, salt_len, p, out_len);
  running().fetch_add(1);
  try {
    std::thread(run_job, job).detach();
  } catch (...) {
    running().fetch_sub(1);
    throw;
  }
  std::unique_lock<std::mutex> lk(job->mu);
  while (!job->cv.wait_for(lk, std::chrono::milliseconds(10), [&] { return job->finished; }))
    if (stop_wanted(cancel)) return false;
  if (job->rc != ARGON2_OK)
    throw Error(ErrorKind::Format, std::string("Argon2id failed: ") + argon2_error_message(job->rc));
  std::memcpy(out, job->out.data(), out_len);
  return true;
}

void argon2id(const uint8_t* pw, size_t pw_len, const uint8_t* salt, size_t salt_len, const Argon2Params& p,
              uint8_t* out, size_t out_len) {
  if (!argon2id_cancellable(pw, pw_len, salt, salt_len, p, out, out_len, nullptr))
    throw Error(ErrorKind::Interrupted, "interrupted");
}

size_t argon2id_running() { return running().load(); }

}  // namespace warpvol

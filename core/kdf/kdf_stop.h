// A process-wide request to abandon every key derivation in progress: SIGINT/SIGTERM in the CLI, Cancel in the
// GUI. One flag instead of a token per call because a derivation can run deep below an API that has no cancel
// parameter (a new header's KDF inside create/change/convert), and an interrupt means "stop everything" anyway.
// The PBKDF2 loops poll it with their own cancel flag (prf.h, pbkdf2_cancelled: every 1024 iterations, a few
// milliseconds apart) and Argon2id waits for its own thread in 10 ms slices (argon2.cpp); an abandoned derivation
// throws Error(Interrupted).
#pragma once
#include <atomic>

namespace warpvol {

inline std::atomic<bool> g_kdf_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_kdf_stop() must be async-signal-safe");

// Async-signal-safe (a lock-free atomic store).
inline void request_kdf_stop() { g_kdf_stop.store(true, std::memory_order_relaxed); }
// For a long-lived process (the GUI) before its next operation.
inline void clear_kdf_stop() { g_kdf_stop.store(false, std::memory_order_relaxed); }
inline bool kdf_stop_requested() { return g_kdf_stop.load(std::memory_order_relaxed); }

}  // namespace warpvol

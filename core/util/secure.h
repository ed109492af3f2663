// Memory for secrets: wiped on release (Crypto++'s SecByteBlock zeroes before freeing) and mlock()ed where the
// process may lock memory, so keys and passwords do not reach swap.
#pragma once
#include <cryptopp/secblock.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace warpvol {

using SecureBytes = CryptoPP::SecByteBlock;

// Best effort mlock() and MADV_DONTDUMP of the pages under [p, p+n); failure (RLIMIT_MEMLOCK) is not an error,
// but the first one is passed to the failure notice (the CLI shows it under --verbose). Counted per page: a page
// stays locked until every range locked on it has been unlocked.
void lock_memory(const void* p, size_t n);
void unlock_memory(const void* p, size_t n);
uint32_t memory_lock_count(const void* p);  // live locked ranges on p's page (tests)

// The system calls behind lock_memory/unlock_memory (mlock/munlock), replaceable for tests. Returns the previous.
struct MemoryLockBackend {
  int (*lock)(const void*, size_t);
  int (*unlock)(const void*, size_t);
};
MemoryLockBackend set_memory_lock_backend(MemoryLockBackend b);
// Called once, with one line, at the first failed mlock() after it is set (empty function: none).
void set_memory_lock_failure_notice(std::function<void(const std::string&)> fn);

// prctl(PR_SET_DUMPABLE, 0): no core dump (it would hold master keys) and no ptrace attach by the same user.
// Called first thing by warpvol, warpvol-mountd and warpvol-gui.
void make_process_undumpable();
// Wipes with a store the compiler may not remove.
void secure_wipe(void* p, size_t n);

// A SecureBytes that is also locked in RAM for its lifetime.
class LockedBytes {
 public:
  LockedBytes() = default;
  explicit LockedBytes(size_t n) : bytes_(n) { lock_memory(bytes_.data(), bytes_.size()); }
  LockedBytes(const uint8_t* p, size_t n) : bytes_(p, n) { lock_memory(bytes_.data(), bytes_.size()); }
  LockedBytes(const LockedBytes& o) : bytes_(o.bytes_) { lock_memory(bytes_.data(), bytes_.size()); }
  LockedBytes& operator=(const LockedBytes& o) {
    if (this != &o) {
      unlock_memory(bytes_.data(), bytes_.size());
      bytes_ = o.bytes_;
      lock_memory(bytes_.data(), bytes_.size());
    }
    return *this;
  }
  ~LockedBytes() { unlock_memory(bytes_.data(), bytes_.size()); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  void resize(size_t n) {
    unlock_memory(bytes_.data(), bytes_.size());
    bytes_.CleanGrow(n);
    bytes_.resize(n);
    lock_memory(bytes_.data(), bytes_.size());
  }
  uint8_t& operator[](size_t i) { return bytes_[i]; }
  uint8_t operator[](size_t i) const { return bytes_[i]; }
  std::string_view view() const { return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size()}; }

 private:
  SecureBytes bytes_;
};

}  // namespace warpvol

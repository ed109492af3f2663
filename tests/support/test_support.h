// Shared helpers for the test suite: the engines under test (Botan-style provider fan-out: every engine that exists
// runs the same data; xts_vectors.h runs the XTS vector files over them), temporary folders. Includes vectors.h
// (testvectors/ and hex).
#pragma once
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/xts_engine.h"
#include "core/kdf/prf.h"
#include "tests/support/vectors.h"

namespace wvtest {

// PBKDF2 (RFC 8018 section 5.2), one block, spelled out over hmac_bytes: the reference for the PRFs that have their
// own iteration loops (BLAKE2s lanes, Streebog, Whirlpool).
std::vector<uint8_t> pbkdf2_over_hmac(warpvol::PrfId prf, const std::vector<uint8_t>& pw,
                                      const std::vector<uint8_t>& salt, uint32_t iterations, uint32_t block);

// The PRF a vector file names: "HMAC-Streebog-512 (GOST R 34.11-2012)" -> Streebog.
warpvol::PrfId prf_from_vector_name(std::string name);

struct NamedEngine {
  std::string name;  // "cpu/avx512", "cpu/portable", "gpu"
  std::shared_ptr<warpvol::XtsEngine> engine;
};
// The CPU engine at each ISA level this CPU can run (others reported as skipped via WARN), plus the GPU engine
// when one is compiled in and a device is present.
std::vector<NamedEngine> engines_under_test();

// A fresh temporary folder removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Sets an environment variable (value null: unsets it) for a scope, and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::make_unique<std::string>(old);
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::unique_ptr<std::string> old_;
};

}  // namespace wvtest

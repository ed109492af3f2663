// Twofish-256-XTS implementations registered with the dispatcher (see simd_xts.h; kernels and tables:
// twofish_xts.h). Portable flags here; the dispatcher selects a level only when the CPU runs it.
//
// Gathers vs scalar, measured on the dev machine (AMD EPYC, Zen 3 class: AVX2 + VAES, no AVX-512/GFNI; 1 MiB of
// 512-byte units, one core, bench/cipher_xts_bench.cpp): scalar with 4 blocks in flight ~0.36 GB/s, AVX2
// vpgatherdd ~0.20-0.28 GB/s (a ymm gather costs ~14 cycles there). The scalar kernel wins, so it is the only one
// registered: at the AES-NI level, which the dispatcher also picks at the AVX2 and AVX-512 levels. The AVX-512
// gather kernel could not be measured here (no AVX-512): bench/cipher_xts_bench.cpp reports both on a CPU that has
// it, and registering it is one line below once it is measured faster. Both gather kernels are tested
// (tests/test_simd_ciphers.cpp) wherever the CPU runs them.
#include <memory>
#include <string_view>

#include "core/crypto/simd/simd_xts.h"
#include "core/crypto/simd/twofish_xts.h"
#include "core/util/secure.h"

namespace warpvol::simd {

namespace {

class TwofishXtsSimd final : public XtsCipher {
 public:
  TwofishXtsSimd(std::string_view name, twofish::XtsKernel enc, twofish::XtsKernel dec, const uint8_t* key1,
                 const uint8_t* key2)
      : name_(name), enc_(enc), dec_(dec) {
    lock_memory(&keys_, sizeof keys_);
    twofish::expand_key(key1, &keys_.k1);
    twofish::expand_key(key2, &keys_.k2);
  }
  ~TwofishXtsSimd() override {
    secure_wipe(&keys_, sizeof keys_);
    unlock_memory(&keys_, sizeof keys_);
  }
  TwofishXtsSimd(const TwofishXtsSimd&) = delete;
  TwofishXtsSimd& operator=(const TwofishXtsSimd&) = delete;

  CipherId cipher() const override { return CipherId::Twofish; }
  std::string_view impl_name() const override { return name_; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { enc_(&keys_, unit0, data, nunits); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { dec_(&keys_, unit0, data, nunits); }

 private:
  twofish::TwofishXtsKeys keys_;  // 8.3 KiB: the S-box tables of both keys
  std::string_view name_;
  twofish::XtsKernel enc_, dec_;
};

std::unique_ptr<XtsCipher> make_scalar(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<TwofishXtsSimd>("scalar", twofish::xts_encrypt_scalar, twofish::xts_decrypt_scalar, key1,
                                          key2);
}

}  // namespace

void add_twofish_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Twofish, IsaLevel::AesNi, &make_scalar});
  // Not registered (slower on the dev machine, or not measured): twofish::xts_{en,de}crypt_avx2 / _avx512.
}

}  // namespace warpvol::simd

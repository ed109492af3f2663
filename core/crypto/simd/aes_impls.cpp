// AES-256-XTS implementations registered with the dispatcher (see simd_xts.h): AES-NI, AVX2+VAES and
// AVX-512+VAES+VPCLMULQDQ kernels written with intrinsics (aes_xts_*.cpp; why not Crypto++/OpenSSL: aes_xts.h).
// This file is compiled with portable flags; the XtsCipher wrapper only calls the kernels of the chosen level,
// which the dispatcher selects only when the CPU runs it.
#include <memory>
#include <string_view>

#include "core/crypto/simd/aes_xts.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/util/secure.h"

namespace warpvol::simd {

namespace {

class AesXtsSimd final : public XtsCipher {
 public:
  AesXtsSimd(std::string_view name, aes::XtsKernel enc, aes::XtsKernel dec, const uint8_t* key1,
             const uint8_t* key2)
      : name_(name), enc_(enc), dec_(dec) {
    lock_memory(&k1_, sizeof k1_);
    lock_memory(&k2_, sizeof k2_);
    aes::expand_key_aesni(key1, &k1_);
    aes::expand_key_aesni(key2, &k2_);
  }
  ~AesXtsSimd() override {
    secure_wipe(&k1_, sizeof k1_);
    secure_wipe(&k2_, sizeof k2_);
    unlock_memory(&k1_, sizeof k1_);
    unlock_memory(&k2_, sizeof k2_);
  }
  AesXtsSimd(const AesXtsSimd&) = delete;
  AesXtsSimd& operator=(const AesXtsSimd&) = delete;

  CipherId cipher() const override { return CipherId::Aes; }
  std::string_view impl_name() const override { return name_; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override {
    enc_(&k1_, &k2_, unit0, data, nunits);
  }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override {
    dec_(&k1_, &k2_, unit0, data, nunits);
  }

 private:
  aes::Aes256Schedule k1_, k2_;  // data key, tweak key (alignas(64) via the type; new honours it in C++17)
  std::string_view name_;
  aes::XtsKernel enc_, dec_;
};

std::unique_ptr<XtsCipher> make_aesni(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<AesXtsSimd>("aesni", aes::xts_encrypt_aesni, aes::xts_decrypt_aesni, key1, key2);
}
std::unique_ptr<XtsCipher> make_avx2(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<AesXtsSimd>("avx2", aes::xts_encrypt_avx2, aes::xts_decrypt_avx2, key1, key2);
}
std::unique_ptr<XtsCipher> make_avx512(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<AesXtsSimd>("avx512", aes::xts_encrypt_avx512, aes::xts_decrypt_avx512, key1, key2);
}

}  // namespace

void add_aes_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Aes, IsaLevel::AesNi, &make_aesni});
  out.push_back({CipherId::Aes, IsaLevel::Avx2, &make_avx2});
  out.push_back({CipherId::Aes, IsaLevel::Avx512, &make_avx512});
}

}  // namespace warpvol::simd

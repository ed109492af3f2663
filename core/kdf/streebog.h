// Streebog-512 (GOST R 34.11-2012, RFC 6986), written here because Crypto++ has no Streebog. It implements
// Crypto++'s HashTransformation so the same HMAC/PBKDF2 code runs over it.
#pragma once
#include <cryptopp/cryptlib.h>

#include <atomic>
#include <cstdint>

namespace warpvol {

// One PBKDF2-HMAC-Streebog-512 block (64 bytes). Each iteration's first compression, of the message block after the
// fixed ipad/opad block, has a fixed chaining value and counter, so its 13 round keys are computed once per block:
// 174 instead of 200 LPS transforms per iteration. False when *cancel became true first.
bool streebog_pbkdf2_block(const uint8_t* password, size_t password_len, const uint8_t* salt, size_t salt_len,
                           uint32_t iterations, uint32_t block_index, uint8_t* out, const std::atomic<bool>* cancel);

class Streebog512 : public CryptoPP::HashTransformation {
 public:
  static constexpr unsigned int DIGESTSIZE = 64;
  static constexpr unsigned int BLOCKSIZE = 64;
  Streebog512() { Restart(); }
  ~Streebog512() override;  // wipes the state (a password's, under HMAC), as Crypto++'s hashes do theirs
  void Update(const CryptoPP::byte* input, size_t length) override;
  unsigned int DigestSize() const override { return DIGESTSIZE; }
  unsigned int BlockSize() const override { return BLOCKSIZE; }
  unsigned int OptimalBlockSize() const override { return BLOCKSIZE; }
  void TruncatedFinal(CryptoPP::byte* digest, size_t digestSize) override;  // also restarts
  void Restart() override;
  std::string AlgorithmName() const override { return StaticAlgorithmName(); }
  // Lets Crypto++'s templates (HMAC<Streebog512>, PKCS5_PBKDF2_HMAC<Streebog512>) take this class.
  static const char* StaticAlgorithmName() { return "Streebog-512"; }

 private:
  void compress(const uint8_t* block);  // g_N(h, m) with N, then N += 512, Sigma += m
  alignas(64) uint64_t h_[8];
  alignas(64) uint64_t n_[8];
  alignas(64) uint64_t sigma_[8];
  alignas(64) uint8_t buf_[64];
  size_t buf_len_;
};

}  // namespace warpvol

// XTS known answers run the way Botan runs its vector files: one data file, every implementation ("provider") that
// exists on this machine. A provider is an engine (the CPU engine at each ISA level, the GPU engine when a device is
// present) or one SIMD path of one cipher; the vector checks are written once, here, and every test that owns a
// provider hands it to them.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/crypto/chain.h"
#include "core/crypto/xts.h"

namespace wvtest {

struct XtsProvider {
  // En- or decrypts nunits whole data units in place, the first numbered unit0.
  using Crypt = std::function<void(warpvol::Direction, uint64_t unit0, uint8_t* data, size_t nunits)>;
  std::string name;                       // "cpu/avx2", "gpu", "Serpent/avx512", "Serpent/emulated-avx512"
  std::vector<warpvol::ChainId> chains;   // what it implements: every chain for an engine, one for a cipher path
  // Keys it for a chain with 2K bytes of key material, primary keys then secondary keys (as a header holds them).
  std::function<Crypt(warpvol::ChainId, const uint8_t* key_material)> key;
};

// engines_under_test() (test_support.h) as providers of every chain.
std::vector<XtsProvider> engine_providers();

// One XtsCipher implementation of a single cipher (a SIMD path, an emulated vector shape) as a provider.
using MakeXts = std::function<std::unique_ptr<warpvol::XtsCipher>(const uint8_t* k1, const uint8_t* k2)>;
XtsProvider cipher_provider(std::string name, warpvol::CipherId cipher, MakeXts make);

// IEEE 1619 XTS-AES-256 (testvectors/xts_aes256_ieee1619.json) through every provider; each must implement AES.
void check_ieee1619_vectors(const std::vector<XtsProvider>& providers);

// VeraCrypt's TestSectorBufEncryption CRCs (testvectors/xts_cascades_crc.json): every chain a provider implements,
// four units at 0xFFFFFFFFFF - c for each case c and the buffer from unit 0, both directions. Each provider must
// find at least one of its chains in the file.
void check_cascade_crc_vectors(const std::vector<XtsProvider>& providers);

}  // namespace wvtest

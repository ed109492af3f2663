// Registry of SIMD XTS implementations. Each cipher's SIMD files add their implementations in their add_*
// function (crypto/simd/<cipher>_impls.cpp); crypto/xts_dispatch.cpp picks the highest level not above the
// active one, falling back to the portable path.
#pragma once
#include <memory>
#include <vector>

#include "core/crypto/xts.h"

namespace warpvol::simd {

struct XtsImpl {
  CipherId cipher;
  IsaLevel level;  // minimum ISA level needed to run it
  std::unique_ptr<XtsCipher> (*make)(const uint8_t* key1, const uint8_t* key2);
};

void add_aes_impls(std::vector<XtsImpl>& out);
void add_serpent_impls(std::vector<XtsImpl>& out);
void add_twofish_impls(std::vector<XtsImpl>& out);
void add_camellia_impls(std::vector<XtsImpl>& out);
void add_kuznyechik_impls(std::vector<XtsImpl>& out);

const std::vector<XtsImpl>& all_impls();

}  // namespace warpvol::simd

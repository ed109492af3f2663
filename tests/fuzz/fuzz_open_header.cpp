// open_header over raw container bytes: header locations for every file size, reading, decryption attempts, the
// backup fallback and the layout decision, with the key search narrowed to its cheapest form: password "fuzz",
// TrueCrypt format, HMAC-SHA-512 (one PBKDF2 block per location) and one single-cipher chain, and the iteration
// count cut to fuzz::kOpenHeaderFuzzIterations through OpenOptions' test-only seam, so that an input costs tens of
// microseconds rather than the milliseconds of TrueCrypt's 1000 iterations. The seeds hold headers sealed that way
// (make_corpus.cpp), so the fuzzer starts from containers that open.
//
// Input: u8 flags | u32 container size | container bytes from offset 0 (the rest of the container reads as zeros)
//   flags bits 0-1: slot narrowing (normal only, --hidden, normal only, none); bit 2: --backup-header; bit 3: the
//   backup fallback; bits 4-5: chain (AES, Serpent, Twofish, AES); bit 6: --system. Most inputs thus derive one
//   key (one location); bits 0-1 = 3 with bit 3 derive one per location (up to five).
#include <cstring>

#include "core/format/open.h"
#include "core/util/error.h"
#include "tests/fuzz/seeds.h"
#include "tests/fuzz/support.h"

using namespace warpvol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* p = data;
  size_t n = size;
  const unsigned flags = unsigned(fuzz::take_le(p, n, 1));
  const uint64_t H = fuzz::take_le(p, n, 4);

  OpenOptions opt;
  static const uint8_t kPassword[] = {'f', 'u', 'z', 'z'};
  opt.credentials.password = LockedBytes(kPassword, sizeof kPassword);
  opt.format = VolumeFormat::TrueCrypt;
  opt.prf = PrfId::Sha512;
  static const ChainId chains[] = {ChainId::Aes, ChainId::Serpent, ChainId::Twofish, ChainId::Aes};
  opt.chain = chains[(flags >> 4) & 3];
  if ((flags & 3) != 3) opt.slot = (flags & 3) == 1 ? SlotKind::Hidden : SlotKind::Normal;
  opt.backup_only = flags & 4;
  opt.allow_backup_fallback = flags & 8;
  opt.system = flags & 64;
  opt.notice = [](const std::string&) {};
  opt.test_only_pbkdf2_iterations = fuzz::kOpenHeaderFuzzIterations;

  fuzz::MemoryFile file(p, n, H);
  try {
    const OpenedHeader o = open_header(file, opt);
    WARPVOL_FUZZ_CHECK(o.data_offset <= H && o.data_size <= H - o.data_offset, "data area past the container's end");
    WARPVOL_FUZZ_CHECK(o.header_offset + kHeaderSize <= H, "opened a header outside the container");
    WARPVOL_FUZZ_CHECK(o.format == VolumeFormat::TrueCrypt && o.kdf.prf == PrfId::Sha512 && o.chain == *opt.chain,
                       "opened outside the narrowing options");
    WARPVOL_FUZZ_CHECK(o.kdf.iterations == fuzz::kOpenHeaderFuzzIterations, "opened with another iteration count");
  } catch (const Error&) {
  }
  return 0;
}

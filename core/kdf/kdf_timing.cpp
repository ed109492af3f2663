#include "core/kdf/kdf_timing.h"

#include <chrono>
#include <vector>

#include "core/format/header.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "core/util/secure.h"

namespace warpvol {

KdfTiming measure_kdf(PrfId prf, int pim) {
  using Clock = std::chrono::steady_clock;
  std::vector<uint8_t> salt(kSaltSize);
  random_bytes(salt.data(), salt.size());
  static const char pw[] = "warpvol benchmark password";
  KdfTiming t{prf, {}, 0};
  if (prf == PrfId::Argon2id) {
    const Argon2Params a = argon2_params(pim);
    SecureBytes out(kHeaderKeyMaterial);
    const auto t0 = Clock::now();
    argon2id(reinterpret_cast<const uint8_t*>(pw), sizeof pw - 1, salt.data(), salt.size(), a, out.data(), out.size());
    t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    t.parameters = "t=" + std::to_string(a.t_cost) + ", m=" + std::to_string(a.m_cost_kib / 1024) + " MiB";
    return t;
  }
  uint32_t it = pbkdf2_iterations(prf, VolumeFormat::VeraCrypt, pim, false);
  if (it == 0) it = pbkdf2_iterations(prf, VolumeFormat::TrueCrypt, 0, false);
  if (it == 0) throw Error(ErrorKind::Usage, "no iteration count for " + std::string(prf_info(prf).name));
  SecureBytes out(prf_info(prf).digest_size);
  const auto t0 = Clock::now();
  pbkdf2_block(prf, reinterpret_cast<const uint8_t*>(pw), sizeof pw - 1, salt.data(), salt.size(), it, 1, out.data());
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  t.parameters = std::to_string(it) + " iterations, 1 block";
  return t;
}

}  // namespace warpvol

// Credentials and open-narrowing options shared by every command that opens a volume:
//   password: prompt with echo off on a TTY | --password-stdin | --password-fd N | --password PW (unsafe)
//   -k/--keyfile PATH (repeatable, folders allowed), --pim N, --non-interactive
//   narrowing: --hash PRF, --encryption CHAIN, --truecrypt, --veracrypt, --hidden, --backup-header, --system
//   system encryption: --partition N, --partition-offset BYTES|Ns, --header-file PATH (core/format/system_layout.h)
// Password bytes live only in LockedBytes (wiped, mlock()ed) and are limited to 128 bytes (64 with --truecrypt).
#pragma once
#include <string>

#include "cli/command.h"
#include "core/format/open.h"
#include "core/util/secure.h"

namespace warpvol::cli {

constexpr size_t kMaxPasswordBytes = 128;           // VeraCrypt
constexpr size_t kMaxTrueCryptPasswordBytes = 64;   // TrueCrypt 7.1a
constexpr int kMaxPim = 2147468;                    // VeraCrypt MAX_PIM_VALUE (non-system)
constexpr int kMaxSystemPim = 65535;                // VeraCrypt's pre-boot PIM field holds at most this

void add_credential_options(po::options_description& desc);

// Validates the narrowing options (before anything is prompted), then obtains the password and fills
// OpenOptions. `volume` is named in the prompt. Usage errors for bad values, missing password with
// --non-interactive, a password over the limit, or an empty password without keyfiles.
OpenOptions open_options_from(const po::variables_map& vm, const std::string& volume, const Context& ctx);

}  // namespace warpvol::cli

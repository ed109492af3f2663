// Helpers for the create/change/header-backup tests: running the real warpvol binary (WARPVOL_BINARY) with
// stdin, credentials with a small PIM (16000 PBKDF2 iterations), opening and reading volumes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/create/create.h"
#include "core/format/open.h"

namespace wvtest {

struct RunResult {
  int code = -1;
  std::string out, err;
};
// Runs warpvol with args; `input` is fed to its stdin (then EOF). Never goes through a shell.
RunResult run_warpvol(const std::vector<std::string>& args, const std::string& input = "");
// Same, sending `sig` to it once `ready(err_so_far)` is true (polled every 10 ms; err is its stderr so far) or
// after timeout_ms.
RunResult run_warpvol_signal(const std::vector<std::string>& args, const std::string& input, int sig,
                             const std::string& wait_for_in_err, int timeout_ms);

warpvol::Credentials creds(const std::string& password, int pim = 1, std::vector<std::string> keyfiles = {});
warpvol::OpenOptions open_opts(const std::string& password, int pim = 1, std::vector<std::string> keyfiles = {});

// A normal volume through the core API: size H, given chain/PRF, PIM 1, CPU engine, full fill unless quick.
warpvol::CreateOptions normal_options(const std::string& path, uint64_t size, const std::string& password,
                                      warpvol::ChainId chain = warpvol::ChainId::Aes,
                                      warpvol::PrfId prf = warpvol::PrfId::Sha512, bool quick = false);

// A quick 1 MiB normal volume ("outer-pw") holding a quick 256 KiB hidden volume ("hidden-pw"), PIM 1.
void create_outer_and_hidden(const std::string& path, warpvol::ChainId outer_chain, warpvol::PrfId outer_prf,
                             warpvol::ChainId hidden_chain, warpvol::PrfId hidden_prf);

// Opens the volume (read-only) and returns its header; throws like open_header.
warpvol::OpenedHeader open_volume(const std::string& path, const warpvol::OpenOptions& opt);
// The whole decrypted data area.
std::vector<uint8_t> read_data(const std::string& path, const warpvol::OpenOptions& opt);
// True when the volume opens with these credentials.
bool opens(const std::string& path, const warpvol::OpenOptions& opt);

std::vector<std::string> dir_entries(const std::string& dir);  // names, sorted
unsigned file_mode(const std::string& path);                  // st_mode & 07777
uint64_t file_size(const std::string& path);
std::vector<uint8_t> file_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& data);
void overwrite(const std::string& path, uint64_t offset, const std::vector<uint8_t>& data);
std::vector<uint8_t> pattern(size_t n, uint32_t seed);        // deterministic non-trivial bytes

// Wraps a file and counts its write_at and sync calls into *counter (to know how many crash points a run has).
std::unique_ptr<warpvol::BlockFile> counting_file(std::unique_ptr<warpvol::BlockFile> f, uint64_t* counter);

}  // namespace wvtest

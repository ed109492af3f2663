// Helpers for the re-encryption tests (tests/jobs/test_reencrypt*.cpp): containers made with header_writer (normal,
// with a hidden volume, TrueCrypt format), reading a volume's whole plaintext, and a folder on tmpfs for the
// many-run tests. Crashes over several files at once: FailGroup (fail_file.h, included here).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/cpu_engine.h"
#include "core/format/header_writer.h"
#include "core/format/open.h"
#include "core/reencrypt/reencrypt.h"
#include "tests/support/fail_file.h"

namespace rtest {

warpvol::LockedBytes pw(const std::string& s);
warpvol::Credentials creds(const std::string& password, int pim = 1, std::vector<std::string> keyfiles = {});
warpvol::OpenOptions open_opts(const warpvol::Credentials& c, std::optional<warpvol::PrfId> prf = std::nullopt,
                               std::optional<warpvol::ChainId> chain = std::nullopt);
std::shared_ptr<warpvol::XtsEngine> engine();

std::string sha256_hex(const uint8_t* p, size_t n);
std::string sha256_hex(const std::vector<uint8_t>& v);
std::string file_sha256(const std::string& path);
std::vector<uint8_t> noise(size_t n);
void copy_file(const std::string& from, const std::string& to);

// A VeraCrypt container (V2 layout, fake hidden headers) whose data area is `plain` encrypted under a fresh master
// key. Container size = data + 262144. format TrueCrypt: magic TRUE, TrueCrypt iteration counts, required 0x0700.
void make_container(const std::string& path, const std::vector<uint8_t>& plain, warpvol::ChainId chain,
                    warpvol::PrfId prf, const warpvol::Credentials& c,
                    warpvol::VolumeFormat format = warpvol::VolumeFormat::VeraCrypt);
// Adds a hidden volume of `hidden_size` bytes (requested size S) to a container made by make_container, with its
// own plaintext (hidden_layout(H, S).data_size bytes). The outer volume's plaintext changes where the hidden
// ciphertext now lies: read it again afterwards.
void add_hidden_volume(const std::string& path, uint64_t hidden_size,
                                       const std::vector<uint8_t>& hidden_plain, warpvol::ChainId chain,
                                       const warpvol::Credentials& c);

// The whole plaintext of the volume the options open (throws like open_header).
std::vector<uint8_t> read_plain(const std::string& path, const warpvol::OpenOptions& o);
warpvol::OpenedHeader header_of(const std::string& path, const warpvol::OpenOptions& o);

// A whole file's bytes; a file written with exactly these bytes (journals and containers saved and restored).
std::vector<uint8_t> read_all(const std::string& path);
void write_all(const std::string& path, const std::vector<uint8_t>& bytes);

// Runs one job to the end (prepare + run); returns the result.
warpvol::reenc::JobResult reencrypt(const warpvol::reenc::VolumeRequest& r, const warpvol::reenc::JobOptions& o);
warpvol::reenc::JobOptions job_options(warpvol::reenc::Resilience res, uint64_t hotzone);

// A folder on /dev/shm when available (fsync is free there; the crash model is simulated anyway), else /tmp.
class FastDir {
 public:
  FastDir();
  ~FastDir();
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace rtest

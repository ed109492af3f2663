// Helpers for the re-encryption tests (test_reencrypt*.cpp): containers made with header_writer (normal, with a
// hidden volume, TrueCrypt format), reading a volume's whole plaintext, a crash-simulating file layer shared by
// several files (one operation counter for the container and every journal file; power loss drops the un-synced
// writes of all of them), and a folder on tmpfs for the many-run tests.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/engine/cpu_engine.h"
#include "core/format/header_writer.h"
#include "core/format/open.h"
#include "core/io/fail_file.h"
#include "core/reencrypt/reencrypt.h"

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

// Crash simulation over several files with one operation counter (writes and syncs count).
//   Error: the N-th operation throws and writes nothing. Torn: the N-th write stores its first torn_bytes bytes,
//   then throws. PowerLoss: writes stay pending until their file's sync(); at the N-th operation the pending writes
//   of EVERY file are dropped and it throws; pending writes of a file closed without sync are dropped too.
struct CrashPlan {
  uint64_t fail_at = 0;  // 0 = never
  warpvol::FailMode mode = warpvol::FailMode::Error;
  size_t torn_bytes = 0;
  uint64_t ops = 0;
  bool failed = false;
  std::set<class CrashFile*> live;
};
class CrashFile final : public warpvol::BlockFile {
 public:
  CrashFile(std::unique_ptr<warpvol::BlockFile> inner, CrashPlan& plan);
  ~CrashFile() override;
  uint64_t size() const override;
  void read_at(uint64_t offset, uint8_t* buf, size_t len) override;
  void write_at(uint64_t offset, const uint8_t* buf, size_t len) override;
  void sync() override;
  bool writable() const override { return inner_->writable(); }
  const std::string& path() const override { return inner_->path(); }
  void truncate(uint64_t n) override;
  void drop_pending() {
    pending_.clear();
    pending_end_ = 0;
  }

 private:
  [[noreturn]] void fail(const std::string& what);
  bool next_fails();
  struct Pending {
    uint64_t off;
    std::vector<uint8_t> data;
  };
  std::unique_ptr<warpvol::BlockFile> inner_;
  CrashPlan& plan_;
  std::vector<Pending> pending_;
  uint64_t pending_end_ = 0;
};
warpvol::reenc::FileWrapper crash_wrapper(CrashPlan& plan);

}  // namespace rtest

#include "tests/support/reencrypt_support.h"

#include <cryptopp/sha.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/crypto/chain.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "core/volume/volume.h"

using namespace warpvol;

namespace rtest {

LockedBytes pw(const std::string& s) { return LockedBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

Credentials creds(const std::string& password, int pim, std::vector<std::string> keyfiles) {
  Credentials c;
  c.password = pw(password);
  c.pim = pim;
  c.keyfiles = std::move(keyfiles);
  return c;
}

OpenOptions open_opts(const Credentials& c, std::optional<PrfId> prf, std::optional<ChainId> chain) {
  OpenOptions o;
  o.credentials.password = c.password;
  o.credentials.keyfiles = c.keyfiles;
  o.credentials.pim = c.pim;
  o.prf = prf;
  o.chain = chain;
  return o;
}

std::shared_ptr<XtsEngine> engine() {
  static std::shared_ptr<XtsEngine> e = std::make_shared<CpuEngine>(0);
  return e;
}

std::string sha256_hex(const uint8_t* p, size_t n) {
  CryptoPP::SHA256 h;
  uint8_t d[32];
  h.CalculateDigest(d, p, n);
  return to_hex(d, 32);
}
std::string sha256_hex(const std::vector<uint8_t>& v) { return sha256_hex(v.data(), v.size()); }

std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return sha256_hex(b);
}

std::vector<uint8_t> noise(size_t n) {
  std::vector<uint8_t> v(n);
  random_bytes(v.data(), n);
  return v;
}

void copy_file(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

void make_container(const std::string& path, const std::vector<uint8_t>& plain, ChainId chain, PrfId prf,
                    const Credentials& c, VolumeFormat format) {
  const uint64_t H = plain.size() + 2 * kHeaderGroupSize;
  LockedBytes mk = new_master_key(chain);
  HeaderFields f = normal_volume_fields(H, 512, chain, mk);
  if (format == VolumeFormat::TrueCrypt) {
    f.magic = kMagicTrue;
    f.required_version = kTrueRequiredVersion;
  }
  const KdfChoice kdf = new_header_kdf(prf, format, format == VolumeFormat::TrueCrypt ? 0 : c.pim);
  const auto headers = build_headers(f, chain, kdf, header_kdf_password(c, format), 2);
  auto file = open_file(path, OpenMode::CreateTruncate);
  file->truncate(H);
  write_header_slot(*file, 0, headers[0]);
  write_header_slot(*file, kHeaderSlotSize, build_fake_header(chain, H, 512));
  write_header_slot(*file, H - kHeaderGroupSize, headers[1]);
  write_header_slot(*file, H - kHeaderSlotSize, build_fake_header(chain, H, 512));
  std::vector<uint8_t> ct = plain;
  XtsChain x(chain, mk.data());
  x.encrypt(kDataOffsetV2 / 512, ct.data(), ct.size() / 512);
  file->write_at(kDataOffsetV2, ct.data(), ct.size());
  file->sync();
}

void add_hidden_volume(const std::string& path, uint64_t S, const std::vector<uint8_t>& hidden_plain,
                                       ChainId chain, const Credentials& c) {
  auto file = open_file(path, OpenMode::ReadWrite);
  const uint64_t H = file->size();
  const HiddenLayout l = hidden_layout(H, S, 512);
  if (hidden_plain.size() != l.data_size) throw std::runtime_error("hidden plaintext size must be " + std::to_string(l.data_size));
  LockedBytes mk = new_master_key(chain);
  HeaderFields f = hidden_volume_fields(l, 512, chain, mk);
  const auto headers = build_headers(f, chain, new_header_kdf(PrfId::Sha512, VolumeFormat::VeraCrypt, c.pim),
                                     header_kdf_password(c, VolumeFormat::VeraCrypt), 2);
  write_header(*file, kHeaderSlotSize, headers[0]);
  write_header(*file, H - kHeaderSlotSize, headers[1]);
  std::vector<uint8_t> ct = hidden_plain;
  XtsChain(chain, mk.data()).encrypt(l.data_start / 512, ct.data(), ct.size() / 512);
  file->write_at(l.data_start, ct.data(), ct.size());
  file->sync();
}

OpenedHeader header_of(const std::string& path, const OpenOptions& o) {
  auto f = open_file(path, OpenMode::ReadOnly);
  return open_header(*f, o);
}

std::vector<uint8_t> read_plain(const std::string& path, const OpenOptions& o) {
  auto f = open_file(path, OpenMode::ReadOnly);
  OpenedHeader h = open_header(*f, o);
  Volume v(std::move(f), h, engine());
  std::vector<uint8_t> out(v.size());
  v.read(0, out.data(), out.size());
  return out;
}

reenc::JobResult reencrypt(const reenc::VolumeRequest& r, const reenc::JobOptions& o) {
  auto job = reenc::Job::prepare(r, o);
  return job->run();
}

reenc::JobOptions job_options(reenc::Resilience res, uint64_t hotzone) {
  reenc::JobOptions o;
  o.resilience = res;
  o.hotzone = hotzone;
  o.engine = engine();
  return o;
}

FastDir::FastDir() {
  std::string base = "/tmp";
  if (::access("/dev/shm", W_OK) == 0) base = "/dev/shm";
  std::string tmpl = base + "/warpvol-reenc-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  path_ = buf.data();
}
FastDir::~FastDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

}  // namespace rtest

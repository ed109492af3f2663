// Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) with the project's own writers:
// plaintext and encrypted headers from core/format/header_writer, journals from serialize_journal, mount specs
// from write_spec, registry records from record_to_json, plus the first bytes of the VeraCrypt-made containers.
// make_corpus.sh runs it and adds the filesystem images (mkfs.fat, mkfs.ext4). Usage:
//   fuzz_make_corpus OUT_DIR TESTVECTORS_DIR
// Each input layout is documented at the top of its target.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/format/header_writer.h"
#include "core/mount/mount_spec.h"
#include "core/mount/runtime.h"
#include "core/reencrypt/journal.h"
#include "core/util/error.h"
#include "tests/fuzz/seeds.h"
#include "tests/fuzz/support.h"

using namespace warpvol;
using fuzz::put_le;
namespace fs = std::filesystem;

namespace {

std::string g_out;

void emit(const std::string& target, const std::string& name, const std::vector<uint8_t>& bytes) {
  fs::create_directories(g_out + "/" + target);
  std::ofstream(g_out + "/" + target + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}
void emit(const std::string& target, const std::string& name, const std::string& text) {
  emit(target, name, std::vector<uint8_t>(text.begin(), text.end()));
}

std::vector<uint8_t> file_head(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> b(n);
  in.read(reinterpret_cast<char*>(b.data()), std::streamsize(n));
  b.resize(size_t(in.gcount()));
  return b;
}

LockedBytes fixed_master_key(ChainId chain) {
  LockedBytes k(2 * chain_info(chain).key_size());
  for (size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(i * 7 + 3);
  return k;
}

size_t chain_index(ChainId id) {
  const auto& all = all_chains();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].id == id) return i;
  return 0;
}

std::vector<uint8_t> plaintext(const HeaderFields& f) {
  std::vector<uint8_t> b(kHeaderSize, 0);
  for (size_t i = 0; i < kSaltSize; ++i) b[i] = uint8_t(0xA0 + i);
  serialize_header(f, b.data());
  return b;
}

// fuzz_header_layout: u8 flags | u8 chain index | u64 H | u64 system partition (top bit: --partition-offset, else
// --partition N) | 512-byte plaintext header.
void header_layout_seeds() {
  const uint64_t H = 1 << 20;
  auto seed = [&](const std::string& name, unsigned flags, ChainId chain, uint64_t host, uint64_t part,
                  const HeaderFields& f) {
    std::vector<uint8_t> in;
    put_le(in, flags, 1);
    put_le(in, chain_index(chain), 1);
    put_le(in, host, 8);
    put_le(in, part, 8);
    const auto h = plaintext(f);
    in.insert(in.end(), h.begin(), h.end());
    emit("fuzz_header_layout", name, in);
  };
  HeaderFields vc = normal_volume_fields(H, 512, ChainId::Aes, fixed_master_key(ChainId::Aes));
  seed("veracrypt-normal", 0, ChainId::Aes, H, 0, vc);
  seed("veracrypt-normal-backup", 4, ChainId::Aes, H, 0, vc);
  HeaderFields vc3 = normal_volume_fields(H, 512, ChainId::SerpentTwofishAes,
                                          fixed_master_key(ChainId::SerpentTwofishAes));
  seed("veracrypt-normal-cascade", 0, ChainId::SerpentTwofishAes, H, 0, vc3);
  HeaderFields v4k = normal_volume_fields(H, 4096, ChainId::Aes, fixed_master_key(ChainId::Aes));
  seed("veracrypt-sector4096", 0, ChainId::Aes, H, 0, v4k);
  const HiddenLayout hl = hidden_layout(H, 65536, 512);
  HeaderFields hid = hidden_volume_fields(hl, 512, ChainId::Twofish, fixed_master_key(ChainId::Twofish));
  seed("veracrypt-hidden", 1, ChainId::Twofish, H, 0, hid);
  seed("veracrypt-hidden-backup", 1 | 4, ChainId::Twofish, H, 0, hid);
  HeaderFields tc = normal_volume_fields(H, 512, ChainId::Aes, fixed_master_key(ChainId::Aes));
  tc.magic = kMagicTrue;
  tc.required_version = kTrueRequiredVersion;
  seed("truecrypt7-normal", 8, ChainId::Aes, H, 0, tc);
  HeaderFields tc5 = tc;  // TrueCrypt 5: header version 3, V1 layout (data from byte 512)
  tc5.version = 3;
  tc5.required_version = 0x0500;
  tc5.volume_creation_time = 0x01c9000000000000ull;
  tc5.header_creation_time = 0x01c9000000000001ull;
  seed("truecrypt5-legacy", 8, ChainId::Aes, H, 0, tc5);
  HeaderFields tc5h = tc5;
  tc5h.hidden_volume_size = 65536;
  seed("truecrypt5-legacy-hidden", 3 | 8, ChainId::Aes, H, 0, tc5h);
  HeaderFields sys = vc;  // system encryption: whole drive, partition at 1 MiB, partly encrypted
  sys.flags = kFlagSystem;
  sys.volume_size = 64 << 20;
  sys.encrypted_area_start = 1 << 20;
  sys.encrypted_area_length = 32 << 20;
  seed("veracrypt-system", 2, ChainId::Aes, 128 << 20, 0, sys);
  seed("veracrypt-system-partition", 2, ChainId::Aes, 128 << 20, 1 << 20, sys);
  // An image of one 16 MiB partition that started 2 MiB into the drive (--partition-offset 2M).
  seed("veracrypt-system-partition-image", 2, ChainId::Aes, 16 << 20, (uint64_t(1) << 63) | (2 << 20), sys);
  HeaderFields v4 = tc;
  v4.version = 4;
  seed("truecrypt-header-v4", 8, ChainId::Aes, H, 0, v4);
}

// fuzz_open_header: u8 flags | u32 H | container bytes. Headers sealed with "fuzz", TrueCrypt, SHA-512 at the
// target's iteration count (fuzz::kOpenHeaderFuzzIterations), so that they open under its test-only seam.
void open_header_seeds(const std::string& vectors) {
  const uint64_t H = 1 << 20;
  Credentials cred;
  const std::string pw = "fuzz";
  cred.password = LockedBytes(reinterpret_cast<const uint8_t*>(pw.data()), pw.size());
  KdfChoice kdf = new_header_kdf(PrfId::Sha512, VolumeFormat::TrueCrypt, 0);
  kdf.iterations = fuzz::kOpenHeaderFuzzIterations;
  const LockedBytes kdf_pw = header_kdf_password(cred, VolumeFormat::TrueCrypt);
  const struct {
    const char* name;
    ChainId chain;
    unsigned chain_bits;
  } chains[] = {{"aes", ChainId::Aes, 0}, {"serpent", ChainId::Serpent, 1}, {"twofish", ChainId::Twofish, 2}};
  for (const auto& c : chains) {
    HeaderFields f = normal_volume_fields(H, 512, c.chain, fixed_master_key(c.chain));
    f.magic = kMagicTrue;
    f.required_version = kTrueRequiredVersion;
    const EncryptedHeader h = build_header(f, c.chain, kdf, kdf_pw);
    std::vector<uint8_t> in;
    put_le(in, c.chain_bits << 4, 1);
    put_le(in, H, 4);
    in.insert(in.end(), h.begin(), h.end());
    emit("fuzz_open_header", std::string("truecrypt-") + c.name, in);
    if (c.chain == ChainId::Aes) {
      in[0] = 3 | 8;  // every location and the backup fallback
      emit("fuzz_open_header", "truecrypt-aes-all-locations", in);
    }
  }
  // VeraCrypt-made containers (they do not open with "fuzz": the search over their locations still runs).
  for (const char* name : {"fat.hc", "enc-aes.hc"}) {
    std::vector<uint8_t> in;
    put_le(in, 0, 1);
    put_le(in, fs::file_size(vectors + "/veracrypt/" + name), 4);
    const auto head = file_head(vectors + "/veracrypt/" + name, 1024);
    in.insert(in.end(), head.begin(), head.end());
    emit("fuzz_open_header", std::string("veracrypt-") + name, in);
  }
}

// fuzz_keyfile_pool: u8 flags (bit 0 TrueCrypt, bits 1-7 password length) | password | (u16 len | bytes)...
void keyfile_seeds(const std::string& vectors) {
  auto seed = [&](const std::string& name, bool tc, const std::string& pw, const std::vector<std::string>& keys) {
    std::vector<uint8_t> in;
    put_le(in, (tc ? 1 : 0) | (pw.size() << 1), 1);
    in.insert(in.end(), pw.begin(), pw.end());
    for (const auto& k : keys) {
      const auto b = file_head(vectors + "/veracrypt/" + k, 4096);
      put_le(in, b.size(), 2);
      in.insert(in.end(), b.begin(), b.end());
    }
    emit("fuzz_keyfile_pool", name, in);
  };
  seed("one-keyfile", false, "password", {"keyfile-a.key"});
  seed("two-keyfiles", false, "", {"keyfile-a.key", "keyfile-b.key"});
  seed("truecrypt-pool", true, "password", {"keyfile-c.key"});
  seed("long-password-128-pool", false, std::string(100, 'p'), {"keyfile-a.key"});
}

// fuzz_journal: journal files as serialize_journal writes them, MAC key fuzz::journal_fuzz_mac_key().
void journal_seeds() {
  const reenc::MacKey key = fuzz::journal_fuzz_mac_key();
  auto part = [](SlotKind slot, uint64_t off, uint64_t size) {
    reenc::PartRecord p;
    p.slot = slot;
    p.old_chain = ChainId::Aes;
    p.new_chain = ChainId::SerpentTwofishAes;
    p.new_prf = PrfId::Blake2s;
    p.data_offset = off;
    p.data_size = size;
    p.first_unit = off / 512;
    uint8_t fill = 1;
    for (EncryptedHeader* h : {&p.orig_primary, &p.orig_backup, &p.marked_primary, &p.marked_backup,
                               &p.final_primary, &p.final_backup})
      std::fill(h->begin(), h->end(), fill++);
    return p;
  };
  const uint64_t H = 1 << 20, off = 131072, size = H - 262144;
  std::vector<uint8_t> protection(4096 / 512 * reenc::kChecksumEntrySize, 0x5c);
  auto seed = [&](const std::string& name, reenc::Resilience res, reenc::Phase phase, uint64_t progress,
                  uint64_t hot, bool hidden) {
    reenc::Journal j;
    j.resilience = res;
    j.container_size = H;
    j.hotzone = 65536;
    j.range_offset = off;
    j.range_size = size;
    j.range_first_unit = off / 512;
    j.parts.push_back(part(SlotKind::Normal, off, size));
    if (hidden) j.parts.push_back(part(SlotKind::Hidden, off + size - 65536, 65536 - 4096));
    j.state.seq = 7;
    j.state.phase = phase;
    j.state.progress = progress;
    j.state.hot_offset = hot ? progress : 0;
    j.state.hot_size = hot;
    const uint64_t sentinel_at = hot ? progress + hot : progress;
    j.state.has_sentinel = sentinel_at < size;
    std::fill(j.state.sentinel.begin(), j.state.sentinel.end(), 0x33);
    std::vector<uint8_t> prot;
    if (hot) prot.assign(res == reenc::Resilience::Checksum ? hot / 512 * reenc::kChecksumEntrySize : hot, 0x5c);
    j.state.protection = prot.empty() ? nullptr : prot.data();
    j.state.protection_size = prot.size();
    reenc::validate_journal(j);
    const reenc::JournalBytes jb = reenc::serialize_journal(j, key);
    std::vector<uint8_t> out = jb.prefix;
    if (jb.protection_size) out.insert(out.end(), jb.protection, jb.protection + jb.protection_size);
    out.insert(out.end(), jb.mac.begin(), jb.mac.end());
    emit("fuzz_journal", name, out);
  };
  seed("marking", reenc::Resilience::Checksum, reenc::Phase::Marking, 0, 0, false);
  seed("data-checksum-hotzone", reenc::Resilience::Checksum, reenc::Phase::Data, 8192, 4096, false);
  seed("data-journal-hotzone", reenc::Resilience::Journal, reenc::Phase::Data, 8192, 1024, false);
  seed("data-outer-and-hidden", reenc::Resilience::Checksum, reenc::Phase::Data, 65536, 0, true);
  seed("finalizing", reenc::Resilience::Journal, reenc::Phase::Finalizing, size, 0, false);
}

// fuzz_mount_spec: the spec body (what follows the 8-byte length on the pipe).
void mount_spec_seeds() {
  auto seed = [](const std::string& name, const mount::MountSpec& s) {
    int fds[2];
    if (::pipe(fds) != 0) throw Error(ErrorKind::Io, "pipe");
    mount::write_spec(fds[1], s);
    ::close(fds[1]);
    std::vector<uint8_t> all;
    uint8_t buf[4096];
    ssize_t r;
    while ((r = ::read(fds[0], buf, sizeof buf)) > 0) all.insert(all.end(), buf, buf + r);
    ::close(fds[0]);
    emit("fuzz_mount_spec", name, std::vector<uint8_t>(all.begin() + 8, all.end()));
  };
  mount::MountSpec s;
  s.slot = 1;
  s.container = "/home/user/secret.hc";
  s.aux_dir = "/run/warpvol/aux/slot1";
  s.state_file = "/run/warpvol/slot1.state";
  s.chain = ChainId::Aes;
  s.key_material = fixed_master_key(ChainId::Aes);
  s.data_offset = 131072;
  s.data_size = 1 << 20;
  s.first_unit = 256;
  seed("normal", s);
  s.slot = 3;
  s.read_only = true;
  s.protect = true;
  s.protect_start = 1 << 19;
  s.protect_end = 1 << 20;
  s.chain = ChainId::SerpentTwofishAes;
  s.key_material = fixed_master_key(ChainId::SerpentTwofishAes);
  s.engine = EngineChoice::Cpu;
  s.uid = 1000;
  s.gid = 1000;
  s.allow_other = true;
  s.sector_size = 4096;
  seed("protected-cascade", s);
}

// fuzz_json_readers: u8 reader (0 record, 1 state, 2 crossover) | JSON text.
void json_seeds() {
  mount::MountRecord r;
  r.slot = 2;
  r.state = "mounted";
  r.volume = "/home/user/secret.hc";
  r.volume_dev = 2049;
  r.volume_ino = 131;
  r.aux_dir = "/run/warpvol/aux/slot2";
  r.plaintext_device = r.aux_dir + "/volume";
  r.loop_device = "/dev/loop3";
  r.mount_point = "/media/warpvol/slot2";
  r.filesystem = "vfat";
  r.created_dirs = {"/media/warpvol/slot2"};
  r.pid = 4242;
  r.pid_start = 123456;
  r.protect_hidden = true;
  r.protected_start = 1 << 19;
  r.protected_end = 1 << 20;
  r.volume_type = "normal";
  r.format = "VeraCrypt";
  r.chain = "AES";
  r.prf = "HMAC-SHA-512";
  r.engine = "cpu";
  r.size = 1 << 20;
  r.mounted_at = 1700000000;
  r.uid = 1000;
  emit("fuzz_json_readers", "mount-record", std::string(1, '\0') + mount::record_to_json(r));
  mount::DaemonState st;
  st.protection_triggered = true;
  st.trigger_detail = "write of 4096 bytes at 524288";
  st.closed = "ok";
  st.reads = 10;
  st.writes = 3;
  st.read_bytes = 40960;
  st.written_bytes = 12288;
  st.max_request = 131072;
  emit("fuzz_json_readers", "daemon-state", std::string(1, '\1') + mount::state_to_json(st));
  emit("fuzz_json_readers", "crossover", std::string(1, '\2') +
                                             "{\n  \"aes\": 1048576,\n  \"serpent\": 262144,\n  \"twofish\": null,\n"
                                             "  \"aes-twofish-serpent\": 65536\n}\n");
}

// fuzz_credentials_file: the file's text.
void credentials_seeds() {
  emit("fuzz_credentials_file", "password", "{\"volume\": \"a.hc\", \"password\": \"old\", \"new_password\": \"new\"}\n");
  emit("fuzz_credentials_file", "files-and-keyfiles",
       "{\"volume\": \"a.hc\", \"password_file\": \"pw.txt\", \"keyfiles\": [\"k1\", \"k2\"], \"pim\": 7, "
       "\"new_pim\": 0}\n\n"
       "{\"volume\": \"b.hc\", \"keyfiles\": [\"k\"], \"no_keyfiles\": true, \"new_password_file\": \"pw.txt\"}\n");
  emit("fuzz_credentials_file", "hidden",
       "{\"volume\": \"c.hc\", \"password\": \"outer\", \"hidden_password\": \"inner\", \"hidden_keyfiles\": [], "
       "\"hidden_pim\": 12}\n{\"volume\": \"d.hc\", \"password\": \"x\", \"no_hidden_volume\": true}\n");
  emit("fuzz_credentials_file", "too-long-password-file", "{\"volume\": \"a.hc\", \"password_file\": \"long.txt\"}\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fuzz_make_corpus OUT_DIR TESTVECTORS_DIR\n";
    return 1;
  }
  g_out = argv[1];
  try {
    header_layout_seeds();
    open_header_seeds(argv[2]);
    keyfile_seeds(argv[2]);
    journal_seeds();
    mount_spec_seeds();
    json_seeds();
    credentials_seeds();
  } catch (const std::exception& e) {
    std::cerr << "fuzz_make_corpus: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

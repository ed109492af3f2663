// OpenOptions::along: PBKDF2 blocks a caller needs once the volume opens (a re-encryption's new header keys),
// derived in the header search's own passes. Whatever the threads and the number of blocks, the volume opens as
// without them and every block equals PBKDF2 computed alone; blocks of another password or iteration count are left
// to the caller (derived = false).
#include <catch2/catch.hpp>

#include "core/format/header_writer.h"
#include "core/format/open.h"
#include "core/io/file.h"
#include "core/kdf/prf.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/random.h"
#include "tests/support/create_support.h"
#include "tests/support/reencrypt_support.h"
#include "tests/support/test_support.h"

using namespace warpvol;

namespace {

constexpr uint32_t kPim1Sha512 = 16000;  // VeraCrypt's SHA-512 count at PIM 1 (15000 + 1000 x PIM)

struct Along {
  std::vector<std::array<uint8_t, kSaltSize>> salts;
  SecureBytes out;
  AlongBlocks blocks;
  Along(size_t n, PrfId prf, uint32_t iterations, const LockedBytes& pw) : salts(n), out(n * 64) {
    blocks.prf = prf;
    blocks.iterations = iterations;
    blocks.password = &pw;
    for (size_t i = 0; i < n; ++i) {
      random_bytes(salts[i].data(), kSaltSize);
      blocks.blocks.push_back({salts[i].data(), kSaltSize, uint32_t(i % 3 + 1), out.data() + 64 * i});
    }
  }
  // Every block against PBKDF2 of its salt and index alone.
  void check(const LockedBytes& pw) const {
    for (size_t i = 0; i < blocks.blocks.size(); ++i) {
      INFO("block " << i);
      uint8_t want[64];
      REQUIRE(pbkdf2_block_cancellable(blocks.prf, pw.data(), pw.size(), salts[i].data(), kSaltSize,
                                       blocks.iterations, uint32_t(i % 3 + 1), want, nullptr));
      CHECK(to_hex(out.data() + 64 * i, 64) == to_hex(want, 64));
    }
  }
};

LockedBytes bytes_of(const std::string& s) { return LockedBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

}  // namespace

TEST_CASE("open derives the caller's blocks along its search", "[header][kdf]") {
  wvtest::TempDir dir;
  const std::string path = dir.file("v.hc");
  create_volume(wvtest::normal_options(path, 1 << 20, "along-pw", ChainId::AesTwofishSerpent, PrfId::Sha512, true));
  const LockedBytes pw = bytes_of("along-pw");
  SECTION("the volume opens and every block comes, whatever the threads and blocks") {
    for (const unsigned threads : {1u, 2u, 16u}) {
      for (const size_t n : {size_t(1), size_t(9), size_t(20)}) {
        for (const bool narrowed : {true, false}) {  // the chain named (a cascade: 3 blocks before any test) or not
          INFO(threads << " threads, " << n << " blocks, chain " << (narrowed ? "named" : "searched"));
          Along a(n, PrfId::Sha512, kPim1Sha512, pw);
          OpenOptions o = wvtest::open_opts("along-pw");
          o.prf = PrfId::Sha512;
          if (narrowed) o.chain = ChainId::AesTwofishSerpent;
          o.kdf_threads = threads;
          o.along = &a.blocks;
          const OpenedHeader h = wvtest::open_volume(path, o);
          CHECK(h.chain == ChainId::AesTwofishSerpent);
          CHECK(h.slot == SlotKind::Normal);
          CHECK(a.blocks.derived);
          a.check(pw);
        }
      }
    }
  }
  SECTION("a wrong password: no volume, the blocks all the same") {
    const LockedBytes other = bytes_of("wrong");
    Along a(5, PrfId::Sha512, kPim1Sha512, other);
    OpenOptions o = wvtest::open_opts("wrong");
    o.prf = PrfId::Sha512;
    o.chain = ChainId::AesTwofishSerpent;
    o.kdf_threads = 2;
    o.along = &a.blocks;
    CHECK_THROWS_MATCHES(wvtest::open_volume(path, o), Error,
                         Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::Auth; }));
    CHECK(a.blocks.derived);
    a.check(other);
  }
  SECTION("a match they did not go with (a TrueCrypt header) gives them up") {
    const std::string tc = dir.file("tc.hc");
    rtest::make_container(tc, rtest::noise(64 * 1024), ChainId::Aes, PrfId::Sha512, wvtest::creds("along-pw", 0),
                          VolumeFormat::TrueCrypt);
    // The VeraCrypt candidates' count without a PIM (TrueCrypt has none): the blocks would go with them.
    Along a(12, PrfId::Sha512, 500000, pw);
    OpenOptions o = wvtest::open_opts("along-pw", 0);
    o.prf = PrfId::Sha512;
    o.kdf_threads = 1;  // the TrueCrypt candidates (1000 iterations) come first: the match precedes the blocks
    o.along = &a.blocks;
    CHECK(wvtest::open_volume(tc, o).format == VolumeFormat::TrueCrypt);
    CHECK_FALSE(a.blocks.derived);
  }
  SECTION("blocks of another password or count are left to the caller") {
    const LockedBytes other = bytes_of("another");
    Along by_pw(4, PrfId::Sha512, kPim1Sha512, other), by_count(4, PrfId::Sha512, kPim1Sha512 + 1000, pw);
    for (Along* a : {&by_pw, &by_count}) {
      OpenOptions o = wvtest::open_opts("along-pw");
      o.prf = PrfId::Sha512;
      o.kdf_threads = 2;
      o.along = &a->blocks;
      CHECK(wvtest::open_volume(path, o).chain == ChainId::AesTwofishSerpent);
      CHECK_FALSE(a->blocks.derived);
    }
  }
}

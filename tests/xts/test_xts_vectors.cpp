// XTS known answers through every engine under test (the CPU engine at each ISA level this CPU runs, the GPU engine
// when a device is present): IEEE 1619 XTS-AES-256 and VeraCrypt's cascade CRCs for all 15 chains. The vector checks
// themselves live in tests/support/xts_vectors.cpp, where the single-cipher SIMD paths run them too.
#include <catch2/catch.hpp>

#include "tests/support/xts_vectors.h"

// [sanitize]: the compute-sanitizer subset (gpu/NOTES.md) runs the vectors on the GPU engine through these.
TEST_CASE("IEEE 1619 XTS-AES-256 vectors through every engine", "[vectors][xts][sanitize]") {
  wvtest::check_ieee1619_vectors(wvtest::engine_providers());
}

TEST_CASE("VeraCrypt cascade CRC vectors, all 15 chains, every engine", "[vectors][xts][cascade]") {
  wvtest::check_cascade_crc_vectors(wvtest::engine_providers());
}

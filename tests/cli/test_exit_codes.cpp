// Error kinds by name: every kind has a name that reads back, a row of its own in the exit-code table, and crosses
// warpvol-mountd's status pipe (core/mount/daemon_status.h) as that name.
#include <catch2/catch.hpp>
#include <set>

#include "cli/exit_codes.h"
#include "core/mount/daemon_status.h"
#include "core/util/error.h"

using namespace warpvol;

TEST_CASE("error kinds: a name each, a row each in the exit-code table", "[cli][exit]") {
  std::set<int> codes;
  for (ErrorKind k : kAllErrorKinds) {
    const std::string_view name = error_kind_name(k);
    CAPTURE(std::string(name));
    REQUIRE(error_kind_from_name(name) == k);
    int rows = 0;
    for (const auto& row : cli::exit_code_table())
      if (row.name == name) {
        ++rows;
        CHECK(cli::exit_code(k) == row.code);
      }
    CHECK(rows == 1);
    CHECK(cli::exit_code(k) != cli::kExitOk);
    codes.insert(cli::exit_code(k));
  }
  CHECK(codes.size() == std::size(kAllErrorKinds));  // no two kinds share a code
  // Success plus one row per kind, nothing else.
  CHECK(cli::exit_code_table().size() == std::size(kAllErrorKinds) + 1);
  CHECK(cli::exit_code_table().front().code == cli::kExitOk);
  CHECK(cli::exit_code_table().front().name == "ok");
  CHECK_FALSE(error_kind_from_name("ok"));
  CHECK_FALSE(error_kind_from_name("3"));
}

TEST_CASE("mountd status line: the error kind crosses as its name", "[mount][exit]") {
  for (ErrorKind k : kAllErrorKinds) {
    const std::string line = mount::error_status_line(k, "a message\twith a tab");
    CAPTURE(line);
    CHECK(line == "error\t" + std::string(error_kind_name(k)) + "\ta message\twith a tab\n");
    auto e = mount::error_from_status_line(line);
    REQUIRE(e);
    CHECK(e->kind() == k);
    CHECK(std::string(e->what()) == "a message\twith a tab");
    CHECK_FALSE(mount::engine_from_ready_line(line));
  }
  // Numbers are not kinds: what an older mountd wrote, or anything unknown, is an I/O error with its text.
  auto numeric = mount::error_from_status_line("error\t2\twrong password\n");
  REQUIRE(numeric);
  CHECK(numeric->kind() == ErrorKind::Io);
  CHECK(std::string(numeric->what()) == "wrong password");
  auto bare = mount::error_from_status_line("error\tno kind here\n");
  REQUIRE(bare);
  CHECK(bare->kind() == ErrorKind::Io);
  CHECK(std::string(bare->what()) == "no kind here");
  CHECK_FALSE(mount::error_from_status_line("ready\tcpu\n"));
  CHECK(mount::engine_from_ready_line(mount::ready_status_line("cpu (avx2)")) == "cpu (avx2)");
}

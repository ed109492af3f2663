#include <catch2/catch.hpp>
#include <cstdlib>

#include "core/util/env.h"

using warpvol::env_number;

TEST_CASE("env_number: a whole number within range, anything else reads as unset", "[io]") {
  const char* name = "WARPVOL_TEST_ENV_NUMBER";
  ::unsetenv(name);
  CHECK_FALSE(env_number(name, 0, 10));
  struct Case {
    const char* value;
    long want;  // -1: unset
  };
  for (const Case c : {Case{"7", 7}, Case{"0", 0}, Case{"10", 10}, Case{"11", -1}, Case{"-1", -1}, Case{"", -1},
                       Case{"8x", -1}, Case{"1.5", -1}, Case{"x", -1}, Case{"99999999999999999999", -1}}) {
    CAPTURE(c.value);
    ::setenv(name, c.value, 1);
    const auto n = env_number(name, 0, 10);
    if (c.want < 0) CHECK_FALSE(n);
    else CHECK(n == c.want);
  }
  ::unsetenv(name);
}

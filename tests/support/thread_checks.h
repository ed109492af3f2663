// Checks made on threads other than the test's own. Catch2 2.x assertions are not thread-safe (its counters and
// the "current assertion" are plain fields: ThreadSanitizer reports a CHECK on a worker as a race, and a failing
// REQUIRE there throws where nothing catches it): a worker notes what failed here, and the test asserts on its own
// thread with CHECK(checks.failures() == "").
#pragma once
#include <mutex>
#include <string>

namespace wvtest {

class ThreadChecks {
 public:
  // Notes `what` when !ok; the first few failures are kept with the count of all.
  void expect(bool ok, const std::string& what) {
    if (ok) return;
    std::lock_guard<std::mutex> lk(mu_);
    if (count_++ < 4) text_ += (text_.empty() ? "" : "; ") + what;
  }
  // "" when every expectation held; else the first failures and how many there were.
  std::string failures() const {
    std::lock_guard<std::mutex> lk(mu_);
    return count_ ? text_ + " (" + std::to_string(count_) + " failures)" : "";
  }

 private:
  mutable std::mutex mu_;
  std::string text_;
  unsigned count_ = 0;
};

}  // namespace wvtest

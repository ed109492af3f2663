// warpvol test: run every built-in known-answer test, one line per algorithm.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "core/crypto/cpu_features.h"
#include "core/selftest/selftest.h"

namespace warpvol::cli {
namespace {

class TestCommand final : public Command {
 public:
  std::string name() const override { return "test"; }
  std::string summary() const override {
    return "Run the built-in known-answer tests (ciphers, XTS, 15 chains, hashes, HMAC, PBKDF2, Argon2id, keyfiles)";
  }
  std::string usage() const override { return "test [--json]"; }
  std::string example() const override { return "warpvol test"; }
  bool has_json() const override { return true; }

  int execute(Context& ctx, const po::variables_map&) const override {
    const std::string path = std::string(isa_name(active_isa()));
    const std::string detected = std::string(isa_name(detected_isa()));
    if (!ctx.json)
      ctx.out << "CPU path: " << path << " (detected " << detected << "); every path up to it is tested\n";
    auto results = selftest::run_all([&](const selftest::Result& r) {
      if (ctx.json) return;
      char head[96];
      std::snprintf(head, sizeof head, "%-4s %-34s", r.ok ? "ok" : "FAIL", r.name.c_str());
      ctx.out << head << " " << r.detail << "\n" << std::flush;
    });
    int failed = 0;
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : results) {
      if (!r.ok) ++failed;
      arr.push_back({{"name", r.name}, {"ok", r.ok}, {"cases", r.cases}, {"detail", r.detail},
                     {"seconds", r.seconds}});
    }
    if (ctx.json) {
      ctx.out << nlohmann::json{{"cpu_path", path}, {"cpu_detected", detected}, {"passed", int(results.size()) - failed},
                                {"failed", failed}, {"results", arr}}.dump(2)
              << std::endl;
    } else if (failed == 0) {
      ctx.out << "all " << results.size() << " self-tests passed" << std::endl;
    }
    if (failed) {
      ctx.message(std::to_string(failed) + " of " + std::to_string(results.size()) + " self-tests FAILED");
      return exit_code(ErrorKind::Format);
    }
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> make_test_command() { return std::make_unique<TestCommand>(); }

}  // namespace warpvol::cli

// Running the real warpvol binary (and helper tools such as mtools) from the tests: arguments, stdin, captured
// stdout/stderr and the exit status. (Namespace wvtest::proc: tests/test_create_support.h has its own
// wvtest::run_warpvol.)
#pragma once
#include <string>
#include <vector>

namespace wvtest::proc {

struct ProcResult {
  int code = -1;       // exit status; 128+N when killed by signal N
  std::string out;     // stdout
  std::string err;     // stderr
};

struct ProcOptions {
  std::string stdin_data;            // written to the child's stdin, then closed
  bool stdin_open = false;           // keep stdin open (never written) until the child exits or is signalled
  std::vector<int> inherit_fds;      // extra fds the child keeps (e.g. for --password-fd)
  std::vector<std::string> env;      // extra "NAME=value" entries
  int signal_after_ms = 0;           // send `signal` to the child after this many ms (0 = never)
  int signal = 0;
};

ProcResult run_process(const std::vector<std::string>& argv, const ProcOptions& opt = {});
std::string warpvol_binary();
ProcResult run_warpvol(const std::vector<std::string>& args, const std::string& stdin_data = "");
ProcResult run_warpvol(const std::vector<std::string>& args, const ProcOptions& opt);
bool have_program(const std::string& name);  // found in PATH

}  // namespace wvtest::proc

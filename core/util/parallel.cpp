#include "core/util/parallel.h"

#include <exception>
#include <future>
#include <system_error>
#include <vector>

namespace warpvol {

void run_parts(unsigned n, const std::function<void(unsigned)>& part) {
  std::exception_ptr err;
  auto run_here = [&](unsigned i) {
    try {
      part(i);
    } catch (...) {
      if (!err) err = std::current_exception();
    }
  };
  std::vector<std::future<void>> futs;
  for (unsigned i = 1; i < n; ++i) {
    try {
      futs.push_back(std::async(std::launch::async, part, i));
    } catch (const std::system_error&) {  // no thread: run it here
      run_here(i);
    }
  }
  if (n > 0) run_here(0);
  for (auto& f : futs) {
    try {
      f.get();
    } catch (...) {
      if (!err) err = std::current_exception();
    }
  }
  if (err) std::rethrow_exception(err);
}

}  // namespace warpvol

#include "core/reencrypt/batch.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/util/cores.h"

namespace warpvol::reenc {

std::string_view item_status_name(ItemStatus s) {
  switch (s) {
    case ItemStatus::Done: return "done";
    case ItemStatus::Skipped: return "skipped";
    case ItemStatus::Failed: return "failed";
    case ItemStatus::Interrupted: return "interrupted";
    case ItemStatus::Ready: return "ready";
  }
  return "?";
}

namespace {

// Runs fn(i) for i in [0, n) on up to `threads` threads.
void for_each_parallel(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  const unsigned t = std::max(1u, std::min<unsigned>(threads, unsigned(n)));
  std::vector<std::thread> th;
  for (unsigned k = 1; k < t; ++k) th.emplace_back(worker);
  worker();
  for (auto& x : th) x.join();
}

}  // namespace

std::vector<ItemResult> run_batch(const std::vector<VolumeRequest>& requests, const BatchOptions& opt) {
  std::vector<ItemResult> results(requests.size());
  // The same container twice would run two jobs on one file: refuse before anything else.
  std::set<std::pair<dev_t, ino_t>> seen;
  for (size_t i = 0; i < requests.size(); ++i) {
    results[i].path = requests[i].path;
    struct stat st;
    if (::stat(requests[i].path.c_str(), &st) == 0 && !seen.insert({st.st_dev, st.st_ino}).second)
      throw Error(ErrorKind::Usage, requests[i].path + " is listed more than once");
  }

  // Pre-flight for every container; nothing is written here. The containers opened at once share the cores: each
  // open's search gets its part of them (OpenOptions::kdf_threads). With the default PIM the key derivations are
  // most of a batch of small containers.
  const unsigned at_once = std::max(1u, std::min<unsigned>(opt.jobs, unsigned(requests.size())));
  const unsigned share = std::max(1u, usable_cores() / at_once);
  std::vector<std::unique_ptr<Job>> jobs(requests.size());
  for_each_parallel(requests.size(), opt.jobs, [&](size_t i) {
    ItemResult& r = results[i];
    try {
      if (opt.job.cancel()) throw Error(ErrorKind::Interrupted, "interrupted before it started");
      VolumeRequest req = requests[i];
      if (at_once > 1) {
        if (!req.open.kdf_threads) req.open.kdf_threads = share;
        if (req.hidden && !req.hidden->kdf_threads) req.hidden->kdf_threads = share;
      }
      jobs[i] = Job::prepare(req, opt.job);
      r.description = jobs[i]->describe();
      r.resumed = jobs[i]->resuming();
      r.total_bytes = jobs[i]->total_bytes();
    } catch (const Error& e) {
      r.status = e.kind() == ErrorKind::Interrupted ? ItemStatus::Interrupted : ItemStatus::Failed;
      r.reason = e.what();
      r.kind = e.kind();
      r.preflight_failed = true;
    } catch (const std::exception& e) {
      r.status = ItemStatus::Failed;
      r.reason = e.what();
      r.kind = ErrorKind::Io;
      r.preflight_failed = true;
    }
  });
  if (opt.dry_run) {
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].preflight_failed) results[i].status = ItemStatus::Ready;
      jobs[i].reset();  // closes the container and releases its lock
    }
    return results;
  }
  std::vector<std::string> bad;
  ErrorKind first_kind = ErrorKind::Io;
  for (const ItemResult& r : results)
    if (r.preflight_failed) {
      if (bad.empty()) first_kind = r.kind;
      bad.push_back(r.path);
    }
  if (!bad.empty() && !opt.skip_bad) {
    std::string names;
    for (const auto& b : bad) names += (names.empty() ? "" : ", ") + b;
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].preflight_failed) continue;
      results[i].status = ItemStatus::Skipped;
      results[i].reason = "not started: pre-flight failed for " + names +
                          " (nothing was written to any container; --skip-bad runs the others)";
      results[i].kind = first_kind;
      jobs[i].reset();
    }
    return results;
  }

  if (opt.on_prepared) {
    std::vector<const Job*> view;
    for (auto& j : jobs) view.push_back(j.get());
    opt.on_prepared(results, view);
  }

  std::vector<size_t> order;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i]) order.push_back(i);
  for_each_parallel(order.size(), opt.jobs, [&](size_t k) {
    const size_t i = order[k];
    ItemResult& r = results[i];
    try {
      if (opt.job.cancel()) throw Error(ErrorKind::Interrupted, "interrupted before it started (nothing written)");
      r.result = jobs[i]->run();
      r.status = ItemStatus::Done;
    } catch (const Error& e) {
      r.status = e.kind() == ErrorKind::Interrupted ? ItemStatus::Interrupted : ItemStatus::Failed;
      r.reason = e.what();
      r.kind = e.kind();
    } catch (const std::exception& e) {
      r.status = ItemStatus::Failed;
      r.reason = e.what();
      r.kind = ErrorKind::Io;
    }
    jobs[i].reset();  // closes the container and releases its lock
  });
  return results;
}

}  // namespace warpvol::reenc

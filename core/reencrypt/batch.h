// Re-encrypting several containers in one call. Pre-flight first for ALL of them (credentials verified, new
// headers built, journal folders checked): when one fails, nothing is written to any container unless skip_bad,
// in which case the failing ones are reported and the others run. Then up to `jobs` containers at once, each
// through its own Job (reencrypt.h); one failing container does not stop the others, a cancel stops them all at
// their next safe point.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/reencrypt/reencrypt.h"
#include "core/util/error.h"

namespace warpvol::reenc {

enum class ItemStatus { Done, Skipped, Failed, Interrupted, Ready };
// "done", "skipped", "failed", "interrupted", "ready" (dry run: passed the pre-flight, nothing written)
std::string_view item_status_name(ItemStatus s);

struct ItemResult {
  std::string path;
  ItemStatus status = ItemStatus::Skipped;
  std::string reason;              // why it was skipped, failed or interrupted
  ErrorKind kind = ErrorKind::Io;  // for the exit code when not Done
  std::string description;         // Job::describe() once prepared
  bool resumed = false;
  bool preflight_failed = false;
  uint64_t total_bytes = 0;
  JobResult result;
};

struct BatchOptions {
  JobOptions job;       // shared by all containers (engine, cancel, progress, resilience, hot zone, ...)
  unsigned jobs = 1;    // containers processed at once
  bool skip_bad = false;
  // Pre-flight only: every container is checked exactly as for a real run (credentials, journal to resume, lock,
  // hidden-volume rules, new headers, journal folder) and reported Ready or Failed; nothing is written. Lets a
  // scheduler spread over many machines check a whole fleet before the first container is touched.
  bool dry_run = false;
  // Called (from the calling thread) once every container is prepared, before anything is written.
  std::function<void(const std::vector<ItemResult>&, const std::vector<const Job*>&)> on_prepared;
};

// Results in the order of `requests`. Never throws for a single container's failure; Error(Usage) when the same
// container is listed twice.
std::vector<ItemResult> run_batch(const std::vector<VolumeRequest>& requests, const BatchOptions& opt);

}  // namespace warpvol::reenc

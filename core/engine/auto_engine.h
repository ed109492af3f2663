// --engine auto: the CPU and the GPU engine take a job's requests from one stream of work. A request of at least
// the chain's crossover size goes to the engine expected to finish it first (with a margin against the CPU, below):
// the end of that engine's queue (the requests already given to it, at its measured rate) plus this request at
// that rate. Rates are measured while the job runs (bytes done per second during which the engine had work), per
// operation (chain and direction, or the pair of chains of a re-encryption); before the first measurement both
// count as equally fast, and the CPU takes one request at a time. The CPU gets a request only when it runs at a
// quarter of the GPU's rate or more and would finish the request in under half the GPU's time, queue included: its
// requests run on every core, at the expense of the job's readers and writers, which its own rate does not show (a
// job bound by memory or I/O only gets slower). So with the GPU ready the CPU takes part where the GPU is the
// bottleneck and the CPU reaches a good fraction of its rate.
// Each engine's first request is not counted in its rate (one-time set-up: the GPU loads its kernels), and an
// engine passed over for kProbeEvery requests gets the next one, so that a rate measured once too low is
// measured again (a CPU below a quarter of the GPU's rate only every kProbeEvery x kRareProbe requests). Such a
// probe of the CPU, and its first requests, take a slice of the request while the GPU does the rest at the same
// time: a whole request on the CPU held up its caller (an ordered sink) by several times the GPU's time for it
// (WARPVOL_AUTO_PROBE=whole: the whole request, for measurements). A slice's rate understates the CPU's on whole
// requests; a CPU whose slices do not rule it out gets a whole request next, to be measured as the rule needs.
// With the GPU ready, the CPU's part is also tried against the job as a whole (cpu_share.h): periods in which it may
// take requests (or, where the GPU idles for half the time, in which it takes them all) alternate with periods of
// the GPU alone, and the one in which the job finished more bytes per second is kept (WARPVOL_AUTO_TRIALS=off: no
// trials, the CPU may always take requests; =latest: the latest periods decide, not the smoothed rates; for
// measurements).
// Requests below the crossover stay on the CPU: there the latency of a PCIe round trip decides (mounts).
// Synchronous calls larger than a piece are split into pieces scheduled the same way and run at once.
// The GPU engine may still be starting (a CUDA context takes up to a second to create): until it is ready the CPU
// takes every request, so a job starts at once and the GPU joins it; keys are prepared for the GPU when it first
// takes one of their requests. Buffers handed out meanwhile are page-locked by the GPU engine as it joins, so its
// requests on them are DMAed without a staging copy, as on the buffers it hands out itself.
#pragma once
#include <atomic>
#include <chrono>
#include <future>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>

#include "core/engine/calibration.h"
#include "core/engine/cpu_share.h"
#include "core/engine/engine_benchmark.h"
#include "core/engine/one_writer_job.h"
#include "core/engine/xts_engine.h"

namespace warpvol {

class AutoEngine final : public XtsEngine {
 public:
  // crossover: bytes per chain from which a request may go to the GPU (SIZE_MAX: never). summary, when set, gets
  // one line per operation when the engine is destroyed: what each engine did and at what rate (--verbose).
  AutoEngine(std::shared_ptr<XtsEngine> cpu, std::shared_ptr<XtsEngine> gpu, std::map<ChainId, size_t> crossover,
             std::function<void(const std::string&)> summary = {});
  // A GPU engine still starting: the future gives it, or null when it could not start (the CPU then does all).
  AutoEngine(std::shared_ptr<XtsEngine> cpu, std::shared_future<std::shared_ptr<XtsEngine>> gpu,
             std::map<ChainId, size_t> crossover, std::function<void(const std::string&)> summary = {});
  // (summary also gets the one line that says a legacy key stays on the CPU.)
  ~AutoEngine() override;
  std::string name() const override { return "auto"; }
  std::string detail() const override;
  std::shared_ptr<const EngineKey> prepare(ChainId chain, const uint8_t* key_material) override;
  // The GPU engine has no legacy modes (64-bit-block ciphers, CBC chains): such keys stay on the CPU.
  std::shared_ptr<const EngineKey> prepare_legacy(LegacySuite suite, const uint8_t* key, uint64_t base) override;
  void process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) override;
  void reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data, size_t nunits) override;
  // Requests that stay on the CPU hand their pieces over as the CPU engine does; the others once they are done.
  void reencrypt_each(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data, size_t nunits,
                      const UnitsDone& done) override;
  // Each piece's hashes come from the engine that re-encrypted it.
  void reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data, size_t nunits,
                        uint8_t* hashes) override;
  std::future<void> submit(std::shared_ptr<const EngineKey> key, Direction d, uint64_t unit0, uint8_t* data,
                           size_t nunits) override;
  // The GPU engine's pinned buffers: requests the CPU takes run on them just as well.
  // (Aligned memory while the GPU is starting, page-locked when it joins.)
  IoBuffer io_buffer(size_t bytes) override;
  // The GPU's callers (while it is starting, as many as its default number of streams): a request the CPU takes
  // (one at a time, each on all cores) holds one of them. A caller of its own for the CPU kept one more request
  // and its buffer in flight, which made a job bound by host memory slower also in the periods of the GPU alone.
  unsigned concurrency() const override;
  std::string request_stats() const override;  // the GPU engine's, once it has joined
  // Keys whose requests all stay on the CPU (a chain that is never faster on the GPU, legacy modes, a job bound
  // by one file's writes that the CPU engine keeps up with: below) get the CPU engine's buffers and its one caller
  // at a time: the GPU's would only add callers that run on one thread each.
  IoBuffer io_buffer_for(size_t bytes, const EngineKey& a, const EngineKey* b = nullptr) override;
  unsigned concurrency_for(const EngineKey& a, const EngineKey* b = nullptr) const override;
  void plan_job(const EngineKey& a, const EngineKey* b = nullptr) override { (void)cpu_job(a, b); }

  // The job writes one regular file from one thread (EngineOptions::one_writer), which bounds it at a few GB/s.
  // Where the CPU engine runs the job's passes at the job kind's rate or more on this machine (one_writer_rate: a
  // key's chain decrypting for an export, encrypting for a fill; a re-encryption's decryption and encryption
  // together), the job's requests all go to it, with its buffers and threads: the GPU cannot make such a
  // job faster, and in the GPU's pipeline the same writer may run slower than in the CPU engine's
  // (docs/perf/measurements-2026-11-29-session26.md). The rate is measured once per chain and direction the job
  // uses, on the first key pair asked about (plan_job, else the first io_buffer_for or concurrency_for;
  // measure_engine: passes of kRateProbeBytes on random data for kRateProbeSeconds, a few milliseconds; the best
  // of kRateProbes). Below that rate the job's trials do not run the CPU alone (cpu_share.h): it would crunch
  // beside the writer. WARPVOL_AUTO_ONE_WRITER=off: not applied (for measurements). Each kind of job runs its own
  // pipeline, so whether the GPU helps depends on the kind: a rate each.
  void set_one_writer(OneWriterJob job);
  void set_one_writer(bool on, double cpu_rate);  // (tests: any rate)
  // The CPU engine's rates from `warpvol benchmark --calibrate` (calibration.h: a quarter of a second each way at
  // kRateProbeBytes on an idle machine), where this job's CPU engine is the one that measured them (the same
  // detail(): threads and SIMD path): the rule reads them in place of its probe. A probe of a few milliseconds
  // beside the job's start, on a host shared with other tenants, reads low at times, and a low reading sends the
  // job down the other path (docs/perf/measurements-2026-12-05-session51.md).
  void use_calibration(const StoredCalibration& c);
  // The rates per kind come from the engines' rows of bench/jobs.sh over many sessions on 16-core hosts, the jobs'
  // files in tmpfs (docs/perf/measurements-2026-12-04-session44.md, "Which engine leads").
  static double one_writer_rate(OneWriterJob job);
  // Create and import (the chain's encryption): in the fill's unordered pipeline the GPU's path was level with the
  // CPU engine's or behind it on every chain, the three-cipher cascades included, whose probes all came out above
  // this rate. Below it the CPU engine would hardly outrun the writer, and the GPU takes part.
  static constexpr double kFillCpuRate = 3e9;
  // An export to a file (the chain's decryption): in the export's ordered ring the GPU's path led with Twofish and
  // with the cascades, and the CPU engine's was level or ahead with Serpent and AES. The rate lies between Twofish's
  // and Serpent's there.
  static constexpr double kExportCpuRate = 12e9;
  // A re-encryption in place, the rate of both passes together: the GPU's path was level or ahead with Serpent and
  // with the slower chains, and the CPU engine's with AES. The rate lies between Serpent's and AES's there.
  static constexpr double kReencryptCpuRate = 14e9;
  static constexpr size_t kRateProbeBytes = kCpuRateBytes;  // calibration.h: what a stored rate stands for
  static constexpr double kRateProbeSeconds = 1e-3;
  static constexpr unsigned kRateProbes = 3;
  // The CPU engine's rate for a's decryption followed by b's encryption (b null: a's decryption alone), measured
  // as above (bytes per second; tests).
  double cpu_job_rate(ChainId a, const ChainId* b) const;

  // The GPU engine has joined (tests).
  bool gpu_ready() const { return gpu_settled_.load(std::memory_order_acquire) && gpu_.load() != nullptr; }
  // Bytes each engine processed so far (tests, --verbose).
  uint64_t cpu_bytes() const;
  uint64_t gpu_bytes() const;

  // Synchronous calls are split into pieces of this size, each scheduled on its own. As large as re-encryption's
  // requests to an engine with several callers and the GPU engine's chunks: halves of them doubled the GPU's
  // requests, and a thread per call ran the second half, in jobs where the CPU took no piece at all.
  static constexpr size_t kPieceBytes = size_t(16) << 20;
  static constexpr unsigned kProbeEvery = 32;
  static constexpr unsigned kRareProbe = 32;  // x kProbeEvery for a CPU measured far below the GPU
  static constexpr double kCpuMargin = 2.0;  // the CPU must be this much sooner than the GPU to take a request
  static constexpr unsigned kStartingGpuCallers = 4;      // concurrency() while the GPU starts
  static constexpr size_t kMinProbeUnits = 512;            // a probe's slice and the GPU's rest: 256 KiB at least
  static constexpr double kSliceBias = 4.0;  // a CPU's rate on whole requests: up to this many times its slices'

 private:
  enum Lane { kCpu = 0, kGpu = 1 };
  using Op = std::tuple<int, int, int>;  // chain a, chain b (re-encryption) or -1, direction
  struct LaneStats {
    double rate = 0;        // bytes per second while busy; 0 = not measured yet
    double busy_until = 0;  // expected end of the requests given to it (seconds since t0_)
    int active = 0;
    bool warmed = false;    // its first request finished (that one's time, with one-time set-up, is not counted)
    double busy_start = 0, busy_seconds = 0;
    uint64_t rate_bytes = 0;      // bytes counted in the rate
    uint64_t bytes = 0, requests = 0;
    unsigned passed_over = 0;     // requests the other engine got since this one got one
    uint64_t probes = 0;          // the CPU's: slices of a request beside the GPU's rest
    uint64_t slice_bytes = 0;     // their bytes and seconds (after the first request), apart from the rate
    double slice_seconds = 0, slice_rate = 0;
    bool last_slice = false;      // the latest measurement was a slice's
  };
  struct OpStats {
    LaneStats lane[2];
  };
  struct Piece {
    const EngineKey* a;  // an AutoKey
    const EngineKey* b;  // re-encryption target, or null
    Direction d;
    uint64_t unit0;
    uint8_t* data;
    size_t nunits;
    uint8_t* hashes = nullptr;  // reencrypt_hashed's output for these units
  };
  XtsEngine* gpu() const;  // null while starting or when it could not start
  void settle() const;      // the GPU engine is ready (or could not start): pins the buffers handed out meanwhile
  bool large(ChainId c, size_t nunits) const;
  bool cpu_only(const EngineKey& k) const;  // none of the key's requests can go to the GPU
  // None of the requests of a (re-encrypted to b) go to the GPU: both cpu_only, or a job bound by one writer that
  // the CPU engine keeps up with (set_one_writer). Decided once per pair of chains, then kept for the job.
  bool cpu_job(const EngineKey& a, const EngineKey* b) const;
  double cpu_rate(ChainId c, Direction d) const;  // bytes per second, measured once (under rate_mu_)
  double now() const;
  struct Plan {
    Lane lane;         // the engine chosen
    size_t cpu_units;  // units from the start of the request for the CPU: 0, all, or a probe's slice
  };
  Plan pick(const Op& op, size_t nunits);
  void finished(const Op& op, Lane lane, size_t bytes, double slice_seconds);  // slice_seconds < 0: not a slice
  // Each engine's busy time over all operations: seconds in which it had at least one request (under mu_).
  void lane_started(Lane l, double t);
  void lane_ended(Lane l, double t);
  double busy_seconds(Lane l, double t) const;
  struct LaneBusy {
    int active = 0;
    double since = 0, seconds = 0;
  };
  LaneBusy busy_[2];
  void run_on(Lane lane, const Piece& p);
  void run_scheduled(const Op& op, const Piece& p);  // one piece on the engine pick() chooses
  void run_split(const Op& op, const Piece& p);      // a synchronous call: pieces at once, scheduled

  std::shared_ptr<XtsEngine> cpu_;
  std::shared_future<std::shared_ptr<XtsEngine>> gpu_future_;
  mutable std::atomic<XtsEngine*> gpu_{nullptr};
  mutable std::atomic<bool> gpu_settled_{false};  // the future is ready (gpu_ set, or it could not start)
  mutable double gpu_ready_at_ = -1;               // seconds after t0_ when it was first seen ready
  struct LatePins;                                  // the buffers handed out while the GPU engine started
  std::shared_ptr<LatePins> late_;
  std::thread starter_;                             // waits for the GPU engine and settles it
  std::map<ChainId, size_t> crossover_;
  std::function<void(const std::string&)> summary_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  mutable std::mutex mu_;
  std::map<Op, OpStats> stats_;
  const bool trials_;  // the CPU's part is tried against the GPU alone (cpu_share.h)
  CpuShare share_;     // (under mu_)
  const bool probe_slices_;  // a probe of the CPU takes a slice of its request (WARPVOL_AUTO_PROBE=whole: all)
  const size_t piece_units_;  // kPieceBytes in units (WARPVOL_AUTO_PIECE=N: N MiB, for measurements)
  std::mutex cpu_run_mu_;  // the CPU engine's scheduled requests run one at a time (see concurrency())
  bool one_writer_ = false;
  double one_writer_rate_ = kReencryptCpuRate;
  Direction one_writer_pass_ = Direction::Decrypt;  // what a single key's job does (a fill: encrypt)
  const char* one_writer_kind_ = nullptr;  // what the rate is for, in --verbose's words (null: a test's rate)
  mutable std::mutex rate_mu_;
  mutable std::map<std::pair<ChainId, Direction>, double> cpu_rates_;
  std::set<std::pair<ChainId, Direction>> calibrated_;  // the rates of cpu_rates_ that use_calibration gave
  mutable std::map<std::pair<int, int>, bool> cpu_jobs_;     // (chain a, chain b or -1): cpu_job's decision
  // A job bound by one writer whose CPU engine is below the rate: its trials never run the CPU alone (share_).
  mutable std::atomic<bool> cpu_alone_too_slow_{false};
};

}  // namespace warpvol

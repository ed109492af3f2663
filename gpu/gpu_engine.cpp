// The CUDA engine: device setup, key upload, the pinned staging pipeline and the CPU fallback (gpu_engine.h).
#include <cuda_runtime.h>
#include <emmintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "core/crypto/unit_xxh3.h"
#include "core/engine/engine_factory.h"
#include "core/io/file.h"
#include "core/util/aligned_buffer.h"
#include "core/util/cores.h"
#include "core/util/error.h"
#include "gpu/cipher_host.h"
#include "gpu/engine_impl.h"

namespace warpvol::gpu {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(e, std::string(what) + ": " + cudaGetErrorString(e));
}

namespace {

long env_long(const char* name, long def) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  char* end = nullptr;
  long r = std::strtol(v, &end, 10);
  return (end && *end == 0) ? r : def;
}

// Copy with non-temporal stores (WARPVOL_GPU_NT_COPY=1): the destination is not read again soon by this thread,
// and streaming stores skip the read-for-ownership traffic. Slower than memcpy where it was tried, so off by default
// (gpu/NOTES.md, "Pageable copies").
void copy_stream(uint8_t* dst, const uint8_t* src, size_t n) {
  size_t head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
  if (n < 4096 || head >= n) {
    std::memcpy(dst, src, n);
    return;
  }
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, n - i);
  _mm_sfence();
}

void copy_plain(uint8_t* dst, const uint8_t* src, size_t n) { std::memcpy(dst, src, n); }

bool is_pinned(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

}  // namespace

std::vector<uint32_t> build_source_tables() {
  const host::Tables& T = host::tables();
  std::vector<uint32_t> s(src::kWords);
  std::memcpy(&s[src::kAesTe], T.aes_te, sizeof T.aes_te);
  std::memcpy(&s[src::kAesTd], T.aes_td, sizeof T.aes_td);
  std::memcpy(&s[src::kAesIsb], T.aes_isb, sizeof T.aes_isb);
  std::memcpy(&s[src::kCamSp], T.cam_sp, sizeof T.cam_sp);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned x = 0; x < 256; ++x) {
      std::memcpy(&s[src::kKuzT + src::kuz_row_word(i, x)], T.kuz_t[i][x], sizeof T.kuz_t[i][x]);
      std::memcpy(&s[src::kKuzTi + src::kuz_row_word(i, x)], T.kuz_ti[i][x], sizeof T.kuz_ti[i][x]);
    }
  for (int b = 0; b < 256; ++b) {
    s[src::kKuzS8 + b] = uint32_t(T.kuz_pi[b]) << 8;
    s[src::kKuzSi + b] = uint32_t(T.kuz_pi_inv[b]) * 0x01010101u;
  }
  return s;
}

// ------------------------------------------------------------------ keys
GpuKey::GpuKey(ChainId chain, const uint8_t* km, int device, bool upload)
    : chain_(chain), device_(device), material_(km, 2 * chain_info(chain).key_size()) {
  const auto& order = chain_info(chain).order;
  n_ = int(order.size());
  const size_t K = chain_info(chain).key_size();
  enc_ = LockedBytes(sizeof(LayerKey) * n_);
  dec_ = LockedBytes(sizeof(LayerKey) * n_);
  std::memset(enc_.data(), 0, enc_.size());
  std::memset(dec_.data(), 0, dec_.size());
  auto* enc = reinterpret_cast<LayerKey*>(enc_.data());
  auto* dec = reinterpret_cast<LayerKey*>(dec_.data());
  int twofish = 0;
  for (CipherId c : order) twofish += c == CipherId::Twofish;
  LockedBytes tf_host(twofish ? size_t(twofish) * 2 * 4096 : 0);
  if (twofish && upload) {
    d_tf_bytes_ = tf_host.size();
    check(cudaMalloc(&d_tf_, d_tf_bytes_), "cudaMalloc (Twofish key tables)");
  }
  auto sched = std::make_unique<host::Sched>();
  int tfi = 0;
  for (int i = 0; i < n_; ++i) {
    const CipherId c = order[i];
    LayerKey& e = enc[i];
    LayerKey& d = dec[n_ - 1 - i];
    host::expand_key(c, km + 32 * i, true, *sched);
    std::memcpy(e.k1, sched->w, sizeof e.k1);
    if (c == CipherId::Twofish) std::memcpy(tf_host.data() + tfi * 8192, sched->tf_sbox, 4096);
    host::expand_key(c, km + 32 * i, false, *sched);
    std::memcpy(d.k1, sched->w, sizeof d.k1);
    host::expand_key(c, km + K + 32 * i, true, *sched);
    std::memcpy(e.k2, sched->w, sizeof e.k2);
    std::memcpy(d.k2, sched->w, sizeof d.k2);
    if (c == CipherId::Twofish) {
      std::memcpy(tf_host.data() + tfi * 8192 + 4096, sched->tf_sbox, 4096);
      if (d_tf_) {
        e.tf1 = d.tf1 = d_tf_ + tfi * 2048;
        e.tf2 = d.tf2 = d_tf_ + tfi * 2048 + 1024;
      }
      ++tfi;
    }
  }
  secure_wipe(sched.get(), sizeof *sched);
  if (d_tf_) {
    cudaError_t e = cudaMemcpy(d_tf_, tf_host.data(), d_tf_bytes_, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      cudaFree(d_tf_);
      check(e, "cudaMemcpy (Twofish key tables)");
    }
  }
}

GpuKey::~GpuKey() {
  if (d_tf_) {
    int prev = 0;
    cudaGetDevice(&prev);
    cudaSetDevice(device_);
    cudaMemset(d_tf_, 0, d_tf_bytes_);
    cudaFree(d_tf_);
    cudaSetDevice(prev);
  }
}

const EngineKey& GpuKey::cpu_key(CpuEngine& cpu) const {
  std::lock_guard<std::mutex> lk(cpu_mu_);
  if (!cpu_key_) cpu_key_ = cpu.prepare(chain_, material_.data());
  return *cpu_key_;
}

// ------------------------------------------------------------------ engine
std::unique_ptr<GpuEngine> GpuEngine::create(const GpuEngineOptions& opt, std::string& why) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  const auto t0 = Clock::now();
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  const double driver_start = since(t0);
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
    why = "no CUDA device";
    cudaGetLastError();
    return nullptr;
  }
  if (e == cudaErrorInsufficientDriver) {
    why = "no CUDA driver, or a driver too old for this build (CUDA 13)";
    cudaGetLastError();
    return nullptr;
  }
  if (e != cudaSuccess) {
    why = std::string("CUDA unavailable: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return nullptr;
  }
  std::unique_ptr<GpuEngine> g(new GpuEngine);
  g->opt_ = opt;
  g->driver_start_s_ = driver_start;
  g->device_ = opt.device >= 0 ? opt.device : int(env_long("WARPVOL_GPU_DEVICE", 0));
  if (g->device_ < 0 || g->device_ >= count) {
    why = "CUDA device " + std::to_string(g->device_) + " does not exist (" + std::to_string(count) + " found)";
    return nullptr;
  }
  if ((e = cudaGetDeviceProperties(&g->prop_, g->device_)) != cudaSuccess) {
    why = std::string("CUDA device query failed: ") + cudaGetErrorString(e);
    return nullptr;
  }
  if (g->prop_.major < 9) {
    why = std::string(g->prop_.name) + " has compute capability " + std::to_string(g->prop_.major) + "." +
          std::to_string(g->prop_.minor) + "; the CUDA engine is built for 9.0 (Hopper) and newer";
    return nullptr;
  }
  if (g->prop_.sharedMemPerBlockOptin < 227 * 1024) {
    why = std::string(g->prop_.name) + " offers " + std::to_string(g->prop_.sharedMemPerBlockOptin / 1024) +
          " KB of shared memory per block; the kernels need 227 KB";
    return nullptr;
  }
  // The kernels' layer lists must be the chains' definitions (guards against a change of ChainId or order).
  for (const auto& ci : all_chains())
    for (int dir = 0; dir < 2; ++dir)
      if (!kernel_matches(process_kernel(ci.id, dir), ci.id, dir == 0, nullptr)) {
        why = "internal error: the CUDA kernel for " + std::string(ci.name) + " does not match the chain definition";
        return nullptr;
      }
  try {
    const auto tc = Clock::now();  // cudaSetDevice creates the device's primary context (CUDA 12 and newer)
    check(cudaSetDevice(g->device_), "cudaSetDevice");
    check(cudaFree(nullptr), "CUDA context creation");
    g->context_s_ = since(tc);
    std::vector<uint32_t> t = build_source_tables();
    check(cudaMalloc(&g->d_tables_, t.size() * 4), "cudaMalloc (tables)");
    check(cudaMemcpy(g->d_tables_, t.data(), t.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy (tables)");
  } catch (const CudaError& ce) {
    why = ce.what();
    return nullptr;
  }
  size_t mem = opt.device_memory ? opt.device_memory : size_t(env_long("WARPVOL_GPU_MEM_MB", 1024)) << 20;
  size_t chunk = opt.chunk_bytes ? opt.chunk_bytes : size_t(env_long("WARPVOL_GPU_CHUNK_MB", 16)) << 20;
  int streams = opt.streams > 0 ? opt.streams : int(env_long("WARPVOL_GPU_STREAMS", 4));
  streams = std::clamp(streams, 3, 16);
  chunk = std::max<size_t>(chunk / kDataUnitSize, 1) * kDataUnitSize;
  if (chunk * streams > mem) chunk = std::max<size_t>(mem / streams / kDataUnitSize, 1) * kDataUnitSize;
  g->chunk_units_ = chunk / kDataUnitSize;
  g->nslots_ = streams;
  unsigned cores = usable_cores();
  g->copy_threads_ = opt.copy_threads ? opt.copy_threads
                                      : unsigned(env_long("WARPVOL_GPU_COPY_THREADS", std::min(cores, 16u)));
  g->copy_threads_ = std::max(1u, g->copy_threads_);
  g->fail_launch_ = opt.fail_launch >= 0 ? opt.fail_launch : env_long("WARPVOL_GPU_FAIL_LAUNCH", -1);
  // Defaults from a sweep of copy threads, chunk sizes and store kinds (gpu/NOTES.md, "Pageable copies"): plain
  // memcpy into 16 MiB staging chunks with up to 16 copy threads was fastest from pageable memory.
  g->nt_copy_ = env_long("WARPVOL_GPU_NT_COPY", 0) != 0;
  // Measurement knobs (defaults from the calibration runs in gpu/NOTES.md, "Small requests"): a fixed tile (1..32
  // data units per warp; 0 = chosen per request), the smallest piece a request under four chunks is cut into (KiB),
  // the bytes per copy-crew task (KiB), and the request size above which a completer thread finishes pieces (MiB).
  g->tile_units_ = int(std::clamp(opt.tile_units ? long(opt.tile_units) : env_long("WARPVOL_GPU_TILE", 0), 0L,
                                  long(kUnitsPerTile)));
  g->min_piece_units_ = size_t(std::max(1L, env_long("WARPVOL_GPU_MIN_PIECE_KB", 512) * 1024 / long(kDataUnitSize)));
  g->copy_piece_ = size_t(std::max(4L, env_long("WARPVOL_GPU_COPY_PIECE_KB", 128))) << 10;
  g->threaded_bytes_ = size_t(std::max(0L, env_long("WARPVOL_GPU_THREADED_MB", 16))) << 20;
  g->create_s_ = since(t0);
  return g;
}

// Page-locked buffers returned by their jobs, kept for the next ones (a batch's jobs, a job's next zone): locking
// tens of MiB costs milliseconds. At most kKeep bytes are kept; the rest is released.
// The memory is AlignedBuffer's (2 MiB pages where transparent huge pages are on), faulted in and then registered
// with cudaHostRegister, rather than cudaHostAlloc's 4 KiB pages: reads from tmpfs into 4 KiB-page buffers are
// much slower (docs/perf/design-figures.md, "Jobs").
struct PinnedPool {
  static constexpr size_t kKeep = size_t(1) << 30;
  std::mutex mu;
  std::multimap<size_t, AlignedBuffer*> free;  // by size, each registered
  size_t kept = 0;
  static void release(AlignedBuffer* b) {
    cudaHostUnregister(b->data());
    delete b;
  }
  ~PinnedPool() {
    for (auto& [n, b] : free) release(b);
  }
  // A kept buffer of n to 1.25 n bytes, or nullptr.
  AlignedBuffer* take(size_t n) {
    std::lock_guard<std::mutex> lk(mu);
    auto it = free.lower_bound(n);
    if (it == free.end() || it->first > n + n / 4) return nullptr;
    AlignedBuffer* b = it->second;
    kept -= it->first;
    free.erase(it);
    return b;
  }
  void put(AlignedBuffer* b) {
    {
      std::lock_guard<std::mutex> lk(mu);
      if (kept + b->size() <= kKeep) {
        kept += b->size();
        free.emplace(b->size(), b);
        return;
      }
    }
    release(b);
  }
};

IoBuffer GpuEngine::io_buffer(size_t bytes) {
  const size_t n = std::max<size_t>(1, (bytes + kDirectAlign - 1) / kDirectAlign) * kDirectAlign;
  if (failed_) return IoBuffer::aligned(n);
  std::shared_ptr<PinnedPool> pool;
  {
    std::lock_guard<std::mutex> lk(buf_mu_);
    if (!pinned_pool_) pinned_pool_ = std::make_shared<PinnedPool>();
    pool = pinned_pool_;
  }
  AlignedBuffer* b = pool->take(n);
  if (!b) {
    b = new AlignedBuffer(n);
    std::memset(b->data(), 0, b->size());  // fault the (huge) pages in before they are locked
    cudaSetDevice(device_);
    // Portable: any context of the process may DMA from it.
    if (cudaHostRegister(b->data(), b->size(), cudaHostRegisterPortable) != cudaSuccess) {
      cudaGetLastError();
      return IoBuffer(b->data(), b->size(), [b](uint8_t*, size_t) { delete b; }, false);
    }
  }
  return IoBuffer(b->data(), b->size(), [pool, b](uint8_t*, size_t) { pool->put(b); }, true);
}

bool GpuEngine::pin_host(uint8_t* p, size_t bytes) {
  if (failed_) return false;
  cudaSetDevice(device_);
  if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

void GpuEngine::unpin_host(uint8_t* p) {
  cudaSetDevice(device_);
  if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

GpuEngine::~GpuEngine() {
  cudaSetDevice(device_);
  for (auto& s : slots_) {
    if (s.stream) cudaStreamSynchronize(s.stream);
    if (s.done) cudaEventDestroy(s.done);
    if (s.stream) cudaStreamDestroy(s.stream);
    if (s.d) cudaFree(s.d);
    if (s.d_hash) cudaFree(s.d_hash);
    if (s.h) {
      secure_wipe(s.h, chunk_units_ * kDataUnitSize);
      cudaFreeHost(s.h);
    }
    if (s.h_hash) cudaFreeHost(s.h_hash);
  }
  if (d_tables_) cudaFree(d_tables_);
}

std::string GpuEngine::detail() const {
  char b[512];
  std::snprintf(b, sizeof b,
                "%s, %d SMs, sm_%d%d, %d streams x %zu MiB chunks, %u copy threads, started in %.3f s (driver %.3f, "
                "context %.3f)%s",
                prop_.name, prop_.multiProcessorCount, prop_.major, prop_.minor, nslots_,
                chunk_units_ * kDataUnitSize >> 20, copy_threads_, create_s_, driver_start_s_, context_s_,
                failed_ ? " (failed over to the CPU)" : "");
  return b;
}

GpuEngineStatus GpuEngine::status() const {
  GpuEngineStatus s;
  s.is_gpu = true;
  s.failed = failed_;
  {
    std::lock_guard<std::mutex> lk(fail_mu_);
    s.error = error_;
  }
  s.launches = launches_;
  s.cpu_units = cpu_units_;
  s.device = prop_.name;
  return s;
}

std::shared_ptr<const EngineKey> GpuEngine::prepare(ChainId chain, const uint8_t* key_material) {
  // After a CUDA error the engine runs on the CPU: keys then skip the device (its context may be unusable).
  if (!failed_) {
    cudaSetDevice(device_);
    try {
      return std::make_shared<GpuKey>(chain, key_material, device_, true);
    } catch (const CudaError& e) {
      fail(std::string("key upload: ") + e.what());
    }
  }
  return std::make_shared<GpuKey>(chain, key_material, device_, false);
}

void GpuEngine::fail(const std::string& what) {
  std::lock_guard<std::mutex> lk(fail_mu_);
  if (!failed_.exchange(true)) {
    error_ = what;
    std::fprintf(stderr, "warpvol: GPU engine error (%s); the remaining work runs on the CPU engine\n",
                 what.c_str());
    std::fflush(stderr);
  }
}

CpuEngine& GpuEngine::cpu() {
  std::lock_guard<std::mutex> lk(cpu_mu_);
  if (!cpu_) cpu_ = std::make_unique<CpuEngine>(opt_.cpu_threads);
  return *cpu_;
}

void GpuEngine::run_cpu(const Job& j, size_t first, size_t n) {
  if (n == 0) return;
  CpuEngine& c = cpu();
  uint8_t* p = j.data + first * kDataUnitSize;
  if (j.b)
    c.reencrypt(j.a->cpu_key(c), j.b->cpu_key(c), j.unit0 + first, p, n);
  else
    c.process(j.a->cpu_key(c), j.d, j.unit0 + first, p, n);
  if (j.hashes) xxh3_128_units(p, n, j.hashes + first * kUnitXxh3Bytes);
  cpu_units_ += n;
}

void GpuEngine::ensure_buffers() {
  std::lock_guard<std::mutex> lk(buf_mu_);
  if (buffers_ready_) return;
  const size_t bytes = chunk_units_ * kDataUnitSize;
  std::vector<Slot> slots(nslots_);
  try {
    for (auto& s : slots) {
      check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
      check(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming), "cudaEventCreate");
      check(cudaMalloc(&s.d, bytes), "cudaMalloc (chunk buffer)");
      check(cudaMallocHost(&s.h, bytes), "cudaMallocHost (staging buffer)");
      check(cudaMalloc(&s.d_hash, chunk_units_ * kUnitXxh3Bytes), "cudaMalloc (unit hashes)");
      check(cudaMallocHost(&s.h_hash, chunk_units_ * kUnitXxh3Bytes), "cudaMallocHost (unit hashes)");
    }
  } catch (...) {
    for (auto& s : slots) {
      if (s.done) cudaEventDestroy(s.done);
      if (s.stream) cudaStreamDestroy(s.stream);
      if (s.d) cudaFree(s.d);
      if (s.h) cudaFreeHost(s.h);
      if (s.d_hash) cudaFree(s.d_hash);
      if (s.h_hash) cudaFreeHost(s.h_hash);
    }
    throw;
  }
  slots_ = std::move(slots);
  // Copies in run on the caller's thread plus half the helpers, copies out on the completer plus the other half.
  copy_in_ = std::make_unique<CopyCrew>((copy_threads_ + 1) / 2 - 1);
  copy_out_ = std::make_unique<CopyCrew>(std::max(1u, copy_threads_ / 2) - 1);
  buffers_ready_ = true;
}

GpuEngine::Slot* GpuEngine::acquire(bool may_block) {
  std::unique_lock<std::mutex> lk(slot_mu_);
  for (;;) {
    for (auto& s : slots_)
      if (!s.busy) {
        s.busy = true;
        return &s;
      }
    if (!may_block) return nullptr;
    slot_cv_.wait(lk);
  }
}

void GpuEngine::release(Slot* s) {
  {
    std::lock_guard<std::mutex> lk(slot_mu_);
    s->busy = false;
  }
  slot_cv_.notify_one();
}

void GpuEngine::parallel_copy(CopyCrew& crew, uint8_t* dst, const uint8_t* src, size_t n) {
  crew.copy(dst, src, n, copy_piece_, nt_copy_ ? copy_stream : copy_plain);
}

int GpuEngine::grid_for(const KernelInfo& k, size_t nunits, unsigned& tile) {
  int max_grid;
  {
    std::lock_guard<std::mutex> lk(grid_mu_);
    auto it = max_grid_.find(k.func);
    if (it == max_grid_.end()) {
      check(cudaFuncSetAttribute(k.func, cudaFuncAttributeMaxDynamicSharedMemorySize, int(k.smem)),
            "cudaFuncSetAttribute");
      int per_sm = 0;
      check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.func, k.threads, k.smem),
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      if (per_sm < 1) throw CudaError(cudaErrorInvalidConfiguration, "kernel cannot be resident on an SM");
      it = max_grid_.emplace(k.func, per_sm * prop_.multiProcessorCount).first;
    }
    max_grid = it->second;
  }
  // A warp works through its tile's units one after the other, so a small request cut into 32-unit tiles keeps only
  // a few SMs busy for 32 cipher latencies (1 MiB = 64 warps on 4 of 132 SMs). Below one tile per resident warp the
  // tiles shrink so that every resident warp gets work; the tweaks then cost more than 1/32 of the work (one cipher
  // call per tile and layer), which does not matter while the GPU is mostly idle.
  const size_t warps = size_t(k.threads / 32);
  const size_t resident_warps = size_t(max_grid) * warps;
  tile = tile_units_ > 0 ? unsigned(tile_units_)
                         : unsigned(std::clamp<size_t>((nunits + resident_warps - 1) / resident_warps, 1, kUnitsPerTile));
  const size_t tiles = (nunits + tile - 1) / tile;
  return int(std::max<size_t>(1, std::min<size_t>(max_grid, (tiles + warps - 1) / warps)));
}

cudaError_t GpuEngine::enqueue_kernels(const GpuKey& a, const GpuKey* to, Direction d, uint64_t unit0,
                                       uint8_t* d_data, size_t n, cudaStream_t s) {
  auto launch = [&](const KernelInfo& k, const LayerKey* keys) -> cudaError_t {
    const uint64_t nr = ++launches_;
    if (fail_launch_ > 0 && nr == uint64_t(fail_launch_)) return cudaErrorLaunchFailure;  // injected
    KernelArgs args{reinterpret_cast<uint4*>(d_data), unit0, n, d_tables_, keys};
    int grid;
    try {
      grid = grid_for(k, n, args.tile);
    } catch (const CudaError& e) {
      return e.code;
    }
    return k.launch(args, grid, s);
  };
  if (!to) return launch(process_kernel(a.chain(), d == Direction::Encrypt ? 0 : 1), a.keys(d));
  const ChainId tc = to->chain();
  const KernelInfo* fused = opt_.fused_reencrypt ? reencrypt_kernel(a.chain(), tc) : nullptr;
  if (fused && kernel_matches(*fused, a.chain(), false, &tc)) {
    LockedBytes keys(sizeof(LayerKey) * (a.layers() + to->layers()));
    std::memcpy(keys.data(), a.keys(Direction::Decrypt), sizeof(LayerKey) * a.layers());
    std::memcpy(keys.data() + sizeof(LayerKey) * a.layers(), to->keys(Direction::Encrypt),
                sizeof(LayerKey) * to->layers());
    return launch(*fused, reinterpret_cast<const LayerKey*>(keys.data()));
  }
  cudaError_t e = launch(process_kernel(a.chain(), 1), a.keys(Direction::Decrypt));
  if (e != cudaSuccess) return e;
  return launch(process_kernel(to->chain(), 0), to->keys(Direction::Encrypt));
}

void GpuEngine::process(const EngineKey& key, Direction d, uint64_t unit0, uint8_t* data, size_t nunits) {
  auto* k = dynamic_cast<const GpuKey*>(&key);
  if (!k) throw Error(ErrorKind::Usage, "engine key was prepared by another engine");
  run(Job{k, nullptr, d, unit0, data, nunits});
}

void GpuEngine::reencrypt(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                          size_t nunits) {
  auto* a = dynamic_cast<const GpuKey*>(&from);
  auto* b = dynamic_cast<const GpuKey*>(&to);
  if (!a || !b) throw Error(ErrorKind::Usage, "engine key was prepared by another engine");
  run(Job{a, b, Direction::Decrypt, unit0, data, nunits});
}

void GpuEngine::reencrypt_hashed(const EngineKey& from, const EngineKey& to, uint64_t unit0, uint8_t* data,
                                 size_t nunits, uint8_t* hashes) {
  auto* a = dynamic_cast<const GpuKey*>(&from);
  auto* b = dynamic_cast<const GpuKey*>(&to);
  if (!a || !b) throw Error(ErrorKind::Usage, "engine key was prepared by another engine");
  run(Job{a, b, Direction::Decrypt, unit0, data, nunits, hashes});
}

// The pipeline. Pieces of at most chunk_units_ go round the slots: (pageable only) parallel copy into the slot's
// pinned buffer, H2D, kernel, (reencrypt_hashed) the unit-hash kernel, D2H of the data (and the hashes) on the
// slot's stream; then, once the slot's event fired, (pageable only) parallel copy back to the caller's buffer, the
// hashes into the caller's array, and the slot is free again. The copies run on two crews of host threads (copy in
// on the caller's side, copy out on the completer's side). The caller's buffer is written only with results of
// pieces whose whole GPU pass succeeded; after a CUDA error every piece not yet written back, and the rest of the
// job, is done by the CPU engine.
void GpuEngine::run(const Job& j) {
  if (j.nunits == 0) return;
  if (failed_) return run_cpu(j, 0, j.nunits);
  cudaSetDevice(device_);
  try {
    ensure_buffers();
  } catch (const CudaError& e) {
    fail(e.what());
    return run_cpu(j, 0, j.nunits);
  }
  const bool pinned = is_pinned(j.data) && is_pinned(j.data + j.nunits * kDataUnitSize - 1);
  struct Inflight {
    Slot* slot;
    size_t first, n;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Inflight> q;
  bool producing = true;
  std::vector<std::pair<size_t, size_t>> redo;  // ranges for the CPU after a failure

  // Waits for the chunk's GPU pass; copies it out or, if it failed, records it for the CPU. Frees the slot.
  auto finish = [&](const Inflight& f) {
    cudaError_t e = cudaEventSynchronize(f.slot->done);
    if (e == cudaSuccess) {
      if (!pinned) parallel_copy(*copy_out_, j.data + f.first * kDataUnitSize, f.slot->h, f.n * kDataUnitSize);
      if (j.hashes)
        std::memcpy(j.hashes + f.first * kUnitXxh3Bytes, f.slot->h_hash, f.n * kUnitXxh3Bytes);
    } else {
      fail(std::string("chunk at unit ") + std::to_string(j.unit0 + f.first) + ": " + cudaGetErrorString(e));
      std::lock_guard<std::mutex> lk(mu);
      redo.emplace_back(f.first, f.n);
    }
    release(f.slot);
  };
  // A lone request of less than four chunks goes in up to four pieces of at least 512 KiB, so that its copies and
  // kernels overlap instead of running one after the other. Requests of several callers at once overlap one another
  // already: each is cut into 4 / (requests under way) pieces, so that the slots carry large transfers (cutting
  // them too only shrinks the data in flight and adds launches and event waits per piece; gpu/NOTES.md, "Jobs").
  // Requests over 16 MiB hand their pieces to a completer thread, which waits for them and copies them out while
  // this thread copies the next ones in. Smaller ones cannot afford a thread start: all their pieces are enqueued
  // first (copy in of piece i+1 overlaps the GPU work on piece i), then finished in order (copy out of piece i
  // overlaps the GPU work on the later ones). Chosen by calibration runs (gpu/NOTES.md, "Small requests"): 1 MiB
  // requests cut into 512 KiB pieces ran about twice as fast as in one.
  const unsigned active = ++active_runs_;
  struct Leave {
    std::atomic<unsigned>& n;
    ~Leave() { --n; }
  } leave{active_runs_};
  const size_t cuts = std::max(1u, 4u / active);
  const size_t cu = std::min(chunk_units_, std::max<size_t>(min_piece_units_, (j.nunits + cuts - 1) / cuts));
  const bool threaded = j.nunits > cu && j.nunits * kDataUnitSize > threaded_bytes_;
  std::deque<Inflight> pending;  // small requests: enqueued, not yet finished
  auto take_slot = [&]() -> Slot* {
    if (threaded) return acquire(true);  // the completer frees slots as chunks finish
    // Never wait for a slot while holding one (two callers could each hold half and wait for the other half):
    // finish an own piece first; wait only empty-handed.
    for (;;) {
      if (Slot* s = acquire(false)) return s;
      if (pending.empty()) return acquire(true);
      finish(pending.front());
      pending.pop_front();
    }
  };
  std::thread completer;
  if (threaded)
    completer = std::thread([&] {
      cudaSetDevice(device_);
      for (;;) {
        Inflight f;
        {
          std::unique_lock<std::mutex> lk(mu);
          cv.wait(lk, [&] { return !q.empty() || !producing; });
          if (q.empty()) return;
          f = q.front();
          q.pop_front();
        }
        finish(f);
      }
    });

  size_t next = 0;
  while (next < j.nunits) {
    if (failed_) {
      std::lock_guard<std::mutex> lk(mu);
      redo.emplace_back(next, j.nunits - next);
      break;
    }
    Slot* s = take_slot();
    const size_t n = std::min(cu, j.nunits - next);
    const size_t bytes = n * kDataUnitSize;
    uint8_t* host = pinned ? j.data + next * kDataUnitSize : s->h;
    if (!pinned) parallel_copy(*copy_in_, s->h, j.data + next * kDataUnitSize, bytes);
    cudaError_t e = cudaMemcpyAsync(s->d, host, bytes, cudaMemcpyHostToDevice, s->stream);
    if (e == cudaSuccess) e = enqueue_kernels(*j.a, j.b, j.d, j.unit0 + next, s->d, n, s->stream);
    if (e == cudaSuccess && j.hashes) e = launch_unit_xxh3(s->d, n, s->d_hash, s->stream);  // while in L2
    if (e == cudaSuccess) e = cudaMemcpyAsync(host, s->d, bytes, cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess && j.hashes)
      e = cudaMemcpyAsync(s->h_hash, s->d_hash, n * kUnitXxh3Bytes, cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess) e = cudaEventRecord(s->done, s->stream);
    if (e != cudaSuccess) {
      const bool injected = e == cudaErrorLaunchFailure && fail_launch_ > 0 && launches_ >= uint64_t(fail_launch_);
      fail(std::string("chunk at unit ") + std::to_string(j.unit0 + next) + ": " +
           (injected ? "injected launch failure (WARPVOL_GPU_FAIL_LAUNCH=" + std::to_string(fail_launch_) + ")"
                     : std::string(cudaGetErrorString(e))));
      cudaStreamSynchronize(s->stream);  // whatever was enqueued on the slot drains before it is reused
      cudaGetLastError();
      release(s);
      std::lock_guard<std::mutex> lk(mu);
      redo.emplace_back(next, j.nunits - next);
      break;
    }
    if (threaded) {
      {
        std::lock_guard<std::mutex> lk(mu);
        q.push_back({s, next, n});
      }
      cv.notify_one();
    } else {
      pending.push_back({s, next, n});
    }
    next += n;
  }
  for (const Inflight& f : pending) finish(f);
  if (threaded) {
    {
      std::lock_guard<std::mutex> lk(mu);
      producing = false;
    }
    cv.notify_one();
    completer.join();
  }
  cudaGetLastError();  // clear a non-sticky error so later API calls of this thread start clean
  for (auto& r : redo) run_cpu(j, r.first, r.second);
}

// ------------------------------------------------------------------ public functions
std::unique_ptr<XtsEngine> make_engine(const GpuEngineOptions& opt, std::string& why_not) {
  return GpuEngine::create(opt, why_not);
}

void register_engine() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_gpu_engine_factory([](std::string& why) -> std::unique_ptr<XtsEngine> {
      return GpuEngine::create(GpuEngineOptions{}, why);
    });
  });
}

GpuEngineStatus engine_status(const XtsEngine& e) {
  if (auto* g = dynamic_cast<const GpuEngine*>(&e)) return g->status();
  return {};
}

void* alloc_pinned(size_t bytes) {
  void* p = nullptr;
  if (cudaMallocHost(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void free_pinned(void* p) {
  if (p) cudaFreeHost(p);
}

}  // namespace warpvol::gpu

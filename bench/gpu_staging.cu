// How a job should stage its data through the GPU: each of T threads reads its range of a file (or a file of its
// own) in chunks of C bytes into pinned slots, sends each chunk to the GPU, transforms it there and brings it back,
// then writes it out (to /dev/null, or in place into the file it came from). The GPU's result goes back either
// into the slot it came from (in place: the job's layout) or into a second, smaller ring of E slots per thread
// (out of place: the write reads a buffer the DMA has just written, which may still be in the cache, and the read
// ring is not written a second time). "nod2h" skips the way back (the upper bound of the staging), "read" reads
// into the ring alone (no GPU), "floor" reads into one reused chunk, as dd does. "pipe" is "inplace" with every
// thread's requests on three shared streams (copies in, kernels, copies out) instead of a stream per thread.
// "mapped" stages nothing: each thread maps its range of the file (MAP_SHARED), page-locks the mapping for the GPU
// (cudaHostRegister, inside the timed part, its time printed apart) and the GPU copies each chunk straight from the
// file's pages and its result straight back into them (OUT back), or to device memory only (OUT null): no core
// copies a byte. "pieces" is "inplace" with each chunk read in pieces of PIECE_KB (default 1024) KiB, each sent to
// the GPU as soon as it is read, on a stream of its own (the kernel and the way back wait for the chunk's last
// piece): the DMA reads each piece while the read has just left it in the cache, instead of a whole chunk later.
// PINNED (below) picks the kind of page-locked memory. KERNEL_GBS=N makes the GPU's work as slow as a cipher
// chain's: no faster than N GB/s on one chunk in device memory (the round count is calibrated at the start).
// Build: nvcc -O2 -arch=sm_90 -o gpu_staging bench/gpu_staging.cu
// Usage: gpu_staging MODE THREADS CHUNK_MiB D E FILE|PATTERN%d OUT
//   MODE: floor | read | inplace | outofplace | nod2h | pipe | mapped | pieces
//   OUT: null (writes to /dev/null) | back (pwrite in place)
// A PATTERN with %d gives thread t the file PATTERN(t), whole; a plain FILE is split into T ranges.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

// `rounds` of integer mixing per 16 bytes: calibrated at the start to make the kernel as slow as a cipher chain's.
__global__ void transform(uint4* p, size_t n, uint32_t k, int rounds) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint4 v = p[i];
    for (int r = 0; r < rounds; ++r) {
      v.x = (v.x ^ k) * 0x9E3779B1u + v.w; v.y = (v.y ^ v.x) * 0x85EBCA77u + k;
      v.z = (v.z ^ v.y) * 0xC2B2AE3Du + v.x; v.w = (v.w ^ v.z) * 0x27D4EB2Fu + v.y;
    }
    p[i] = v;
  }
}
static int g_rounds = 0;
static const int kGrid = 132 * 8;

// The smallest round count at which the kernel on one chunk runs no faster than `gbs` GB/s (0: the bare kernel).
static int calibrate(size_t chunk, double gbs) {
  if (gbs <= 0) return 0;
  void* d;
  CK(cudaMalloc(&d, chunk));
  CK(cudaMemset(d, 1, chunk));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  int r = 1;
  for (; r < (1 << 16); r *= 2) {
    transform<<<kGrid, 256>>>((uint4*)d, chunk / 16, 1, r);
    CK(cudaEventRecord(a));
    for (int i = 0; i < 20; ++i) transform<<<kGrid, 256>>>((uint4*)d, chunk / 16, 1, r);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    const double rate = 20.0 * chunk / (ms * 1e-3) / 1e9;
    if (rate <= gbs) {
      std::printf("# kernel: %d rounds, %.1f GB/s on %zu MiB\n", r, rate, chunk >> 20);
      break;
    }
  }
  CK(cudaFree(d));
  return r;
}

// Shared by every thread of mode "pipe": one stream per direction and one for the kernels, so that each engine's
// requests go through it in order (a request's copy is not time-sliced against fifteen others').
static cudaStream_t g_in, g_kern, g_out;
static std::mutex g_enqueue;

struct Args {
  std::string mode, in, out;
  unsigned threads, d, e;
  size_t chunk;
};

static void die(const char* what) {
  std::perror(what);
  std::exit(2);
}

static void full_pread(int fd, uint8_t* p, size_t n, off_t off) {
  while (n) {
    ssize_t r = pread(fd, p, n, off);
    if (r <= 0) die("pread");
    p += r, n -= size_t(r), off += r;
  }
}
static void full_pwrite(int fd, const uint8_t* p, size_t n, off_t off, bool positioned) {
  while (n) {
    ssize_t r = positioned ? pwrite(fd, p, n, off) : write(fd, p, n);
    if (r <= 0) die("write");
    p += r, n -= size_t(r), off += r;
  }
}

static pthread_barrier_t ready;  // every thread's buffers are allocated: the clock starts

// PINNED=hostalloc (default): cudaHostAlloc; thp: 2 MiB-aligned heap memory (transparent huge pages), registered
// (the GPU engine's io_buffer); memfd: shared memory mapped from a memfd, registered (the GPU agent's buffers).
static uint8_t* pinned(size_t n) {
  const char* k = std::getenv("PINNED");
  const std::string kind = k ? k : "hostalloc";
  void* p = nullptr;
  if (kind == "hostalloc") {
    CK(cudaHostAlloc(&p, n, cudaHostAllocDefault));
  } else if (kind == "thp") {
    p = std::aligned_alloc(2 << 20, (n + (2 << 20) - 1) / (2 << 20) * (2 << 20));
    madvise(p, n, MADV_HUGEPAGE);
    std::memset(p, 0, n);
    CK(cudaHostRegister(p, n, cudaHostRegisterDefault));
  } else {
    int fd = memfd_create("staging", 0);
    if (fd < 0 || ftruncate(fd, off_t(n))) die("memfd");
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) die("mmap");
    std::memset(p, 0, n);
    CK(cudaHostRegister(p, n, cudaHostRegisterDefault));
  }
  std::memset(p, 0, n);
  return static_cast<uint8_t*>(p);
}

static void worker(const Args& a, unsigned t, int in_fd, off_t begin, off_t end, int out_fd) {
  const bool back = a.out == "back";
  const size_t c = a.chunk;
  const uint64_t n = uint64_t(end - begin) / c;
  if (a.mode == "floor") {
    std::vector<uint8_t> buf(c);
    pthread_barrier_wait(&ready);
    for (uint64_t i = 0; i < n; ++i) {
      off_t off = begin + off_t(i * c);
      full_pread(in_fd, buf.data(), c, off);
      full_pwrite(back ? in_fd : out_fd, buf.data(), c, off, back);
    }
    return;
  }
  if (a.mode == "mapped") {
    std::vector<void*> dev(a.d);
    std::vector<cudaEvent_t> done(a.d);
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (unsigned s = 0; s < a.d; ++s) {
      CK(cudaMalloc(&dev[s], c));
      CK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }
    pthread_barrier_wait(&ready);
    const size_t len = size_t(n * c);
    auto t0 = std::chrono::steady_clock::now();
    void* m = mmap(nullptr, len, PROT_READ | (back ? PROT_WRITE : 0), MAP_SHARED, in_fd, begin);
    if (m == MAP_FAILED) die("mmap");
    CK(cudaHostRegister(m, len, cudaHostRegisterDefault | (back ? 0 : cudaHostRegisterReadOnly)));
    const double reg = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint8_t* base = static_cast<uint8_t*>(m);
    for (uint64_t i = 0; i < n; ++i) {
      const unsigned s = unsigned(i % a.d);
      if (i >= a.d) CK(cudaEventSynchronize(done[s]));
      CK(cudaMemcpyAsync(dev[s], base + i * c, c, cudaMemcpyHostToDevice, st));
      transform<<<kGrid, 256, 0, st>>>((uint4*)dev[s], c / 16, uint32_t(t * 977 + i), g_rounds);
      if (back) CK(cudaMemcpyAsync(base + i * c, dev[s], c, cudaMemcpyDeviceToHost, st));
      CK(cudaEventRecord(done[s], st));
    }
    CK(cudaStreamSynchronize(st));
    t0 = std::chrono::steady_clock::now();
    CK(cudaHostUnregister(m));
    munmap(m, len);
    const double unreg = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    static std::mutex print;
    std::lock_guard<std::mutex> lk(print);
    std::printf("#   thread %u: %zu MiB registered in %.3f s, unregistered in %.3f s\n", t, len >> 20, reg, unreg);
    return;
  }
  if (a.mode == "pieces") {
    const char* pk = std::getenv("PIECE_KB");
    const size_t piece = std::min(c, size_t(pk ? std::atoi(pk) : 1024) << 10);
    const unsigned d = a.d;
    std::vector<uint8_t*> ring(d);
    std::vector<void*> dev(d);
    std::vector<cudaEvent_t> sent(d), back_ev(d);
    cudaStream_t in, st;
    CK(cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (unsigned s = 0; s < d; ++s) {
      ring[s] = pinned(c);
      CK(cudaMalloc(&dev[s], c));
      CK(cudaEventCreateWithFlags(&sent[s], cudaEventDisableTiming));
      CK(cudaEventCreateWithFlags(&back_ev[s], cudaEventDisableTiming));
    }
    pthread_barrier_wait(&ready);
    auto drain = [&](uint64_t j) {
      CK(cudaEventSynchronize(back_ev[j % d]));
      full_pwrite(back ? in_fd : out_fd, ring[j % d], c, begin + off_t(j * c), back);
    };
    for (uint64_t i = 0; i < n; ++i) {
      const unsigned s = unsigned(i % d);
      if (i >= d) drain(i - d);
      for (size_t o = 0; o < c; o += piece) {
        const size_t len = std::min(piece, c - o);
        full_pread(in_fd, ring[s] + o, len, begin + off_t(i * c + o));
        CK(cudaMemcpyAsync(static_cast<uint8_t*>(dev[s]) + o, ring[s] + o, len, cudaMemcpyHostToDevice, in));
      }
      CK(cudaEventRecord(sent[s], in));
      CK(cudaStreamWaitEvent(st, sent[s], 0));
      transform<<<kGrid, 256, 0, st>>>((uint4*)dev[s], c / 16, uint32_t(t * 977 + i), g_rounds);
      CK(cudaMemcpyAsync(ring[s], dev[s], c, cudaMemcpyDeviceToHost, st));
      CK(cudaEventRecord(back_ev[s], st));
    }
    for (uint64_t j = n > d ? n - d : 0; j < n; ++j) drain(j);
    CK(cudaStreamSynchronize(st));
    return;
  }
  const bool oop = a.mode == "outofplace";
  const unsigned d = a.d, e = oop ? a.e : a.d;
  std::vector<uint8_t*> ring(d), outs(e);
  std::vector<void*> dev(d);
  std::vector<cudaEvent_t> sent(d), kern_ev(d), back_ev(e);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (unsigned s = 0; s < d; ++s) {
    ring[s] = pinned(c);
    CK(cudaMalloc(&dev[s], c));
    CK(cudaEventCreateWithFlags(&sent[s], cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&kern_ev[s], cudaEventDisableTiming));
  }
  for (unsigned b = 0; b < e; ++b) {
    if (oop) {
      outs[b] = pinned(c);
    } else {
      outs[b] = ring[b];
    }
    CK(cudaEventCreateWithFlags(&back_ev[b], cudaEventDisableTiming));
  }
  pthread_barrier_wait(&ready);
  auto drain = [&](uint64_t j) {  // request j's result is back in outs[j % e]: write it out
    CK(cudaEventSynchronize(back_ev[j % e]));
    off_t off = begin + off_t(j * c);
    if (a.mode != "read") full_pwrite(back ? in_fd : out_fd, outs[j % e], c, off, back);
  };
  for (uint64_t i = 0; i < n; ++i) {
    const unsigned s = unsigned(i % d), b = unsigned(i % e);
    if (i >= d) {
      if (oop) CK(cudaEventSynchronize(sent[s]));
      else drain(i - d);
    }
    full_pread(in_fd, ring[s], c, begin + off_t(i * c));
    if (a.mode == "read") {
      CK(cudaEventRecord(back_ev[b], st));
      continue;
    }
    if (oop && i >= e) drain(i - e);
    if (a.mode != "pipe") {
      CK(cudaMemcpyAsync(dev[s], ring[s], c, cudaMemcpyHostToDevice, st));
      CK(cudaEventRecord(sent[s], st));
    }
    if (a.mode == "pipe") {  // the same request through the shared streams, in the order of the lock
      std::lock_guard<std::mutex> lk(g_enqueue);
      CK(cudaMemcpyAsync(dev[s], ring[s], c, cudaMemcpyHostToDevice, g_in));
      CK(cudaEventRecord(sent[s], g_in));
      CK(cudaStreamWaitEvent(g_kern, sent[s], 0));
      transform<<<kGrid, 256, 0, g_kern>>>((uint4*)dev[s], c / 16, uint32_t(t * 977 + i), g_rounds);
      CK(cudaEventRecord(kern_ev[s], g_kern));
      CK(cudaStreamWaitEvent(g_out, kern_ev[s], 0));
      CK(cudaMemcpyAsync(outs[b], dev[s], c, cudaMemcpyDeviceToHost, g_out));
      CK(cudaEventRecord(back_ev[b], g_out));
      continue;
    }
    transform<<<kGrid, 256, 0, st>>>((uint4*)dev[s], c / 16, uint32_t(t * 977 + i), g_rounds);
    if (a.mode != "nod2h") CK(cudaMemcpyAsync(outs[b], dev[s], c, cudaMemcpyDeviceToHost, st));
    CK(cudaEventRecord(back_ev[b], st));
  }
  for (uint64_t j = n > e ? n - e : 0; j < n; ++j) drain(j);
  CK(cudaStreamSynchronize(st));
}

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s MODE THREADS CHUNK_MiB D E FILE|PATTERN%%d null|back\n", argv[0]);
    return 2;
  }
  Args a{argv[1], argv[6], argv[7], unsigned(std::atoi(argv[2])), unsigned(std::atoi(argv[4])),
         unsigned(std::atoi(argv[5])), size_t(std::atof(argv[3]) * 1048576)};
  CK(cudaFree(nullptr));
  const char* kg = std::getenv("KERNEL_GBS");
  g_rounds = calibrate(a.chunk, kg ? std::atof(kg) : 0);
  CK(cudaStreamCreateWithFlags(&g_in, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&g_kern, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&g_out, cudaStreamNonBlocking));
  const bool per_thread = a.in.find("%d") != std::string::npos;
  std::vector<int> fds(a.threads);
  std::vector<off_t> begin(a.threads), end(a.threads);
  uint64_t total = 0;
  for (unsigned t = 0; t < a.threads; ++t) {
    char name[4096];
    std::snprintf(name, sizeof name, a.in.c_str(), int(t));
    if (per_thread || t == 0) {
      fds[t] = open(per_thread ? name : a.in.c_str(), a.out == "back" ? O_RDWR : O_RDONLY);
      if (fds[t] < 0) die("open");
    } else {
      fds[t] = fds[0];
    }
    struct stat sb;
    if (fstat(fds[t], &sb)) die("fstat");
    uint64_t size = uint64_t(sb.st_size);
    if (per_thread) {
      begin[t] = 0, end[t] = off_t(size / a.chunk * a.chunk);
    } else {
      uint64_t part = size / a.threads / a.chunk * a.chunk;
      begin[t] = off_t(t * part), end[t] = off_t((t + 1) * part);
    }
    total += uint64_t(end[t] - begin[t]);
  }
  int null_fd = open("/dev/null", O_WRONLY);
  pthread_barrier_init(&ready, nullptr, a.threads + 1);
  std::vector<std::thread> th;
  for (unsigned t = 0; t < a.threads; ++t)
    th.emplace_back(worker, std::cref(a), t, fds[t], begin[t], end[t], null_fd);
  pthread_barrier_wait(&ready);
  struct rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  auto t0 = std::chrono::steady_clock::now();
  for (auto& x : th) x.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  getrusage(RUSAGE_SELF, &r1);
  auto sec = [](const timeval& v) { return v.tv_sec + v.tv_usec * 1e-6; };
  double cpu = sec(r1.ru_utime) - sec(r0.ru_utime) + sec(r1.ru_stime) - sec(r0.ru_stime);
  std::printf("%-10s T=%-2u C=%gMiB D=%u E=%u out=%s  %.2f GB/s  %.2f CPU-s/GB\n", a.mode.c_str(), a.threads,
              double(a.chunk) / 1048576, a.d, a.e, a.out.c_str(), total / s / 1e9, cpu / (total / 1e9));
  return 0;
}

// Reads a file with N threads (positioned reads of disjoint chunks) into each kind of host buffer a job may use:
// plain page-aligned memory (2 MiB pages where THP is on), the same memory registered with cudaHostRegister (the
// GPU engine's io_buffer), and cudaHostAlloc memory. Tells whether the buffer kind changes the storage's read
// rate, which bounds every GPU job that reads a file. Usage: gpu_io_probe FILE [THREADS...]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kChunk = size_t(8) << 20;
constexpr size_t kHuge = size_t(2) << 20;

enum class Kind { Plain, Registered, HostAlloc };

uint8_t* alloc(Kind k, size_t n) {
  void* p = nullptr;
  if (k == Kind::HostAlloc) {
    if (cudaMallocHost(&p, n) != cudaSuccess) return nullptr;
    return static_cast<uint8_t*>(p);
  }
  if (posix_memalign(&p, kHuge, n) != 0) return nullptr;
  madvise(p, n, MADV_HUGEPAGE);
  std::memset(p, 0, n);
  if (k == Kind::Registered && cudaHostRegister(p, n, cudaHostRegisterPortable) != cudaSuccess) return nullptr;
  return static_cast<uint8_t*>(p);
}

double run(int fd, uint64_t size, Kind kind, unsigned threads) {
  std::vector<uint8_t*> bufs(threads);
  for (auto& b : bufs)
    if (!(b = alloc(kind, kChunk))) return -1;
  const uint64_t nchunks = size / kChunk;
  std::atomic<uint64_t> next{0};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> th;
  for (unsigned t = 0; t < threads; ++t)
    th.emplace_back([&, t] {
      for (uint64_t k; (k = next++) < nchunks;)
        if (pread(fd, bufs[t], kChunk, off_t(k * kChunk)) != ssize_t(kChunk)) std::abort();
    });
  for (auto& t : th) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (auto* b : bufs) {
    if (kind == Kind::HostAlloc) {
      cudaFreeHost(b);
    } else {
      if (kind == Kind::Registered) cudaHostUnregister(b);
      std::free(b);
    }
  }
  return double(nchunks * kChunk) / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpu_io_probe FILE [THREADS...]\n");
    return 2;
  }
  const int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  std::vector<unsigned> counts;
  for (int i = 2; i < argc; ++i) counts.push_back(unsigned(std::stoul(argv[i])));
  if (counts.empty()) counts = {1, 4, 8};
  const char* names[] = {"plain", "registered", "hostalloc"};
  std::printf("threads");
  for (const char* n : names) std::printf("\t%s GB/s", n);
  std::printf("\n");
  for (unsigned t : counts) {
    std::printf("%u", t);
    for (Kind k : {Kind::Plain, Kind::Registered, Kind::HostAlloc}) std::printf("\t%.2f", run(fd, uint64_t(st.st_size), k, t));
    std::printf("\n");
  }
  return 0;
}

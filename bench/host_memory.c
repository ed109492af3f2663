// Host memory bandwidth with N threads: each thread copies its own 256 MiB slice of a 4 GiB source into a 4 GiB
// destination (memcpy: every byte read once and written once) and reads its slice of the source alone (a sum), a
// few rounds, best round. Jobs that move data through the GPU cross host memory several times per byte (the page
// cache's copy into a buffer, the GPU's DMA in and out): this is the ceiling those crossings share.
// Build: cc -O2 -pthread -o host_memory bench/host_memory.c    Usage: host_memory [THREADS...] (default 1 4 8 16)
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOTAL (4ull << 30)

static uint8_t *src, *dst;
static unsigned nthreads;
static pthread_barrier_t start, stop;
static int reading;
static volatile uint64_t sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void* worker(void* arg) {
  size_t i = (size_t)arg, slice = TOTAL / nthreads;
  pthread_barrier_wait(&start);
  if (reading) {
    const uint64_t* p = (const uint64_t*)(src + i * slice);
    uint64_t s = 0;
    for (size_t k = 0; k < slice / 8; k += 8) s += p[k] ^ p[k + 1] ^ p[k + 2] ^ p[k + 3] ^ p[k + 4] ^ p[k + 5] ^ p[k + 6] ^ p[k + 7];
    sink += s;
  } else {
    memcpy(dst + i * slice, src + i * slice, slice);
  }
  pthread_barrier_wait(&stop);
  return NULL;
}

static double run(unsigned n, int read_only) {
  pthread_t t[64];
  nthreads = n;
  reading = read_only;
  pthread_barrier_init(&start, NULL, n + 1);
  pthread_barrier_init(&stop, NULL, n + 1);
  for (size_t i = 0; i < n; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  pthread_barrier_wait(&start);
  double t0 = now();
  pthread_barrier_wait(&stop);
  double s = now() - t0;
  for (size_t i = 0; i < n; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  pthread_barrier_destroy(&stop);
  return s;
}

int main(int argc, char** argv) {
  unsigned counts[16] = {1, 4, 8, 16}, nc = 4;
  if (argc > 1) {
    nc = 0;
    for (int i = 1; i < argc && nc < 16; ++i) {
      unsigned v = (unsigned)atoi(argv[i]);
      if (v >= 1 && v <= 64) counts[nc++] = v;
    }
  }
  src = aligned_alloc(1 << 21, TOTAL);
  dst = aligned_alloc(1 << 21, TOTAL);
  if (!src || !dst) return 1;
  for (size_t i = 0; i < TOTAL; i += 4096) src[i] = (uint8_t)i, dst[i] = 0;  // fault every page in first
  memset(src, 0x5a, TOTAL);
  printf("threads  copy GB/s (read + write = 2 crossings per byte)  read GB/s\n");
  for (unsigned c = 0; c < nc; ++c) {
    double best_copy = 1e9, best_read = 1e9;
    for (int r = 0; r < 3; ++r) {
      double s = run(counts[c], 0);
      if (s < best_copy) best_copy = s;
      s = run(counts[c], 1);
      if (s < best_read) best_read = s;
    }
    printf("%7u  %6.1f (memory traffic %6.1f)  %6.1f\n", counts[c], TOTAL / best_copy / 1e9, 2 * TOTAL / best_copy / 1e9,
           TOTAL / best_read / 1e9);
  }
  return 0;
}

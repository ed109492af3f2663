// How fast one writer copies into a new file (the page cache, one write(2) at a time) when its source is in the
// CPU's caches, when it is not (the GPU engine's results arrive in host memory by DMA, in no core's cache), and
// when a second thread reads each next chunk into the cache while the writer copies the current one (what the jobs
// do: core/util/warm.h). F writers each write a file of their own (1: create's shape; 8: a batch's writers).
// Build: cc -O2 -pthread -o warm_writes bench/warm_writes.c
// Usage: warm_writes DIR SIZE_GiB ROUNDS FILES...   (SIZE in all, split between the files; DIR/ww.N are removed)
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (4ull << 20)

enum source { HOT, COLD, COLD_WARMED };
static const char* names[] = {"hot source", "cold source", "cold source, warmed"};

struct writer {
  char path[4096];
  uint64_t size;        // bytes to write
  uint8_t* pool;        // cold: chunks cycle through it (larger than the last-level cache's share)
  size_t pool_chunks;
  enum source src;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long warm_next;       // chunk index the warmer reads next; -1: none
  int stop;
};

static volatile uint64_t sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static const uint8_t* chunk_of(struct writer* w, uint64_t i) {
  return w->pool + (w->src == HOT ? 0 : (i % w->pool_chunks) * CHUNK);
}

static void* warmer(void* arg) {
  struct writer* w = arg;
  for (;;) {
    pthread_mutex_lock(&w->mu);
    while (w->warm_next < 0 && !w->stop) pthread_cond_wait(&w->cv, &w->mu);
    long i = w->warm_next;
    w->warm_next = -1;
    int stop = w->stop;
    pthread_mutex_unlock(&w->mu);
    if (stop) return NULL;
    const uint8_t* p = chunk_of(w, (uint64_t)i);
    uint64_t s = 0;
    for (size_t k = 0; k < CHUNK; k += 64) s += p[k];
    sink = s;
  }
}

static void* writer(void* arg) {
  struct writer* w = arg;
  unlink(w->path);
  int fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    perror("open");
    exit(1);
  }
  pthread_t t;
  if (w->src == COLD_WARMED) pthread_create(&t, NULL, warmer, w);
  uint64_t n = w->size / CHUNK;
  for (uint64_t i = 0; i < n; i++) {
    if (w->src == COLD_WARMED && i + 1 < n) {
      pthread_mutex_lock(&w->mu);
      w->warm_next = (long)(i + 1);
      pthread_cond_signal(&w->cv);
      pthread_mutex_unlock(&w->mu);
    }
    if (pwrite(fd, chunk_of(w, i), CHUNK, (off_t)(i * CHUNK)) != (ssize_t)CHUNK) {
      perror("pwrite");
      exit(1);
    }
  }
  if (w->src == COLD_WARMED) {
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(t, NULL);
  }
  close(fd);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s DIR SIZE_GiB ROUNDS FILES...\n", argv[0]);
    return 2;
  }
  const uint64_t size = (uint64_t)(atof(argv[2]) * (1 << 30));
  const int rounds = atoi(argv[3]);
  for (int r = 1; r <= rounds; r++) {
    for (int a = 4; a < argc; a++) {
      int files = atoi(argv[a]);
      if (files < 1 || files > 64) continue;
      struct writer* ws = calloc((size_t)files, sizeof *ws);
      // Each writer's pool: 1 GiB in all, at least 256 MiB each, so that the chunks leave the cache between uses.
      size_t pool = (size_t)(1ull << 30) / (size_t)files;
      if (pool < (256u << 20)) pool = 256u << 20;
      for (int f = 0; f < files; f++) {
        snprintf(ws[f].path, sizeof ws[f].path, "%s/ww.%d", argv[1], f);
        ws[f].size = size / (uint64_t)files / CHUNK * CHUNK;
        ws[f].pool = aligned_alloc(4096, pool);
        ws[f].pool_chunks = pool / CHUNK;
        for (size_t k = 0; k < pool; k += 8) *(uint64_t*)(ws[f].pool + k) = (uint64_t)rand() * 2654435761u + k;
        pthread_mutex_init(&ws[f].mu, NULL);
        pthread_cond_init(&ws[f].cv, NULL);
      }
      printf("round %d, %2d files:", r, files);
      for (int s = -1; s <= COLD_WARMED; s++) {  // -1: untimed, the first writes after the pools were made
        pthread_t t[64];
        uint64_t total = 0;
        double t0 = now();
        for (int f = 0; f < files; f++) {
          ws[f].src = s < 0 ? HOT : (enum source)s;
          ws[f].warm_next = -1;
          ws[f].stop = 0;
          total += ws[f].size;
          pthread_create(&t[f], NULL, writer, &ws[f]);
        }
        for (int f = 0; f < files; f++) pthread_join(t[f], NULL);
        if (s >= 0) printf(" %s %.2f%s", names[s], total / (now() - t0) / 1e9, s == COLD_WARMED ? " GB/s\n" : ",");
        for (int f = 0; f < files; f++) unlink(ws[f].path);
      }
      fflush(stdout);
      for (int f = 0; f < files; f++) free(ws[f].pool);
      free(ws);
    }
  }
  return 0;
}

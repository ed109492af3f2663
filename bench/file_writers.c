// How fast one file can be written by 1..N threads, by each way a job could write it: pwrite (buffered writes take
// the inode lock, so threads queue for it), stores into a shared mapping (page faults take no inode lock, so the
// allocation of page-cache pages and the copy run on every thread), and either of them after fallocate (create
// reserves the whole file first). Also a file rewritten in place (the batch's and re-encryption's shape): pread +
// pwrite against reads and stores through the mapping. Each thread takes the next 4 MiB chunk and copies it from a
// buffer of its own (random bytes). GB/s of file data, per mode and thread count, round by round.
// Build: cc -O2 -pthread -o file_writers bench/file_writers.c
// Usage: file_writers FILE SIZE_GiB ROUNDS THREADS...   (FILE is created and removed; tmpfs: /dev/shm/x)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define CHUNK (4ull << 20)

enum mode { PWRITE, MMAP, MMAP_POPULATE, MMAP_HUGE, REWRITE_PIO, REWRITE_MMAP };
static const char* names[] = {"pwrite", "mmap stores", "mmap populate+stores", "mmap huge pages",
                              "rewrite pread+pwrite", "rewrite mmap"};

static const char* path;
static uint64_t size;
static int fd;
static uint8_t* map;
static enum mode mode;
static uint64_t next_chunk;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char* what) {
  perror(what);
  exit(1);
}

static void* worker(void* arg) {
  (void)arg;
  uint8_t* buf = aligned_alloc(4096, CHUNK);
  for (size_t i = 0; i < CHUNK; i += 8) *(uint64_t*)(buf + i) = (uint64_t)rand() * 2654435761u + i;
  for (;;) {
    pthread_mutex_lock(&mu);
    uint64_t off = next_chunk;
    next_chunk += CHUNK;
    pthread_mutex_unlock(&mu);
    if (off >= size) break;
    switch (mode) {
      case PWRITE:
        if (pwrite(fd, buf, CHUNK, (off_t)off) != (ssize_t)CHUNK) die("pwrite");
        break;
      case MMAP_POPULATE:
        if (madvise(map + off, CHUNK, MADV_POPULATE_WRITE) != 0) die("madvise");
        /* fall through */
      case MMAP:
      case MMAP_HUGE:
        memcpy(map + off, buf, CHUNK);
        break;
      case REWRITE_PIO:
        if (pread(fd, buf, CHUNK, (off_t)off) != (ssize_t)CHUNK) die("pread");
        buf[0] ^= 1;
        if (pwrite(fd, buf, CHUNK, (off_t)off) != (ssize_t)CHUNK) die("pwrite");
        break;
      case REWRITE_MMAP:
        memcpy(buf, map + off, CHUNK);
        buf[0] ^= 1;
        memcpy(map + off, buf, CHUNK);
        break;
    }
  }
  free(buf);
  return NULL;
}

// Runs one mode with n threads; falloc: reserve the file first (timed with the writes, as create does).
static double run(enum mode m, unsigned n, int falloc) {
  int rewrite = m == REWRITE_PIO || m == REWRITE_MMAP;
  if (!rewrite) unlink(path);
  fd = open(path, O_RDWR | O_CREAT, 0600);
  if (fd < 0) die("open");
  mode = m;
  next_chunk = 0;
  double t0 = now();
  if (falloc && fallocate(fd, 0, 0, (off_t)size) != 0) die("fallocate");
  if (m != PWRITE && m != REWRITE_PIO) {
    if (!rewrite && ftruncate(fd, (off_t)size) != 0) die("ftruncate");
    map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) die("mmap");
    // 2 MiB pages in the file's page cache where the kernel allows them for advised mappings
    // (/sys/kernel/mm/transparent_hugepage/shmem_enabled: advise, within_size or always).
    if (m == MMAP_HUGE && madvise(map, size, MADV_HUGEPAGE) != 0) die("madvise(MADV_HUGEPAGE)");
  }
  pthread_t t[64];
  for (unsigned i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (unsigned i = 0; i < n; i++) pthread_join(t[i], NULL);
  if (map && map != MAP_FAILED) munmap(map, size);
  map = NULL;
  fsync(fd);
  close(fd);
  return size / (now() - t0) / 1e9;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s FILE SIZE_GiB ROUNDS THREADS...\n", argv[0]);
    return 2;
  }
  path = argv[1];
  size = (uint64_t)(atof(argv[2]) * (1 << 30)) / CHUNK * CHUNK;
  int rounds = atoi(argv[3]);
  for (int r = 1; r <= rounds; r++) {
    printf("# round %d\n", r);
    for (int a = 4; a < argc; a++) {
      unsigned n = (unsigned)atoi(argv[a]);
      if (n < 1 || n > 64) continue;
      printf("threads %2u: new file: %s %.2f, falloc+%s %.2f, %s %.2f, %s %.2f, falloc+%s %.2f", n, names[PWRITE],
             run(PWRITE, n, 0), names[PWRITE], run(PWRITE, n, 1), names[MMAP], run(MMAP, n, 0), names[MMAP_POPULATE],
             run(MMAP_POPULATE, n, 0), names[MMAP], run(MMAP, n, 1));
      printf(", %s %.2f", names[MMAP_HUGE], run(MMAP_HUGE, n, 0));
      printf("; in place: %s %.2f, %s %.2f GB/s\n", names[REWRITE_PIO], run(REWRITE_PIO, n, 0), names[REWRITE_MMAP],
             run(REWRITE_MMAP, n, 0));
      fflush(stdout);
    }
  }
  unlink(path);
  return 0;
}

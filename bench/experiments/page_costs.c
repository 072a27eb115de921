// What touching memory costs a process on this machine, page by page: the input of a one-shot
// convert read through a mapping of the file (plain, or populated first with MADV_POPULATE_READ)
// against pread into a reused 2 MiB buffer, and a buffer's first writes on 4 KiB pages (plain,
// or populated first with MADV_POPULATE_WRITE) against transparent huge pages (MADV_HUGEPAGE on a
// 2 MiB-aligned mapping). Each line: milliseconds and the process's minor faults. On a VM whose
// MMU is paravirtualized a fault costs 10-20 us and a populated 4 KiB page's first touch about
// 1.5 us more (bench/RESULTS.md, "Convert end to end").
//   gcc -O2 -o /tmp/page_costs bench/experiments/page_costs.c && /tmp/page_costs FILE [ANON_BYTES]
// FILE: a large file in the page cache (a 200 MB .npy: cat it to /dev/null first). Run it twice:
// the first run also pays for whatever the kernel had to make ready.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static long faults(void) { struct rusage r; getrusage(RUSAGE_SELF, &r); return r.ru_minflt; }
static volatile unsigned long sink;

static void report(const char *what, double t0, long f0) {
  printf("%-52s %8.1f ms %7ld faults\n", what, (now() - t0) * 1e3, faults() - f0);
}

static unsigned long touch(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i += 4096) s += p[i];
  return s;
}

static void mapped(int fd, size_t n, int populate) {
  double t0 = now(); long f0 = faults();
  unsigned char *p = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(1); }
  if (populate && madvise(p, n, MADV_POPULATE_READ) != 0) perror("MADV_POPULATE_READ");
  if (populate) report("  mapped, populated: the madvise", t0, f0);
  double t1 = now(); long f1 = faults();
  sink += touch(p, n);
  report(populate ? "  mapped, populated: one byte a page" : "  mapped: one byte a page", t1, f1);
  munmap(p, n);
}

static void read_in_pieces(int fd, size_t n) {
  double t0 = now(); long f0 = faults();
  size_t piece = 2 << 20;
  unsigned char *b = aligned_alloc(4096, piece);
  for (size_t at = 0; at < n; ) {
    ssize_t r = pread(fd, b, n - at < piece ? n - at : piece, (off_t) at);
    if (r <= 0) { perror("pread"); exit(1); }
    sink += touch(b, (size_t) r);
    at += (size_t) r;
  }
  report("  pread into a reused 2 MiB buffer, all bytes copied", t0, f0);
  free(b);
}

static void first_writes(size_t n, int how) {
  double t0 = now(); long f0 = faults();
  size_t huge = 2 << 20;
  unsigned char *raw = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) { perror("mmap"); exit(1); }
  unsigned char *p = (unsigned char *) (((unsigned long) raw + huge - 1) & ~(huge - 1));
  if (how == 1 && madvise(p, n, MADV_POPULATE_WRITE) != 0) perror("MADV_POPULATE_WRITE");
  if (how == 2 && madvise(p, n, MADV_HUGEPAGE) != 0) perror("MADV_HUGEPAGE");
  memset(p, 1, n);
  report(how == 0 ? "  4 KiB pages: first memset" : how == 1 ? "  4 KiB pages populated first: madvise and memset"
         : "  huge pages advised: first memset", t0, f0);
  munmap(raw, n + huge);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: page_costs FILE [ANON_BYTES]\n"); return 2; }
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) { perror(argv[1]); return 1; }
  size_t n = (size_t) lseek(fd, 0, SEEK_END);
  size_t anon = argc > 2 ? strtoul(argv[2], NULL, 10) : 8u << 20;
  printf("%s, %zu bytes:\n", argv[1], n);
  mapped(fd, n, 0);
  mapped(fd, n, 1);
  read_in_pieces(fd, n);
  printf("%zu bytes of fresh anonymous memory:\n", anon);
  for (int how = 0; how < 3; how++) first_writes(anon, how);
  return 0;
}

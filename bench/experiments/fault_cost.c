/* What one page fault costs on this machine: an anonymous mapping of 256 MiB, huge pages off,
 * touched once every 4 KiB, so each touch faults in a zeroed page; prints microseconds per fault.
 * Every process start pays this for the pages it touches (a JVM about 4,700 for `java -version`).
 *
 *   gcc -O2 -o /tmp/fault_cost bench/experiments/fault_cost.c && /tmp/fault_cost
 */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

int main(void) {
    size_t size = (size_t) 256 << 20;
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    madvise(p, size, MADV_NOHUGEPAGE);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (size_t i = 0; i < size; i += 4096) {
        p[i] = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3;
    printf("%zu faults, %.2f us each\n", size / 4096, us / (size / 4096));
    return 0;
}

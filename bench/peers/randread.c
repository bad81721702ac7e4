/* bench/peers/randread.c -- the random-read ceiling of `make bench-peers`: how many independent
 * random 8-byte reads per second this machine serves from a large array at T threads.
 *
 *   randread [MIB] [THREADS] [SECONDS]     (defaults 1024, 2, 1.0)
 *
 * One MIB-MiB array of uint64 (huge pages requested with madvise, every page touched before
 * timing); each thread runs its own xorshift64 index stream and sums a[i] for batches of 16
 * independent indices (no dependency between the reads of a batch, so the core keeps as many
 * misses in flight as it can, as a sampler reading many rows' neighbors does). Best of 3 timed
 * runs of SECONDS each; prints one JSON line: reads_per_s, threads, mib, the checksum. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 1024;
    const int threads = argc > 2 ? atoi(argv[2]) : 2;
    const double secs = argc > 3 ? atof(argv[3]) : 1.0;
    if (mib < 1 || threads < 1 || secs <= 0) {
        fprintf(stderr, "usage: randread [MIB] [THREADS] [SECONDS]\n");
        return 2;
    }
    const size_t bytes = mib << 20, n = bytes / 8;
    const size_t huge = (size_t)2 << 20; /* over-allocate and align to 2 MiB for huge pages */
    char *base = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("randread: mmap");
        return 1;
    }
    uint64_t *a = (uint64_t *)(((uintptr_t)base + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    madvise(a, bytes, MADV_HUGEPAGE);
#endif
    for (size_t i = 0; i < n; i++)
        a[i] = i * 0x9E3779B97F4A7C15ull;
    double best = 0;
    uint64_t check = 0;
    for (int run = 0; run < 3; run++) {
        uint64_t total = 0, sum = 0;
        double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total, sum)
        {
#ifdef _OPENMP
            const int tid = omp_get_thread_num();
#else
            const int tid = 0;
#endif
            uint64_t x = 0x243F6A8885A308D3ull ^ ((uint64_t)(tid + 1) * 0x9E3779B97F4A7C15ull) ^ (uint64_t)run;
#pragma omp barrier
#pragma omp single
            t0 = now_s();
            const double end = now_s() + secs;
            uint64_t cnt = 0, s = 0;
            while (now_s() < end) {
                for (int rep = 0; rep < 4096; rep++) {
                    uint64_t idx[16];
                    for (int k = 0; k < 16; k++) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        idx[k] = (uint64_t)(((unsigned __int128)x * n) >> 64);
                    }
                    for (int k = 0; k < 16; k++)
                        s += a[idx[k]];
                }
                cnt += 4096 * 16;
            }
            total += cnt;
            sum += s;
#pragma omp barrier
#pragma omp single
            t1 = now_s();
        }
        const double rate = (double)total / (t1 - t0);
        if (rate > best)
            best = rate;
        check ^= sum;
    }
    printf("{\"reads_per_s\": %.0f, \"threads\": %d, \"mib\": %zu, \"checksum\": %llu}\n", best, threads, mib,
           (unsigned long long)check);
    munmap(base, bytes + huge);
    return 0;
}

/* comm_test.h: what the communicator tests (test_comm.c, test_tp.c) share: the ranks' devices chosen by
 * WICK_COMM_BACKEND ("cpu", the default: every rank on "cpu"; "cuda" / "rocm": rank r on "<backend>:r", as many
 * ranks as GPUs), a monotonic clock, the float dtypes' epsilon and smallest subnormal, and a seeded generator. */
#ifndef WICK_TESTS_COMM_TEST_H
#define WICK_TESTS_COMM_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wick.h"

#define COMM_TEST_MAX_RANKS 8

typedef struct comm_env {
    const char *backend; /* "cpu", "cuda", "rocm" */
    bool gpu;
    int max_ranks; /* ranks the cases may use: cpu_ranks on the CPU, the GPUs found (at most the cap) */
    wk_device *dev[COMM_TEST_MAX_RANKS];
} comm_env;

static inline double comm_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The devices of a GPU backend: how many the build and machine have (0 when absent). */
static inline int comm_gpu_count(const char *backend)
{
    for (int i = 0; i < wk_backend_count(); i++) {
        wk_backend_info info;
        if (wk_backend_info_get(i, &info) == WK_OK && strcmp(info.name, backend) == 0)
            return info.available ? info.device_count : 0;
    }
    return 0;
}

/* Fills e for test `name` with at most `cap` ranks (cpu_ranks on the CPU). Returns 0; 77 when the GPU backend or
 * its collective library is absent (skipped); 1 on a setup failure (the CPU must have its communicator). */
static inline int comm_env_setup(comm_env *e, const char *name, int cpu_ranks, int cap)
{
    const char *b = getenv("WICK_COMM_BACKEND");
    e->backend = b && *b ? b : "cpu";
    e->gpu = strcmp(e->backend, "cpu") != 0;
    int ndev = e->gpu ? comm_gpu_count(e->backend) : cpu_ranks;
    if (ndev < 1) {
        printf("%s: SKIP: backend %s is absent from this build or machine\n", name, e->backend);
        return 77;
    }
    cap = cap < COMM_TEST_MAX_RANKS ? cap : COMM_TEST_MAX_RANKS;
    e->max_ranks = ndev < cap ? ndev : cap;
    for (int r = 0; r < e->max_ranks; r++) {
        char dev[32];
        snprintf(dev, sizeof dev, e->gpu ? "%s:%d" : "%s", e->backend, r);
        wk_status s = wk_device_get(dev, &e->dev[r]);
        if (s != WK_OK) {
            printf("%s: device %s: %s (%s)\n", name, dev, wk_status_string(s), wk_last_error());
            return 1;
        }
    }
    const char *lib = NULL;
    if (wk_comm_library(e->dev[0], &lib) != WK_OK) {
        printf("%s: %s: no collective library for %s: %s\n", name, e->gpu ? "SKIP" : "FAIL", e->backend,
               wk_last_error());
        return e->gpu ? 77 : 1;
    }
    printf("%s: backend %s, %d device(s), library %s\n", name, e->backend, ndev, lib);
    return 0;
}

/* Machine epsilon, and the smallest subnormal, of a float dtype. */
static inline double dtype_eps(wk_dtype dt)
{
    return dt == WK_F16 ? 0x1p-10 : dt == WK_BF16 ? 0x1p-7 : dt == WK_F32 ? 0x1p-23 : 0x1p-52;
}

static inline double dtype_tiny(wk_dtype dt)
{
    return dt == WK_F16 ? 0x1p-24 : dt == WK_BF16 ? 0x1p-133 : dt == WK_F32 ? 0x1p-149 : 0x1p-1074;
}

/* splitmix64. */
static inline uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif

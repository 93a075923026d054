/* comm_test.h: what the communicator tests (test_comm.c, test_tp.c) share: the ranks' devices chosen by
 * WICK_COMM_BACKEND ("cpu", the default: every rank on "cpu"; "cuda" / "rocm": rank r on "<backend>:r", as many
 * ranks as GPUs), a monotonic clock, the float dtypes' epsilon and smallest subnormal, put_float (a double stored
 * as a float dtype), a seeded generator, and comm_pool: a communicator's ranks driven by a thread each
 * (wk_comm_init_rank) or by one thread in a group (wk_comm_init_all), each running the test's step. Its checks
 * count with check.h's CHECK. */
#ifndef WICK_TESTS_COMM_TEST_H
#define WICK_TESTS_COMM_TEST_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
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

/* Stores v as dt: exactly, or rounded once where v is exact in f32 (the inputs), or NaN. */
static inline void put_float(wk_dtype dt, void *buf, int64_t i, double v)
{
    switch (dt) {
    case WK_F16: ((uint16_t *)buf)[i] = wk_f32_to_f16((float)v); break;
    case WK_BF16: ((uint16_t *)buf)[i] = wk_f32_to_bf16((float)v); break;
    case WK_F32: ((float *)buf)[i] = (float)v; break;
    default: ((double *)buf)[i] = v; break;
    }
}

/* splitmix64. */
static inline uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- ranks driven by threads or by one group */
/* A communicator of `size` ranks, rank r on dev[r], and how its ranks are driven: threaded, a thread per rank
 * (joined with wk_comm_init_rank) that runs step(ctx, r) each time comm_pool_run opens the start barrier; else
 * the caller's thread for every rank (wk_comm_init_all), comm_pool_run issuing every rank's step in one group.
 * The caller fills the fields up to ctx and zeroes the rest; step's status lands in status[r]. */
typedef struct comm_pool {
    const char *name; /* the test, for its messages */
    int size;
    bool threaded;
    wk_device *const *dev;
    double timeout_s; /* every rank's */
    wk_status (*step)(void *ctx, int rank);
    void *ctx;
    wk_comm *c[COMM_TEST_MAX_RANKS];
    wk_status status[COMM_TEST_MAX_RANKS]; /* rank r's wk_comm_init_rank, then its last step */
    wk_status wait_status[COMM_TEST_MAX_RANKS], destroy_status[COMM_TEST_MAX_RANKS]; /* set by comm_pool_close */
    /* a thread per rank */
    wk_comm_id id;
    pthread_t th[COMM_TEST_MAX_RANKS];
    pthread_barrier_t start, done;
    bool quit;
    struct comm_pool_arg {
        struct comm_pool *pool;
        int rank;
    } args[COMM_TEST_MAX_RANKS];
} comm_pool;

/* The thread of one rank: joins with wk_comm_init_rank, then runs its step each time the start barrier opens
 * (signalling done after each) until quit, and at the end waits on and destroys its communicator. */
static inline void *comm_pool_rank_main(void *arg)
{
    struct comm_pool_arg *a = arg;
    comm_pool *p = a->pool;
    int r = a->rank;
    p->status[r] = wk_comm_init_rank(p->dev[r], p->size, &p->id, r, p->timeout_s, &p->c[r]);
    pthread_barrier_wait(&p->done);
    for (;;) {
        pthread_barrier_wait(&p->start);
        if (p->quit)
            break;
        p->status[r] = p->step(p->ctx, r);
        pthread_barrier_wait(&p->done);
    }
    if (p->c[r]) {
        p->wait_status[r] = wk_comm_wait(p->c[r]);
        p->destroy_status[r] = wk_comm_destroy(p->c[r]);
    }
    return NULL;
}

/* Makes the id (here, on dev[0]), the barriers and a thread per rank, and waits until every rank has joined:
 * status[r] then holds rank r's wk_comm_init_rank, for the caller to check. False (checked) when the id could not
 * be made; exits when a thread cannot start (the barriers would never open). */
static inline bool comm_pool_start_threads(comm_pool *p)
{
    wk_status s = wk_comm_id_new(p->dev[0], &p->id);
    CHECK(s == WK_OK, "comm_id_new: %s", wk_status_string(s));
    if (s != WK_OK)
        return false;
    pthread_barrier_init(&p->start, NULL, (unsigned)p->size + 1);
    pthread_barrier_init(&p->done, NULL, (unsigned)p->size + 1);
    for (int r = 0; r < p->size; r++) {
        p->args[r] = (struct comm_pool_arg){p, r};
        if (pthread_create(&p->th[r], NULL, comm_pool_rank_main, &p->args[r]) != 0) {
            printf("%s: could not start a thread\n", p->name);
            exit(1);
        }
    }
    pthread_barrier_wait(&p->done);
    return true;
}

/* Makes the ranks: threaded, comm_pool_start_threads (each rank's init status is left in status[] for the caller
 * to check); else wk_comm_init_all here, checked. False when they could not be made. */
static inline bool comm_pool_open(comm_pool *p)
{
    if (p->threaded)
        return comm_pool_start_threads(p);
    wk_status s = wk_comm_init_all(p->dev, p->size, p->timeout_s, p->c);
    CHECK(s == WK_OK, "size %d: init_all: %s", p->size, wk_status_string(s));
    return s == WK_OK;
}

/* Every rank's step, once: by the rank threads (the start barrier opened, then done awaited), or here in one
 * group, where an error of the group's end becomes the status of every rank whose call had succeeded. */
static inline void comm_pool_run(comm_pool *p)
{
    if (p->threaded) {
        pthread_barrier_wait(&p->start);
        pthread_barrier_wait(&p->done);
        return;
    }
    wk_status b = wk_comm_group_begin();
    CHECK(b == WK_OK, "group_begin: %s", wk_status_string(b));
    for (int r = 0; r < p->size; r++)
        p->status[r] = p->step(p->ctx, r);
    wk_status e = wk_comm_group_end();
    for (int r = 0; r < p->size; r++)
        if (p->status[r] == WK_OK)
            p->status[r] = e;
}

/* Ends the ranks: the threads quit (each waits on and destroys its communicator) and are joined, or every rank is
 * waited on and destroyed here. Then, when check_ends (the ranks were not left broken), every wait and destroy
 * must have given WK_OK. */
static inline void comm_pool_close(comm_pool *p, bool check_ends)
{
    if (p->threaded) {
        p->quit = true;
        pthread_barrier_wait(&p->start);
        for (int r = 0; r < p->size; r++)
            pthread_join(p->th[r], NULL);
        pthread_barrier_destroy(&p->start);
        pthread_barrier_destroy(&p->done);
    } else {
        for (int r = 0; r < p->size; r++) {
            p->wait_status[r] = p->c[r] ? wk_comm_wait(p->c[r]) : WK_OK;
            p->destroy_status[r] = wk_comm_destroy(p->c[r]);
        }
    }
    if (!check_ends)
        return;
    for (int r = 0; r < p->size; r++)
        CHECK(p->wait_status[r] == WK_OK && p->destroy_status[r] == WK_OK, "size %d rank %d: wait %s, destroy %s",
              p->size, r, wk_status_string(p->wait_status[r]), wk_status_string(p->destroy_status[r]));
}

#endif

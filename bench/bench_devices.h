/* bench_devices.h: what the multi-device benchmarks (comm_bench.c, tp_bench.c) share: a monotonic clock (ab_builds.c's
 * too, which calls nothing else here: it reaches wick through dlopen), and the
 * ranks' devices of one backend ("cpu": `asked` ranks, 2 by default, all on the CPU device; a GPU backend: its
 * devices 0 .. asked - 1, all of them by default) with the backend's collective library. */
#ifndef WICK_BENCH_DEVICES_H
#define WICK_BENCH_DEVICES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "wick.h"

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fills dev[0 .. *n) (at most max) and *lib; prints why and returns 1 on failure, naming the program prog. */
static inline int bench_open_devices(const char *prog, const char *backend, int asked, int max, wk_device **dev,
                                     int *n, const char **lib)
{
    bool cpu = strcmp(backend, "cpu") == 0;
    int have = cpu ? max : 0;
    for (int i = 0; !cpu && i < wk_backend_count(); i++) {
        wk_backend_info info;
        if (wk_backend_info_get(i, &info) == WK_OK && strcmp(info.name, backend) == 0)
            have = info.available ? info.device_count : 0;
    }
    *n = asked ? asked : cpu ? 2 : have;
    if (*n < 1 || *n > have || *n > max)
        return fprintf(stderr, "%s: %d %s devices asked, %d here\n", prog, *n, backend, have), 1;
    for (int r = 0; r < *n; r++) {
        char name[32];
        snprintf(name, sizeof name, cpu ? "%s" : "%s:%d", backend, r);
        wk_status s = wk_device_get(name, &dev[r]);
        if (s != WK_OK)
            return fprintf(stderr, "%s: %s: %s: %s\n", prog, name, wk_status_string(s), wk_last_error()), 1;
    }
    wk_status s = wk_comm_library(dev[0], lib);
    if (s != WK_OK)
        return fprintf(stderr, "%s: comm_library: %s: %s\n", prog, wk_status_string(s), wk_last_error()), 1;
    return 0;
}

#endif

/* load_safetensors.c: times wick loading every tensor of a safetensors file to a device (open, load_many,
 * sync, close), best and median of ROUNDS. Built and run by bench/load_safetensors.py:
 *   load_safetensors FILE DEVICE ROUNDS   -> prints "wick DEVICE best_ms median_ms bytes" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wick.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One round: returns seconds, or -1 (message printed). */
static double round_once(const char *path, wk_device *dev, double *bytes)
{
    double t0 = now();
    wk_safetensors *f = NULL;
    if (wk_safetensors_open(path, &f) != WK_OK)
        return fprintf(stderr, "open: %s\n", wk_last_error()), -1;
    int64_t n = wk_safetensors_count(f);
    wk_tensor **ts = calloc((size_t)n + 1, sizeof *ts);
    wk_status s = wk_safetensors_load_many(f, NULL, n, dev, ts);
    if (s == WK_OK)
        s = wk_device_sync(dev);
    double t = now() - t0;
    if (s != WK_OK)
        fprintf(stderr, "load: %s\n", wk_last_error());
    *bytes = 0;
    for (int64_t i = 0; i < n && s == WK_OK; i++) {
        *bytes += (double)wk_tensor_numel(ts[i]) * (double)wk_dtype_size(wk_tensor_dtype(ts[i]));
        wk_tensor_release(ts[i]);
    }
    free(ts);
    wk_safetensors_close(f);
    return s == WK_OK ? t : -1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return fprintf(stderr, "usage: load_safetensors FILE DEVICE ROUNDS\n"), 2;
    wk_device *dev = NULL;
    if (wk_device_get(argv[2], &dev) != WK_OK)
        return fprintf(stderr, "%s\n", wk_last_error()), 1;
    int rounds = atoi(argv[3]);
    double times[64], bytes = 0;
    if (rounds < 1 || rounds > 64)
        return 2;
    for (int r = 0; r < rounds; r++)
        if ((times[r] = round_once(argv[1], dev, &bytes)) < 0)
            return 1;
    qsort(times, (size_t)rounds, sizeof times[0], cmp);
    printf("wick %s %.3f %.3f %.0f\n", argv[2], 1e3 * times[0], 1e3 * times[rounds / 2], bytes);
    return 0;
}

/* stream_bench.c: what issue 15 measures on a GPU, through the public API only, as JSON lines (bench/torch_streams.py
 * runs it next to the same measurements in PyTorch and prints the table):
 *  - tiny_add_host: the host's time to queue one 1-element add (y = a + b: allocation, checks, launch, release),
 *    batches of 100 calls between syncs (fewer than the driver's queue holds, so the host never waits for the GPU),
 *    the sync outside the timing; best batch of 200;
 *  - tiny_add_stream: 20,000 adds back to back and one sync, per add (the GPU's pace for tiny kernels);
 *  - graph_add: 100 chained adds captured once, the graph replayed 200 times back to back, per add;
 *  - h2d / d2h: 256 MiB copies from and to page-locked and pageable memory (wk_tensor_write_async,
 *    wk_tensor_to_host_async and a stream sync), GB/s, best of 5.
 * Usage: stream_bench [device] (default cuda:0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wick.h"

#define TRY(call)                                                                                             \
    do {                                                                                                      \
        if ((call) != WK_OK) {                                                                                \
            fprintf(stderr, "stream_bench: %s: %s\n", #call, wk_last_error());                                \
            exit(1);                                                                                          \
        }                                                                                                     \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void tiny_adds(const wk_tensor *a, const wk_tensor *b, int n)
{
    for (int i = 0; i < n; i++) {
        wk_tensor *y = NULL;
        TRY(wk_binary(WK_BINARY_ADD, a, b, &y));
        wk_tensor_release(y);
    }
}

static void bench_eager(wk_device *dev, const wk_tensor *a, const wk_tensor *b)
{
    tiny_adds(a, b, 2000);
    TRY(wk_device_sync(dev));
    double best = 1e30;
    for (int rep = 0; rep < 200; rep++) {
        double t0 = now_us();
        tiny_adds(a, b, 100);
        double us = (now_us() - t0) / 100;
        best = us < best ? us : best;
        TRY(wk_device_sync(dev));
    }
    printf("{\"case\": \"tiny_add_host\", \"us_per_op\": %.4f}\n", best);
    double t0 = now_us();
    tiny_adds(a, b, 20000);
    TRY(wk_device_sync(dev));
    printf("{\"case\": \"tiny_add_stream\", \"us_per_op\": %.4f}\n", (now_us() - t0) / 20000);
}

static void bench_graph(wk_device *dev, const wk_tensor *a, const wk_tensor *b)
{
    wk_stream *s = NULL;
    wk_graph *g = NULL;
    TRY(wk_stream_create(dev, &s));
    TRY(wk_stream_begin_capture(s));
    wk_tensor *y = NULL;
    TRY(wk_binary(WK_BINARY_ADD, a, b, &y));
    for (int i = 1; i < 100; i++) {
        wk_tensor *z = NULL;
        TRY(wk_binary(WK_BINARY_ADD, y, b, &z));
        wk_tensor_release(y);
        y = z;
    }
    TRY(wk_stream_end_capture(s, &g));
    for (int i = 0; i < 20; i++)
        TRY(wk_graph_launch(g, s));
    TRY(wk_stream_sync(s));
    double best = 1e30, host = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now_us();
        for (int i = 0; i < 200; i++)
            TRY(wk_graph_launch(g, s));
        double t1 = now_us();
        TRY(wk_stream_sync(s));
        double us = (now_us() - t0) / (200 * 100);
        best = us < best ? us : best;
        host = (t1 - t0) / 200 < host ? (t1 - t0) / 200 : host;
    }
    float v = 0;
    TRY(wk_tensor_to_host(y, &v, sizeof v));
    printf("{\"case\": \"graph_add\", \"us_per_op\": %.4f, \"host_us_per_replay\": %.3f, \"value\": %g}\n", best, host,
           v);
    wk_tensor_release(y);
    wk_graph_destroy(g);
    TRY(wk_stream_destroy(s));
}

static double copy_gbps(wk_device *dev, wk_tensor *t, void *host, size_t bytes, bool up)
{
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now_us();
        if (up)
            TRY(wk_tensor_write_async(t, host, bytes));
        else
            TRY(wk_tensor_to_host_async(t, host, bytes));
        TRY(wk_stream_sync(wk_stream_current(dev)));
        double us = now_us() - t0;
        best = us < best ? us : best;
    }
    return (double)bytes / best * 1e-3;
}

static void bench_copies(wk_device *dev)
{
    const int64_t n = (int64_t)64 << 20;
    size_t bytes = (size_t)n * 4;
    wk_tensor *t = NULL;
    void *pinned = NULL, *pageable = malloc(bytes);
    TRY(wk_tensor_empty(dev, WK_F32, 1, &n, &t));
    TRY(wk_host_alloc_pinned(dev, bytes, &pinned));
    memset(pageable, 1, bytes);
    memset(pinned, 1, bytes);
    printf("{\"case\": \"h2d\", \"pinned_gbps\": %.2f, \"pageable_gbps\": %.2f}\n", copy_gbps(dev, t, pinned, bytes, true),
           copy_gbps(dev, t, pageable, bytes, true));
    printf("{\"case\": \"d2h\", \"pinned_gbps\": %.2f, \"pageable_gbps\": %.2f}\n",
           copy_gbps(dev, t, pinned, bytes, false), copy_gbps(dev, t, pageable, bytes, false));
    wk_host_free_pinned(dev, pinned);
    free(pageable);
    wk_tensor_release(t);
}

int main(int argc, char **argv)
{
    wk_device *dev = NULL;
    TRY(wk_device_get(argc > 1 ? argv[1] : "cuda:0", &dev));
    const int64_t one = 1;
    float va = 1.0f, vb = 2.0f;
    wk_tensor *a = NULL, *b = NULL;
    TRY(wk_tensor_from_host(dev, WK_F32, 1, &one, &va, &a));
    TRY(wk_tensor_from_host(dev, WK_F32, 1, &one, &vb, &b));
    bench_eager(dev, a, b);
    bench_graph(dev, a, b);
    bench_copies(dev);
    wk_tensor_release(a);
    wk_tensor_release(b);
    return 0;
}

/* test_streams.c: wick.h's streams, events, asynchronous copies and graphs, on the CPU and on the first GPU when
 * there is one (the same checks; graphs only where the device has them, the CPU's refusal checked instead).
 *  - ordering: a long chain of ops on stream A, an event, stream B waits and reads the result (the same without
 *    the wait is run too and reported, to show the check can fail);
 *  - events: elapsed time against the host's clock, query and sync;
 *  - copies: asynchronous writes and reads from page-locked, registered and pageable memory, round trip;
 *  - graphs: 24 ops of 15 families (matmul and conv among them) captured once, replayed 100 times with new inputs
 *    written between replays, each replay against the same ops run eagerly; capture errors (a host sync, an
 *    upload, a release of an outside tensor, the default stream) give no graph and leave the stream usable;
 *    400 captures of a 256 MiB temporary, replayed and destroyed, must not run out of memory (a leak would);
 *    70 decode attentions split over keys captured in one graph against eager (graph_attention.c);
 *  - error paths of every call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "streams.h"

int checks, failures;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static uint64_t rng = 88172645463325252ull;
float frand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffffff) / 16777216.0f - 0.5f;
}

wk_tensor *rand_tensor(wk_device *dev, int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    float *h = malloc((size_t)n * sizeof *h);
    for (int64_t i = 0; i < n; i++)
        h[i] = frand();
    wk_tensor *t = NULL;
    if (wk_tensor_from_host(dev, WK_F32, rank, shape, h, &t) != WK_OK)
        t = NULL;
    free(h);
    return t;
}

/* ---------------------------------------------------------------- ordering and events */
/* y = x, then `rounds` times y = y * 1.0001 + 1 on the current stream. */
static wk_tensor *long_chain(const wk_tensor *x, int rounds)
{
    wk_tensor *y = NULL;
    if (wk_affine(x, 1.0, 0.0, &y) != WK_OK)
        return NULL;
    for (int i = 0; i < rounds && y; i++) {
        wk_tensor *z = NULL;
        wk_affine(y, 1.0001, 1.0, &z);
        wk_tensor_release(y);
        y = z;
    }
    return y;
}

/* Reads y's first element on stream b, ordered after a by an event or not; whether it was the final value. */
static bool read_on_b(wk_device *dev, wk_stream *a, wk_stream *b, bool wait, int rounds, double *expect)
{
    const int64_t n = (int64_t)1 << 24;
    wk_tensor *x = NULL, *y = NULL, *first = NULL;
    wk_event *e = NULL;
    float got = 0;
    OK(wk_stream_set_current(dev, a));
    OK(wk_tensor_empty(dev, WK_F32, 1, &n, &x));
    OK(wk_fill(x, 0.0));
    y = long_chain(x, rounds);
    OK(wk_event_create(dev, 0, &e));
    OK(wk_event_record(e, a));
    OK(wk_stream_set_current(dev, b));
    if (wait)
        OK(wk_stream_wait(b, e));
    OK(wk_narrow(y, 0, n - 1, 1, &first));
    OK(wk_tensor_to_host(first, &got, sizeof got)); /* b's download: waits for b only */
    double v = 0;
    for (int i = 0; i < rounds; i++)
        v = v * 1.0001 + 1;
    *expect = v;
    OK(wk_stream_set_current(dev, NULL));
    wk_tensor_release(first);
    wk_tensor_release(y); /* freed while a may still run (no wait case): must stay valid */
    wk_tensor_release(x);
    wk_event_destroy(e);
    OK(wk_device_sync(dev));
    return fabs(got - v) <= 1e-3 * v;
}

static void test_ordering(wk_device *dev, bool gpu)
{
    wk_stream *a = NULL, *b = NULL;
    OK(wk_stream_create(dev, &a));
    OK(wk_stream_create(dev, &b));
    if (!a || !b)
        return;
    CHECK(wk_stream_current(dev) == wk_stream_default(dev), "current starts as the default");
    CHECK((wk_stream_native(a) != 0) == gpu, "native handle on a GPU only");
    CHECK(wk_stream_device(a) == dev, "stream device");
    double expect = 0;
    bool ok = read_on_b(dev, a, b, true, 200, &expect);
    CHECK(ok, "stream b read the final value after waiting on a's event");
    bool raced = !read_on_b(dev, a, b, false, 200, &expect);
    printf("  %s: without the wait, stream b read %s\n", wk_device_name(dev),
           raced ? "a stale value (the wait is what orders it)" : "the final value anyway");
    if (!gpu)
        CHECK(!raced, "the CPU's streams are always in order");
    bool idle = false;
    OK(wk_stream_sync(a));
    OK(wk_stream_query(a, &idle));
    CHECK(idle, "a synced stream is idle");
    OK(wk_stream_destroy(a));
    OK(wk_stream_destroy(b));
    OK(wk_stream_destroy(wk_stream_default(dev))); /* ignored */
    OK(wk_stream_destroy(NULL));
}

static void test_events(wk_device *dev)
{
    wk_event *t0 = NULL, *t1 = NULL, *plain = NULL;
    OK(wk_event_create(dev, WK_EVENT_TIMING, &t0));
    OK(wk_event_create(dev, WK_EVENT_TIMING, &t1));
    OK(wk_event_create(dev, 0, &plain));
    if (!t0 || !t1 || !plain)
        return;
    bool done = false;
    OK(wk_event_query(plain, &done));
    CHECK(done, "an event never recorded counts as reached");
    const int64_t shape[2] = {1024, 1024};
    wk_tensor *x = rand_tensor(dev, 2, shape), *y = NULL;
    double h0 = now_ms();
    OK(wk_event_record(t0, NULL));
    for (int i = 0; i < 20; i++) {
        wk_tensor *z = NULL;
        OK(wk_matmul(y ? y : x, x, &z));
        wk_tensor_release(y);
        y = z;
    }
    OK(wk_event_record(t1, NULL));
    OK(wk_event_record(plain, NULL));
    OK(wk_event_sync(t1));
    double host = now_ms() - h0;
    float ms = -1;
    OK(wk_event_elapsed_ms(t0, t1, &ms));
    CHECK(ms > 0 && ms <= host + 1.0, "elapsed %.3f ms, host saw %.3f ms", ms, host);
    OK(wk_event_query(plain, &done));
    OK(wk_event_sync(plain));
    FAILS(wk_event_elapsed_ms(t0, plain, &ms), WK_ERR_INVALID_ARGUMENT); /* no timing */
    wk_event *fresh = NULL;
    OK(wk_event_create(dev, WK_EVENT_TIMING, &fresh));
    FAILS(wk_event_elapsed_ms(t0, fresh, &ms), WK_ERR_INVALID_ARGUMENT); /* never recorded */
    wk_event_destroy(fresh);
    FAILS(wk_event_create(dev, 0x80, &fresh), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_event_record(NULL, NULL), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_stream_wait(NULL, plain), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_event_elapsed_ms(t0, t1, NULL), WK_ERR_INVALID_ARGUMENT);
    wk_event_destroy(fresh);
    wk_event_destroy(t0);
    wk_event_destroy(t1);
    wk_event_destroy(plain);
    wk_event_destroy(NULL);
    wk_tensor_release(x);
    wk_tensor_release(y);
}

/* ---------------------------------------------------------------- asynchronous copies */
static void round_trip(wk_device *dev, float *src, float *dst, int64_t n, const char *what)
{
    wk_tensor *t = NULL;
    for (int64_t i = 0; i < n; i++)
        src[i] = frand(), dst[i] = NAN;
    OK(wk_tensor_empty(dev, WK_F32, 1, &n, &t));
    if (!t)
        return;
    OK(wk_tensor_write_async(t, src, (size_t)n * sizeof *src));
    wk_tensor *u = NULL;
    OK(wk_affine(t, 2.0, 1.0, &u));
    OK(wk_tensor_to_host_async(u, dst, (size_t)n * sizeof *dst));
    OK(wk_stream_sync(wk_stream_current(dev)));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += !(dst[i] == src[i] * 2.0f + 1.0f);
    CHECK(bad == 0, "%s: %lld of %lld values wrong after the async round trip", what, (long long)bad, (long long)n);
    wk_tensor_release(t);
    wk_tensor_release(u);
}

static void test_copies(wk_device *dev, bool gpu)
{
    const int64_t n = (int64_t)1 << 20;
    float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    round_trip(dev, a, b, n, "pageable");
    if (gpu) {
        float *pa = NULL, *pb = NULL;
        OK(wk_host_alloc_pinned(dev, (size_t)n * sizeof *pa, (void **)&pa));
        OK(wk_host_alloc_pinned(dev, (size_t)n * sizeof *pb, (void **)&pb));
        if (pa && pb)
            round_trip(dev, pa, pb, n, "page-locked");
        wk_host_free_pinned(dev, pa);
        wk_host_free_pinned(dev, pb);
        OK(wk_host_register(dev, a, (size_t)n * sizeof *a));
        OK(wk_host_register(dev, b, (size_t)n * sizeof *b));
        round_trip(dev, a, b, n, "registered");
        FAILS(wk_host_register(dev, a, 16), WK_ERR_INVALID_ARGUMENT); /* already */
        OK(wk_host_unregister(dev, a));
        OK(wk_host_unregister(dev, b));
        FAILS(wk_host_unregister(dev, a), WK_ERR_INVALID_ARGUMENT);
    } else {
        FAILS(wk_host_register(dev, a, 16), WK_ERR_UNSUPPORTED);
    }
    wk_tensor *t = NULL, *tt = NULL, *cpu = NULL, *back = NULL;
    const int64_t shape[2] = {64, 32};
    OK(wk_tensor_empty(dev, WK_F32, 2, shape, &t));
    FAILS(wk_tensor_write_async(t, a, 100), WK_ERR_INVALID_ARGUMENT); /* wrong size */
    FAILS(wk_tensor_write_async(t, NULL, 64 * 32 * 4), WK_ERR_INVALID_ARGUMENT);
    OK(wk_transpose(t, 0, 1, &tt));
    FAILS(wk_tensor_write_async(tt, a, 64 * 32 * 4), WK_ERR_INVALID_ARGUMENT); /* not contiguous */
    FAILS(wk_tensor_to_host_async(t, b, 16), WK_ERR_INVALID_ARGUMENT);       /* dst too small */
    for (int i = 0; i < 64 * 32; i++)
        a[i] = (float)i;
    OK(wk_tensor_write_async(t, a, 64 * 32 * 4));
    OK(wk_tensor_to_host_async(tt, b, 64 * 32 * 4)); /* strided: through a copy */
    OK(wk_stream_sync(wk_stream_current(dev)));
    CHECK(b[1] == 32.0f && b[64] == 1.0f, "strided async read: %g %g", b[1], b[64]);
    wk_device *host = NULL;
    OK(wk_device_get("cpu", &host));
    OK(wk_to_device_async(t, host, &cpu));
    OK(wk_stream_sync(wk_stream_current(dev)));
    if (cpu)
        OK(wk_to_device_async(cpu, dev, &back));
    if (back) {
        OK(wk_tensor_to_host(back, b, 64 * 32 * 4));
        CHECK(memcmp(a, b, 64 * 32 * 4) == 0, "to_device_async round trip");
    }
    wk_tensor_release(t), wk_tensor_release(tt), wk_tensor_release(cpu), wk_tensor_release(back);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    const char *names[2] = {"cpu", argc > 1 ? argv[1] : "gpu:0"};
    for (int i = 0; i < 2; i++) {
        wk_device *dev = NULL;
        if (wk_device_get(names[i], &dev) != WK_OK) {
            printf("%s: not available here (%s): skipped\n", names[i], wk_last_error());
            continue;
        }
        bool gpu = i == 1;
        printf("%s:\n", wk_device_name(dev));
        test_ordering(dev, gpu);
        test_events(dev);
        test_copies(dev, gpu);
        test_graphs(dev, gpu);
        if (gpu)
            test_graph_attention(dev);
        test_stream_errors(dev, gpu);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

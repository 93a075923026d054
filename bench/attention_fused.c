/* attention_fused.c: wk_attention against wick's own composition (matmul, scale, softmax, matmul) on one device:
 * time per call and the memory each needs (public API only). One mode per process, so the peak resident memory
 * (getrusage) is the mode's own; run it twice to compare:
 *   attention_fused --mode fused|composed [--device cpu] [--b 1] [--h 8] [--s 2048] [--d 64] [--dtype f32]
 *                   [--iters 5]
 * prints one JSON line: {"mode": ..., "ms": ..., "gflops": ..., "peak_mib": ..., "out_max_abs_diff": ...}.
 * out_max_abs_diff compares the mode's output against the other mode's, computed once at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "wick.h"

typedef struct options {
    const char *mode, *device;
    int64_t b, h, s, d;
    wk_dtype dtype;
    int iters;
} options;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_mib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

#define TRY(call)                                                                      \
    do {                                                                               \
        wk_status s_ = (call);                                                         \
        if (s_ != WK_OK) {                                                             \
            fprintf(stderr, "attention_fused: %s: %s\n", #call, wk_last_error());      \
            return s_;                                                                 \
        }                                                                              \
    } while (0)

/* softmax(q k^T * scale) v through four ops; the (B, H, S, S) scores are materialised. */
static wk_status composed(const wk_tensor *q, const wk_tensor *k, const wk_tensor *v, double scale, wk_tensor **out)
{
    wk_tensor *kt = NULL, *s = NULL, *ss = NULL, *p = NULL;
    wk_status st = wk_transpose(k, 2, 3, &kt);
    if (st == WK_OK)
        st = wk_matmul(q, kt, &s);
    if (st == WK_OK)
        st = wk_affine(s, scale, 0.0, &ss);
    if (st == WK_OK)
        st = wk_softmax_last_dim(ss, &p);
    if (st == WK_OK)
        st = wk_matmul(p, v, out);
    wk_tensor_release(kt);
    wk_tensor_release(s);
    wk_tensor_release(ss);
    wk_tensor_release(p);
    return st;
}

static wk_status run(const options *o, wk_tensor *q, wk_tensor *k, wk_tensor *v, bool fused, wk_tensor **out)
{
    if (fused)
        return wk_attention(q, k, v, NULL, out, NULL);
    return composed(q, k, v, 1.0 / sqrt((double)o->d), out);
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.mode = "fused", .device = "cpu", .b = 1, .h = 8, .s = 2048, .d = 64, .dtype = WK_F32, .iters = 5};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--mode")) o->mode = v;
        else if (!strcmp(a, "--device")) o->device = v;
        else if (!strcmp(a, "--b")) o->b = atoll(v);
        else if (!strcmp(a, "--h")) o->h = atoll(v);
        else if (!strcmp(a, "--s")) o->s = atoll(v);
        else if (!strcmp(a, "--d")) o->d = atoll(v);
        else if (!strcmp(a, "--iters")) o->iters = atoi(v);
        else if (!strcmp(a, "--dtype")) {
            if (wk_dtype_from_name(v, &o->dtype) != WK_OK) return 2;
        } else return 2;
    }
    return strcmp(o->mode, "fused") && strcmp(o->mode, "composed") ? 2 : 0;
}

/* The largest |a - b| over two outputs of the same shape. */
static double max_diff(const wk_tensor *a, const wk_tensor *b)
{
    wk_tensor *af = NULL, *bf = NULL;
    int64_t n = 1;
    for (int i = 0; i < wk_tensor_rank(a); i++)
        n *= wk_tensor_shape(a)[i];
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    double m = NAN;
    if (x && y && wk_cast(a, WK_F32, &af) == WK_OK && wk_cast(b, WK_F32, &bf) == WK_OK &&
        wk_tensor_to_host(af, x, sizeof(float) * (size_t)n) == WK_OK &&
        wk_tensor_to_host(bf, y, sizeof(float) * (size_t)n) == WK_OK) {
        m = 0;
        for (int64_t i = 0; i < n; i++)
            m = fabs((double)x[i] - y[i]) > m || isnan(x[i] - y[i]) ? fabs((double)x[i] - y[i]) : m;
    }
    free(x);
    free(y);
    wk_tensor_release(af);
    wk_tensor_release(bf);
    return m;
}

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o)) {
        fprintf(stderr, "usage: attention_fused --mode fused|composed [--device D] [--b N] [--h N] [--s N] [--d N] "
                        "[--dtype f32|f16|bf16] [--iters N]\n");
        return 2;
    }
    bool fused = !strcmp(o.mode, "fused");
    wk_device *dev = NULL;
    wk_tensor *q = NULL, *k = NULL, *v = NULL, *out = NULL, *other = NULL;
    const int64_t shape[4] = {o.b, o.h, o.s, o.d};
    if (wk_device_get(o.device, &dev) != WK_OK || wk_rand_normal(dev, o.dtype, 4, shape, 1, 0, 1, &q) != WK_OK ||
        wk_rand_normal(dev, o.dtype, 4, shape, 2, 0, 1, &k) != WK_OK ||
        wk_rand_normal(dev, o.dtype, 4, shape, 3, 0, 1, &v) != WK_OK) {
        fprintf(stderr, "attention_fused: setup: %s\n", wk_last_error());
        return 1;
    }
    double base = peak_mib(), best = INFINITY;
    for (int it = 0; it <= o.iters; it++) { /* the first call warms up */
        wk_tensor_release(out);
        out = NULL;
        double t0 = now_s();
        if (run(&o, q, k, v, fused, &out) != WK_OK || wk_device_sync(dev) != WK_OK) {
            fprintf(stderr, "attention_fused: %s: %s\n", o.mode, wk_last_error());
            return 1;
        }
        double t = now_s() - t0;
        best = it > 0 && t < best ? t : best;
    }
    double peak = peak_mib() - base, flops = 4.0 * (double)(o.b * o.h) * (double)(o.s * o.s) * (double)o.d;
    double diff = run(&o, q, k, v, !fused, &other) == WK_OK ? max_diff(out, other) : NAN;
    printf("{\"mode\": \"%s\", \"device\": \"%s\", \"dtype\": \"%s\", \"b\": %lld, \"h\": %lld, \"s\": %lld, "
           "\"d\": %lld, \"ms\": %.3f, \"gflops\": %.1f, \"peak_mib_above_inputs\": %.1f, \"out_max_abs_diff\": %.3g}\n",
           o.mode, o.device, wk_dtype_name(o.dtype), (long long)o.b, (long long)o.h, (long long)o.s, (long long)o.d,
           best * 1e3, flops / best * 1e-9, peak, diff);
    wk_tensor_release(q);
    wk_tensor_release(k);
    wk_tensor_release(v);
    wk_tensor_release(out);
    wk_tensor_release(other);
    return 0;
}

/* test_alloc_faults.c: the allocation-failure sweep (WICK_FAULT_INJECTION builds, src/core/fault.h). For each
 * kind (host allocations, then device allocations: every backend's alloc slot) and N = 1, 2, ... it fails the
 * Nth allocation once and runs workload(), which touches every op family, every view, the three file formats
 * and DLPack. Each call either succeeds or returns WK_ERR_OUT_OF_MEMORY with a message (anything else fails);
 * after the failure its out-parameter is untouched, the watched inputs' bytes are unchanged, no half-written
 * file is left, and the same call retried (the hook disarms itself after one failure) succeeds. Every run's
 * results must hash to the clean run's (a swallowed failure that changes a result shows). The sweep stops at
 * the first N with no injected failure. One process: LeakSanitizer at exit sees a leak from any N. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fault.h"
#include "wick.h"
#include "wick_dlpack.h"

static wk_fi_kind kind;
static int bad;              /* problems in the current run */
static int injected;         /* calls that returned the injected failure in the current run */
static uint64_t hash;        /* FNV-1a over every result's bytes */
static const char *absent;   /* a file a failed save must not leave behind */

/* Inputs whose bytes a failed call must leave alone. */
static struct { const wk_tensor *t; unsigned char *b; size_t n; } snaps[16];
static int nsnaps;
/* Every tensor the run made, released at its end (or when it stops early). */
static wk_tensor *pool[256];
static int npool;
static wk_safetensors *st;
static wk_gguf *gg;
static wk_gguf_writer *gw;

static size_t tbytes(const wk_tensor *t) { return (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t)); }

static int failed_call(wk_status s, const char *expr, int line, int out_written)
{
    if (s != WK_ERR_OUT_OF_MEMORY || !wk_fi_fired(kind) || injected > 0 || !wk_last_error()[0]) {
        printf("FAIL line %d: %s -> %s (%s), injected=%d\n", line, expr, wk_status_string(s), wk_last_error(),
               (int)wk_fi_fired(kind));
        bad++;
        return 0;
    }
    injected++;
    if (out_written)
        printf("FAIL line %d: %s wrote its out-parameter on failure\n", line, expr), bad++;
    for (int i = 0; i < nsnaps; i++) {
        unsigned char *now = malloc(snaps[i].n + 1);
        if (wk_tensor_to_host(snaps[i].t, now, snaps[i].n) != WK_OK || memcmp(now, snaps[i].b, snaps[i].n) != 0)
            printf("FAIL line %d: %s changed input %d on failure\n", line, expr, i), bad++;
        free(now);
    }
    if (absent && access(absent, F_OK) == 0)
        printf("FAIL line %d: %s left %s behind on failure\n", line, expr, absent), bad++;
    return 1;
}

/* Runs expr; on failure checks it, then retries once (must succeed). out (a pointer, may be a dummy) is set
 * to NULL first and must still be NULL after a failure. */
#define CALLO(out, expr)                                                                                    \
    do {                                                                                                    \
        (out) = NULL;                                                                                       \
        wk_status s_ = (expr);                                                                              \
        if (s_ != WK_OK) {                                                                                  \
            if (!failed_call(s_, #expr, __LINE__, (out) != NULL))                                          \
                return -1;                                                                                  \
            s_ = (expr);                                                                                    \
            if (s_ != WK_OK) {                                                                              \
                printf("FAIL line %d: retry of %s -> %s (%s)\n", __LINE__, #expr, wk_status_string(s_),     \
                       wk_last_error());                                                                    \
                bad++;                                                                                      \
                return -1;                                                                                  \
            }                                                                                               \
        }                                                                                                   \
    } while (0)
#define CALL(expr)                                                                                          \
    do {                                                                                                    \
        void *none_ = NULL;                                                                                 \
        CALLO(none_, expr);                                                                                 \
    } while (0)
/* A tensor result: kept in the pool and hashed. */
#define T(out, expr)                                                                                        \
    do {                                                                                                    \
        CALLO(out, expr);                                                                                   \
        pool[npool++] = (out);                                                                              \
        if (mix(out) != 0)                                                                                  \
            return -1;                                                                                      \
    } while (0)

static int mix(const wk_tensor *t)
{
    size_t n = tbytes(t);
    unsigned char *b = calloc(1, n + 1);
    CALL(wk_tensor_to_host(t, b, n));
    for (size_t i = 0; i < n; i++)
        hash = (hash ^ b[i]) * 1099511628211ull;
    for (int i = 0; i < wk_tensor_rank(t); i++)
        hash = (hash ^ (uint64_t)wk_tensor_shape(t)[i]) * 1099511628211ull;
    free(b);
    return 0;
}

/* Watches t: its bytes now are what a failed call must leave. */
/* The workload's device: WICK_FAULT_DEVICE ("cuda:0", ...), or the CPU. */
static const char *device_name(void)
{
    const char *d = getenv("WICK_FAULT_DEVICE");
    return d && *d ? d : "cpu";
}

static int watch(const wk_tensor *t)
{
    int i = 0;
    while (i < nsnaps && snaps[i].t != t)
        i++;
    if (i == nsnaps)
        snaps[nsnaps++].t = t;
    free(snaps[i].b);
    snaps[i].n = tbytes(t);
    snaps[i].b = calloc(1, snaps[i].n + 1);
    CALL(wk_tensor_to_host(t, snaps[i].b, snaps[i].n));
    return 0;
}

static void cleanup(void)
{
    for (int i = 0; i < npool; i++)
        wk_tensor_release(pool[i]);
    for (int i = 0; i < nsnaps; i++)
        free(snaps[i].b), snaps[i].b = NULL, snaps[i].t = NULL;
    npool = nsnaps = 0;
    wk_safetensors_close(st);
    wk_gguf_close(gg);
    wk_gguf_writer_free(gw);
    st = NULL, gg = NULL, gw = NULL;
    absent = NULL;
}

static const int64_t S234[3] = {2, 3, 4};
static wk_tensor *A, *B; /* (2, 3, 4) f32 inputs, watched */

static int views(void)
{
    wk_tensor *v, *at, *row;
    int64_t s64[2] = {6, 4}, s24 = 24, s34[2] = {3, 4}, st34[2] = {4, 1}, s4 = 4;
    int perm[3] = {2, 0, 1};
    T(v, wk_reshape(A, 2, s64, &v));
    T(at, wk_transpose(A, 0, 2, &at));
    T(v, wk_reshape(at, 1, &s24, &v)); /* a copy */
    T(v, wk_permute(A, perm, &v));
    T(v, wk_narrow(A, 1, 1, 2, &v));
    T(row, wk_narrow(A, 0, 0, 1, &row));
    T(v, wk_squeeze(row, 0, &v));
    T(v, wk_broadcast_to(row, 3, S234, &v));
    T(v, wk_unsqueeze(A, 0, &v));
    T(v, wk_flatten(A, 0, 1, &v));
    T(v, wk_flatten(at, 0, 1, &v)); /* a copy */
    T(v, wk_as_strided(A, 2, s34, st34, 4, &v));
    T(v, wk_contiguous(at, &v));
    T(v, wk_to_device(A, wk_tensor_device(A), &v));
    T(v, wk_cast(A, WK_F16, &v));
    T(v, wk_cast(at, WK_I32, &v));
    T(v, wk_zeros(wk_tensor_device(A), WK_F32, 1, &s4, &v));
    T(v, wk_ones(wk_tensor_device(A), WK_I64, 2, s34, &v));
    T(v, wk_full(wk_tensor_device(A), WK_BF16, 2, s34, 1.5, &v));
    T(v, wk_arange(wk_tensor_device(A), WK_F64, 0, 10, 0.5, &v));
    T(v, wk_rand_normal(wk_tensor_device(A), WK_F32, 2, s34, 3, 0, 1, &v));
    const wk_tensor *parts[3] = {A, B, A};
    T(v, wk_cat(parts, 3, 1, &v));
    const wk_tensor *tparts[2] = {at, at};
    T(v, wk_cat(tparts, 2, 0, &v));
    return 0;
}

static int elementwise(void)
{
    wk_tensor *v, *at, *m, *c;
    T(at, wk_transpose(A, 1, 2, &at));
    T(v, wk_unary(WK_UNARY_EXP, A, &v));
    T(v, wk_unary(WK_UNARY_GELU, at, &v));
    T(v, wk_affine(A, 2, 1, &v));
    T(m, wk_unary(WK_UNARY_ABS, A, &m));
    T(v, wk_powf(m, 0.5, &v));
    T(v, wk_elu(A, 1.0, &v));
    T(v, wk_clamp(at, -1, 1, &v));
    T(v, wk_binary(WK_BINARY_ADD, A, B, &v));
    T(m, wk_narrow(B, 1, 0, 1, &m));
    T(v, wk_binary(WK_BINARY_MUL, A, m, &v)); /* broadcast */
    T(v, wk_binary(WK_BINARY_DIV, at, at, &v));
    T(c, wk_compare(WK_CMP_LT, A, B, &c));
    T(v, wk_where(c, A, B, &v));
    int dims[2] = {0, 2};
    T(v, wk_reduce(WK_REDUCE_SUM, A, dims, 1, false, &v));
    T(v, wk_reduce(WK_REDUCE_MEAN, A, NULL, 0, false, &v));
    T(v, wk_reduce(WK_REDUCE_MAX, at, dims, 2, true, &v));
    T(v, wk_reduce(WK_REDUCE_MIN, at, dims + 1, 1, false, &v));
    T(v, wk_argmin(A, 1, false, &v));
    T(v, wk_argmax(at, -1, true, &v));
    T(v, wk_softmax_last_dim(A, &v));
    T(v, wk_log_softmax_last_dim(at, &v));
    T(v, wk_argsort(A, false, &v));
    wk_tensor *vals = NULL, *ids;
    T(ids, wk_sort(at, true, &vals, &ids));
    pool[npool++] = vals;
    return 0;
}

/* wk_add_rms_norm of A and B with its first out-parameter watched too: a failure must leave sum NULL. */
static wk_status add_rms(const wk_tensor *w, wk_tensor **sum, wk_tensor **out)
{
    *sum = NULL;
    wk_status s = wk_add_rms_norm(A, B, w, 1e-6, sum, out);
    if (s != WK_OK && *sum)
        printf("FAIL: add_rms_norm wrote sum on failure\n"), bad++;
    return s;
}

static int linalg(void)
{
    wk_device *dev = wk_tensor_device(A);
    wk_tensor *w, *b, *v, *x, *k, *h, *at;
    int64_t s4 = 4, s45[2] = {4, 5}, s128[3] = {1, 2, 8}, s328[3] = {3, 2, 3}, s1255[4] = {1, 2, 5, 5};
    int64_t s3233[4] = {3, 2, 3, 3}, s2333[4] = {2, 3, 3, 3}, s3 = 3;
    T(w, wk_rand_uniform(dev, WK_F32, 1, &s4, 1, 0.5, 1.5, &w));
    T(b, wk_rand_uniform(dev, WK_F32, 1, &s4, 2, -1, 1, &b));
    T(v, wk_rms_norm(A, w, 1e-6, &v));
    wk_tensor *sum = NULL;
    T(v, add_rms(w, &sum, &v));
    if (mix(pool[npool++] = sum) != 0)
        return -1;
    T(v, wk_layer_norm(A, w, b, 1e-5, &v));
    T(v, wk_layer_norm(A, NULL, NULL, 1e-5, &v));
    T(w, wk_rand_uniform(dev, WK_F32, 2, s45, 3, -1, 1, &w));
    T(v, wk_matmul(A, w, &v));
    T(at, wk_transpose(A, 1, 2, &at));
    T(v, wk_matmul_ex(A, at, WK_MATMUL_ALLOW_TF32, &v));
    T(h, wk_cast(A, WK_F16, &h));
    T(k, wk_cast(w, WK_F16, &k));
    T(v, wk_matmul(h, k, &v));
    wk_conv_params p = wk_conv_params_default();
    T(x, wk_rand_uniform(dev, WK_F32, 3, s128, 4, -1, 1, &x));
    T(k, wk_rand_uniform(dev, WK_F32, 3, s328, 5, -1, 1, &k));
    T(b, wk_rand_uniform(dev, WK_F32, 1, &s3, 6, -1, 1, &b));
    T(v, wk_conv1d(x, k, b, &p, &v));
    T(w, wk_transpose(k, 0, 1, &w)); /* (2, 3, 3): C=2 in, O=3 out */
    T(v, wk_conv_transpose1d(x, w, NULL, &p, &v));
    T(x, wk_rand_uniform(dev, WK_F32, 4, s1255, 7, -1, 1, &x));
    T(k, wk_rand_uniform(dev, WK_F32, 4, s3233, 8, -1, 1, &k));
    T(v, wk_conv2d(x, k, b, &p, &v));
    p.stride[0] = p.stride[1] = 2;
    p.padding[0] = p.padding[1] = 1;
    T(v, wk_conv2d(x, k, NULL, &p, &v));
    T(k, wk_rand_uniform(dev, WK_F32, 4, s2333, 9, -1, 1, &k));
    T(v, wk_conv_transpose2d(x, k, b, &p, &v));
    wk_pool_params pp = {{2, 2}, {2, 2}, {1, 1}, true, false};
    T(v, wk_max_pool2d(x, &pp, &v));
    T(v, wk_avg_pool2d(x, &pp, &v));
    T(v, wk_upsample_nearest2d(x, 7, 9, &v));
    T(v, wk_upsample_bilinear2d(x, 8, 3, false, 0, 0, &v));
    T(v, wk_upsample_bilinear2d(x, 8, 3, true, 0, 0, &v));
    T(x, wk_rand_uniform(dev, WK_F32, 3, s128, 10, -1, 1, &x));
    T(v, wk_upsample_nearest1d(x, 13, &v));
    return 0;
}

static int indexing(void)
{
    wk_device *dev = wk_tensor_device(A);
    wk_tensor *ids, *ids3, *src, *x, *v, *cs, *sn, *x4;
    int64_t two = 2, s2 = 2, s232[3] = {2, 3, 2}, s1324[4] = {1, 3, 2, 4}, s22[2] = {2, 2};
    int64_t hid[2] = {2, 0}, hid3[12] = {3, 0, 1, 1, 2, 0, 0, 3, 3, 2, 1, 0};
    T(ids, wk_tensor_from_host(dev, WK_I64, 1, &two, hid, &ids));
    T(ids3, wk_tensor_from_host(dev, WK_I64, 3, s232, hid3, &ids3));
    T(v, wk_index_select(A, 1, ids, &v));
    T(v, wk_gather(A, 2, ids3, &v));
    T(src, wk_rand_uniform(dev, WK_F32, 3, s232, 11, -1, 1, &src));
    T(v, wk_scatter(A, 2, ids3, src, &v));
    T(v, wk_scatter_add(A, 2, ids3, src, &v));
    T(x, wk_contiguous(B, &x)); /* the in-place target */
    if (watch(x) != 0)
        return -1;
    CALL(wk_scatter_inplace(x, 2, ids3, src));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    CALL(wk_scatter_add_inplace(x, 2, ids3, src));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    wk_tensor *s3;
    int64_t s322[3] = {2, 2, 4};
    T(s3, wk_rand_uniform(dev, WK_F32, 3, s322, 12, -1, 1, &s3));
    T(v, wk_index_add(A, 1, ids, s3, &v));
    CALL(wk_index_add_inplace(x, 1, ids, s3));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    CALL(wk_fill(x, 0.5));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    T(v, wk_transpose(A, 0, 0, &v));
    CALL(wk_copy_into(x, v));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    T(v, wk_narrow(B, 1, 0, 2, &v));
    CALL(wk_slice_set(x, v, 1, 1));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    CALL(wk_copy2d(B, x, 2, 3, 4, 5, 1, 2));
    if (watch(x) != 0 || mix(x) != 0)
        return -1;
    T(x4, wk_rand_uniform(dev, WK_F32, 4, s1324, 13, -1, 1, &x4));
    T(cs, wk_rand_uniform(dev, WK_F32, 2, s22, 14, -1, 1, &cs));
    T(sn, wk_rand_uniform(dev, WK_F32, 2, s22, 15, -1, 1, &sn));
    T(v, wk_rope(x4, cs, sn, &v));
    T(v, wk_rope_i(x4, cs, sn, &v));
    T(cs, wk_rand_uniform(dev, WK_F32, 2, (int64_t[2]){3, 2}, 16, -1, 1, &cs));
    T(sn, wk_rand_uniform(dev, WK_F32, 2, (int64_t[2]){3, 2}, 17, -1, 1, &sn));
    T(v, wk_rope_thd(x4, cs, sn, &v));
    (void)s2;
    return 0;
}

#define ST_PATH "faults.safetensors"
#define GG_PATH "faults.gguf"
#define NPY_PATH "faults.npy"

static int files(void)
{
    wk_device *dev = wk_tensor_device(A);
    wk_tensor *v, *h, *at, *outs[2] = {NULL, NULL};
    const char *names[3] = {"a", "b", "h"}, *keys[1] = {"k"}, *vals[1] = {"value"}, *got;
    T(h, wk_cast(A, WK_F16, &h));
    T(at, wk_transpose(A, 0, 2, &at));
    const wk_tensor *ts[3] = {A, at, h};
    unlink(ST_PATH);
    absent = ST_PATH;
    CALL(wk_safetensors_save(ST_PATH, 3, names, ts, 1, keys, vals));
    absent = NULL;
    CALLO(st, wk_safetensors_open(ST_PATH, &st));
    CALLO(got, wk_safetensors_metadata_find(st, "k", &got));
    if (strcmp(got, "value") != 0)
        return printf("FAIL: metadata %s\n", got), bad++, -1;
    T(v, wk_safetensors_load(st, "a", dev, &v));
    T(v, wk_safetensors_load_as(st, "h", dev, WK_F32, &v));
    CALL(wk_safetensors_load_many(st, names, 2, dev, outs));
    for (int i = 0; i < 2; i++)
        if (mix(pool[npool++] = outs[i]) != 0)
            return -1;
    wk_safetensors_close(st);
    st = NULL;

    CALLO(gw, wk_gguf_writer_new(&gw));
    CALL(wk_gguf_writer_set_string(gw, "general.name", "faults", 6));
    CALL(wk_gguf_writer_set_uint(gw, "general.alignment", WK_GGUF_UINT32, 64));
    CALL(wk_gguf_writer_set_float(gw, "x.eps", WK_GGUF_FLOAT32, 1e-5));
    int32_t arr[3] = {1, 2, 3};
    CALL(wk_gguf_writer_set_array(gw, "x.arr", WK_GGUF_INT32, 3, arr, NULL));
    const char *strs[2] = {"ab", "cde"};
    uint64_t lens[2] = {2, 3};
    CALL(wk_gguf_writer_set_array(gw, "x.strs", WK_GGUF_STRING, 2, strs, lens));
    CALL(wk_gguf_writer_add_tensor(gw, "a", A));
    CALL(wk_gguf_writer_add_tensor(gw, "at", at));
    CALL(wk_gguf_writer_add_tensor(gw, "h", h));
    unlink(GG_PATH);
    absent = GG_PATH;
    CALL(wk_gguf_writer_save(gw, GG_PATH));
    absent = NULL;
    wk_gguf_writer_free(gw);
    gw = NULL;
    CALLO(gg, wk_gguf_open(GG_PATH, &gg));
    const wk_gguf_value *gv;
    CALLO(gv, wk_gguf_metadata_find(gg, "x.strs", &gv));
    T(v, wk_gguf_load(gg, "at", dev, &v));
    T(v, wk_gguf_load_as(gg, "h", dev, WK_F64, &v));
    T(v, wk_gguf_load_raw(gg, "a", dev, &v));
    wk_gguf_close(gg);
    gg = NULL;

    unlink(NPY_PATH);
    absent = NPY_PATH;
    CALL(wk_npy_save(NPY_PATH, at));
    absent = NULL;
    T(v, wk_npy_load(NPY_PATH, dev, &v));
    T(v, wk_npy_load_as(NPY_PATH, dev, WK_BF16, &v));
    return 0;
}

static int wrap_deleted;
static void wrap_deleter(void *ctx)
{
    struct DLManagedTensorVersioned *raw = ctx;
    wrap_deleted++;
    raw->deleter(raw);
}

static int exchange(void)
{
    wk_device *dev = wk_tensor_device(A);
    wk_tensor *v, *w, *at;
    struct DLManagedTensorVersioned *m;
    struct DLManagedTensor *l;
    T(at, wk_transpose(A, 0, 1, &at));
    CALLO(m, wk_to_dlpack(at, -1, &m));
    CALLO(v, wk_from_dlpack(m, 0, &v)); /* on failure the caller still owns m: the retry takes it */
    pool[npool++] = v;
    if (mix(v) != 0)
        return -1;
    CALLO(l, wk_to_dlpack_legacy(A, -1, &l));
    CALLO(v, wk_from_dlpack_legacy(l, 0, &v));
    pool[npool++] = v;
    if (mix(v) != 0)
        return -1;
    /* Wrapped memory on the workload's device: A's own (through a DLPack export, which keeps it alive). */
    struct DLManagedTensorVersioned *raw;
    CALLO(raw, wk_to_dlpack(A, -1, &raw));
    float *buf = (float *)((char *)raw->dl_tensor.data + raw->dl_tensor.byte_offset);
    int64_t s34[2] = {3, 4}, st[2] = {1, 3};
    wrap_deleted = 0;
    /* A failed wrap leaves the memory the caller's (the deleter does not run), so the retry may pass raw again. */
    CALLO(w, wk_tensor_wrap(dev, WK_F32, 2, s34, st, buf, wrap_deleter, raw, &w));
    if (wrap_deleted != 0)
        return printf("FAIL: wrap's deleter ran on a failed wrap\n"), bad++, -1;
    pool[npool++] = w;
    T(v, wk_unary(WK_UNARY_NEG, w, &v));
    T(v, wk_narrow(w, 0, 1, 2, &v));
    return mix(w);
}

static int workload(void)
{
    wk_device *dev;
    float ha[24], hb[24];
    for (int i = 0; i < 24; i++)
        ha[i] = (float)((i * 7) % 11) - 5.0f + 0.25f * (float)i, hb[i] = 0.5f * (float)(i % 5) - 1.0f;
    CALLO(dev, wk_device_get(device_name(), &dev));
    T(A, wk_tensor_from_host(dev, WK_F32, 3, S234, ha, &A));
    T(B, wk_tensor_from_host(dev, WK_F32, 3, S234, hb, &B));
    if (watch(A) != 0 || watch(B) != 0)
        return -1;
    if (views() != 0 || elementwise() != 0 || linalg() != 0 || indexing() != 0 || files() != 0 || exchange() != 0)
        return -1;
    return 0;
}

/* One run: 0 when every call behaved. */
static int run_once(uint64_t *h)
{
    bad = injected = 0;
    hash = 1469598103934665603ull;
    int r = workload();
    cleanup();
    *h = hash;
    return r != 0 || bad ? -1 : 0;
}

int main(void)
{
    uint64_t want = 0, got = 0;
    wk_fi_set(WK_FI_HOST, 0);
    wk_fi_set(WK_FI_DEVICE, 0);
    wk_device *probe = NULL;
    if (wk_device_get(device_name(), &probe) != WK_OK) {
        printf("SKIP: device %s: %s\n", device_name(), wk_last_error());
        return strcmp(device_name(), "cpu") == 0 ? 1 : 77;
    }
    wk_fi_set(WK_FI_HOST, 0);
    printf("device %s\n", device_name());
    if (run_once(&want) != 0) {
        printf("FAIL: the workload fails with no injected failure\n0 passed, 1 failed\n");
        return 1;
    }
    long host_allocs = wk_fi_count(WK_FI_HOST), dev_allocs = wk_fi_count(WK_FI_DEVICE);
    int passed = 0, failed = 0, absorbed_runs = 0;
    long covered[2] = {0, 0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* WICK_FAULT_ONLY=host:N or device:N runs that one case (to debug it; the files it wrote stay). */
    const char *only = getenv("WICK_FAULT_ONLY");
    long only_n = only ? strtol(strchr(only, ':') ? strchr(only, ':') + 1 : only, NULL, 10) : 0;
    for (int k = 0; k < 2; k++) {
        kind = (wk_fi_kind)k;
        if (only && strncmp(only, k ? "device" : "host", k ? 6 : 4) != 0)
            continue;
        for (long n = only ? only_n : 1;; n++) {
            wk_fi_set(kind, n);
            int r = run_once(&got);
            bool fired = wk_fi_fired(kind), absorbed = wk_fi_absorbed();
            wk_fi_set(kind, 0);
            absorbed_runs += fired && absorbed && injected == 0;
            if (r == 0 && got != want)
                printf("FAIL %s N=%ld: results differ from the clean run\n", k ? "device" : "host", n), r = -1;
            if (r == 0 && fired && injected == 0 && !absorbed)
                printf("FAIL %s N=%ld: a failed allocation was swallowed\n", k ? "device" : "host", n), r = -1;
            r == 0 ? passed++ : failed++;
            if (r != 0)
                printf("  (%s N=%ld)\n", k ? "device" : "host", n);
            if (!fired || only)
                break;
            covered[k] = n;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("clean run: %ld host and %ld device allocations\n", host_allocs, dev_allocs);
    printf("swept host N=1..%ld, device N=1..%ld in %.1f s\n", covered[0], covered[1], secs);
    printf("%d of them handled by a designed fallback (the GPU's cache released and the allocation retried, a\n"
           "smaller workspace, another algorithm), the results unchanged\n", absorbed_runs);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0 || (!only && (covered[0] == 0 || covered[1] == 0));
}

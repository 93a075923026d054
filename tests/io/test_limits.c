/* test_limits.c: wick's size limits at their edges, on the CPU and on gpu:0 where present: rank WK_MAX_RANK
 * works and WK_MAX_RANK + 1 is WK_ERR_SHAPE for every entry point that takes a shape; shapes whose
 * numel * element size passes 2^63 - 1 bytes are WK_ERR_SHAPE before any allocation, views included (empty ones
 * too, whatever the order of their sizes); as_strided spans past int64 or the storage are refused; indices near
 * INT64_MIN / INT64_MAX / UINT32_MAX / INT32_MIN are WK_ERR_INDEX_OUT_OF_RANGE and touch nothing (ASan watches
 * the CPU); arange, conv and pool parameter ranges; and, on a GPU with the memory, tensors with a dim over
 * INT32_MAX and over UINT32_MAX elements through fill, copy, cast, binary, unary, reductions and index_select
 * (printed SKIPPED, never counted as passed, without the GPU or its memory). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int skipped;

#define EXPECT(expr, want, what)                                                                           \
    do {                                                                                                   \
        wk_status got_ = (expr);                                                                           \
        CHECK(got_ == (want), "%s: %s, want %s", what, wk_status_string(got_), wk_status_string(want));    \
    } while (0)

static bool is_gpu(wk_device *dev) { return strcmp(wk_device_name(dev), "cpu") != 0; }

/* ---------------------------------------------------------------- rank */

static void test_rank(wk_device *dev)
{
    int64_t s8[WK_MAX_RANK + 1], s9[WK_MAX_RANK + 1];
    for (int i = 0; i <= WK_MAX_RANK; i++)
        s8[i] = s9[i] = i == 0 ? 2 : 1;
    double host[2] = {1, 2};
    wk_tensor *t = NULL, *o = NULL;
    EXPECT(wk_tensor_empty(dev, WK_F64, WK_MAX_RANK + 1, s9, &o), WK_ERR_SHAPE, "empty rank 9");
    EXPECT(wk_tensor_empty(dev, WK_F64, -1, s9, &o), WK_ERR_SHAPE, "empty rank -1");
    EXPECT(wk_zeros(dev, WK_F64, WK_MAX_RANK + 1, s9, &o), WK_ERR_SHAPE, "zeros rank 9");
    EXPECT(wk_full(dev, WK_U8, WK_MAX_RANK + 1, s9, 1, &o), WK_ERR_SHAPE, "full rank 9");
    EXPECT(wk_rand_uniform(dev, WK_F32, WK_MAX_RANK + 1, s9, 1, 0, 1, &o), WK_ERR_SHAPE, "rand rank 9");
    EXPECT(wk_tensor_from_host(dev, WK_F64, WK_MAX_RANK + 1, s9, host, &o), WK_ERR_SHAPE, "from_host rank 9");
    EXPECT(wk_tensor_wrap(dev, WK_F64, WK_MAX_RANK + 1, s9, NULL, host, NULL, NULL, &o), WK_ERR_SHAPE, "wrap rank 9");
    CHECK(o == NULL, "rank 9 wrote its out-parameter");

    EXPECT(wk_tensor_from_host(dev, WK_F64, WK_MAX_RANK, s8, host, &t), WK_OK, "from_host rank 8");
    if (!t)
        return;
    EXPECT(wk_reshape(t, WK_MAX_RANK + 1, s9, &o), WK_ERR_SHAPE, "reshape to rank 9");
    EXPECT(wk_unsqueeze(t, 0, &o), WK_ERR_SHAPE, "unsqueeze of rank 8");
    EXPECT(wk_broadcast_to(t, WK_MAX_RANK + 1, s9, &o), WK_ERR_SHAPE, "broadcast_to rank 9");
    int64_t st9[WK_MAX_RANK + 1] = {0};
    EXPECT(wk_as_strided(t, WK_MAX_RANK + 1, s9, st9, 0, &o), WK_ERR_SHAPE, "as_strided rank 9");
    int perm_bad[WK_MAX_RANK] = {0, 1, 2, 3, 4, 5, 6, WK_MAX_RANK}; /* dim 8 of a rank-8 tensor */
    EXPECT(wk_permute(t, perm_bad, &o), WK_ERR_SHAPE, "permute naming dim 8");
    int dims9[WK_MAX_RANK + 1] = {0, 1, 2, 3, 4, 5, 6, 7, 0};
    EXPECT(wk_reduce(WK_REDUCE_SUM, t, dims9, WK_MAX_RANK + 1, false, &o), WK_ERR_SHAPE, "reduce over 9 dims");
    CHECK(o == NULL, "a refused view wrote its out-parameter");

    /* rank 8 works through views and an op */
    int perm[WK_MAX_RANK] = {7, 6, 5, 4, 3, 2, 1, 0};
    EXPECT(wk_permute(t, perm, &o), WK_OK, "permute rank 8");
    wk_tensor *s = NULL;
    if (o) {
        EXPECT(wk_reduce(WK_REDUCE_SUM, o, NULL, 0, false, &s), WK_OK, "sum of rank 8");
        double v = 0;
        if (s)
            EXPECT(wk_tensor_to_host(s, &v, sizeof v), WK_OK, "sum to host");
        CHECK(v == 3, "sum of rank 8 = %g, want 3", v);
        wk_tensor_release(s);
        wk_tensor_release(o);
        o = NULL;
    }
    int64_t b8[WK_MAX_RANK] = {3, 1, 1, 1, 1, 1, 1, 1};
    EXPECT(wk_broadcast_to(t, WK_MAX_RANK, b8, &o), WK_ERR_SHAPE, "broadcast_to rank 8 changing a size-2 dim");
    b8[0] = 2;
    b8[WK_MAX_RANK - 1] = 4;
    EXPECT(wk_broadcast_to(t, WK_MAX_RANK, b8, &o), WK_OK, "broadcast_to rank 8");
    wk_tensor_release(o);
    wk_tensor_release(t);
}

/* ---------------------------------------------------------------- sizes */

static void test_sizes(wk_device *dev)
{
    static const wk_dtype dts[] = {WK_U8, WK_F16, WK_F32, WK_F64};
    wk_tensor *o = NULL;
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        int64_t es = (int64_t)wk_dtype_size(dts[k]), max = INT64_MAX / es;
        char what[96];
        /* one past the largest numel for this element size: refused before any allocation */
        int64_t over[2] = {2, max / 2 + 1};
        snprintf(what, sizeof what, "%s [2, %lld]", wk_dtype_name(dts[k]), (long long)over[1]);
        EXPECT(wk_tensor_empty(dev, dts[k], 2, over, &o), WK_ERR_SHAPE, what);
        EXPECT(wk_zeros(dev, dts[k], 2, over, &o), WK_ERR_SHAPE, what);
        int64_t sq[2] = {(int64_t)1 << 32, (int64_t)1 << 32}; /* numel 2^64: wraps to 0 in uint64 */
        EXPECT(wk_tensor_empty(dev, dts[k], 2, sq, &o), WK_ERR_SHAPE, "[2^32, 2^32]");
        int64_t mm[3] = {INT64_MAX, INT64_MAX, 2};
        EXPECT(wk_tensor_empty(dev, dts[k], 3, mm, &o), WK_ERR_SHAPE, "[INT64_MAX, INT64_MAX, 2]");
        /* empty shapes: the limit applies to the product of the other sizes, in any order */
        int64_t e1[2] = {0, max}, e2[2] = {max, 0};
        EXPECT(wk_tensor_empty(dev, dts[k], 2, e1, &o), WK_OK, "[0, max] (empty)");
        if (o) {
            CHECK(wk_tensor_numel(o) == 0, "[0, max] numel %lld", (long long)wk_tensor_numel(o));
            EXPECT(wk_tensor_to_host(o, NULL, 0), WK_OK, "empty to host");
            wk_tensor_release(o);
            o = NULL;
        }
        EXPECT(wk_zeros(dev, dts[k], 2, e2, &o), WK_OK, "[max, 0] (empty)");
        wk_tensor_release(o);
        o = NULL;
        int64_t e3[3] = {0, max, 2}, e4[3] = {max, 2, 0};
        EXPECT(wk_tensor_empty(dev, dts[k], 3, e3, &o), WK_ERR_SHAPE, "[0, max, 2]");
        EXPECT(wk_tensor_empty(dev, dts[k], 3, e4, &o), WK_ERR_SHAPE, "[max, 2, 0]");
    }
    int64_t neg[2] = {2, -1}, minus[1] = {INT64_MIN};
    EXPECT(wk_tensor_empty(dev, WK_F32, 2, neg, &o), WK_ERR_SHAPE, "negative size");
    EXPECT(wk_ones(dev, WK_F32, 1, minus, &o), WK_ERR_SHAPE, "size INT64_MIN");
    EXPECT(wk_tensor_empty(dev, WK_F32, 1, NULL, &o), WK_ERR_INVALID_ARGUMENT, "NULL shape of rank 1");
    /* at the limit but not empty: the allocation itself fails, cleanly */
    int64_t at[1] = {INT64_MAX / 8};
    EXPECT(wk_tensor_empty(dev, WK_F64, 1, at, &o), WK_ERR_OUT_OF_MEMORY, "2^63-8 bytes");
    CHECK(o == NULL, "a refused shape wrote its out-parameter");
    /* wrapping caller memory: the strided span is bounded too */
    double buf[4] = {0};
    int64_t ws[2] = {2, 2}, wst[2] = {INT64_MAX / 4, 1};
    if (!is_gpu(dev))
        EXPECT(wk_tensor_wrap(dev, WK_F64, 2, ws, wst, buf, NULL, NULL, &o), WK_ERR_SHAPE, "wrap span over 2^63");
}

/* ---------------------------------------------------------------- views */

static void test_views(wk_device *dev)
{
    wk_tensor *sc = NULL, *e = NULL, *o = NULL, *v1 = NULL, *v2 = NULL;
    double one = 1;
    EXPECT(wk_tensor_from_host(dev, WK_F64, 0, NULL, &one, &sc), WK_OK, "f64 scalar");
    if (!sc)
        return;
    /* broadcast: a view, but its numel * 8 must fit in int64 (2^61 * 8 = 2^64 would wrap tensor_to_host's size) */
    int64_t big[1] = {(int64_t)1 << 61}, lim[1] = {INT64_MAX / 8}, edge[1] = {INT64_MAX / 8 + 1};
    EXPECT(wk_broadcast_to(sc, 1, big, &o), WK_ERR_SHAPE, "broadcast f64 to 2^61");
    EXPECT(wk_broadcast_to(sc, 1, edge, &o), WK_ERR_SHAPE, "broadcast f64 to INT64_MAX/8 + 1");
    EXPECT(wk_broadcast_to(sc, 1, lim, &o), WK_OK, "broadcast f64 to INT64_MAX/8");
    if (o) {
        double d[2];
        EXPECT(wk_tensor_to_host(o, d, sizeof d), WK_ERR_INVALID_ARGUMENT, "to_host of 2^63-8 bytes into 16");
        EXPECT(wk_contiguous(o, &v1), WK_ERR_OUT_OF_MEMORY, "contiguous copy of 2^63-8 bytes");
        wk_tensor_release(o);
        o = NULL;
    }
    int64_t st0[1] = {0};
    EXPECT(wk_as_strided(sc, 1, big, st0, 0, &o), WK_ERR_SHAPE, "as_strided f64 numel 2^61 stride 0");
    /* as_strided spans */
    int64_t zeros4[1] = {4};
    EXPECT(wk_zeros(dev, WK_F64, 1, zeros4, &e), WK_OK, "zeros 4");
    if (e) {
        int64_t sh2[2] = {2, 2}, stov[2] = {INT64_MAX, 1}, sh3[1] = {3}, sthalf[1] = {INT64_MAX / 2 + 1};
        EXPECT(wk_as_strided(e, 2, sh2, stov, 0, &o), WK_ERR_SHAPE, "as_strided stride INT64_MAX");
        EXPECT(wk_as_strided(e, 1, sh3, sthalf, 0, &o), WK_ERR_SHAPE, "as_strided 2 * (INT64_MAX/2+1)");
        int64_t one1[1] = {1}, s1[1] = {1}, zero1[1] = {0};
        EXPECT(wk_as_strided(e, 1, one1, s1, INT64_MAX, &o), WK_ERR_SHAPE, "as_strided offset INT64_MAX");
        EXPECT(wk_as_strided(e, 1, one1, s1, 4, &o), WK_ERR_SHAPE, "as_strided offset at the end");
        EXPECT(wk_as_strided(e, 1, one1, s1, -1, &o), WK_ERR_SHAPE, "as_strided offset -1");
        EXPECT(wk_as_strided(e, 1, zero1, s1, INT64_MAX, &o), WK_ERR_SHAPE, "empty as_strided offset INT64_MAX");
        EXPECT(wk_as_strided(e, 1, zero1, s1, 4, &o), WK_OK, "empty as_strided at the end");
        wk_tensor_release(o);
        o = NULL;
        EXPECT(wk_as_strided(e, 1, one1, s1, 3, &o), WK_OK, "as_strided last element");
        wk_tensor_release(o);
        o = NULL;
        /* copy2d blocks whose last element lies past int64 or the storage */
        wk_tensor *d2 = NULL;
        if (wk_contiguous(e, &d2) == WK_OK) {
            EXPECT(wk_copy2d(e, d2, 2, 1, INT64_MAX, 1, 0, 0), WK_ERR_SHAPE, "copy2d src_ld INT64_MAX");
            EXPECT(wk_copy2d(e, d2, 1, 1, 1, 1, INT64_MAX, 0), WK_ERR_SHAPE, "copy2d src_offset INT64_MAX");
            EXPECT(wk_copy2d(e, d2, 1, INT64_MAX, 1, 1, 0, 0), WK_ERR_SHAPE, "copy2d cols INT64_MAX");
            EXPECT(wk_copy2d(e, d2, INT64_MAX, 1, 0, 1, 0, 0), WK_ERR_SHAPE, "copy2d rows INT64_MAX");
            EXPECT(wk_copy2d(e, d2, 1, 1, 1, 1, 0, INT64_MIN), WK_ERR_INVALID_ARGUMENT, "copy2d dst_offset INT64_MIN");
            EXPECT(wk_copy2d(e, d2, 2, 2, 2, 2, 0, 0), WK_OK, "copy2d of the whole storage");
        }
        wk_tensor_release(d2);
        /* narrow near int64's ends */
        EXPECT(wk_narrow(e, 0, INT64_MAX, 1, &o), WK_ERR_SHAPE, "narrow start INT64_MAX");
        EXPECT(wk_narrow(e, 0, 1, INT64_MAX, &o), WK_ERR_SHAPE, "narrow len INT64_MAX");
        EXPECT(wk_narrow(e, 0, INT64_MIN, 2, &o), WK_ERR_SHAPE, "narrow start INT64_MIN");
        EXPECT(wk_narrow(e, 0, 2, INT64_MIN, &o), WK_ERR_SHAPE, "narrow len INT64_MIN");
        wk_tensor_release(e);
        e = NULL;
    }
    /* reshape of an empty tensor: any sizes with a 0, within the limit */
    int64_t z[1] = {0};
    EXPECT(wk_tensor_empty(dev, WK_F32, 1, z, &e), WK_OK, "empty f32");
    if (e) {
        int64_t r1[3] = {0, INT64_MAX, 2}, r2[2] = {-1, (int64_t)1 << 62}, r3[2] = {0, INT64_MAX / 4};
        int64_t r4[2] = {-1, -1}, r5[2] = {0, -1};
        EXPECT(wk_reshape(e, 3, r1, &o), WK_ERR_SHAPE, "reshape empty to [0, INT64_MAX, 2]");
        EXPECT(wk_reshape(e, 2, r2, &o), WK_ERR_SHAPE, "reshape empty f32 to [-1, 2^62]");
        EXPECT(wk_reshape(e, 2, r4, &o), WK_ERR_SHAPE, "reshape to [-1, -1]");
        EXPECT(wk_reshape(e, 2, r5, &o), WK_ERR_SHAPE, "reshape empty to [0, -1]");
        EXPECT(wk_reshape(e, 2, r3, &o), WK_OK, "reshape empty f32 to [0, INT64_MAX/4]");
        wk_tensor_release(o);
        o = NULL;
        wk_tensor_release(e);
        e = NULL;
    }
    /* shapes made by ops from views: cat, binary, matmul outputs past the limit */
    uint8_t b = 7;
    wk_tensor *u = NULL;
    EXPECT(wk_tensor_from_host(dev, WK_U8, 0, NULL, &b, &u), WK_OK, "u8 scalar");
    int64_t h[1] = {(int64_t)1 << 62};
    if (u && wk_broadcast_to(u, 1, h, &v1) == WK_OK && wk_broadcast_to(u, 1, h, &v2) == WK_OK) {
        const wk_tensor *two[2] = {v1, v2};
        EXPECT(wk_cat(two, 2, 0, &o), WK_ERR_SHAPE, "cat of 2^62 + 2^62 along dim 0");
    }
    wk_tensor_release(v1);
    wk_tensor_release(v2);
    v1 = v2 = NULL;
    int64_t col[2] = {(int64_t)1 << 32, 1}, row[2] = {1, (int64_t)1 << 32};
    if (u && wk_broadcast_to(u, 2, col, &v1) == WK_OK && wk_broadcast_to(u, 2, row, &v2) == WK_OK)
        EXPECT(wk_binary(WK_BINARY_ADD, v1, v2, &o), WK_ERR_SHAPE, "add to [2^32, 2^32]");
    wk_tensor_release(v1);
    wk_tensor_release(v2);
    v1 = v2 = NULL;
    float fz = 0;
    wk_tensor *f = NULL;
    EXPECT(wk_tensor_from_host(dev, WK_F32, 0, NULL, &fz, &f), WK_OK, "f32 scalar");
    int64_t ba[4] = {(int64_t)1 << 31, 1, 1, 1}, bb[4] = {1, (int64_t)1 << 31, 1, 1};
    if (f && wk_broadcast_to(f, 4, ba, &v1) == WK_OK && wk_broadcast_to(f, 4, bb, &v2) == WK_OK)
        EXPECT(wk_matmul(v1, v2, &o), WK_ERR_SHAPE, "matmul batch [2^31, 2^31] of f32");
    CHECK(o == NULL, "a refused op wrote its out-parameter");
    wk_tensor_release(v1);
    wk_tensor_release(v2);
    wk_tensor_release(f);
    wk_tensor_release(u);
    wk_tensor_release(sc);
}

/* ---------------------------------------------------------------- indices */

/* An indexing call that must fail with INDEX_OUT_OF_RANGE: on a GPU the call may return WK_OK, and the next
 * sync then reports it. */
static void expect_index_error(wk_device *dev, wk_status s, wk_tensor *out, const char *what)
{
    if (s == WK_OK && is_gpu(dev))
        s = wk_device_sync(dev);
    CHECK(s == WK_ERR_INDEX_OUT_OF_RANGE, "%s: %s, want WK_ERR_INDEX_OUT_OF_RANGE", what, wk_status_string(s));
    wk_tensor_release(out);
}

static wk_tensor *ids_of(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, int64_t v0, int64_t v1)
{
    uint8_t raw[16];
    int64_t v[2] = {v0, v1};
    size_t es = wk_dtype_size(dt);
    for (int i = 0; i < 2; i++) {
        if (dt == WK_U8) raw[i] = (uint8_t)v[i];
        else if (dt == WK_U32) { uint32_t x = (uint32_t)v[i]; memcpy(raw + i * es, &x, es); }
        else if (dt == WK_I32) { int32_t x = (int32_t)v[i]; memcpy(raw + i * es, &x, es); }
        else memcpy(raw + i * es, &v[i], es);
    }
    wk_tensor *t = NULL;
    CHECK(wk_tensor_from_host(dev, dt, rank, shape, raw, &t) == WK_OK, "ids");
    return t;
}

/* Every indexing op with ids {good, bad} along dim (0 or 1) of x [4, 5]; in-place targets stay unchanged. */
static void index_case(wk_device *dev, wk_tensor *x, const float *xv, wk_dtype dt, int64_t bad, int dim)
{
    char what[128];
    int64_t n2[1] = {2}, g[2] = {dim == 0 ? 2 : 1, dim == 0 ? 1 : 2};
    wk_tensor *ids = ids_of(dev, dt, 1, n2, 1, bad), *gids = ids_of(dev, dt, 2, g, 1, bad);
    int64_t ssh[2] = {dim == 0 ? 2 : 4, dim == 0 ? 5 : 2};
    float srcv[10] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    wk_tensor *src = NULL, *o = NULL, *t = NULL;
    CHECK(wk_tensor_from_host(dev, WK_F32, 2, ssh, srcv, &src) == WK_OK, "src");
    if (!ids || !gids || !src)
        goto done;
    const char *dn = wk_dtype_name(dt);
#define CASE(call, name)                                                                                     \
    do {                                                                                                     \
        o = NULL;                                                                                            \
        snprintf(what, sizeof what, "%s %s index %lld dim %d", name, dn, (long long)bad, dim);               \
        expect_index_error(dev, call, o, what);                                                              \
    } while (0)
    CASE(wk_index_select(x, dim, ids, &o), "index_select");
    CASE(wk_gather(x, dim, gids, &o), "gather");
    CASE(wk_scatter(x, dim, gids, src, &o), "scatter");
    CASE(wk_scatter_add(x, dim, gids, src, &o), "scatter_add");
    CASE(wk_index_add(x, dim, ids, src, &o), "index_add");
    EXPECT(wk_contiguous(x, &t), WK_OK, "target copy");
    if (t) {
        CASE(wk_scatter_inplace(t, dim, gids, src), "scatter_inplace");
        CASE(wk_scatter_add_inplace(t, dim, gids, src), "scatter_add_inplace");
        CASE(wk_index_add_inplace(t, dim, ids, src), "index_add_inplace");
        float got[20];
        EXPECT(wk_tensor_to_host(t, got, sizeof got), WK_OK, "target to host");
        CHECK(memcmp(got, xv, sizeof got) == 0, "in-place %s index %lld changed the target", dn, (long long)bad);
        wk_tensor_release(t);
    }
#undef CASE
done:
    wk_tensor_release(ids);
    wk_tensor_release(gids);
    wk_tensor_release(src);
}

static void test_indices(wk_device *dev)
{
    float xv[20];
    for (int i = 0; i < 20; i++)
        xv[i] = (float)i;
    int64_t sh[2] = {4, 5};
    wk_tensor *x = NULL;
    EXPECT(wk_tensor_from_host(dev, WK_F32, 2, sh, xv, &x), WK_OK, "x");
    if (!x)
        return;
    static const int64_t i64_bad[] = {INT64_MIN, INT64_MIN + 1, -1, 5, INT64_MAX - 1, INT64_MAX,
                                      (int64_t)UINT32_MAX, (int64_t)1 << 32};
    static const int64_t i32_bad[] = {INT32_MIN, -1, 5, INT32_MAX};
    static const int64_t u32_bad[] = {UINT32_MAX, (int64_t)1 << 31, 5}; /* 2^31: negative if read as i32 */
    static const int64_t u8_bad[] = {255, 128, 5};
    for (int dim = 0; dim < 2; dim++) {
        for (size_t k = 0; k < sizeof i64_bad / sizeof *i64_bad; k++)
            index_case(dev, x, xv, WK_I64, i64_bad[k], dim);
        for (size_t k = 0; k < sizeof i32_bad / sizeof *i32_bad; k++)
            index_case(dev, x, xv, WK_I32, i32_bad[k], dim);
        for (size_t k = 0; k < sizeof u32_bad / sizeof *u32_bad; k++)
            index_case(dev, x, xv, WK_U32, u32_bad[k], dim);
        for (size_t k = 0; k < sizeof u8_bad / sizeof *u8_bad; k++)
            index_case(dev, x, xv, WK_U8, u8_bad[k], dim);
    }
    /* the last valid index of dim 1 (size 5) in every index dtype, and no negative wrap-around */
    static const wk_dtype idts[] = {WK_U8, WK_U32, WK_I32, WK_I64};
    int64_t n2[1] = {2};
    for (size_t k = 0; k < 4; k++) {
        wk_tensor *ids = ids_of(dev, idts[k], 1, n2, 4, 0), *o = NULL;
        float got[8] = {0};
        EXPECT(wk_index_select(x, 1, ids, &o), WK_OK, "index_select last index");
        if (o) {
            EXPECT(wk_tensor_to_host(o, got, sizeof got), WK_OK, "to host");
            CHECK(got[0] == 4 && got[1] == 0 && got[6] == 19 && got[7] == 15, "index_select %s [4, 0]: %g %g %g %g",
                  wk_dtype_name(idts[k]), got[0], got[1], got[6], got[7]);
        }
        wk_tensor_release(o);
        wk_tensor_release(ids);
    }
    /* a float index dtype is refused */
    wk_tensor *fids = NULL, *o = NULL;
    float fi[2] = {0, 1};
    CHECK(wk_tensor_from_host(dev, WK_F32, 1, n2, fi, &fids) == WK_OK, "float ids");
    EXPECT(wk_index_select(x, 0, fids, &o), WK_ERR_DTYPE, "f32 indices");
    wk_tensor_release(fids);
    wk_tensor_release(x);
}

/* ---------------------------------------------------------------- arange, conv, pool, upsample */

static void test_params(wk_device *dev)
{
    wk_tensor *o = NULL;
    EXPECT(wk_arange(dev, WK_F32, 0, 1e300, 1, &o), WK_ERR_SHAPE, "arange 1e300 elements");
    EXPECT(wk_arange(dev, WK_F32, -1e308, 1e308, 1e-300, &o), WK_ERR_SHAPE, "arange length inf");
    EXPECT(wk_arange(dev, WK_U8, 0, 0x1p62, 1, &o), WK_ERR_SHAPE, "arange 2^62 elements");
    EXPECT(wk_arange(dev, WK_F64, 0, 0x1p58, 1, &o), WK_ERR_OUT_OF_MEMORY, "arange 2^58 f64 (2^61 bytes)");
    EXPECT(wk_arange(dev, WK_F64, 0, INFINITY, 1, &o), WK_ERR_INVALID_ARGUMENT, "arange to inf");
    EXPECT(wk_arange(dev, WK_F64, 0, 1, 0, &o), WK_ERR_INVALID_ARGUMENT, "arange step 0");
    CHECK(o == NULL, "a refused arange wrote its out-parameter");

    wk_tensor *x = NULL, *w = NULL;
    int64_t xs[3] = {1, 1, 8}, ws[3] = {1, 1, 3};
    EXPECT(wk_zeros(dev, WK_F32, 3, xs, &x), WK_OK, "conv x");
    EXPECT(wk_zeros(dev, WK_F32, 3, ws, &w), WK_OK, "conv w");
    if (x && w) {
        const int64_t big = ((int64_t)1 << 31) + 1;
        wk_conv_params p = wk_conv_params_default();
        p.stride[0] = big;
        EXPECT(wk_conv1d(x, w, NULL, &p, &o), WK_ERR_INVALID_ARGUMENT, "conv stride 2^31+1");
        p = wk_conv_params_default();
        p.padding[0] = big;
        EXPECT(wk_conv1d(x, w, NULL, &p, &o), WK_ERR_INVALID_ARGUMENT, "conv padding 2^31+1");
        p = wk_conv_params_default();
        p.dilation[0] = big;
        EXPECT(wk_conv1d(x, w, NULL, &p, &o), WK_ERR_INVALID_ARGUMENT, "conv dilation 2^31+1");
        p = wk_conv_params_default();
        p.groups = INT64_MAX;
        EXPECT(wk_conv1d(x, w, NULL, &p, &o), WK_ERR_SHAPE, "conv groups INT64_MAX");
        p = wk_conv_params_default();
        p.dilation[0] = (int64_t)1 << 31; /* dilated kernel 2^32 + 1 wide on 8 elements */
        EXPECT(wk_conv1d(x, w, NULL, &p, &o), WK_ERR_SHAPE, "conv dilated kernel past the input");
    }
    wk_tensor_release(x);
    wk_tensor_release(w);
    /* pool over a u8 view of INT64_MAX rows (a broadcast: no memory): sizes near int64's end stay defined */
    uint8_t b = 1;
    wk_tensor *s = NULL, *v = NULL;
    int64_t vs[4] = {1, 1, INT64_MAX, 1};
    EXPECT(wk_tensor_from_host(dev, WK_U8, 0, NULL, &b, &s), WK_OK, "u8 scalar");
    if (s && wk_broadcast_to(s, 4, vs, &v) == WK_OK) {
        wk_pool_params pp = {.kernel = {2, 1}, .stride = {1, 1}, .padding = {1, 0}, .ceil_mode = true};
        EXPECT(wk_max_pool2d(v, &pp, &o), WK_ERR_SHAPE, "max_pool2d of INT64_MAX rows, padding 1");
        pp = (wk_pool_params){.kernel = {2, 1}, .stride = {1, 1}, .padding = {1, 0}};
        EXPECT(wk_max_pool2d(v, &pp, &o), WK_ERR_SHAPE, "max_pool2d of INT64_MAX rows, kernel 2 = 2 * padding");
        pp = (wk_pool_params){.kernel = {INT64_MAX, 1}, .stride = {1, 1}, .padding = {INT64_MAX / 2, 0}};
        EXPECT(wk_max_pool2d(v, &pp, &o), WK_ERR_SHAPE, "max_pool2d kernel INT64_MAX, padding INT64_MAX/2");
        pp = (wk_pool_params){.kernel = {3, 1}, .stride = {INT64_MAX, 1}, .padding = {0, 0}, .ceil_mode = true};
        EXPECT(wk_max_pool2d(v, &pp, &o), WK_OK, "max_pool2d stride INT64_MAX: one window");
        if (o) {
            CHECK(wk_tensor_shape(o)[2] == 1, "pooled rows %lld, want 1", (long long)wk_tensor_shape(o)[2]);
            uint8_t r = 0;
            EXPECT(wk_tensor_to_host(o, &r, 1), WK_OK, "pool to host");
            CHECK(r == 1, "pooled %u, want 1", r);
            wk_tensor_release(o);
            o = NULL;
        }
        pp = (wk_pool_params){.kernel = {1, 1}, .stride = {1, 1}, .padding = {-1, 0}};
        EXPECT(wk_max_pool2d(v, &pp, &o), WK_ERR_INVALID_ARGUMENT, "max_pool2d padding -1");
    }
    wk_tensor_release(v);
    int64_t us[4] = {1, 1, 2, 2};
    v = NULL;
    EXPECT(wk_zeros(dev, WK_F32, 4, us, &v), WK_OK, "upsample x");
    if (v) {
        EXPECT(wk_upsample_nearest2d(v, INT64_MAX, INT64_MAX, &o), WK_ERR_SHAPE, "upsample to INT64_MAX^2");
        EXPECT(wk_upsample_nearest2d(v, INT64_MAX / 4 + 1, 1, &o), WK_ERR_SHAPE, "upsample f32 past 2^63 bytes");
        EXPECT(wk_upsample_bilinear2d(v, 0, 2, false, 0, 0, &o), WK_ERR_SHAPE, "upsample to 0 rows");
    }
    CHECK(o == NULL, "a refused op wrote its out-parameter");
    wk_tensor_release(v);
    wk_tensor_release(s);
}

/* ---------------------------------------------------------------- GPU: dims past INT32_MAX / UINT32_MAX */

static int64_t host_i64(const wk_tensor *t)
{
    int64_t v = -1;
    CHECK(wk_tensor_dtype(t) == WK_I64 && wk_tensor_to_host(t, &v, sizeof v) == WK_OK, "i64 result");
    return v;
}

static uint8_t host_u8(const wk_tensor *t)
{
    uint8_t v = 0;
    CHECK(wk_tensor_dtype(t) == WK_U8 && wk_tensor_to_host(t, &v, 1) == WK_OK, "u8 result");
    return v;
}

/* tail[0..6] of t: 7 elements from n-7 */
static bool tail_is(const wk_tensor *t, int64_t n, const uint8_t *want, const char *what)
{
    wk_tensor *v = NULL;
    uint8_t got[7] = {0};
    bool ok = wk_narrow(t, 0, n - 7, 7, &v) == WK_OK && wk_tensor_to_host(v, got, 7) == WK_OK;
    wk_tensor_release(v);
    CHECK(ok && memcmp(got, want, 7) == 0, "%s: tail %u %u %u %u %u %u %u", what, got[0], got[1], got[2], got[3],
          got[4], got[5], got[6]);
    return ok;
}

static void set_range(wk_tensor *x, int64_t start, int64_t len, double value)
{
    wk_tensor *v = NULL;
    CHECK(wk_narrow(x, 0, start, len, &v) == WK_OK && wk_fill(v, value) == WK_OK, "set [%lld, +%lld)",
          (long long)start, (long long)len);
    wk_tensor_release(v);
}

/* x: u8 of n elements, ones but x[n-6] = 2, x[n-5 .. n-2] = 3, x[n-1] = 200. u8 sum = n + 208 (mod 256). */
static void big_case(wk_device *dev, int64_t n, const char *label)
{
    wk_tensor *x = NULL, *o = NULL, *p = NULL;
    wk_status s = wk_tensor_empty(dev, WK_U8, 1, &n, &x);
    if (s == WK_ERR_OUT_OF_MEMORY) {
        printf("SKIPPED %s: %s has not %lld bytes free\n", label, wk_device_name(dev), (long long)n);
        skipped++;
        return;
    }
    CHECK(s == WK_OK, "%s: empty", label);
    if (!x)
        return;
    CHECK(wk_fill(x, 1) == WK_OK, "fill");
    set_range(x, n - 6, 1, 2);
    set_range(x, n - 5, 4, 3);
    set_range(x, n - 1, 1, 200);
    static const uint8_t t0[7] = {1, 2, 3, 3, 3, 3, 200};
    tail_is(x, n, t0, label);
    uint8_t want_sum = (uint8_t)((uint64_t)n + 208);
    if (wk_reduce(WK_REDUCE_SUM, x, NULL, 0, false, &o) == WK_OK)
        CHECK(host_u8(o) == want_sum, "%s sum %u, want %u", label, host_u8(o), want_sum);
    wk_tensor_release(o);
    int64_t r2[2] = {1, n}, c2[2] = {n, 1};
    int d1 = 1, d0 = 0;
    if (wk_reshape(x, 2, r2, &p) == WK_OK && wk_reduce(WK_REDUCE_SUM, p, &d1, 1, false, &o) == WK_OK)
        CHECK(host_u8(o) == want_sum, "%s sum over dim 1 of [1, n]: %u", label, host_u8(o));
    wk_tensor_release(o);
    wk_tensor_release(p);
    if (wk_reshape(x, 2, c2, &p) == WK_OK && wk_reduce(WK_REDUCE_MAX, p, &d0, 1, false, &o) == WK_OK)
        CHECK(host_u8(o) == 200, "%s max over dim 0 of [n, 1]: %u", label, host_u8(o));
    wk_tensor_release(o);
    wk_tensor_release(p);
    if (wk_argmax(x, 0, false, &o) == WK_OK)
        CHECK(host_i64(o) == n - 1, "%s argmax %lld, want %lld", label, (long long)host_i64(o), (long long)n - 1);
    wk_tensor_release(o);
    if (wk_argmin(x, 0, false, &o) == WK_OK)
        CHECK(host_i64(o) == 0, "%s argmin %lld", label, (long long)host_i64(o));
    wk_tensor_release(o);
    /* copies: cast to the same dtype, a contiguous copy of a strided (transposed) view */
    if (wk_cast(x, WK_U8, &o) == WK_OK)
        tail_is(o, n, t0, "cast u8 -> u8");
    wk_tensor_release(o);
    o = NULL;
    /* a strided view (every other element, from 1) copied contiguous; a cast to f16 and back */
    int64_t half[1] = {n / 2}, two[1] = {2};
    if (wk_as_strided(x, 1, half, two, 1, &p) == WK_OK && wk_contiguous(p, &o) == WK_OK) {
        /* element k of the copy is x[2k + 1]; n is odd, so its last four are x[n-8], x[n-6], x[n-4], x[n-2] */
        uint8_t w[4] = {0};
        wk_tensor *v = NULL;
        CHECK(n % 2 == 1 && wk_narrow(o, 0, n / 2 - 4, 4, &v) == WK_OK && wk_tensor_to_host(v, w, 4) == WK_OK &&
                  w[0] == 1 && w[1] == 2 && w[2] == 3 && w[3] == 3,
              "%s strided copy: %u %u %u %u", label, w[0], w[1], w[2], w[3]);
        wk_tensor_release(v);
    }
    wk_tensor_release(o);
    wk_tensor_release(p);
    o = p = NULL;
    if (wk_cast(x, WK_F16, &p) == WK_OK && wk_cast(p, WK_U8, &o) == WK_OK)
        tail_is(o, n, t0, "cast u8 -> f16 -> u8");
    wk_tensor_release(o);
    wk_tensor_release(p);
    o = p = NULL;
    /* binary with a stride-0 operand (the strided engine), unary of a broadcast */
    uint8_t one = 1;
    wk_tensor *sc = NULL, *b = NULL;
    CHECK(wk_tensor_from_host(dev, WK_U8, 0, NULL, &one, &sc) == WK_OK, "scalar");
    if (sc && wk_broadcast_to(sc, 1, &n, &b) == WK_OK) {
        if (wk_binary(WK_BINARY_ADD, x, b, &o) == WK_OK) {
            static const uint8_t t1[7] = {2, 3, 4, 4, 4, 4, 201};
            tail_is(o, n, t1, "x + broadcast 1");
        }
        wk_tensor_release(o);
        o = NULL;
        if (wk_unary(WK_UNARY_NEG, b, &o) == WK_OK) {
            static const uint8_t t2[7] = {255, 255, 255, 255, 255, 255, 255};
            tail_is(o, n, t2, "neg of broadcast 1");
        }
        wk_tensor_release(o);
        o = NULL;
    }
    wk_tensor_release(b);
    wk_tensor_release(sc);
    /* index_select and gather along the big dim, u32 and i64 indices past INT32_MAX */
    int64_t k5[1] = {5}, k1[1] = {1};
    int64_t iv[5] = {n - 1, 0, n - 5, n - 6, n - 7};
    uint32_t uv[1] = {(uint32_t)(n - 1)};
    wk_tensor *ids = NULL;
    uint8_t got[5] = {0};
    if (wk_tensor_from_host(dev, WK_I64, 1, k5, iv, &ids) == WK_OK && wk_index_select(x, 0, ids, &o) == WK_OK) {
        CHECK(wk_tensor_to_host(o, got, 5) == WK_OK && got[0] == 200 && got[1] == 1 && got[2] == 3 && got[3] == 2 &&
              got[4] == 1, "%s index_select i64: %u %u %u %u %u", label, got[0], got[1], got[2], got[3], got[4]);
        wk_tensor_release(o);
        o = NULL;
        if (wk_gather(x, 0, ids, &o) == WK_OK)
            CHECK(wk_tensor_to_host(o, got, 5) == WK_OK && got[0] == 200 && got[3] == 2, "%s gather i64", label);
        wk_tensor_release(o);
        o = NULL;
    }
    wk_tensor_release(ids);
    ids = NULL;
    if (n - 1 <= (int64_t)UINT32_MAX && wk_tensor_from_host(dev, WK_U32, 1, k1, uv, &ids) == WK_OK &&
        wk_index_select(x, 0, ids, &o) == WK_OK)
        CHECK(host_u8(o) == 200, "%s index_select u32 %u", label, uv[0]);
    wk_tensor_release(o);
    o = NULL;
    wk_tensor_release(ids);
    ids = NULL;
    int64_t badv[1] = {n};
    if (wk_tensor_from_host(dev, WK_I64, 1, k1, badv, &ids) == WK_OK)
        expect_index_error(dev, wk_index_select(x, 0, ids, &o), o, "index_select index n of the big dim");
    wk_tensor_release(ids);
    CHECK(wk_device_sync(dev) == WK_OK, "%s: sync", label);
    wk_tensor_release(x);
}

static void test_big(wk_device *dev)
{
    if (!is_gpu(dev))
        return;
    if (getenv("WICK_LIMITS_NO_BIG")) {
        printf("SKIPPED big dims on %s: WICK_LIMITS_NO_BIG is set\n", wk_device_name(dev));
        skipped++;
        return;
    }
    big_case(dev, ((int64_t)1 << 31) + 5, "n = 2^31 + 5");
    big_case(dev, ((int64_t)1 << 32) + 5, "n = 2^32 + 5");
}

int main(void)
{
    const char *names[2] = {"cpu", "gpu:0"};
    int ran = 0;
    for (int i = 0; i < 2; i++) {
        wk_device *dev = NULL;
        if (wk_device_get(names[i], &dev) != WK_OK) {
            printf("SKIPPED %s: %s\n", names[i], wk_last_error());
            skipped++;
            continue;
        }
        int before = failures;
        test_rank(dev);
        test_sizes(dev);
        test_views(dev);
        test_indices(dev);
        test_params(dev);
        test_big(dev);
        printf("%s: %s\n", wk_device_name(dev), failures == before ? "ok" : "FAILED");
        ran++;
    }
    printf("test_limits: %d passed, %d failed, %d skipped (%d devices)\n", checks - failures, failures, skipped, ran);
    return failures ? 1 : 0;
}

/* test_gpu.c: what only a GPU backend has: index errors found on the device and reported at the next
 * synchronisation naming the op and the index (with in-place targets unchanged), out-of-memory as a status
 * with nothing leaked, transfers between devices, a logical warp width the device cannot run refused.
 * Exits 77 (ctest: skipped) when this build reaches no GPU: never counted as passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"
#include "wick_dlpack.h"

#include "check.h"

static wk_tensor *from_f32(wk_device *dev, int rank, const int64_t *shape, const float *v)
{
    wk_tensor *t = NULL;
    if (wk_tensor_from_host(dev, WK_F32, rank, shape, v, &t) != WK_OK)
        printf("from_host failed: %s\n", wk_last_error());
    return t;
}

/* An op queued with one bad index, `bad`: the queueing call may succeed; the next sync must fail naming the
 * op and the index, and the sync after that must be clean again. */
static void expect_fault_at_sync(wk_device *dev, wk_status queued, const char *op, long long bad)
{
    char want[40];
    snprintf(want, sizeof want, "index %lld ", bad);
    wk_status s = queued == WK_OK ? wk_device_sync(dev) : queued;
    CHECK(s == WK_ERR_INDEX_OUT_OF_RANGE, "%s: status %s, want WK_ERR_INDEX_OUT_OF_RANGE", op, wk_status_string(s));
    CHECK(strstr(wk_last_error(), op) != NULL, "%s: message does not name the op: %s", op, wk_last_error());
    CHECK(strstr(wk_last_error(), want) != NULL, "%s: message does not name %s: %s", op, want, wk_last_error());
    CHECK(wk_device_sync(dev) == WK_OK, "%s: the fault was reported twice", op);
}

static void test_index_faults(wk_device *dev)
{
    float xv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, src[6] = {-1, -2, -3, -4, -5, -6}, back[12];
    int64_t xs[2] = {4, 3}, is[1] = {2}, ss[2] = {2, 3};
    int64_t bad_ids[2] = {1, 4}, bad_big[2] = {0, (int64_t)1 << 40}, bad_neg[2] = {0, -1};
    wk_tensor *x = from_f32(dev, 2, xs, xv), *s = from_f32(dev, 2, ss, src), *ids = NULL, *big = NULL, *neg = NULL,
              *o = NULL;
    wk_tensor_from_host(dev, WK_I64, 1, is, bad_ids, &ids);
    wk_tensor_from_host(dev, WK_I64, 1, is, bad_big, &big);
    wk_tensor_from_host(dev, WK_I64, 1, is, bad_neg, &neg);
    if (!x || !s || !ids || !big || !neg) {
        CHECK(0, "setup");
        goto done;
    }
    expect_fault_at_sync(dev, wk_index_select(x, 0, ids, &o), "index_select", 4);
    wk_tensor_release(o), o = NULL;
    expect_fault_at_sync(dev, wk_index_select(x, 0, big, &o), "index_select", (long long)1 << 40);
    wk_tensor_release(o), o = NULL;
    expect_fault_at_sync(dev, wk_index_select(x, 0, neg, &o), "index_select", -1);
    wk_tensor_release(o), o = NULL;
    expect_fault_at_sync(dev, wk_index_add_inplace(x, 0, ids, s), "index_add", 4);
    CHECK(wk_tensor_to_host(x, back, sizeof back) == WK_OK && memcmp(back, xv, sizeof xv) == 0,
          "index_add changed x although an index was bad");
    /* gather / scatter: ids of x's rank. */
    int64_t gs[2] = {2, 3}, gbad[6] = {0, 1, 2, 3, 0, 9};
    wk_tensor *gids = NULL;
    wk_tensor_from_host(dev, WK_I64, 2, gs, gbad, &gids);
    expect_fault_at_sync(dev, wk_gather(x, 0, gids, &o), "gather", 9);
    wk_tensor_release(o), o = NULL;
    expect_fault_at_sync(dev, wk_scatter_inplace(x, 0, gids, s), "scatter", 9);
    CHECK(wk_tensor_to_host(x, back, sizeof back) == WK_OK && memcmp(back, xv, sizeof xv) == 0,
          "scatter changed x although an index was bad");
    /* A fault must surface at to_host too (it synchronises). */
    wk_tensor *sel = NULL;
    if (wk_index_select(x, 0, ids, &sel) == WK_OK) {
        float tmp[6];
        wk_status st = wk_tensor_to_host(sel, tmp, sizeof tmp);
        CHECK(st == WK_ERR_INDEX_OUT_OF_RANGE, "to_host after a bad index_select: %s", wk_status_string(st));
        wk_device_sync(dev);
    }
    wk_tensor_release(sel);
    wk_tensor_release(gids);
done:
    wk_tensor_release(x);
    wk_tensor_release(s);
    wk_tensor_release(ids);
    wk_tensor_release(big);
    wk_tensor_release(neg);
}

/* The out-of-place forms skip the separate range pass (their target is a fresh copy): the write kernels
 * report bad ids themselves. Shapes reach the line kernel (scatter_add along the last dim), the general
 * scatter kernel, and both index_add row kernels (rows of 4 and of 2048 elements). */
static void test_fresh_faults(wk_device *dev)
{
    int64_t xs[2] = {3, 2048}, is2[2] = {3, 4}, is1[1] = {2}, ss1[2] = {2, 2048}, xs4[2] = {3, 4};
    int64_t ids2[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 4096, 11}, ids1[2] = {0, 3};
    wk_tensor *x = NULL, *x4 = NULL, *src = NULL, *src4 = NULL, *i2 = NULL, *i1 = NULL, *o = NULL;
    wk_full(dev, WK_F32, 2, xs, 1.0, &x);
    wk_full(dev, WK_F32, 2, xs4, 1.0, &x4);
    wk_full(dev, WK_F32, 2, ss1, 2.0, &src);
    wk_full(dev, WK_F32, 2, is2, 2.0, &src4);
    wk_tensor_from_host(dev, WK_I64, 2, is2, ids2, &i2);
    wk_tensor_from_host(dev, WK_I64, 1, is1, ids1, &i1);
    if (!x || !x4 || !src || !src4 || !i2 || !i1) {
        CHECK(0, "setup");
    } else {
        expect_fault_at_sync(dev, wk_scatter_add(x, 1, i2, src4, &o), "scatter_add", 4096);
        wk_tensor_release(o), o = NULL;
        expect_fault_at_sync(dev, wk_scatter(x, 1, i2, src4, &o), "scatter", 4096);
        wk_tensor_release(o), o = NULL;
        expect_fault_at_sync(dev, wk_index_add(x, 0, i1, src, &o), "index_add", 3);
        wk_tensor_release(o), o = NULL;
        int64_t s4[2] = {2, 4};
        wk_tensor *src24 = NULL;
        wk_full(dev, WK_F32, 2, s4, 2.0, &src24);
        expect_fault_at_sync(dev, wk_index_add(x4, 0, i1, src24, &o), "index_add", 3);
        wk_tensor_release(o), o = NULL;
        wk_tensor_release(src24);
    }
    wk_tensor_release(x), wk_tensor_release(x4), wk_tensor_release(src), wk_tensor_release(src4);
    wk_tensor_release(i2), wk_tensor_release(i1);
}

static void test_out_of_memory(wk_device *dev)
{
    int64_t huge[2] = {(int64_t)1 << 26, (int64_t)1 << 22}; /* 2^48 f32 = 1 PiB */
    wk_tensor *t = NULL;
    wk_status s = wk_tensor_empty(dev, WK_F32, 2, huge, &t);
    CHECK(s == WK_ERR_OUT_OF_MEMORY && t == NULL, "1 PiB allocation: %s", wk_status_string(s));
    /* The device still works afterwards. */
    int64_t small[1] = {1000};
    s = wk_full(dev, WK_F32, 1, small, 2.5, &t);
    float v[1000];
    CHECK(s == WK_OK && wk_tensor_to_host(t, v, sizeof v) == WK_OK && v[999] == 2.5f, "allocation after OOM");
    wk_tensor_release(t);
}

static void test_transfers(wk_device *dev)
{
    wk_device *cpu = NULL;
    wk_device_get("cpu", &cpu);
    float v[6] = {1, -2, 3.5f, 4, 5, 6}, back[6];
    int64_t sh[2] = {2, 3};
    wk_tensor *h = from_f32(cpu, 2, sh, v), *g = NULL, *g2 = NULL, *h2 = NULL, *tr = NULL, *gt = NULL;
    CHECK(wk_to_device(h, dev, &g) == WK_OK, "cpu -> gpu");
    CHECK(wk_to_device(g, dev, &g2) == WK_OK, "gpu -> same gpu");
    CHECK(wk_to_device(g2, cpu, &h2) == WK_OK && wk_tensor_to_host(h2, back, sizeof back) == WK_OK &&
              memcmp(back, v, sizeof v) == 0, "round trip cpu -> gpu -> gpu -> cpu");
    /* A transposed view on the GPU comes back in logical order. */
    if (g && wk_transpose(g, 0, 1, &tr) == WK_OK && wk_to_device(tr, cpu, &gt) == WK_OK) {
        float t[6];
        CHECK(wk_tensor_to_host(gt, t, sizeof t) == WK_OK && t[1] == v[3] && t[2] == v[1], "transposed view to cpu");
    }
    /* Operands on two devices are refused up front, naming the op, with the out-param untouched. */
    wk_tensor *mixed = NULL;
    wk_status ms = g ? wk_binary(WK_BINARY_ADD, h, g, &mixed) : WK_ERR_INTERNAL;
    CHECK(ms == WK_ERR_DEVICE && mixed == NULL && strstr(wk_last_error(), "binary") != NULL,
          "add of a cpu and a gpu tensor: %s", wk_status_string(ms));
    wk_tensor_release(h), wk_tensor_release(g), wk_tensor_release(g2), wk_tensor_release(h2);
    wk_tensor_release(tr), wk_tensor_release(gt);
}

/* Large uploads: from pageable memory through the staging buffers (several chunks and a ragged tail), from
 * page-locked memory directly; both byte-exact. Also DLPack's stream ordering and native stream. */
static void test_staged_uploads(wk_device *dev)
{
    wk_device *cpu = NULL;
    wk_device_get("cpu", &cpu);
    int64_t n = (int64_t)(70 << 20) / 4 + 3; /* 70 MiB + 12 bytes: 3 chunks of 32 MiB, the last one short */
    uint32_t *src = malloc((size_t)n * 4), *back = malloc((size_t)n * 4), *pinned = NULL;
    for (int64_t i = 0; i < n && src; i++)
        src[i] = (uint32_t)(i * 2654435761u);
    wk_tensor *g = NULL, *h = NULL, *g2 = NULL;
    CHECK(src && back && wk_tensor_from_host(dev, WK_U32, 1, &n, src, &g) == WK_OK, "staged upload");
    CHECK(g && wk_tensor_to_host(g, back, (size_t)n * 4) == WK_OK && memcmp(src, back, (size_t)n * 4) == 0,
          "staged upload is byte-exact");
    CHECK(wk_host_alloc_pinned(dev, (size_t)n * 4, (void **)&pinned) == WK_OK, "pinned allocation");
    if (pinned && src && back) {
        memcpy(pinned, src, (size_t)n * 4);
        CHECK(wk_tensor_wrap(cpu, WK_U32, 1, &n, NULL, pinned, NULL, NULL, &h) == WK_OK, "wrap pinned");
        CHECK(wk_to_device(h, dev, &g2) == WK_OK, "upload from pinned memory");
        memset(back, 0, (size_t)n * 4);
        CHECK(g2 && wk_tensor_to_host(g2, back, (size_t)n * 4) == WK_OK && memcmp(src, back, (size_t)n * 4) == 0,
              "pinned upload is byte-exact");
    }
    /* A file load of more than the staging threshold reads the file into the staging buffers (pread). */
    wk_tensor *big = NULL, *loaded = NULL;
    wk_safetensors *f = NULL;
    const char *name = "big";
    CHECK(wk_tensor_wrap(cpu, WK_U32, 1, &n, NULL, src, NULL, NULL, &big) == WK_OK, "wrap for save");
    CHECK(big && wk_safetensors_save("test_gpu_big.safetensors", 1, &name, (const wk_tensor *const *)&big, 0, NULL,
                                     NULL) == WK_OK, "save 70 MiB");
    CHECK(wk_safetensors_open("test_gpu_big.safetensors", &f) == WK_OK &&
              wk_safetensors_load(f, "big", dev, &loaded) == WK_OK, "load 70 MiB to the GPU");
    memset(back, 0, (size_t)n * 4);
    CHECK(loaded && wk_tensor_to_host(loaded, back, (size_t)n * 4) == WK_OK && memcmp(src, back, (size_t)n * 4) == 0,
          "the file load is byte-exact");
    wk_safetensors_close(f);
    wk_tensor_release(loaded), wk_tensor_release(big);
    remove("test_gpu_big.safetensors");
    void *none = NULL;
    CHECK(wk_host_alloc_pinned(cpu, 16, &none) == WK_ERR_UNSUPPORTED && none == NULL, "no pinned memory on cpu");
    uintptr_t stream = 0;
    CHECK(wk_device_native_stream(dev, &stream) == WK_OK && stream != 0, "a GPU device has a native stream");
    DLManagedTensorVersioned *m = NULL;
    CHECK(g && wk_to_dlpack(g, 1, &m) == WK_OK, "export ordered before the legacy default stream");
    if (m)
        m->deleter(m);
    wk_tensor_release(g), wk_tensor_release(g2), wk_tensor_release(h);
    wk_host_free_pinned(dev, pinned);
    free(src), free(back);
}

/* A logical warp width the device cannot run is refused when it opens, naming the variable; the device then
 * opens normally without it. Runs before the device's first open (an open device stays open). */
static void test_bad_logical_warp(const char *name)
{
    const char *was = getenv("WICK_GPU_LOGICAL_WARP");
    char saved[32];
    snprintf(saved, sizeof saved, "%s", was ? was : "");
    setenv("WICK_GPU_LOGICAL_WARP", "48", 1);
    wk_device *dev = NULL;
    wk_status s = wk_device_get(name, &dev);
    CHECK(s == WK_ERR_DEVICE && dev == NULL && strstr(wk_last_error(), "WICK_GPU_LOGICAL_WARP=48"),
          "%s with WICK_GPU_LOGICAL_WARP=48: %s (%s)", name, wk_status_string(s), wk_last_error());
    if (was)
        setenv("WICK_GPU_LOGICAL_WARP", saved, 1);
    else
        unsetenv("WICK_GPU_LOGICAL_WARP");
}

int main(void)
{
    int ran = 0;
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        if (wk_backend_info_get(b, &info) != WK_OK || strcmp(info.name, "cpu") == 0)
            continue;
        if (!info.available) {
            printf("SKIPPED backend %s: %s\n", info.name, info.detail);
            continue;
        }
        for (int d = 0; d < info.device_count; d++) {
            char name[32];
            wk_device *dev = NULL;
            snprintf(name, sizeof name, "%s:%d", info.name, d);
            test_bad_logical_warp(name);
            if (wk_device_get(name, &dev) != WK_OK) {
                CHECK(0, "open %s", name);
                continue;
            }
            printf("testing %s (%s)\n", name, info.detail);
            test_index_faults(dev);
            test_fresh_faults(dev);
            test_out_of_memory(dev);
            test_transfers(dev);
            test_staged_uploads(dev);
            ran++;
        }
    }
    printf("%d checks, %d failures on %d GPU device(s)\n", checks, failures, ran);
    if (failures)
        return 1;
    return ran ? 0 : 77;
}

/* fuzz_dlpack.c: DLPack import (wk_from_dlpack, wk_from_dlpack_legacy) on producer structs decoded from the
 * input: any version, flags, device, ndim (-2..10), dtype, shape and strides (negative, zero, near INT64_MAX),
 * byte_offset, strides NULL or not. A DLPack producer promises that every element its shape and strides
 * address lies inside its buffer, so the harness keeps the data pointer (into a 4 KiB buffer of its own) only
 * where that holds (checked here with overflow checks); other layouts are imported with nothing addressed
 * (a 0 in the shape; data NULL or the buffer). Checks: a refusal leaves the struct, out and the deleter alone
 * and says why; an import reads back exactly the elements the layout addresses, and the producer's deleter
 * runs once, when the last reference goes (at once for a copy of negative strides). abort() on a violation. */
#include "fuzz_common.h" /* first: it sets _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>

#include "wick.h"
#include "wick_dlpack.h"

#define BUF_BYTES 4096
#define READ_CAP (1 << 20) /* elements * size read back at most (a stride-0 dim may be huge) */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint64_t take(reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes && r->n; i++, r->p++, r->n--)
        v |= (uint64_t)*r->p << (8 * i);
    return v;
}

static int64_t pick_size(reader *r)
{
    uint8_t k = (uint8_t)take(r, 1);
    switch (k >> 5) {
    case 0: case 1: case 2: case 3: return k % 6;             /* small, 0..5 */
    case 4: return -(int64_t)(k % 3) - 1;                     /* negative */
    case 5: return INT64_MAX - (int64_t)(k % 4);              /* huge */
    case 6: return (int64_t)(k % 32) * 17;                    /* medium */
    default: return (int64_t)take(r, 8);                      /* anything */
    }
}

static int64_t pick_stride(reader *r)
{
    uint8_t k = (uint8_t)take(r, 1);
    switch (k >> 5) {
    case 0: case 1: case 2: return (int64_t)(k % 13) - 6;     /* -6..6 */
    case 3: return (int64_t)(k % 32) * 7 - 100;
    case 4: return INT64_MAX - (int64_t)(k % 4);
    case 5: return INT64_MIN + (int64_t)(k % 4);
    case 6: return (int64_t)(k % 8) * 64;
    default: return (int64_t)take(r, 8);
    }
}

/* Element offsets (lowest, highest) the layout addresses; false when they overflow. Rank >= 0, sizes >= 1. */
static bool span(int nd, const int64_t *shape, const int64_t *strides, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0, row = 1;
    for (int i = nd - 1; i >= 0; i--) {
        int64_t st = strides ? strides[i] : row, d;
        if (!strides && i > 0 && __builtin_mul_overflow(row, shape[i], &row))
            return false;
        if (shape[i] == 1)
            continue;
        if (__builtin_mul_overflow(shape[i] - 1, st, &d))
            return false;
        if (__builtin_add_overflow(d < 0 ? l : h, d, d < 0 ? &l : &h))
            return false;
    }
    *lo = l;
    *hi = h;
    return true;
}

typedef struct producer {
    int deleted;
} producer;

static void del_v(DLManagedTensorVersioned *m) { ((producer *)m->manager_ctx)->deleted++; }
static void del_l(DLManagedTensor *m) { ((producer *)m->manager_ctx)->deleted++; }

/* The logical contents the layout addresses, row-major, into dst. */
static void expected(const DLTensor *dl, int64_t es, int64_t numel, unsigned char *dst)
{
    int nd = dl->ndim;
    int64_t idx[16] = {0}, row[16] = {0};
    for (int64_t i = nd - 1, r = 1; !dl->strides && numel > 0 && i >= 0; i--) { /* numel is small here */
        row[i] = r;
        r *= dl->shape[i];
    }
    for (int64_t e = 0; e < numel; e++) {
        int64_t off = 0;
        for (int i = 0; i < nd; i++)
            off += idx[i] * (dl->strides ? dl->strides[i] : row[i]);
        memcpy(dst + e * es, (const char *)dl->data + dl->byte_offset + off * es, (size_t)es);
        for (int i = nd - 1; i >= 0 && ++idx[i] == dl->shape[i]; i--)
            idx[i] = 0;
    }
}

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_dlpack: %s (%s)\n", what, wk_last_error());
    abort();
}

/* Reads t back and compares with the layout's elements (when small enough to read). */
static void check_contents(wk_tensor *t, const DLTensor *dl, int64_t es, int64_t numel)
{
    if (wk_tensor_rank(t) != dl->ndim || wk_tensor_numel(t) != numel)
        fail("imported shape differs");
    for (int i = 0; i < dl->ndim; i++)
        if (wk_tensor_shape(t)[i] != dl->shape[i])
            fail("imported shape differs");
    int64_t bytes = 0;
    if (__builtin_mul_overflow(numel, es, &bytes) || bytes > READ_CAP)
        return;
    wk_tensor *c = NULL;
    if (wk_contiguous(t, &c) != WK_OK)
        fail("wk_contiguous of an import failed");
    size_t n = (size_t)(numel * es);
    unsigned char *got = malloc(n + 1), *want = malloc(n + 1);
    if (!got || !want || wk_tensor_to_host(c, got, n + 1) != WK_OK)
        fail("reading an import back failed");
    expected(dl, es, numel, want);
    if (memcmp(got, want, n) != 0)
        fail("an import reads back other bytes than the producer's");
    free(got);
    free(want);
    wk_tensor_release(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char *buf;
    if (!buf && !(buf = aligned_alloc(64, BUF_BYTES)))
        return 0;
    reader r = {data, size};
    unsigned mode = (unsigned)take(&r, 1);
    bool legacy = mode & 1, strided = mode & 2, ro = mode & 4;
    unsigned flags = (mode & 8) ? WK_DLPACK_ALLOW_COPY : 0;
    if ((mode & 0xf0) == 0xf0)
        flags |= 2; /* an unknown import flag: refused */
    uint8_t v = (uint8_t)take(&r, 1);
    uint32_t major = v < 200 ? 1 : v % 4;
    uint8_t dv = (uint8_t)take(&r, 1);
    DLDevice dev = {dv < 160 ? kDLCPU : (DLDeviceType)(dv % 16), (int32_t)(int8_t)take(&r, 1)};
    int nd = (int)(take(&r, 1) % 13) - 2;
    uint8_t ty = (uint8_t)take(&r, 1);
    static const uint8_t bits[] = {8, 16, 32, 64, 1, 0, 128, 24};
    DLDataType dt = {(uint8_t)(ty % 8), bits[(ty >> 3) % 8], (ty >> 6) == 3 ? (uint16_t)take(&r, 2) : 1};
    int64_t *shape = nd > 0 ? malloc(sizeof(int64_t) * (size_t)nd) : NULL; /* exact size: ASan sees overreads */
    int64_t *strides = nd > 0 && strided ? malloc(sizeof(int64_t) * (size_t)nd) : NULL;
    for (int i = 0; i < nd; i++) {
        shape[i] = pick_size(&r);
        if (strides)
            strides[i] = pick_stride(&r);
    }
    uint8_t ob = (uint8_t)take(&r, 1);
    uint64_t byte_offset = ob < 192 ? (uint64_t)(ob % 64) * 8 : ob < 240 ? ob % 16 : take(&r, 8);
    for (size_t i = 0; i < BUF_BYTES; i++)
        buf[i] = (unsigned char)(i * 131 + (r.n ? r.p[i % r.n] : 0));

    /* the producer's promise: every addressed element inside buf */
    int64_t es = dt.bits / 8 ? (int64_t)(dt.bits / 8) * (dt.lanes ? dt.lanes : 1) : 1, numel = 1, lo = 0, hi = 0;
    bool empty = false, neg = false, big = false, valid = nd >= 0 && nd <= 8;
    for (int i = 0; i < nd; i++) {
        valid &= shape[i] >= 0;
        empty |= shape[i] == 0;
        if (shape[i] >= 0 && __builtin_mul_overflow(numel, shape[i], &numel))
            valid = false;
    }
    bool inside = valid && !empty && span(nd, shape, strides, &lo, &hi) && byte_offset < BUF_BYTES &&
                  lo > -BUF_BYTES && hi < BUF_BYTES && (int64_t)byte_offset + lo * es >= 0 &&
                  (int64_t)byte_offset + (hi + 1) * es <= BUF_BYTES;
    void *ptr = buf;
    if (!inside && !empty) {
        if (nd <= 0 && valid) /* a rank-0 tensor addresses one element: no way to make it empty */
            goto done;
        if (nd > 0)
            shape[take(&r, 1) % (unsigned)nd] = 0; /* addresses nothing */
        numel = 0;
        ptr = (ob & 1) ? NULL : buf;
    }
    if (ptr && byte_offset > BUF_BYTES)
        byte_offset %= BUF_BYTES; /* a producer's data + byte_offset points into its buffer */
    valid = nd >= 0 && nd <= 8; /* again: the dim zeroed may have been a negative one */
    for (int i = 0; i < nd; i++)
        valid &= shape[i] >= 0;
    for (int i = 0; i < nd; i++) /* as wick sees it: a dim of size 0 or 1 addresses nothing by its stride */
        neg |= strides && shape[i] > 1 && strides[i] < 0;
    int64_t bytes = 0;
    big = __builtin_mul_overflow(numel, es, &bytes) || bytes > READ_CAP;
    if (big && neg && (flags & WK_DLPACK_ALLOW_COPY))
        flags &= ~WK_DLPACK_ALLOW_COPY; /* the copy would be larger than the fuzzer's memory limit */
    DLTensor dl = {ptr, dev, nd, dt, shape, strides, byte_offset};
    producer prod = {0};
    DLManagedTensorVersioned mv = {{major, v}, &prod, del_v, ro ? DLPACK_FLAG_BITMASK_READ_ONLY : 0, dl};
    DLManagedTensor ml = {dl, &prod, del_l};
    DLManagedTensorVersioned mv0 = mv;
    DLManagedTensor ml0 = ml;
    wk_tensor *sentinel = (wk_tensor *)&prod, *t = sentinel;
    wk_status s = legacy ? wk_from_dlpack_legacy(&ml, flags, &t) : wk_from_dlpack(&mv, flags, &t);
    if (memcmp(&mv, &mv0, sizeof mv) || memcmp(&ml, &ml0, sizeof ml))
        fail("the producer's struct changed");
    if (s != WK_OK) {
        if (t != sentinel || prod.deleted || !wk_last_error()[0])
            fail("a refusal touched out or the deleter, or said nothing");
        goto done;
    }
    if (!valid || (major != 1 && !legacy) || (flags & 2) || (neg && !(flags & WK_DLPACK_ALLOW_COPY)))
        fail("an import the API refuses succeeded");
    bool copied = neg;
    if (prod.deleted != (copied ? 1 : 0))
        fail("the deleter ran at the wrong time");
    if (!copied && wk_tensor_is_read_only(t) != (ro && !legacy))
        fail("read-only flag lost");
    check_contents(t, &dl, es, numel);
    wk_tensor *view = NULL;
    if (wk_unsqueeze(t, 0, &view) != WK_OK && nd < 8)
        fail("unsqueeze of an import failed");
    wk_tensor_retain(t);
    wk_tensor_release(t);
    wk_tensor_release(t);
    if (prod.deleted != (copied ? 1 : 0) && view)
        fail("the deleter ran while a view lived");
    wk_tensor_release(view);
    if (prod.deleted != 1)
        fail("the deleter did not run exactly once at the last release");
done:
    free(shape);
    free(strides);
    return 0;
}

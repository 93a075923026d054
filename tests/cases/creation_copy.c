/* creation_copy.c: cases for the copies: contiguous, to_device, copy_into (broadcast, aliasing and permuted
 * sources), slice_set, cat and copy2d. In-place ops are checked over their whole storage, so stray writes show. */
#include <stdlib.h>
#include <string.h>

#include "creation.h"

static int64_t numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* Row-major multi-index of li. */
static void unravel(int64_t li, int rank, const int64_t *shape, int64_t *idx)
{
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = shape[d] ? li % shape[d] : 0;
        li = shape[d] ? li / shape[d] : 0;
    }
}

static int64_t ravel(int rank, const int64_t *shape, const int64_t *idx)
{
    int64_t li = 0;
    for (int d = 0; d < rank; d++)
        li = li * shape[d] + idx[d];
    return li;
}

/* A random view of (rank, shape) in layout, values across the dtype's range plus its boundary values. */
static bool make_input(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                       wkt_rng *rng, crt_view *v, wkt_result *r)
{
    int64_t n = numel(rank, shape);
    void *logical = malloc((size_t)n * wk_dtype_size(dt) + 1);
    if (!logical) {
        wkt_fail(r, "out of host memory");
        return false;
    }
    crt_random(dt, logical, n, true, rng);
    crt_specials(dt, logical, n / 2);
    if (!wkt_layout_applies(layout, rank, shape))
        layout = WKT_CONTIG;
    wk_status s = crt_make(dev, dt, rank, shape, layout, logical, 0x6b, v);
    free(logical);
    return !wkt_failed(s, r, "make input");
}

/* The whole storage under a view, as a 1-D tensor. */
static bool storage_of(const crt_view *v, wk_tensor **all, wkt_result *r)
{
    int64_t one = 1;
    return !wkt_failed(wk_as_strided(v->t, 1, &v->phys_n, &one, 0, all), r, "storage view");
}

/* Reads the storage under v and compares it with want. */
static void check_storage(const crt_view *v, wk_dtype dt, const void *want, const char *what, wkt_result *r)
{
    wk_tensor *all = NULL;
    void *got = NULL;
    if (storage_of(v, &all, r) && crt_read(all, &got, r))
        crt_compare(dt, got, want, v->phys_n, what, r);
    free(got);
    wk_tensor_release(all);
}

static void *copy_of(const void *src, size_t bytes)
{
    void *p = malloc(bytes + 1);
    if (p)
        memcpy(p, src, bytes);
    return p;
}

/* ---------------------------------------------------------------- contiguous, to_device */

/* iparam[0]: 0 contiguous, 1 to_device (onto the same device). The result is a fresh copy: writing it must
 * leave the input alone. */
static void run_contiguous(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    crt_view in = {0};
    wk_tensor *out = NULL;
    void *got = NULL, *again = NULL;
    if (!make_input(dev, c->dtype, c->rank, c->shape, c->layout, rng, &in, r))
        goto done;
    wk_status s = c->iparam[0] ? wk_to_device(in.t, dev, &out) : wk_contiguous(in.t, &out);
    if (wkt_failed(s, r, c->op))
        goto done;
    if (wk_tensor_dtype(out) != c->dtype || wk_tensor_rank(out) != c->rank || !wk_tensor_is_contiguous(out) ||
        wk_tensor_device(out) != dev ||
        (c->rank && memcmp(wk_tensor_shape(out), c->shape, (size_t)c->rank * sizeof c->shape[0]) != 0)) {
        wkt_fail(r, "result has the wrong dtype, shape, device or layout");
        goto done;
    }
    if (!crt_read(out, &got, r))
        goto done;
    crt_compare(c->dtype, got, in.eff, in.numel, c->op, r);
    if (r->pass && !wkt_failed(wk_fill(out, 0), r, "fill result") && crt_read(in.t, &again, r))
        crt_compare(c->dtype, again, in.eff, in.numel, "input after writing the copy", r);
done:
    free(got);
    free(again);
    wk_tensor_release(out);
    crt_view_free(&in);
}

/* ---------------------------------------------------------------- copy_into */

enum { SRC_SAME, SRC_TAIL, SRC_MIDDLE_ONE, SRC_ONE, SRC_SCALAR, SRC_SHIFTED, SRC_TRANSPOSED_SELF };

/* The dst view has the case's layout; iparam[0] picks the source (broadcast shapes, or a view of dst's own
 * storage, which must act as if read completely before any write); iparam[1] the source's layout. */
static void run_copy_into(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[0], rank = c->rank;
    wk_dtype dt = c->dtype;
    size_t es = wk_dtype_size(dt);
    crt_view dst = {0}, src = {0};
    wk_tensor *self_src = NULL, *all = NULL;
    void *want = NULL;
    if (!make_input(dev, dt, rank, c->shape, c->layout, rng, &dst, r))
        goto done;
    want = copy_of(dst.phys, (size_t)dst.phys_n * es);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    const wk_tensor *source;
    if (kind == SRC_SHIFTED || kind == SRC_TRANSPOSED_SELF) {
        /* shifted: the same layout one element lower in the storage; transposed: dst's own transpose */
        const int64_t *st = wk_tensor_strides(dst.t);
        int64_t strides[WK_MAX_RANK], off = wk_tensor_offset(dst.t) - (kind == SRC_SHIFTED ? 1 : 0);
        memcpy(strides, st, (size_t)rank * sizeof *st);
        if (kind == SRC_TRANSPOSED_SELF) {
            strides[rank - 2] = st[rank - 1];
            strides[rank - 1] = st[rank - 2];
        }
        if (!storage_of(&dst, &all, r) ||
            wkt_failed(wk_as_strided(all, rank, c->shape, strides, off, &self_src), r, "source view"))
            goto done;
        source = self_src;
        int64_t idx[WK_MAX_RANK];
        for (int64_t li = 0; li < dst.numel; li++) {
            int64_t p = off;
            unravel(li, rank, c->shape, idx);
            for (int d = 0; d < rank; d++)
                p += idx[d] * strides[d];
            memcpy((char *)want + dst.map[li] * (int64_t)es, (char *)dst.phys + p * (int64_t)es, es);
        }
    } else {
        int64_t sshape[WK_MAX_RANK];
        int srank = rank;
        memcpy(sshape, c->shape, sizeof sshape);
        if (kind == SRC_TAIL) {
            srank = rank - 1;
            memmove(sshape, c->shape + 1, (size_t)srank * sizeof *sshape);
        } else if (kind == SRC_MIDDLE_ONE) {
            sshape[1] = 1;
        } else if (kind == SRC_ONE) {
            srank = 1;
            sshape[0] = 1;
        } else if (kind == SRC_SCALAR) {
            srank = 0;
        }
        if (!make_input(dev, dt, srank, sshape, (wkt_layout)c->iparam[1], rng, &src, r))
            goto done;
        source = src.t;
        int64_t idx[WK_MAX_RANK], sidx[WK_MAX_RANK];
        for (int64_t li = 0; li < dst.numel; li++) {
            unravel(li, rank, c->shape, idx);
            for (int d = 0; d < srank; d++) {
                int64_t i = idx[d + rank - srank];
                sidx[d] = sshape[d] == 1 ? 0 : i;
            }
            int64_t sli = ravel(srank, sshape, sidx);
            memcpy((char *)want + dst.map[li] * (int64_t)es, (char *)src.eff + sli * (int64_t)es, es);
        }
    }
    if (!wkt_failed(wk_copy_into(dst.t, source), r, "copy_into"))
        check_storage(&dst, dt, want, "dst storage", r);
done:
    free(want);
    wk_tensor_release(self_src);
    wk_tensor_release(all);
    crt_view_free(&dst);
    crt_view_free(&src);
}

/* ---------------------------------------------------------------- permuted sources */

/* The source is stored in the case's layout with the dims in another order and viewed through wk_permute, so
 * its unit stride lies in another dim than the destination's (the CPU's tiled transpose). iparam: 0 contiguous
 * or 1 copy_into, copy_into's dst layout, then perm (result dim d is stored dim perm[d]). */
static void run_permuted_copy(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int rank = c->rank;
    const int *perm = c->iparam + 2;
    wk_dtype dt = c->dtype;
    int64_t es = (int64_t)wk_dtype_size(dt), stored[WK_MAX_RANK], idx[WK_MAX_RANK], sidx[WK_MAX_RANK];
    crt_view in = {0}, dst = {0};
    wk_tensor *view = NULL, *out = NULL;
    void *want = NULL, *got = NULL, *whole = NULL;
    for (int d = 0; d < rank; d++)
        stored[perm[d]] = c->shape[d];
    if (!make_input(dev, dt, rank, stored, c->layout, rng, &in, r) ||
        wkt_failed(wk_permute(in.t, perm, &view), r, "permute"))
        goto done;
    want = malloc((size_t)(in.numel * es) + 1);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t li = 0; li < in.numel; li++) {
        unravel(li, rank, c->shape, idx);
        for (int d = 0; d < rank; d++)
            sidx[perm[d]] = idx[d];
        memcpy((char *)want + li * es, (char *)in.eff + ravel(rank, stored, sidx) * es, (size_t)es);
    }
    if (c->iparam[0] == 0) {
        if (wkt_failed(wk_contiguous(view, &out), r, "contiguous"))
            goto done;
        if (!wk_tensor_is_contiguous(out) || wk_tensor_rank(out) != rank ||
            memcmp(wk_tensor_shape(out), c->shape, (size_t)rank * sizeof *c->shape) != 0) {
            wkt_fail(r, "result has the wrong shape or layout");
            goto done;
        }
        if (crt_read(out, &got, r))
            crt_compare(dt, got, want, in.numel, "contiguous", r);
        goto done;
    }
    if (!make_input(dev, dt, rank, c->shape, (wkt_layout)c->iparam[1], rng, &dst, r))
        goto done;
    whole = copy_of(dst.phys, (size_t)(dst.phys_n * es));
    if (!whole) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t li = 0; li < dst.numel; li++)
        memcpy((char *)whole + dst.map[li] * es, (char *)want + li * es, (size_t)es);
    if (!wkt_failed(wk_copy_into(dst.t, view), r, "copy_into"))
        check_storage(&dst, dt, whole, "dst storage", r);
done:
    free(want);
    free(got);
    free(whole);
    wk_tensor_release(view);
    wk_tensor_release(out);
    crt_view_free(&in);
    crt_view_free(&dst);
}

/* ---------------------------------------------------------------- slice_set */

/* iparam: dim (may be negative), start, len, source layout. dst has the case's layout and shape. */
static void run_slice_set(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int rank = c->rank, dim = c->iparam[0] < 0 ? c->iparam[0] + rank : c->iparam[0];
    int64_t start = c->iparam[1], len = c->iparam[2];
    wk_dtype dt = c->dtype;
    size_t es = wk_dtype_size(dt);
    crt_view dst = {0}, src = {0};
    void *want = NULL;
    int64_t sshape[WK_MAX_RANK], idx[WK_MAX_RANK];
    memcpy(sshape, c->shape, sizeof sshape);
    sshape[dim] = len;
    if (start + len > c->shape[dim]) { /* the slice does not fit (an emptied dim): a shape error, nothing written */
        if (make_input(dev, dt, rank, c->shape, c->layout, rng, &dst, r) &&
            make_input(dev, dt, rank, sshape, (wkt_layout)c->iparam[3], rng, &src, r)) {
            wk_status s = wk_slice_set(dst.t, src.t, c->iparam[0], start);
            if (s != WK_ERR_SHAPE)
                wkt_fail(r, "slice_set past the end: %s, want WK_ERR_SHAPE", wk_status_string(s));
        }
        goto done;
    }
    if (!make_input(dev, dt, rank, c->shape, c->layout, rng, &dst, r) ||
        !make_input(dev, dt, rank, sshape, (wkt_layout)c->iparam[3], rng, &src, r))
        goto done;
    want = copy_of(dst.phys, (size_t)dst.phys_n * es);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t li = 0; li < src.numel; li++) {
        unravel(li, rank, sshape, idx);
        idx[dim] += start;
        int64_t dli = ravel(rank, c->shape, idx);
        memcpy((char *)want + dst.map[dli] * (int64_t)es, (char *)src.eff + li * (int64_t)es, es);
    }
    if (!wkt_failed(wk_slice_set(dst.t, src.t, c->iparam[0], start), r, "slice_set"))
        check_storage(&dst, dt, want, "dst storage", r);
done:
    free(want);
    crt_view_free(&dst);
    crt_view_free(&src);
}

/* ---------------------------------------------------------------- cat */

/* iparam: dim (may be negative), n (1..3), then the n lengths along dim. Input k takes layout case+k. */
static void run_cat(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int rank = c->rank, n = c->iparam[1], dim = c->iparam[0] < 0 ? c->iparam[0] + rank : c->iparam[0];
    wk_dtype dt = c->dtype;
    size_t es = wk_dtype_size(dt);
    crt_view in[3] = {{0}, {0}, {0}};
    const wk_tensor *ts[3];
    wk_tensor *out = NULL;
    void *want = NULL, *got = NULL;
    int64_t oshape[WK_MAX_RANK], ishape[WK_MAX_RANK], idx[WK_MAX_RANK];
    memcpy(oshape, c->shape, sizeof oshape);
    oshape[dim] = 0;
    for (int k = 0; k < n; k++) {
        memcpy(ishape, c->shape, sizeof ishape);
        ishape[dim] = c->iparam[2 + k];
        oshape[dim] += ishape[dim];
        if (!make_input(dev, dt, rank, ishape, (wkt_layout)((c->layout + k) % WKT_LAYOUT_COUNT), rng, &in[k], r))
            goto done;
        ts[k] = in[k].t;
    }
    int64_t total = numel(rank, oshape);
    want = malloc((size_t)total * es + 1);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t li = 0; li < total; li++) {
        unravel(li, rank, oshape, idx);
        int k = 0;
        while (idx[dim] >= c->iparam[2 + k]) {
            idx[dim] -= c->iparam[2 + k];
            k++;
        }
        memcpy(ishape, c->shape, sizeof ishape);
        ishape[dim] = c->iparam[2 + k];
        memcpy((char *)want + li * (int64_t)es, (char *)in[k].eff + ravel(rank, ishape, idx) * (int64_t)es, es);
    }
    if (wkt_failed(wk_cat(ts, n, c->iparam[0], &out), r, "cat"))
        goto done;
    if (wk_tensor_rank(out) != rank || memcmp(wk_tensor_shape(out), oshape, (size_t)rank * sizeof *oshape) != 0 ||
        !wk_tensor_is_contiguous(out) || wk_tensor_dtype(out) != dt) {
        wkt_fail(r, "result has the wrong dtype, shape or layout");
        goto done;
    }
    if (crt_read(out, &got, r))
        crt_compare(dt, got, want, total, "cat", r);
done:
    free(want);
    free(got);
    wk_tensor_release(out);
    for (int k = 0; k < 3; k++)
        crt_view_free(&in[k]);
}

/* ---------------------------------------------------------------- copy2d */

/* iparam: rows, cols, src_ld, dst_ld, src_offset, dst_offset, and 1 when dst is another part of src's
 * storage. Both tensors are views with their own offsets, which copy2d must not add. */
static void run_copy2d(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    const int *p = c->iparam;
    bool same = p[6] == 1;
    wk_dtype dt = c->dtype;
    size_t es = wk_dtype_size(dt);
    int64_t src_n = 400, dst_n = 500, view_len = 5;
    crt_view src = {0}, dst = {0};
    wk_tensor *sv = NULL, *dv = NULL;
    void *want = NULL;
    int64_t one = 1;
    if (!make_input(dev, dt, 1, &src_n, WKT_CONTIG, rng, &src, r) ||
        (!same && !make_input(dev, dt, 1, &dst_n, WKT_CONTIG, rng, &dst, r)))
        goto done;
    crt_view *dstore = same ? &src : &dst;
    if (wkt_failed(wk_as_strided(src.t, 1, &view_len, &one, 7, &sv), r, "src view") ||
        wkt_failed(wk_as_strided(dstore->t, 1, &view_len, &one, 11, &dv), r, "dst view"))
        goto done;
    want = copy_of(dstore->phys, (size_t)dstore->phys_n * es);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t i = 0; i < p[0]; i++)
        for (int64_t j = 0; j < p[1]; j++)
            memcpy((char *)want + (p[5] + i * p[3] + j) * (int64_t)es,
                   (char *)src.phys + (p[4] + i * p[2] + j) * (int64_t)es, es);
    if (wkt_failed(wk_copy2d(sv, dv, p[0], p[1], p[2], p[3], p[4], p[5]), r, "copy2d"))
        goto done;
    check_storage(dstore, dt, want, "dst storage", r);
    if (!same)
        check_storage(&src, dt, src.phys, "src storage", r);
done:
    free(want);
    wk_tensor_release(sv);
    wk_tensor_release(dv);
    crt_view_free(&src);
    crt_view_free(&dst);
}

/* ---------------------------------------------------------------- the list */

static void add(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                wkt_run_fn run, const int *params, int nparams)
{
    wkt_case c = {.family = "creation", .dtype = dt, .layout = layout, .rank = rank, .run = run};
    snprintf(c.op, sizeof c.op, "%s", op);
    if (rank)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    if (nparams)
        memcpy(c.iparam, params, (size_t)nparams * sizeof *params);
    wkt_add(l, &c);
}

enum { TO_CONTIGUOUS, TO_VIEW };

/* A permuted-source case (run_permuted_copy): `to` picks contiguous or copy_into into a dst_layout view. */
static void add_permuted(wkt_list *l, int to, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape,
                         const int *perm, wkt_layout dst_layout)
{
    int params[8] = {to, dst_layout};
    memcpy(params + 2, perm, (size_t)rank * sizeof *perm);
    add(l, to == TO_CONTIGUOUS ? "contiguous" : "copy_into", dt, layout, rank, shape, run_permuted_copy, params,
        2 + rank);
}

/* Transposing copies of every element size: odd sizes (tiles and 16-byte blocks cut short), batched and fully
 * permuted, long thin ones, offset and padded sources and destinations, a transposed destination. */
static void permuted_copy_cases(wkt_list *l)
{
    static const int t2[] = {1, 0}, id2[] = {0, 1}, batch[] = {0, 2, 1}, rot[] = {2, 0, 1}, rot2[] = {1, 2, 0},
                     p4[] = {3, 1, 0, 2};
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        wk_dtype dt = (wk_dtype)d;
        wkt_layout alt = d % 2 ? WKT_OFFSET : WKT_CONTIG;
        add_permuted(l, TO_CONTIGUOUS, dt, WKT_CONTIG, 2, (const int64_t[]){67, 45}, t2, WKT_CONTIG);
        add_permuted(l, TO_CONTIGUOUS, dt, WKT_OFFSET, 2, (const int64_t[]){33, 70}, t2, WKT_CONTIG);
        add_permuted(l, TO_CONTIGUOUS, dt, alt, 3, (const int64_t[]){3, 37, 21}, batch, WKT_CONTIG);
        add_permuted(l, TO_CONTIGUOUS, dt, WKT_OFFSET, 3, (const int64_t[]){5, 19, 23}, d % 2 ? rot : rot2,
                     WKT_CONTIG);
        add_permuted(l, TO_CONTIGUOUS, dt, alt, 4, (const int64_t[]){3, 5, 2, 17}, p4, WKT_CONTIG);
        add_permuted(l, TO_CONTIGUOUS, dt, WKT_CONTIG, 2, (const int64_t[]){3, 301}, t2, WKT_CONTIG);
        add_permuted(l, TO_VIEW, dt, WKT_CONTIG, 2, (const int64_t[]){45, 67}, t2, d % 2 ? WKT_OFFSET : WKT_CONTIG);
        add_permuted(l, TO_VIEW, dt, alt, 2, (const int64_t[]){50, 37}, id2, WKT_TRANSPOSED);
        add_permuted(l, TO_VIEW, dt, WKT_OFFSET, 3, (const int64_t[]){2, 33, 18}, batch, WKT_PERMUTED);
    }
    /* threaded (more than one thread's worth of tiles), with tiles cut short along a and b and batches split
     * between threads; the f64 one has line-aligned rows and is large enough for streaming stores */
    add_permuted(l, TO_CONTIGUOUS, WK_F32, WKT_CONTIG, 2, (const int64_t[]){300, 261}, t2, WKT_CONTIG);
    add_permuted(l, TO_CONTIGUOUS, WK_U8, WKT_OFFSET, 2, (const int64_t[]){1100, 520}, t2, WKT_CONTIG);
    add_permuted(l, TO_CONTIGUOUS, WK_BF16, WKT_CONTIG, 3, (const int64_t[]){3, 260, 143}, batch, WKT_CONTIG);
    add_permuted(l, TO_CONTIGUOUS, WK_I32, WKT_CONTIG, 2, (const int64_t[]){40001, 2}, t2, WKT_CONTIG);
    add_permuted(l, TO_CONTIGUOUS, WK_U32, WKT_CONTIG, 3, (const int64_t[]){2, 1050, 66}, batch, WKT_CONTIG);
    add_permuted(l, TO_VIEW, WK_I64, WKT_CONTIG, 3, (const int64_t[]){130, 3, 170}, rot, WKT_OFFSET);
    add_permuted(l, TO_CONTIGUOUS, WK_F64, WKT_CONTIG, 2, (const int64_t[]){1451, 1448}, t2, WKT_CONTIG);
    add(l, "copy_into", WK_F32, WKT_CONTIG, 3, (const int64_t[]){4, 130, 150}, run_copy_into,
        (const int[]){SRC_TAIL, WKT_TRANSPOSED}, 2);
}

void crt_copy_cases(wkt_list *l)
{
    static const int64_t cube[] = {3, 4, 5}, empty[] = {3, 0, 2}, big[] = {190, 180}, slab[] = {4, 6, 5},
                         square[] = {6, 6};
    static const wkt_layout dst_layouts[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_PERMUTED, WKT_OFFSET},
                            self_layouts[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_OFFSET}; /* rank 2: no permuted */
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        wk_dtype dt = (wk_dtype)d;
        for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++)
            add(l, "contiguous", dt, (wkt_layout)lay, 3, cube, run_contiguous, (const int[]){0}, 1);
        add(l, "contiguous", dt, WKT_OFFSET, 0, NULL, run_contiguous, (const int[]){0}, 1);
        add(l, "contiguous", dt, WKT_TRANSPOSED, 3, empty, run_contiguous, (const int[]){0}, 1);
        add(l, "to_device", dt, (wkt_layout)(d % 2 ? WKT_CONTIG : WKT_PERMUTED), 3, cube, run_contiguous,
            (const int[]){1}, 1);
        /* copy_into: each source kind once per dtype, dst layouts rotating */
        for (int kind = SRC_SAME; kind <= SRC_SCALAR; kind++)
            add(l, "copy_into", dt, dst_layouts[(d + kind) % 4], 3, cube, run_copy_into,
                (const int[]){kind, (d + kind + 1) % WKT_LAYOUT_COUNT}, 2);
        add(l, "copy_into", dt, WKT_OFFSET, 3, cube, run_copy_into, (const int[]){SRC_SHIFTED, 0}, 2);
        add(l, "copy_into", dt, self_layouts[d % 3], 2, square, run_copy_into, (const int[]){SRC_TRANSPOSED_SELF, 0},
            2);
        /* slice_set: every dim (one negative), into offset and strided views */
        add(l, "slice_set", dt, WKT_OFFSET, 3, slab, run_slice_set, (const int[]){0, 1, 2, WKT_TRANSPOSED}, 4);
        add(l, "slice_set", dt, dst_layouts[d % 4], 3, slab, run_slice_set, (const int[]){1, 3, 3, WKT_OFFSET}, 4);
        add(l, "slice_set", dt, WKT_OFFSET, 3, slab, run_slice_set, (const int[]){-1, 0, 5, WKT_BROADCAST}, 4);
        add(l, "slice_set", dt, WKT_PERMUTED, 3, slab, run_slice_set, (const int[]){2, 4, 0, WKT_CONTIG}, 4);
        /* cat: along each dim, 1..3 inputs, zero-length ones among them */
        add(l, "cat", dt, (wkt_layout)(d % WKT_LAYOUT_COUNT), 3, cube, run_cat, (const int[]){0, 1, 3}, 3);
        add(l, "cat", dt, (wkt_layout)((d + 1) % WKT_LAYOUT_COUNT), 3, cube, run_cat, (const int[]){1, 2, 2, 5}, 4);
        add(l, "cat", dt, (wkt_layout)((d + 2) % WKT_LAYOUT_COUNT), 3, cube, run_cat,
            (const int[]){2, 3, 3, 0, 4}, 5);
        add(l, "cat", dt, (wkt_layout)((d + 3) % WKT_LAYOUT_COUNT), 3, cube, run_cat,
            (const int[]){-3, 3, 0, 2, 0}, 5);
        add(l, "cat", dt, WKT_CONTIG, 1, (const int64_t[]){4}, run_cat, (const int[]){0, 3, 0, 0, 0}, 5);
        /* copy2d: padded rows, a broadcast row (src_ld 0), one row, within one storage */
        add(l, "copy2d", dt, WKT_CONTIG, 0, NULL, run_copy2d, (const int[]){7, 9, 13, 20, 3, 5, 0}, 7);
        add(l, "copy2d", dt, WKT_CONTIG, 0, NULL, run_copy2d, (const int[]){6, 11, 0, 11, 389, 0, 0}, 7);
        add(l, "copy2d", dt, WKT_CONTIG, 0, NULL, run_copy2d, (const int[]){1, 400, 0, 0, 0, 100, 0}, 7);
        add(l, "copy2d", dt, WKT_CONTIG, 0, NULL, run_copy2d, (const int[]){5, 8, 10, 10, 0, 200, 1}, 7);
        add(l, "copy2d", dt, WKT_CONTIG, 0, NULL, run_copy2d, (const int[]){0, 8, 10, 10, 0, 0, 0}, 7);
    }
    /* threaded sizes */
    add(l, "contiguous", WK_F32, WKT_TRANSPOSED, 2, big, run_contiguous, (const int[]){0}, 1);
    add(l, "contiguous", WK_U8, WKT_PERMUTED, 3, (const int64_t[]){40, 30, 30}, run_contiguous, (const int[]){0}, 1);
    add(l, "copy_into", WK_F16, WKT_TRANSPOSED, 2, big, run_copy_into, (const int[]){SRC_TAIL, 0}, 2);
    add(l, "copy_into", WK_F64, WKT_OFFSET, 2, big, run_copy_into, (const int[]){SRC_SHIFTED, 0}, 2);
    add(l, "cat", WK_I64, WKT_TRANSPOSED, 2, big, run_cat, (const int[]){1, 2, 100, 90}, 4);
    permuted_copy_cases(l);
}

void crt_copy_errors(wkt_errctx *e)
{
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2};
    wk_device *dev = e->dev;
    wk_tensor *a = NULL, *b = NULL, *ai = NULL, *v = NULL, *bc = NULL, *o = NULL, *r0 = NULL;
    if (wk_arange(dev, WK_F32, 0, 6, 1, &v) != WK_OK || wk_reshape(v, 2, s23, &a) != WK_OK ||
        wk_zeros(dev, WK_F32, 2, s32, &b) != WK_OK || wk_zeros(dev, WK_I32, 2, s23, &ai) != WK_OK ||
        wk_broadcast_to(v, 2, (const int64_t[]){2, 6}, &bc) != WK_OK || wk_zeros(dev, WK_F32, 0, NULL, &r0) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL copy errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    float before[6], after[6];
    wk_tensor_to_host(a, before, sizeof before);

    WKT_EXPECT(e, wk_contiguous(NULL, &o), WK_ERR_INVALID_ARGUMENT, "contiguous");
    WKT_EXPECT(e, wk_contiguous(a, NULL), WK_ERR_INVALID_ARGUMENT, "contiguous");
    WKT_EXPECT(e, wk_to_device(a, NULL, &o), WK_ERR_INVALID_ARGUMENT, "to_device");
    WKT_EXPECT(e, wk_to_device(NULL, dev, &o), WK_ERR_INVALID_ARGUMENT, "to_device");
    WKT_EXPECT(e, wk_to_device(a, dev, NULL), WK_ERR_INVALID_ARGUMENT, "to_device");

    WKT_EXPECT(e, wk_copy_into(NULL, a), WK_ERR_INVALID_ARGUMENT, "copy_into");
    WKT_EXPECT(e, wk_copy_into(a, NULL), WK_ERR_INVALID_ARGUMENT, "copy_into");
    WKT_EXPECT(e, wk_copy_into(a, ai), WK_ERR_DTYPE, "copy_into");
    WKT_EXPECT(e, wk_copy_into(a, b), WK_ERR_SHAPE, "copy_into");
    WKT_EXPECT(e, wk_copy_into(a, bc), WK_ERR_SHAPE, "copy_into"); /* src larger than dst */
    WKT_EXPECT(e, wk_copy_into(bc, a), WK_ERR_INVALID_ARGUMENT, "copy_into"); /* dst overlaps itself */

    WKT_EXPECT(e, wk_slice_set(NULL, a, 0, 0), WK_ERR_INVALID_ARGUMENT, "slice_set");
    WKT_EXPECT(e, wk_slice_set(a, NULL, 0, 0), WK_ERR_INVALID_ARGUMENT, "slice_set");
    WKT_EXPECT(e, wk_slice_set(a, ai, 0, 0), WK_ERR_DTYPE, "slice_set");
    WKT_EXPECT(e, wk_slice_set(a, a, 2, 0), WK_ERR_SHAPE, "slice_set");
    WKT_EXPECT(e, wk_slice_set(a, a, -3, 0), WK_ERR_SHAPE, "slice_set");
    WKT_EXPECT(e, wk_slice_set(a, a, 0, 1), WK_ERR_SHAPE, "slice_set"); /* rows [1, 3) of 2 */
    WKT_EXPECT(e, wk_slice_set(a, a, 0, -1), WK_ERR_SHAPE, "slice_set");
    WKT_EXPECT(e, wk_slice_set(a, b, 0, 0), WK_ERR_SHAPE, "slice_set"); /* other dims differ */
    WKT_EXPECT(e, wk_slice_set(a, v, 0, 0), WK_ERR_SHAPE, "slice_set"); /* other rank */
    WKT_EXPECT(e, wk_slice_set(bc, a, 1, 0), WK_ERR_INVALID_ARGUMENT, "slice_set");

    const wk_tensor *pair[2] = {a, b}, *mixed[2] = {a, ai}, *ranks[2] = {a, v}, *nul[2] = {a, NULL},
                    *scalars[1] = {r0};
    WKT_EXPECT(e, wk_cat(NULL, 1, 0, &o), WK_ERR_INVALID_ARGUMENT, "cat");
    WKT_EXPECT(e, wk_cat(pair, 0, 0, &o), WK_ERR_INVALID_ARGUMENT, "cat");
    WKT_EXPECT(e, wk_cat(pair, 2, 0, NULL), WK_ERR_INVALID_ARGUMENT, "cat");
    WKT_EXPECT(e, wk_cat(nul, 2, 0, &o), WK_ERR_INVALID_ARGUMENT, "cat");
    WKT_EXPECT(e, wk_cat(pair, 2, 0, &o), WK_ERR_SHAPE, "cat"); /* [2,3] and [3,2] along 0 */
    WKT_EXPECT(e, wk_cat(mixed, 2, 0, &o), WK_ERR_DTYPE, "cat");
    WKT_EXPECT(e, wk_cat(ranks, 2, 0, &o), WK_ERR_SHAPE, "cat");
    WKT_EXPECT(e, wk_cat(pair, 2, 2, &o), WK_ERR_SHAPE, "cat");
    WKT_EXPECT(e, wk_cat(scalars, 1, 0, &o), WK_ERR_SHAPE, "cat");

    /* copy2d over a's storage of 6 elements and b's of 6 */
    WKT_EXPECT(e, wk_copy2d(NULL, b, 1, 1, 1, 1, 0, 0), WK_ERR_INVALID_ARGUMENT, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, NULL, 1, 1, 1, 1, 0, 0), WK_ERR_INVALID_ARGUMENT, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, ai, 1, 1, 1, 1, 0, 0), WK_ERR_DTYPE, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, b, -1, 1, 1, 1, 0, 0), WK_ERR_INVALID_ARGUMENT, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, b, 1, 1, 1, 1, -1, 0), WK_ERR_INVALID_ARGUMENT, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, b, 1, 1, -2, 1, 0, 0), WK_ERR_INVALID_ARGUMENT, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, b, 2, 3, 3, 3, 1, 0), WK_ERR_SHAPE, "copy2d");  /* src reaches element 6 */
    WKT_EXPECT(e, wk_copy2d(a, b, 2, 3, 3, 4, 0, 0), WK_ERR_SHAPE, "copy2d");  /* dst reaches element 6 */
    WKT_EXPECT(e, wk_copy2d(a, b, 1, 7, 0, 0, 0, 0), WK_ERR_SHAPE, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, b, 3, 2, 2, 1, 0, 0), WK_ERR_INVALID_ARGUMENT, "copy2d"); /* dst rows overlap */
    WKT_EXPECT(e, wk_copy2d(a, b, 2, 2, INT64_MAX, 2, 0, 0), WK_ERR_SHAPE, "copy2d");
    WKT_EXPECT(e, wk_copy2d(a, a, 1, 3, 3, 3, 0, 2), WK_ERR_INVALID_ARGUMENT, "copy2d"); /* blocks overlap */

    wk_tensor_to_host(a, after, sizeof after);
    e->checks++;
    if (memcmp(before, after, sizeof before) != 0) {
        e->failures++;
        printf("FAIL copy errors: a failing call changed its target\n");
    }
    crt_expect_untouched(e, o, "copies");
done:
    wk_tensor_release(a);
    wk_tensor_release(b);
    wk_tensor_release(ai);
    wk_tensor_release(v);
    wk_tensor_release(bc);
    wk_tensor_release(r0);
}

/* reduce.c: the GPU's sum/mean/min/max and argmin/argmax slots. Picks the kernel shape from x's strides (a
 * group of lanes along each run of reduced elements, or a thread per output) and splits long reductions. */
#include <stdint.h>
#include <stdio.h>

#include "gpu/gpu.h"

/* A set of dims with size-1 dims dropped and neighbours that line up merged (row-major order kept). */
typedef struct red_dims {
    int rank;
    int64_t shape[WK_MAX_RANK], stride[WK_MAX_RANK];
} red_dims;

static void dims_merge(red_dims *r)
{
    int n = 0;
    for (int d = 0; d < r->rank; d++) {
        if (r->shape[d] == 1)
            continue;
        if (n > 0 && r->stride[n - 1] == r->stride[d] * r->shape[d]) {
            r->shape[n - 1] *= r->shape[d];
            r->stride[n - 1] = r->stride[d];
            continue;
        }
        r->shape[n] = r->shape[d];
        r->stride[n++] = r->stride[d];
    }
    r->rank = n;
}

/* x's dims [from, from + n) merged; sorted by falling stride first when the order is free (reduced dims). */
static red_dims dims_of(const wk_tensor *x, int from, int n, bool sort)
{
    red_dims r = {.rank = n};
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; sort && j > 0 && r.stride[j - 1] < x->strides[from + i]; j--) {
            r.shape[j] = r.shape[j - 1];
            r.stride[j] = r.stride[j - 1];
        }
        r.shape[j] = x->shape[from + i];
        r.stride[j] = x->strides[from + i];
    }
    dims_merge(&r);
    return r;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The smallest power of two >= v, at most cap (a power of two). */
static int pow2_at_least(int64_t v, int cap)
{
    int p = 1;
    while (p < cap && p < v)
        p *= 2;
    return p;
}

/* Work items per SM that the kernels aim for when they cut reductions into pieces: many small items taken in
 * turn keep every SM busy to the end, whatever the number of blocks resident per SM. */
#define RED_ITEMS_PER_SM 32

/* Lanes per run (G) and pieces per run for `items` runs of `units` loads each (see red_rows): short runs get
 * a few lanes, runs up to 256 loads a warp; longer ones a warp each when there are enough of them to fill the
 * device, else a 256-thread block per piece, runs cut into pieces of at least 4 loads a thread. */
static void run_shape(const wk_gpu_dev *d, int64_t units, int64_t items, int *G, int64_t *splits)
{
    int64_t sm = wk_gpu_sm_count(d);
    *splits = 1;
    if (units <= 256 || items >= sm * 32) {
        *G = units <= 128 ? pow2_at_least(cdiv(units, 4), 32) : 32;
        return;
    }
    *G = 256;
    *splits = min64(cdiv(sm * RED_ITEMS_PER_SM, items), cdiv(units, 1024));
    *splits = *splits < 1 ? 1 : *splits;
}

/* Pieces of the reduced range (see red_cols), each at least 16 elements a thread. */
static int64_t col_splits(const wk_gpu_dev *d, int64_t ntiles, int64_t count, int by)
{
    int64_t target = (int64_t)wk_gpu_sm_count(d) * RED_ITEMS_PER_SM, splits = 1;
    if (ntiles < target) {
        splits = min64(cdiv(target, ntiles), count / (by * 16));
        splits = splits < 1 ? 1 : splits;
    }
    return splits;
}

/* Groups of G lanes over `groups` items, 256-thread blocks (G <= 32: several groups per block). */
static wk_gpu_dim group_grid(const wk_gpu_dev *d, int64_t groups, int G)
{
    return (wk_gpu_dim){wk_gpu_blocks(d, groups * G, 256), 1, 1};
}

static const wk_gpu_dim block256 = {256, 1, 1};

/* ---------------------------------------------------------------- sum / mean / min / max */

/* out[o] = op over part[o * so + i * ss], i < np. */
static wk_status reduce_finish(wk_gpu_dev *d, const char *opname, const char *sfx, void *part, int64_t np,
                               int64_t so, int64_t ss, int64_t nout, void *po, int64_t count, int mean)
{
    char name[64];
    snprintf(name, sizeof name, "reduce_finish_%s_%s%s", opname, sfx, wk_gpu_width_sfx(d));
    int G = pow2_at_least(cdiv(np, 8), 32);
    void *args[] = {&part, &np, &so, &ss, &nout, &G, &po, &count, &mean};
    return wk_gpu_launch_named(d, name, group_grid(d, nout, G), block256, 0, args);
}

wk_status wk_gpu_reduce(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int nouter = x->rank - nreduce;
    int64_t nout = wk_numel(nouter, x->shape), count = wk_numel(nreduce, x->shape + nouter);
    if (nout == 0)
        return WK_OK;
    const char *opname = op == WK_REDUCE_MIN ? "min" : op == WK_REDUCE_MAX ? "max" : "sum";
    const char *sfx = wk_gpu_sfx(x->dtype);
    int mean = op == WK_REDUCE_MEAN;
    void *px = wk_tensor_data(x), *po = wk_tensor_data(out), *part = NULL;
    if (count == 0) /* sum 0, mean NaN (min/max never get here) */
        return reduce_finish(d, opname, sfx, NULL, 0, 0, 0, nout, po, count, mean);

    int64_t es = (int64_t)wk_dtype_size(x->dtype);
    size_t acc = x->dtype == WK_I64 || x->dtype == WK_F64 ? 8 : 4; /* accumulator bytes, see reduce.cu */
    red_dims kd = dims_of(x, 0, nouter, false), rd = dims_of(x, nouter, nreduce, true);
    /* the reduced elements of an output: nq runs (rd's outer dims, layout Q) of L elements rs apart */
    int64_t L = rd.rank ? rd.shape[rd.rank - 1] : 1, rs = rd.rank ? rd.stride[rd.rank - 1] : 1, nq = count / L;
    wk_gpu_layout K = wk_gpu_layout_make(kd.rank, kd.shape, kd.stride);
    wk_gpu_layout Q = wk_gpu_layout_make(rd.rank > 0 ? rd.rank - 1 : 0, rd.shape, rd.stride);
    /* Columns when neighbouring outputs are closer in memory than neighbouring reduced elements (a reduction
     * over leading dims), and for many short runs, which the runs path would leave as partials. */
    bool cols = (kd.rank > 0 && kd.stride[kd.rank - 1] < rs) || (rd.rank >= 2 && L < 64);
    char name[64];
    wk_status s;
    if (!cols) {
        int64_t units = rs == 1 ? cdiv(L, 16 / es) : L, splits;
        int G;
        run_shape(d, units, nout * nq, &G, &splits);
        int64_t items = nout * nq * splits;
        if (items > nout)
            WK_TRY(wk_gpu_malloc(d, (size_t)items * acc, &part));
        snprintf(name, sizeof name, "reduce_rows_%s_%s%s", opname, sfx, wk_gpu_width_sfx(d));
        void *args[] = {&px, &K, &Q, &nq, &L, &rs, &splits, &items, &G, &part, &po, &count, &mean};
        s = wk_gpu_launch_named(d, name, group_grid(d, items, G), block256, 0, args);
        if (s == WK_OK && items > nout)
            s = reduce_finish(d, opname, sfx, part, nq * splits, nq * splits, 1, nout, po, count, mean);
    } else {
        /* 16-byte loads of V outputs each when every address a thread reads stays 16-byte aligned */
        int64_t V = 16 / es;
        bool vec = kd.rank > 0 && kd.stride[kd.rank - 1] == 1 && kd.shape[kd.rank - 1] % V == 0 &&
                   (uintptr_t)px % 16 == 0;
        for (int i = 0; i < kd.rank - 1; i++)
            vec = vec && kd.stride[i] * es % 16 == 0;
        for (int i = 0; i < rd.rank; i++)
            vec = vec && rd.stride[i] * es % 16 == 0;
        V = vec ? V : 1;
        int64_t ncols = nout / V;
        int bx = pow2_at_least(ncols, 32), by = 256 / bx;
        int64_t ntiles = cdiv(ncols, bx), splits = col_splits(d, ntiles, count, by);
        if (splits > 1)
            WK_TRY(wk_gpu_malloc(d, (size_t)(splits * nout) * acc, &part));
        snprintf(name, sizeof name, "reduce_%s_%s_%s", vec ? "colsv" : "cols", opname, sfx);
        wk_gpu_dim grid = {wk_gpu_blocks(d, ntiles * splits * 256, 256), 1, 1};
        void *args[] = {&px, &K, &Q, &L, &rs, &nout, &count, &splits, &part, &po, &mean};
        s = wk_gpu_launch_named(d, name, grid, (wk_gpu_dim){(unsigned)bx, (unsigned)by, 1}, 0, args);
        if (s == WK_OK && splits > 1)
            s = reduce_finish(d, opname, sfx, part, splits, 1, nout, nout, po, count, mean);
    }
    if (part)
        wk_gpu_free(d, part);
    return s;
}

/* ---------------------------------------------------------------- argmin / argmax over the last dim */
wk_status wk_gpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int last = x->rank - 1;
    int64_t nout = wk_numel(last, x->shape), n = x->shape[last], sx = x->strides[last];
    if (nout == 0)
        return WK_OK;
    const char *opname = op == WK_REDUCE_MIN ? "min" : "max", *sfx = wk_gpu_sfx(x->dtype);
    size_t csize = x->dtype == WK_I64 || x->dtype == WK_F64 ? 8 : 4; /* compare type bytes, see reduce.cu */
    red_dims kd = dims_of(x, 0, last, false);
    wk_gpu_layout K = wk_gpu_layout_make(kd.rank, kd.shape, kd.stride);
    void *px = wk_tensor_data(x), *po = wk_tensor_data(out), *scratch = NULL, *pv = NULL, *pi = NULL;
    bool cols = n > 1 && kd.rank > 0 && kd.stride[kd.rank - 1] < sx;
    int64_t splits, np_so, np_ss;
    int G = 0, bx = 0, by = 0;
    if (!cols) {
        run_shape(d, n, nout, &G, &splits);
        np_so = splits;
        np_ss = 1;
    } else {
        bx = pow2_at_least(nout, 32);
        by = 256 / bx;
        splits = col_splits(d, cdiv(nout, bx), n, by);
        np_so = 1;
        np_ss = nout;
    }
    if (splits > 1) { /* partial (index, value) pairs: indices first, 8-byte aligned */
        WK_TRY(wk_gpu_malloc(d, (size_t)(splits * nout) * (8 + csize), &scratch));
        pi = scratch;
        pv = (char *)scratch + (size_t)(splits * nout) * 8;
    }
    char name[64];
    wk_status s;
    if (!cols) {
        int64_t items = nout * splits;
        snprintf(name, sizeof name, "argreduce_rows_%s_%s%s", opname, sfx, wk_gpu_width_sfx(d));
        void *args[] = {&px, &K, &n, &sx, &splits, &items, &G, &pv, &pi, &po};
        s = wk_gpu_launch_named(d, name, group_grid(d, items, G), block256, 0, args);
    } else {
        snprintf(name, sizeof name, "argreduce_cols_%s_%s", opname, sfx);
        wk_gpu_dim grid = {wk_gpu_blocks(d, cdiv(nout, bx) * splits * 256, 256), 1, 1};
        void *args[] = {&px, &K, &n, &sx, &nout, &splits, &pv, &pi, &po};
        s = wk_gpu_launch_named(d, name, grid, (wk_gpu_dim){(unsigned)bx, (unsigned)by, 1}, 0, args);
    }
    if (s == WK_OK && splits > 1) {
        snprintf(name, sizeof name, "argreduce_finish_%s_%s%s", opname, sfx, wk_gpu_width_sfx(d));
        int Gf = pow2_at_least(cdiv(splits, 8), 32);
        void *args[] = {&pv, &pi, &splits, &np_so, &np_ss, &nout, &Gf, &po};
        s = wk_gpu_launch_named(d, name, group_grid(d, nout, Gf), block256, 0, args);
    }
    if (scratch)
        wk_gpu_free(d, scratch);
    return s;
}

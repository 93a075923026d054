/* reduce.c: the GPU's sum/mean/min/max and argmin/argmax slots (kernels/reduce.h). Picks the kernel shape from
 * x's strides (a group of lanes along each run of reduced elements, or a thread per output), splits long ones. */
#include <stdint.h>

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

/* Lanes per run (G) and pieces per run for `items` runs of `units` loads each (see red_rows): short runs get
 * a few lanes, runs up to WK_RED_RUN_WHOLE loads a warp; longer ones a warp each when there are enough of them
 * to fill the device, else a block per piece, runs cut into pieces of at least WK_RED_LANE_LOADS loads a thread.
 * Many small items taken in turn keep every SM busy to the end, whatever the number of blocks resident per SM. */
static void run_shape(const wk_gpu_dev *d, int64_t units, int64_t items, int *G, int64_t *splits)
{
    int64_t sm = wk_gpu_sm_count(d);
    *splits = 1;
    if (units <= WK_RED_RUN_WHOLE || items >= sm * WK_RED_ITEMS_PER_SM) {
        *G = units <= WK_RED_GROUP_MAX * WK_RED_LANE_LOADS
                 ? pow2_at_least(cdiv(units, WK_RED_LANE_LOADS), WK_RED_GROUP_MAX)
                 : WK_RED_GROUP_MAX;
        return;
    }
    *G = WK_RED_THREADS;
    *splits = min64(cdiv(sm * WK_RED_ITEMS_PER_SM, items), cdiv(units, WK_RED_THREADS * WK_RED_LANE_LOADS));
    *splits = *splits < 1 ? 1 : *splits;
}

/* Pieces of the reduced range (see red_cols), each at least WK_RED_COL_MIN elements a thread. */
static int64_t col_splits(const wk_gpu_dev *d, int64_t ntiles, int64_t count, int by)
{
    int64_t target = (int64_t)wk_gpu_sm_count(d) * WK_RED_ITEMS_PER_SM, splits = 1;
    if (ntiles < target) {
        splits = min64(cdiv(target, ntiles), count / (by * WK_RED_COL_MIN));
        splits = splits < 1 ? 1 : splits;
    }
    return splits;
}

/* Groups of G lanes over `groups` items (G <= WK_RED_GROUP_MAX: several groups per block). */
static wk_gpu_dim group_grid(const wk_gpu_dev *d, int64_t groups, int G)
{
    return (wk_gpu_dim){wk_gpu_blocks(d, groups * G, WK_RED_THREADS), 1, 1};
}

static const wk_gpu_dim red_block = {WK_RED_THREADS, 1, 1};

/* The slot of op on the op axis of the kernel sets: mean is a sum divided at the store. */
static int op_slot(wk_reduce_op op)
{
    return op == WK_REDUCE_MIN ? WK_RED_SLOT_MIN : op == WK_REDUCE_MAX ? WK_RED_SLOT_MAX : WK_RED_SLOT_SUM;
}

/* ---------------------------------------------------------------- sum / mean / min / max */

/* r's outputs = op over part[o * so + i * ss], i < np. */
static wk_status reduce_finish(wk_gpu_dev *d, int slot, wk_dtype dt, const wk_gpu_reduce_args *r, void *part,
                               int64_t np, int64_t so, int64_t ss)
{
    wk_gpu_reduce_args a = {
        .out = r->out, .part = part, .count = r->count, .nout = r->nout, .np = np, .so = so, .ss = ss,
        .G = pow2_at_least(cdiv(np, WK_RED_FINISH_PER_LANE), WK_RED_GROUP_MAX), .mean = r->mean,
    };
    return WK_GPU_LAUNCH(d, reduce_finish, slot, dt, wk_gpu_width_slot(d), group_grid(d, a.nout, a.G), red_block, 0,
                         a);
}

/* A group of lanes per run (a's x, out, K, Q, L, rs, nq, count, nout, mean set); partials when runs are split. */
static wk_status reduce_rows(wk_gpu_dev *d, int slot, wk_dtype dt, int64_t es, wk_gpu_reduce_args *a)
{
    int64_t units = a->rs == 1 ? cdiv(a->L, WK_RED_VEC / es) : a->L, splits;
    int G;
    run_shape(d, units, a->nout * a->nq, &G, &splits);
    int64_t items = a->nout * a->nq * splits;
    void *part = NULL;
    if (items > a->nout)
        WK_TRY(wk_gpu_malloc(d, (size_t)items * WK_RED_ACC_BYTES(es), &part));
    a->part = part;
    a->splits = splits;
    a->nitems = items;
    a->G = G;
    wk_status s = WK_GPU_LAUNCH(d, reduce_rows, slot, dt, wk_gpu_width_slot(d), group_grid(d, items, G), red_block,
                                0, *a);
    if (s == WK_OK && items > a->nout)
        s = reduce_finish(d, slot, dt, a, part, a->nq * splits, a->nq * splits, 1);
    if (part)
        wk_gpu_free(d, part);
    return s;
}

/* A thread per output (or per WK_RED_VEC bytes of outputs), over x's kept dims kd and reduced dims rd. */
static wk_status reduce_cols(wk_gpu_dev *d, int slot, wk_dtype dt, int64_t es, const red_dims *kd,
                             const red_dims *rd, wk_gpu_reduce_args *a)
{
    /* vector loads of V outputs each when every address a thread reads stays aligned to WK_RED_VEC */
    int64_t V = WK_RED_VEC / es;
    bool vec = kd->rank > 0 && kd->stride[kd->rank - 1] == 1 && kd->shape[kd->rank - 1] % V == 0 &&
               (uintptr_t)a->x % WK_RED_VEC == 0;
    for (int i = 0; i < kd->rank - 1; i++)
        vec = vec && kd->stride[i] * es % WK_RED_VEC == 0;
    for (int i = 0; i < rd->rank; i++)
        vec = vec && rd->stride[i] * es % WK_RED_VEC == 0;
    V = vec ? V : 1;
    int64_t ncols = a->nout / V;
    int bx = pow2_at_least(ncols, WK_RED_GROUP_MAX), by = WK_RED_THREADS / bx;
    int64_t ntiles = cdiv(ncols, bx), splits = col_splits(d, ntiles, a->count, by);
    void *part = NULL;
    if (splits > 1)
        WK_TRY(wk_gpu_malloc(d, (size_t)(splits * a->nout) * WK_RED_ACC_BYTES(es), &part));
    a->part = part;
    a->splits = splits;
    wk_gpu_dim grid = {wk_gpu_blocks(d, ntiles * splits * WK_RED_THREADS, WK_RED_THREADS), 1, 1};
    wk_gpu_dim block = {(unsigned)bx, (unsigned)by, 1};
    wk_status s = vec ? WK_GPU_LAUNCH(d, reduce_colsv, slot, dt, 0, grid, block, 0, *a)
                      : WK_GPU_LAUNCH(d, reduce_cols, slot, dt, 0, grid, block, 0, *a);
    if (s == WK_OK && splits > 1)
        s = reduce_finish(d, slot, dt, a, part, splits, 1, a->nout);
    if (part)
        wk_gpu_free(d, part);
    return s;
}

wk_status wk_gpu_reduce(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int nouter = x->rank - nreduce, slot = op_slot(op);
    int64_t nout = wk_numel(nouter, x->shape), count = wk_numel(nreduce, x->shape + nouter);
    wk_gpu_reduce_args a = {
        .x = wk_tensor_data(x), .out = wk_tensor_data(out), .count = count, .nout = nout,
        .mean = op == WK_REDUCE_MEAN,
    };
    int64_t es = (int64_t)wk_dtype_size(x->dtype);
    red_dims kd = dims_of(x, 0, nouter, false), rd = dims_of(x, nouter, nreduce, true);
    /* the reduced elements of an output: nq runs (rd's outer dims, layout Q) of L elements rs apart */
    a.L = rd.rank ? rd.shape[rd.rank - 1] : 1;
    a.rs = rd.rank ? rd.stride[rd.rank - 1] : 1;
    a.nq = count / a.L;
    a.K = wk_gpu_layout_make(kd.rank, kd.shape, kd.stride);
    a.Q = wk_gpu_layout_make(rd.rank > 0 ? rd.rank - 1 : 0, rd.shape, rd.stride);
    /* Columns when neighbouring outputs are closer in memory than neighbouring reduced elements (a reduction
     * over leading dims), and for many short runs, which the runs path would leave as partials. */
    bool cols = (kd.rank > 0 && kd.stride[kd.rank - 1] < a.rs) || (rd.rank >= 2 && a.L < 64);
    return cols ? reduce_cols(d, slot, x->dtype, es, &kd, &rd, &a) : reduce_rows(d, slot, x->dtype, es, &a);
}

/* ---------------------------------------------------------------- argmin / argmax over the last dim */
wk_status wk_gpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int last = x->rank - 1, slot = op_slot(op), w = wk_gpu_width_slot(d);
    int64_t nout = wk_numel(last, x->shape), n = x->shape[last], sx = x->strides[last];
    size_t csize = WK_RED_ACC_BYTES(wk_dtype_size(x->dtype)); /* compare type bytes */
    red_dims kd = dims_of(x, 0, last, false);
    wk_gpu_reduce_args a = {
        .x = wk_tensor_data(x), .out = wk_tensor_data(out), .K = wk_gpu_layout_make(kd.rank, kd.shape, kd.stride),
        .L = n, .rs = sx, .nout = nout,
    };
    bool cols = n > 1 && kd.rank > 0 && kd.stride[kd.rank - 1] < sx;
    int64_t np_so, np_ss;
    int G = 0, bx = 0, by = 0;
    if (!cols) {
        run_shape(d, n, nout, &G, &a.splits);
        np_so = a.splits;
        np_ss = 1;
    } else {
        bx = pow2_at_least(nout, WK_RED_GROUP_MAX);
        by = WK_RED_THREADS / bx;
        a.splits = col_splits(d, cdiv(nout, bx), n, by);
        np_so = 1;
        np_ss = nout;
    }
    void *scratch = NULL;
    if (a.splits > 1) { /* partial (index, value) pairs: indices first, 8-byte aligned */
        WK_TRY(wk_gpu_malloc(d, (size_t)(a.splits * nout) * (8 + csize), &scratch));
        a.part_idx = scratch;
        a.part = (char *)scratch + (size_t)(a.splits * nout) * 8;
    }
    wk_status s;
    if (!cols) {
        a.nitems = nout * a.splits;
        a.G = G;
        s = WK_GPU_LAUNCH(d, argreduce_rows, slot, x->dtype, w, group_grid(d, a.nitems, G), red_block, 0, a);
    } else {
        wk_gpu_dim grid = {wk_gpu_blocks(d, cdiv(nout, bx) * a.splits * WK_RED_THREADS, WK_RED_THREADS), 1, 1};
        s = WK_GPU_LAUNCH(d, argreduce_cols, slot, x->dtype, 0, grid, ((wk_gpu_dim){(unsigned)bx, (unsigned)by, 1}),
                          0, a);
    }
    if (s == WK_OK && a.splits > 1) {
        wk_gpu_reduce_args f = {
            .out = a.out, .part = a.part, .part_idx = a.part_idx, .nout = nout, .np = a.splits, .so = np_so,
            .ss = np_ss, .G = pow2_at_least(cdiv(a.splits, WK_RED_FINISH_PER_LANE), WK_RED_GROUP_MAX),
        };
        s = WK_GPU_LAUNCH(d, argreduce_finish, slot, x->dtype, w, group_grid(d, nout, f.G), red_block, 0, f);
    }
    if (scratch)
        wk_gpu_free(d, scratch);
    return s;
}

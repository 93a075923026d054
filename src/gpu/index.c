/* index.c: the GPU's index_select, gather, scatter / scatter_add and index_add slots. Each op becomes one
 * iteration shape with the strides of x, ids and src/out over it; the kernel is picked from its form. */
#include <string.h>

#include "gpu/gpu.h"

#define IX_LINE_SMEM 32768 /* shared-memory budget of the line kernel, under every device's default limit */
#define IX_WIDE_ROW 512    /* units per row from which index_add takes one block per row */

enum { IX_X, IX_IDS, IX_DATA }; /* the operands: target or source x, the indices, src or out */

/* An op's iteration: shape with dim, and each operand's strides over it. x's stride along dim multiplies
 * the index; the other operands step along dim with the iteration. */
typedef struct ix_space {
    int rank, dim;
    int64_t shape[WK_MAX_RANK];
    int64_t st[3][WK_MAX_RANK];
} ix_space;

/* Fills s with size-1 dims (other than dim) dropped and neighbours off dim merged where all three operands
 * allow it, so compact operands end up as (outer, dim, inner). */
static void space_make(ix_space *s, int rank, const int64_t *shape, int dim, const int64_t *xs, const int64_t *is,
                       const int64_t *ds)
{
    const int64_t *st[3] = {xs, is, ds};
    int r = 0;
    s->dim = -1;
    for (int a = 0; a < rank; a++) {
        if (a != dim && shape[a] == 1)
            continue;
        bool merge = a != dim && r > 0 && r - 1 != s->dim;
        for (int k = 0; merge && k < 3; k++)
            merge = s->st[k][r - 1] == shape[a] * st[k][a];
        if (merge) {
            s->shape[r - 1] *= shape[a];
            for (int k = 0; k < 3; k++)
                s->st[k][r - 1] = st[k][a];
            continue;
        }
        if (a == dim)
            s->dim = r;
        s->shape[r] = shape[a];
        for (int k = 0; k < 3; k++)
            s->st[k][r] = st[k][a];
        r++;
    }
    s->rank = r;
}

/* (outer, dim, inner) with unit stride inside rows for x and src/out and one index per row: the form of
 * the row kernels. */
typedef struct ix_rows {
    int64_t outer, L, inner;
    int64_t xo, xk, so, sk, ik;
} ix_rows;

static bool space_rows(const ix_space *s, ix_rows *r)
{
    int d = s->dim, after = s->rank - d - 1;
    if (d > 1 || after > 1)
        return false;
    if (after == 1 && (s->st[IX_X][d + 1] != 1 || s->st[IX_DATA][d + 1] != 1 || s->st[IX_IDS][d + 1] != 0))
        return false;
    if (d == 1 && s->st[IX_IDS][0] != 0)
        return false;
    r->outer = d == 1 ? s->shape[0] : 1;
    r->xo = d == 1 ? s->st[IX_X][0] : 0;
    r->so = d == 1 ? s->st[IX_DATA][0] : 0;
    r->L = s->shape[d];
    r->xk = s->st[IX_X][d];
    r->sk = s->st[IX_DATA][d];
    r->ik = s->st[IX_IDS][d];
    r->inner = after == 1 ? s->shape[d + 1] : 1;
    return true;
}

static int64_t space_numel(const ix_space *s) { return wk_numel(s->rank, s->shape); }

/* The layout of operand k over the iteration; x's has stride 0 along dim (the index supplies it). */
static wk_gpu_layout space_layout(const ix_space *s, int k)
{
    int64_t st[WK_MAX_RANK];
    memcpy(st, s->st[k], sizeof st);
    if (k == IX_X)
        st[s->dim] = 0;
    return wk_gpu_layout_make(s->rank, s->shape, st);
}

/* The grid for `items` threads of `threads` each. */
static wk_gpu_dim grid_of(wk_gpu_dev *d, int64_t items, unsigned threads)
{
    return (wk_gpu_dim){wk_gpu_blocks(d, items, threads), 1, 1};
}

static int64_t rounds(int64_t n) { return (n + IX_UNROLL - 1) / IX_UNROLL; }

static const wk_gpu_dim block256 = {256, 1, 1};

/* Queues the range pass over every index of ids: a bad one sets the fault word with `code`. */
static wk_status check_ids(wk_gpu_dev *d, const wk_tensor *ids, int64_t size, int code)
{
    int64_t n = wk_numel(ids->rank, ids->shape);
    if (n == 0)
        return WK_OK;
    wk_gpu_index_args q = {
        .ids = wk_tensor_data(ids), .li = wk_gpu_layout_of(ids), .n = n, .size = size,
        .fault = wk_gpu_fault_record(d), .code = code,
    };
    return WK_GPU_LAUNCH(d, index_check, ids->dtype, 0, 0, grid_of(d, rounds(n), 256), block256, 0, q);
}

/* ---------------------------------------------------------------- reads: index_select and gather */

static wk_status gather_general(wk_gpu_dev *d, const ix_space *s, const wk_tensor *x, int64_t size,
                                const wk_tensor *ids, wk_tensor *out, int code)
{
    wk_gpu_index_args q = {
        .x = wk_tensor_data(x), .ids = wk_tensor_data(ids), .out = wk_tensor_data(out),
        .lx = space_layout(s, IX_X), .li = space_layout(s, IX_IDS), .n = space_numel(s), .size = size,
        .xk = s->st[IX_X][s->dim], .fault = wk_gpu_fault_record(d), .code = code,
    };
    return WK_GPU_LAUNCH(d, index_gather, x->dtype, ids->dtype, 0, grid_of(d, rounds(q.n), 256), block256, 0, q);
}

/* Rows copied in the widest unit (16 bytes down to one element) that sizes, strides and addresses allow. */
static wk_status select_rows(wk_gpu_dev *d, const ix_rows *r, const wk_tensor *x, int64_t size,
                             const wk_tensor *ids, wk_tensor *out)
{
    const int64_t es = (int64_t)wk_dtype_size(x->dtype);
    void *px = wk_tensor_data(x), *po = wk_tensor_data(out);
    int unit = 4; /* the row unit's slot on kernels/index.h's IX_ROW_BYTES axis: 1 << unit bytes */
    int64_t nb = 16;
    for (; nb > es; nb /= 2, unit--)
        if ((r->inner * es) % nb == 0 && (r->xo * es) % nb == 0 && (r->xk * es) % nb == 0 &&
            (uintptr_t)px % (uintptr_t)nb == 0 && (uintptr_t)po % (uintptr_t)nb == 0)
            break;
    wk_gpu_index_args q = {
        .x = px, .ids = wk_tensor_data(ids), .out = po, .size = size, .inner = r->inner * es / nb, .L = r->L,
        .xo = r->xo * es / nb, .xk = r->xk * es / nb, .ik = r->ik, .fault = wk_gpu_fault_record(d),
    };
    q.n = r->outer * q.L * q.inner;
    return WK_GPU_LAUNCH(d, index_select_rows, unit, ids->dtype, 0, grid_of(d, rounds(q.n), 256), block256, 0, q);
}

wk_status wk_gpu_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    const int64_t size = x->shape[dim];
    if (wk_numel(out->rank, out->shape) == 0) /* nothing to copy, but a bad index is still an error */
        return check_ids(d, ids, size, WK_GPU_FAULT_INDEX_SELECT);
    int64_t is[WK_MAX_RANK] = {0}, os[WK_MAX_RANK];
    is[dim] = ids->strides[0];
    wk_contiguous_strides(out->rank, out->shape, os);
    ix_space s;
    space_make(&s, out->rank, out->shape, dim, x->strides, is, os);
    ix_rows r;
    if (space_rows(&s, &r))
        return select_rows(d, &r, x, size, ids, out);
    return gather_general(d, &s, x, size, ids, out, WK_GPU_FAULT_INDEX_SELECT);
}

/* Gather along the last dim of (outer, size) rows, a block a row (kernels/index.h, index_gather_rows), when the
 * iteration is (outer, L) or (L) with dim last and rows of at least a block's worth of ids; x's row is staged in
 * shared memory when it fits and each block looks it up at least size / 4 times. Returns false to leave it to
 * the general kernel. */
static bool gather_rows(wk_gpu_dev *d, const ix_space *s, const wk_tensor *x, int64_t size, const wk_tensor *ids,
                        wk_tensor *out, wk_status *st)
{
    int dm = s->dim;
    if (s->rank > 2 || dm != s->rank - 1 || s->shape[dm] < IX_GATHER_THREADS)
        return false;
    int64_t outer = s->rank == 2 ? s->shape[0] : 1, L = s->shape[dm];
    int64_t chunks = (L + IX_GATHER_CHUNK - 1) / IX_GATHER_CHUNK, es = (int64_t)wk_dtype_size(x->dtype);
    if (outer < 1 || outer > 0x7fffffff || chunks > 65535)
        return false;
    int64_t cl = (L + chunks - 1) / chunks;
    bool stage = size * es <= IX_GATHER_SMEM && 4 * cl >= size;
    wk_gpu_index_args q = {
        .x = wk_tensor_data(x), .ids = wk_tensor_data(ids), .out = wk_tensor_data(out), .size = size, .L = L,
        .xo = s->rank == 2 ? s->st[IX_X][0] : 0, .xk = s->st[IX_X][dm], .so = s->rank == 2 ? s->st[IX_IDS][0] : 0,
        .ik = s->st[IX_IDS][dm], .fault = wk_gpu_fault_record(d), .code = WK_GPU_FAULT_GATHER, .stage = stage,
    };
    q.n = outer * L;
    wk_gpu_dim grid = {(unsigned)outer, (unsigned)chunks, 1}, block = {IX_GATHER_THREADS, 1, 1};
    *st = WK_GPU_LAUNCH(d, index_gather_rows, x->dtype, ids->dtype, 0, grid, block,
                        stage ? (unsigned)(size * es) : 0, q);
    return true;
}

wk_status wk_gpu_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t os[WK_MAX_RANK];
    wk_contiguous_strides(out->rank, out->shape, os);
    ix_space s;
    space_make(&s, out->rank, out->shape, dim, x->strides, ids->strides, os);
    wk_status st = WK_OK;
    if (gather_rows(d, &s, x, x->shape[dim], ids, out, &st))
        return st;
    return gather_general(d, &s, x, x->shape[dim], ids, out, WK_GPU_FAULT_GATHER);
}

/* ---------------------------------------------------------------- writes: scatter, scatter_add, index_add
 * In place on the caller's x (code 0): the range pass goes first and every writing kernel returns at once
 * when the fault word is set, so a bad index leaves x unchanged. On the op's own fresh output (code: the
 * op's fault code) there is nothing to keep: no range pass, the writing kernel reports bad indices itself
 * and skips them, which saves a full read of ids. */

/* Accumulator bytes per element of the line kernel (kernels/index.cu ix_acc). */
static int64_t acc_bytes(wk_dtype dt) { return IX_ACC_BYTES((int64_t)wk_dtype_size(dt)); }

static wk_status scatter_add_lines(wk_gpu_dev *d, const ix_space *s, wk_tensor *x, int64_t size,
                                   const wk_tensor *ids, const wk_tensor *src, int code)
{
    int dm = s->dim;
    int64_t K = s->shape[dm];
    wk_gpu_index_args q = { /* the layouts are the lines' (over the dims before dm) */
        .x = wk_tensor_data(x), .ids = wk_tensor_data(ids), .src = wk_tensor_data(src),
        .lx = wk_gpu_layout_make(dm, s->shape, s->st[IX_X]), .li = wk_gpu_layout_make(dm, s->shape, s->st[IX_IDS]),
        .ls = wk_gpu_layout_make(dm, s->shape, s->st[IX_DATA]), .size = size,
        .xk = s->st[IX_X][dm], .ik = s->st[IX_IDS][dm], .sk = s->st[IX_DATA][dm],
        .lines = wk_numel(dm, s->shape), .K = K, .fault = wk_gpu_fault_record(d), .code = code,
    };
    unsigned threads = K >= 2048 || size >= 2048 ? IX_LINES_THREADS : K >= 512 || size >= 512 ? 256 : 128;
    wk_gpu_dim grid = grid_of(d, q.lines * threads, threads), block = {threads, 1, 1};
    unsigned smem = (unsigned)(size * acc_bytes(x->dtype));
    if (wk_dtype_size(x->dtype) == 8)
        return WK_GPU_LAUNCH(d, index_scatter_add_lines64, x->dtype, ids->dtype, 0, grid, block, smem, q);
    return WK_GPU_LAUNCH(d, index_scatter_add_lines, x->dtype, ids->dtype, 0, grid, block, smem, q);
}

/* index_add over compact rows, one block per row when rows are wide, else flat; u8/f16/bf16 add whole
 * 32-bit words per thread where every row stays word-aligned. */
static wk_status index_add_rows(wk_gpu_dev *d, const ix_rows *r, wk_tensor *x, int64_t size, const wk_tensor *ids,
                                const wk_tensor *src, int code)
{
    const int64_t es = (int64_t)wk_dtype_size(x->dtype);
    void *px = wk_tensor_data(x);
    int64_t V = es < 4 ? 4 / es : 1;
    if (V > 1 && (r->inner % V != 0 || r->xo % V != 0 || r->xk % V != 0 || (uintptr_t)px % 4 != 0))
        V = 1;
    wk_gpu_index_args q = {
        .x = px, .ids = wk_tensor_data(ids), .src = wk_tensor_data(src), .size = size, .inner = r->inner / V,
        .L = r->L, .xo = r->xo, .xk = r->xk, .so = r->so, .sk = r->sk, .ik = r->ik,
        .fault = wk_gpu_fault_record(d), .code = code,
    };
    const wk_dtype a = x->dtype, b = ids->dtype;
    if (q.inner >= IX_WIDE_ROW) {
        q.n = r->outer * q.L; /* rows */
        unsigned threads = q.inner >= IX_UNROLL * 256 ? 256 : 128; /* IX_UNROLL units or more per thread */
        wk_gpu_dim grid = grid_of(d, q.n * threads, threads), block = {threads, 1, 1};
        if (V > 1)
            return WK_GPU_LAUNCH(d, index_add_wide_w, a, b, 0, grid, block, 0, q);
        return WK_GPU_LAUNCH(d, index_add_wide, a, b, 0, grid, block, 0, q);
    }
    q.n = r->outer * q.L * q.inner; /* units */
    wk_gpu_dim grid = grid_of(d, rounds(q.n), 256);
    if (V > 1)
        return WK_GPU_LAUNCH(d, index_add_rows_w, a, b, 0, grid, block256, 0, q);
    return WK_GPU_LAUNCH(d, index_add_rows, a, b, 0, grid, block256, 0, q);
}

static wk_status scatter_general(wk_gpu_dev *d, const ix_space *s, wk_tensor *x, int64_t size, const wk_tensor *ids,
                                 const wk_tensor *src, bool add, int code)
{
    wk_gpu_index_args q = {
        .x = wk_tensor_data(x), .ids = wk_tensor_data(ids), .src = wk_tensor_data(src),
        .lx = space_layout(s, IX_X), .li = space_layout(s, IX_IDS), .ls = space_layout(s, IX_DATA),
        .n = space_numel(s), .size = size, .xk = s->st[IX_X][s->dim], .fault = wk_gpu_fault_record(d), .code = code,
    };
    wk_gpu_dim grid = grid_of(d, rounds(q.n), 256);
    if (add)
        return WK_GPU_LAUNCH(d, index_scatter_add, x->dtype, ids->dtype, 0, grid, block256, 0, q);
    return WK_GPU_LAUNCH(d, index_scatter, x->dtype, ids->dtype, 0, grid, block256, 0, q);
}

/* The line kernel when dim is innermost, x's line fits in shared memory and is not much longer than the K
 * sources added into it (it rewrites the whole line); the row kernels for index_add over compact rows; the
 * general kernel otherwise. fault_code: the op's; fresh: x is the op's own output (see above). */
static wk_status scatter_run(wk_gpu_dev *d, const ix_space *s, wk_tensor *x, int64_t size, const wk_tensor *ids,
                             const wk_tensor *src, bool add, bool one_index_per_row, int fault_code, bool fresh)
{
    if (space_numel(s) == 0 || !fresh) /* with nothing to write, a bad index is still an error */
        WK_TRY(check_ids(d, ids, size, fault_code));
    if (space_numel(s) == 0)
        return WK_OK;
    const int code = fresh ? fault_code : 0;
    int64_t K = s->shape[s->dim];
    if (add && s->dim == s->rank - 1 && size > 0 && size * acc_bytes(x->dtype) <= IX_LINE_SMEM && size <= 4 * K)
        return scatter_add_lines(d, s, x, size, ids, src, code);
    ix_rows r;
    if (add && one_index_per_row && space_rows(s, &r))
        return index_add_rows(d, &r, x, size, ids, src, code);
    return scatter_general(d, s, x, size, ids, src, add, code);
}

wk_status wk_gpu_scatter(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_scatter_mode mode,
                         wk_write_target target)
{
    wk_gpu_dev *d = wk_gpu_dev_of(x);
    const int64_t size = x->shape[dim];
    bool add = mode == WK_SCATTER_ADD, fresh = target == WK_TARGET_FRESH;
    ix_space s;
    space_make(&s, ids->rank, ids->shape, dim, x->strides, ids->strides, src->strides);
    return scatter_run(d, &s, x, size, ids, src, add, false, add ? WK_GPU_FAULT_SCATTER_ADD : WK_GPU_FAULT_SCATTER,
                       fresh);
}

wk_status wk_gpu_index_add(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_write_target target)
{
    bool fresh = target == WK_TARGET_FRESH;
    wk_gpu_dev *d = wk_gpu_dev_of(x);
    const int64_t size = x->shape[dim];
    int64_t is[WK_MAX_RANK] = {0};
    is[dim] = ids->strides[0];
    ix_space s;
    space_make(&s, src->rank, src->shape, dim, x->strides, is, src->strides);
    return scatter_run(d, &s, x, size, ids, src, true, true, WK_GPU_FAULT_INDEX_ADD, fresh);
}

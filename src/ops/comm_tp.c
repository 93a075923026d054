/* comm_tp.c: the tensor-parallel linear layers (wick.h): validation, then the product in chunks, each chunk's
 * collective queued on the communicator's side stream so that it overlaps the next chunk's product; the gathered
 * column layer's exchange goes to the copy engines where the backend can (every rank in this process). */
#include <stdlib.h>
#include <string.h>

#include "ops/comm.h"

/* Chunks a layer's product is split into (never more than its rows, at least one). WICK_TP_CHUNKS=N asks for N
 * (a measuring knob; also on the CPU, whose tests run the chunked path with it). Else one where the collectives
 * go through the library: on two H200s (NCCL 2.28, cuBLAS 13) a chunk's collective on the high-priority side
 * stream did not overlap the next chunk's GEMM, whose blocks hold every multiprocessor until it ends, and 2, 4 or
 * 8 chunks measured 1-16% slower than one (bench/results/gpu-h200x2-2026-11-26-comm.md); and PEER_CHUNKS where
 * the copy engines send each chunk (gather_made), which take no multiprocessor: on two H100s the gathered layer
 * (M 8192, K 8192, N 16384, bf16) took 1.86 / 1.65 / 1.56 / 1.55 ms in 1 / 2 / 4 / 8 chunks, the layer without
 * its gather 1.54 ms (bench/results/gpu-h100x2-2026-11-26-peer-copies.md). */
#define PEER_CHUNKS 8
static int64_t chunks_of(int64_t rows, int64_t dflt)
{
    const char *env = getenv("WICK_TP_CHUNKS");
    int64_t want = env && *env ? atoll(env) : dflt;
    want = want < 1 ? 1 : want;
    return want < rows ? want : rows > 0 ? rows : 1;
}

static wk_status check_operand(const char *op, const wk_comm *c, const char *name, const wk_tensor *t)
{
    char buf[200];
    WK_TRY(wk_check_tensor(op, name, t));
    if (wk_dev(t) != c->dev)
        return wk_error(WK_ERR_DEVICE, "%s: %s %s is not on rank %d's device %s", op, name,
                        wk_describe(buf, sizeof buf, t), c->rank, c->dev->name);
    WK_TRY(wk_check_rank(op, name, t, 2));
    return wk_check_float(op, t);
}

/* The layer's operands: x (M, K) and w (N, K) of one float dtype on c's device, the backend with a matmul. */
static wk_status check_layer(const char *op, const wk_comm *c, const wk_tensor *x, const wk_tensor *w, void *out)
{
    char b1[64], b2[64];
    if (!c)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: communicator is NULL", op);
    WK_TRY(wk_check_out(op, out));
    WK_TRY(check_operand(op, c, "x", x));
    WK_TRY(check_operand(op, c, "w_shard", w));
    WK_TRY(wk_check_same_dtype(op, x, w));
    if (x->shape[1] != w->shape[1])
        return wk_error(WK_ERR_SHAPE, "%s: x %s and w_shard %s differ in their last dim (K)", op,
                        wk_shape_str(b1, sizeof b1, 2, x->shape), wk_shape_str(b2, sizeof b2, 2, w->shape));
    return WK_CHECK_SLOT(op, x, matmul);
}

/* dst (rows, cols), a contiguous view of `rows` rows of buf from row `row`, = a (rows, K) times b^T for
 * b (cols, K); K == 0 gives zeros. */
static wk_status product(const wk_tensor *a, const wk_tensor *b, wk_tensor *buf, int64_t row, int64_t rows,
                         wk_tensor **dst)
{
    int64_t cols = buf->shape[1];
    int64_t shape[2] = {rows, cols}, strides[2] = {cols, 1};
    WK_TRY(wk_tensor_view(buf, 2, shape, strides, buf->offset + row * cols, dst));
    wk_status s;
    if (a->shape[1] == 0 || rows == 0 || cols == 0) {
        s = WK_SLOT(*dst, fill, *dst, wk_scalar_storage(a->dtype, 0.0));
    } else {
        wk_tensor *bt = NULL;
        int64_t bshape[2] = {b->shape[1], b->shape[0]}, bstrides[2] = {b->strides[1], b->strides[0]};
        s = wk_tensor_view(b, 2, bshape, bstrides, b->offset, &bt);
        if (s == WK_OK)
            s = wk_be(a)->matmul(a, bt, 0, *dst);
        wk_tensor_release(bt);
    }
    if (s != WK_OK) {
        wk_tensor_release(*dst);
        *dst = NULL;
    }
    return s;
}

/* Rows [row, row + rows) of t (a view). */
static wk_status rows_of(const wk_tensor *t, int64_t row, int64_t rows, wk_tensor **out)
{
    int64_t shape[2] = {rows, t->shape[1]};
    return wk_tensor_view(t, 2, shape, t->strides, t->offset + row * t->strides[0], out);
}

/* Rows [row, row + rows) of buf, as a collective's buffer. */
static void *row_ptr(const wk_tensor *buf, int64_t row)
{
    return (char *)wk_tensor_data(buf) + (size_t)(row * buf->shape[1]) * wk_dtype_size(buf->dtype);
}

/* Every rank's chunk of rows to every other rank, on the side stream: rank p's chunk lands at rows
 * p * n + first of the (N, M) buffer, where this rank's own chunk already is. */
static wk_status exchange_chunk(wk_comm *c, wk_tensor *buf, int64_t n, int64_t first, int64_t rows)
{
    size_t count = (size_t)(rows * buf->shape[1]);
    WK_TRY(wk_comm_group_begin());
    wk_status s = WK_OK;
    for (int p = 0; p < c->size && s == WK_OK; p++) {
        if (p == c->rank)
            continue;
        wk_coll send = {.kind = WK_COLL_SEND, .dtype = buf->dtype, .count = count, .peer = p, .side = true,
                        .send = row_ptr(buf, c->rank * n + first)};
        wk_coll recv = {.kind = WK_COLL_RECV, .dtype = buf->dtype, .count = count, .peer = p, .side = true,
                        .recv = row_ptr(buf, p * n + first)};
        s = wk_comm_queue(c, &send);
        if (s == WK_OK)
            s = wk_comm_queue(c, &recv);
    }
    wk_status e = wk_comm_group_end();
    return s != WK_OK ? s : e;
}

/* Rows [0, total) in chunks_of(total) pieces: step(ctx, first, rows) on each (once with no rows when total is
 * 0: every rank still takes part in the collectives), then the device's later work waits for the side stream. */
static wk_status in_chunks(wk_comm *c, int64_t total, wk_status (*step)(void *ctx, int64_t first, int64_t rows),
                           void *ctx)
{
    int64_t chunks = chunks_of(total, 1), size = (total + chunks - 1) / chunks, first = 0;
    wk_status s;
    do {
        int64_t rows = total - first < size ? total - first : size;
        s = step(ctx, first, rows);
        first += rows;
    } while (s == WK_OK && first < total);
    return s == WK_OK ? wk_comm_join_side(c) : s;
}

/* One layer's operands and result, for the chunk steps. */
typedef struct layer {
    wk_comm *c;
    const wk_tensor *x, *w;
    wk_tensor *res;
} layer;

/* Column-parallel, gathered: rows [first, first + rows) of this rank's W block times x^T into its place in the
 * (N, M) buffer. */
static wk_status column_product(const layer *l, int64_t first, int64_t rows)
{
    wk_tensor *wi = NULL, *dst = NULL;
    wk_status s = rows_of(l->w, first, rows, &wi);
    if (s == WK_OK)
        s = product(wi, l->x, l->res, l->c->rank * l->w->shape[0] + first, rows, &dst);
    wk_tensor_release(wi);
    wk_tensor_release(dst);
    return s;
}

/* The same, then exchanged with every other rank's through the library. */
static wk_status column_step(void *ctx, int64_t first, int64_t rows)
{
    layer *l = ctx;
    wk_status s = column_product(l, first, rows);
    return s == WK_OK ? exchange_chunk(l->c, l->res, l->w->shape[0], first, rows) : s;
}

/* Row-parallel: rows [first, first + rows) of x's shard times W's shard^T, then summed over the ranks. */
static wk_status row_step(void *ctx, int64_t first, int64_t rows)
{
    layer *l = ctx;
    wk_tensor *xi = NULL, *dst = NULL;
    wk_status s = rows_of(l->x, first, rows, &xi);
    if (s == WK_OK)
        s = product(xi, l->w, l->res, first, rows, &dst);
    wk_coll k = {.kind = WK_COLL_ALL_REDUCE, .op = WK_COMM_SUM, .dtype = l->res->dtype, .side = true,
                 .count = (size_t)(rows * l->res->shape[1]), .send = row_ptr(l->res, first),
                 .recv = row_ptr(l->res, first)};
    if (s == WK_OK)
        s = wk_comm_queue(l->c, &k);
    wk_tensor_release(xi);
    wk_tensor_release(dst);
    return s;
}

/* The copy engines' gather (backend.h gather_made): chunk i of this rank's rows, PEER_CHUNKS of them, as bytes of
 * its block of the (N, M) buffer. */
typedef struct peer_chunks {
    layer l;
    int64_t size; /* rows a chunk */
} peer_chunks;

static wk_status make_chunk(void *ctx, int i, size_t *offset, size_t *bytes)
{
    peer_chunks *p = ctx;
    int64_t n = p->l.w->shape[0], m = p->l.res->shape[1];
    int64_t first = i * p->size < n ? i * p->size : n, rows = n - first < p->size ? n - first : p->size;
    size_t row_bytes = (size_t)m * wk_dtype_size(p->l.res->dtype);
    *offset = (size_t)first * row_bytes;
    *bytes = (size_t)rows * row_bytes;
    return column_product(&p->l, first, rows);
}

/* Whether to offer the gather to the copy engines: where the backend has them, outside a group (whose ranks one
 * thread may drive), unless WICK_TP_PEER_COPY=0 (a measuring knob: the library's send/recv instead). */
static bool peer_copies(const wk_comm *c)
{
    const char *env = getenv("WICK_TP_PEER_COPY");
    return c->be->gather_made && !wk_comm_in_group() && !(env && strcmp(env, "0") == 0);
}

/* x W^T gathered: the (N, M) buffer of W x^T, made chunk by chunk of this rank's rows and exchanged by the copy
 * engines or the library; out is its transposed view. */
static wk_status column_gathered(wk_comm *c, const wk_tensor *x, const wk_tensor *w, wk_tensor **out)
{
    int64_t n = w->shape[0], m = x->shape[0];
    int64_t shape[2] = {n * c->size, m}, tshape[2] = {m, n * c->size}, tstrides[2] = {1, m};
    peer_chunks p = {.l = {.c = c, .x = x, .w = w}};
    WK_TRY(wk_alloc_output("tp_linear_column", c->dev, x->dtype, 2, shape, &p.l.res));
    wk_tensor *view = NULL;
    wk_status s = WK_OK;
    bool done = false;
    if (peer_copies(c)) {
        int64_t chunks = chunks_of(n, PEER_CHUNKS);
        chunks = chunks < WK_GATHER_CHUNKS_MAX ? chunks : WK_GATHER_CHUNKS_MAX;
        p.size = (n + chunks - 1) / chunks;
        s = c->be->gather_made(c->impl, wk_tensor_data(p.l.res), (size_t)(n * m) * wk_dtype_size(x->dtype),
                               (int)chunks, make_chunk, &p, &done);
    }
    if (s == WK_OK && !done)
        s = in_chunks(c, n, column_step, &p.l);
    if (s == WK_OK)
        s = wk_tensor_view(p.l.res, 2, tshape, tstrides, 0, &view);
    wk_tensor_release(p.l.res);
    return wk_finish(s, view, out);
}

wk_status wk_tp_linear_column(wk_comm *c, const wk_tensor *x, const wk_tensor *w_shard, bool gather, wk_tensor **out)
{
    static const char op[] = "tp_linear_column";
    WK_TRY(check_layer(op, c, x, w_shard, out));
    if (gather)
        return column_gathered(c, x, w_shard, out);
    int64_t shape[2] = {x->shape[0], w_shard->shape[0]};
    wk_tensor *res = NULL, *dst = NULL;
    WK_TRY(wk_alloc_output(op, c->dev, x->dtype, 2, shape, &res));
    wk_status s = product(x, w_shard, res, 0, shape[0], &dst);
    wk_tensor_release(dst);
    return wk_finish(s, res, out);
}

wk_status wk_tp_linear_row(wk_comm *c, const wk_tensor *x_shard, const wk_tensor *w_shard, wk_tensor **out)
{
    static const char op[] = "tp_linear_row";
    WK_TRY(check_layer(op, c, x_shard, w_shard, out));
    int64_t shape[2] = {x_shard->shape[0], w_shard->shape[0]};
    layer l = {.c = c, .x = x_shard, .w = w_shard};
    WK_TRY(wk_alloc_output(op, c->dev, x_shard->dtype, 2, shape, &l.res));
    return wk_finish(in_chunks(c, shape[0], row_step, &l), l.res, out);
}

/* unary.c: the GPU's one-input element-wise slots (unary, affine, powf, elu, leaky_relu, clamp, glu): argument
 * packing and launch geometry for kernels/unary.cu (sets unary_<op>, affine, clamp, powf, elu, leaky_relu, glu of
 * kernels/unary.h). */
#include <stdint.h>
#include <string.h>

#include "gpu/gpu.h"

_Static_assert(sizeof(wk_scalar) == sizeof(wk_gpu_unary_scalar), "unary.h's scalar must hold a whole wk_scalar");

/* The scalar as the kernels read it: every member of both unions starts at the first byte, so the copy keeps
 * exactly the member the caller set (x's arithmetic type) under the same name. */
static wk_gpu_unary_scalar un_scalar(wk_scalar s)
{
    wk_gpu_unary_scalar r;
    memcpy(&r, &s, sizeof r);
    return r;
}

/* Fills q with x and out and sizes the grid. The kernels take their WK_UNARY_VEC_BYTES vector path when x is
 * contiguous and both pointers are WK_UNARY_VEC_BYTES-aligned (one thread per WK_UNARY_VEC_BYTES of out), else
 * one thread per element: the grid is sized to match, though any grid is correct. out is never empty (ops/). */
static void un_args(const wk_tensor *x, wk_tensor *out, wk_gpu_unary_args *q, wk_gpu_dim *grid, wk_gpu_dim *block)
{
    const uintptr_t mask = WK_UNARY_VEC_BYTES - 1;
    int64_t n = wk_numel(out->rank, out->shape);
    *q = (wk_gpu_unary_args){.x = wk_tensor_data(x), .lx = wk_gpu_layout_of(x), .out = wk_tensor_data(out), .n = n};
    int64_t items = n;
    if (q->lx.contiguous && ((uintptr_t)q->x & mask) == 0 && ((uintptr_t)q->out & mask) == 0) {
        int64_t per = WK_UNARY_VEC_BYTES / (int64_t)wk_dtype_size(out->dtype);
        items = (n + per - 1) / per;
    }
    unsigned threads = 256;
    *grid = (wk_gpu_dim){wk_gpu_blocks(wk_gpu_dev_of(out), items, threads), 1, 1};
    *block = (wk_gpu_dim){threads, 1, 1};
}

wk_status wk_gpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(x, out, &q, &grid, &block);
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    switch (op) {
#define UN_OP_CASE_(X, OP, name, AX)                                                                              \
    case WK_UNARY_##OP:                                                                                           \
        return WK_GPU_LAUNCH(d, unary_##name, x->dtype, 0, 0, grid, block, 0, q);
        WK_UNARY_OPS(UN_OP_CASE_, ~)
#undef UN_OP_CASE_
    }
    return wk_error(WK_ERR_INVALID_ARGUMENT, "unary: op %d has no GPU kernel", (int)op);
}

/* mul/add (lo/hi) are in x's arithmetic form: the member of the wk_scalar the kernel reads (un_scalar). */
wk_status wk_gpu_affine(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(x, out, &q, &grid, &block);
    q.s0 = un_scalar(mul);
    q.s1 = un_scalar(add);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), affine, x->dtype, 0, 0, grid, block, 0, q);
}

wk_status wk_gpu_clamp(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(x, out, &q, &grid, &block);
    q.s0 = un_scalar(lo);
    q.s1 = un_scalar(hi);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), clamp, x->dtype, 0, 0, grid, block, 0, q);
}

/* The exponent and alpha go as f64; the kernel converts them to its compute type. */
wk_status wk_gpu_powf(const wk_tensor *x, double e, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(x, out, &q, &grid, &block);
    q.s0.f64 = e;
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), powf, x->dtype, 0, 0, grid, block, 0, q);
}

wk_status wk_gpu_elu(const wk_tensor *x, double alpha, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(x, out, &q, &grid, &block);
    q.s0.f64 = alpha;
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), elu, x->dtype, 0, 0, grid, block, 0, q);
}

wk_status wk_gpu_leaky_relu(const wk_tensor *x, double negative_slope, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(x, out, &q, &grid, &block);
    q.s0.f64 = negative_slope;
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), leaky_relu, x->dtype, 0, 0, grid, block, 0, q);
}

/* The row path of glu: a's layout is at most two dims, the inner one unit-stride and a whole number of vectors
 * long, the outer stride a whole number of vectors, and a, b and out vector-aligned. Sets q->hv, q->rs, q->dv and
 * returns true then (b shares a's layout: backend.h). */
static bool glu_rows(const wk_tensor *out, wk_gpu_unary_args *q)
{
    const wk_gpu_layout *l = &q->lx;
    const uintptr_t mask = WK_UNARY_VEC_BYTES - 1;
    int64_t per = WK_UNARY_VEC_BYTES / (int64_t)wk_dtype_size(out->dtype);
    if ((((uintptr_t)q->x | (uintptr_t)q->x2 | (uintptr_t)q->out) & mask) != 0 || l->rank < 1 || l->rank > 2)
        return false;
    int64_t inner = l->shape[l->rank - 1], rs = l->rank == 2 ? l->stride[0] : 0;
    if (l->stride[l->rank - 1] != 1 || inner % per != 0 || rs % per != 0)
        return false;
    q->hv = inner / per;
    q->rs = rs;
    if (q->n / per <= INT32_MAX)
        q->dv = wk_gpu_divisor_of(q->hv);
    return true;
}

/* a and b: views of one tensor's halves with the same shape and strides (ops/unary.c). */
wk_status wk_gpu_glu(wk_glu_kind kind, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    wk_gpu_unary_args q;
    wk_gpu_dim grid, block;
    un_args(a, out, &q, &grid, &block);
    q.x2 = wk_tensor_data(b);
    if (glu_rows(out, &q))
        grid.x = wk_gpu_blocks(wk_gpu_dev_of(out), q.n / (WK_UNARY_VEC_BYTES / (int64_t)wk_dtype_size(out->dtype)),
                               block.x);
    else
        grid.x = wk_gpu_blocks(wk_gpu_dev_of(out), q.n, block.x);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), glu, (int)kind, a->dtype, 0, grid, block, 0, q);
}

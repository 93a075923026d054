/* reorder.c: the GPU's reorder slot (pad, flip, roll, repeat, repeat_interleave) and one_hot: merges the dims the
 * maps allow, then launches the rows kernel (rows of at least a group of threads) or the element kernel. */
#include <string.h>

#include "gpu/gpu.h"

static int size_slot(int64_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* The kernel's dims: SAME dims of size 1 dropped, and a SAME dim merged into the SAME dim before it where x is
 * one run across the pair (out is contiguous, so it always is); at least one dim. */
static void reorder_dims(wk_gpu_reorder_args *q, const wk_tensor *x, const wk_reorder_map *m, const wk_tensor *out)
{
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        int k = m->kind[d];
        if (k == WK_REORDER_SAME && out->shape[d] == 1)
            continue;
        if (r > 0 && k == WK_REORDER_SAME && q->kind[r - 1] == WK_REORDER_SAME &&
            q->xs[r - 1] == x->strides[d] * x->shape[d]) {
            q->n[r - 1] *= x->shape[d];
            q->os[r - 1] = q->n[r - 1];
            q->xs[r - 1] = x->strides[d];
            continue;
        }
        q->kind[r] = k;
        q->a[r] = m->a[d];
        q->n[r] = x->shape[d];
        q->os[r] = out->shape[d];
        q->xs[r] = x->strides[d];
        r++;
    }
    if (r == 0) {
        q->kind[0] = WK_REORDER_SAME;
        q->n[0] = q->os[0] = q->xs[0] = 1;
        r = 1;
    }
    q->rank = r;
}

wk_status wk_gpu_reorder(const wk_tensor *x, const wk_reorder_map *m, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t es = (int64_t)wk_dtype_size(out->dtype);
    wk_gpu_reorder_args q;
    memset(&q, 0, sizeof q);
    q.out = wk_tensor_data(out);
    q.x = wk_tensor_data(x);
    reorder_dims(&q, x, m, out);
    q.numel = wk_tensor_numel(out);
    q.small = q.numel <= INT32_MAX;
    q.bits = es == 1 ? m->value.u8 : es == 2 ? m->value.h : es == 4 ? m->value.u32 : (uint64_t)m->value.i64;
    q.cols = q.os[q.rank - 1];
    wk_gpu_dim block = {REORDER_THREADS, 1, 1};
    if (q.cols >= REORDER_GROUP) {
        q.per_row = (q.cols + REORDER_CHUNK - 1) / REORDER_CHUNK;
        q.items = q.numel / q.cols * q.per_row;
        wk_gpu_dim grid = {wk_gpu_blocks(d, q.items * REORDER_GROUP, REORDER_THREADS), 1, 1};
        return WK_GPU_LAUNCH(d, reorder_rows, size_slot(es), q.kind[q.rank - 1], 0, grid, block, 0, q);
    }
    wk_gpu_dim grid = {wk_gpu_blocks(d, q.numel, REORDER_THREADS), 1, 1};
    return WK_GPU_LAUNCH(d, reorder_elems, size_slot(es), 0, 0, grid, block, 0, q);
}

wk_status wk_gpu_one_hot(const wk_tensor *ids, int64_t classes, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    wk_gpu_reorder_args q;
    memset(&q, 0, sizeof q);
    q.out = wk_tensor_data(out);
    q.ids = wk_tensor_data(ids);
    q.li = wk_gpu_layout_of(ids);
    q.classes = classes;
    q.numel = wk_tensor_numel(out);
    q.small = q.numel <= INT32_MAX;
    q.fault = wk_gpu_fault_record(d);
    wk_gpu_dim grid = {wk_gpu_blocks(d, q.numel, REORDER_THREADS), 1, 1}, block = {REORDER_THREADS, 1, 1};
    return WK_GPU_LAUNCH(d, reorder_one_hot, ids->dtype, 0, 0, grid, block, 0, q);
}

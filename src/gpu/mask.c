/* mask.c: the GPU's mask slots (tri: tril and triu; masked_fill): argument packing and launch geometry for
 * kernels/mask.cu (sets tri and masked_fill of kernels/mask.h), one kernel per element size. */
#include <string.h>

#include "gpu/gpu.h"

_Static_assert(WK_TRI_LOWER == 0 && WK_TRI_UPPER == 1, "kernels/mask.h's upper flag is the kind");

/* The slot of an element size on the SIZES axis: log2 of 1, 2, 4, 8. */
static int mk_size_slot(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

static bool mk_aligned(const void *p) { return ((uintptr_t)p & (WK_MASK_VEC_BYTES - 1)) == 0; }

/* Threads for `items` grid-stride items in blocks of 256. */
static void mk_grid(const wk_tensor *out, int64_t items, wk_gpu_dim *grid, wk_gpu_dim *block)
{
    unsigned threads = 256;
    *grid = (wk_gpu_dim){wk_gpu_blocks(wk_gpu_dev_of(out), items, threads), 1, 1};
    *block = (wk_gpu_dim){threads, 1, 1};
}

/* The kernel takes its vector path (one thread per WK_MASK_VEC_BYTES of out) when a row is a whole number of
 * vectors and out is aligned; the grid is sized to match, though any grid is correct. */
wk_status wk_gpu_tri(const wk_tensor *x, wk_tri_kind kind, int64_t diagonal, wk_tensor *out)
{
    size_t es = wk_dtype_size(x->dtype);
    int64_t n = wk_numel(out->rank, out->shape), per = WK_MASK_VEC_BYTES / (int64_t)es;
    wk_gpu_mask_args q = {.x = wk_tensor_data(x), .lx = wk_gpu_layout_of(x), .out = wk_tensor_data(out), .n = n,
                          .rows = x->shape[x->rank - 2], .cols = x->shape[x->rank - 1], .diagonal = diagonal,
                          .upper = kind == WK_TRI_UPPER};
    if (n < ((int64_t)1 << 31)) {
        q.dcols = wk_gpu_divisor_of(q.cols);
        q.drows = wk_gpu_divisor_of(q.rows);
    }
    wk_gpu_dim grid, block;
    mk_grid(out, q.cols % per == 0 && mk_aligned(q.out) ? n / per : n, &grid, &block);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), tri, mk_size_slot(es), 0, 0, grid, block, 0, q);
}

/* mask: already broadcast to x's shape. v: x's storage form, whose first bytes are the element (every wk_scalar
 * member starts at its first byte), copied into the low bytes of q.v. The vector path's condition is the
 * kernel's: x contiguous, x and out aligned, and the mask's innermost dim a whole number of vectors. */
wk_status wk_gpu_masked_fill(const wk_tensor *x, const wk_tensor *mask, wk_scalar v, wk_tensor *out)
{
    size_t es = wk_dtype_size(x->dtype);
    int64_t n = wk_numel(out->rank, out->shape), per = WK_MASK_VEC_BYTES / (int64_t)es;
    wk_gpu_mask_args q = {.x = wk_tensor_data(x), .lx = wk_gpu_layout_of(x), .mask = wk_tensor_data(mask),
                          .lm = wk_gpu_layout_of(mask), .out = wk_tensor_data(out), .n = n, .v = 0};
    memcpy(&q.v, &v, es);
    int rm = q.lm.rank;
    bool vec = q.lx.contiguous && mk_aligned(q.x) && mk_aligned(q.out) && (rm <= 1 || q.lm.shape[rm - 1] % per == 0);
    wk_gpu_dim grid, block;
    mk_grid(out, vec ? (n + per - 1) / per : n, &grid, &block);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), masked_fill, mk_size_slot(es), 0, 0, grid, block, 0, q);
}

/* matmul.c: the GPU matmul slot: (..., m, k) x (..., k, n) as strided-batched GEMMs of the vendor BLAS.
 * Operands are read in place whenever the BLAS can address them; only the others are packed first. One row
 * times a weight stored by rows (a linear layer at decode: b = w^T, w (n, k)) goes to wick's own mat-vec kernel
 * instead (kernels/gemv.cu), which reads w once at close to the copy bandwidth; WICK_GPU_GEMV=0 turns it off. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/env.h"
#include "gpu/gpu.h"

/* One operand as the GEMM reads it: a batch of (rows x cols) matrices. */
typedef struct mm_operand {
    const char *base;   /* element 0 (device address) */
    wk_tensor *scratch; /* the packed copy base points into, released after queueing; NULL: none */
    int64_t rows, cols;
    int64_t rs, cs;     /* the matrix strides as the tensor lies (before any packing) */
    bool trans;         /* stored column-major */
    int64_t ld;
    int64_t bstride[WK_MAX_RANK]; /* per batch dim of out: 0 where broadcast or of size 1 */
} mm_operand;

/* Whether a (rows x cols) matrix with strides (rs, cs) is a BLAS operand as it lies. A size-1 dim's stride
 * is free, so it is chosen to satisfy ld >= max(1, length of the stored rows or columns). */
static bool gemm_form(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans, int64_t *ld)
{
    int64_t row_ld = cols > 1 ? cols : 1, col_ld = rows > 1 ? rows : 1;
    if (cs == 1 || cols == 1) {
        int64_t l = rows == 1 ? row_ld : rs;
        if (l >= row_ld) {
            *trans = false;
            *ld = l;
            return true;
        }
    }
    if (rs == 1 || rows == 1) {
        int64_t l = cols == 1 ? col_ld : cs;
        if (l >= col_ld) {
            *trans = true;
            *ld = l;
            return true;
        }
    }
    return false;
}

/* Packs t into scratch on its device. Batch dims that are broadcast stay unmaterialised (size 1 in the
 * copy, stride 0 for the GEMM), and a matrix stored closer to column-major is packed column-major, so the
 * copy reads memory in order. */
static wk_status pack(const wk_tensor *t, int nb, mm_operand *o)
{
    int rank = nb + 2;
    int64_t shape[WK_MAX_RANK], phys[WK_MAX_RANK], strides[WK_MAX_RANK];
    for (int d = 0; d < nb; d++)
        shape[d] = phys[d] = t->strides[d] == 0 ? 1 : t->shape[d];
    shape[nb] = o->rows;
    shape[nb + 1] = o->cols;
    bool col = o->rows > 1 && o->cols > 1 && o->rs < o->cs;
    phys[nb] = col ? o->cols : o->rows;
    phys[nb + 1] = col ? o->rows : o->cols;

    wk_tensor *src = NULL, *tmp = NULL, *dst = NULL;
    wk_status s = wk_tensor_view(t, rank, shape, t->strides, t->offset, &src);
    if (s == WK_OK)
        s = wk_tensor_alloc(t->storage->device, t->dtype, rank, phys, &tmp);
    if (s == WK_OK) {
        wk_contiguous_strides(rank, phys, strides);
        if (col) {
            strides[nb] = 1;
            strides[nb + 1] = o->rows;
        }
        s = wk_tensor_view(tmp, rank, shape, strides, 0, &dst);
    }
    if (s == WK_OK)
        s = wk_gpu_copy(src, dst);
    wk_tensor_release(src);
    wk_tensor_release(dst);
    if (s != WK_OK) {
        wk_tensor_release(tmp);
        return s;
    }
    o->base = wk_tensor_data(tmp);
    o->scratch = tmp;
    o->trans = col;
    o->ld = col ? o->rows : o->cols;
    for (int d = 0; d < nb; d++)
        o->bstride[d] = shape[d] == 1 ? 0 : strides[d];
    return WK_OK;
}

/* The operand as the GEMM will read it: in place, or packed when its matrices are not BLAS operands. */
static wk_status operand_of(const wk_tensor *t, int nb, mm_operand *o)
{
    *o = (mm_operand){.base = wk_tensor_data(t), .rows = t->shape[nb], .cols = t->shape[nb + 1],
                      .rs = t->strides[nb], .cs = t->strides[nb + 1]};
    for (int d = 0; d < nb; d++)
        o->bstride[d] = t->shape[d] == 1 ? 0 : t->strides[d];
    if (gemm_form(o->rows, o->cols, o->rs, o->cs, &o->trans, &o->ld))
        return WK_OK;
    return pack(t, nb, o);
}

/* The batch dims of a, b and out merged where all three allow it (size-1 dims dropped): each joint dim
 * has one size and one stride per operand. Out is contiguous, so only a's and b's strides can keep two
 * dims apart (a broadcast in one dim but not the next). */
typedef struct mm_batch {
    int n;
    int64_t size[WK_MAX_RANK], sa[WK_MAX_RANK], sb[WK_MAX_RANK], sc[WK_MAX_RANK];
} mm_batch;

static mm_batch batch_of(const wk_tensor *out, int nb, const mm_operand *a, const mm_operand *b)
{
    mm_batch jb = {.n = 0};
    int64_t sc = out->shape[nb] * out->shape[nb + 1];
    int64_t cstride[WK_MAX_RANK];
    for (int d = nb - 1; d >= 0; d--) {
        cstride[d] = sc;
        sc *= out->shape[d];
    }
    for (int d = 0; d < nb; d++) {
        int64_t size = out->shape[d];
        if (size == 1)
            continue;
        int j = jb.n - 1;
        if (j >= 0 && jb.sa[j] == a->bstride[d] * size && jb.sb[j] == b->bstride[d] * size &&
            jb.sc[j] == cstride[d] * size) {
            jb.size[j] *= size;
        } else {
            j = jb.n++;
            jb.size[j] = size;
        }
        jb.sa[j] = a->bstride[d];
        jb.sb[j] = b->bstride[d];
        jb.sc[j] = cstride[d];
    }
    return jb;
}

/* When every batch shares b and a's batches continue its rows, the product is one GEMM of batch*m rows
 * (out's rows follow each other the same way). */
static bool fold(const mm_batch *jb, int64_t m, int64_t n, int64_t k, mm_operand *a, int64_t *rows)
{
    if (jb->n != 1 || jb->sb[0] != 0 || jb->sc[0] != m * n || m > INT_MAX / jb->size[0])
        return false;
    int64_t sa = jb->sa[0];
    if (m == 1) {
        int64_t cs = a->scratch ? 1 : a->cs; /* a packed single row is stored row-major */
        if ((cs != 1 && k != 1) || sa < (k > 1 ? k : 1))
            return false;
    } else if (a->trans || sa != m * a->ld) {
        return false;
    }
    a->trans = false;
    if (m == 1)
        a->ld = sa;
    *rows = m * jb->size[0];
    return true;
}

/* ---------------------------------------------------------------- the mat-vec kernels */
/* a's rows as one (M, K) matrix of rows ld apart (every batch dim and m in one run of equally spaced rows, unit
 * stride along k): false when they are not. */
static bool rows_of(const wk_tensor *a, int nb, int64_t *M, int64_t *ld)
{
    int64_t count = 1, step = 0;
    if (a->shape[nb + 1] > 1 && a->strides[nb + 1] != 1)
        return false;
    for (int d = nb; d >= 0; d--) {
        if (a->shape[d] == 1)
            continue;
        if (step == 0)
            step = a->strides[d];
        else if (a->strides[d] != step * count)
            return false;
        count *= a->shape[d];
    }
    *M = count;
    *ld = step ? step : a->shape[nb + 1];
    return true;
}

/* WICK_GPU_GEMV=0 turns the mat-vec kernel off; read once (every matmul asks). */
static bool gemv_on(void)
{
    static atomic_int state;
    return wk_env_on("WICK_GPU_GEMV", &state);
}

/* The mat-vec kernel: out (N values, or half with a gated unit) = x (K values) . w (N rows ldw apart) with e's steps;
 * WK_ERR_UNSUPPORTED where its rules fail (K a multiple of a vector, 16-byte aligned rows, x and norm). */
static wk_status gemv_launch(wk_gpu_dev *d, wk_dtype dt, const void *w, const void *x, void *out, int64_t n, int64_t k,
                             int64_t ldw, const wk_gpu_linear_epi *e)
{
    int64_t es = (int64_t)wk_dtype_size(dt);
    if (!gemv_on() || (dt != WK_F16 && dt != WK_BF16 && dt != WK_F32) || ldw < k || n < 1 || k < 1)
        return WK_ERR_UNSUPPORTED;
    if (k % (16 / es) != 0 || (ldw * es) % 16 != 0 || ((uintptr_t)w | (uintptr_t)x | (uintptr_t)e->norm) % 16)
        return WK_ERR_UNSUPPORTED;
    /* two rows of w a group when there are many, and for a gated unit or a rope (pairs of rows) */
    int rs = e->glu || e->rope || n >= 4096 ? 1 : 0, ws = wk_gpu_width_slot(d);
    int64_t lpr = wk_gpu_logical_warp(d), groups = e->glu ? e->half : (n + rs) / (rs + 1);
    while (lpr > 1 && lpr / 2 >= k / (16 / es)) /* a short row: fewer lanes to it */
        lpr /= 2;
    int64_t blocks = (groups * lpr + GV_BLOCK - 1) / GV_BLOCK;
    if (blocks > 0x7fffffff)
        return WK_ERR_UNSUPPORTED;
    wk_gpu_gemv_args p = {.w = w, .x = x, .out = out, .N = n, .K = k, .ldw = ldw, .lpr = lpr, .epi = *e};
    wk_gpu_dim grid = {(unsigned)blocks, 1, 1}, block = {GV_BLOCK, 1, 1};
    return WK_GPU_LAUNCH(d, gemv, dt, rs, ws, grid, block, 0, p);
}

wk_status wk_gpu_gemv_fused(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_gpu_linear_epi *e,
                            wk_tensor *out)
{
    return gemv_launch(d, x->dtype, wk_tensor_data(w), wk_tensor_data(x), wk_tensor_data(out), w->shape[0],
                       w->shape[1], w->strides[0], e);
}

/* out = a b through the mat-vec kernel when it takes it: one row of a in all, b one matrix (its batch dims
 * broadcast) stored by columns (b = w^T); WK_ERR_UNSUPPORTED otherwise. */
static wk_status gemv(wk_gpu_dev *d, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    int nb = out->rank - 2;
    int64_t n = out->shape[nb + 1], k = a->shape[nb + 1], M = 0, ldx = 0;
    for (int i = 0; i < nb; i++) /* b broadcast over the batch, whose rows are all a's */
        if ((b->shape[i] != 1 && b->strides[i] != 0) || a->shape[i] != out->shape[i])
            return WK_ERR_UNSUPPORTED;
    if (!rows_of(a, nb, &M, &ldx) || M != 1 || (k > 1 && b->strides[nb] != 1))
        return WK_ERR_UNSUPPORTED;
    const wk_gpu_linear_epi none = {0};
    return gemv_launch(d, out->dtype, wk_tensor_data(b), wk_tensor_data(a), wk_tensor_data(out), n, k,
                       b->strides[nb + 1], &none);
}

wk_status wk_gpu_matmul(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int nb = out->rank - 2;
    int64_t m = out->shape[nb], n = out->shape[nb + 1], k = a->shape[nb + 1];
    wk_status gs = gemv(d, a, b, out);
    if (gs != WK_ERR_UNSUPPORTED)
        return gs;
    const char *why = NULL;
    const wk_gpu_blas *blas = wk_gpu_blas_of(d, &why);
    if (!blas)
        return wk_error(WK_ERR_UNSUPPORTED, "matmul: %s", why ? why : "no BLAS library for this device");

    mm_operand oa, ob;
    wk_status s = operand_of(a, nb, &oa);
    if (s != WK_OK)
        return s;
    s = operand_of(b, nb, &ob);
    if (s != WK_OK) {
        wk_tensor_release(oa.scratch);
        return s;
    }

    mm_batch jb = batch_of(out, nb, &oa, &ob);
    int64_t rows = m;
    bool folded = fold(&jb, m, n, k, &oa, &rows);
    /* The largest joint dim is the GEMM's batch; any other joint dims are looped over (last resort). */
    int g = -1;
    for (int j = 0; !folded && j < jb.n; j++)
        if (g < 0 || jb.size[j] > jb.size[g])
            g = j;
    size_t es = wk_dtype_size(out->dtype);
    wk_gpu_gemm gm = {.dtype = out->dtype, .trans_a = oa.trans, .trans_b = ob.trans,
                      .allow_tf32 = (flags & WK_MATMUL_ALLOW_TF32) != 0, .m = rows, .n = n, .k = k,
                      .batch = g < 0 ? 1 : jb.size[g], .lda = oa.ld, .ldb = ob.ld, .ldc = n,
                      .stride_a = g < 0 ? 0 : jb.sa[g], .stride_b = g < 0 ? 0 : jb.sb[g],
                      .stride_c = g < 0 ? 0 : jb.sc[g]};
    int64_t loops = 1, idx[WK_MAX_RANK] = {0};
    for (int j = 0; !folded && j < jb.n; j++)
        if (j != g)
            loops *= jb.size[j];
    char *c = wk_tensor_data(out);
    for (int64_t it = 0; it < loops && s == WK_OK; it++) {
        int64_t off_a = 0, off_b = 0, off_c = 0;
        for (int j = 0; !folded && j < jb.n; j++) {
            off_a += idx[j] * jb.sa[j];
            off_b += idx[j] * jb.sb[j];
            off_c += idx[j] * jb.sc[j];
        }
        gm.a = oa.base + (size_t)off_a * es;
        gm.b = ob.base + (size_t)off_b * es;
        gm.c = c + (size_t)off_c * es;
        s = blas->gemm(d, &gm);
        for (int j = jb.n - 1; !folded && j >= 0; j--) {
            if (j == g)
                continue;
            if (++idx[j] < jb.size[j])
                break;
            idx[j] = 0;
        }
    }
    wk_tensor_release(oa.scratch); /* stream-ordered: the queued GEMMs still read it */
    wk_tensor_release(ob.scratch);
    return s;
}

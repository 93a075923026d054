/* matmul.c: the CPU matmul slot through OpenBLAS (sgemm for f32, f16 and bf16 via f32; dgemm for f64).
 * Operands BLAS can address (unit stride in one of the last two dims) go in without a copy. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/gemm.h"

/* One operand seen as a batch of (rows x cols) matrices; strides in elements. */
typedef struct mm_operand {
    const char *base;
    int64_t rows, cols, rs, cs;
    int64_t bstride[WK_MAX_RANK];
} mm_operand;

/* How BLAS reads a matrix: trans says it is stored column-major; ld is its leading dimension. */
typedef struct mm_form {
    bool trans;
    int64_t ld;
} mm_form;

/* Whether a (rows x cols) matrix with strides (rs, cs) is a BLAS operand as it lies. A size-1 dim's
 * stride is free, so it is chosen to satisfy BLAS's ld >= max(1, row length). */
static bool blas_form(int64_t rows, int64_t cols, int64_t rs, int64_t cs, mm_form *f)
{
    int64_t min_row_ld = cols > 1 ? cols : 1, min_col_ld = rows > 1 ? rows : 1;
    if (cs == 1 || cols == 1) {
        int64_t ld = rows == 1 ? min_row_ld : rs;
        if (ld >= min_row_ld && ld <= WK_GEMM_MAX_DIM) {
            *f = (mm_form){.trans = false, .ld = ld};
            return true;
        }
    }
    if (rs == 1 || rows == 1) {
        int64_t ld = cols == 1 ? min_col_ld : cs;
        if (ld >= min_col_ld && ld <= WK_GEMM_MAX_DIM) {
            *f = (mm_form){.trans = true, .ld = ld};
            return true;
        }
    }
    return false;
}

static mm_operand operand_of(const wk_tensor *t, int nbatch)
{
    mm_operand o = {.base = wk_tensor_data(t), .rows = t->shape[nbatch], .cols = t->shape[nbatch + 1],
                    .rs = t->strides[nbatch], .cs = t->strides[nbatch + 1]};
    for (int d = 0; d < nbatch; d++)
        o.bstride[d] = t->shape[d] == 1 ? 0 : t->strides[d];
    return o;
}

/* When b is the same matrix for every batch and a's batch dims continue its row stride, the whole
 * product is one GEMM with m' = batch*m rows (the output is contiguous, so its rows line up too). */
static bool fold_batch(int nbatch, const int64_t *bshape, mm_operand *a, const mm_operand *b, int64_t *batch)
{
    if (*batch == 1)
        return false;
    int64_t rows = a->rows, rs = a->rs;
    for (int d = nbatch - 1; d >= 0; d--) {
        if (bshape[d] == 1)
            continue;
        if (b->bstride[d] != 0)
            return false;
        if (rows == 1)
            rs = a->bstride[d];
        else if (a->bstride[d] != rs * rows)
            return false;
        rows *= bshape[d];
    }
    mm_form f;
    if (rows > WK_GEMM_MAX_DIM || !blas_form(rows, a->cols, rs, a->cs, &f) || f.trans)
        return false;
    a->rows = rows;
    a->rs = rs;
    *batch = 1;
    return true;
}

/* Per-operand scratch: the packed copy (allocated on first use) and the batch offset it holds (-1: none). */
typedef struct mm_scratch {
    void *buf;
    int64_t packed_off;
} mm_scratch;

/* The BLAS view of one operand for the batch at element offset off: the tensor itself when BLAS can
 * read it (and no conversion is needed), else a packed copy in the compute type, kept while the offset
 * repeats (broadcast batches). The packed copy keeps the operand's orientation to read memory in order.
 * NULL when the scratch cannot be allocated. */
static const void *operand_view(wk_dtype dt, const mm_operand *o, int64_t off, mm_scratch *s, mm_form *f)
{
    wk_dtype ct = wk_gemm_compute_dtype(dt);
    const char *p = o->base + (size_t)off * wk_dtype_size(dt);
    if (dt == ct && blas_form(o->rows, o->cols, o->rs, o->cs, f))
        return p;
    if (!s->buf && !(s->buf = malloc((size_t)(o->rows * o->cols) * wk_dtype_size(ct))))
        return NULL;
    bool col_major = o->rows > 1 && o->cols > 1 && o->rs < o->cs;
    *f = col_major ? (mm_form){.trans = true, .ld = o->rows} : (mm_form){.trans = false, .ld = o->cols};
    if (off != s->packed_off) {
        if (col_major)
            wk_gemm_pack(dt, p, o->cols, o->rows, o->cs, o->rs, s->buf);
        else
            wk_gemm_pack(dt, p, o->rows, o->cols, o->rs, o->cs, s->buf);
        s->packed_off = off;
    }
    return s->buf;
}

wk_status wk_cpu_matmul(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor *out)
{
    (void)flags; /* TF32 is a GPU notion; the CPU always computes true f32 */
    wk_dtype dt = out->dtype, ct = wk_gemm_compute_dtype(dt);
    int nbatch = out->rank - 2;
    int64_t m = out->shape[nbatch], n = out->shape[nbatch + 1], k = a->shape[nbatch + 1];
    int64_t batch = wk_numel(nbatch, out->shape);
    size_t es = wk_dtype_size(dt), ces = wk_dtype_size(ct);
    mm_operand oa = operand_of(a, nbatch), ob = operand_of(b, nbatch);
    int64_t rows = m;
    if (fold_batch(nbatch, out->shape, &oa, &ob, &batch))
        rows = oa.rows;
    if (rows > WK_GEMM_MAX_DIM || n > WK_GEMM_MAX_DIM || k > WK_GEMM_MAX_DIM)
        return wk_error(WK_ERR_UNSUPPORTED, "matmul: dims %lld x %lld x %lld exceed the BLAS int range",
                        (long long)rows, (long long)k, (long long)n);

    bool convert = dt != ct;
    mm_scratch sa = {.buf = NULL, .packed_off = -1}, sb = {.buf = NULL, .packed_off = -1};
    void *cbuf = convert ? malloc((size_t)(rows * n) * ces) : NULL;
    wk_status s = WK_OK;
    int64_t idx[WK_MAX_RANK] = {0}, off_a = 0, off_b = 0;
    char *dst = wk_tensor_data(out);
    for (int64_t bi = 0; bi < batch; bi++) {
        mm_form fa, fb;
        const void *pa = operand_view(dt, &oa, off_a, &sa, &fa);
        const void *pb = operand_view(dt, &ob, off_b, &sb, &fb);
        if (!pa || !pb || (convert && !cbuf)) {
            s = wk_error(WK_ERR_OUT_OF_MEMORY, "matmul: no memory for %lld x %lld x %lld scratch", (long long)rows,
                         (long long)k, (long long)n);
            break;
        }
        char *c = dst + (size_t)(bi * rows * n) * es;
        wk_gemm(ct, fa.trans, fb.trans, rows, n, k, pa, fa.ld, pb, fb.ld, convert ? cbuf : c, n, false);
        if (convert)
            wk_gemm_store(dt, cbuf, c, rows * n, NULL, 1, 1);
        for (int d = nbatch - 1; d >= 0; d--) { /* next batch index, carrying */
            off_a += oa.bstride[d];
            off_b += ob.bstride[d];
            if (++idx[d] < out->shape[d])
                break;
            off_a -= oa.bstride[d] * idx[d];
            off_b -= ob.bstride[d] * idx[d];
            idx[d] = 0;
        }
    }
    free(sa.buf);
    free(sb.buf);
    free(cbuf);
    return s;
}

/* matmul.c: case family 'matmul': a plain triple-loop float64 reference with numpy batch broadcasting,
 * cases over every float dtype, operand layouts, broadcast/missing batch dims and zero sizes; bad inputs. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Operand layouts beyond wkt_layout: MM_BATCHPERM stores the batch dims inside the rows, so the matrices
 * stay row-major (BLAS-readable) while the batch stride is smaller than a matrix; MM_COLBCAST repeats one
 * column (last-dim stride 0), which BLAS cannot read. */
enum { MM_BATCHPERM = WKT_LAYOUT_COUNT, MM_COLBCAST };

/* iparam: [0] n, [1] rank of b, [2..5] b's batch dims, [6] b's layout, [7] a's layout override (0: none). */
enum { P_N, P_RB, P_BB, P_BLAYOUT = 6, P_ALAYOUT = 7 };

/* Non-negative inputs: a dot product of mixed signs can cancel to near zero, where an f32 GEMM's
 * rounding is a large relative error that no f32 implementation avoids (seen on a 1x7 . 7x1 case). */
static wkt_dist mm_dist(void) { return (wkt_dist){0, 2}; }

static wk_status make_colbcast(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_rng *rng,
                               wk_tensor **t, double **vals)
{
    int64_t narrow[WK_MAX_RANK], n = 1, cols = shape[rank - 1];
    for (int i = 0; i < rank; i++) {
        narrow[i] = i == rank - 1 ? 1 : shape[i];
        n *= shape[i];
    }
    wk_tensor *p = NULL;
    double *pv = NULL, *lv = NULL;
    wk_status s = wkt_make(dev, dt, rank, narrow, WKT_CONTIG, mm_dist(), rng, &p, &pv);
    if (s != WK_OK)
        return s;
    s = wk_broadcast_to(p, rank, shape, t);
    wk_tensor_release(p);
    if (s == WK_OK && !(lv = malloc((size_t)n * sizeof *lv + 1))) {
        wk_tensor_release(*t);
        s = WK_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; s == WK_OK && i < n; i++)
        lv[i] = pv[i / cols];
    free(pv);
    if (s == WK_OK)
        *vals = lv;
    return s;
}

static wk_status make_operand(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, int layout, wkt_rng *rng,
                              wk_tensor **t, double **vals)
{
    if (layout == MM_COLBCAST)
        return make_colbcast(dev, dt, rank, shape, rng, t, vals);
    if (layout != MM_BATCHPERM || rank < 3)
        return wkt_make(dev, dt, rank, shape, (wkt_layout)layout, mm_dist(), rng, t, vals);
    /* storage (rows, batch..., cols), viewed as (batch..., rows, cols) */
    int64_t phys[WK_MAX_RANK], pstride[WK_MAX_RANK], n = 1;
    int perm[WK_MAX_RANK];
    phys[0] = shape[rank - 2];
    for (int i = 0; i < rank - 2; i++) {
        phys[1 + i] = shape[i];
        perm[i] = 1 + i;
    }
    phys[rank - 1] = shape[rank - 1];
    perm[rank - 2] = 0;
    perm[rank - 1] = rank - 1;
    wk_tensor *p = NULL;
    double *pv = NULL;
    wk_status s = wkt_make(dev, dt, rank, phys, WKT_CONTIG, mm_dist(), rng, &p, &pv);
    if (s != WK_OK)
        return s;
    s = wk_permute(p, perm, t);
    wk_tensor_release(p);
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    double *lv = malloc((size_t)n * sizeof *lv + 1);
    if (s != WK_OK || !lv) {
        free(pv);
        free(lv);
        if (s == WK_OK)
            wk_tensor_release(*t);
        return s != WK_OK ? s : WK_ERR_OUT_OF_MEMORY;
    }
    pstride[rank - 1] = 1;
    for (int i = rank - 2; i >= 0; i--)
        pstride[i] = pstride[i + 1] * phys[i + 1];
    int64_t idx[WK_MAX_RANK] = {0};
    for (int64_t li = 0; li < n; li++) {
        int64_t pi = 0;
        for (int d = 0; d < rank; d++)
            pi += idx[d] * pstride[perm[d]];
        lv[li] = pv[pi];
        for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; d--)
            idx[d] = 0;
    }
    free(pv);
    *vals = lv;
    return WK_OK;
}

/* Index of the batch matrix of an operand with batch dims bshape (rank nb) used by output batch index
 * oidx (rank no >= nb): numpy broadcasting aligns dims from the right, size-1 dims repeat. */
static int64_t batch_index(int no, const int64_t *oidx, int nb, const int64_t *bshape)
{
    int64_t i = 0;
    for (int d = 0; d < nb; d++) {
        int64_t od = oidx[no - nb + d];
        i = i * bshape[d] + (bshape[d] == 1 ? 0 : od);
    }
    return i;
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int ra = c->rank, rb = c->iparam[P_RB];
    int64_t m = c->shape[ra - 2], k = c->shape[ra - 1], n = c->iparam[P_N];
    int64_t bshape[WK_MAX_RANK];
    for (int i = 0; i < rb - 2; i++) {
        bshape[i] = c->iparam[P_BB + i];
        /* a batch dim of a emptied (WICK_ZERO_SIZE) empties b's aligned one, so the two still broadcast */
        int ia = i - (rb - 2) + (ra - 2);
        if (ia >= 0 && c->shape[ia] == 0 && bshape[i] != 1)
            bshape[i] = 0;
    }
    bshape[rb - 2] = k;
    bshape[rb - 1] = n;
    int alayout = c->iparam[P_ALAYOUT] ? c->iparam[P_ALAYOUT] : (int)c->layout;
    wk_tensor *a = NULL, *b = NULL, *o = NULL;
    double *va = NULL, *vb = NULL, *got = NULL, *want = NULL;
    if (wkt_failed(make_operand(dev, c->dtype, ra, c->shape, alayout, rng, &a, &va), r, "make a") ||
        wkt_failed(make_operand(dev, c->dtype, rb, bshape, c->iparam[P_BLAYOUT], rng, &b, &vb), r, "make b") ||
        wkt_failed(wk_matmul(a, b, &o), r, "matmul") || wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;

    /* output batch shape: broadcast of both batch shapes */
    int nba = ra - 2, nbb = rb - 2, nbo = nba > nbb ? nba : nbb;
    int64_t oshape[WK_MAX_RANK], nbatch = 1;
    for (int d = 0; d < nbo; d++) {
        int64_t da = d < nbo - nba ? 1 : c->shape[d - (nbo - nba)];
        int64_t db = d < nbo - nbb ? 1 : bshape[d - (nbo - nbb)];
        oshape[d] = da == 1 ? db : da;
        nbatch *= oshape[d];
    }
    if (wk_tensor_rank(o) != nbo + 2 || wk_tensor_shape(o)[nbo] != m || wk_tensor_shape(o)[nbo + 1] != n ||
        wk_tensor_numel(o) != nbatch * m * n) {
        wkt_fail(r, "output shape wrong (rank %d)", wk_tensor_rank(o));
        goto done;
    }
    want = malloc((size_t)(nbatch * m * n) * sizeof *want + 1);
    if (!want) {
        wkt_fail(r, "out of memory");
        goto done;
    }
    int64_t oidx[WK_MAX_RANK] = {0};
    for (int64_t bi = 0; bi < nbatch; bi++) {
        const double *A = va + batch_index(nbo, oidx, nba, c->shape) * m * k;
        const double *B = vb + batch_index(nbo, oidx, nbb, bshape) * k * n;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0;
                for (int64_t p = 0; p < k; p++)
                    acc += A[i * k + p] * B[p * n + j];
                want[(bi * m + i) * n + j] = acc;
            }
        for (int d = nbo - 1; d >= 0 && ++oidx[d] == oshape[d]; d--)
            oidx[d] = 0;
    }
    wkt_compare(c->dtype, got, want, nbatch * m * n, wkt_tol(c->dtype, WKT_TOL_MATMUL), false, r);
done:
    wk_tensor_release(a);
    wk_tensor_release(b);
    wk_tensor_release(o);
    free(va);
    free(vb);
    free(got);
    free(want);
}

/* Adds a x b with a of shape `as` (rank ra) and b of batch dims `bb` (nbb of them), k from a, n given. */
static void add(wkt_list *l, wk_dtype dt, int ra, const int64_t *as, int nbb, const int64_t *bb, int64_t n,
                int alayout, int blayout)
{
    wkt_case c = {.family = "matmul", .op = "matmul", .dtype = dt, .rank = ra, .run = run};
    c.layout = alayout < WKT_LAYOUT_COUNT ? (wkt_layout)alayout : alayout == MM_COLBCAST ? WKT_BROADCAST : WKT_PERMUTED;
    c.iparam[P_ALAYOUT] = alayout < WKT_LAYOUT_COUNT ? 0 : alayout;
    memcpy(c.shape, as, (size_t)ra * sizeof *as);
    c.iparam[P_N] = (int)n;
    c.iparam[P_RB] = nbb + 2;
    for (int i = 0; i < nbb; i++)
        c.iparam[P_BB + i] = (int)bb[i];
    c.iparam[P_BLAYOUT] = blayout;
    wkt_add(l, &c);
}

#define SHAPE(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}
#define NOBATCH 0, NULL

static void cases(wkt_list *l)
{
    static const wk_dtype dts[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int mat_layouts[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_OFFSET};
    for (int di = 0; di < 4; di++) {
        wk_dtype dt = dts[di];
        /* rank 2: every BLAS-readable layout of each operand */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                add(l, dt, SHAPE(5, 7), NOBATCH, 3, mat_layouts[i], mat_layouts[j]);
        /* stride-0 rows or columns: copied before BLAS sees them */
        add(l, dt, SHAPE(5, 7), NOBATCH, 3, WKT_BROADCAST, MM_COLBCAST);
        add(l, dt, SHAPE(5, 7), NOBATCH, 3, MM_COLBCAST, WKT_BROADCAST);
        /* rank 3: a in every layout (permuted and broadcast must be copied or repeated) */
        for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++)
            add(l, dt, SHAPE(4, 6, 5), SHAPE(4), 7, lay, WKT_CONTIG);
        add(l, dt, SHAPE(4, 6, 5), SHAPE(4), 7, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(4, 6, 5), SHAPE(4), 7, WKT_CONTIG, WKT_PERMUTED);
        add(l, dt, SHAPE(4, 6, 5), SHAPE(4), 7, WKT_CONTIG, WKT_BROADCAST);
        add(l, dt, SHAPE(4, 6, 5), SHAPE(4), 7, MM_BATCHPERM, MM_BATCHPERM);
        /* rank 4 and broadcast batches: 1 vs 3, missing batch dims on either side */
        add(l, dt, SHAPE(2, 3, 4, 5), SHAPE(2, 3), 6, WKT_CONTIG, WKT_OFFSET);
        add(l, dt, SHAPE(2, 1, 4, 5), SHAPE(1, 3), 6, WKT_TRANSPOSED, WKT_CONTIG);
        add(l, dt, SHAPE(1, 4, 5), SHAPE(3), 6, WKT_CONTIG, WKT_CONTIG);
        add(l, dt, SHAPE(3, 4, 5), SHAPE(1), 6, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(4, 5), SHAPE(2, 3), 6, WKT_OFFSET, WKT_CONTIG);
        /* b shared by every batch: one folded GEMM when a's batches continue its rows */
        add(l, dt, SHAPE(2, 3, 4, 5), NOBATCH, 6, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(3, 4, 5), NOBATCH, 6, WKT_OFFSET, WKT_CONTIG);
        add(l, dt, SHAPE(3, 4, 5), NOBATCH, 6, WKT_TRANSPOSED, WKT_CONTIG);
        add(l, dt, SHAPE(3, 4, 5), NOBATCH, 6, MM_BATCHPERM, WKT_OFFSET);
        add(l, dt, SHAPE(3, 1, 5), NOBATCH, 6, WKT_CONTIG, WKT_CONTIG);
        /* vectors: size-1 dims whose strides BLAS must not see */
        add(l, dt, SHAPE(1, 7), NOBATCH, 1, WKT_TRANSPOSED, WKT_TRANSPOSED);
        add(l, dt, SHAPE(3, 1, 8), SHAPE(3), 1, WKT_OFFSET, WKT_TRANSPOSED);
        /* zero sizes: m, n, k, batch */
        add(l, dt, SHAPE(0, 5), NOBATCH, 3, WKT_CONTIG, WKT_CONTIG);
        add(l, dt, SHAPE(4, 5), NOBATCH, 0, WKT_CONTIG, WKT_CONTIG);
        add(l, dt, SHAPE(4, 0), NOBATCH, 3, WKT_CONTIG, WKT_CONTIG);
        add(l, dt, SHAPE(2, 4, 0), SHAPE(2), 3, WKT_TRANSPOSED, WKT_CONTIG);
        add(l, dt, SHAPE(0, 4, 5), NOBATCH, 3, WKT_CONTIG, WKT_CONTIG);
        /* one row times a weight stored by rows (b = w^T): the GPU's mat-vec kernel (gpu/matmul.c), short rows,
         * rows of many vectors, N over 4096 (two rows a group) and odd, a row in a batch dim; and the shapes next to
         * it that go to the BLAS: 3, 8 and 6 (folded) rows, an offset view, a batched b */
        add(l, dt, SHAPE(1, 64), NOBATCH, 40, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(1, 8), NOBATCH, 4099, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(1, 1, 1040), NOBATCH, 65, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(3, 136), NOBATCH, 4101, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(8, 24), NOBATCH, 7, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(2, 3, 520), NOBATCH, 33, WKT_CONTIG, WKT_TRANSPOSED);
        add(l, dt, SHAPE(1, 2048), NOBATCH, 300, WKT_OFFSET, WKT_TRANSPOSED);
        add(l, dt, SHAPE(5, 8), SHAPE(3), 9, WKT_CONTIG, WKT_TRANSPOSED);
        /* big enough for threaded packing / rounding and a threaded GEMM */
        add(l, dt, SHAPE(2, 200, 150), NOBATCH, 180, WKT_CONTIG, WKT_CONTIG);
        add(l, dt, SHAPE(2, 200, 150), SHAPE(2), 180, WKT_PERMUTED, WKT_TRANSPOSED);
    }
}

static void errors(wkt_errctx *e)
{
    static const char op[] = "matmul";
    wk_tensor *f34 = NULL, *f45 = NULL, *f56 = NULL, *f4 = NULL, *d45 = NULL, *i34 = NULL, *i45 = NULL,
              *f234 = NULL, *f345 = NULL;
    wk_tensor_empty(e->dev, WK_F32, 2, (const int64_t[]){3, 4}, &f34);
    wk_tensor_empty(e->dev, WK_F32, 2, (const int64_t[]){4, 5}, &f45);
    wk_tensor_empty(e->dev, WK_F32, 2, (const int64_t[]){5, 6}, &f56);
    wk_tensor_empty(e->dev, WK_F32, 1, (const int64_t[]){4}, &f4);
    wk_tensor_empty(e->dev, WK_F64, 2, (const int64_t[]){4, 5}, &d45);
    wk_tensor_empty(e->dev, WK_I32, 2, (const int64_t[]){3, 4}, &i34);
    wk_tensor_empty(e->dev, WK_I32, 2, (const int64_t[]){4, 5}, &i45);
    wk_tensor_empty(e->dev, WK_F32, 3, (const int64_t[]){2, 3, 4}, &f234);
    wk_tensor_empty(e->dev, WK_F32, 3, (const int64_t[]){3, 4, 5}, &f345);
    wk_tensor *o = NULL;
    WKT_EXPECT(e, wk_matmul(NULL, f45, &o), WK_ERR_INVALID_ARGUMENT, op);
    WKT_EXPECT(e, wk_matmul(f34, NULL, &o), WK_ERR_INVALID_ARGUMENT, op);
    WKT_EXPECT(e, wk_matmul(f34, f45, NULL), WK_ERR_INVALID_ARGUMENT, op);
    WKT_EXPECT(e, wk_matmul(f34, f56, &o), WK_ERR_SHAPE, op);     /* inner dims 4 vs 5 */
    WKT_EXPECT(e, wk_matmul(f4, f45, &o), WK_ERR_SHAPE, op);      /* rank 1 */
    WKT_EXPECT(e, wk_matmul(f34, f4, &o), WK_ERR_SHAPE, op);
    WKT_EXPECT(e, wk_matmul(i34, i45, &o), WK_ERR_DTYPE, op);     /* int dtype */
    WKT_EXPECT(e, wk_matmul(f34, d45, &o), WK_ERR_DTYPE, op);     /* mixed dtypes */
    WKT_EXPECT(e, wk_matmul(f234, f345, &o), WK_ERR_SHAPE, op);   /* batch 2 vs 3 */
    WKT_EXPECT(e, wk_matmul_ex(f34, f45, 0x80, &o), WK_ERR_INVALID_ARGUMENT, op);
    e->checks++;
    if (o != NULL) {
        e->failures++;
        printf("FAIL matmul: out written on failure\n");
    }
    wk_tensor *good = NULL; /* the same handles succeed, so the failures above were the argument's */
    WKT_EXPECT(e, wk_matmul_ex(f34, f45, WK_MATMUL_ALLOW_TF32, &good), WK_OK, op);
    wk_tensor_release(good);
    wk_tensor *all[] = {f34, f45, f56, f4, d45, i34, i45, f234, f345};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        wk_tensor_release(all[i]);
}

const wkt_family wkt_family_matmul = {.name = "matmul", .cases = cases, .errors = errors};

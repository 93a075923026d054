/* sort_topk.c: the sort family's selections: topk (largest and smallest, any dim), kthvalue and median (keepdim
 * or not) against a plain reference (qsort of each row on value, then index; NaN largest; median's NaN rule),
 * with ties, NaNs, strided inputs, long rows (several chunks on the GPU), k above the slot's limit, and errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "special_inputs.h"

void sort_topk_cases(wkt_list *l);
void sort_topk_errors(wkt_errctx *e);

/* iparam: [0] kind, [1] largest, [2] input kind, [3] dim, [4] k, [5] keepdim. */
enum { P_KIND, P_LARGEST, P_INPUT, P_DIM, P_K, P_KEEP };
enum { TOPK, KTHVALUE, MEDIAN };
static const char *const names[] = {"topk", "kthvalue", "median"};

typedef struct item { double v; int64_t i; } item;

/* NaN larger than every number; equal values in index order, in both directions. */
static int cmp_dir(const item *a, const item *b, bool desc)
{
    bool an = isnan(a->v), bn = isnan(b->v);
    int c = an || bn ? (an && bn ? 0 : an ? 1 : -1) : (a->v < b->v ? -1 : a->v > b->v);
    if (desc)
        c = -c;
    return c ? c : (a->i > b->i) - (a->i < b->i);
}
static int asc(const void *a, const void *b) { return cmp_dir(a, b, false); }
static int desc(const void *a, const void *b) { return cmp_dir(a, b, true); }

/* The reference for one row (n items, sorted in place): the kout results into v, ix. */
static void ref_row(int kind, bool largest, int64_t k, item *row, int64_t n, double *v, double *ix)
{
    if (kind == MEDIAN)
        for (int64_t i = 0; i < n; i++)
            if (isnan(row[i].v)) {
                v[0] = row[i].v;
                ix[0] = (double)i;
                return;
            }
    qsort(row, (size_t)n, sizeof *row, kind == TOPK && largest ? desc : asc);
    int64_t first = kind == TOPK ? 0 : (kind == MEDIAN ? (n + 1) / 2 : k) - 1, count = kind == TOPK ? k : 1;
    for (int64_t j = 0; j < count; j++) {
        v[j] = row[first + j].v;
        ix[j] = (double)row[first + j].i;
    }
}

static wk_status call(const wkt_case *c, wk_tensor *x, wk_tensor **v, wk_tensor **ix)
{
    int kind = c->iparam[P_KIND], dim = c->iparam[P_DIM];
    bool keep = c->iparam[P_KEEP] != 0;
    if (kind == TOPK)
        return wk_topk(x, c->iparam[P_K], dim, c->iparam[P_LARGEST] != 0, true, v, ix);
    if (kind == KTHVALUE)
        return wk_kthvalue(x, c->iparam[P_K], dim, keep, v, ix);
    return wk_median(x, dim, keep, v, ix);
}

static void run_topk(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[P_KIND], rank = c->rank, d = c->iparam[P_DIM] < 0 ? c->iparam[P_DIM] + (rank ? rank : 1)
                                                                            : c->iparam[P_DIM];
    int64_t n = rank ? c->shape[d] : 1, k = c->iparam[P_K], outer = 1, inner = 1;
    for (int i = 0; i < rank; i++)
        outer *= i < d ? c->shape[i] : 1, inner *= i > d ? c->shape[i] : 1;
    int64_t kout = kind == TOPK ? k : 1, oshape[WK_MAX_RANK];
    int orank = 0;
    for (int i = 0; i < rank; i++)
        if (i != d || kind == TOPK || c->iparam[P_KEEP])
            oshape[orank++] = i == d ? kout : c->shape[i];
    wk_tensor *x = NULL, *v = NULL, *ix = NULL;
    double *xv = NULL, *gv = NULL, *gi = NULL, *wv = NULL, *wi = NULL;
    item *row = NULL;
    wk_status s = make_input(dev, c->dtype, rank, c->shape, c->layout, (input_kind)c->iparam[P_INPUT], rng, &x, &xv);
    if (wkt_failed(s, r, "make input"))
        return;
    s = call(c, x, &v, &ix);
    if ((kind == TOPK && k > n) || (kind != TOPK && n == 0)) { /* an emptied dim */
        if (s != WK_ERR_INVALID_ARGUMENT)
            wkt_fail(r, "%s of an empty dim: status %d, want the invalid-argument error", c->op, (int)s);
        goto done;
    }
    if (wkt_failed(s, r, c->op) || !check_shape(v, c->dtype, orank, oshape, r) ||
        !check_shape(ix, WK_I64, orank, oshape, r) || wkt_failed(wkt_read(v, &gv), r, "read values") ||
        wkt_failed(wkt_read(ix, &gi), r, "read indices"))
        goto done;
    int64_t total = outer * inner * kout;
    wv = malloc((size_t)total * sizeof *wv + 1);
    wi = malloc((size_t)total * sizeof *wi + 1);
    row = malloc((size_t)n * sizeof *row + 1);
    double *tv = malloc((size_t)kout * 2 * sizeof(double) + 1);
    if (!wv || !wi || !row || !tv) {
        free(tv);
        wkt_fail(r, "out of memory");
        goto done;
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            for (int64_t i = 0; i < n; i++)
                row[i] = (item){xv[(o * n + i) * inner + in], i};
            ref_row(kind, c->iparam[P_LARGEST] != 0, k, row, n, tv, tv + kout);
            for (int64_t j = 0; j < kout; j++) {
                wv[(o * kout + j) * inner + in] = tv[j];
                wi[(o * kout + j) * inner + in] = tv[kout + j];
            }
        }
    free(tv);
    wkt_compare(c->dtype, gv, wv, total, 0, true, r);
    wkt_compare(WK_I64, gi, wi, total, 0, true, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(v);
    wk_tensor_release(ix);
    free(xv);
    free(gv);
    free(gi);
    free(wv);
    free(wi);
    free(row);
}

static void add(wkt_list *l, int kind, wk_dtype dt, wkt_layout lay, int rank, const int64_t *shape, int dim,
                int64_t k, bool largest, bool keep, input_kind input)
{
    wkt_case c = {.family = "sort", .dtype = dt, .layout = lay, .rank = rank, .run = run_topk};
    snprintf(c.op, sizeof c.op, "%s", names[kind]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[P_KIND] = kind;
    c.iparam[P_LARGEST] = largest;
    c.iparam[P_INPUT] = input;
    c.iparam[P_DIM] = dim;
    c.iparam[P_K] = (int)k;
    c.iparam[P_KEEP] = keep;
    wkt_add(l, &c);
}

void sort_topk_cases(wkt_list *l)
{
    static const wk_dtype dts[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int64_t shape[3] = {4, 5, 37};
    for (int t = 0; t < 8; t++)
        for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
            int m = t + lay, dim = m % 3 == 0 ? -1 : m % 3;
            input_kind in = m % 3 == 0 ? INPUT_RANDOM : m % 3 == 1 ? INPUT_TIES : INPUT_NAN;
            add(l, TOPK, dts[t], (wkt_layout)lay, 3, shape, dim, 1 + m % 4, m % 2 == 0, false, in);
            add(l, KTHVALUE, dts[t], (wkt_layout)lay, 3, shape, 2 - m % 3, 1 + m % 4, false, m % 2, in);
            add(l, MEDIAN, dts[t], (wkt_layout)lay, 3, shape, m % 3, 0, false, m % 2 == 0, in);
        }
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    for (int t = 0; t < 4; t++)
        for (int largest = 0; largest < 2; largest++) {
            add(l, TOPK, floats[t], WKT_TRANSPOSED, 3, shape, 2, 37, largest, false, INPUT_NAN);
            add(l, MEDIAN, floats[t], WKT_CONTIG, 3, shape, 2, 0, false, largest, INPUT_RARE_NAN);
        }
    /* scalars, k = 0, rows of one */
    static const int64_t vec[1] = {100}, one[2] = {6, 1};
    add(l, TOPK, WK_F64, WKT_CONTIG, 0, NULL, 0, 1, true, false, INPUT_RANDOM);
    add(l, MEDIAN, WK_F32, WKT_CONTIG, 0, NULL, -1, 0, false, false, INPUT_RANDOM);
    add(l, TOPK, WK_I64, WKT_OFFSET, 1, vec, 0, 0, false, false, INPUT_TIES);
    add(l, KTHVALUE, WK_F32, WKT_TRANSPOSED, 2, one, 1, 1, false, true, INPUT_RANDOM);
    /* long rows: several GPU chunks and the merge; k above the slot's limit (whole rows sorted); many rows */
    static const int64_t logits[2] = {3, 20000}, rows[2] = {300, 700};
    add(l, TOPK, WK_F32, WKT_CONTIG, 2, logits, 1, 50, true, false, INPUT_RANDOM);
    add(l, TOPK, WK_BF16, WKT_OFFSET, 2, logits, 1, 256, true, false, INPUT_RARE_NAN);
    add(l, TOPK, WK_I32, WKT_CONTIG, 2, logits, 1, 200, false, false, INPUT_TIES);
    add(l, TOPK, WK_F64, WKT_CONTIG, 2, logits, -1, 300, false, false, INPUT_NAN);
    add(l, KTHVALUE, WK_F32, WKT_CONTIG, 2, logits, 1, 12345, false, false, INPUT_TIES);
    add(l, MEDIAN, WK_F16, WKT_TRANSPOSED, 2, logits, 1, 0, false, true, INPUT_RARE_NAN);
    add(l, TOPK, WK_F32, WKT_TRANSPOSED, 2, rows, 0, 7, true, false, INPUT_TIES);
    add(l, MEDIAN, WK_I64, WKT_CONTIG, 2, rows, 1, 0, false, false, INPUT_RANDOM);
}

void sort_topk_errors(wkt_errctx *e)
{
    static char marker;
    wk_tensor *const before = (wk_tensor *)(void *)&marker;
    wk_tensor *x = NULL, *v = before, *i = before;
    const int64_t shape[2] = {3, 4}, empty[2] = {3, 0};
    wk_tensor *ex = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 2, shape, &x) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 2, empty, &ex) != WK_OK) {
        printf("FAIL topk errors: cannot make inputs: %s\n", wk_last_error());
        e->failures++;
        wk_tensor_release(x);
        return;
    }
    WKT_EXPECT(e, wk_topk(NULL, 1, -1, true, true, &v, &i), WK_ERR_INVALID_ARGUMENT, "topk");
    WKT_EXPECT(e, wk_topk(x, 5, -1, true, true, &v, &i), WK_ERR_INVALID_ARGUMENT, "topk");
    WKT_EXPECT(e, wk_topk(x, -1, -1, true, true, &v, &i), WK_ERR_INVALID_ARGUMENT, "topk");
    WKT_EXPECT(e, wk_topk(x, 1, 2, true, true, &v, &i), WK_ERR_SHAPE, "topk");
    WKT_EXPECT(e, wk_topk(x, 1, 0, true, true, NULL, &i), WK_ERR_INVALID_ARGUMENT, "topk");
    WKT_EXPECT(e, wk_topk(x, 1, 0, true, true, &v, NULL), WK_ERR_INVALID_ARGUMENT, "topk");
    WKT_EXPECT(e, wk_kthvalue(x, 0, 1, false, &v, &i), WK_ERR_INVALID_ARGUMENT, "kthvalue");
    WKT_EXPECT(e, wk_kthvalue(x, 5, 1, false, &v, &i), WK_ERR_INVALID_ARGUMENT, "kthvalue");
    WKT_EXPECT(e, wk_kthvalue(x, 1, -3, false, &v, &i), WK_ERR_SHAPE, "kthvalue");
    WKT_EXPECT(e, wk_kthvalue(NULL, 1, 0, false, &v, &i), WK_ERR_INVALID_ARGUMENT, "kthvalue");
    WKT_EXPECT(e, wk_median(ex, 1, false, &v, &i), WK_ERR_INVALID_ARGUMENT, "median");
    WKT_EXPECT(e, wk_median(x, 3, false, &v, &i), WK_ERR_SHAPE, "median");
    WKT_EXPECT(e, wk_median(x, 0, false, NULL, &i), WK_ERR_INVALID_ARGUMENT, "median");
    expect_untouched(e, v, before, "topk/kthvalue/median values");
    expect_untouched(e, i, before, "topk/kthvalue/median indices");
    wk_tensor_release(x);
    wk_tensor_release(ex);
}

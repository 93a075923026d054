/* sort.c: case family 'sort': stable argsort and sort (values, with and without indices) along the last
 * dim, both directions, with ties and NaNs, against a plain reference (qsort on value, then index). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "special_inputs.h"

void sort_topk_cases(wkt_list *l); /* sort_topk.c */
void sort_topk_errors(wkt_errctx *e);

/* iparam: [0] kind, [1] descending, [2] input_kind. */
enum { P_KIND, P_DESC, P_INPUT };
enum { ARGSORT, SORT, SORT_VALUES }; /* SORT_VALUES: wk_sort without the indices */
static const char *const kind_names[] = {"argsort", "sort", "sort_values"};

typedef struct keyed { double v; int64_t i; } keyed;

/* NaN is larger than every number; equal values (and NaNs) keep index order in both directions. */
static int by_value(const keyed *a, const keyed *b, bool desc)
{
    bool an = isnan(a->v), bn = isnan(b->v);
    int c = an || bn ? (an && bn ? 0 : an ? 1 : -1) : (a->v < b->v ? -1 : a->v > b->v);
    if (desc)
        c = -c;
    return c ? c : (a->i > b->i) - (a->i < b->i);
}
static int ascending(const void *a, const void *b) { return by_value(a, b, false); }
static int descending(const void *a, const void *b) { return by_value(a, b, true); }

static void run_sort(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[P_KIND];
    bool desc = c->iparam[P_DESC] != 0;
    int64_t n = c->rank > 0 ? c->shape[c->rank - 1] : 1;
    wk_tensor *x = NULL, *values = NULL, *indices = NULL;
    double *xv = NULL, *got_v = NULL, *got_i = NULL, *want_v = NULL, *want_i = NULL;
    keyed *row = NULL;
    wk_status s = make_input(dev, c->dtype, c->rank, c->shape, c->layout, (input_kind)c->iparam[P_INPUT], rng, &x,
                             &xv);
    if (wkt_failed(s, r, "make input"))
        return;
    if (kind == ARGSORT)
        s = wk_argsort(x, desc, &indices);
    else
        s = wk_sort(x, desc, &values, kind == SORT ? &indices : NULL);
    if (wkt_failed(s, r, c->op))
        goto done;
    if ((values && (!check_shape(values, c->dtype, c->rank, c->shape, r) ||
                    wkt_failed(wkt_read(values, &got_v), r, "read values"))) ||
        (indices && (!check_shape(indices, WK_I64, c->rank, c->shape, r) ||
                     wkt_failed(wkt_read(indices, &got_i), r, "read indices"))))
        goto done;
    int64_t numel = wk_tensor_numel(x);
    want_v = malloc((size_t)numel * sizeof *want_v + 1);
    want_i = malloc((size_t)numel * sizeof *want_i + 1);
    row = malloc((size_t)n * sizeof *row + 1);
    if (!want_v || !want_i || !row) {
        wkt_fail(r, "out of memory");
        goto done;
    }
    for (int64_t base = 0; n > 0 && base < numel; base += n) {
        for (int64_t i = 0; i < n; i++)
            row[i] = (keyed){xv[base + i], i};
        qsort(row, (size_t)n, sizeof *row, desc ? descending : ascending);
        for (int64_t i = 0; i < n; i++) {
            want_v[base + i] = row[i].v;
            want_i[base + i] = (double)row[i].i;
        }
    }
    if (got_v)
        wkt_compare(c->dtype, got_v, want_v, numel, 0, true, r);
    if (got_i)
        wkt_compare(WK_I64, got_i, want_i, numel, 0, true, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(values);
    wk_tensor_release(indices);
    free(xv);
    free(got_v);
    free(got_i);
    free(want_v);
    free(want_i);
    free(row);
}

static void add_case(wkt_list *l, int kind, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape, bool desc,
                     input_kind input)
{
    wkt_case c = {.family = "sort", .dtype = dt, .layout = layout, .rank = rank, .run = run_sort};
    snprintf(c.op, sizeof c.op, "%s", kind_names[kind]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[P_KIND] = kind;
    c.iparam[P_DESC] = desc;
    c.iparam[P_INPUT] = input;
    wkt_add(l, &c);
}

/* The GPU's block radix sort takes rows of 1..4096 (64-bit dtypes 1..2048), one block a row, and the old
 * segment sort longer ones: rows at the warp widths' edges (31..33, 63..65), padded ones (1000), the longest it
 * takes and the first it does not (2048, 2049 for i64/f64; 4096, 4097), each over every dtype with ties, NaN,
 * +-0 and +-inf, both directions, strided layouts; and many rows (the blocks' loop over rows). */
static void radix_cases(wkt_list *l)
{
    static const wk_dtype dts[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int64_t lens[] = {1, 2, 31, 32, 33, 63, 65, 1000, 2048, 2049, 4096, 4097};
    static const input_kind inputs[] = {INPUT_TIES, INPUT_NAN, INPUT_WIDE, INPUT_ZEROS, INPUT_RANDOM};
    int k = 0;
    for (int i = 0; i < (int)(sizeof lens / sizeof lens[0]); i++)
        for (int t = 0; t < 8; t++, k++) {
            const int64_t shape[3] = {2, 2, lens[i]};
            add_case(l, k % 3, dts[t], (wkt_layout)(k % WKT_LAYOUT_COUNT), 3, shape, (i + t) % 2 == 1,
                     inputs[(k / 2) % 5]);
        }
    static const int64_t many[2] = {700, 33}, full[2] = {40, 4096};
    add_case(l, ARGSORT, WK_BF16, WKT_CONTIG, 2, many, true, INPUT_NAN);
    add_case(l, ARGSORT, WK_F32, WKT_CONTIG, 2, full, false, INPUT_WIDE);
    add_case(l, SORT, WK_F32, WKT_TRANSPOSED, 2, full, true, INPUT_ZEROS);
}

static void cases(wkt_list *l)
{
    static const wk_dtype all_dtypes[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int64_t shape[3] = {4, 5, 37};
    /* every dtype x layout for argsort and sort, both directions, random values and ties */
    for (int t = 0; t < 8; t++)
        for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
            int k = t + lay;
            input_kind input = k % 2 ? INPUT_TIES : INPUT_RANDOM;
            add_case(l, ARGSORT, all_dtypes[t], (wkt_layout)lay, 3, shape, k % 2 == 0, input);
            add_case(l, SORT, all_dtypes[t], (wkt_layout)lay, 3, shape, k % 2 == 1, input);
        }
    /* NaN with ties on every float dtype, both directions; values-only sort */
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    for (int t = 0; t < 4; t++)
        for (int desc = 0; desc < 2; desc++) {
            add_case(l, ARGSORT, floats[t], desc ? WKT_TRANSPOSED : WKT_CONTIG, 3, shape, desc, INPUT_NAN);
            add_case(l, SORT, floats[t], desc ? WKT_CONTIG : WKT_PERMUTED, 3, shape, desc, INPUT_NAN);
        }
    add_case(l, SORT_VALUES, WK_I32, WKT_OFFSET, 3, shape, false, INPUT_TIES);
    add_case(l, SORT_VALUES, WK_F32, WKT_TRANSPOSED, 3, shape, true, INPUT_NAN);
    /* rank 0 and 1, rows of one element, zero rows, empty rows */
    static const int64_t vec[1] = {100}, one[2] = {6, 1}, no_rows[2] = {0, 8}, empty_rows[2] = {3, 0};
    for (int kind = ARGSORT; kind <= SORT; kind++) {
        add_case(l, kind, WK_F64, WKT_CONTIG, 0, NULL, kind == SORT, INPUT_RANDOM);
        add_case(l, kind, WK_I64, WKT_OFFSET, 1, vec, kind == ARGSORT, INPUT_TIES);
        add_case(l, kind, WK_F32, WKT_TRANSPOSED, 2, one, false, INPUT_RANDOM);
        add_case(l, kind, WK_U8, WKT_CONTIG, 2, no_rows, true, INPUT_RANDOM);
        add_case(l, kind, WK_BF16, WKT_CONTIG, 2, empty_rows, false, INPUT_RANDOM);
    }
    /* above the thread grain: many rows; one long row (many merge levels) */
    static const int64_t rows[2] = {70, 1000}, long_row[1] = {40000};
    add_case(l, ARGSORT, WK_F32, WKT_CONTIG, 2, rows, false, INPUT_NAN);
    add_case(l, SORT, WK_I32, WKT_TRANSPOSED, 2, rows, true, INPUT_TIES);
    add_case(l, SORT, WK_F64, WKT_CONTIG, 1, long_row, false, INPUT_RANDOM);
    add_case(l, ARGSORT, WK_BF16, WKT_OFFSET, 1, long_row, true, INPUT_NAN);
    radix_cases(l);
    sort_topk_cases(l);
}

/* ---------------------------------------------------------------- error paths */
static void errors(wkt_errctx *e)
{
    static char marker;
    wk_tensor *const before = (wk_tensor *)(void *)&marker;
    wk_tensor *x = NULL, *o = before, *i = before;
    const int64_t shape[2] = {3, 4};
    if (wk_tensor_empty(e->dev, WK_F32, 2, shape, &x) != WK_OK) {
        printf("FAIL sort errors: cannot make inputs: %s\n", wk_last_error());
        e->failures++;
        return;
    }
    WKT_EXPECT(e, wk_argsort(NULL, false, &o), WK_ERR_INVALID_ARGUMENT, "argsort");
    expect_untouched(e, o, before, "argsort(NULL)");
    WKT_EXPECT(e, wk_argsort(x, true, NULL), WK_ERR_INVALID_ARGUMENT, "argsort");
    WKT_EXPECT(e, wk_sort(NULL, false, &o, &i), WK_ERR_INVALID_ARGUMENT, "sort");
    expect_untouched(e, o, before, "sort(NULL) values");
    expect_untouched(e, i, before, "sort(NULL) indices");
    WKT_EXPECT(e, wk_sort(x, false, NULL, &i), WK_ERR_INVALID_ARGUMENT, "sort");
    expect_untouched(e, i, before, "sort(values NULL) indices");
    wk_tensor_release(x);
    sort_topk_errors(e);
}

const wkt_family wkt_family_sort = {.name = "sort", .cases = cases, .errors = errors};

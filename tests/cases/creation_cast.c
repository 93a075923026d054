/* creation_cast.c: wk_cast cases, all 8x8 dtype pairs over every layout, with NaN, infinities, half-way and
 * out-of-range values, checked bit for bit against the plain reference of creation_ref.c. */
#include <stdlib.h>
#include <string.h>

#include "creation.h"

/* iparam[0]: target dtype. The case's dtype is the source. */
static void run_cast(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    wk_dtype from = c->dtype, to = (wk_dtype)c->iparam[0];
    int64_t n = 1;
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i];
    size_t fes = wk_dtype_size(from), tes = wk_dtype_size(to);
    void *logical = malloc((size_t)n * fes + 1), *want = malloc((size_t)n * tes + 1), *got = NULL;
    crt_view in = {0};
    wk_tensor *out = NULL;
    if (!logical || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    crt_random(from, logical, n, true, rng);
    crt_specials(from, logical, n);
    if (wkt_failed(crt_make(dev, from, c->rank, c->shape, c->layout, logical, 0x5a, &in), r, "make input"))
        goto done;
    if (wkt_failed(wk_cast(in.t, to, &out), r, "cast"))
        goto done;
    if (wk_tensor_dtype(out) != to || wk_tensor_rank(out) != c->rank || !wk_tensor_is_contiguous(out) ||
        memcmp(wk_tensor_shape(out), c->shape, (size_t)c->rank * sizeof c->shape[0]) != 0) {
        wkt_fail(r, "result has the wrong dtype, shape or layout");
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        crt_convert(from, in.eff, i, to, want);
    if (!crt_read(out, &got, r))
        goto done;
    char what[32];
    snprintf(what, sizeof what, "%s -> %s", wk_dtype_name(from), wk_dtype_name(to));
    crt_compare(to, got, want, n, what, r);
done:
    free(logical);
    free(want);
    free(got);
    crt_view_free(&in);
    wk_tensor_release(out);
}

static void add(wkt_list *l, wk_dtype from, wk_dtype to, wkt_layout layout, int rank, const int64_t *shape)
{
    wkt_case c = {.family = "creation", .dtype = from, .layout = layout, .rank = rank, .run = run_cast};
    snprintf(c.op, sizeof c.op, "cast_%s", wk_dtype_name(to));
    c.iparam[0] = (int)to;
    if (rank)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    wkt_add(l, &c);
}

void crt_cast_cases(wkt_list *l)
{
    static const wkt_layout strided[] = {WKT_TRANSPOSED, WKT_PERMUTED, WKT_BROADCAST, WKT_OFFSET};
    static const int64_t flat[] = {5, 67}, cube[] = {3, 5, 23}, big[] = {256, 131}, big_t[] = {131, 256},
                         empty[] = {4, 0, 3};
    /* f32 to and from these take the vectorised paths, which see long runs only in big tensors */
    static const wk_dtype fast[] = {WK_F16, WK_BF16, WK_F64, WK_I32};
    for (int from = 0; from < WK_DTYPE_COUNT; from++)
        for (int to = 0; to < WK_DTYPE_COUNT; to++) {
            add(l, (wk_dtype)from, (wk_dtype)to, WKT_CONTIG, 2, flat);
            add(l, (wk_dtype)from, (wk_dtype)to, strided[(from * WK_DTYPE_COUNT + to) % 4], 3, cube);
        }
    for (int k = 0; k < 4; k++) {
        add(l, WK_F32, fast[k], WKT_CONTIG, 2, big);
        add(l, fast[k], WK_F32, WKT_CONTIG, 2, big);
        add(l, WK_F32, fast[k], WKT_TRANSPOSED, 2, big_t);
        add(l, fast[k], WK_F32, WKT_OFFSET, 2, big);
    }
    for (int from = 0; from < WK_DTYPE_COUNT; from++) {
        add(l, (wk_dtype)from, (wk_dtype)((from + 3) % WK_DTYPE_COUNT), WKT_CONTIG, 3, empty);
        add(l, (wk_dtype)from, (wk_dtype)((from + 5) % WK_DTYPE_COUNT), WKT_CONTIG, 0, NULL);
        add(l, (wk_dtype)from, (wk_dtype)((from + 6) % WK_DTYPE_COUNT), WKT_OFFSET, 0, NULL);
    }
}

void crt_cast_errors(wkt_errctx *e)
{
    int64_t shape[2] = {2, 3};
    wk_tensor *x = NULL, *o = NULL;
    if (wk_zeros(e->dev, WK_F32, 2, shape, &x) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL cast errors: cannot make an input: %s\n", wk_last_error());
        return;
    }
    WKT_EXPECT(e, wk_cast(NULL, WK_F16, &o), WK_ERR_INVALID_ARGUMENT, "cast");
    WKT_EXPECT(e, wk_cast(x, WK_F16, NULL), WK_ERR_INVALID_ARGUMENT, "cast");
    WKT_EXPECT(e, wk_cast(x, (wk_dtype)99, &o), WK_ERR_DTYPE, "cast");
    WKT_EXPECT(e, wk_cast(x, (wk_dtype)-1, &o), WK_ERR_DTYPE, "cast");
    crt_expect_untouched(e, o, "cast");
    wk_tensor_release(x);
}

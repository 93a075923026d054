/* index.c: index_select, gather, scatter / scatter_add and index_add (out of place and in place): argument
 * checks and output shapes. Index values live on the device, so the backend checks their range. */
#include "ops/common.h"

/* The operands every indexing op shares: x, ids (an index dtype) and, for the writing ops, src (x's dtype),
 * all on x's device; dim normalised against x. Any index into a dim of size 0 is out of range: said here, since
 * an op on an empty x may have nothing to write and run no backend. */
static wk_status check_operands(const char *op, const wk_tensor *x, int dim, const wk_tensor *ids,
                                const wk_tensor *src, bool has_src, int *d)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    WK_TRY(wk_check_tensor(op, "ids", ids));
    if (has_src)
        WK_TRY(wk_check_tensor(op, "src", src));
    WK_TRY(wk_check_same_device(op, x, ids));
    WK_TRY(wk_check_index_dtype(op, ids));
    if (has_src) {
        WK_TRY(wk_check_same_device(op, x, src));
        WK_TRY(wk_check_same_dtype(op, x, src));
    }
    WK_TRY(wk_norm_dim(op, dim, x->rank, d));
    if (x->shape[*d] == 0 && !wk_empty(ids))
        return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: %lld indices into dim %d of size 0 (none is in range)", op,
                        (long long)wk_tensor_numel(ids), dim);
    return WK_OK;
}

typedef struct index_args {
    const wk_tensor *x, *ids, *src;
    int dim;
    bool add;
} index_args;

/* Runs `fill` on a new output: copy of x for the writing ops (copy_x), or uninitialised of (rank, shape). The
 * slot runs whenever there are indices, even into an empty output: a bad index is an error all the same
 * (backend.h). */
typedef wk_status (*fill_fn)(const index_args *a, wk_tensor *o);

static wk_status make_output(const char *op, const wk_tensor *x, int rank, const int64_t *shape, bool copy_x,
                             fill_fn fill, const index_args *args, wk_tensor **out)
{
    if (copy_x)
        WK_TRY(WK_CHECK_SLOT(op, x, copy));
    wk_tensor *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, rank, shape, &o));
    wk_status s = copy_x ? WK_SLOT(o, copy, x, o) : WK_OK;
    if (s == WK_OK && !wk_empty(args->ids))
        s = fill(args, o);
    if (s != WK_OK) {
        wk_tensor_release(o);
        return s;
    }
    *out = o;
    return WK_OK;
}


static wk_status run_index_select(const index_args *a, wk_tensor *o)
{
    return wk_be(a->x)->index_select(a->x, a->dim, a->ids, o);
}

static wk_status run_gather(const index_args *a, wk_tensor *o)
{
    return wk_be(a->x)->gather(a->x, a->dim, a->ids, o);
}

static wk_status run_scatter(const index_args *a, wk_tensor *o)
{
    return wk_be(o)->scatter(o, a->dim, a->ids, a->src, a->add ? WK_SCATTER_ADD : WK_SCATTER_SET, WK_TARGET_FRESH);
}

static wk_status run_index_add(const index_args *a, wk_tensor *o)
{
    return wk_be(o)->index_add(o, a->dim, a->ids, a->src, WK_TARGET_FRESH);
}

wk_status wk_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out)
{
    static const char op[] = "index_select";
    int d;
    if (x && wk_dtype_is_quantized(x->dtype))
        return wk_quant_index_select(x, dim, ids, out);
    WK_TRY(check_operands(op, x, dim, ids, NULL, false, &d));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_rank(op, "ids", ids, 1));
    WK_TRY(WK_CHECK_SLOT(op, x, index_select));
    int64_t sh[WK_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        sh[i] = i == d ? ids->shape[0] : x->shape[i];
    index_args a = {.x = x, .ids = ids, .dim = d};
    return make_output(op, x, x->rank, sh, false, run_index_select, &a, out);
}

wk_status wk_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out)
{
    static const char op[] = "gather";
    char b1[200], b2[200];
    int d;
    WK_TRY(check_operands(op, x, dim, ids, NULL, false, &d));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_rank(op, "ids", ids, x->rank));
    for (int i = 0; i < x->rank; i++)
        if (i != d && ids->shape[i] > x->shape[i])
            return wk_error(WK_ERR_SHAPE, "%s: ids %s larger than x %s in dim %d (only dim %d may be larger)", op,
                            wk_describe(b1, sizeof b1, ids), wk_describe(b2, sizeof b2, x), i, d);
    WK_TRY(WK_CHECK_SLOT(op, x, gather));
    index_args a = {.x = x, .ids = ids, .dim = d};
    return make_output(op, x, ids->rank, ids->shape, false, run_gather, &a, out);
}

/* scatter and scatter_add: ids, src and x of one rank; ids.shape <= src.shape, and <= x.shape off dim. */
static wk_status scatter_checks(const char *op, const wk_tensor *x, int dim, const wk_tensor *ids,
                                const wk_tensor *src, int *d)
{
    char b1[200], b2[200], b3[200];
    WK_TRY(check_operands(op, x, dim, ids, src, true, d));
    WK_TRY(wk_check_rank(op, "ids", ids, x->rank));
    WK_TRY(wk_check_rank(op, "src", src, x->rank));
    for (int i = 0; i < x->rank; i++)
        if (ids->shape[i] > src->shape[i] || (i != *d && ids->shape[i] > x->shape[i]))
            return wk_error(WK_ERR_SHAPE, "%s: ids %s must fit in src %s and (off dim %d) in x %s", op,
                            wk_describe(b1, sizeof b1, ids), wk_describe(b2, sizeof b2, src), *d,
                            wk_describe(b3, sizeof b3, x));
    return WK_CHECK_SLOT(op, x, scatter);
}

/* index_add: ids 1-D with src.shape[dim] entries; src is x's shape apart from dim. */
static wk_status index_add_checks(const char *op, const wk_tensor *x, int dim, const wk_tensor *ids,
                                  const wk_tensor *src, int *d)
{
    char b1[200], b2[200], b3[200];
    WK_TRY(check_operands(op, x, dim, ids, src, true, d));
    WK_TRY(wk_check_rank(op, "ids", ids, 1));
    WK_TRY(wk_check_rank(op, "src", src, x->rank));
    bool ok = ids->shape[0] == src->shape[*d];
    for (int i = 0; i < x->rank; i++)
        ok = ok && (i == *d || src->shape[i] == x->shape[i]);
    if (!ok)
        return wk_error(WK_ERR_SHAPE, "%s: src %s must be x %s apart from dim %d, which must match ids %s", op,
                        wk_describe(b1, sizeof b1, src), wk_describe(b2, sizeof b2, x), *d,
                        wk_describe(b3, sizeof b3, ids));
    return WK_CHECK_SLOT(op, x, index_add);
}

static wk_status inplace_checks(const char *op, const wk_tensor *x, const wk_tensor *ids, const wk_tensor *src)
{
    WK_TRY(wk_check_writable(op, x));
    WK_TRY(wk_check_no_alias(op, "the target x", x, "ids", ids));
    return wk_check_no_alias(op, "the target x", x, "src", src);
}

static wk_status scatter_out(const char *op, const wk_tensor *x, int dim, const wk_tensor *ids,
                             const wk_tensor *src, bool add, wk_tensor **out)
{
    int d;
    WK_TRY(scatter_checks(op, x, dim, ids, src, &d));
    WK_TRY(wk_check_out(op, out));
    index_args a = {.x = x, .ids = ids, .src = src, .dim = d, .add = add};
    return make_output(op, x, x->rank, x->shape, true, run_scatter, &a, out);
}

static wk_status scatter_inplace(const char *op, wk_tensor *x, int dim, const wk_tensor *ids,
                                 const wk_tensor *src, bool add)
{
    int d;
    WK_TRY(scatter_checks(op, x, dim, ids, src, &d));
    WK_TRY(inplace_checks(op, x, ids, src));
    /* as make_output: the slot runs whenever there are indices */
    return wk_empty(ids) ? WK_OK
                         : wk_be(x)->scatter(x, d, ids, src, add ? WK_SCATTER_ADD : WK_SCATTER_SET, WK_TARGET_CALLER);
}

wk_status wk_scatter(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out)
{
    return scatter_out("scatter", x, dim, ids, src, false, out);
}

wk_status wk_scatter_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src)
{
    return scatter_inplace("scatter", x, dim, ids, src, false);
}

wk_status wk_scatter_add(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out)
{
    return scatter_out("scatter_add", x, dim, ids, src, true, out);
}

wk_status wk_scatter_add_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src)
{
    return scatter_inplace("scatter_add", x, dim, ids, src, true);
}

wk_status wk_index_add(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out)
{
    static const char op[] = "index_add";
    int d;
    WK_TRY(index_add_checks(op, x, dim, ids, src, &d));
    WK_TRY(wk_check_out(op, out));
    index_args a = {.x = x, .ids = ids, .src = src, .dim = d};
    return make_output(op, x, x->rank, x->shape, true, run_index_add, &a, out);
}

wk_status wk_index_add_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src)
{
    static const char op[] = "index_add"; /* same name as out of place: the backend names it so too */
    int d;
    WK_TRY(index_add_checks(op, x, dim, ids, src, &d));
    WK_TRY(inplace_checks(op, x, ids, src));
    return wk_empty(ids) ? WK_OK : wk_be(x)->index_add(x, d, ids, src, WK_TARGET_CALLER);
}

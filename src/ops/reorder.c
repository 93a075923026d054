/* reorder.c: flip, roll, repeat, repeat_interleave and one_hot: argument checks, output shapes and the index maps
 * (core/numerics.h) that the reorder slot gathers through; pad's front end is ops/reorder_pad.c. */
#include <stdlib.h>
#include <string.h>

#include "ops/reorder.h"

void wk_reorder_map_init(wk_reorder_map *m)
{
    memset(m, 0, sizeof *m);
    for (int d = 0; d < WK_MAX_RANK; d++)
        m->kind[d] = WK_REORDER_SAME;
}

/* Whether the map of one dim (input size n, output size o) reads every element where it lies. */
static bool map_is_identity(int kind, int64_t a, int64_t n, int64_t o)
{
    switch (kind) {
    case WK_REORDER_FLIP: return n <= 1;
    case WK_REORDER_SPREAD: return a == 1;
    case WK_REORDER_TILE: return o == n;
    default: return o == n && a == 0;
    }
}

wk_status wk_reorder_run(const char *op, const wk_tensor *x, wk_reorder_map *m, const int64_t *shape,
                         wk_tensor **out)
{
    for (int d = 0; d < x->rank; d++)
        if (map_is_identity(m->kind[d], m->a[d], x->shape[d], shape[d]))
            m->kind[d] = WK_REORDER_SAME;
    WK_TRY(WK_CHECK_SLOT(op, x, reorder));
    wk_tensor *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, shape, &o));
    return wk_finish(WK_SLOT(o, reorder, x, m, o), o, out);
}

static wk_status check_x(const char *op, const wk_tensor *x, const void *out)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    return wk_check_out(op, out);
}

static wk_status check_list(const char *op, const char *name, const void *list, int n)
{
    if (n < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %d %s", op, n, name);
    if (n > 0 && !list)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL with %d entries", op, name, n);
    return WK_OK;
}

wk_status wk_flip(const wk_tensor *x, const int *dims, int ndims, wk_tensor **out)
{
    static const char op[] = "flip";
    WK_TRY(check_x(op, x, out));
    WK_TRY(check_list(op, "dims", dims, ndims));
    wk_reorder_map m;
    wk_reorder_map_init(&m);
    for (int k = 0; k < ndims; k++) {
        int d;
        WK_TRY(wk_norm_dim(op, dims[k], x->rank, &d));
        if (m.kind[d] == WK_REORDER_FLIP)
            return wk_error(WK_ERR_SHAPE, "%s: dim %d is listed twice", op, dims[k]);
        m.kind[d] = WK_REORDER_FLIP;
    }
    return wk_reorder_run(op, x, &m, x->shape, out);
}

/* shift mod n in [0, n), n >= 1. */
static int64_t mod_pos(int64_t shift, int64_t n)
{
    int64_t r = shift % n;
    return r < 0 ? r + n : r;
}

/* The roll of x flattened, as PyTorch's dims=None: reshape (a view when x allows), roll dim 0, reshape back. */
static wk_status roll_flat(const wk_tensor *x, int64_t shift, wk_tensor **out)
{
    int64_t n = wk_tensor_numel(x);
    int dim0 = 0;
    wk_tensor *flat = NULL, *rolled = NULL;
    wk_status s = wk_reshape(x, 1, &n, &flat);
    if (s == WK_OK)
        s = wk_roll(flat, &shift, &dim0, 1, &rolled);
    if (s == WK_OK)
        s = wk_reshape(rolled, x->rank, x->shape, out);
    wk_tensor_release(flat);
    wk_tensor_release(rolled);
    return s;
}

wk_status wk_roll(const wk_tensor *x, const int64_t *shifts, const int *dims, int n, wk_tensor **out)
{
    static const char op[] = "roll";
    WK_TRY(check_x(op, x, out));
    if (n < 1 || !shifts)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: needs at least one shift (got %d, shifts %s)", op, n,
                        shifts ? "given" : "NULL");
    if (!dims) {
        if (n != 1)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: without dims, one shift rolls the flattened tensor (got %d)",
                            op, n);
        return roll_flat(x, shifts[0], out);
    }
    wk_reorder_map m;
    wk_reorder_map_init(&m);
    for (int k = 0; k < n; k++) {
        int d;
        WK_TRY(wk_norm_dim(op, dims[k], x->rank, &d));
        int64_t size = x->shape[d];
        if (size == 0)
            continue;
        m.kind[d] = WK_REORDER_WRAP;
        m.a[d] = mod_pos(m.a[d] + mod_pos(shifts[k], size), size); /* both < size: no overflow */
    }
    return wk_reorder_run(op, x, &m, x->shape, out);
}

/* a * b for sizes, WK_ERR_SHAPE on overflow. */
static wk_status mul_size(const char *op, int64_t a, int64_t b, int64_t *r)
{
    if (__builtin_mul_overflow(a, b, r))
        return wk_error(WK_ERR_SHAPE, "%s: output size %lld x %lld overflows", op, (long long)a, (long long)b);
    return WK_OK;
}

wk_status wk_repeat(const wk_tensor *x, const int64_t *repeats, int n, wk_tensor **out)
{
    static const char op[] = "repeat";
    WK_TRY(check_x(op, x, out));
    WK_TRY(check_list(op, "repeats", repeats, n));
    if (n < x->rank || n > WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: %d repeats for x of rank %d (needs rank .. %d)", op, n, x->rank,
                        WK_MAX_RANK);
    int64_t vshape[WK_MAX_RANK], shape[WK_MAX_RANK];
    wk_reorder_map m;
    wk_reorder_map_init(&m);
    for (int d = 0; d < n; d++) {
        if (repeats[d] < 0)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: repeat %lld of dim %d is negative", op,
                            (long long)repeats[d], d);
        vshape[d] = d < n - x->rank ? 1 : x->shape[d - (n - x->rank)];
        WK_TRY(mul_size(op, vshape[d], repeats[d], &shape[d]));
        m.kind[d] = WK_REORDER_TILE;
    }
    wk_tensor *v = NULL;
    WK_TRY(wk_reshape(x, n, vshape, &v)); /* leading size-1 dims: always a view */
    wk_status s = wk_reorder_run(op, v, &m, shape, out);
    wk_tensor_release(v);
    return s;
}

wk_status wk_repeat_interleave(const wk_tensor *x, int64_t repeats, int dim, wk_tensor **out)
{
    static const char op[] = "repeat_interleave";
    WK_TRY(check_x(op, x, out));
    int d;
    WK_TRY(wk_norm_dim(op, dim, x->rank, &d));
    if (repeats < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: repeats %lld is negative", op, (long long)repeats);
    int64_t shape[WK_MAX_RANK];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    WK_TRY(mul_size(op, x->shape[d], repeats, &shape[d]));
    wk_reorder_map m;
    wk_reorder_map_init(&m);
    m.kind[d] = WK_REORDER_SPREAD;
    m.a[d] = repeats > 0 ? repeats : 1; /* 0: the output is empty and never read */
    return wk_reorder_run(op, x, &m, shape, out);
}

/* t's values (an index dtype) read to the host as int64 (u32 >= 2^31 stays positive): *vals malloc'd. */
static wk_status read_ids(const char *op, const wk_tensor *t, int64_t **vals)
{
    int64_t n = wk_tensor_numel(t);
    size_t es = wk_dtype_size(t->dtype);
    int64_t *v = malloc((size_t)n * sizeof(int64_t) + 1);
    if (!v)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: cannot read %lld values to the host", op, (long long)n);
    wk_status s = wk_tensor_to_host(t, v, (size_t)n * es); /* es <= 8: fits, then widened in place from the end */
    for (int64_t i = n - 1; s == WK_OK && i >= 0; i--) {
        const void *p = (const char *)v + (size_t)i * es;
        switch (t->dtype) {
        case WK_U8: v[i] = *(const uint8_t *)p; break;
        case WK_U32: v[i] = *(const uint32_t *)p; break;
        case WK_I32: v[i] = *(const int32_t *)p; break;
        default: break;
        }
    }
    if (s != WK_OK) {
        free(v);
        return s;
    }
    *vals = v;
    return WK_OK;
}

/* Output position -> input index along dim for per-element counts, uploaded as an i64 index tensor. */
static wk_status interleave_ids(const char *op, const wk_tensor *x, int d, const int64_t *counts, wk_tensor **ids)
{
    int64_t n = x->shape[d], total = 0;
    for (int64_t j = 0; j < n; j++) {
        if (counts[j] < 0)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: count %lld of element %lld is negative", op,
                            (long long)counts[j], (long long)j);
        if (__builtin_add_overflow(total, counts[j], &total))
            return wk_error(WK_ERR_SHAPE, "%s: the counts' sum overflows", op);
    }
    WK_TRY(wk_check_shape(op, 1, &total, 8, NULL));
    int64_t *v = malloc((size_t)total * sizeof(int64_t) + 1);
    if (!v)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: cannot build %lld indices", op, (long long)total);
    for (int64_t j = 0, k = 0; j < n; j++)
        for (int64_t r = 0; r < counts[j]; r++)
            v[k++] = j;
    wk_status s = wk_tensor_from_host(wk_dev(x), WK_I64, 1, &total, v, ids);
    free(v);
    return s;
}

wk_status wk_repeat_interleave_tensor(const wk_tensor *x, const wk_tensor *repeats, int dim, wk_tensor **out)
{
    static const char op[] = "repeat_interleave";
    char b1[128];
    WK_TRY(check_x(op, x, out));
    WK_TRY(wk_check_tensor(op, "repeats", repeats));
    WK_TRY(wk_check_same_device(op, x, repeats));
    WK_TRY(wk_check_index_dtype(op, repeats));
    int d;
    WK_TRY(wk_norm_dim(op, dim, x->rank, &d));
    int64_t k = wk_tensor_numel(repeats);
    if (repeats->rank > 1 || (k != 1 && k != x->shape[d]))
        return wk_error(WK_ERR_SHAPE, "%s: repeats %s must be rank 0 or 1 with 1 or %lld (x's dim %d) counts", op,
                        wk_describe(b1, sizeof b1, repeats), (long long)x->shape[d], dim);
    int64_t *counts = NULL;
    WK_TRY(read_ids(op, repeats, &counts));
    wk_status s;
    if (k == 1 && x->shape[d] != 1) {
        s = counts[0] < 0 ? wk_error(WK_ERR_INVALID_ARGUMENT, "%s: count %lld is negative", op, (long long)counts[0])
                          : wk_repeat_interleave(x, counts[0], d, out);
    } else {
        wk_tensor *ids = NULL;
        s = interleave_ids(op, x, d, counts, &ids);
        if (s == WK_OK)
            s = wk_index_select(x, d, ids, out);
        wk_tensor_release(ids);
    }
    free(counts);
    return s;
}

/* num_classes -1: the largest id + 1, read on the host. */
static wk_status infer_classes(const char *op, const wk_tensor *ids, int64_t *classes)
{
    int64_t n = wk_tensor_numel(ids), *v = NULL, lo = INT64_MAX, hi = INT64_MIN;
    if (n == 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: num_classes -1 cannot be inferred from an empty ids", op);
    WK_TRY(read_ids(op, ids, &v));
    for (int64_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    free(v);
    if (lo < 0)
        return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: id %lld is negative (classes are >= 0)", op, (long long)lo);
    if (hi == INT64_MAX)
        return wk_error(WK_ERR_SHAPE, "%s: id %lld leaves no num_classes", op, (long long)hi);
    *classes = hi + 1;
    return WK_OK;
}

wk_status wk_one_hot(const wk_tensor *ids, int64_t num_classes, wk_tensor **out)
{
    static const char op[] = "one_hot";
    WK_TRY(wk_check_tensor(op, "ids", ids));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_index_dtype(op, ids));
    if (ids->rank >= WK_MAX_RANK)
        return wk_error(WK_ERR_SHAPE, "%s: ids of rank %d leave no room for the class dim", op, ids->rank);
    if (num_classes < -1)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: num_classes %lld (>= 0, or -1 to infer it)", op,
                        (long long)num_classes);
    int64_t classes = num_classes;
    if (classes == -1)
        WK_TRY(infer_classes(op, ids, &classes));
    if (classes == 0 && !wk_empty(ids))
        return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: num_classes 0 leaves no class for %lld ids", op,
                        (long long)wk_tensor_numel(ids));
    int64_t shape[WK_MAX_RANK];
    memcpy(shape, ids->shape, sizeof(int64_t) * (size_t)ids->rank);
    shape[ids->rank] = classes;
    WK_TRY(WK_CHECK_SLOT(op, ids, one_hot));
    wk_tensor *o = NULL;
    WK_TRY(wk_alloc_output(op, wk_dev(ids), WK_I64, ids->rank + 1, shape, &o));
    return wk_finish(WK_SLOT(o, one_hot, ids, classes, o), o, out);
}

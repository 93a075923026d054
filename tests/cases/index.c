/* index.c: case family 'index': index_select, gather, scatter, scatter_add and index_add (out of place and
 * in place) for every value and index dtype, every dim, strided x/ids/src, duplicates and empty ids. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { IX_SELECT, IX_GATHER, IX_SCATTER, IX_SCATTER_ADD, IX_INDEX_ADD };
static const char *const op_names[] = {"index_select", "gather", "scatter", "scatter_add", "index_add"};

/* iparam of a case: which op and how its operands look. */
enum { P_KIND, P_DIM, P_IDX_DTYPE, P_IDS_LAYOUT, P_SRC_LAYOUT, P_FLAGS };
enum { F_INPLACE = 1, F_EMPTY_IDS = 2, F_DUPLICATES = 4, F_NEG_DIM = 8, F_STRIDED_IDS = 16 };

typedef struct ix_shapes {
    int rank, dim;
    int64_t x[WK_MAX_RANK], ids[WK_MAX_RANK], src[WK_MAX_RANK], out[WK_MAX_RANK];
} ix_shapes;

static int64_t numel(int rank, const int64_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= s[i];
    return n;
}

/* Row-major successor of idx within shape; false after the last. */
static bool next_index(int rank, const int64_t *shape, int64_t *idx)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return true;
        idx[d] = 0;
    }
    return false;
}

static int64_t linear(int rank, const int64_t *shape, const int64_t *idx)
{
    int64_t li = 0;
    for (int d = 0; d < rank; d++)
        li = li * shape[d] + idx[d];
    return li;
}

/* ids run along dim for L entries: longer than x there (duplicates) except for scatter (set), whose
 * indices are distinct within each row unless duplicates are asked for; other dims are one short of
 * x's (ids may be smaller) and src is one larger than ids everywhere (src may be larger). */
static void shapes_of(const wkt_case *c, ix_shapes *s)
{
    int kind = c->iparam[P_KIND], flags = c->iparam[P_FLAGS], d = c->iparam[P_DIM];
    s->rank = c->rank;
    s->dim = d;
    memcpy(s->x, c->shape, sizeof s->x);
    int64_t L = kind == IX_SCATTER && !(flags & F_DUPLICATES) ? c->shape[d] - 1 : c->shape[d] + 3;
    if (flags & F_EMPTY_IDS || L < 0)
        L = 0;
    for (int i = 0; i < c->rank; i++) {
        s->ids[i] = i == d ? L : c->shape[i] > 1 ? c->shape[i] - 1 : c->shape[i];
        s->src[i] = s->ids[i] + 1;
        s->out[i] = c->shape[i];
    }
    if (kind == IX_SELECT || kind == IX_INDEX_ADD) {
        s->out[d] = kind == IX_SELECT ? L : c->shape[d];
        memcpy(s->src, c->shape, sizeof s->src);
        s->src[d] = L;
    }
    if (kind == IX_GATHER)
        memcpy(s->out, s->ids, sizeof s->out);
}

/* Index values in [0, x.shape[dim]): random, or distinct within each row along dim (scatter set). */
static void make_indices(const wkt_case *c, const ix_shapes *s, bool one_d, wkt_rng *rng, double *ids)
{
    int64_t size = s->x[s->dim];
    int64_t n = one_d ? s->src[s->dim] : numel(s->rank, s->ids);
    bool distinct = c->iparam[P_KIND] == IX_SCATTER && !(c->iparam[P_FLAGS] & F_DUPLICATES);
    if (!distinct || n == 0) {
        for (int64_t i = 0; i < n; i++)
            ids[i] = (double)wkt_rng_int(rng, 0, size - 1);
        return;
    }
    int64_t perm[256], rows[WK_MAX_RANK], idx[WK_MAX_RANK] = {0};
    memcpy(rows, s->ids, sizeof rows);
    rows[s->dim] = 1;
    do {
        for (int64_t i = 0; i < size; i++)
            perm[i] = i;
        for (int64_t i = size - 1; i > 0; i--) {
            int64_t j = wkt_rng_int(rng, 0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        int64_t at[WK_MAX_RANK];
        memcpy(at, idx, sizeof at);
        for (at[s->dim] = 0; at[s->dim] < s->ids[s->dim]; at[s->dim]++)
            ids[linear(s->rank, s->ids, at)] = (double)perm[at[s->dim]];
    } while (next_index(s->rank, rows, idx));
}

/* The float64 reference; returns the expected output (malloc'd). Writes of scatter (set) land in row-major
 * order of ids, so the last one wins. Sums are exact doubles, rounded (ints: wrapped) at the end. */
static double *reference(int kind, const ix_shapes *s, const double *x, const double *ids, const double *src)
{
    int64_t n_out = numel(s->rank, s->out), idx[WK_MAX_RANK] = {0}, at[WK_MAX_RANK];
    double *out = malloc((size_t)n_out * sizeof *out + 1);
    if (!out)
        return NULL;
    int r = s->rank, d = s->dim;
    if (kind == IX_SELECT || kind == IX_GATHER) {
        if (n_out)
            do {
                memcpy(at, idx, sizeof at);
                at[d] = (int64_t)(kind == IX_SELECT ? ids[idx[d]] : ids[linear(r, s->ids, idx)]);
                out[linear(r, s->out, idx)] = x[linear(r, s->x, at)];
            } while (next_index(r, s->out, idx));
        return out;
    }
    memcpy(out, x, (size_t)n_out * sizeof *out);
    const int64_t *walk = kind == IX_INDEX_ADD ? s->src : s->ids;
    if (numel(r, walk))
        do {
            memcpy(at, idx, sizeof at);
            at[d] = (int64_t)(kind == IX_INDEX_ADD ? ids[idx[d]] : ids[linear(r, s->ids, idx)]);
            double v = src[linear(r, s->src, idx)];
            double *dst = out + linear(r, s->x, at);
            *dst = kind == IX_SCATTER ? v : *dst + v;
        } while (next_index(r, walk, idx));
    return out;
}

/* Where a backend may pick any of several duplicate writes (scatter set off the CPU), accept the one it
 * picked when it is one of them. */
static void accept_any_duplicate(const ix_shapes *s, const double *ids, const double *src, const double *got,
                                 double *want)
{
    int64_t nx = numel(s->rank, s->x), idx[WK_MAX_RANK] = {0}, at[WK_MAX_RANK];
    unsigned char *ok = calloc((size_t)nx + 1, 1);
    if (!ok || numel(s->rank, s->ids) == 0) {
        free(ok);
        return;
    }
    do {
        memcpy(at, idx, sizeof at);
        at[s->dim] = (int64_t)ids[linear(s->rank, s->ids, idx)];
        int64_t xi = linear(s->rank, s->x, at);
        if (got[xi] == src[linear(s->rank, s->src, idx)])
            ok[xi] = 1;
    } while (next_index(s->rank, s->ids, idx));
    for (int64_t i = 0; i < nx; i++)
        if (ok[i])
            want[i] = got[i];
    free(ok);
}

/* 1-D ids with stride 2: every other element of a buffer whose gaps hold an index out of range, so a
 * backend reading the gaps fails the case. */
static wk_status make_strided_ids(wk_device *dev, wk_dtype idt, int64_t n, const double *iv, int64_t size,
                                  wk_tensor **ids)
{
    int64_t n2 = 2 * n + 1, one[1] = {n}, two[1] = {2};
    double *buf = malloc((size_t)n2 * sizeof *buf);
    if (!buf)
        return WK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n2; i++)
        buf[i] = i % 2 ? iv[i / 2] : (double)(size + 7);
    wk_tensor *base = NULL;
    wk_status st = wkt_make_from(dev, idt, 1, &n2, WKT_CONTIG, buf, &base);
    if (st == WK_OK)
        st = wk_as_strided(base, 1, one, two, 1, ids);
    wk_tensor_release(base);
    free(buf);
    return st;
}

/* Int values across their whole range for the adding ops, so sums wrap; the harness clamps the range. */
static wkt_dist value_dist(const wkt_case *c)
{
    int kind = c->iparam[P_KIND];
    if ((kind == IX_SCATTER_ADD || kind == IX_INDEX_ADD) && !wk_dtype_is_float(c->dtype))
        return (wkt_dist){-1e300, 1e300};
    return wkt_dist_default(c->dtype);
}

static void run_index(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[P_KIND], flags = c->iparam[P_FLAGS];
    bool inplace = flags & F_INPLACE, one_d = kind == IX_SELECT || kind == IX_INDEX_ADD;
    bool writes = kind >= IX_SCATTER;
    ix_shapes s;
    shapes_of(c, &s);
    int dim = flags & F_NEG_DIM ? s.dim - s.rank : s.dim;
    wk_dtype idt = (wk_dtype)c->iparam[P_IDX_DTYPE];
    int64_t n_ids = one_d ? s.src[s.dim] : numel(s.rank, s.ids), ids_shape1[1] = {n_ids};
    wk_tensor *x = NULL, *ids = NULL, *src = NULL, *o = NULL;
    double *xv = NULL, *sv = NULL, *got = NULL, *want = NULL, *after = NULL;
    double *iv = malloc((size_t)n_ids * sizeof *iv + 1);
    if (!iv) {
        wkt_fail(r, "out of host memory");
        return;
    }
    make_indices(c, &s, one_d, rng, iv);
    wkt_dist dist = value_dist(c);
    if (wkt_failed(wkt_make(dev, c->dtype, s.rank, s.x, c->layout, dist, rng, &x, &xv), r, "make x") ||
        wkt_failed(flags & F_STRIDED_IDS
                       ? make_strided_ids(dev, idt, n_ids, iv, s.x[s.dim], &ids)
                       : wkt_make_from(dev, idt, one_d ? 1 : s.rank, one_d ? ids_shape1 : s.ids,
                                       (wkt_layout)c->iparam[P_IDS_LAYOUT], iv, &ids),
                   r, "make ids"))
        goto done;
    if (writes && wkt_failed(wkt_make(dev, c->dtype, s.rank, s.src, (wkt_layout)c->iparam[P_SRC_LAYOUT], dist, rng,
                                      &src, &sv),
                             r, "make src"))
        goto done;
    wk_status st;
    switch (kind) {
    case IX_SELECT: st = wk_index_select(x, dim, ids, &o); break;
    case IX_GATHER: st = wk_gather(x, dim, ids, &o); break;
    case IX_SCATTER:
        st = inplace ? wk_scatter_inplace(x, dim, ids, src) : wk_scatter(x, dim, ids, src, &o);
        break;
    case IX_SCATTER_ADD:
        st = inplace ? wk_scatter_add_inplace(x, dim, ids, src) : wk_scatter_add(x, dim, ids, src, &o);
        break;
    default: st = inplace ? wk_index_add_inplace(x, dim, ids, src) : wk_index_add(x, dim, ids, src, &o); break;
    }
    if (wkt_failed(st, r, c->op))
        goto done;
    const wk_tensor *res = inplace ? x : o;
    if (wk_tensor_dtype(res) != c->dtype || wk_tensor_rank(res) != s.rank ||
        memcmp(wk_tensor_shape(res), s.out, (size_t)s.rank * sizeof(int64_t)) != 0) {
        wkt_fail(r, "result has the wrong dtype or shape");
        goto done;
    }
    int64_t n = numel(s.rank, s.out);
    want = reference(kind, &s, xv, iv, sv);
    if (!want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    if (wkt_failed(wkt_read(res, &got), r, "read"))
        goto done;
    for (int64_t i = 0; i < n; i++)
        want[i] = wkt_round_to(c->dtype, want[i]);
    if (kind == IX_SCATTER && (flags & F_DUPLICATES) && strcmp(wk_device_name(dev), "cpu") != 0)
        accept_any_duplicate(&s, iv, sv, got, want);
    bool exact = kind == IX_SELECT || kind == IX_GATHER || kind == IX_SCATTER;
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), exact, r);
    /* an out-of-place op leaves x alone */
    if (!inplace && !wkt_failed(wkt_read(x, &after), r, "read x"))
        wkt_compare(c->dtype, after, xv, numel(s.rank, s.x), 0, true, r);
done:
    free(iv);
    free(xv);
    free(sv);
    free(got);
    free(want);
    free(after);
    wk_tensor_release(x);
    wk_tensor_release(ids);
    wk_tensor_release(src);
    wk_tensor_release(o);
}

/* ---------------------------------------------------------------- cases */

static void add(wkt_list *l, int kind, bool inplace, wk_dtype dt, wk_dtype idt, int rank, const int64_t *shape,
                int dim, wkt_layout x_layout, wkt_layout ids_layout, wkt_layout src_layout, int flags)
{
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "index";
    snprintf(c.op, sizeof c.op, "%s%s", op_names[kind], inplace ? "_inplace" : "");
    c.dtype = dt;
    c.layout = x_layout;
    c.rank = rank;
    memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[P_KIND] = kind;
    c.iparam[P_DIM] = dim;
    c.iparam[P_IDX_DTYPE] = (int)idt;
    c.iparam[P_IDS_LAYOUT] = (int)ids_layout;
    c.iparam[P_SRC_LAYOUT] = (int)src_layout;
    c.iparam[P_FLAGS] = flags | (inplace ? F_INPLACE : 0);
    c.run = run_index;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype values[] = {WK_U8, WK_U32, WK_I32, WK_I64, WK_F16, WK_BF16, WK_F32, WK_F64};
    static const wk_dtype indices[] = {WK_U8, WK_U32, WK_I32, WK_I64};
    const int64_t x3[3] = {4, 5, 6}, x1[1] = {7};
    for (int kind = IX_SELECT; kind <= IX_INDEX_ADD; kind++) {
        bool writes = kind >= IX_SCATTER, one_d = kind == IX_SELECT || kind == IX_INDEX_ADD;
        for (int inplace = 0; inplace <= (writes ? 1 : 0); inplace++) {
            /* every value dtype, all contiguous, with i64 indices: every dim out of place, dims 1 and 2 in
             * place; with i32 indices: the dims of the CPU's fast paths (the last dim takes the direct row
             * loops, index_add's outer dims the row-vector adds; scatter's other dims the general path) */
            for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
                for (int dim = inplace ? 1 : 0; dim < 3; dim++) {
                    add(l, kind, inplace, values[v], WK_I64, 3, x3, dim, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
                    if (dim == 2 || (kind == IX_INDEX_ADD && dim == (inplace ? 1 : 0)))
                        add(l, kind, inplace, values[v], WK_I32, 3, x3, dim, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
                }
            /* every index dtype with f32 values */
            for (int i = 0; i < 3; i++)
                add(l, kind, inplace, WK_F32, indices[i], 3, x3, i, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
            /* strided x, ids and src, negative dims */
            add(l, kind, inplace, WK_F32, WK_I32, 3, x3, 2, WKT_TRANSPOSED, WKT_OFFSET, WKT_PERMUTED, F_NEG_DIM);
            add(l, kind, inplace, WK_I64, WK_I64, 3, x3, 0, WKT_PERMUTED, WKT_TRANSPOSED, WKT_OFFSET, 0);
            add(l, kind, inplace, WK_BF16, WK_U32, 3, x3, 1, WKT_OFFSET, WKT_PERMUTED, WKT_TRANSPOSED, F_NEG_DIM);
            if (!inplace) /* a broadcast x is only ever read */
                add(l, kind, false, WK_F64, WK_I64, 3, x3, 2, WKT_BROADCAST, WKT_OFFSET, WKT_OFFSET, 0);
            /* the last dim with offsets and padded rows (still unit stride: the direct loops), and each
             * fast path's fallbacks: ids, src or x strided along the dim or not contiguous */
            add(l, kind, inplace, WK_F16, WK_I64, 3, x3, 2, WKT_OFFSET, WKT_OFFSET, WKT_OFFSET, 0);
            add(l, kind, inplace, WK_U8, WK_I32, 3, x3, 2, WKT_CONTIG, WKT_TRANSPOSED, WKT_CONTIG, 0);
            add(l, kind, inplace, WK_F32, WK_I64, 3, x3, 2, WKT_CONTIG, WKT_CONTIG, WKT_TRANSPOSED, 0);
            add(l, kind, inplace, WK_I32, WK_I64, 3, x3, 0, WKT_CONTIG, WKT_CONTIG, WKT_OFFSET, 0);
            add(l, kind, inplace, WK_F64, WK_I32, 3, x3, 1, WKT_OFFSET, WKT_CONTIG, WKT_CONTIG, 0);
            if (one_d) /* 1-D ids with stride 2, along an outer dim and the last */
                for (int dim = 0; dim < 3; dim += 2) {
                    add(l, kind, inplace, WK_F32, WK_I64, 3, x3, dim, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_STRIDED_IDS);
                    add(l, kind, inplace, WK_BF16, WK_I32, 3, x3, dim, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG,
                        F_STRIDED_IDS);
                }
            /* rank 1 */
            add(l, kind, inplace, WK_I64, WK_I32, 1, x1, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
            add(l, kind, inplace, WK_F32, WK_I64, 1, x1, 0, WKT_OFFSET, WKT_OFFSET, WKT_OFFSET, 0);
            /* no indices at all */
            add(l, kind, inplace, WK_F32, WK_I64, 3, x3, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_EMPTY_IDS);
            add(l, kind, inplace, WK_F32, WK_I32, 3, x3, 2, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_EMPTY_IDS);
        }
    }
    /* scatter (set) with duplicate indices: the last write in row-major order wins on the CPU */
    add(l, IX_SCATTER, false, WK_F32, WK_I64, 3, x3, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_DUPLICATES);
    add(l, IX_SCATTER, true, WK_I32, WK_U8, 3, x3, 0, WKT_TRANSPOSED, WKT_OFFSET, WKT_CONTIG, F_DUPLICATES);
    add(l, IX_SCATTER, false, WK_F16, WK_I32, 3, x3, 2, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_DUPLICATES);
    add(l, IX_SCATTER, true, WK_I64, WK_I64, 3, x3, 2, WKT_OFFSET, WKT_CONTIG, WKT_OFFSET, F_DUPLICATES);
    /* large enough to run threaded (over 2 * 32768 elements of work), on each path */
    const int64_t sel[2] = {256, 160}, gat[2] = {200, 200}, sca[2] = {256, 256}, big[2] = {300, 256};
    const int64_t wide[2] = {256, 300}, deep[3] = {4, 100, 300};
    add(l, IX_SELECT, false, WK_F32, WK_I64, 2, sel, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_SELECT, false, WK_F64, WK_I32, 2, wide, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_GATHER, false, WK_F32, WK_I32, 2, gat, 1, WKT_TRANSPOSED, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_GATHER, false, WK_F32, WK_I64, 2, big, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_GATHER, false, WK_F16, WK_I32, 2, big, 1, WKT_OFFSET, WKT_CONTIG, WKT_CONTIG, 0);
    /* gather along the last dim a block a row (the GPU's row kernel): x's row staged in shared memory (up to 48
     * KiB) or read in place (f64 rows of 7000), ids in two chunks a row, strided ids, a 1-D gather, merged outer
     * dims; ids rows shorter than a block (203 here, gat above) take the general kernel */
    add(l, IX_GATHER, false, WK_F32, WK_I64, 2, (const int64_t[]){20, 9000}, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG,
        0);
    add(l, IX_GATHER, false, WK_F64, WK_I32, 2, (const int64_t[]){5, 7000}, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG,
        0);
    add(l, IX_GATHER, false, WK_BF16, WK_U32, 2, (const int64_t[]){50, 300}, 1, WKT_CONTIG, WKT_OFFSET, WKT_CONTIG,
        0);
    add(l, IX_GATHER, false, WK_F32, WK_I64, 2, big, 1, WKT_CONTIG, WKT_TRANSPOSED, WKT_CONTIG, 0);
    add(l, IX_GATHER, false, WK_I64, WK_I64, 1, (const int64_t[]){5000}, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_GATHER, false, WK_U8, WK_I32, 3, (const int64_t[]){3, 40, 300}, 2, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG,
        0);
    add(l, IX_GATHER, false, WK_F32, WK_I32, 2, (const int64_t[]){30, 200}, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_SCATTER, false, WK_F32, WK_I64, 2, gat, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_SCATTER, false, WK_F32, WK_I32, 2, big, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_DUPLICATES);
    add(l, IX_SCATTER, true, WK_U8, WK_I64, 2, big, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_DUPLICATES);
    add(l, IX_SCATTER_ADD, false, WK_F32, WK_I64, 2, sca, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_SCATTER_ADD, true, WK_BF16, WK_I32, 2, big, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_SCATTER_ADD, true, WK_I32, WK_I64, 2, sca, 0, WKT_OFFSET, WKT_TRANSPOSED, WKT_CONTIG, 0);
    add(l, IX_INDEX_ADD, false, WK_F32, WK_I64, 2, sel, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_INDEX_ADD, true, WK_I64, WK_U32, 2, sel, 1, WKT_TRANSPOSED, WKT_CONTIG, WKT_OFFSET, 0);
    add(l, IX_INDEX_ADD, false, WK_F32, WK_I32, 2, wide, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_INDEX_ADD, true, WK_I32, WK_I64, 2, wide, 0, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, F_STRIDED_IDS);
    add(l, IX_INDEX_ADD, true, WK_F16, WK_I64, 3, deep, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
    add(l, IX_INDEX_ADD, false, WK_F64, WK_I32, 2, big, 1, WKT_CONTIG, WKT_CONTIG, WKT_CONTIG, 0);
}

/* ---------------------------------------------------------------- errors */

static wk_tensor *make(wkt_errctx *e, wk_dtype dt, int rank, const int64_t *shape, const double *vals)
{
    int64_t n = numel(rank, shape);
    double *buf = malloc((size_t)n * sizeof *buf + 1);
    wk_tensor *t = NULL;
    if (!buf)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        buf[i] = vals ? vals[i] : (double)(i % 5);
    if (wkt_make_from(e->dev, dt, rank, shape, WKT_CONTIG, buf, &t) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL index errors: cannot make an input: %s\n", wk_last_error());
    }
    free(buf);
    return t;
}

static void expect_null(wkt_errctx *e, const wk_tensor *o, const char *what)
{
    e->checks++;
    if (o) {
        e->failures++;
        printf("FAIL %s: out-parameter written on failure\n", what);
    }
}

/* x's contents equal `before` (an in-place op that failed changed nothing). */
static void expect_unchanged(wkt_errctx *e, const wk_tensor *x, const double *before, const char *what)
{
    double *now = NULL;
    e->checks++;
    if (wkt_read(x, &now) != WK_OK || memcmp(now, before, (size_t)wk_tensor_numel(x) * sizeof *now) != 0) {
        e->failures++;
        printf("FAIL %s: in-place target changed by a failing call\n", what);
    }
    free(now);
}

/* The last failure's message names the offending index value. */
static void expect_value_named(wkt_errctx *e, double value, const char *what)
{
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)value);
    e->checks++;
    if (!strstr(wk_last_error(), want)) {
        e->failures++;
        printf("FAIL %s: message \"%s\" does not name the index %s\n", what, wk_last_error(), want);
    }
}

/* A call given an out-of-range index `bad`: WK_ERR_INDEX_OUT_OF_RANGE with a message that begins with "op:" and names
 * bad, and no output (`o`, NULL for an in-place call). On a GPU the kernel finds the index: the call may return WK_OK
 * with an output of unspecified contents, and the error comes at the next synchronisation (wick.h, indexing), once:
 * the synchronisation after it succeeds. bad NAN: the message may name any of several bad indices. */
static void expect_range(wkt_errctx *e, wk_status s, wk_tensor **o, double bad, const char *op, const char *what)
{
    const bool gpu = strcmp(wk_device_name(e->dev), "cpu") != 0;
    char opc[40];
    snprintf(opc, sizeof opc, "%s:", op);
    if (gpu && s == WK_OK) {
        e->checks++;
        if (o && !*o) {
            e->failures++;
            printf("FAIL %s: WK_OK without an output\n", what);
        }
        s = wk_device_sync(e->dev);
        if (o) {
            wk_tensor_release(*o);
            *o = NULL;
        }
    } else if (o) {
        expect_null(e, *o, what);
        wk_tensor_release(*o);
        *o = NULL;
    }
    wkt_expect(e, s, WK_ERR_INDEX_OUT_OF_RANGE, opc, what);
    if (s == WK_ERR_INDEX_OUT_OF_RANGE && !isnan(bad))
        expect_value_named(e, bad, op);
    if (gpu) { /* the error reported once: nothing left for the next synchronisation */
        e->checks++;
        if (wk_device_sync(e->dev) != WK_OK) {
            e->failures++;
            printf("FAIL %s: a fault left for the next sync (%s)\n", what, wk_last_error());
        }
    }
}
#define EXPECT_RANGE(e, call, o, bad, op) expect_range((e), (call), (o), (bad), (op), #call)

/* Out-of-range indices along dim (1, or 2: the last, where the CPU runs its direct loops): negative (signed
 * index dtypes) and equal to the size, out of place and in place, with ids contiguous or strided
 * (transposed; 1-D with stride 2). Every index but the last is valid, so a backend writing before checking
 * would show it. */
static void range_errors_at(wkt_errctx *e, wk_tensor *x, const double *xv, int dim, bool strided)
{
    static const wk_dtype signed_ids[] = {WK_I32, WK_I64}, all_ids[] = {WK_U8, WK_U32, WK_I32, WK_I64};
    const int64_t gs1[3] = {3, 2, 5}, ss1[3] = {4, 2, 6}, as1[3] = {4, 3, 6};
    const int64_t gs2[3] = {3, 4, 3}, ss2[3] = {4, 4, 6}, as2[3] = {4, 5, 3}, one[1] = {3};
    const int64_t *gs = dim == 1 ? gs1 : gs2, *ss = dim == 1 ? ss1 : ss2, *as = dim == 1 ? as1 : as2;
    const int64_t size = wk_tensor_shape(x)[dim], n = numel(3, gs);
    double gv[36], av[3] = {0, 4, 0};
    for (int i = 0; i < n; i++)
        gv[i] = i % 5;
    wk_tensor *src = make(e, WK_F32, 3, ss, NULL), *asrc = make(e, WK_F32, 3, as, NULL);
    for (int bad_kind = 0; bad_kind < 2; bad_kind++) {
        const wk_dtype *dts = bad_kind ? signed_ids : all_ids;
        int ndt = bad_kind ? 2 : 4;
        for (int k = 0; k < ndt; k++) {
            double bad = bad_kind ? -1 : (double)size;
            gv[n - 1] = bad;
            av[2] = bad;
            wk_tensor *g = NULL, *a = NULL, *o = NULL;
            if (strided) {
                if (wkt_make_from(e->dev, dts[k], 3, gs, WKT_TRANSPOSED, gv, &g) != WK_OK ||
                    make_strided_ids(e->dev, dts[k], 3, av, size, &a) != WK_OK) {
                    e->checks++;
                    e->failures++;
                    printf("FAIL index errors: cannot make strided ids: %s\n", wk_last_error());
                }
            } else {
                g = make(e, dts[k], 3, gs, gv);
                a = make(e, dts[k], 1, one, av);
            }
            if (g && a && src && asrc) {
                EXPECT_RANGE(e, wk_index_select(x, dim, a, &o), &o, bad, "index_select");
                EXPECT_RANGE(e, wk_gather(x, dim, g, &o), &o, bad, "gather");
                EXPECT_RANGE(e, wk_scatter(x, dim, g, src, &o), &o, bad, "scatter");
                EXPECT_RANGE(e, wk_scatter_add(x, dim, g, src, &o), &o, bad, "scatter_add");
                EXPECT_RANGE(e, wk_index_add(x, dim, a, asrc, &o), &o, bad, "index_add");
                EXPECT_RANGE(e, wk_scatter_inplace(x, dim, g, src), NULL, bad, "scatter");
                expect_unchanged(e, x, xv, "scatter_inplace");
                EXPECT_RANGE(e, wk_scatter_add_inplace(x, dim, g, src), NULL, bad, "scatter_add");
                expect_unchanged(e, x, xv, "scatter_add_inplace");
                EXPECT_RANGE(e, wk_index_add_inplace(x, dim, a, asrc), NULL, bad, "index_add");
                expect_unchanged(e, x, xv, "index_add_inplace");
            }
            wk_tensor_release(g);
            wk_tensor_release(a);
        }
    }
    wk_tensor_release(src);
    wk_tensor_release(asrc);
}

/* A bad index at the very end of ids large enough to be checked and gathered on several threads. */
static void threaded_range_errors(wkt_errctx *e)
{
    const int64_t shape[2] = {2, 40000}, n = 80000;
    double *vals = malloc((size_t)n * sizeof *vals);
    if (!vals)
        return;
    for (int64_t i = 0; i < n; i++)
        vals[i] = (double)(i * 7 % 40000);
    wk_tensor *x = make(e, WK_F32, 2, shape, vals), *src = make(e, WK_F32, 2, shape, NULL), *o = NULL;
    vals[n - 1] = 40000;
    wk_tensor *ids = make(e, WK_I64, 2, shape, vals);
    for (int64_t i = 0; i < n; i++)
        vals[i] = (double)(float)(i * 7 % 40000);
    if (x && src && ids) {
        EXPECT_RANGE(e, wk_gather(x, 1, ids, &o), &o, 40000, "gather");
        EXPECT_RANGE(e, wk_scatter_add_inplace(x, 1, ids, src), NULL, 40000, "scatter_add");
        expect_unchanged(e, x, vals, "scatter_add_inplace (threaded)");
        EXPECT_RANGE(e, wk_scatter_inplace(x, 0, ids, src), NULL, NAN, "scatter");
        expect_unchanged(e, x, vals, "scatter_inplace (threaded)");
    }
    free(vals);
    wk_tensor_release(x);
    wk_tensor_release(src);
    wk_tensor_release(ids);
}

static void range_errors(wkt_errctx *e, wk_tensor *x, const double *xv)
{
    const int64_t one[1] = {3};
    range_errors_at(e, x, xv, 1, false);
    range_errors_at(e, x, xv, 2, false);
    range_errors_at(e, x, xv, 1, true);
    range_errors_at(e, x, xv, 2, true);
    threaded_range_errors(e);
    /* an index into an empty dim */
    const int64_t empty[3] = {4, 0, 6};
    wk_tensor *xe = make(e, WK_F32, 3, empty, NULL), *z = make(e, WK_I64, 1, one, NULL), *o = NULL;
    if (xe && z)
        WKT_EXPECT(e, wk_index_select(xe, 1, z, &o), WK_ERR_INDEX_OUT_OF_RANGE, "index_select");
    expect_null(e, o, "index_select on an empty dim");
    wk_tensor_release(xe);
    wk_tensor_release(z);
}

static void errors(wkt_errctx *e)
{
    const int64_t xs[3] = {4, 5, 6}, gs[3] = {3, 2, 5}, ss[3] = {4, 2, 6}, one[1] = {3}, as[3] = {4, 3, 6};
    const int64_t big_g[3] = {5, 2, 5}, two[2] = {3, 1}, bad_as[3] = {4, 3, 5}, src2[2] = {4, 2};
    double xv[120];
    for (int i = 0; i < 120; i++)
        xv[i] = i * 0.5;
    wk_tensor *x = make(e, WK_F32, 3, xs, xv), *g = make(e, WK_I64, 3, gs, NULL), *src = make(e, WK_F32, 3, ss, NULL);
    wk_tensor *a = make(e, WK_I64, 1, one, NULL), *asrc = make(e, WK_F32, 3, as, NULL);
    wk_tensor *gf = make(e, WK_F32, 3, gs, NULL), *af = make(e, WK_F64, 1, one, NULL);
    wk_tensor *bg = make(e, WK_I64, 3, big_g, NULL), *a2 = make(e, WK_I64, 2, two, NULL);
    wk_tensor *srcd = make(e, WK_F64, 3, ss, NULL), *bas = make(e, WK_F32, 3, bad_as, NULL);
    wk_tensor *s2 = make(e, WK_F32, 2, src2, NULL), *o = NULL, *xb = NULL, *xi = NULL, *alias = NULL;
    if (!x || !g || !src || !a || !asrc || !gf || !af || !bg || !a2 || !srcd || !bas || !s2)
        goto done;
    WKT_EXPECT(e, wk_index_select(NULL, 0, a, &o), WK_ERR_INVALID_ARGUMENT, "index_select");
    WKT_EXPECT(e, wk_index_select(x, 0, NULL, &o), WK_ERR_INVALID_ARGUMENT, "index_select");
    WKT_EXPECT(e, wk_index_select(x, 0, a, NULL), WK_ERR_INVALID_ARGUMENT, "index_select");
    WKT_EXPECT(e, wk_index_select(x, 3, a, &o), WK_ERR_SHAPE, "index_select");
    WKT_EXPECT(e, wk_index_select(x, -4, a, &o), WK_ERR_SHAPE, "index_select");
    WKT_EXPECT(e, wk_index_select(x, 0, a2, &o), WK_ERR_SHAPE, "index_select");
    WKT_EXPECT(e, wk_index_select(x, 0, af, &o), WK_ERR_DTYPE, "index_select");
    WKT_EXPECT(e, wk_gather(x, 1, gf, &o), WK_ERR_DTYPE, "gather");
    WKT_EXPECT(e, wk_gather(x, 1, a, &o), WK_ERR_SHAPE, "gather");  /* rank differs */
    WKT_EXPECT(e, wk_gather(x, 1, bg, &o), WK_ERR_SHAPE, "gather"); /* larger than x off dim */
    WKT_EXPECT(e, wk_gather(NULL, 1, g, &o), WK_ERR_INVALID_ARGUMENT, "gather");
    WKT_EXPECT(e, wk_scatter(x, 1, g, NULL, &o), WK_ERR_INVALID_ARGUMENT, "scatter");
    WKT_EXPECT(e, wk_scatter(x, 1, g, src, NULL), WK_ERR_INVALID_ARGUMENT, "scatter");
    WKT_EXPECT(e, wk_scatter(x, 1, gf, src, &o), WK_ERR_DTYPE, "scatter");
    WKT_EXPECT(e, wk_scatter(x, 1, g, srcd, &o), WK_ERR_DTYPE, "scatter");
    WKT_EXPECT(e, wk_scatter_add(x, 1, bg, src, &o), WK_ERR_SHAPE, "scatter_add"); /* ids larger than src */
    WKT_EXPECT(e, wk_scatter_add(x, 1, g, s2, &o), WK_ERR_SHAPE, "scatter_add");   /* src rank differs */
    WKT_EXPECT(e, wk_scatter_add(x, 5, g, src, &o), WK_ERR_SHAPE, "scatter_add");
    WKT_EXPECT(e, wk_index_add(x, 1, a, bas, &o), WK_ERR_SHAPE, "index_add"); /* src off dim differs */
    WKT_EXPECT(e, wk_index_add(x, 1, a, src, &o), WK_ERR_SHAPE, "index_add"); /* ids length != src dim */
    WKT_EXPECT(e, wk_index_add(x, 1, a2, asrc, &o), WK_ERR_SHAPE, "index_add");
    WKT_EXPECT(e, wk_index_add(x, 1, af, asrc, &o), WK_ERR_DTYPE, "index_add");
    WKT_EXPECT(e, wk_index_add(x, 1, a, srcd, &o), WK_ERR_DTYPE, "index_add");
    expect_null(e, o, "index errors");
    /* in-place shape errors and targets that cannot be written */
    WKT_EXPECT(e, wk_scatter_inplace(x, 1, bg, src), WK_ERR_SHAPE, "scatter");
    WKT_EXPECT(e, wk_index_add_inplace(x, 1, a, bas), WK_ERR_SHAPE, "index_add");
    WKT_EXPECT(e, wk_scatter_add_inplace(NULL, 1, g, src), WK_ERR_INVALID_ARGUMENT, "scatter_add");
    expect_unchanged(e, x, xv, "index in-place shape errors");
    wk_tensor *first = NULL; /* x's first slice broadcast back to x's shape: elements overlap */
    if (wk_narrow(x, 0, 0, 1, &first) == WK_OK && wk_broadcast_to(first, 3, xs, &xb) == WK_OK)
        WKT_EXPECT(e, wk_scatter_inplace(xb, 1, g, src), WK_ERR_INVALID_ARGUMENT, "scatter");
    wk_tensor_release(first);
    /* ids that alias the target could change under the writes */
    const int64_t xi_shape[2] = {5, 5}, ids_shape[2] = {2, 5};
    xi = make(e, WK_I64, 2, xi_shape, NULL);
    if (xi && wk_narrow(xi, 0, 0, 2, &alias) == WK_OK) {
        wk_tensor *isrc = make(e, WK_I64, 2, ids_shape, NULL);
        if (isrc)
            WKT_EXPECT(e, wk_scatter_inplace(xi, 0, alias, isrc), WK_ERR_INVALID_ARGUMENT, "scatter");
        wk_tensor_release(isrc);
    }
    range_errors(e, x, xv);
done:
    wk_tensor_release(x);
    wk_tensor_release(g);
    wk_tensor_release(src);
    wk_tensor_release(a);
    wk_tensor_release(asrc);
    wk_tensor_release(gf);
    wk_tensor_release(af);
    wk_tensor_release(bg);
    wk_tensor_release(a2);
    wk_tensor_release(srcd);
    wk_tensor_release(bas);
    wk_tensor_release(s2);
    wk_tensor_release(xb);
    wk_tensor_release(xi);
    wk_tensor_release(alias);
}

const wkt_family wkt_family_index = {.name = "index", .cases = cases, .errors = errors};

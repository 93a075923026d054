/* view.c: case family 'view': reshape (views and the copy fallback), transpose, permute, narrow, broadcast_to,
 * squeeze, unsqueeze, flatten, as_strided: values, shapes, and whether the result aliases its input. */
#include <stdlib.h>
#include <string.h>

#include "creation.h" /* raw-byte inputs in every layout and exact comparison */

/* What the result must share with its input: writing the input shows through a view, never through a copy. */
enum { ALIAS_COPY = 0, ALIAS_VIEW = 1, ALIAS_ANY = 2 };

/* Case parameters: iparam[0] the variant (index into the op's table below), iparam[1] the expected aliasing. */
typedef struct view_variant {
    int rank;
    int64_t shape[WK_MAX_RANK];
    int out_rank;              /* reshape / broadcast_to / as_strided target, or -1 */
    int64_t out_shape[WK_MAX_RANK];
    int64_t strides[WK_MAX_RANK]; /* as_strided */
    int64_t offset;
    int a, b, c;               /* dims and other integer arguments */
    int perm[WK_MAX_RANK];
    int alias[WKT_LAYOUT_COUNT]; /* reshape/flatten: view or copy for each input layout */
} view_variant;

#define ALL_VIEW {ALIAS_VIEW, ALIAS_VIEW, ALIAS_VIEW, ALIAS_VIEW, ALIAS_VIEW}
/* contig, transposed, permuted, broadcast, offset */
static const view_variant reshapes[] = {
    {.rank = 2, .shape = {4, 6}, .out_rank = 1, .out_shape = {24}, .alias = {1, 0, 0, 0, 0}},
    {.rank = 2, .shape = {4, 6}, .out_rank = 3, .out_shape = {4, 2, 3}, .alias = ALL_VIEW},
    {.rank = 3, .shape = {2, 3, 4}, .out_rank = 2, .out_shape = {6, 4}, .alias = {1, 0, 0, 0, 1}},
    {.rank = 3, .shape = {2, 3, 4}, .out_rank = 1, .out_shape = {-1}, .alias = {1, 0, 0, 0, 0}},
    {.rank = 3, .shape = {2, 3, 4}, .out_rank = 3, .out_shape = {4, -1, 2}, .alias = {1, 0, 0, 0, 0}},
    {.rank = 3, .shape = {2, 1, 4}, .out_rank = 4, .out_shape = {1, 2, 4, 1}, .alias = ALL_VIEW},
    {.rank = 0, .out_rank = 2, .out_shape = {1, 1}, .alias = ALL_VIEW},
    {.rank = 1, .shape = {1}, .out_rank = 0, .alias = ALL_VIEW},
    {.rank = 2, .shape = {0, 3}, .out_rank = 3, .out_shape = {3, 0, 2}, .alias = ALL_VIEW},
    {.rank = 2, .shape = {180, 190}, .out_rank = 3, .out_shape = {18, 10, 190}, .alias = ALL_VIEW},
    {.rank = 2, .shape = {180, 190}, .out_rank = 1, .out_shape = {-1}, .alias = {1, 0, 0, 0, 0}},
};
static const view_variant transposes[] = {
    {.rank = 3, .shape = {3, 4, 5}, .a = 0, .b = 2},
    {.rank = 3, .shape = {3, 4, 5}, .a = -1, .b = -2},
    {.rank = 3, .shape = {3, 4, 5}, .a = 1, .b = 1},
    {.rank = 2, .shape = {4, 6}, .a = 1, .b = 0},
};
static const view_variant permutes[] = {
    {.rank = 4, .shape = {2, 3, 4, 5}, .perm = {3, 1, 0, 2}},
    {.rank = 3, .shape = {3, 4, 5}, .perm = {-1, 0, -2}},
    {.rank = 0},
};
static const view_variant narrows[] = {
    {.rank = 3, .shape = {5, 6, 7}, .a = 1, .b = 2, .c = 3},
    {.rank = 3, .shape = {5, 6, 7}, .a = -1, .b = 0, .c = 7},
    {.rank = 3, .shape = {5, 6, 7}, .a = 0, .b = 5, .c = 0},
};
static const view_variant broadcasts[] = {
    {.rank = 3, .shape = {3, 1, 5}, .out_rank = 4, .out_shape = {2, 3, 4, 5}},
    {.rank = 1, .shape = {5}, .out_rank = 2, .out_shape = {4, 5}},
    {.rank = 0, .out_rank = 2, .out_shape = {2, 3}},
    {.rank = 2, .shape = {1, 3}, .out_rank = 2, .out_shape = {0, 3}},
};
static const view_variant squeezes[] = {
    {.rank = 3, .shape = {3, 1, 5}, .a = 1},
    {.rank = 3, .shape = {3, 1, 5}, .a = -2},
    {.rank = 1, .shape = {1}, .a = 0},
};
static const view_variant unsqueezes[] = {
    {.rank = 2, .shape = {3, 5}, .a = 0},
    {.rank = 2, .shape = {3, 5}, .a = 2},
    {.rank = 2, .shape = {3, 5}, .a = -1},
    {.rank = 2, .shape = {3, 5}, .a = -3},
    {.rank = 0, .a = 0},
};
static const view_variant flattens[] = {
    {.rank = 4, .shape = {2, 3, 4, 5}, .a = 1, .b = 2, .alias = {1, 0, 0, 1, 1}},
    {.rank = 4, .shape = {2, 3, 4, 5}, .a = 0, .b = -1, .alias = {1, 0, 0, 0, 0}},
    {.rank = 4, .shape = {2, 3, 4, 5}, .a = 2, .b = 2, .alias = ALL_VIEW},
    {.rank = 3, .shape = {2, 3, 4}, .a = -2, .b = -1, .alias = {1, 0, 0, 1, 0}},
    {.rank = 0, .a = 0, .b = -1, .alias = ALL_VIEW},
};
/* as_strided over a contiguous storage of 24 elements */
static const view_variant stridings[] = {
    {.rank = 1, .shape = {24}, .out_rank = 2, .out_shape = {4, 3}, .strides = {2, 1}, .offset = 1},
    {.rank = 1, .shape = {24}, .out_rank = 2, .out_shape = {3, 4}, .strides = {1, 6}, .offset = 3},
    {.rank = 1, .shape = {24}, .out_rank = 3, .out_shape = {2, 3, 2}, .strides = {0, 7, 3}, .offset = 0},
    {.rank = 1, .shape = {24}, .out_rank = 2, .out_shape = {0, 5}, .strides = {100, 100}, .offset = 23},
    {.rank = 1, .shape = {24}, .out_rank = 0, .offset = 23},
};

typedef enum view_op { V_RESHAPE, V_TRANSPOSE, V_PERMUTE, V_NARROW, V_BROADCAST, V_SQUEEZE, V_UNSQUEEZE, V_FLATTEN,
                       V_AS_STRIDED, V_OP_COUNT } view_op;
static const struct {
    const char *name;
    const view_variant *variants;
    int count;
} view_ops[V_OP_COUNT] = {
#define VIEW_TABLE(name, t) {name, t, (int)(sizeof t / sizeof t[0])}
    VIEW_TABLE("reshape", reshapes),     VIEW_TABLE("transpose", transposes), VIEW_TABLE("permute", permutes),
    VIEW_TABLE("narrow", narrows),       VIEW_TABLE("broadcast_to", broadcasts), VIEW_TABLE("squeeze", squeezes),
    VIEW_TABLE("unsqueeze", unsqueezes), VIEW_TABLE("flatten", flattens),    VIEW_TABLE("as_strided", stridings),
#undef VIEW_TABLE
};

static int norm(int d, int rank) { return d < 0 ? d + rank : d; }

/* The expected output shape, and for each output element the input element (logical index) it shows;
 * as_strided gives storage indices instead. */
static int expect(view_op op, const view_variant *v, int64_t *shape, int64_t numel_in)
{
    int r = v->rank;
    memcpy(shape, v->shape, sizeof v->shape);
    switch (op) {
    case V_RESHAPE: {
        int64_t known = 1;
        int infer = -1;
        memcpy(shape, v->out_shape, sizeof v->out_shape);
        for (int i = 0; i < v->out_rank; i++)
            if (shape[i] < 0)
                infer = i;
            else
                known *= shape[i];
        if (infer >= 0)
            shape[infer] = numel_in / known;
        return v->out_rank;
    }
    case V_BROADCAST:
    case V_AS_STRIDED:
        memcpy(shape, v->out_shape, sizeof v->out_shape);
        return v->out_rank;
    case V_TRANSPOSE:
        shape[norm(v->a, r)] = v->shape[norm(v->b, r)];
        shape[norm(v->b, r)] = v->shape[norm(v->a, r)];
        return r;
    case V_PERMUTE:
        for (int i = 0; i < r; i++)
            shape[i] = v->shape[norm(v->perm[i], r)];
        return r;
    case V_NARROW:
        shape[norm(v->a, r)] = v->c;
        return r;
    case V_SQUEEZE:
        memmove(shape + norm(v->a, r), shape + norm(v->a, r) + 1, (size_t)(r - norm(v->a, r) - 1) * sizeof *shape);
        return r - 1;
    case V_UNSQUEEZE: {
        int d = v->a < 0 ? v->a + r + 1 : v->a;
        memmove(shape + d + 1, shape + d, (size_t)(r - d) * sizeof *shape);
        shape[d] = 1;
        return r + 1;
    }
    default: { /* flatten */
        if (r == 0) {
            shape[0] = 1;
            return 1;
        }
        int s = norm(v->a, r), e = norm(v->b, r), k = 0;
        int64_t merged = 1;
        for (int i = s; i <= e; i++)
            merged *= v->shape[i];
        for (int i = 0; i < r; i++)
            if (i < s || i > e)
                shape[k++] = v->shape[i];
            else if (i == s)
                shape[k++] = merged;
        return k;
    }
    }
}

/* Index of the input element that output element `li` shows (logical for every op but as_strided). */
static int64_t source_of(view_op op, const view_variant *v, int out_rank, const int64_t *out_shape, int64_t li)
{
    int64_t idx[WK_MAX_RANK], in[WK_MAX_RANK];
    int r = v->rank;
    for (int d = out_rank - 1; d >= 0; d--) {
        idx[d] = li % out_shape[d];
        li /= out_shape[d];
    }
    switch (op) {
    case V_TRANSPOSE: {
        int a = norm(v->a, r), b = norm(v->b, r);
        memcpy(in, idx, sizeof in);
        in[a] = idx[b];
        in[b] = idx[a];
        break;
    }
    case V_PERMUTE:
        for (int i = 0; i < r; i++)
            in[norm(v->perm[i], r)] = idx[i];
        break;
    case V_NARROW:
        memcpy(in, idx, sizeof in);
        in[norm(v->a, r)] += v->b;
        break;
    case V_BROADCAST:
        for (int d = 0; d < r; d++)
            in[d] = v->shape[d] == 1 ? 0 : idx[d + out_rank - r];
        break;
    case V_AS_STRIDED: {
        int64_t p = v->offset;
        for (int d = 0; d < out_rank; d++)
            p += idx[d] * v->strides[d];
        return p;
    }
    default: { /* reshape, squeeze, unsqueeze, flatten keep the row-major order */
        int64_t flat = 0;
        for (int d = 0; d < out_rank; d++)
            flat = flat * out_shape[d] + idx[d];
        return flat;
    }
    }
    int64_t flat = 0;
    for (int d = 0; d < r; d++)
        flat = flat * v->shape[d] + in[d];
    return flat;
}

static wk_status call(view_op op, const view_variant *v, const wk_tensor *t, wk_tensor **out)
{
    switch (op) {
    case V_RESHAPE: return wk_reshape(t, v->out_rank, v->out_shape, out);
    case V_TRANSPOSE: return wk_transpose(t, v->a, v->b, out);
    case V_PERMUTE: return wk_permute(t, v->perm, out);
    case V_NARROW: return wk_narrow(t, v->a, v->b, v->c, out);
    case V_BROADCAST: return wk_broadcast_to(t, v->out_rank, v->out_shape, out);
    case V_SQUEEZE: return wk_squeeze(t, v->a, out);
    case V_UNSQUEEZE: return wk_unsqueeze(t, v->a, out);
    case V_FLATTEN: return wk_flatten(t, v->a, v->b, out);
    default: return wk_as_strided(t, v->out_rank, v->out_shape, v->strides, v->offset, out);
    }
}

/* iparam[0]: op, iparam[1]: variant. */
static void run_view(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    view_op op = (view_op)c->iparam[0];
    const view_variant *v = &view_ops[op].variants[c->iparam[1]];
    wk_dtype dt = c->dtype;
    size_t es = wk_dtype_size(dt);
    int64_t shape[WK_MAX_RANK];
    int64_t n_in = 1;
    for (int i = 0; i < v->rank; i++)
        n_in *= v->shape[i];
    int out_rank = expect(op, v, shape, n_in);
    int64_t n_out = 1;
    for (int i = 0; i < out_rank; i++)
        n_out *= shape[i];
    void *logical = malloc((size_t)n_in * es + 1), *want = malloc((size_t)n_out * es + 1), *got = NULL,
         *after = NULL;
    crt_view in = {0};
    wk_tensor *out = NULL;
    if (!logical || !want) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    crt_random(dt, logical, n_in, true, rng);
    if (wkt_failed(crt_make(dev, dt, v->rank, v->shape, c->layout, logical, 0x77, &in), r, "make input") ||
        wkt_failed(call(op, v, in.t, &out), r, view_ops[op].name))
        goto done;
    if (wk_tensor_rank(out) != out_rank || wk_tensor_dtype(out) != dt ||
        (out_rank && memcmp(wk_tensor_shape(out), shape, (size_t)out_rank * sizeof *shape) != 0)) {
        char b[96];
        wkt_fail(r, "result has rank %d / dtype %s, not the expected %d / %s (%s)", wk_tensor_rank(out),
                 wk_dtype_name(wk_tensor_dtype(out)), out_rank, wk_dtype_name(dt), wkt_shape_name(c, b, sizeof b));
        goto done;
    }
    const void *src = op == V_AS_STRIDED ? in.phys : in.eff;
    for (int64_t i = 0; i < n_out; i++)
        memcpy((char *)want + i * (int64_t)es, (const char *)src + source_of(op, v, out_rank, shape, i) * (int64_t)es,
               es);
    if (!crt_read(out, &got, r))
        goto done;
    crt_compare(dt, got, want, n_out, view_ops[op].name, r);

    /* Aliasing: fill the input (when it is a valid target) and see whether the result follows. */
    int alias = op == V_RESHAPE || op == V_FLATTEN ? v->alias[c->layout] : ALIAS_VIEW;
    if (!r->pass || n_out == 0 || c->layout == WKT_BROADCAST)
        goto done;
    if (wkt_failed(wk_fill(in.t, 77.0), r, "fill input") || !crt_read(out, &after, r))
        goto done;
    for (int64_t i = 0; i < n_out; i++) {
        double a = crt_get(dt, after, i);
        bool follows = a == 77.0;
        bool kept = memcmp((char *)after + i * (int64_t)es, (char *)got + i * (int64_t)es, es) == 0 ||
                    (a != a && crt_get(dt, got, i) != crt_get(dt, got, i));
        if ((alias == ALIAS_VIEW && !follows) || (alias == ALIAS_COPY && !kept)) {
            wkt_fail(r, "element %lld: the result should be a %s of its input", (long long)i,
                     alias == ALIAS_VIEW ? "view" : "copy");
            break;
        }
    }
done:
    free(logical);
    free(want);
    free(got);
    free(after);
    crt_view_free(&in);
    wk_tensor_release(out);
}

static void cases(wkt_list *l)
{
    int rot = 0;
    for (int op = 0; op < V_OP_COUNT; op++)
        for (int k = 0; k < view_ops[op].count; k++) {
            const view_variant *v = &view_ops[op].variants[k];
            for (int lay = 0; lay < WKT_LAYOUT_COUNT; lay++) {
                /* as_strided reads the storage, so the layout of its input is irrelevant: contig only */
                if (!wkt_layout_applies((wkt_layout)lay, v->rank, v->shape) || (op == V_AS_STRIDED && lay))
                    continue;
                int reps = op == V_AS_STRIDED ? 4 : 1;
                for (int rep = 0; rep < reps; rep++) {
                    wkt_case c = {.family = "view", .dtype = (wk_dtype)(rot++ % WK_DTYPE_COUNT),
                                  .layout = (wkt_layout)lay, .rank = v->rank, .run = run_view};
                    snprintf(c.op, sizeof c.op, "%s", view_ops[op].name);
                    memcpy(c.shape, v->shape, sizeof c.shape);
                    c.iparam[0] = op;
                    c.iparam[1] = k;
                    wkt_add(l, &c);
                }
            }
        }
}

/* ---------------------------------------------------------------- errors */

static void errors(wkt_errctx *e)
{
    int64_t s234[3] = {2, 3, 4}, s1[1] = {24};
    wk_tensor *x = NULL, *o = NULL, *big = NULL, *flat = NULL;
    if (wk_zeros(e->dev, WK_F32, 3, s234, &x) != WK_OK || wk_zeros(e->dev, WK_F32, 1, s1, &flat) != WK_OK ||
        wk_zeros(e->dev, WK_U8, 8, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 2}, &big) != WK_OK) {
        e->checks++;
        e->failures++;
        printf("FAIL view errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    WKT_EXPECT(e, wk_reshape(NULL, 1, s1, &o), WK_ERR_INVALID_ARGUMENT, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 1, s1, NULL), WK_ERR_INVALID_ARGUMENT, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 2, NULL, &o), WK_ERR_INVALID_ARGUMENT, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 9, s1, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, -1, s1, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 2, (const int64_t[]){5, 5}, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 2, (const int64_t[]){-1, -1}, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 2, (const int64_t[]){-2, 12}, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 2, (const int64_t[]){-1, 5}, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 2, (const int64_t[]){-1, 0}, &o), WK_ERR_SHAPE, "reshape");
    WKT_EXPECT(e, wk_reshape(x, 3, (const int64_t[]){INT64_C(1) << 32, INT64_C(1) << 32, 4}, &o), WK_ERR_SHAPE,
               "reshape");

    WKT_EXPECT(e, wk_transpose(NULL, 0, 1, &o), WK_ERR_INVALID_ARGUMENT, "transpose");
    WKT_EXPECT(e, wk_transpose(x, 0, 3, &o), WK_ERR_SHAPE, "transpose");
    WKT_EXPECT(e, wk_transpose(x, -4, 0, &o), WK_ERR_SHAPE, "transpose");
    WKT_EXPECT(e, wk_transpose(x, 0, 1, NULL), WK_ERR_INVALID_ARGUMENT, "transpose");

    WKT_EXPECT(e, wk_permute(x, NULL, &o), WK_ERR_INVALID_ARGUMENT, "permute");
    WKT_EXPECT(e, wk_permute(x, (const int[]){0, 1, 1}, &o), WK_ERR_SHAPE, "permute");
    WKT_EXPECT(e, wk_permute(x, (const int[]){0, 1, -1}, &o), WK_OK, "permute");
    wk_tensor_release(o);
    o = NULL;
    WKT_EXPECT(e, wk_permute(x, (const int[]){0, 2, -1}, &o), WK_ERR_SHAPE, "permute");
    WKT_EXPECT(e, wk_permute(x, (const int[]){0, 1, 3}, &o), WK_ERR_SHAPE, "permute");

    WKT_EXPECT(e, wk_narrow(x, 3, 0, 1, &o), WK_ERR_SHAPE, "narrow");
    WKT_EXPECT(e, wk_narrow(x, 1, -1, 1, &o), WK_ERR_SHAPE, "narrow");
    WKT_EXPECT(e, wk_narrow(x, 1, 0, -1, &o), WK_ERR_SHAPE, "narrow");
    WKT_EXPECT(e, wk_narrow(x, 1, 2, 2, &o), WK_ERR_SHAPE, "narrow");
    WKT_EXPECT(e, wk_narrow(x, 1, INT64_MAX, 2, &o), WK_ERR_SHAPE, "narrow");
    WKT_EXPECT(e, wk_narrow(NULL, 1, 0, 1, &o), WK_ERR_INVALID_ARGUMENT, "narrow");

    WKT_EXPECT(e, wk_broadcast_to(x, 3, (const int64_t[]){2, 5, 4}, &o), WK_ERR_SHAPE, "broadcast_to");
    WKT_EXPECT(e, wk_broadcast_to(x, 2, (const int64_t[]){3, 4}, &o), WK_ERR_SHAPE, "broadcast_to");
    WKT_EXPECT(e, wk_broadcast_to(x, 3, (const int64_t[]){2, -3, 4}, &o), WK_ERR_SHAPE, "broadcast_to");
    WKT_EXPECT(e, wk_broadcast_to(x, 3, NULL, &o), WK_ERR_INVALID_ARGUMENT, "broadcast_to");
    WKT_EXPECT(e, wk_broadcast_to(x, 9, s234, &o), WK_ERR_SHAPE, "broadcast_to");
    WKT_EXPECT(e, wk_broadcast_to(x, 5, (const int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40, 2, 3, 4}, &o),
               WK_ERR_SHAPE, "broadcast_to");

    WKT_EXPECT(e, wk_squeeze(x, 0, &o), WK_ERR_SHAPE, "squeeze");
    WKT_EXPECT(e, wk_squeeze(x, 3, &o), WK_ERR_SHAPE, "squeeze");
    WKT_EXPECT(e, wk_unsqueeze(x, 4, &o), WK_ERR_SHAPE, "unsqueeze");
    WKT_EXPECT(e, wk_unsqueeze(x, -5, &o), WK_ERR_SHAPE, "unsqueeze");
    WKT_EXPECT(e, wk_unsqueeze(big, 0, &o), WK_ERR_SHAPE, "unsqueeze");

    WKT_EXPECT(e, wk_flatten(x, 2, 1, &o), WK_ERR_SHAPE, "flatten");
    WKT_EXPECT(e, wk_flatten(x, 0, 3, &o), WK_ERR_SHAPE, "flatten");
    WKT_EXPECT(e, wk_flatten(x, -4, 1, &o), WK_ERR_SHAPE, "flatten");
    WKT_EXPECT(e, wk_flatten(x, 0, 1, NULL), WK_ERR_INVALID_ARGUMENT, "flatten");

    WKT_EXPECT(e, wk_as_strided(flat, 2, (const int64_t[]){5, 5}, (const int64_t[]){5, 1}, 0, &o), WK_ERR_SHAPE,
               "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 1, (const int64_t[]){4}, (const int64_t[]){-1}, 4, &o), WK_ERR_SHAPE,
               "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 1, (const int64_t[]){4}, (const int64_t[]){1}, -1, &o), WK_ERR_SHAPE,
               "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 1, (const int64_t[]){1}, (const int64_t[]){1}, 24, &o), WK_ERR_SHAPE,
               "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 1, NULL, (const int64_t[]){1}, 0, &o), WK_ERR_INVALID_ARGUMENT,
               "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 9, s234, s234, 0, &o), WK_ERR_SHAPE, "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 2, (const int64_t[]){3, 3}, (const int64_t[]){INT64_MAX / 2, 1}, 0, &o),
               WK_ERR_SHAPE, "as_strided");
    WKT_EXPECT(e, wk_as_strided(flat, 2, (const int64_t[]){INT64_MAX, 4}, (const int64_t[]){0, 0}, 0, &o),
               WK_ERR_SHAPE, "as_strided");
    crt_expect_untouched(e, o, "views");
done:
    wk_tensor_release(x);
    wk_tensor_release(flat);
    wk_tensor_release(big);
}

const wkt_family wkt_family_view = {.name = "view", .cases = cases, .errors = errors};

/* test_golden.c: checks wick against PyTorch golden files (tests/golden/NAME.txt from make_golden.py) for the
 * semantics PyTorch defines: conv, pooling, upsampling, indexing, sort, round, casts, softmax, activations, masks,
 * top-k, statistics (var, std, logsumexp, norm), normalisation layers and cumulative ops.
 *
 * Usage: test_golden DIR. Every DIR/NAME.txt is a sequence of records (whitespace-separated tokens, '#' comments):
 *   golden NAME / op OP / int KEY N v.. / real KEY N v.. / in KEY DTYPE RANK dims.. values.. /
 *   out KEY DTYPE RANK dims.. values.. / end
 * Integers are decimal, floats C99 hex floats or nan/inf/-inf. Inputs are exact values of their dtype;
 * expected float outputs are PyTorch's float64 result (make_golden.py's docstring has the details).
 * Each golden runs on every available device, with contiguous inputs and again with every input a strided
 * view (dims stored reversed, a gap between elements, a start offset). One line per golden and device;
 * a malformed record is a failure, never an abort. Exit 1 on any failure or when no golden ran. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

#define GT_MAX_TENSORS 5
#define GT_MAX_PARAMS 8
#define GT_MAX_NUMEL (1 << 22)
#define GT_PAD 3 /* start offset of strided views */

typedef struct gt_tensor {
    char key[16];
    wk_dtype dt;
    int rank;
    int64_t shape[WK_MAX_RANK];
    int64_t numel;
    int64_t *ints; /* integer dtypes */
    double *reals; /* float dtypes */
} gt_tensor;

typedef struct gt_param {
    char key[24];
    int n;
    bool real;
    int64_t i[4];
    double r[4];
} gt_param;

typedef struct golden {
    char name[128];
    char op[32];
    gt_param params[GT_MAX_PARAMS];
    int nparams;
    gt_tensor ins[GT_MAX_TENSORS];
    int nin;
    gt_tensor outs[2];
    int nout;
} golden;

/* Why the current golden failed (the first reason wins). */
typedef struct verdict {
    double err;
    bool failed;
    char msg[320];
} verdict;

static void fail(verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(verdict *v, const char *fmt, ...)
{
    if (v->failed)
        return;
    v->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- tokens */
typedef struct lexer {
    char *p;
    int line;
} lexer;

/* Comments become blanks first, so a token always ends at whitespace. */
static void strip_comments(char *s)
{
    for (bool in = false; *s; s++) {
        if (*s == '#')
            in = true;
        else if (*s == '\n')
            in = false;
        if (in)
            *s = ' ';
    }
}

static const char *next_token(lexer *lx)
{
    while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n') {
        if (*lx->p == '\n')
            lx->line++;
        lx->p++;
    }
    if (!*lx->p)
        return NULL;
    const char *t = lx->p;
    while (*lx->p && *lx->p != ' ' && *lx->p != '\t' && *lx->p != '\r' && *lx->p != '\n')
        lx->p++;
    if (*lx->p) {
        if (*lx->p == '\n')
            lx->line++;
        *lx->p++ = '\0';
    }
    return t;
}

static bool parse_int(const char *t, int64_t *v)
{
    if (!t)
        return false;
    char *end;
    errno = 0;
    long long x = strtoll(t, &end, 10);
    if (errno || end == t || *end)
        return false;
    *v = x;
    return true;
}

static bool parse_real(const char *t, double *v)
{
    if (!t)
        return false;
    if (!strcmp(t, "nan")) {
        *v = NAN;
        return true;
    }
    char *end;
    *v = strtod(t, &end);
    return end != t && !*end;
}

/* ---------------------------------------------------------------- records */
static void golden_free(golden *g)
{
    for (int i = 0; i < g->nin; i++) {
        free(g->ins[i].ints);
        free(g->ins[i].reals);
    }
    for (int i = 0; i < g->nout; i++) {
        free(g->outs[i].ints);
        free(g->outs[i].reals);
    }
    memset(g, 0, sizeof *g);
}

/* Whether v is a value of dt (inputs must be exact: the file is wrong otherwise). */
static bool representable(wk_dtype dt, double r, int64_t i)
{
    switch (dt) {
    case WK_U8: return i >= 0 && i <= UINT8_MAX;
    case WK_U32: return i >= 0 && i <= (int64_t)UINT32_MAX;
    case WK_I32: return i >= INT32_MIN && i <= INT32_MAX;
    case WK_I64: return true;
    case WK_F16: return isnan(r) || (double)wk_f16_to_f32(wk_f32_to_f16((float)r)) == r;
    case WK_BF16: return isnan(r) || (double)wk_bf16_to_f32(wk_f32_to_bf16((float)r)) == r;
    case WK_F32: return isnan(r) || (double)(float)r == r;
    default: return true;
    }
}

static bool parse_tensor(lexer *lx, gt_tensor *t, bool input, char *err, size_t cap)
{
    const char *key = next_token(lx), *dtn = next_token(lx);
    int64_t rank;
    if (!key || strlen(key) >= sizeof t->key || !dtn || wk_dtype_from_name(dtn, &t->dt) != WK_OK ||
        !parse_int(next_token(lx), &rank) || rank < 0 || rank > WK_MAX_RANK) {
        snprintf(err, cap, "line %d: bad tensor header", lx->line);
        return false;
    }
    strcpy(t->key, key);
    t->rank = (int)rank;
    t->numel = 1;
    for (int d = 0; d < t->rank; d++) {
        if (!parse_int(next_token(lx), &t->shape[d]) || t->shape[d] < 0 || t->shape[d] > GT_MAX_NUMEL) {
            snprintf(err, cap, "line %d: bad shape of '%s'", lx->line, key);
            return false;
        }
        t->numel *= t->shape[d];
        if (t->numel > GT_MAX_NUMEL) {
            snprintf(err, cap, "line %d: tensor '%s' too large", lx->line, key);
            return false;
        }
    }
    bool is_float = wk_dtype_is_float(t->dt);
    size_t n = (size_t)(t->numel ? t->numel : 1);
    if (is_float)
        t->reals = malloc(n * sizeof(double));
    else
        t->ints = malloc(n * sizeof(int64_t));
    if (!t->reals && !t->ints) {
        snprintf(err, cap, "out of memory");
        return false;
    }
    for (int64_t i = 0; i < t->numel; i++) {
        const char *tok = next_token(lx);
        double r = 0;
        int64_t iv = 0;
        bool ok = is_float ? parse_real(tok, &r) : parse_int(tok, &iv);
        if (!ok || (input && !representable(t->dt, r, iv)) || (!is_float && !representable(t->dt, 0, iv))) {
            snprintf(err, cap, "line %d: value %lld of '%s' ('%s') is not a %s value", lx->line, (long long)i,
                     key, tok ? tok : "end of file", dtn);
            return false;
        }
        if (is_float)
            t->reals[i] = r;
        else
            t->ints[i] = iv;
    }
    return true;
}

static bool parse_param(lexer *lx, gt_param *p, bool real, char *err, size_t cap)
{
    const char *key = next_token(lx);
    int64_t n;
    if (!key || strlen(key) >= sizeof p->key || !parse_int(next_token(lx), &n) || n < 1 || n > 4) {
        snprintf(err, cap, "line %d: bad parameter header", lx->line);
        return false;
    }
    strcpy(p->key, key);
    p->n = (int)n;
    p->real = real;
    for (int i = 0; i < p->n; i++) {
        bool ok = real ? parse_real(next_token(lx), &p->r[i]) : parse_int(next_token(lx), &p->i[i]);
        if (!ok) {
            snprintf(err, cap, "line %d: bad value of parameter '%s'", lx->line, key);
            return false;
        }
    }
    return true;
}

/* Reads one record after its "golden" token. On failure skips to the record's "end" so the next one can
 * still be read. */
static bool parse_record(lexer *lx, golden *g, char *err, size_t cap)
{
    const char *name = next_token(lx);
    if (!name || strlen(name) >= sizeof g->name) {
        snprintf(err, cap, "line %d: bad golden name", lx->line);
        return false;
    }
    strcpy(g->name, name);
    bool ok = true;
    const char *t;
    while (ok && (t = next_token(lx)) && strcmp(t, "end")) {
        if (!strcmp(t, "op")) {
            const char *op = next_token(lx);
            ok = op && strlen(op) < sizeof g->op;
            if (ok)
                strcpy(g->op, op);
            else
                snprintf(err, cap, "line %d: bad op", lx->line);
        } else if (!strcmp(t, "int") || !strcmp(t, "real")) {
            ok = g->nparams < GT_MAX_PARAMS;
            if (!ok)
                snprintf(err, cap, "line %d: too many parameters", lx->line);
            else
                ok = parse_param(lx, &g->params[g->nparams++], t[0] == 'r', err, cap);
        } else if (!strcmp(t, "in") || !strcmp(t, "out")) {
            bool in = t[0] == 'i';
            int *n = in ? &g->nin : &g->nout;
            ok = *n < (in ? GT_MAX_TENSORS : 2);
            if (!ok)
                snprintf(err, cap, "line %d: too many tensors", lx->line);
            else
                ok = parse_tensor(lx, in ? &g->ins[(*n)++] : &g->outs[(*n)++], in, err, cap);
        } else {
            snprintf(err, cap, "line %d: unexpected '%s'", lx->line, t);
            ok = false;
        }
    }
    if (ok && !t) {
        snprintf(err, cap, "line %d: end of file inside the record", lx->line);
        return false;
    }
    if (ok && (!g->op[0] || g->nout == 0)) {
        snprintf(err, cap, "line %d: record without op or expected output", lx->line);
        return false;
    }
    if (!ok)
        while ((t = next_token(lx)) && strcmp(t, "end"))
            ;
    return ok;
}

/* ---------------------------------------------------------------- parameters and inputs by key */
static const gt_param *param(const golden *g, const char *key, int n, bool real, verdict *v)
{
    for (int i = 0; i < g->nparams; i++)
        if (!strcmp(g->params[i].key, key) && g->params[i].n >= n && g->params[i].real == real)
            return &g->params[i];
    fail(v, "malformed: parameter '%s' (%d values) missing", key, n);
    return NULL;
}

static int64_t iparam(const golden *g, const char *key, int idx, verdict *v)
{
    const gt_param *p = param(g, key, idx + 1, false, v);
    return p ? p->i[idx] : 0;
}

/* The tensors of a run: inputs as built on the device, outputs as returned. */
typedef struct run_ctx {
    const golden *g;
    wk_tensor *in[GT_MAX_TENSORS];
    wk_tensor *out[2];
    int inplace_target; /* index of an input changed in place (-1: none) */
} run_ctx;

static wk_tensor *input(run_ctx *c, const char *key, bool required, verdict *v)
{
    for (int i = 0; i < c->g->nin; i++)
        if (!strcmp(c->g->ins[i].key, key))
            return c->in[i];
    if (required)
        fail(v, "malformed: input '%s' missing", key);
    return NULL;
}

/* ---------------------------------------------------------------- ops */
static wk_status run_conv(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    bool two_d = strstr(g->op, "2d") != NULL, tr = strstr(g->op, "transpose") != NULL;
    wk_conv_params p = wk_conv_params_default();
    for (int a = 0; a < (two_d ? 2 : 1); a++) {
        p.stride[a] = iparam(g, "stride", a, v);
        p.padding[a] = iparam(g, "padding", a, v);
        p.dilation[a] = iparam(g, "dilation", a, v);
        if (tr)
            p.output_padding[a] = iparam(g, "output_padding", a, v);
    }
    p.groups = iparam(g, "groups", 0, v);
    wk_tensor *x = input(c, "x", true, v), *w = input(c, "w", true, v), *b = input(c, "bias", false, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (tr)
        return (two_d ? wk_conv_transpose2d : wk_conv_transpose1d)(x, w, b, &p, &c->out[0]);
    return (two_d ? wk_conv2d : wk_conv1d)(x, w, b, &p, &c->out[0]);
}

static wk_status run_pool(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    bool avg = !strcmp(g->op, "avg_pool2d");
    wk_pool_params p = {.ceil_mode = iparam(g, "ceil_mode", 0, v) != 0,
                        .count_include_pad = avg && iparam(g, "count_include_pad", 0, v) != 0};
    for (int a = 0; a < 2; a++) {
        p.kernel[a] = iparam(g, "kernel", a, v);
        p.stride[a] = iparam(g, "stride", a, v);
        p.padding[a] = iparam(g, "padding", a, v);
    }
    wk_tensor *x = input(c, "x", true, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    return (avg ? wk_avg_pool2d : wk_max_pool2d)(x, &p, &c->out[0]);
}

static wk_status run_upsample(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    if (!strcmp(g->op, "upsample_nearest1d")) {
        int64_t l = iparam(g, "size", 0, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_upsample_nearest1d(x, l, &c->out[0]);
    }
    int64_t h = iparam(g, "size", 0, v), w = iparam(g, "size", 1, v);
    if (!strcmp(g->op, "upsample_nearest2d"))
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_upsample_nearest2d(x, h, w, &c->out[0]);
    bool ac = iparam(g, "align_corners", 0, v) != 0;
    const gt_param *s = param(g, "scale", 2, true, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    return wk_upsample_bilinear2d(x, h, w, ac, s->r[0], s->r[1], &c->out[0]);
}

static wk_status run_index(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    int dim = (int)iparam(g, "dim", 0, v);
    wk_tensor *x = input(c, "x", true, v), *ids = input(c, "ids", true, v);
    if (!strcmp(g->op, "gather"))
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_gather(x, dim, ids, &c->out[0]);
    if (!strcmp(g->op, "index_select"))
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_index_select(x, dim, ids, &c->out[0]);
    wk_tensor *src = input(c, "src", true, v);
    bool inplace = iparam(g, "inplace", 0, v) != 0;
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    wk_status (*copying)(const wk_tensor *, int, const wk_tensor *, const wk_tensor *, wk_tensor **) =
        !strcmp(g->op, "scatter") ? wk_scatter : !strcmp(g->op, "scatter_add") ? wk_scatter_add : wk_index_add;
    wk_status (*in_place)(wk_tensor *, int, const wk_tensor *, const wk_tensor *) =
        !strcmp(g->op, "scatter") ? wk_scatter_inplace
        : !strcmp(g->op, "scatter_add") ? wk_scatter_add_inplace : wk_index_add_inplace;
    if (!inplace)
        return copying(x, dim, ids, src, &c->out[0]);
    wk_status s = in_place(x, dim, ids, src);
    if (s == WK_OK) {
        wk_tensor_retain(x);
        c->out[0] = x;
        for (int i = 0; i < g->nin; i++)
            if (c->in[i] == x)
                c->inplace_target = i;
    }
    return s;
}

static wk_status run_order(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    if (!strcmp(g->op, "sort") || !strcmp(g->op, "argsort")) {
        bool desc = iparam(g, "descending", 0, v) != 0;
        if (v->failed)
            return WK_ERR_INVALID_ARGUMENT;
        if (!strcmp(g->op, "argsort"))
            return wk_argsort(x, desc, &c->out[0]);
        return wk_sort(x, desc, &c->out[0], &c->out[1]);
    }
    int dim = (int)iparam(g, "dim", 0, v);
    if (!strcmp(g->op, "topk")) {
        int64_t k = iparam(g, "k", 0, v);
        bool largest = iparam(g, "largest", 0, v) != 0;
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_topk(x, k, dim, largest, true, &c->out[0], &c->out[1]);
    }
    bool keep = iparam(g, "keepdim", 0, v) != 0;
    if (!strcmp(g->op, "kthvalue")) {
        int64_t k = iparam(g, "k", 0, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_kthvalue(x, k, dim, keep, &c->out[0], &c->out[1]);
    }
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (!strcmp(g->op, "median"))
        return wk_median(x, dim, keep, &c->out[0], &c->out[1]);
    return (!strcmp(g->op, "argmax") ? wk_argmax : wk_argmin)(x, dim, keep, &c->out[0]);
}

static wk_status run_pointwise(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (!strcmp(g->op, "round"))
        return wk_unary(WK_UNARY_ROUND, x, &c->out[0]);
    if (!strcmp(g->op, "cast"))
        return wk_cast(x, g->outs[0].dt, &c->out[0]);
    if (!strcmp(g->op, "softmax"))
        return wk_softmax_last_dim(x, &c->out[0]);
    return wk_log_softmax_last_dim(x, &c->out[0]);
}

/* pad (mode, pad0..pad2: (left, right) of the last dim, then the dims before, value), flip (dims), roll (shifts,
 * dims; none: flattened), repeat (repeats), repeat_interleave (dim; repeats, or an input 'counts'), one_hot
 * (classes). */
static wk_status run_reorder(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (!strcmp(g->op, "pad")) {
        int64_t pads[6];
        int npads = 0;
        static const char *const keys[3] = {"pad0", "pad1", "pad2"};
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < g->nparams; i++)
                if (!strcmp(g->params[i].key, keys[k]) && g->params[i].n == 2 && !g->params[i].real) {
                    pads[npads++] = g->params[i].i[0];
                    pads[npads++] = g->params[i].i[1];
                }
        int mode = (int)iparam(g, "mode", 0, v);
        const gt_param *value = param(g, "value", 1, true, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT
                         : wk_pad(x, pads, npads, (wk_pad_mode)mode, value->r[0], &c->out[0]);
    }
    if (!strcmp(g->op, "one_hot")) {
        int64_t classes = iparam(g, "classes", 0, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_one_hot(x, classes, &c->out[0]);
    }
    if (!strcmp(g->op, "repeat_interleave")) {
        int dim = (int)iparam(g, "dim", 0, v);
        wk_tensor *counts = input(c, "counts", false, v);
        if (counts)
            return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_repeat_interleave_tensor(x, counts, dim, &c->out[0]);
        int64_t r = iparam(g, "repeats", 0, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_repeat_interleave(x, r, dim, &c->out[0]);
    }
    const gt_param *a = param(g, !strcmp(g->op, "flip") ? "dims" : !strcmp(g->op, "roll") ? "shifts" : "repeats",
                              1, false, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    int dims[4];
    for (int i = 0; i < a->n; i++)
        dims[i] = (int)a->i[i];
    if (!strcmp(g->op, "flip"))
        return wk_flip(x, dims, a->n, &c->out[0]);
    if (!strcmp(g->op, "repeat"))
        return wk_repeat(x, a->i, a->n, &c->out[0]);
    bool flat = false; /* roll's records carry either dims or flat 1 (no dims: over the flattened tensor) */
    for (int i = 0; i < g->nparams; i++)
        flat |= !strcmp(g->params[i].key, "flat") && g->params[i].n == 1 && g->params[i].i[0] != 0;
    const gt_param *d = flat ? NULL : param(g, "dims", a->n, false, v);
    for (int i = 0; d && i < a->n; i++)
        dims[i] = (int)d->i[i];
    return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_roll(x, a->i, flat ? NULL : dims, a->n, &c->out[0]);
}

/* The activations (wk_unary's, glu's kinds, leaky_relu) of x. */
static wk_status run_activation(run_ctx *c, verdict *v)
{
    static const struct { const char *name; wk_unary_op op; } unary[] = {
        {"softplus", WK_UNARY_SOFTPLUS}, {"mish", WK_UNARY_MISH}, {"hardswish", WK_UNARY_HARDSWISH},
        {"hardsigmoid", WK_UNARY_HARDSIGMOID}};
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++)
        if (!strcmp(g->op, unary[i].name))
            return wk_unary(unary[i].op, x, &c->out[0]);
    for (int k = 0; k < WK_GLU_COUNT; k++)
        if (!strcmp(g->op, wk_glu_name((wk_glu_kind)k)))
            return wk_glu((wk_glu_kind)k, x, &c->out[0]);
    const gt_param *s = param(g, "negative_slope", 1, true, v);
    return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_leaky_relu(x, s->r[0], &c->out[0]);
}

static wk_status run_mask(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    if (!strcmp(g->op, "masked_fill")) {
        wk_tensor *m = input(c, "mask", true, v);
        const gt_param *s = param(g, "value", 1, true, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_masked_fill(x, m, s->r[0], &c->out[0]);
    }
    int64_t d = iparam(g, "diagonal", 0, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    return (!strcmp(g->op, "tril") ? wk_tril : wk_triu)(x, d, &c->out[0]);
}

/* var, std (unbiased), logsumexp, norm (p) over 'dims' (or 'all': every dim), keepdim. */
static wk_status run_stats(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    int dims[4], nd = 0;
    for (int i = 0; i < g->nparams; i++)
        if (!strcmp(g->params[i].key, "dims") && !g->params[i].real)
            for (nd = 0; nd < g->params[i].n; nd++)
                dims[nd] = (int)g->params[i].i[nd];
    bool keep = iparam(g, "keepdim", 0, v) != 0;
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (!strcmp(g->op, "logsumexp"))
        return wk_logsumexp(x, dims, nd, keep, &c->out[0]);
    if (!strcmp(g->op, "norm")) {
        const gt_param *p = param(g, "p", 1, true, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_norm(x, p->r[0], dims, nd, keep, &c->out[0]);
    }
    bool unbiased = iparam(g, "unbiased", 0, v) != 0;
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    return (!strcmp(g->op, "var") ? wk_var : wk_std)(x, dims, nd, unbiased, keep, &c->out[0]);
}

/* layer_norm_dims (k), batch_norm (inputs mean, var), group_norm (groups); eps; optional inputs w and b. */
static wk_status run_norm_layer(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v), *w = input(c, "w", false, v), *b = input(c, "b", false, v);
    const gt_param *eps = param(g, "eps", 1, true, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (!strcmp(g->op, "batch_norm")) {
        wk_tensor *mean = input(c, "mean", true, v), *var = input(c, "var", true, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_batch_norm(x, mean, var, w, b, eps->r[0], &c->out[0]);
    }
    if (!strcmp(g->op, "group_norm")) {
        int64_t groups = iparam(g, "groups", 0, v);
        return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_group_norm(x, groups, w, b, eps->r[0], &c->out[0]);
    }
    int k = (int)iparam(g, "k", 0, v);
    return v->failed ? WK_ERR_INVALID_ARGUMENT : wk_layer_norm_dims(x, k, w, b, eps->r[0], &c->out[0]);
}

/* cumsum, cumprod, logcumsumexp along dim. */
static wk_status run_scan(run_ctx *c, verdict *v)
{
    const golden *g = c->g;
    wk_tensor *x = input(c, "x", true, v);
    int dim = (int)iparam(g, "dim", 0, v);
    if (v->failed)
        return WK_ERR_INVALID_ARGUMENT;
    if (!strcmp(g->op, "cumsum"))
        return wk_cumsum(x, dim, &c->out[0]);
    return (!strcmp(g->op, "cumprod") ? wk_cumprod : wk_logcumsumexp)(x, dim, &c->out[0]);
}

/* exact: the op only moves or converts values, so float outputs must match bit for bit (sign of zero too).
 * f32_tol: the f32 relative L2 tolerance of the others (README.md, "Parity tolerance"). */
typedef struct op_entry {
    const char *name;
    wk_status (*run)(run_ctx *c, verdict *v);
    bool exact;
    double f32_tol;
} op_entry;

static const op_entry OPS[] = {
    {"conv1d", run_conv, false, 1e-5},           {"conv2d", run_conv, false, 1e-5},
    {"conv_transpose1d", run_conv, false, 1e-5}, {"conv_transpose2d", run_conv, false, 1e-5},
    {"max_pool2d", run_pool, true, 0},           {"avg_pool2d", run_pool, false, 1e-6},
    {"upsample_nearest1d", run_upsample, true, 0}, {"upsample_nearest2d", run_upsample, true, 0},
    {"upsample_bilinear2d", run_upsample, false, 1e-6},
    {"gather", run_index, true, 0},              {"index_select", run_index, true, 0},
    {"scatter", run_index, true, 0},             {"scatter_add", run_index, false, 1e-6},
    {"index_add", run_index, false, 1e-6},
    {"sort", run_order, true, 0},                {"argsort", run_order, true, 0},
    {"argmax", run_order, true, 0},              {"argmin", run_order, true, 0},
    {"topk", run_order, true, 0},                {"kthvalue", run_order, true, 0},
    {"median", run_order, true, 0},
    {"round", run_pointwise, true, 0},           {"cast", run_pointwise, true, 0},
    {"softmax", run_pointwise, false, 1e-6},     {"log_softmax", run_pointwise, false, 1e-6},
    {"pad", run_reorder, true, 0},               {"flip", run_reorder, true, 0},
    {"roll", run_reorder, true, 0},              {"repeat", run_reorder, true, 0},
    {"repeat_interleave", run_reorder, true, 0}, {"one_hot", run_reorder, true, 0},
    {"softplus", run_activation, false, 1e-6},   {"mish", run_activation, false, 1e-6},
    {"hardswish", run_activation, false, 1e-6},  {"hardsigmoid", run_activation, false, 1e-6},
    {"leaky_relu", run_activation, false, 1e-6}, {"glu", run_activation, false, 1e-6},
    {"swiglu", run_activation, false, 1e-6},     {"geglu", run_activation, false, 1e-6},
    {"geglu_tanh", run_activation, false, 1e-6},
    {"tril", run_mask, true, 0},                 {"triu", run_mask, true, 0},
    {"masked_fill", run_mask, true, 0},
    {"var", run_stats, false, 1e-6},             {"std", run_stats, false, 1e-6},
    {"logsumexp", run_stats, false, 1e-6},       {"norm", run_stats, false, 1e-6},
    {"layer_norm_dims", run_norm_layer, false, 1e-6}, {"batch_norm", run_norm_layer, false, 1e-6},
    {"group_norm", run_norm_layer, false, 1e-6},
    {"cumsum", run_scan, false, 1e-6},           {"cumprod", run_scan, false, 1e-6},
    {"logcumsumexp", run_scan, false, 1e-6},
};

static double tolerance(const op_entry *op, wk_dtype dt)
{
    switch (dt) {
    case WK_F64: return 1e-12;
    case WK_F32: return op->f32_tol;
    case WK_F16: return 2e-3;
    case WK_BF16: return 1e-2;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- host <-> device */
static void put(wk_dtype dt, void *buf, int64_t pos, const gt_tensor *t, int64_t i)
{
    switch (dt) {
    case WK_U8: ((uint8_t *)buf)[pos] = (uint8_t)t->ints[i]; break;
    case WK_U32: ((uint32_t *)buf)[pos] = (uint32_t)t->ints[i]; break;
    case WK_I32: ((int32_t *)buf)[pos] = (int32_t)t->ints[i]; break;
    case WK_I64: ((int64_t *)buf)[pos] = t->ints[i]; break;
    case WK_F16: ((uint16_t *)buf)[pos] = wk_f32_to_f16((float)t->reals[i]); break;
    case WK_BF16: ((uint16_t *)buf)[pos] = wk_f32_to_bf16((float)t->reals[i]); break;
    case WK_F32: ((float *)buf)[pos] = (float)t->reals[i]; break;
    case WK_F64: ((double *)buf)[pos] = t->reals[i]; break;
    default: break; /* the block-quantized dtypes have no element values */
    }
}

/* Element i of a host buffer of dt, as an integer (int dtypes) or a double (floats). */
static void get(wk_dtype dt, const void *buf, int64_t i, int64_t *iv, double *rv)
{
    switch (dt) {
    case WK_U8: *iv = ((const uint8_t *)buf)[i]; break;
    case WK_U32: *iv = ((const uint32_t *)buf)[i]; break;
    case WK_I32: *iv = ((const int32_t *)buf)[i]; break;
    case WK_I64: *iv = ((const int64_t *)buf)[i]; break;
    case WK_F16: *rv = wk_f16_to_f32(((const uint16_t *)buf)[i]); break;
    case WK_BF16: *rv = wk_bf16_to_f32(((const uint16_t *)buf)[i]); break;
    case WK_F32: *rv = ((const float *)buf)[i]; break;
    case WK_F64: *rv = ((const double *)buf)[i]; break;
    default: break; /* the block-quantized dtypes have no element values */
    }
}

/* Builds t on dev: contiguous, or (strided) a view whose dim 0 varies fastest, with a gap after every
 * element and a start offset, so no kernel can mistake it for a contiguous tensor. */
static wk_status make_input(wk_device *dev, const gt_tensor *t, bool strided, wk_tensor **out)
{
    size_t es = wk_dtype_size(t->dt);
    int64_t strides[WK_MAX_RANK], n_store = strided ? GT_PAD + 2 * t->numel : t->numel, step = 2;
    for (int d = 0; d < t->rank; d++) {
        strides[d] = step;
        step *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
    void *buf = calloc((size_t)(n_store ? n_store : 1), es);
    if (!buf)
        return WK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t pos = strided ? GT_PAD : i, rest = i;
        for (int d = t->rank - 1; strided && d >= 0; d--) {
            pos += rest % t->shape[d] * strides[d];
            rest /= t->shape[d];
        }
        put(t->dt, buf, pos, t, i);
    }
    wk_status s;
    if (!strided) {
        s = wk_tensor_from_host(dev, t->dt, t->rank, t->shape, buf, out);
    } else {
        wk_tensor *base = NULL;
        s = wk_tensor_from_host(dev, t->dt, 1, &n_store, buf, &base);
        if (s == WK_OK)
            s = wk_as_strided(base, t->rank, t->shape, strides, GT_PAD, out);
        wk_tensor_release(base);
    }
    free(buf);
    return s;
}

/* Compares tensor got (on any device) with the expected t; exact or within tol (relative L2). */
static void compare(const wk_tensor *got, const gt_tensor *t, bool exact, double tol, const char *what,
                    verdict *v)
{
    if (wk_tensor_dtype(got) != t->dt || wk_tensor_rank(got) != t->rank ||
        memcmp(wk_tensor_shape(got), t->shape, (size_t)t->rank * sizeof(int64_t))) {
        fail(v, "%s '%s': got %s rank %d, want %s rank %d (or a different shape)", what, t->key,
             wk_dtype_name(wk_tensor_dtype(got)), wk_tensor_rank(got), wk_dtype_name(t->dt), t->rank);
        v->err = INFINITY;
        return;
    }
    size_t bytes = (size_t)t->numel * wk_dtype_size(t->dt);
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf || wk_tensor_to_host(got, buf, bytes) != WK_OK) {
        fail(v, "%s '%s': cannot read back: %s", what, t->key, buf ? wk_last_error() : "out of memory");
        v->err = INFINITY;
        free(buf);
        return;
    }
    bool is_float = wk_dtype_is_float(t->dt);
    double num = 0, den = 0, maxabs = 0;
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t gi = 0;
        double g = 0;
        get(t->dt, buf, i, &gi, &g);
        if (!is_float) {
            if (gi != t->ints[i]) {
                fail(v, "%s '%s' element %lld: got %lld, want %lld", what, t->key, (long long)i, (long long)gi,
                     (long long)t->ints[i]);
                v->err = INFINITY;
            }
            continue;
        }
        double w = t->reals[i];
        bool nonfinite = !isfinite(w) || !isfinite(g);
        bool same = (isnan(w) && isnan(g)) || (g == w && signbit(g) == signbit(w));
        if ((nonfinite || exact) && !same) {
            fail(v, "%s '%s' element %lld: got %a (%.9g), want %a (%.9g)%s", what, t->key, (long long)i, g, g, w,
                 w, exact ? ", must be exact" : ", NaN/inf placement");
            v->err = INFINITY;
        }
        if (nonfinite || exact)
            continue;
        num += (g - w) * (g - w);
        den += w * w;
        if (fabs(g - w) > maxabs)
            maxabs = fabs(g - w);
    }
    free(buf);
    if (is_float && !exact) {
        double err = den > 0 ? sqrt(num / den) : sqrt(num);
        if (err > v->err)
            v->err = err;
        if (!(err <= tol))
            fail(v, "%s '%s': relative L2 error %.3g above %.3g (max abs error %.3g)", what, t->key, err, tol,
                 maxabs);
    }
}

/* One golden on one device in one layout. */
static void run_golden(const golden *g, const op_entry *op, wk_device *dev, bool strided, verdict *v)
{
    const char *layout = strided ? "strided" : "contig";
    run_ctx c = {.g = g, .inplace_target = -1};
    for (int i = 0; i < g->nin && !v->failed; i++)
        if (make_input(dev, &g->ins[i], strided, &c.in[i]) != WK_OK)
            fail(v, "%s: cannot make input '%s': %s", layout, g->ins[i].key, wk_last_error());
    if (!v->failed) {
        wk_status s = op->run(&c, v);
        if (s != WK_OK && !v->failed)
            fail(v, "%s: %s: %s", layout, wk_status_string(s), wk_last_error());
        if (s != WK_OK)
            v->err = INFINITY;
    }
    for (int o = 0; o < g->nout && !v->failed; o++) {
        if (!c.out[o])
            fail(v, "%s: no output '%s'", layout, g->outs[o].key);
        else
            compare(c.out[o], &g->outs[o], op->exact, tolerance(op, g->outs[o].dt), layout, v);
    }
    /* inputs of a copying op must come back unchanged */
    for (int i = 0; i < g->nin && !v->failed; i++)
        if (i != c.inplace_target && c.in[i])
            compare(c.in[i], &g->ins[i], true, 0, strided ? "strided input" : "contig input", v);
    for (int i = 0; i < g->nin; i++)
        wk_tensor_release(c.in[i]);
    for (int o = 0; o < 2; o++)
        wk_tensor_release(c.out[o]);
}

/* ---------------------------------------------------------------- driver */
typedef struct tally {
    int passed, failed;
    wk_device *devs[16];
    char dev_names[16][32];
    int ndev;
} tally;

static void report(tally *tl, const char *name, const char *dev, const verdict *v)
{
    printf("%-52s %-7s err %-9.3g %s\n", name, dev, v->err, v->failed ? "FAIL" : "PASS");
    if (v->failed)
        printf("    %s\n", v->msg);
    if (v->failed)
        tl->failed++;
    else
        tl->passed++;
}

static void run_file(const char *path, tally *tl)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len) {
        text[len] = '\0';
    } else {
        verdict v = {.failed = true, .err = INFINITY};
        snprintf(v.msg, sizeof v.msg, "cannot read %s", path);
        report(tl, path, "-", &v);
        free(text);
        if (f)
            fclose(f);
        return;
    }
    fclose(f);
    if (strlen(text) != (size_t)len) {
        verdict v = {.failed = true, .err = INFINITY};
        snprintf(v.msg, sizeof v.msg, "%s holds a NUL byte", path);
        report(tl, path, "-", &v);
        free(text);
        return;
    }
    strip_comments(text);
    lexer lx = {.p = text, .line = 1};
    const char *t;
    while ((t = next_token(&lx))) {
        golden g = {0};
        verdict v = {0};
        char err[256] = "";
        if (strcmp(t, "golden")) {
            snprintf(v.msg, sizeof v.msg, "malformed %s line %d: expected 'golden', found '%s'", path, lx.line, t);
            v.failed = true;
            v.err = INFINITY;
            report(tl, path, "-", &v);
            while ((t = next_token(&lx)) && strcmp(t, "end"))
                ;
            continue;
        }
        if (!parse_record(&lx, &g, err, sizeof err)) {
            snprintf(v.msg, sizeof v.msg, "malformed %s %s", path, err);
            v.failed = true;
            v.err = INFINITY;
            report(tl, g.name[0] ? g.name : path, "-", &v);
            golden_free(&g);
            continue;
        }
        const op_entry *op = NULL;
        for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
            if (!strcmp(OPS[i].name, g.op))
                op = &OPS[i];
        for (int d = 0; d < tl->ndev; d++) {
            verdict dv = {0};
            if (!op) {
                fail(&dv, "malformed: unknown op '%s'", g.op);
                dv.err = INFINITY;
            } else {
                run_golden(&g, op, tl->devs[d], false, &dv);
                run_golden(&g, op, tl->devs[d], true, &dv);
            }
            report(tl, g.name, tl->dev_names[d], &dv);
        }
        golden_free(&g);
    }
    free(text);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every available device of every backend. */
static void open_devices(tally *tl)
{
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        if (wk_backend_info_get(b, &info) != WK_OK || !info.available)
            continue;
        for (int d = 0; d < info.device_count && tl->ndev < 16; d++) {
            char *name = tl->dev_names[tl->ndev];
            snprintf(name, sizeof tl->dev_names[0], strcmp(info.name, "cpu") ? "%s:%d" : "%s", info.name, d);
            if (wk_device_get(name, &tl->devs[tl->ndev]) == WK_OK)
                tl->ndev++;
            else
                printf("cannot open device %s: %s\n", name, wk_last_error());
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("WICK_POISON", "1", 1); /* new allocations start as NaN / all-ones: unwritten outputs fail */
    tally tl = {0};
    open_devices(&tl);
    DIR *dir = opendir(argv[1]);
    if (!dir || tl.ndev == 0) {
        printf("cannot open %s\n0 passed, 1 failed\n", dir ? "any device" : argv[1]);
        if (dir)
            closedir(dir);
        return 1;
    }
    char **files = NULL;
    size_t nfiles = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".txt"))
            continue;
        char **grown = realloc(files, (nfiles + 1) * sizeof *files);
        char *path = malloc(strlen(argv[1]) + n + 2);
        if (!grown || !path) {
            free(path);
            files = grown ? grown : files;
            tl.failed++;
            break;
        }
        files = grown;
        sprintf(path, "%s/%s", argv[1], e->d_name);
        files[nfiles++] = path;
    }
    closedir(dir);
    qsort(files, nfiles, sizeof *files, by_name);
    for (size_t i = 0; i < nfiles; i++) {
        run_file(files[i], &tl);
        free(files[i]);
    }
    free(files);
    printf("%d passed, %d failed\n", tl.passed, tl.failed);
    return tl.failed || tl.passed == 0 ? 1 : 0;
}

/* linear.c: wk_linear, a linear layer with the norm before it and the bias, rotary embedding, gated unit and residual
 * after it: every operand checked once here, then the backend's linear slot where it fuses the call (GPUs: one row
 * of x, the whole epilogue; the CPU: f32, bias and residual added by the GEMM), else the steps as the separate ops
 * (wk_rms_norm, wk_matmul or wk_matmul_q, wk_binary, wk_rope or wk_rope_i, wk_glu).
 * WICK_LINEAR_FUSED=0 never calls the slot (for comparisons). */
#include <math.h>
#include <string.h>

#include "core/env.h"
#include "ops/common.h"

/* A 1-D parameter (norm, bias) of n elements on x's device, in x's dtype; NULL passes. */
static wk_status check_vector(const char *op, const char *name, const wk_tensor *x, const wk_tensor *t, int64_t n)
{
    char b1[200];
    if (!t)
        return WK_OK;
    WK_TRY(wk_check_tensor(op, name, t));
    WK_TRY(wk_check_same_device(op, x, t));
    WK_TRY(wk_check_same_dtype(op, x, t));
    if (t->rank != 1 || t->shape[0] != n)
        return wk_error(WK_ERR_SHAPE, "%s: %s must be 1-D of %lld elements, got %s", op, name, (long long)n,
                        wk_describe(b1, sizeof b1, t));
    return WK_OK;
}

/* x and w as wk_matmul_q checks them (a float w of x's dtype too), the gated unit; the output's shape into shape. */
static wk_status check_operands(const char *op, const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p,
                                int64_t *shape)
{
    char b1[200];
    WK_TRY(wk_check_linear_operands(op, x, w, true));
    int64_t N = w->shape[0];
    if (p->glu && ((unsigned)p->glu_kind >= WK_GLU_COUNT))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: glu_kind %d is not a wk_glu_kind", op, (int)p->glu_kind);
    if (p->glu && N % 2 != 0)
        return wk_error(WK_ERR_SHAPE, "%s: glu needs an even count of w's rows, got %s", op,
                        wk_describe(b1, sizeof b1, w));
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    shape[x->rank - 1] = p->glu ? N / 2 : N;
    return WK_OK;
}

/* x's tokens: its second-to-last dim (1 for a 1-D x), the rows of the rope tables. */
static int64_t tokens(const wk_tensor *x) { return x->rank >= 2 ? x->shape[x->rank - 2] : 1; }

/* The rope tables (T, D/2) of x's dtype on x's device, and rope_cols (0: all N) a multiple of D within N. */
static wk_status check_rope(const char *op, const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p)
{
    char b1[200];
    if (!p->rope_cos && !p->rope_sin)
        return WK_OK;
    if (!p->rope_cos || !p->rope_sin)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: rope needs both rope_cos and rope_sin", op);
    if (p->glu)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: rope and glu do not go together", op);
    const wk_tensor *t[2] = {p->rope_cos, p->rope_sin};
    const char *names[2] = {"rope_cos", "rope_sin"};
    for (int i = 0; i < 2; i++) {
        WK_TRY(wk_check_tensor(op, names[i], t[i]));
        WK_TRY(wk_check_same_device(op, x, t[i]));
        WK_TRY(wk_check_same_dtype(op, x, t[i]));
        if (t[i]->rank != 2 || t[i]->shape[0] != tokens(x) || t[i]->shape[1] < 1 ||
            t[i]->shape[1] != p->rope_cos->shape[1])
            return wk_error(WK_ERR_SHAPE, "%s: %s must be (T, D/2) with T = %lld (x's tokens), got %s", op, names[i],
                            (long long)tokens(x), wk_describe(b1, sizeof b1, t[i]));
    }
    int64_t D = 2 * p->rope_cos->shape[1], N = w->shape[0];
    if (p->rope_cols < 0 || p->rope_cols > N || p->rope_cols % D != 0)
        return wk_error(WK_ERR_SHAPE, "%s: rope_cols %lld must be a multiple of the head dim %lld within N = %lld", op,
                        (long long)p->rope_cols, (long long)D, (long long)N);
    if (p->rope_cols == 0 && N % D != 0)
        return wk_error(WK_ERR_SHAPE, "%s: rope over all %lld columns needs a multiple of the head dim %lld", op,
                        (long long)N, (long long)D);
    return WK_OK;
}

static wk_status check(const char *op, const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p,
                       int64_t *shape)
{
    char b1[200];
    WK_TRY(check_operands(op, x, w, p, shape));
    WK_TRY(check_rope(op, x, w, p));
    if (p->norm && (!(p->eps >= 0) || isinf(p->eps)))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: eps must be finite and >= 0, got %g", op, p->eps);
    WK_TRY(check_vector(op, "norm", x, p->norm, w->shape[1]));
    WK_TRY(check_vector(op, "bias", x, p->bias, w->shape[0]));
    const wk_tensor *r = p->residual;
    if (!r)
        return WK_OK;
    WK_TRY(wk_check_tensor(op, "residual", r));
    WK_TRY(wk_check_same_device(op, x, r));
    WK_TRY(wk_check_same_dtype(op, x, r));
    if (r->rank != x->rank || memcmp(r->shape, shape, sizeof(int64_t) * (size_t)x->rank) != 0)
        return wk_error(WK_ERR_SHAPE, "%s: residual %s must have the output's shape", op,
                        wk_describe(b1, sizeof b1, r));
    return WK_OK;
}

static bool unit_vector(const wk_tensor *t) { return !t || t->strides[0] == 1; }

/* Whether the call has the form the backend's fused slot takes: the slot present (and not turned off by
 * WICK_LINEAR_FUSED=0), every operand laid out as the slot's rules say (backend.h wk_linear_job). */
static bool fusable(const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p)
{
    static atomic_int state;
    int64_t N = w->shape[0], K = w->shape[1];
    int64_t rows = K > 0 ? wk_tensor_numel(x) / K : 0, max_rows = wk_be(x)->linear_max_rows;
    if (!wk_be(x)->linear || N == 0 || K == 0 || (max_rows > 0 && rows > max_rows) ||
        !wk_env_on("WICK_LINEAR_FUSED", &state))
        return false;
    if (!wk_tensor_is_contiguous(x) || !unit_vector(p->norm) || !unit_vector(p->bias) ||
        (p->residual && !wk_tensor_is_contiguous(p->residual)))
        return false;
    if (p->rope_cos && (p->rope_cos->strides[1] != 1 || p->rope_sin->strides[1] != 1 ||
                        N % (2 * p->rope_cos->shape[1]) != 0))
        return false; /* the slot pairs every head's rows alike: whole heads */
    return wk_dtype_is_quantized(w->dtype) ? wk_tensor_is_contiguous(w) : w->strides[1] == 1 && w->strides[0] >= K;
}

/* The backend's fused slot on (M, K) and (M, N') views of x, out (res) and the residual; WK_ERR_UNSUPPORTED where
 * the backend does not take the call after all. */
static wk_status fused(const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p, wk_tensor *res)
{
    int64_t K = w->shape[1], M = wk_tensor_numel(x) / K, n = res->shape[res->rank - 1], xs[2] = {M, K},
            xst[2] = {K, 1}, os[2] = {M, n}, ost[2] = {n, 1};
    wk_tensor *x2 = NULL, *o2 = NULL, *r2 = NULL;
    wk_status s = wk_tensor_view(x, 2, xs, xst, x->offset, &x2);
    if (s == WK_OK)
        s = wk_tensor_view(res, 2, os, ost, res->offset, &o2);
    if (s == WK_OK && p->residual)
        s = wk_tensor_view(p->residual, 2, os, ost, p->residual->offset, &r2);
    if (s == WK_OK) {
        wk_linear_job j = {.x = x2, .w = w, .norm = p->norm, .bias = p->bias, .residual = r2, .out = o2,
                           .eps = p->eps, .glu = p->glu, .glu_kind = p->glu_kind, .rope_cos = p->rope_cos,
                           .rope_sin = p->rope_sin, .rope_interleaved = p->rope_interleaved,
                           .rope_cols = p->rope_cols};
        s = wk_be(x)->linear(&j);
    }
    wk_tensor_release(x2), wk_tensor_release(o2), wk_tensor_release(r2);
    return s;
}

/* h (M, K) @ w^T: wk_matmul_q, or wk_matmul with w's transposed view. */
static wk_status product(const wk_tensor *h, const wk_tensor *w, wk_tensor **y)
{
    if (wk_dtype_is_quantized(w->dtype))
        return wk_matmul_q(h, w, y);
    wk_tensor *wt = NULL;
    wk_status s = wk_transpose(w, 0, 1, &wt);
    if (s == WK_OK)
        s = wk_matmul(h, wt, y);
    wk_tensor_release(wt);
    return s;
}

/* *t = f(*t) for one step of the composition: the step's result replaces *t (released) or s is returned. */
#define STEP(t, call)                                                                                             \
    do {                                                                                                          \
        wk_tensor *next_ = NULL;                                                                                  \
        s = (call);                                                                                               \
        wk_tensor_release(t);                                                                                     \
        t = next_;                                                                                                \
        if (s != WK_OK)                                                                                           \
            return s;                                                                                             \
    } while (0)

/* The rotary embedding of h (M, N), fresh and contiguous, in place: its first rope_cols columns (resolved: not 0) as
 * (M / T, H, T, D) (strides T N, D, N, 1) through wk_rope or wk_rope_i, copied back. */
static wk_status rope_cols(wk_tensor *h, const wk_linear_params *p, int64_t T)
{
    int64_t M = h->shape[0], N = h->shape[1], D = 2 * p->rope_cos->shape[1], H = p->rope_cols / D;
    if (M == 0 || H == 0)
        return WK_OK;
    const int64_t shape[4] = {M / T, H, T, D}, strides[4] = {T * N, D, N, 1};
    wk_tensor *v = NULL, *r = NULL;
    wk_status s = wk_tensor_view(h, 4, shape, strides, h->offset, &v);
    if (s == WK_OK)
        s = (p->rope_interleaved ? wk_rope_i : wk_rope)(v, p->rope_cos, p->rope_sin, &r);
    if (s == WK_OK)
        s = wk_copy_into(v, r);
    wk_tensor_release(v), wk_tensor_release(r);
    return s;
}

/* The steps as the separate ops, each rounding to x's dtype; *out new. */
static wk_status composed(const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p, wk_tensor **out)
{
    wk_status s = WK_OK;
    wk_tensor *h = NULL;
    int64_t flat[2] = {1, w->shape[1]}; /* x as (M, K) */
    for (int i = 0; i < x->rank - 1; i++)
        flat[0] *= x->shape[i];
    STEP(h, wk_reshape(x, 2, flat, &next_));
    if (p->norm)
        STEP(h, wk_rms_norm(h, p->norm, p->eps, &next_));
    STEP(h, product(h, w, &next_));
    if (p->bias)
        STEP(h, wk_binary(WK_BINARY_ADD, h, p->bias, &next_));
    if (p->rope_cos && (s = rope_cols(h, p, tokens(x))) != WK_OK) {
        wk_tensor_release(h);
        return s;
    }
    if (p->glu)
        STEP(h, wk_glu(p->glu_kind, h, &next_));
    int64_t shape[WK_MAX_RANK];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    shape[x->rank - 1] = wk_tensor_shape(h)[1];
    STEP(h, wk_reshape(h, x->rank, shape, &next_));
    if (p->residual)
        STEP(h, wk_binary(WK_BINARY_ADD, h, p->residual, &next_));
    *out = h;
    return WK_OK;
}

wk_status wk_linear(const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p, wk_tensor **out)
{
    static const char op[] = "linear";
    wk_linear_params r = p ? *p : (wk_linear_params){0}; /* resolved: rope_cols 0 is all of w's rows */
    p = &r;
    int64_t shape[WK_MAX_RANK];
    WK_TRY(check(op, x, w, p, shape));
    WK_TRY(wk_check_out(op, out));
    if (r.rope_cos && r.rope_cols == 0)
        r.rope_cols = w->shape[0];
    if (fusable(x, w, p)) {
        wk_tensor *res = NULL;
        WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, shape, &res));
        wk_status s = fused(x, w, p, res);
        if (s != WK_ERR_UNSUPPORTED)
            return wk_finish(s, res, out);
        wk_tensor_release(res);
    }
    wk_tensor *res = NULL;
    wk_status s = composed(x, w, p, &res);
    if (s == WK_OK)
        *out = res;
    return s;
}

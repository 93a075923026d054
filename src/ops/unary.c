/* unary.c: the one-input element-wise ops (unary, affine, powf, elu, leaky_relu, clamp, glu): argument checks, the
 * output allocation (x's shape and dtype, contiguous; glu: the last dim halved) and the backend call, glu with
 * views of x's two halves. No tensor data is read here. */
#include <stdio.h>

#include "ops/common.h"

/* The ops' labels in messages ("unary exp"); the public names are their tails. */
#define U "unary "
static const char *const unary_labels[WK_UNARY_COUNT] = {
    [WK_UNARY_EXP] = U "exp",         [WK_UNARY_LOG] = U "log",         [WK_UNARY_SIN] = U "sin",
    [WK_UNARY_COS] = U "cos",         [WK_UNARY_TANH] = U "tanh",       [WK_UNARY_ERF] = U "erf",
    [WK_UNARY_RECIP] = U "recip",     [WK_UNARY_SQRT] = U "sqrt",       [WK_UNARY_GELU] = U "gelu",
    [WK_UNARY_GELU_ERF] = U "gelu_erf", [WK_UNARY_SILU] = U "silu",     [WK_UNARY_SIGMOID] = U "sigmoid",
    [WK_UNARY_CEIL] = U "ceil",       [WK_UNARY_FLOOR] = U "floor",     [WK_UNARY_ROUND] = U "round",
    [WK_UNARY_SQR] = U "sqr",         [WK_UNARY_ABS] = U "abs",         [WK_UNARY_NEG] = U "neg",
    [WK_UNARY_RELU] = U "relu",       [WK_UNARY_SIGN] = U "sign",       [WK_UNARY_SOFTPLUS] = U "softplus",
    [WK_UNARY_MISH] = U "mish",       [WK_UNARY_HARDSWISH] = U "hardswish", [WK_UNARY_HARDSIGMOID] = U "hardsigmoid",
};
static const char *const glu_names[WK_GLU_COUNT] = {
    [WK_GLU_SIGMOID] = "glu", [WK_GLU_SWIGLU] = "swiglu", [WK_GLU_GEGLU] = "geglu", [WK_GLU_GEGLU_TANH] = "geglu_tanh",
};

const char *wk_unary_name(wk_unary_op op)
{
    return (unsigned)op < WK_UNARY_COUNT ? unary_labels[op] + sizeof U - 1 : "invalid";
}

const char *wk_glu_name(wk_glu_kind kind)
{
    return (unsigned)kind < WK_GLU_COUNT ? glu_names[kind] : "invalid";
}

/* Float dtypes take every op; ints only the ops that stay in the integers (neg: signed only). */
static bool unary_supports(wk_unary_op op, wk_dtype dt)
{
    if (wk_dtype_is_float(dt))
        return true;
    switch (op) {
    case WK_UNARY_SQR: case WK_UNARY_ABS: case WK_UNARY_RELU: case WK_UNARY_SIGN: return true;
    case WK_UNARY_NEG: return dt == WK_I32 || dt == WK_I64;
    default: return false;
    }
}

static wk_status check_in_out(const char *op, const wk_tensor *x, wk_tensor **out)
{
    WK_TRY(wk_check_tensor(op, "x", x));
    return wk_check_out(op, out);
}

wk_status wk_unary(wk_unary_op op, const wk_tensor *x, wk_tensor **out)
{
    wk_tensor *o = NULL;
    if ((unsigned)op >= WK_UNARY_COUNT)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "unary: invalid op %d", (int)op);
    const char *name = unary_labels[op];
    WK_TRY(check_in_out(name, x, out));
    if (!unary_supports(op, x->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: dtype %s not supported", name, wk_dtype_name(x->dtype));
    WK_TRY(WK_CHECK_SLOT(name, x, unary));
    WK_TRY(wk_alloc_output(name, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, unary, op, x, o), o, out);
}

wk_status wk_affine(const wk_tensor *x, double mul, double add, wk_tensor **out)
{
    static const char op[] = "affine";
    wk_tensor *o = NULL;
    WK_TRY(check_in_out(op, x, out));
    WK_TRY(WK_CHECK_SLOT(op, x, affine));
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, affine, x, wk_scalar_compute(x->dtype, mul), wk_scalar_compute(x->dtype, add), o), o,
                     out);
}

wk_status wk_powf(const wk_tensor *x, double e, wk_tensor **out)
{
    static const char op[] = "powf";
    wk_tensor *o = NULL;
    WK_TRY(check_in_out(op, x, out));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(WK_CHECK_SLOT(op, x, powf));
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, powf, x, e, o), o, out);
}

wk_status wk_elu(const wk_tensor *x, double alpha, wk_tensor **out)
{
    static const char op[] = "elu";
    wk_tensor *o = NULL;
    WK_TRY(check_in_out(op, x, out));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(WK_CHECK_SLOT(op, x, elu));
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, elu, x, alpha, o), o, out);
}

wk_status wk_leaky_relu(const wk_tensor *x, double negative_slope, wk_tensor **out)
{
    static const char op[] = "leaky_relu";
    wk_tensor *o = NULL;
    WK_TRY(check_in_out(op, x, out));
    WK_TRY(wk_check_float(op, x));
    WK_TRY(WK_CHECK_SLOT(op, x, leaky_relu));
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, leaky_relu, x, negative_slope, o), o, out);
}

/* a and b: views of the first and second halves of x's last dim; out of their shape. */
wk_status wk_glu(wk_glu_kind kind, const wk_tensor *x, wk_tensor **out)
{
    if ((unsigned)kind >= WK_GLU_COUNT)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "glu: invalid kind %d", (int)kind);
    const char *name = glu_names[kind];
    WK_TRY(check_in_out(name, x, out));
    WK_TRY(wk_check_float(name, x));
    if (x->rank < 1 || x->shape[x->rank - 1] % 2 != 0)
        return wk_error(WK_ERR_SHAPE, "%s: x needs an even last dim to split in halves (rank %d, last dim %lld)",
                        name, x->rank, x->rank ? (long long)x->shape[x->rank - 1] : 0LL);
    WK_TRY(WK_CHECK_SLOT(name, x, glu));
    int64_t h = x->shape[x->rank - 1] / 2;
    wk_tensor *a = NULL, *b = NULL, *o = NULL;
    wk_status s = wk_narrow(x, -1, 0, h, &a);
    if (s == WK_OK)
        s = wk_narrow(x, -1, h, h, &b);
    if (s == WK_OK)
        s = wk_alloc_output(name, wk_dev(x), x->dtype, a->rank, a->shape, &o);
    if (s == WK_OK)
        s = wk_finish(WK_SLOT(o, glu, kind, a, b, o), o, out);
    wk_tensor_release(a);
    wk_tensor_release(b);
    return s;
}

wk_status wk_clamp(const wk_tensor *x, double lo, double hi, wk_tensor **out)
{
    static const char op[] = "clamp";
    wk_tensor *o = NULL;
    WK_TRY(check_in_out(op, x, out));
    if (!(lo <= hi)) /* also rejects NaN bounds */
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: lo %g must not exceed hi %g", op, lo, hi);
    WK_TRY(WK_CHECK_SLOT(op, x, clamp));
    WK_TRY(wk_alloc_output(op, wk_dev(x), x->dtype, x->rank, x->shape, &o));
    return wk_finish(WK_SLOT(o, clamp, x, wk_scalar_compute(x->dtype, lo), wk_scalar_compute(x->dtype, hi), o), o,
                     out);
}

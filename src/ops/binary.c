/* binary.c: the broadcasting element-wise ops (binary arithmetic, compare, where): argument checks, the numpy
 * broadcast of the shapes, stride-0 views of the operands and the backend call. No tensor data is read here. */
#include <stdio.h>

#include "ops/common.h"

/* The ops' labels in messages ("binary add"); the public names are their tails. */
#define BINARY_PREFIX "binary "
#define COMPARE_PREFIX "compare "
static const char *const binary_labels[WK_BINARY_COUNT] = {
    [WK_BINARY_ADD] = BINARY_PREFIX "add", [WK_BINARY_SUB] = BINARY_PREFIX "sub",
    [WK_BINARY_MUL] = BINARY_PREFIX "mul", [WK_BINARY_DIV] = BINARY_PREFIX "div",
    [WK_BINARY_MAXIMUM] = BINARY_PREFIX "maximum", [WK_BINARY_MINIMUM] = BINARY_PREFIX "minimum",
};
static const char *const compare_labels[WK_COMPARE_COUNT] = {
    [WK_CMP_EQ] = COMPARE_PREFIX "eq", [WK_CMP_NE] = COMPARE_PREFIX "ne", [WK_CMP_LT] = COMPARE_PREFIX "lt",
    [WK_CMP_LE] = COMPARE_PREFIX "le", [WK_CMP_GT] = COMPARE_PREFIX "gt", [WK_CMP_GE] = COMPARE_PREFIX "ge",
};

const char *wk_binary_name(wk_binary_op op)
{
    return (unsigned)op < WK_BINARY_COUNT ? binary_labels[op] + sizeof BINARY_PREFIX - 1 : "invalid";
}

const char *wk_compare_name(wk_compare_op op)
{
    return (unsigned)op < WK_COMPARE_COUNT ? compare_labels[op] + sizeof COMPARE_PREFIX - 1 : "invalid";
}

/* Operands ready for a slot: the inputs broadcast to one shape (an input of that shape as it is, else a stride-0
 * view the bcast owns), and the output of that shape. */
typedef struct bcast {
    int n;
    const wk_tensor *in[3];
    wk_tensor *owned[3];
    wk_tensor *out;
} bcast;

static void bcast_release(bcast *b)
{
    for (int i = 0; i < b->n; i++)
        wk_tensor_release(b->owned[i]);
    wk_tensor_release(b->out);
}

static bool same_shape(const wk_tensor *t, int rank, const int64_t *shape)
{
    if (t->rank != rank)
        return false;
    for (int d = 0; d < rank; d++)
        if (t->shape[d] != shape[d])
            return false;
    return true;
}

/* Broadcasts the n inputs (same device, checked by the caller) to their common shape and allocates a contiguous
 * output of that shape with dtype out_dt. On failure nothing is left allocated. */
static wk_status bcast_prepare(const char *op, int n, const wk_tensor *const *in, wk_dtype out_dt, bcast *b)
{
    int rank = in[0]->rank;
    int64_t shape[WK_MAX_RANK], prev[WK_MAX_RANK];
    for (int d = 0; d < rank; d++)
        shape[d] = in[0]->shape[d];
    for (int i = 1; i < n; i++) {
        for (int d = 0; d < rank; d++) /* wk_broadcast_shape must not read what it writes */
            prev[d] = shape[d];
        WK_TRY(wk_broadcast_shape(op, rank, prev, in[i]->rank, in[i]->shape, &rank, shape));
    }
    *b = (bcast){.n = 0, .out = NULL};
    for (int i = 0; i < n; i++) {
        wk_status s = same_shape(in[i], rank, shape) ? WK_OK : wk_broadcast_view(op, in[i], rank, shape, &b->owned[i]);
        if (s != WK_OK) {
            bcast_release(b);
            return s;
        }
        b->in[i] = b->owned[i] ? b->owned[i] : in[i];
        b->n++;
    }
    wk_status s = wk_alloc_output(op, wk_dev(in[0]), out_dt, rank, shape, &b->out);
    if (s != WK_OK) {
        b->out = NULL;
        bcast_release(b);
    }
    return s;
}

/* Releases the views and hands the output to *out on success (else releases it too). */
static wk_status bcast_finish(wk_status s, bcast *b, wk_tensor **out)
{
    if (s == WK_OK) {
        *out = b->out;
        b->out = NULL;
    }
    bcast_release(b);
    return s;
}

/* a and b present, same device and dtype; out present. */
static wk_status check_pair(const char *op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out)
{
    WK_TRY(wk_check_tensor(op, "a", a));
    WK_TRY(wk_check_tensor(op, "b", b));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_same_device(op, a, b));
    return wk_check_same_dtype(op, a, b);
}

wk_status wk_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out)
{
    bcast bc;
    if ((unsigned)op >= WK_BINARY_COUNT)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "binary: invalid op %d", (int)op);
    const char *name = binary_labels[op];
    WK_TRY(check_pair(name, a, b, out));
    WK_TRY(WK_CHECK_SLOT(name, a, binary));
    const wk_tensor *in[2] = {a, b};
    WK_TRY(bcast_prepare(name, 2, in, a->dtype, &bc));
    return bcast_finish(WK_SLOT(bc.out, binary, op, bc.in[0], bc.in[1], bc.out), &bc, out);
}

wk_status wk_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out)
{
    bcast bc;
    if ((unsigned)op >= WK_COMPARE_COUNT)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "compare: invalid op %d", (int)op);
    const char *name = compare_labels[op];
    WK_TRY(check_pair(name, a, b, out));
    WK_TRY(WK_CHECK_SLOT(name, a, compare));
    const wk_tensor *in[2] = {a, b};
    WK_TRY(bcast_prepare(name, 2, in, WK_U8, &bc));
    return bcast_finish(WK_SLOT(bc.out, compare, op, bc.in[0], bc.in[1], bc.out), &bc, out);
}

wk_status wk_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor **out)
{
    static const char op[] = "where";
    bcast bc;
    WK_TRY(wk_check_tensor(op, "cond", cond));
    WK_TRY(wk_check_tensor(op, "t", t));
    WK_TRY(wk_check_tensor(op, "f", f));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(wk_check_same_device(op, cond, t));
    WK_TRY(wk_check_same_device(op, cond, f));
    if (cond->dtype != WK_U8 && cond->dtype != WK_U32 && cond->dtype != WK_I64)
        return wk_error(WK_ERR_DTYPE, "%s: cond dtype %s not supported (u8, u32, i64)", op,
                        wk_dtype_name(cond->dtype));
    WK_TRY(wk_check_same_dtype(op, t, f));
    WK_TRY(WK_CHECK_SLOT(op, t, where));
    const wk_tensor *in[3] = {cond, t, f};
    WK_TRY(bcast_prepare(op, 3, in, t->dtype, &bc));
    return bcast_finish(WK_SLOT(bc.out, where, bc.in[0], bc.in[1], bc.in[2], bc.out), &bc, out);
}

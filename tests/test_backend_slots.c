/* test_backend_slots.c: a backend that lacks an op (its slot left NULL, as backend.h allows for every op slot) makes
 * that op fail with WK_ERR_UNSUPPORTED naming the op and the backend, leaving the output untouched; the ops it has
 * keep working. A copy of the CPU backend with every optional slot cleared stands in for such a backend. It links
 * the static library for the internal tables. */
#include <stdio.h>
#include <string.h>

#include "backend.h"

#include "check.h"

/* The op's status and message: unsupported, naming it and the backend, with *out left as it was. */
static void expect_unsupported(wk_status s, const char *op, wk_tensor *out, wk_tensor *sentinel)
{
    CHECK(s == WK_ERR_UNSUPPORTED, "%s: %s, want WK_ERR_UNSUPPORTED", op, wk_status_string(s));
    CHECK(strstr(wk_last_error(), op) && strstr(wk_last_error(), "sparse"), "%s: message names neither op nor "
          "backend: %s", op, wk_last_error());
    CHECK(out == sentinel, "%s: the output was written", op);
}

int main(void)
{
    wk_backend sparse = wk_cpu_backend;
    sparse.name = "sparse";
    /* every optional slot cleared: only the required ones (backend.h) stay */
    memset(&sparse.arange, 0, offsetof(wk_backend, rope) + sizeof sparse.rope - offsetof(wk_backend, arange));
    sparse.copy = wk_cpu_backend.copy;
    wk_device dev = {.backend = &sparse, .name = "sparse", .ordinal = 0, .impl = NULL};

    const float v[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[2] = {2, 3}, tshape[2] = {3, 2};
    wk_tensor *x = NULL, *y = NULL, *ids = NULL;
    CHECK(wk_tensor_from_host(&dev, WK_F32, 2, shape, v, &x) == WK_OK, "from_host on the sparse backend");
    CHECK(wk_tensor_from_host(&dev, WK_F32, 2, tshape, v, &y) == WK_OK, "from_host on the sparse backend");
    const int64_t one = 1, id = 1;
    CHECK(wk_tensor_from_host(&dev, WK_I64, 1, &one, &id, &ids) == WK_OK, "ids on the sparse backend");
    if (!x || !y || !ids)
        return 1;

    wk_tensor *sentinel = (wk_tensor *)&dev, *out = sentinel, *out2 = sentinel;
    expect_unsupported(wk_unary(WK_UNARY_EXP, x, &out), "exp", out, sentinel);
    expect_unsupported(wk_binary(WK_BINARY_ADD, x, x, &out), "add", out, sentinel);
    expect_unsupported(wk_softmax_last_dim(x, &out), "softmax", out, sentinel);
    expect_unsupported(wk_matmul(x, y, &out), "matmul", out, sentinel);
    expect_unsupported(wk_sort(x, false, &out, &out2), "sort", out, sentinel);
    expect_unsupported(wk_index_select(x, 0, ids, &out), "index_select", out, sentinel);
    expect_unsupported(wk_cast(x, WK_F64, &out), "cast", out, sentinel);
    expect_unsupported(wk_arange(&dev, WK_F32, 0, 4, 1, &out), "arange", out, sentinel);
    int dims[1] = {1};
    expect_unsupported(wk_reduce(WK_REDUCE_SUM, x, dims, 1, false, &out), "reduce", out, sentinel);
    expect_unsupported(wk_flip(x, dims, 1, &out), "flip", out, sentinel);
    const int64_t pads[2] = {1, 1};
    expect_unsupported(wk_pad(x, pads, 2, WK_PAD_REFLECT, 0, &out), "pad", out, sentinel);
    expect_unsupported(wk_one_hot(ids, 3, &out), "one_hot", out, sentinel);

    /* the required slots still serve: a copy, a fill, a transfer */
    wk_tensor *c = NULL;
    float back[6] = {0};
    CHECK(wk_contiguous(x, &c) == WK_OK && c != NULL, "contiguous on the sparse backend");
    CHECK(c && wk_fill(c, 2.5) == WK_OK, "fill on the sparse backend");
    CHECK(c && wk_tensor_to_host(c, back, sizeof back) == WK_OK && back[0] == 2.5f && back[5] == 2.5f,
          "fill then to_host on the sparse backend");

    wk_tensor_release(c);
    wk_tensor_release(x);
    wk_tensor_release(y);
    wk_tensor_release(ids);
    printf("test_backend_slots: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

/* mlp.c: a two-layer perceptron's forward pass (matmul, broadcast bias, GELU, softmax, argmax) on any
 * device: `example_mlp [device]`. Shows status checking with one exit path and reference ownership. */
#include <stdio.h>

#include "wick.h"

enum { BATCH = 4, IN = 8, HIDDEN = 16, CLASSES = 3 };

/* On failure: say which call failed and why (wk_last_error names the op and the shapes), then clean up. */
#define TRY(call)                                                                                           \
    do {                                                                                                    \
        wk_status s_ = (call);                                                                              \
        if (s_ != WK_OK) {                                                                                  \
            fprintf(stderr, "%s: %s: %s\n", #call, wk_status_string(s_), wk_last_error());                  \
            goto done;                                                                                      \
        }                                                                                                   \
    } while (0)

/* out = act(x @ w + b); the product is released here, out belongs to the caller. */
static wk_status linear(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, bool gelu, wk_tensor **out)
{
    wk_tensor *xw = NULL, *sum = NULL;
    wk_status s = wk_matmul(x, w, &xw);
    if (s == WK_OK)
        s = wk_binary(WK_BINARY_ADD, xw, b, &sum); /* b (n) broadcasts over the batch rows */
    if (s == WK_OK && gelu) {
        s = wk_unary(WK_UNARY_GELU, sum, out);
    } else if (s == WK_OK) {
        *out = sum;
        sum = NULL;
    }
    wk_tensor_release(xw);
    wk_tensor_release(sum);
    return s;
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : "cpu";
    int rc = 1;
    wk_device *dev = NULL;
    wk_tensor *x = NULL, *w1 = NULL, *b1 = NULL, *w2 = NULL, *b2 = NULL;
    wk_tensor *h = NULL, *logits = NULL, *probs = NULL, *pred = NULL;
    const int64_t x_shape[] = {BATCH, IN}, w1_shape[] = {IN, HIDDEN}, b1_shape[] = {HIDDEN},
                  w2_shape[] = {HIDDEN, CLASSES}, b2_shape[] = {CLASSES};
    float p[BATCH * CLASSES];
    int64_t classes[BATCH];

    TRY(wk_device_get(device, &dev));
    /* Counter-based random numbers: the same seed gives the same values on every device. */
    TRY(wk_rand_normal(dev, WK_F32, 2, x_shape, 1, 0.0, 1.0, &x));
    TRY(wk_rand_normal(dev, WK_F32, 2, w1_shape, 2, 0.0, 0.35, &w1));
    TRY(wk_rand_uniform(dev, WK_F32, 1, b1_shape, 3, -0.1, 0.1, &b1));
    TRY(wk_rand_normal(dev, WK_F32, 2, w2_shape, 4, 0.0, 0.25, &w2));
    TRY(wk_zeros(dev, WK_F32, 1, b2_shape, &b2));

    TRY(linear(x, w1, b1, true, &h));          /* (BATCH, HIDDEN) */
    TRY(linear(h, w2, b2, false, &logits));    /* (BATCH, CLASSES) */
    TRY(wk_softmax_last_dim(logits, &probs));  /* rows sum to 1 */
    TRY(wk_argmax(logits, -1, false, &pred));  /* (BATCH) i64 */

    TRY(wk_tensor_to_host(probs, p, sizeof p));
    TRY(wk_tensor_to_host(pred, classes, sizeof classes));
    printf("device %s\n", wk_device_name(dev));
    for (int i = 0; i < BATCH; i++) {
        printf("sample %d: p =", i);
        for (int k = 0; k < CLASSES; k++)
            printf(" %.4f", p[i * CLASSES + k]);
        printf("  -> class %lld\n", (long long)classes[i]);
    }
    rc = 0;
done:;
    wk_tensor *all[] = {x, w1, b1, w2, b2, h, logits, probs, pred};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        wk_tensor_release(all[i]); /* NULL is a no-op */
    return rc;
}

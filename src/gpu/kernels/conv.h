/* conv.h: the conv family's interface (kernels/conv.cu, gpu/conv.c): wick's own direct convolutions, forward
 * and transposed (float dtypes), one thread per output element, in the 2-D form. */
#ifndef WK_GPU_KERNELS_CONV_H
#define WK_GPU_KERNELS_CONV_H

#include "entries.h"
#include "../layout.h"

/* The 2-D form: a 1-D convolution has H = OH = KH = 1, zero H strides and sy = dy = 1, py = 0. Strides in
 * elements, any layout. */
typedef struct wk_gpu_conv_args {
    const void *x;            /* input (N, C, H, W), strides xN, xC, xH, xW */
    const void *w;            /* forward: (O, C/g, KH, KW); transposed: (C, O/g, KH, KW); strides w0, w1, wH, wW */
    const void *bias;         /* (O), stride bS; NULL for none (bS then ignored) */
    void *out;                /* (N, O, OH, OW), contiguous: total elements */
    int64_t total;            /* N*O*OH*OW */
    int64_t O, OH, OW, H, W, KH, KW;
    int64_t cg, og;           /* input and output channels per group: C/g, O/g */
    int64_t sy, sx, py, px, dy, dx; /* stride, padding, dilation per spatial axis */
    int64_t xN, xC, xH, xW;   /* x's strides */
    int64_t w0, w1, wH, wW;   /* w's strides of dims 0, 1 (forward: O, C/g; transposed: C, O/g), KH, KW */
    int64_t bS;               /* bias's stride */
} wk_gpu_conv_args;

#define WK_CONV_KERNELS(X)                                                                                        \
    X(conv, conv_direct_fwd, wk_gpu_conv_args, DT_FLOAT, NONE, ONE, )                                              \
    X(conv, conv_direct_tr, wk_gpu_conv_args, DT_FLOAT, NONE, ONE, )

#endif

/* sample.h: the sample family's interface (kernels/sample.cu, gpu/sample.c): penalties over previous ids, the pick
 * among sorted candidates and multinomial draws, a block per row, with core/numerics.h's blocked sums. */
#ifndef WK_GPU_KERNELS_SAMPLE_H
#define WK_GPU_KERNELS_SAMPLE_H

#include "entries.h"

#define SAMPLE_THREADS 256
#define SAMPLE_NPARAM 8 /* backend.h's WK_SAMPLE_NPARAM and its column order (gpu/sample.c checks) */

typedef struct wk_gpu_sample_args {
    int64_t rows, n;       /* rows; candidates (pick), vocabulary (penalize, multinomial) */
    const double *params;  /* (rows, SAMPLE_NPARAM): temperature, top_k, top_p, min_p, rep, pres, seed lo, hi */
    float *z;              /* penalize: (rows, n) f32, in place */
    const void *prev;      /* penalize: (rows, np) i64 (prev64) or i32 */
    int64_t np;            /* penalize */
    int32_t prev64;        /* penalize */
    int32_t replacement;   /* multinomial */
    const float *cand;     /* pick: (rows, n) */
    const int64_t *cand_ids;
    const void *probs;     /* multinomial: (rows, n) f32 or f64 */
    double *w;             /* multinomial without replacement: (rows, n) weights, consumed */
    double *prefix;        /* (rows, nb + 1): the blocks' running totals, nb = ceil(n / WK_CDF_BLOCK) */
    int64_t nb;
    uint64_t seed, offset; /* multinomial: seed; pick: the step */
    int64_t samples;       /* multinomial: draws a row */
    int64_t *out;          /* pick: (rows); multinomial: (rows, samples) */
} wk_gpu_sample_args;

#define WK_SAMPLE_KERNELS(X)                                                                                      \
    X(sample, sample_penalize, wk_gpu_sample_args, NONE, NONE, ONE, )                                             \
    X(sample, sample_pick, wk_gpu_sample_args, NONE, NONE, ONE, )                                                 \
    X(sample, multinomial, wk_gpu_sample_args, DT_FLOAT, NONE, ONE, )

#endif

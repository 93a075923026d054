/* attention_ref.h: what the attention cases (attention.c) and their reference and error checks (attention_ref.c)
 * share: a case's parameters, its inputs with their values as doubles, and the float64 reference. */
#ifndef WKT_ATTENTION_REF_H
#define WKT_ATTENTION_REF_H

#include "harness.h"

enum {
    ATTN_CAUSAL = 1, ATTN_WINDOW = 2, ATTN_ALIBI = 4, ATTN_LENS = 8, ATTN_LSE = 16,
    ATTN_BSHD = 32 /* q, k, v are permuted views of (B, S, H, D) buffers */
};
enum { ATTN_BIAS_NONE, ATTN_BIAS_F32, ATTN_BIAS_DTYPE, ATTN_BIAS_MASK, ATTN_BIAS_NEGINF };

typedef struct attn_spec {
    int64_t b, hq, hkv, sq, skv, d, dv; /* skv: max_blocks * block when paged */
    int flags;
    int64_t wl, wr;
    int bias;
    int64_t block; /* 0: contiguous k, v */
    double softcap, scale;
} attn_spec;

/* A case's tensors and their logical values ((B, H, S, D) order; pools (num_blocks, Hkv, block, D)). */
typedef struct attn_data {
    wk_tensor *q, *k, *v, *bias, *alibi, *lens_t, *table_t;
    double *qv, *kv, *vv, *biasv, *alibiv;
    int64_t *lens, *table; /* table: (B, max_blocks) */
    int64_t bias_shape[4];
    int bias_rank;
    wk_dtype bias_dtype;
    int64_t nblocks;
    bool bshd;
} attn_data;

static inline wk_status attn_oom(void) { return WK_ERR_OUT_OF_MEMORY; }
#define ATTN_TRY(expr)                 \
    do {                               \
        wk_status attn_s_ = (expr);    \
        if (attn_s_ != WK_OK)          \
            return attn_s_;            \
    } while (0)

/* A random (s0, s1, s2, s3) tensor in `layout`, or with bshd a (s0, s2, s1, s3) one permuted; *vals logical. */
wk_status attn_make(wk_device *dev, wk_dtype dt, const int64_t *shape, wkt_layout layout, bool bshd, wkt_rng *rng,
                    wk_tensor **t, double **vals);
/* The bias's shape for kind s->bias: f32 (B, Hq, Sq, Skv), q's dtype (Hq, 1, Skv), u8 (B, 1, Sq, Skv),
 * f32 with -inf entries (Sq, Skv). */
void attn_bias_shape(const attn_spec *s, int64_t *shape, int *rank);
/* out (B, Hq, Sq, Dv) and lse (B, Hq, Sq) in float64 from the values in x. */
void attn_reference(const attn_spec *s, const attn_data *x, double *out, double *lse);
/* Applies kv_append of nw's k, v to x's cache values (x->kv, x->vv). */
void attn_append_reference(const attn_spec *s, attn_data *x, const attn_data *nw);
void attn_data_free(attn_data *x);
/* The family's error paths. */
void attn_errors(wkt_errctx *e);

#endif

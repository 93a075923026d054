/* rope.c: the CPU's rotary embeddings (candle-nn rotary_emb): halves or interleaved pairs over (B, H, T, D),
 * halves over (B, T, H, D). One row of D per work item; x, cos and sin may be any strided views. */
#include "cpu/cpu.h"

typedef struct rope_job {
    wk_rope_kind kind;
    const wk_tensor *x, *cos, *sin;
    wk_tensor *out;
    int64_t d1, d2, D; /* x's dims 1 and 2 */
} rope_job;

/* Element k of the pair i: halves pair (i, i + D/2), interleaved (2i, 2i + 1). */
#define ROPE_KERNEL(E, sfx, T, C)                                                            \
    static void rope_rows_##sfx(void *ctx, int64_t begin, int64_t end)                       \
    {                                                                                        \
        const rope_job *j = ctx;                                                             \
        const int64_t *xs = j->x->strides, *cs = j->cos->strides, *ss = j->sin->strides;     \
        const T *x = wk_tensor_data(j->x), *cb = wk_tensor_data(j->cos), *sb = wk_tensor_data(j->sin); \
        T *o = (T *)wk_tensor_data(j->out) + begin * j->D;                                   \
        int64_t half = j->D / 2;                                                             \
        int64_t second = j->kind == WK_ROPE_INTERLEAVED ? xs[3] : half * xs[3];              \
        int64_t pair = j->kind == WK_ROPE_INTERLEAVED ? 2 * xs[3] : xs[3];                   \
        int64_t opair = j->kind == WK_ROPE_INTERLEAVED ? 2 : 1;                              \
        int64_t osecond = j->kind == WK_ROPE_INTERLEAVED ? 1 : half;                         \
        for (int64_t r = begin; r < end; r++, o += j->D) {                                   \
            int64_t i2 = r % j->d2, i1 = (r / j->d2) % j->d1, i0 = r / j->d2 / j->d1;        \
            int64_t t = j->kind == WK_ROPE_THD ? i1 : i2;                                    \
            const T *xr = x + i0 * xs[0] + i1 * xs[1] + i2 * xs[2];                          \
            const T *cr = cb + t * cs[0], *sr = sb + t * ss[0];                              \
            for (int64_t i = 0; i < half; i++) {                                             \
                C a = wk_ld_##sfx(xr + i * pair), b = wk_ld_##sfx(xr + i * pair + second);   \
                C c = wk_ld_##sfx(cr + i * cs[1]), s = wk_ld_##sfx(sr + i * ss[1]);          \
                wk_st_##sfx(o + i * opair, a * c - b * s);                                   \
                wk_st_##sfx(o + i * opair + osecond, a * s + b * c);                         \
            }                                                                                \
        }                                                                                    \
    }
ROPE_KERNEL(WK_F16, f16, wk_f16_t, float)
ROPE_KERNEL(WK_BF16, bf16, wk_bf16_t, float)
ROPE_KERNEL(WK_F32, f32, float, float)
ROPE_KERNEL(WK_F64, f64, double, double)

wk_status wk_cpu_rope(wk_rope_kind kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin,
                      wk_tensor *out)
{
    rope_job j = {.kind = kind, .x = x, .cos = cos, .sin = sin, .out = out, .d1 = x->shape[1], .d2 = x->shape[2],
                  .D = x->shape[3]};
    wk_range_fn fn = x->dtype == WK_F16    ? rope_rows_f16
                     : x->dtype == WK_BF16 ? rope_rows_bf16
                     : x->dtype == WK_F32  ? rope_rows_f32
                                           : rope_rows_f64;
    int64_t rows = x->shape[0] * j.d1 * j.d2;
    if (rows > 0 && j.D > 0)
        wk_cpu_parallel_for(rows, WK_CPU_GRAIN / j.D + 1, fn, &j);
    return WK_OK;
}

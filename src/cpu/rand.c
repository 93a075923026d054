/* rand.c: the CPU's counter-based random numbers (Philox4x32-10) for rand_uniform and rand_normal, and the
 * exact recipe below, which every backend reproduces bit for bit (uniform) or to libm accuracy (normal).
 *
 * Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32_R with R = 10), u24 and u53 are written once, in
 * core/numerics.h, for this file and the GPU kernels (kernels/rand.cu):
 *   multipliers M0 = 0xD2511F53, M1 = 0xCD9E8D57; key increments W0 = 0x9E3779B9, W1 = 0xBB67AE85.
 *   One round on counter (c0, c1, c2, c3) with key (k0, k1), products taken as 64-bit hi:lo:
 *     (hi0:lo0) = M0 * c0,  (hi1:lo1) = M1 * c2
 *     c = (hi1 ^ c1 ^ k0,  lo1,  hi0 ^ c3 ^ k1,  lo0)
 *   Ten rounds; the key is bumped (k0 += W0, k1 += W1, mod 2^32) between rounds (nine bumps in all).
 *   Known answer: counter 0, key 0 -> (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8).
 * Key = (seed & 0xffffffff, seed >> 32). Block b (b >= 0) runs on counter (b & 0xffffffff, b >> 32, 0, 0)
 * and yields words w0..w3. Element i of the (contiguous, row-major) result depends only on (seed, i):
 *   24-bit uniform of a word:  u24(w) = (w >> 8) * 2^-24 in [0, 1)
 *   53-bit uniform of a pair:  u53(a, b) = ((((uint64)a << 32) | b) >> 11) * 2^-53 in [0, 1)
 *   uniform f32, f16, bf16: block i/4, word i%4; v = lo + t where t = (hi - lo) * u24(w), each operation
 *     rounded to f32 separately (no fused multiply-add), lo and hi first rounded to f32; f16/bf16 are then
 *     rounded from that f32 to nearest even. (A value can round up to hi.)
 *   uniform f64: block i/2, u = u53(w[2k], w[2k+1]) with k = i%2; v = lo + t, t = (hi - lo) * u in f64, unfused.
 *   normal f32, f16, bf16: block i/4, pair k = (i%4)/2 of words (w[2k], w[2k+1]):
 *     u1 = ((w[2k] >> 8) + 1) * 2^-24 in (0, 1] (never log(0)),  u2 = u24(w[2k+1]),
 *     computed in f64: r = sqrt(-2 log(u1)), a = 2*pi*u2 (pi the f64 constant), z = r*cos(a) for even i,
 *     r*sin(a) for odd i, v = mean + std*z; rounded to f32 (then f16/bf16 from that f32).
 *   normal f64: block i/2, u1 = 1 - u53(w0, w1) in (0, 1], u2 = u53(w2, w3); z as above (cos for even i,
 *     sin for odd i), v = mean + std*z in f64.
 * Normals go through log/cos/sin, so backends agree to the accuracy of their math libraries. */
#include <math.h>

#include "cpu/cpu.h"

typedef struct rand_ctx {
    void *dst;
    uint64_t seed;
    double a, b;  /* lo/hi or mean/std */
    float af, bf; /* the same rounded to f32 */
} rand_ctx;

/* Element i's value as f32 (uniform or normal), from its block's words. */
static inline float uniform_f32(const rand_ctx *c, const uint32_t *w, int64_t i)
{
    float t = (c->bf - c->af) * wk_philox_u24(w[i & 3]);
    return c->af + t;
}

static inline float normal_f32(const rand_ctx *c, const uint32_t *w, int64_t i)
{
    int k = (int)(i & 3) >> 1;
    double u1 = (double)((w[2 * k] >> 8) + 1) * 0x1p-24, u2 = (double)wk_philox_u24(w[2 * k + 1]);
    double r = sqrt(-2.0 * log(u1)), a = 2.0 * 3.141592653589793 * u2;
    double z = (i & 1) ? r * sin(a) : r * cos(a);
    return (float)(c->a + c->b * z);
}

static inline double uniform_f64(const rand_ctx *c, const uint32_t *w, int64_t i)
{
    int k = (int)(i & 1);
    double t = (c->b - c->a) * wk_philox_u53(w[2 * k], w[2 * k + 1]);
    return c->a + t;
}

static inline double normal_f64(const rand_ctx *c, const uint32_t *w, int64_t i)
{
    double u1 = 1.0 - wk_philox_u53(w[0], w[1]), u2 = wk_philox_u53(w[2], w[3]);
    double r = sqrt(-2.0 * log(u1)), a = 2.0 * 3.141592653589793 * u2;
    double z = (i & 1) ? r * sin(a) : r * cos(a);
    return c->a + c->b * z;
}

/* A kernel over elements [begin, end): `per` elements per Philox block, value() then store. */
#define RAND_KERNEL(name, sfx, T, per, value)                                    \
    static void name(void *arg, int64_t begin, int64_t end)                     \
    {                                                                           \
        const rand_ctx *c = arg;                                                \
        T *d = c->dst;                                                          \
        for (int64_t block = begin / (per); block * (per) < end; block++) {     \
            uint32_t w[4];                                                      \
            wk_philox4x32_10((uint64_t)block, c->seed, w);                         \
            int64_t i = block * (per) > begin ? block * (per) : begin;          \
            int64_t stop = block * (per) + (per) < end ? block * (per) + (per) : end; \
            for (; i < stop; i++)                                               \
                wk_st_##sfx(d + i, value(c, w, i));                             \
        }                                                                       \
    }
RAND_KERNEL(uniform_k_f16, f16, wk_f16_t, 4, uniform_f32)
RAND_KERNEL(uniform_k_bf16, bf16, wk_bf16_t, 4, uniform_f32)
RAND_KERNEL(uniform_k_f32, f32, float, 4, uniform_f32)
RAND_KERNEL(uniform_k_f64, f64, double, 2, uniform_f64)
RAND_KERNEL(normal_k_f16, f16, wk_f16_t, 4, normal_f32)
RAND_KERNEL(normal_k_bf16, bf16, wk_bf16_t, 4, normal_f32)
RAND_KERNEL(normal_k_f32, f32, float, 4, normal_f32)
RAND_KERNEL(normal_k_f64, f64, double, 2, normal_f64)
#undef RAND_KERNEL

static wk_status run_rand(wk_tensor *dst, uint64_t seed, double a, double b, const wk_range_fn kernels[4])
{
    rand_ctx c = {.dst = wk_tensor_data(dst), .seed = seed, .a = a, .b = b, .af = (float)a, .bf = (float)b};
    wk_range_fn k = dst->dtype == WK_F16 ? kernels[0] : dst->dtype == WK_BF16 ? kernels[1]
                  : dst->dtype == WK_F32 ? kernels[2] : kernels[3];
    /* Philox work per element is far above a copy's, so threads pay off sooner. */
    wk_cpu_parallel_for(wk_tensor_numel(dst), WK_CPU_GRAIN / 8, k, &c);
    return WK_OK;
}

wk_status wk_cpu_rand_uniform(wk_tensor *dst, uint64_t seed, double lo, double hi)
{
    static const wk_range_fn kernels[4] = {uniform_k_f16, uniform_k_bf16, uniform_k_f32, uniform_k_f64};
    return run_rand(dst, seed, lo, hi, kernels);
}

wk_status wk_cpu_rand_normal(wk_tensor *dst, uint64_t seed, double mean, double std)
{
    static const wk_range_fn kernels[4] = {normal_k_f16, normal_k_bf16, normal_k_f32, normal_k_f64};
    return run_rand(dst, seed, mean, std, kernels);
}

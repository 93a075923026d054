/* creation_rand.c: rand_uniform / rand_normal cases: bit-exactness against a separate plain Philox4x32-10
 * (itself checked against Random123's known answers), the documented recipe of src/cpu/rand.c, and statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "creation.h"

/* ---------------------------------------------------------------- reference Philox4x32-10 */

static void philox_ref(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4])
{
    uint32_t x[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    uint32_t key[2] = {key_in[0], key_in[1]};
    for (int round = 1; round <= 10; round++) {
        uint64_t a = (uint64_t)0xD2511F53u * x[0];
        uint64_t b = (uint64_t)0xCD9E8D57u * x[2];
        uint32_t y[4];
        y[0] = (uint32_t)(b >> 32) ^ x[1] ^ key[0];
        y[1] = (uint32_t)b;
        y[2] = (uint32_t)(a >> 32) ^ x[3] ^ key[1];
        y[3] = (uint32_t)a;
        memcpy(x, y, sizeof x);
        key[0] += 0x9E3779B9u;
        key[1] += 0xBB67AE85u;
    }
    memcpy(out, x, sizeof x);
}

/* Random123's kat_vectors for philox4x32_10. */
static bool philox_ref_ok(void)
{
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
         0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
         0x5001e420, 0x24126ea1},
    };
    for (int k = 0; k < 3; k++) {
        uint32_t out[4];
        philox_ref(kat[k], kat[k] + 4, out);
        if (memcmp(out, kat[k] + 6, sizeof out) != 0)
            return false;
    }
    return true;
}

static void block_words(uint64_t seed, uint64_t block, uint32_t w[4])
{
    uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    philox_ref(ctr, key, w);
}

/* ---------------------------------------------------------------- the recipe, element by element */

static double two_pi(void) { return 2.0 * 3.141592653589793; }

/* Element i as a double holding the f32 (for f16/bf16/f32) or f64 value the recipe gives. */
static double ref_element(wk_dtype dt, bool normal, uint64_t seed, double a, double b, int64_t i)
{
    uint32_t w[4];
    if (dt != WK_F64) {
        block_words(seed, (uint64_t)i / 4, w);
        int j = (int)(i % 4);
        if (!normal) {
            float lo = (float)a, hi = (float)b;
            float u = (float)(w[j] >> 8) / 16777216.0f;
            volatile float t = (hi - lo) * u; /* volatile: no contraction into an FMA */
            return (double)(float)(lo + t);
        }
        int k = j / 2;
        double u1 = ((double)(w[2 * k] >> 8) + 1.0) / 16777216.0, u2 = (double)(w[2 * k + 1] >> 8) / 16777216.0;
        double rad = sqrt(-2.0 * log(u1)), ang = two_pi() * u2;
        double z = (j % 2) ? rad * sin(ang) : rad * cos(ang);
        return (double)(float)(a + b * z);
    }
    block_words(seed, (uint64_t)i / 2, w);
    int k = (int)(i % 2);
    if (!normal) {
        uint64_t bits = (((uint64_t)w[2 * k] << 32) | w[2 * k + 1]) >> 11;
        volatile double t = (b - a) * ((double)bits / 9007199254740992.0);
        return a + t;
    }
    double u1 = 1.0 - (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) / 9007199254740992.0;
    double u2 = (double)((((uint64_t)w[2] << 32) | w[3]) >> 11) / 9007199254740992.0;
    double rad = sqrt(-2.0 * log(u1)), ang = two_pi() * u2;
    return a + b * ((i % 2) ? rad * sin(ang) : rad * cos(ang));
}

/* ---------------------------------------------------------------- cases */

/* iparam[0]: 1 normal, 0 uniform; iparam[1]: 1 statistics mode. fparam[0..1]: lo/hi or mean/std. */
static void run_rand(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    bool normal = c->iparam[0] == 1;
    double a = c->fparam[0], b = c->fparam[1];
    uint64_t seed = wkt_rng_next(rng);
    int64_t n = 1;
    for (int i = 0; i < c->rank; i++)
        n *= c->shape[i];
    size_t es = wk_dtype_size(c->dtype);
    wk_tensor *t = NULL;
    void *got = NULL, *want = malloc((size_t)n * es + 1);
    double *want_d = malloc((size_t)n * sizeof *want_d + 1), *got_d = NULL;
    if (!want || !want_d) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    if (!philox_ref_ok()) {
        wkt_fail(r, "the test's reference Philox fails Random123's known answers");
        goto done;
    }
    wk_status s = normal ? wk_rand_normal(dev, c->dtype, c->rank, c->shape, seed, a, b, &t)
                         : wk_rand_uniform(dev, c->dtype, c->rank, c->shape, seed, a, b, &t);
    if (wkt_failed(s, r, c->op) || !crt_read(t, &got, r))
        goto done;
    if (wk_tensor_rank(t) != c->rank || (c->rank && memcmp(wk_tensor_shape(t), c->shape, (size_t)c->rank * 8)) ||
        wk_tensor_dtype(t) != c->dtype) {
        wkt_fail(r, "result has the wrong dtype or shape");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        double v = ref_element(c->dtype, normal, seed, a, b, i);
        crt_from_double(c->dtype, v, want, i); /* exact for f32/f64; f16/bf16 rounded from the f32 */
        want_d[i] = crt_get(c->dtype, want, i);
    }
    if (!normal) {
        crt_compare(c->dtype, got, want, n, "uniform", r); /* bit-identical on every backend */
        for (int64_t i = 0; i < n && r->pass; i++) {
            double v = crt_get(c->dtype, got, i);
            if (!(v >= wkt_round_to(c->dtype, a) && v <= wkt_round_to(c->dtype, b)))
                wkt_fail(r, "uniform element %lld = %g outside [%g, %g]", (long long)i, v, a, b);
        }
    } else {
        /* log/sin/cos may differ by an ulp between math libraries */
        got_d = malloc((size_t)n * sizeof *got_d + 1);
        if (!got_d) {
            wkt_fail(r, "out of host memory");
            goto done;
        }
        for (int64_t i = 0; i < n; i++)
            got_d[i] = crt_get(c->dtype, got, i);
        wkt_compare(c->dtype, got_d, want_d, n, c->dtype == WK_F64 ? 1e-13 : wkt_tol(c->dtype, 0), false, r);
    }
    if (c->iparam[1] && r->pass && n > 1) {
        /* statistics of the sample, and other seeds (low and high key word) giving other values */
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < n; i++)
            sum += crt_get(c->dtype, got, i);
        double mean = sum / (double)n;
        for (int64_t i = 0; i < n; i++) {
            double d = crt_get(c->dtype, got, i) - mean;
            sq += d * d;
        }
        double sd = sqrt(sq / (double)(n - 1));
        double want_mean = normal ? a : (a + b) / 2, want_sd = normal ? b : (b - a) / sqrt(12.0);
        /* 6 standard errors of the mean; 3% on the deviation (f16/bf16 rounding included) */
        if (fabs(mean - want_mean) > 6 * want_sd / sqrt((double)n) || fabs(sd / want_sd - 1) > 0.03)
            wkt_fail(r, "sample mean %g, std %g; expected %g, %g", mean, sd, want_mean, want_sd);
        uint64_t others[2] = {seed + 1, seed ^ (UINT64_C(1) << 40)};
        for (int k = 0; k < 2 && r->pass; k++) {
            wk_tensor *o = NULL;
            void *og = NULL;
            s = normal ? wk_rand_normal(dev, c->dtype, c->rank, c->shape, others[k], a, b, &o)
                       : wk_rand_uniform(dev, c->dtype, c->rank, c->shape, others[k], a, b, &o);
            if (!wkt_failed(s, r, c->op) && crt_read(o, &og, r)) {
                int64_t same = 0;
                for (int64_t i = 0; i < n; i++)
                    same += memcmp((char *)og + i * (int64_t)es, (char *)got + i * (int64_t)es, es) == 0;
                if (same > n / (es >= 4 ? 100 : 10))
                    wkt_fail(r, "seed %llx and %llx agree on %lld of %lld elements", (unsigned long long)seed,
                             (unsigned long long)others[k], (long long)same, (long long)n);
            }
            free(og);
            wk_tensor_release(o);
        }
    }
done:
    free(want);
    free(want_d);
    free(got);
    free(got_d);
    wk_tensor_release(t);
}

static void add(wkt_list *l, wk_dtype dt, bool normal, int rank, const int64_t *shape, double a, double b,
                bool stats)
{
    wkt_case c = {.family = "creation", .dtype = dt, .layout = WKT_CONTIG, .rank = rank, .run = run_rand};
    snprintf(c.op, sizeof c.op, "%s", normal ? "rand_normal" : "rand_uniform");
    if (rank)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[0] = normal;
    c.iparam[1] = stats;
    c.fparam[0] = a;
    c.fparam[1] = b;
    wkt_add(l, &c);
}

void crt_rand_cases(wkt_list *l)
{
    static const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    static const int64_t flat[] = {1000}, cube[] = {3, 7, 11}, empty[] = {0, 4}, big[] = {300, 131},
                         sample[] = {1 << 17};
    for (int k = 0; k < 4; k++) {
        wk_dtype dt = floats[k];
        for (int normal = 0; normal < 2; normal++) {
            add(l, dt, normal, 1, flat, 0, 1, false);
            add(l, dt, normal, 1, flat, normal ? 2.5 : -3, normal ? 0.5 : 5.5, false);
            add(l, dt, normal, 3, cube, normal ? -1 : 0.25, normal ? 3 : 0.5, false);
            add(l, dt, normal, 0, NULL, 0, 1, false);
            add(l, dt, normal, 2, empty, 0, 1, false);
            add(l, dt, normal, 2, big, normal ? 0 : -1, normal ? 1 : 1, false); /* threaded */
            add(l, dt, normal, 1, sample, normal ? 0.5 : -1, normal ? 2 : 3, true);
        }
    }
}

void crt_rand_errors(wkt_errctx *e)
{
    int64_t shape[2] = {2, 3}, bad[2] = {2, -3};
    wk_tensor *o = NULL;
    wk_device *dev = e->dev;
    WKT_EXPECT(e, wk_rand_uniform(NULL, WK_F32, 2, shape, 1, 0, 1, &o), WK_ERR_INVALID_ARGUMENT, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 2, shape, 1, 0, 1, NULL), WK_ERR_INVALID_ARGUMENT, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_I32, 2, shape, 1, 0, 1, &o), WK_ERR_DTYPE, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, (wk_dtype)77, 2, shape, 1, 0, 1, &o), WK_ERR_DTYPE, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 2, bad, 1, 0, 1, &o), WK_ERR_SHAPE, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 9, shape, 1, 0, 1, &o), WK_ERR_SHAPE, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 2, NULL, 1, 0, 1, &o), WK_ERR_INVALID_ARGUMENT, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 2, shape, 1, 2, 1, &o), WK_ERR_INVALID_ARGUMENT, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F64, 2, shape, 1, NAN, 1, &o), WK_ERR_INVALID_ARGUMENT, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F64, 2, shape, 1, 0, INFINITY, &o), WK_ERR_INVALID_ARGUMENT,
               "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 2, shape, 1, -1e39, 0, &o), WK_ERR_INVALID_ARGUMENT, "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F32, 2, shape, 1, -3e38, 3e38, &o), WK_ERR_INVALID_ARGUMENT,
               "rand_uniform");
    WKT_EXPECT(e, wk_rand_uniform(dev, WK_F64, 2, shape, 1, -1.5e308, 1.5e308, &o), WK_ERR_INVALID_ARGUMENT,
               "rand_uniform");
    WKT_EXPECT(e, wk_rand_normal(dev, WK_F32, 2, shape, 1, 0, -1, &o), WK_ERR_INVALID_ARGUMENT, "rand_normal");
    WKT_EXPECT(e, wk_rand_normal(dev, WK_U8, 2, shape, 1, 0, 1, &o), WK_ERR_DTYPE, "rand_normal");
    WKT_EXPECT(e, wk_rand_normal(dev, WK_F16, 2, shape, 1, NAN, 1, &o), WK_ERR_INVALID_ARGUMENT, "rand_normal");
    WKT_EXPECT(e, wk_rand_normal(dev, WK_F16, 2, shape, 1, 0, 1, NULL), WK_ERR_INVALID_ARGUMENT, "rand_normal");
    crt_expect_untouched(e, o, "rand");
}

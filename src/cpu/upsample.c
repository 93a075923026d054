/* upsample.c: the CPU's nearest (NCL / NCHW, any dtype) and bilinear (NCHW, float) resampling of strided
 * input. Source offsets and weights are worked out once per axis, with PyTorch's float arithmetic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"

/* Per-axis tables: source offsets in elements (index * the input's stride) and, for bilinear, the two
 * weights. Nearest uses off0 only. */
typedef struct axis_table {
    int64_t *off0, *off1;
    double *w0, *w1; /* values of the op's opmath type (float or double), held exactly as double */
} axis_table;

typedef struct resample_job {
    const wk_tensor *x;
    wk_tensor *out;
    int64_t channels, OH, OW;
    axis_table h, w;
} resample_job;

/* One block holding the tables of both axes; NULL when out of memory. */
static void *tables_alloc(resample_job *j)
{
    int64_t n = j->OH + j->OW;
    char *mem = malloc((size_t)n * (2 * sizeof(int64_t) + 2 * sizeof(double)));
    if (!mem)
        return NULL;
    axis_table *ax[2] = {&j->h, &j->w};
    int64_t len[2] = {j->OH, j->OW}, at = 0;
    for (int a = 0; a < 2; a++) {
        ax[a]->off0 = (int64_t *)mem + at;
        ax[a]->off1 = (int64_t *)mem + n + at;
        ax[a]->w0 = (double *)((int64_t *)mem + 2 * n) + at;
        ax[a]->w1 = (double *)((int64_t *)mem + 2 * n) + n + at;
        at += len[a];
    }
    return mem;
}

/* ---------------------------------------------------------------- nearest */

/* PyTorch's nearest_neighbor_compute_source_index with scale = in / out computed in float. */
static void nearest_axis(int64_t in, int64_t out, int64_t stride, int64_t *off)
{
    float scale = (float)in / (float)out;
    for (int64_t i = 0; i < out; i++) {
        float f = floorf((float)i * scale);
        int64_t src = f < (float)(in - 1) ? (int64_t)f : in - 1;
        off[i] = src * stride;
    }
}

/* Nearest only copies, so one kernel per element size serves every dtype. */
#define NEAREST_KERNEL(ES)                                                                   \
    static void nearest_rows_##ES(void *ctx, int64_t begin, int64_t end)                     \
    {                                                                                        \
        const resample_job *j = ctx;                                                         \
        const int64_t *st = j->x->strides;                                                   \
        const char *x = wk_tensor_data(j->x);                                                \
        char *o = (char *)wk_tensor_data(j->out) + begin * j->OW * ES;                       \
        for (int64_t r = begin; r < end; r++) {                                              \
            int64_t oh = r % j->OH, nc = r / j->OH;                                          \
            int64_t at = (nc / j->channels) * st[0] + (nc % j->channels) * st[1] + j->h.off0[oh]; \
            const char *row = x + at * ES;                                                   \
            for (int64_t ow = 0; ow < j->OW; ow++, o += ES)                                  \
                memcpy(o, row + j->w.off0[ow] * ES, ES);                                     \
        }                                                                                    \
    }
NEAREST_KERNEL(1)
NEAREST_KERNEL(2)
NEAREST_KERNEL(4)
NEAREST_KERNEL(8)

wk_status wk_cpu_upsample_nearest(const wk_tensor *x, wk_tensor *out)
{
    /* NCL is NCHW with H = 1 */
    bool is1d = x->rank == 3;
    resample_job j = {.x = x, .out = out, .channels = x->shape[1], .OH = is1d ? 1 : out->shape[2],
                      .OW = out->shape[x->rank - 1]};
    void *mem = tables_alloc(&j);
    if (!mem)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "upsample_nearest: cannot allocate index tables");
    if (is1d)
        j.h.off0[0] = 0;
    else
        nearest_axis(x->shape[2], j.OH, x->strides[2], j.h.off0);
    nearest_axis(x->shape[x->rank - 1], j.OW, x->strides[x->rank - 1], j.w.off0);
    size_t es = wk_dtype_size(x->dtype);
    wk_range_fn fn = es == 1 ? nearest_rows_1 : es == 2 ? nearest_rows_2 : es == 4 ? nearest_rows_4 : nearest_rows_8;
    wk_cpu_parallel_for(out->shape[0] * j.channels * j.OH, WK_CPU_GRAIN / j.OW + 1, fn, &j);
    free(mem);
    return WK_OK;
}

/* ---------------------------------------------------------------- bilinear */

/* PyTorch's area_pixel_compute_scale + compute_source_index_and_lambda in the opmath type OPM (float for
 * f16/bf16/f32, double for f64). An axis of unchanged size is copied whatever the scale. PyTorch floors
 * with floorf for both types; the bound check comes before the conversion so a huge index stays defined. */
#define LINEAR_AXIS(OPM, name)                                                               \
    static void name(int64_t in, int64_t out, bool align, double scale, int64_t stride, axis_table *a) \
    {                                                                                        \
        OPM ratio;                                                                           \
        if (align)                                                                           \
            ratio = out > 1 ? (OPM)(in - 1) / (OPM)(out - 1) : (OPM)0;                       \
        else                                                                                 \
            ratio = scale > 0 ? (OPM)(1.0 / scale) : (OPM)in / (OPM)out;                     \
        for (int64_t i = 0; i < out; i++) {                                                  \
            int64_t i0 = i, i1 = i;                                                          \
            OPM l1 = 0;                                                                      \
            if (in != out) {                                                                 \
                OPM real = align ? ratio * (OPM)i : ratio * ((OPM)i + (OPM)0.5) - (OPM)0.5;  \
                if (!align && real < 0)                                                      \
                    real = 0;                                                                \
                float f = floorf((float)real);                                               \
                i0 = f < (float)(in - 1) ? (int64_t)f : in - 1;                              \
                l1 = real - (OPM)i0;                                                         \
                l1 = l1 < 0 ? 0 : l1 > 1 ? 1 : l1;                                           \
                i1 = i0 + (i0 < in - 1 ? 1 : 0);                                             \
            }                                                                                \
            a->off0[i] = i0 * stride;                                                        \
            a->off1[i] = i1 * stride;                                                        \
            a->w0[i] = (OPM)1 - l1;                                                          \
            a->w1[i] = l1;                                                                   \
        }                                                                                    \
    }
LINEAR_AXIS(float, linear_axis_f32)
LINEAR_AXIS(double, linear_axis_f64)

/* Width first, then height, as PyTorch's generic interpolation nests them. */
#define BILINEAR_KERNEL(E, sfx, T, C)                                                        \
    static void bilinear_rows_##sfx(void *ctx, int64_t begin, int64_t end)                   \
    {                                                                                        \
        const resample_job *j = ctx;                                                         \
        const int64_t *st = j->x->strides;                                                   \
        const T *x = wk_tensor_data(j->x);                                                   \
        T *o = (T *)wk_tensor_data(j->out) + begin * j->OW;                                  \
        for (int64_t r = begin; r < end; r++) {                                              \
            int64_t oh = r % j->OH, nc = r / j->OH;                                          \
            const T *plane = x + (nc / j->channels) * st[0] + (nc % j->channels) * st[1];    \
            const T *r0 = plane + j->h.off0[oh], *r1 = plane + j->h.off1[oh];                \
            C h0 = (C)j->h.w0[oh], h1 = (C)j->h.w1[oh];                                      \
            for (int64_t ow = 0; ow < j->OW; ow++) {                                         \
                int64_t a = j->w.off0[ow], b = j->w.off1[ow];                                \
                C w0 = (C)j->w.w0[ow], w1 = (C)j->w.w1[ow];                                  \
                C t0 = wk_ld_##sfx(r0 + a) * w0 + wk_ld_##sfx(r0 + b) * w1;                  \
                C t1 = wk_ld_##sfx(r1 + a) * w0 + wk_ld_##sfx(r1 + b) * w1;                  \
                wk_st_##sfx(o++, t0 * h0 + t1 * h1);                                         \
            }                                                                                \
        }                                                                                    \
    }
BILINEAR_KERNEL(WK_F16, f16, wk_f16_t, float)
BILINEAR_KERNEL(WK_BF16, bf16, wk_bf16_t, float)
BILINEAR_KERNEL(WK_F32, f32, float, float)
BILINEAR_KERNEL(WK_F64, f64, double, double)

wk_status wk_cpu_upsample_bilinear2d(const wk_tensor *x, bool align_corners, double scale_h, double scale_w,
                                     wk_tensor *out)
{
    resample_job j = {.x = x, .out = out, .channels = x->shape[1], .OH = out->shape[2], .OW = out->shape[3]};
    void *mem = tables_alloc(&j);
    if (!mem)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "upsample_bilinear2d: cannot allocate weight tables");
    void (*axis)(int64_t, int64_t, bool, double, int64_t, axis_table *) =
        x->dtype == WK_F64 ? linear_axis_f64 : linear_axis_f32;
    axis(x->shape[2], j.OH, align_corners, scale_h, x->strides[2], &j.h);
    axis(x->shape[3], j.OW, align_corners, scale_w, x->strides[3], &j.w);
    wk_range_fn fn = x->dtype == WK_F16    ? bilinear_rows_f16
                     : x->dtype == WK_BF16 ? bilinear_rows_bf16
                     : x->dtype == WK_F32  ? bilinear_rows_f32
                                           : bilinear_rows_f64;
    wk_cpu_parallel_for(out->shape[0] * j.channels * j.OH, WK_CPU_GRAIN / (4 * j.OW) + 1, fn, &j);
    free(mem);
    return WK_OK;
}

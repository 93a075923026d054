/* conv_im2col.c: the lowering of convolution to GEMM: im2col gathers every kernel tap of a (strided, any float
 * dtype) input into the rows of a column matrix; col2im scatters such a matrix back, summing overlaps.
 * Also the direct plane kernel for depthwise convolutions, where a GEMM would have an inner dim of kh*kw. */
#include <string.h>

#include "cpu/gemm.h"

/* Small indices s in [0, small) with 0 <= s*stride + off < big, as [*lo, *hi). */
static void valid_range(int64_t off, int64_t stride, int64_t big, int64_t small, int64_t *lo, int64_t *hi)
{
    int64_t l = off >= 0 ? 0 : (-off + stride - 1) / stride;
    int64_t h = big - off <= 0 ? 0 : (big - off - 1) / stride + 1;
    if (h > small)
        h = small;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

typedef struct im2col_job {
    const wk_conv_geom *g;
    wk_dtype dt;
    const char *big;
    int64_t sc, sh, sw;
    char *col;
} im2col_job;

/* Rows [begin, end) of col; row = (channel, ky, kx), one column per small position. */
static void im2col_rows(void *arg, int64_t begin, int64_t end)
{
    const im2col_job *j = arg;
    const wk_conv_geom *g = j->g;
    size_t es = wk_dtype_size(j->dt), ces = wk_dtype_size(wk_gemm_compute_dtype(j->dt));
    char *dst = j->col + (size_t)(begin * g->small_h * g->small_w) * ces;
    for (int64_t row = begin; row < end; row++) {
        int64_t kx = row % g->kw, ky = row / g->kw % g->kh, c = row / (g->kw * g->kh);
        int64_t off_y = ky * g->dil_h - g->pad_h, off_x = kx * g->dil_w - g->pad_w, lo, hi;
        valid_range(off_x, g->stride_w, g->big_w, g->small_w, &lo, &hi);
        for (int64_t oy = 0; oy < g->small_h; oy++, dst += (size_t)g->small_w * ces) {
            int64_t iy = oy * g->stride_h + off_y;
            if (iy < 0 || iy >= g->big_h || lo == hi) { /* zero bytes are 0.0 in f32 and f64 */
                memset(dst, 0, (size_t)g->small_w * ces);
                continue;
            }
            const char *src = j->big + (size_t)(c * j->sc + iy * j->sh + (lo * g->stride_w + off_x) * j->sw) * es;
            memset(dst, 0, (size_t)lo * ces);
            wk_load_run(j->dt, src, g->stride_w * j->sw, hi - lo, dst + (size_t)lo * ces);
            memset(dst + (size_t)hi * ces, 0, (size_t)(g->small_w - hi) * ces);
        }
    }
}

void wk_im2col(const wk_conv_geom *g, wk_dtype dt, const void *big, int64_t sc, int64_t sh, int64_t sw, void *col)
{
    im2col_job j = {.g = g, .dt = dt, .big = big, .sc = sc, .sh = sh, .sw = sw, .col = col};
    int64_t cols = g->small_h * g->small_w;
    wk_gemm_for(g->channels * g->kh * g->kw, WK_CPU_GRAIN / (cols > 0 ? cols : 1) + 1, im2col_rows, &j);
}

typedef struct col2im_job {
    const wk_conv_geom *g;
    const void *col;
    void *big;
} col2im_job;

/* Channels [begin, end) of big: each receives only its own kh*kw rows of col, so threads never share a write. */
#define COL2IM(sfx, T)                                                                                    \
    static void col2im_##sfx(void *arg, int64_t begin, int64_t end)                                       \
    {                                                                                                     \
        const col2im_job *j = arg;                                                                        \
        const wk_conv_geom *g = j->g;                                                                     \
        const T *col = (const T *)j->col + begin * g->kh * g->kw * g->small_h * g->small_w;               \
        for (int64_t c = begin; c < end; c++) {                                                           \
            T *plane = (T *)j->big + c * g->big_h * g->big_w;                                             \
            for (int64_t ky = 0; ky < g->kh; ky++)                                                        \
                for (int64_t kx = 0; kx < g->kw; kx++) {                                                  \
                    int64_t off_y = ky * g->dil_h - g->pad_h, off_x = kx * g->dil_w - g->pad_w, lo, hi;   \
                    valid_range(off_x, g->stride_w, g->big_w, g->small_w, &lo, &hi);                      \
                    for (int64_t oy = 0; oy < g->small_h; oy++, col += g->small_w) {                      \
                        int64_t iy = oy * g->stride_h + off_y;                                            \
                        if (iy < 0 || iy >= g->big_h)                                                     \
                            continue;                                                                     \
                        T *dst = plane + iy * g->big_w; /* + off_x per tap only: it may be negative */   \
                        for (int64_t ox = lo; ox < hi; ox++)                                              \
                            dst[ox * g->stride_w + off_x] += col[ox];                                     \
                    }                                                                                     \
                }                                                                                         \
        }                                                                                                 \
    }
COL2IM(f32, float)
COL2IM(f64, double)
#undef COL2IM

void wk_col2im(const wk_conv_geom *g, wk_dtype ct, const void *col, void *big)
{
    col2im_job j = {.g = g, .col = col, .big = big};
    int64_t per_channel = g->kh * g->kw * g->small_h * g->small_w;
    wk_gemm_for(g->channels, WK_CPU_GRAIN / (per_channel > 0 ? per_channel : 1) + 1,
                ct == WK_F64 ? col2im_f64 : col2im_f32, &j);
}

/* Tap by tap, one output row segment at a time, so the inner loop runs over contiguous small indices. */
#define CONV_PLANE(sfx, T)                                                                                \
    static void conv_plane_##sfx(const wk_conv_geom *g, bool transposed, const T *x, const T *w, T *out) \
    {                                                                                                     \
        for (int64_t ky = 0; ky < g->kh; ky++)                                                            \
            for (int64_t kx = 0; kx < g->kw; kx++) {                                                      \
                T wv = w[ky * g->kw + kx];                                                                \
                int64_t off_y = ky * g->dil_h - g->pad_h, off_x = kx * g->dil_w - g->pad_w, lo, hi;       \
                valid_range(off_x, g->stride_w, g->big_w, g->small_w, &lo, &hi);                          \
                for (int64_t sy = 0; sy < g->small_h; sy++) {                                             \
                    int64_t by = sy * g->stride_h + off_y;                                                \
                    if (by < 0 || by >= g->big_h)                                                         \
                        continue;                                                                         \
                    if (transposed) {                                                                     \
                        const T *src = x + sy * g->small_w;                                               \
                        T *dst = out + by * g->big_w;                                                     \
                        for (int64_t sx = lo; sx < hi; sx++)                                              \
                            dst[sx * g->stride_w + off_x] += wv * src[sx];                                \
                    } else {                                                                              \
                        const T *src = x + by * g->big_w;                                                 \
                        T *dst = out + sy * g->small_w;                                                   \
                        for (int64_t sx = lo; sx < hi; sx++)                                              \
                            dst[sx] += wv * src[sx * g->stride_w + off_x];                                \
                    }                                                                                     \
                }                                                                                         \
            }                                                                                             \
    }
CONV_PLANE(f32, float)
CONV_PLANE(f64, double)
#undef CONV_PLANE

void wk_conv_plane(const wk_conv_geom *g, wk_dtype ct, bool transposed, const void *x, const void *w, void *out)
{
    if (ct == WK_F64)
        conv_plane_f64(g, transposed, x, w, out);
    else
        conv_plane_f32(g, transposed, x, w, out);
}

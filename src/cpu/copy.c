/* copy.c: the CPU's data-movement slots: fill (const_set) of any non-overlapping view, strided copy, the 2-D
 * block copy, and arange. Fill and copies move raw element bytes: one kernel per element size serves every dtype. */
#include <string.h>

#include "cpu/cpu.h"

/* ---- fill: the value is already in storage form, so only the element size matters */

typedef struct fill_ctx {
    wk_scalar v;
    size_t es;
} fill_ctx;

#define FILL_RUN(T, field)                                                     \
    static void fill_run_##T(const fill_ctx *c, int64_t n, char *p, int64_t s) \
    {                                                                          \
        T v = c->v.field;                                                      \
        if (s == (int64_t)sizeof(T)) {                                         \
            T *d = (T *)p;                                                     \
            for (int64_t i = 0; i < n; i++)                                    \
                d[i] = v;                                                      \
        } else {                                                               \
            for (int64_t i = 0; i < n; i++)                                    \
                *(T *)(p + i * s) = v;                                         \
        }                                                                      \
    }
FILL_RUN(uint16_t, h)
FILL_RUN(uint32_t, u32)
FILL_RUN(uint64_t, i64)
#undef FILL_RUN

static void fill_fn(void *ctx, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const fill_ctx *c = ctx;
    switch (c->es) {
    case 1:
        if (strides[0] == 1)
            memset(ptrs[0], c->v.u8, (size_t)n);
        else
            for (int64_t i = 0; i < n; i++)
                ptrs[0][i * strides[0]] = (char)c->v.u8;
        break;
    case 2: fill_run_uint16_t(c, n, ptrs[0], strides[0]); break;
    case 4: fill_run_uint32_t(c, n, ptrs[0], strides[0]); break;
    default: fill_run_uint64_t(c, n, ptrs[0], strides[0]); break;
    }
}

wk_status wk_cpu_fill(wk_tensor *dst, wk_scalar v)
{
    fill_ctx c = {.v = v, .es = wk_dtype_size(dst->dtype)};
    const wk_tensor *ops[1] = {dst};
    wk_cpu_foreach(dst->rank, dst->shape, 1, ops, WK_CPU_GRAIN, fill_fn, &c);
    return WK_OK;
}

/* ---- copy: dst and src are the same dtype; bytes move unchanged */

#define COPY_RUN(T)                                                                            \
    static void copy_run_##T(int64_t n, char *d, int64_t ds, const char *s, int64_t ss)        \
    {                                                                                          \
        if (ss == 0) {                                                                         \
            T v;                                                                               \
            memcpy(&v, s, sizeof v);                                                           \
            for (int64_t i = 0; i < n; i++)                                                    \
                memcpy(d + i * ds, &v, sizeof v);                                              \
        } else {                                                                               \
            for (int64_t i = 0; i < n; i++)                                                    \
                memcpy(d + i * ds, s + i * ss, sizeof(T));                                     \
        }                                                                                      \
    }
COPY_RUN(uint8_t)
COPY_RUN(uint16_t)
COPY_RUN(uint32_t)
COPY_RUN(uint64_t)
#undef COPY_RUN

static void copy_fn(void *ctx, int64_t n, char *const *ptrs, const int64_t *strides)
{
    int64_t es = (int64_t)(size_t)ctx;
    if (strides[0] == es && strides[1] == es) {
        memcpy(ptrs[0], ptrs[1], (size_t)(n * es));
        return;
    }
    switch (es) {
    case 1: copy_run_uint8_t(n, ptrs[0], strides[0], ptrs[1], strides[1]); break;
    case 2: copy_run_uint16_t(n, ptrs[0], strides[0], ptrs[1], strides[1]); break;
    case 4: copy_run_uint32_t(n, ptrs[0], strides[0], ptrs[1], strides[1]); break;
    default: copy_run_uint64_t(n, ptrs[0], strides[0], ptrs[1], strides[1]); break;
    }
}

wk_status wk_cpu_copy(const wk_tensor *src, wk_tensor *dst)
{
    const wk_tensor *ops[2] = {dst, src};
    size_t es = wk_dtype_size(dst->dtype);
    wk_cpu_foreach(dst->rank, dst->shape, 2, ops, WK_CPU_GRAIN, copy_fn, (void *)es);
    return WK_OK;
}

/* ---- copy2d: rows of cols elements; each row is one memcpy (memmove when the storages are shared) */

typedef struct copy2d_ctx {
    char *dst;
    const char *src;
    int64_t cols_bytes, src_ld_bytes, dst_ld_bytes;
    bool same_storage;
} copy2d_ctx;

static void copy2d_rows(void *arg, int64_t begin, int64_t end)
{
    const copy2d_ctx *c = arg;
    for (int64_t r = begin; r < end; r++) {
        char *d = c->dst + r * c->dst_ld_bytes;
        const char *s = c->src + r * c->src_ld_bytes;
        if (c->same_storage)
            memmove(d, s, (size_t)c->cols_bytes);
        else
            memcpy(d, s, (size_t)c->cols_bytes);
    }
}

wk_status wk_cpu_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                        int64_t dst_ld, int64_t src_offset, int64_t dst_offset)
{
    int64_t es = (int64_t)wk_dtype_size(dst->dtype);
    if (rows <= 0 || cols <= 0)
        return WK_OK;
    copy2d_ctx c = {
        .dst = (char *)dst->storage->data + dst_offset * es,
        .src = (const char *)src->storage->data + src_offset * es,
        .cols_bytes = cols * es,
        .src_ld_bytes = src_ld * es,
        .dst_ld_bytes = dst_ld * es,
        .same_storage = src->storage == dst->storage,
    };
    /* Rows of one storage may overlap each other: only then is the order of rows visible, so keep one thread. */
    int64_t grain = c.same_storage ? rows : (WK_CPU_GRAIN + cols - 1) / cols;
    wk_cpu_parallel_for(rows, grain, copy2d_rows, &c);
    return WK_OK;
}

/* ---- arange: dst[i] = (dtype)(start + i*step) with the conversion rules of wk_cast */

typedef struct arange_ctx {
    void *dst;
    double start, step;
} arange_ctx;

#define ARANGE_STORE_INT(sfx, T) \
    static inline void arange_st_##sfx(T *p, double v) { *p = wk_sat_##sfx(v); }
ARANGE_STORE_INT(u8, uint8_t)
ARANGE_STORE_INT(u32, uint32_t)
ARANGE_STORE_INT(i32, int32_t)
ARANGE_STORE_INT(i64, int64_t)
#undef ARANGE_STORE_INT
static inline void arange_st_f16(wk_f16_t *p, double v) { *p = wk_f64_to_f16(v); }
static inline void arange_st_bf16(wk_bf16_t *p, double v) { *p = wk_f64_to_bf16(v); }
static inline void arange_st_f32(float *p, double v) { *p = (float)v; }
static inline void arange_st_f64(double *p, double v) { *p = v; }

#define ARANGE_KERNEL(E, sfx, T, C)                                          \
    static void arange_##sfx(void *arg, int64_t begin, int64_t end)          \
    {                                                                        \
        const arange_ctx *c = arg;                                           \
        T *d = c->dst;                                                       \
        for (int64_t i = begin; i < end; i++)                                \
            arange_st_##sfx(d + i, c->start + (double)i * c->step);          \
    }
WK_CPU_DTYPES(ARANGE_KERNEL)
#undef ARANGE_KERNEL

wk_status wk_cpu_arange(wk_tensor *dst, double start, double step)
{
    static const wk_range_fn kernels[WK_DTYPE_COUNT] = {
#define ARANGE_ENTRY(E, sfx, T, C) [E] = arange_##sfx,
        WK_CPU_DTYPES(ARANGE_ENTRY)
#undef ARANGE_ENTRY
    };
    arange_ctx c = {.dst = wk_tensor_data(dst), .start = start, .step = step};
    wk_cpu_parallel_for(wk_tensor_numel(dst), WK_CPU_GRAIN, kernels[dst->dtype], &c);
    return WK_OK;
}

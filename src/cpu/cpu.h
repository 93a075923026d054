/* cpu.h: the CPU backend's slot implementations (one file per op family) and the helpers they share:
 * per-dtype loads/stores and the X-macro that instantiates a kernel for each dtype. */
#ifndef WK_CPU_H
#define WK_CPU_H

#include "backend.h"
#include "cpu/iter.h"

/* Element types by dtype. f16 and bf16 are stored as uint16_t and computed in float. */
typedef uint16_t wk_f16_t;
typedef uint16_t wk_bf16_t;

/* X(dtype_enum, suffix, storage_type, compute_type) for every dtype. */
#define WK_CPU_DTYPES(X)                         \
    X(WK_U8, u8, uint8_t, uint8_t)               \
    X(WK_U32, u32, uint32_t, uint32_t)           \
    X(WK_I32, i32, int32_t, int32_t)             \
    X(WK_I64, i64, int64_t, int64_t)             \
    X(WK_F16, f16, wk_f16_t, float)              \
    X(WK_BF16, bf16, wk_bf16_t, float)           \
    X(WK_F32, f32, float, float)                 \
    X(WK_F64, f64, double, double)

/* Storage <-> compute conversions, one pair per dtype suffix, for use in macro-instantiated kernels. */
#define WK_CPU_LOADSTORE(sfx, T, C)                                   \
    static inline C wk_ld_##sfx(const T *p) { return (C)*p; }         \
    static inline void wk_st_##sfx(T *p, C v) { *p = (T)v; }
WK_CPU_LOADSTORE(u8, uint8_t, uint8_t)
WK_CPU_LOADSTORE(u32, uint32_t, uint32_t)
WK_CPU_LOADSTORE(i32, int32_t, int32_t)
WK_CPU_LOADSTORE(i64, int64_t, int64_t)
WK_CPU_LOADSTORE(f32, float, float)
WK_CPU_LOADSTORE(f64, double, double)
#undef WK_CPU_LOADSTORE
static inline float wk_ld_f16(const wk_f16_t *p) { return wk_f16_bits_to_f32(*p); }
static inline void wk_st_f16(wk_f16_t *p, float v) { *p = wk_f32_to_f16_bits(v); }
static inline float wk_ld_bf16(const wk_bf16_t *p) { return wk_bf16_bits_to_f32(*p); }
static inline void wk_st_bf16(wk_bf16_t *p, float v) { *p = wk_f32_to_bf16_bits(v); }

/* Reads element i (in elements from a view's data pointer) of an index tensor of any index dtype. */
static inline int64_t wk_cpu_load_index(wk_dtype dt, const void *base, int64_t i)
{
    switch (dt) {
    case WK_U8: return ((const uint8_t *)base)[i];
    case WK_U32: return ((const uint32_t *)base)[i];
    case WK_I32: return ((const int32_t *)base)[i];
    default: return ((const int64_t *)base)[i];
    }
}

/* Element i of a float view's data (f16, bf16, f32, f64) as a double, and a double stored into dtype dt
 * (rounded through f32 for f16/bf16). */
static inline double wk_cpu_ld_float(wk_dtype dt, const void *base, int64_t i)
{
    switch (dt) {
    case WK_F16: return wk_f16_bits_to_f32(((const wk_f16_t *)base)[i]);
    case WK_BF16: return wk_bf16_bits_to_f32(((const wk_bf16_t *)base)[i]);
    case WK_F32: return ((const float *)base)[i];
    default: return ((const double *)base)[i];
    }
}
static inline void wk_cpu_st_float(wk_dtype dt, void *base, int64_t i, double v)
{
    switch (dt) {
    case WK_F16: ((wk_f16_t *)base)[i] = wk_f32_to_f16_bits((float)v); break;
    case WK_BF16: ((wk_bf16_t *)base)[i] = wk_f32_to_bf16_bits((float)v); break;
    case WK_F32: ((float *)base)[i] = (float)v; break;
    default: ((double *)base)[i] = v; break;
    }
}

/* device and memory: backend.c */
wk_status wk_cpu_probe(wk_backend_info *info);
wk_status wk_cpu_device(int ordinal, wk_device **out);
wk_status wk_cpu_alloc(wk_device *dev, size_t bytes, void **ptr);
void wk_cpu_free(wk_device *dev, void *ptr, size_t bytes);
wk_status wk_cpu_upload(wk_device *dev, void *dst, const void *src, size_t bytes);
wk_status wk_cpu_download(wk_device *dev, void *dst, const void *src, size_t bytes);
wk_status wk_cpu_sync(wk_device *dev);
/* stream.c: streams and events of a backend whose ops run when called (wick.h "streams"). */
extern const wk_stream_backend wk_cpu_streams;

/* copy.c: fill, copy, copy2d */
wk_status wk_cpu_fill(wk_tensor *dst, wk_scalar v);
wk_status wk_cpu_copy(const wk_tensor *src, wk_tensor *dst);
wk_status wk_cpu_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                        int64_t dst_ld, int64_t src_offset, int64_t dst_offset);
/* cast.c: cast, arange */
wk_status wk_cpu_cast(const wk_tensor *src, wk_tensor *dst);
wk_status wk_cpu_arange(wk_tensor *dst, double start, double step);
/* rand.c */
wk_status wk_cpu_rand_uniform(wk_tensor *dst, uint64_t seed, double lo, double hi);
wk_status wk_cpu_rand_normal(wk_tensor *dst, uint64_t seed, double mean, double std);

/* unary.c: unary, affine, powf, elu, leaky_relu, clamp, glu */
wk_status wk_cpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *out);
wk_status wk_cpu_affine(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out);
wk_status wk_cpu_powf(const wk_tensor *x, double e, wk_tensor *out);
wk_status wk_cpu_elu(const wk_tensor *x, double alpha, wk_tensor *out);
wk_status wk_cpu_leaky_relu(const wk_tensor *x, double negative_slope, wk_tensor *out);
wk_status wk_cpu_glu(wk_glu_kind kind, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
wk_status wk_cpu_clamp(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out);
/* binary.c: binary, compare, where */
wk_status wk_cpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
wk_status wk_cpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
wk_status wk_cpu_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out);

/* reduce.c: reduce; reduce_arg.c: arg_reduce */
wk_status wk_cpu_reduce(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out);
wk_status wk_cpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *out);
/* norm.c: softmax, rms_norm (alone or after a residual add), layer_norm */
wk_status wk_cpu_softmax(const wk_tensor *x, wk_softmax_kind kind, wk_tensor *out);
wk_status wk_cpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out);
wk_status wk_cpu_add_rms_norm(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor *sum,
                              wk_tensor *out);
wk_status wk_cpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out);
/* norm_channel.c: batch_norm and group_norm over (N, C, S) */
wk_status wk_cpu_batch_norm(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                            const wk_tensor *b, double eps, wk_tensor *out);
wk_status wk_cpu_group_norm(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out);
/* stats.c: var, std, logsumexp, norms over the last dim */
wk_status wk_cpu_stats(wk_stats_op op, const wk_tensor *x, double correction, wk_tensor *out);
/* scan.c: cumsum, cumprod, logcumsumexp */
wk_status wk_cpu_scan(wk_scan_op op, const wk_tensor *x, int dim, wk_tensor *out);
/* sort.c */
wk_status wk_cpu_sort(const wk_tensor *x, wk_sort_order order, wk_tensor *values, wk_tensor *indices);
wk_status wk_cpu_topk(const wk_tensor *x, int64_t k, wk_topk_mode mode, wk_tensor *values, wk_tensor *indices);
wk_status wk_cpu_sample_penalize(wk_tensor *z, const wk_tensor *prev, const wk_tensor *params);
wk_status wk_cpu_sample_pick(const wk_tensor *cand, const wk_tensor *cand_ids, const wk_tensor *params, uint64_t offset,
                             wk_tensor *ids);
wk_status wk_cpu_multinomial(const wk_tensor *probs, int64_t n, bool replacement, uint64_t seed, wk_tensor *out);

/* matmul.c */
wk_status wk_cpu_matmul(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor *out);
/* conv.c */
wk_status wk_cpu_conv(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                      wk_conv_dims dims, wk_conv_dir dir, wk_tensor *out);
/* pool.c */
wk_status wk_cpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out);
/* upsample.c */
wk_status wk_cpu_upsample_nearest(const wk_tensor *x, wk_tensor *out);
wk_status wk_cpu_upsample_bilinear2d(const wk_tensor *x, bool align_corners, double scale_h, double scale_w,
                                     wk_tensor *out);

/* index.c: index_select, gather; index_scatter.c: scatter, index_add */
wk_status wk_cpu_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out);
wk_status wk_cpu_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out);
wk_status wk_cpu_scatter(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_scatter_mode mode,
                         wk_write_target target);
wk_status wk_cpu_index_add(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_write_target target);
/* reorder.c: reorder (pad, flip, roll, repeat, repeat_interleave), one_hot */
wk_status wk_cpu_reorder(const wk_tensor *x, const wk_reorder_map *m, wk_tensor *out);
wk_status wk_cpu_one_hot(const wk_tensor *ids, int64_t classes, wk_tensor *out);
/* mask.c: tri, masked_fill */
wk_status wk_cpu_tri(const wk_tensor *x, wk_tri_kind kind, int64_t diagonal, wk_tensor *out);
wk_status wk_cpu_masked_fill(const wk_tensor *x, const wk_tensor *mask, wk_scalar v, wk_tensor *out);
/* quant.c */
wk_status wk_cpu_dequantize(const wk_tensor *x, wk_tensor *out);
wk_status wk_cpu_quantize(const wk_tensor *x, wk_tensor *out);
/* matmul_q.c */
wk_status wk_cpu_matmul_q(const wk_tensor *x, const wk_tensor *w, wk_tensor *out);
/* linear.c */
wk_status wk_cpu_linear(const wk_linear_job *j);
/* rope.c */
wk_status wk_cpu_rope(wk_rope_kind kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin,
                      wk_tensor *out);

/* attention.c, attention_cache.c */
wk_status wk_cpu_attention(const wk_attn *a);
wk_status wk_cpu_kv_append(const wk_kv_write *w);

/* Communicators over the threads of this process (comm.c); what a collective does to the buffers (comm_reduce.c):
 * send[i]/recv[i] are part i's (rank i's; for a send/recv pair, 0 sends and 1 receives). */
extern const wk_comm_backend wk_cpu_comm;
void wk_cpu_coll_execute(const wk_coll *c, int size, const void *const *send, void *const *recv);

#endif

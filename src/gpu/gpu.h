/* gpu.h: the vendor-neutral GPU backend's internal interface: per-device state, kernel launch (launch.h),
 * layouts, scratch memory, and the BLAS/DNN tables a vendor fills. Slot files (gpu/<family>.c) use only this. */
#ifndef WK_GPU_H
#define WK_GPU_H

#include "backend.h"
#include "core/error.h"
#include "gpu/launch.h"
#include "gpu/layout.h"

#include <limits.h>
#include <pthread.h>

typedef struct wk_gpu_runtime wk_gpu_runtime; /* gpu/runtime.h: the vendor's driver table */

#define WK_GPU_MAX_DEVICES 64

/* ---- devices */
/* The GPU state of a tensor's device (the tensor lives on a GPU backend's device). */
wk_gpu_dev *wk_gpu_dev_of(const wk_tensor *t);
/* The warp width the width-dependent kernels (reductions, norms) are launched for: the device's own (32 on
 * NVIDIA, 64 or 32 on AMD), or 64 on NVIDIA under WICK_GPU_LOGICAL_WARP=64; and their slot on a WIDTHS axis
 * (kernels/entries.h: 0, or 1 for the _w64 variants). */
int wk_gpu_logical_warp(const wk_gpu_dev *d);
int wk_gpu_width_slot(const wk_gpu_dev *d);
int wk_gpu_sm_count(const wk_gpu_dev *d);   /* multiprocessors / compute units */
/* The device's architecture as its vendor names it: "sm_90", "gfx90a". */
const char *wk_gpu_dev_arch(const wk_gpu_dev *d);
/* An NVIDIA device's compute capability as major * 10 + minor (90 for sm_90); 0 for other vendors. */
int wk_gpu_dev_sm(const wk_gpu_dev *d);
const char *wk_gpu_dev_name(const wk_gpu_dev *d); /* "cuda:0" */
int wk_gpu_ordinal(const wk_gpu_dev *d);          /* index within its backend, 0.. (< WK_GPU_MAX_DEVICES) */
/* The calling thread's current queue of d (CUstream / hipStream_t), for launches, copies and vendor libraries. */
void *wk_gpu_stream(const wk_gpu_dev *d);
/* Whether the calling thread's current stream of d is d's default stream. */
bool wk_gpu_on_default_stream(const wk_gpu_dev *d);
/* Whether the calling thread captures a graph on its current stream of d, and the refusal of what cannot be
 * captured: WK_OK when not capturing; else the capture fails and so does the call, with op's name and why. */
bool wk_gpu_capturing(const wk_gpu_dev *d);
/* Runs work(ctx), which queues work on the calling thread's current stream of d, between two timing events and
 * waits for it: *ms is the device time it took. Not during a capture. */
wk_status wk_gpu_timed(wk_gpu_dev *d, wk_status (*work)(void *ctx), void *ctx, float *ms);
wk_status wk_gpu_refuse_capture(const wk_gpu_dev *d, const char *op, const char *why);
/* Device address of the device's fault record (wk_gpu_fault_rec in layout.h; kernels take it as int *). */
void *wk_gpu_fault_record(const wk_gpu_dev *d);

/* ---- kernels: launched with WK_GPU_LAUNCH (launch.h) */
/* Blocks for a grid-stride loop over n items with `threads` threads per block: enough to fill the
 * device (a few waves), never more than needed, at least 1. */
unsigned wk_gpu_blocks(const wk_gpu_dev *d, int64_t n, unsigned threads);

/* Multiplier and shift that divide by d (1 <= d <= 2^31) with a multiply-high, for dividends < 2^31
 * (PyTorch's IntDivider recipe); the kernels' side is wk_div32 in kernels/common.cuh. */
wk_gpu_divisor wk_gpu_divisor_of(int64_t d);

/* ---- layouts */
/* t's view with mergeable dims merged and size-1 dims dropped (see layout.h). */
wk_gpu_layout wk_gpu_layout_of(const wk_tensor *t);
/* The same, for an explicit shape and strides (rank <= WK_GPU_MAX_RANK). */
wk_gpu_layout wk_gpu_layout_make(int rank, const int64_t *shape, const int64_t *strides);
/* Whether t can be read by 16-byte vectors along its last dim: unit stride there, that dim whole vectors, the base
 * and every other stride 16-byte aligned (attention's K and V, the operands cuDNN's graphs declare aligned). */
bool wk_gpu_vec16(const wk_tensor *t);

/* ---- memory: stream-ordered, from the device's pool; freed memory is reused by later work on the
 * same stream, so scratch may be freed right after the launches that use it are queued. */
wk_status wk_gpu_malloc(wk_gpu_dev *d, size_t bytes, void **ptr);
void wk_gpu_free(wk_gpu_dev *d, void *ptr);
wk_status wk_gpu_memset(wk_gpu_dev *d, void *ptr, int byte, size_t bytes);
wk_status wk_gpu_copy_d2d(wk_gpu_dev *d, void *dst, const void *src, size_t bytes);
/* n counters, zero at every replay, for a kernel the calling thread captures on its current stream of d (only while
 * wk_gpu_capturing; else WK_ERR_UNSUPPORTED): a slice of the capture's block of them, zeroed once a replay instead of a
 * memset before each such kernel (a Llama decode step's 16 split attentions: decode 3.6-4.0% faster on an H100,
 * session 34). A replay's kernels must use each counter once. */
wk_status wk_gpu_capture_counters(wk_gpu_dev *d, int64_t n, int32_t **out);

/* ---- vendor libraries, filled per vendor (cublas.c, conv_cudnn.c; rocblas.c, conv_miopen.c) */
/* One strided-batched GEMM in row-major terms: C[b] (m x n, row stride ldc) = op(A[b]) (m x k) * op(B[b]) (k x n).
 * Element (i, j) of op(A) is a[i*lda + j] when !trans_a, a[j*lda + i] when trans_a; likewise B.
 * stride_* may be 0 (a broadcast batch). alpha = 1, beta = 0. f16/bf16 accumulate in f32. */
typedef struct wk_gpu_gemm {
    wk_dtype dtype; /* f16, bf16, f32, f64: a, b and c */
    bool trans_a, trans_b;
    bool allow_tf32;
    int64_t m, n, k, batch;
    const void *a, *b;
    void *c;
    int64_t lda, ldb, ldc;
    int64_t stride_a, stride_b, stride_c;
} wk_gpu_gemm;

typedef struct wk_gpu_blas {
    const char *name; /* "cuBLAS" */
    /* WK_ERR_UNSUPPORTED when the library cannot express g (the caller then copies or falls back). */
    wk_status (*gemm)(wk_gpu_dev *d, const wk_gpu_gemm *g);
} wk_gpu_blas;

typedef struct wk_gpu_dnn {
    const char *name; /* "cuDNN" */
    /* The conv slot's contract (backend.h). WK_ERR_UNSUPPORTED when the library lacks the case: the
     * caller then runs wick's own kernels. */
    wk_status (*conv)(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                      const wk_conv_params *p, int spatial, bool transposed, wk_tensor *out);
    /* The attention slot's contract (backend.h) through the library's fused kernels, for the cases it takes;
     * WK_ERR_UNSUPPORTED otherwise (wick's own kernels then run). strict: a case it should take but the library
     * refuses (or a library too old) is WK_ERR_BACKEND with the reason. NULL: the library has no fused attention. */
    wk_status (*attention)(wk_gpu_dev *d, const wk_attn *a, bool strict);
} wk_gpu_dnn;

/* out (N, O, ...) += bias (O), broadcast over images and positions: wick's own add kernel, one pass
 * (conv.c; for the BLAS and DNN paths that leave the bias to wick). */
wk_status wk_gpu_add_bias(const wk_tensor *bias, wk_tensor *out);

/* ---- what the DNN libraries' convolution paths (conv_cudnn.c, conv_miopen.c) share: conv_dnn.c */
/* Sizes a vendor library takes as int. */
static inline bool wk_gpu_fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

/* A convolution as the libraries see it: 4-D NCHW, a 1-D one being 2-D with H = 1 (its axis 0 becomes W).
 * All ints, so that a plan key holding it compares bytewise. */
typedef struct wk_gpu_conv_shape {
    int xdim[4], ydim[4], wdim[4], pad[2], stride[2], dil[2], groups;
} wk_gpu_conv_shape;
/* The shape, and x's strides in its dims (0 for a 1-D one's H). */
typedef struct wk_gpu_conv_geom {
    wk_gpu_conv_shape shape;
    int64_t xstride[4];
} wk_gpu_conv_geom;
/* Fills g from the conv slot's arguments. WK_ERR_UNSUPPORTED naming `lib` when no library of that kind takes
 * the case: a transposed convolution with output_padding >= stride (they derive dy's size from dx's by the
 * forward rule, which gives x's size back only below the stride), or sizes beyond int (their sizes are ints,
 * their tensors hold fewer than 2^31 elements). */
wk_status wk_gpu_conv_geometry(const char *op, const char *lib, const wk_tensor *x, const wk_tensor *w,
                               const wk_tensor *out, const wk_conv_params *p, int spatial, bool transposed,
                               wk_gpu_conv_geom *g);

/* Packed strides of a 4-D (N, C, H, W) tensor: row-major NCHW, or NHWC (channels innermost). */
void wk_gpu_packed_strides(const int dim[4], bool nhwc, int stride[4]);

/* A packed copy of t on its device (wick's copy kernel, stream-ordered); the caller releases it. */
wk_status wk_gpu_packed(const wk_tensor *t, wk_tensor **out);

/* One algorithm a library offered for a shape: its id, math mode (cuDNN's; 0 elsewhere) and workspace. */
#define WK_GPU_CONV_CANDIDATES 4
typedef struct wk_gpu_conv_algo {
    int algo, math;
    size_t workspace;
} wk_gpu_conv_algo;
/* Queues the convolution with the first of cand[0 .. *n) that runs: run(ctx, a, ws) with a's workspace
 * allocated (freed stream-ordered once queued). A candidate run() answers WK_ERR_UNSUPPORTED is dropped from
 * the list (*changed set, so the caller stores the plan); one whose workspace cannot be had is skipped this
 * time only; any other failure is returned. None left: WK_ERR_OUT_OF_MEMORY when a workspace was short, else
 * WK_ERR_UNSUPPORTED, naming op and lib. */
wk_status wk_gpu_conv_run_candidates(wk_gpu_dev *d, const char *op, const char *lib, wk_gpu_conv_algo *cand, int *n,
                                     wk_status (*run)(void *ctx, const wk_gpu_conv_algo *a, void *ws), void *ctx,
                                     bool *changed);

/* Algorithm choices of a DNN library per shape. A plan type starts with its key, which is compared bytewise
 * (zero it whole before filling it). Declare one with WK_GPU_PLAN_CACHE. */
typedef struct wk_gpu_plan_cache {
    pthread_mutex_t lock;
    void *slots;
    size_t key_size, plan_size;
    int capacity, count, next;
} wk_gpu_plan_cache;
#define WK_GPU_PLAN_CACHE(name, plan_type, cap)                                                           \
    static plan_type name##_slots[cap];                                                                   \
    static wk_gpu_plan_cache name = {PTHREAD_MUTEX_INITIALIZER, name##_slots,                             \
                                     sizeof(((plan_type *)0)->key), sizeof(plan_type), cap, 0, 0}
/* Copies the plan whose key equals key into *plan; false when there is none. */
bool wk_gpu_plan_find(wk_gpu_plan_cache *c, const void *key, void *plan);
/* Stores a plan (replacing the one with its key, or the oldest when full). */
void wk_gpu_plan_store(wk_gpu_plan_cache *c, const void *plan);

/* The device's BLAS / DNN, loaded on first use; NULL (with the reason in *why) when absent. */
const wk_gpu_blas *wk_gpu_blas_of(wk_gpu_dev *d, const char **why);
const wk_gpu_dnn *wk_gpu_dnn_of(wk_gpu_dev *d, const char **why);

/* ---- the slot implementations, one file per family (gpu/<family>.c) */
wk_status wk_gpu_fill(wk_tensor *dst, wk_scalar v);
wk_status wk_gpu_arange(wk_tensor *dst, double start, double step);
wk_status wk_gpu_rand_uniform(wk_tensor *dst, uint64_t seed, double lo, double hi);
wk_status wk_gpu_rand_normal(wk_tensor *dst, uint64_t seed, double mean, double std);
wk_status wk_gpu_copy(const wk_tensor *src, wk_tensor *dst);
wk_status wk_gpu_cast(const wk_tensor *src, wk_tensor *dst);
wk_status wk_gpu_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                        int64_t dst_ld, int64_t src_offset, int64_t dst_offset);
wk_status wk_gpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *out);
wk_status wk_gpu_affine(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out);
wk_status wk_gpu_powf(const wk_tensor *x, double e, wk_tensor *out);
wk_status wk_gpu_elu(const wk_tensor *x, double alpha, wk_tensor *out);
wk_status wk_gpu_leaky_relu(const wk_tensor *x, double negative_slope, wk_tensor *out);
wk_status wk_gpu_glu(wk_glu_kind kind, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
wk_status wk_gpu_clamp(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out);
wk_status wk_gpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
wk_status wk_gpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
wk_status wk_gpu_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out);
wk_status wk_gpu_tri(const wk_tensor *x, wk_tri_kind kind, int64_t diagonal, wk_tensor *out);
wk_status wk_gpu_masked_fill(const wk_tensor *x, const wk_tensor *mask, wk_scalar v, wk_tensor *out);
wk_status wk_gpu_reduce(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out);
wk_status wk_gpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *out);
wk_status wk_gpu_softmax(const wk_tensor *x, wk_softmax_kind kind, wk_tensor *out);
wk_status wk_gpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out);
wk_status wk_gpu_add_rms_norm(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor *sum,
                              wk_tensor *out);
wk_status wk_gpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out);
wk_status wk_gpu_batch_norm(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                            const wk_tensor *b, double eps, wk_tensor *out);
wk_status wk_gpu_group_norm(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out);
/* stats.c, scan.c */
wk_status wk_gpu_stats(wk_stats_op op, const wk_tensor *x, double correction, wk_tensor *out);
wk_status wk_gpu_scan(wk_scan_op op, const wk_tensor *x, int dim, wk_tensor *out);
wk_status wk_gpu_sort(const wk_tensor *x, wk_sort_order order, wk_tensor *values, wk_tensor *indices);
wk_status wk_gpu_topk(const wk_tensor *x, int64_t k, wk_topk_mode mode, wk_tensor *values, wk_tensor *indices);
wk_status wk_gpu_sample_penalize(wk_tensor *z, const wk_tensor *prev, const wk_tensor *params);
wk_status wk_gpu_sample_pick(const wk_tensor *cand, const wk_tensor *cand_ids, const wk_tensor *params,
                             uint64_t offset, wk_tensor *ids);
wk_status wk_gpu_multinomial(const wk_tensor *probs, int64_t n, bool replacement, uint64_t seed, wk_tensor *out);
wk_status wk_gpu_matmul(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor *out);
wk_status wk_gpu_conv(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                      wk_conv_dims dims, wk_conv_dir dir, wk_tensor *out);
wk_status wk_gpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out);
wk_status wk_gpu_upsample_nearest(const wk_tensor *x, wk_tensor *out);
wk_status wk_gpu_upsample_bilinear2d(const wk_tensor *x, bool align_corners, double scale_h, double scale_w,
                                     wk_tensor *out);
wk_status wk_gpu_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out);
wk_status wk_gpu_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out);
wk_status wk_gpu_scatter(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_scatter_mode mode,
                         wk_write_target target);
wk_status wk_gpu_index_add(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_write_target target);
/* reorder.c: reorder (pad, flip, roll, repeat, repeat_interleave), one_hot */
wk_status wk_gpu_reorder(const wk_tensor *x, const wk_reorder_map *m, wk_tensor *out);
wk_status wk_gpu_one_hot(const wk_tensor *ids, int64_t classes, wk_tensor *out);
/* Communicators through NCCL (cuda) and RCCL (rocm): nccl.c. */
extern const wk_comm_backend wk_cuda_comm;
extern const wk_comm_backend wk_rocm_comm;
wk_status wk_gpu_attention(const wk_attn *a);
wk_status wk_gpu_attention_kv(const wk_attn *a);
wk_status wk_gpu_kv_append(const wk_kv_write *w);
wk_status wk_gpu_rope(wk_rope_kind kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin,
                      wk_tensor *out);
/* quant.c */
wk_status wk_gpu_dequantize(const wk_tensor *x, wk_tensor *out);
wk_status wk_gpu_quantize(const wk_tensor *x, wk_tensor *out);
/* matmul_q.c */
wk_status wk_gpu_matmul_q(const wk_tensor *x, const wk_tensor *w, wk_tensor *out);
/* wk_linear's fused kernels (linear.c): one row of x (1, K) by w (N, K) with e's steps into out; WK_ERR_UNSUPPORTED
 * (no message) where the kernel does not take the call. matmul.c: w of x's dtype, rows ldw elements apart (the
 * mat-vec kernel); matmul_q.c: w block-quantized and contiguous (the integer dot kernel). */
wk_status wk_gpu_gemv_fused(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_gpu_linear_epi *e,
                            wk_tensor *out);
wk_status wk_gpu_matmul_q_fused(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_gpu_linear_epi *e,
                                wk_tensor *out);
/* linear.c */
wk_status wk_gpu_linear(const wk_linear_job *j);

#endif

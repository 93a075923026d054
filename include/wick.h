/* wick.h: the whole public API of wick, a tensor compute library with CPU, NVIDIA and AMD backends.
 * C11, usable from C++. Every function returns a wk_status; results come back through out-parameters. */
#ifndef WICK_H
#define WICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; everything declared here is its exported API. */
#if defined(__GNUC__) && defined(WICK_BUILDING)
#pragma GCC visibility push(default)
#endif

#define WICK_VERSION_MAJOR 0
#define WICK_VERSION_MINOR 1
#define WICK_VERSION_PATCH 0
#define WICK_VERSION_STRING "0.1.0"

/* Largest tensor rank. */
#define WK_MAX_RANK 8

/* ---------------------------------------------------------------- status and errors
 * Conventions for every function below:
 *  - On failure nothing is written to out-parameters (they are left as they were), no input is
 *    changed, and wk_last_error() describes the failure (op, shapes, dtypes, device).
 *  - The library never aborts, exits or prints. */
typedef enum wk_status {
    WK_OK = 0,
    WK_ERR_INVALID_ARGUMENT = 1,   /* NULL pointer, bad parameter value (zero kernel, negative step, ...) */
    WK_ERR_SHAPE = 2,              /* shapes that do not fit together, bad dim, rank out of range */
    WK_ERR_DTYPE = 3,              /* dtype not supported by the op, or operands of different dtypes */
    WK_ERR_DEVICE = 4,             /* operands on different devices, unknown or unavailable device */
    WK_ERR_OUT_OF_MEMORY = 5,      /* host or device allocation failed; nothing leaked */
    WK_ERR_INDEX_OUT_OF_RANGE = 6, /* an index tensor held a value outside [0, size) */
    WK_ERR_UNSUPPORTED = 7,        /* valid request this build or backend cannot serve */
    WK_ERR_BACKEND = 8,            /* a vendor library failed; its own text is in wk_last_error() */
    WK_ERR_INTERNAL = 9,           /* a bug in wick: please report it with wk_last_error() */
    WK_ERR_FILE = 10,              /* a damaged or malformed file (safetensors, GGUF, .npy) */
    WK_ERR_IO = 11,                /* the system refused a file operation (open, read, write, rename) */
    WK_ERR_COMM = 12               /* a collective failed: a peer gone, a timeout, an abort (wk_comm_*) */
} wk_status;

/* A static, never-allocated name for s ("WK_OK", "WK_ERR_SHAPE", ...). Unknown values give "WK_ERR_UNKNOWN". */
const char *wk_status_string(wk_status s);

/* The detailed message of the last failure on this thread ("" if none). The string belongs to the
 * library and stays valid until the next wick call on this thread. */
const char *wk_last_error(void);

/* ---------------------------------------------------------------- threads
 * wick may be called from any number of threads at once, under these rules (tests/io/test_threads.c, run
 * under ThreadSanitizer in CI by scripts/tsan.sh):
 *  - Errors are per thread: wk_last_error() is the last failure of the calling thread only.
 *  - Devices are process-wide: wk_device_get may be called from any thread, first use included (a backend is
 *    probed and a device opened once; every thread gets the same wk_device). wk_device_sync, too.
 *  - A tensor handle and its views may be shared between threads. Any number of threads may read one at once
 *    (use it as an op's input, make views of it, wk_tensor_to_host, the accessors). wk_tensor_retain and
 *    wk_tensor_release may be called from any thread (atomic reference counts on handles and storage): the
 *    memory is freed by whichever release is last. A handle must not be used after its own release.
 *  - Writing is the caller's to order: an in-place op (wk_fill, wk_copy_into, wk_slice_set, wk_copy2d,
 *    wk_*_inplace), or writing memory behind a wrapped or imported tensor, while another thread reads or
 *    writes any view of the same storage is a data race, as in C.
 *  - Work goes to the calling thread's current stream of the device ("streams" below), the device's default
 *    stream unless the thread chose another. Ops called on one stream from several threads are queued there in
 *    the order the calls reach wick, so an op that returns before another thread's call begins runs first on
 *    the GPU (no sync needed between them). A device-side fault (an index out of range in a kernel) is reported
 *    by whichever thread next synchronises with the device (wk_device_sync, wk_stream_sync, wk_tensor_to_host).
 *  - On a GPU, wick makes the device's context current on the calling thread. Code that changes that
 *    thread's current CUDA/HIP context between wick calls must restore it first.
 *  - CPU ops run on the calling thread and its OpenMP team (and OpenBLAS's threads for matmul); T threads
 *    each calling wick may start T teams: set OMP_NUM_THREADS to share the cores.
 *  - An open wk_safetensors or wk_gguf may be read (info, find, metadata, loads) from several threads at
 *    once; close it when no thread uses it (loaded tensors stay valid). A wk_gguf_writer is used by one
 *    thread at a time. */

/* ---------------------------------------------------------------- dtypes */
typedef enum wk_dtype {
    WK_U8 = 0,
    WK_U32 = 1,
    WK_I32 = 2,
    WK_I64 = 3,
    WK_F16 = 4,  /* IEEE binary16, arithmetic in f32 */
    WK_BF16 = 5, /* bfloat16, arithmetic in f32 */
    WK_F32 = 6,
    WK_F64 = 7,
    /* GGML's block-quantized types, byte for byte the GGUF layouts (ggml-common.h): a block of 32 or 256
     * consecutive elements of a row is stored as scales and packed integers. */
    WK_Q4_0 = 8, WK_Q4_1 = 9, WK_Q5_0 = 10, WK_Q5_1 = 11, WK_Q8_0 = 12,      /* blocks of 32 */
    WK_Q2_K = 13, WK_Q3_K = 14, WK_Q4_K = 15, WK_Q5_K = 16, WK_Q6_K = 17,   /* super-blocks of 256 */
    WK_Q8_K = 18,                                                          /* 256: f32 scale, i8 values */
    WK_IQ4_NL = 19,                                                        /* 32, non-linear 4-bit */
    WK_IQ4_XS = 20                                                         /* 256, non-linear 4-bit */
} wk_dtype;
/* The element dtypes (a fixed size per element) are 0 .. WK_DTYPE_COUNT-1; the block-quantized dtypes are
 * WK_DTYPE_COUNT .. WK_DTYPE_ALL_COUNT-1. */
#define WK_DTYPE_COUNT 8
#define WK_DTYPE_ALL_COUNT 21

/* Bytes per element: 0 for an invalid dtype and for the block-quantized dtypes, which have no size per element
 * (use wk_dtype_block_size / wk_dtype_block_bytes and wk_tensor_nbytes). */
size_t wk_dtype_size(wk_dtype dt);
const char *wk_dtype_name(wk_dtype dt); /* "u8", "f32", "q4_0", "q4_k", "iq4_xs", ...; "invalid" otherwise */
bool wk_dtype_is_float(wk_dtype dt);    /* f16, bf16, f32, f64 */
bool wk_dtype_is_quantized(wk_dtype dt); /* WK_Q4_0 .. WK_IQ4_XS */
/* Elements a block holds (32 or 256) and the bytes of one block; 1 and wk_dtype_size for the element dtypes, 0
 * for an invalid dtype. */
int64_t wk_dtype_block_size(wk_dtype dt);
size_t wk_dtype_block_bytes(wk_dtype dt);
/* Parses "f32" etc. into *out. WK_ERR_INVALID_ARGUMENT for an unknown name. */
wk_status wk_dtype_from_name(const char *name, wk_dtype *out);

/* Round-to-nearest-even conversions used everywhere in wick (NaN stays NaN). */
uint16_t wk_f32_to_f16(float x);
float wk_f16_to_f32(uint16_t h);
uint16_t wk_f32_to_bf16(float x);
float wk_bf16_to_f32(uint16_t h);

/* ---------------------------------------------------------------- devices
 * Devices are owned by the library and live until the process ends: never free them. */
typedef struct wk_device wk_device;

/* Looks up a device by name: "cpu", "cuda:N", "rocm:N" ("gpu:N" is the first GPU backend found).
 * WK_ERR_DEVICE with a message saying what was looked for when the device is absent. */
wk_status wk_device_get(const char *name, wk_device **out);
const char *wk_device_name(const wk_device *dev); /* "cpu", "cuda:0", ... */
/* Waits for all work queued on dev, on every stream wick knows (see "streams"). Device-side errors (an index out of range in a kernel) surface here
 * as a status naming the op. On the CPU every op is synchronous and this returns WK_OK. */
wk_status wk_device_sync(wk_device *dev);

/* Backends compiled into this build, with what each found at run time (for `wick devices`). */
typedef struct wk_backend_info {
    const char *name;     /* "cpu", "cuda", "rocm" */
    bool available;       /* a usable device was found */
    int device_count;     /* devices found (0 when unavailable) */
    const char *detail;   /* what was found, or what was looked for and missing; owned by the library */
} wk_backend_info;
int wk_backend_count(void);
wk_status wk_backend_info_get(int index, wk_backend_info *out);

/* ---------------------------------------------------------------- tensors
 * A wk_tensor is a refcounted handle to a strided view (shape, strides in elements, start offset)
 * of refcounted storage on one device. Views share storage with their source. Every function that
 * returns a tensor through `wk_tensor **out` hands the caller one reference: release it with
 * wk_tensor_release. Inputs are borrowed: the library takes its own references where it keeps them. */
typedef struct wk_tensor wk_tensor;

/* An uninitialised contiguous tensor. rank 0..WK_MAX_RANK; shape may be NULL when rank is 0;
 * zero-sized dims are allowed. */
wk_status wk_tensor_empty(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out);
/* Block-quantized tensors (WK_Q4_0 .. WK_IQ4_XS). The shape counts elements; rank >= 1 and the last dim a multiple
 * of the block size (WK_ERR_SHAPE otherwise); the data is the rows' blocks one after the other, numel / block
 * size * block bytes in all (wk_tensor_nbytes). Strides and offsets still count elements. Such a tensor can be
 * made (wk_tensor_empty, wk_tensor_from_host of raw blocks, wk_quantize, wk_gguf_load), moved (wk_to_device,
 * wk_tensor_to_host, which write its blocks), viewed by the views that keep whole rows (wk_reshape, wk_flatten,
 * wk_squeeze, wk_unsqueeze that leave the last dim as it is and need no copy; wk_narrow of any other dim),
 * looked up by rows (wk_index_select along dim 0, which dequantizes) and dequantized (wk_dequantize). Every other
 * op, given one, is WK_ERR_DTYPE saying to dequantize first. */
/* Bytes t's elements occupy: numel * dtype size, or for a block-quantized t numel / block size * block bytes
 * (what wk_tensor_to_host writes). */
size_t wk_tensor_nbytes(const wk_tensor *t);
/* A contiguous tensor holding a copy of `data` (row-major, numel * dtype size bytes; for a block-quantized dt
 * the raw blocks, wk_tensor_nbytes bytes). */
wk_status wk_tensor_from_host(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                              const void *data, wk_tensor **out);
/* Copies the logical contents of t (row-major, whatever its strides) to dst, which must hold
 * dst_bytes >= numel * dtype size. Waits for queued work on t's device. */
wk_status wk_tensor_to_host(const wk_tensor *t, void *dst, size_t dst_bytes);

/* Zero-size tensors (a dim of size 0) are valid everywhere, with PyTorch's results:
 *  - An op whose result has no elements returns that empty result (with its shape) and computes nothing (an
 *    indexing op still checks its indices); an in-place op on an empty target, and scatter/scatter_add/index_add
 *    with no indices, change nothing.
 *  - A result with elements computed from no elements: sum gives 0, mean NaN, matmul with an inner dim of 0
 *    zeros (a reduction of nothing).
 *  - min, max, argmin and argmax over an empty extent are WK_ERR_SHAPE (they have no identity); an index
 *    into an empty dim is WK_ERR_INDEX_OUT_OF_RANGE, as any index outside [0, size).
 *  - Parameter checks still apply (a conv kernel larger than the padded input is WK_ERR_SHAPE, empty or not). */

/* Limits (tests/io/test_limits.c, on every device):
 *  - Rank 0..WK_MAX_RANK (8). A rank outside it is WK_ERR_SHAPE: as an argument (wk_tensor_empty, zeros/ones/full,
 *    rand_*, from_host, wrap, reshape, broadcast_to, as_strided) or as a result (unsqueeze of rank 8); so are a
 *    dim or perm entry outside [-rank, rank) and more reduce dims than the rank.
 *  - Size: every tensor, views included, has sizes >= 0 and numel * dtype size <= INT64_MAX bytes, a size 0
 *    counted as 1 (an empty [0, n] needs n * size within it, in any order of sizes). Past it (or a negative
 *    size): WK_ERR_SHAPE, before any allocation; also for op results (cat, binary broadcast, matmul batch,
 *    conv/pool/upsample outputs). Within it, memory the device cannot give: WK_ERR_OUT_OF_MEMORY.
 *  - Views: as_strided strides/offset >= 0, last element offset + sum (size-1)*stride inside the storage (and
 *    int64), an empty view's offset <= the storage's element count; narrow 0 <= start, len, start+len <= size;
 *    copy2d blocks inside each storage. Else WK_ERR_SHAPE (copy2d negative arguments: WK_ERR_INVALID_ARGUMENT).
 *  - Indices: u8, u32, i32, i64 (float ids: WK_ERR_DTYPE), read in their own type (a u32 >= 2^31 is positive).
 *    Valid range [0, size) for every dtype: no negative counting from the end; -1, INT64_MIN, INT32_MIN, a
 *    UINT32_MAX past the dim... are WK_ERR_INDEX_OUT_OF_RANGE (GPU: at the next sync), nothing touched.
 *  - wk_arange: a length over INT64_MAX / 16 (~5.8e17) or infinite is WK_ERR_SHAPE; then the size rule.
 *  - conv stride, dilation in [1, 2^31], padding in [0, 2^31] (WK_ERR_INVALID_ARGUMENT); pool kernel, stride
 *    >= 1, 0 <= padding <= kernel/2 (WK_ERR_INVALID_ARGUMENT), an input size past INT64_MAX - padding
 *    WK_ERR_SHAPE; upsample output sizes >= 1 (WK_ERR_SHAPE).
 *  - GPUs: counts, offsets and index values are 64-bit in every kernel, so any tensor within the size rule
 *    works, dims over INT32_MAX / UINT32_MAX elements included. 32-bit arithmetic is only a fast path chosen by
 *    the host when the launch fits it (n <= UINT32_MAX element-wise, < 2^31 pool/upsample); grids are capped
 *    at INT32_MAX blocks and kernels loop. cuBLAS uses its _64 API past int sizes (else WK_ERR_UNSUPPORTED);
 *    cuDNN is used only when sizes fit int, else wick's own conv kernels. */

void wk_tensor_retain(wk_tensor *t);  /* adds a reference; NULL is a no-op */
void wk_tensor_release(wk_tensor *t); /* drops a reference; NULL is a no-op */

/* Metadata accessors; t must not be NULL. Pointers returned stay valid while t lives. */
wk_dtype wk_tensor_dtype(const wk_tensor *t);
int wk_tensor_rank(const wk_tensor *t);
const int64_t *wk_tensor_shape(const wk_tensor *t);   /* rank entries */
const int64_t *wk_tensor_strides(const wk_tensor *t); /* rank entries, in elements */
int64_t wk_tensor_offset(const wk_tensor *t);         /* start offset in elements */
int64_t wk_tensor_numel(const wk_tensor *t);
wk_device *wk_tensor_device(const wk_tensor *t);
bool wk_tensor_is_contiguous(const wk_tensor *t);     /* row-major with no gaps (offset may be non-zero) */

/* ---------------------------------------------------------------- views (metadata only, no copy)
 * dims may be negative (counted from the end, -1 is the last). */
/* Reshape to `shape` (one entry may be -1, inferred). A view when the layout allows, else a copy. */
wk_status wk_reshape(const wk_tensor *t, int rank, const int64_t *shape, wk_tensor **out);
wk_status wk_transpose(const wk_tensor *t, int dim0, int dim1, wk_tensor **out);
/* perm is a permutation of 0..rank-1: out.shape[i] = t.shape[perm[i]]. */
wk_status wk_permute(const wk_tensor *t, const int *perm, wk_tensor **out);
/* Elements start .. start+len-1 of dim. */
wk_status wk_narrow(const wk_tensor *t, int dim, int64_t start, int64_t len, wk_tensor **out);
/* Broadcast to `shape` (numpy rules: size-1 dims and missing leading dims get stride 0). */
wk_status wk_broadcast_to(const wk_tensor *t, int rank, const int64_t *shape, wk_tensor **out);
wk_status wk_squeeze(const wk_tensor *t, int dim, wk_tensor **out); /* dim must have size 1 */
wk_status wk_unsqueeze(const wk_tensor *t, int dim, wk_tensor **out); /* dim in [-rank-1, rank] */
/* Merges dims start_dim..end_dim into one (a copy only when they cannot be viewed as one). */
wk_status wk_flatten(const wk_tensor *t, int start_dim, int end_dim, wk_tensor **out);
/* Any view of t's storage: strides >= 0, every element addressed must lie inside the storage. */
wk_status wk_as_strided(const wk_tensor *t, int rank, const int64_t *shape, const int64_t *strides,
                        int64_t offset, wk_tensor **out);

/* ---------------------------------------------------------------- creation and transfer */
wk_status wk_zeros(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out);
wk_status wk_ones(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out);
/* value is converted to dt once (float->int truncates and saturates, as wk_cast). */
wk_status wk_full(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double value, wk_tensor **out);
/* const_set: sets every element of the view t in place. t must not have overlapping elements
 * (a stride 0 over a dim of size > 1). */
wk_status wk_fill(wk_tensor *t, double value);
/* 1-D tensor start, start+step, ... < end (> end for negative step); step != 0. Values computed
 * as start + i*step in f64, then converted to dt. Length ceil((end - start) / step), empty when end lies
 * behind start for the sign of step; start, end and step must be finite. */
wk_status wk_arange(wk_device *dev, wk_dtype dt, double start, double end, double step, wk_tensor **out);
/* Counter-based random numbers (Philox4x32-10): element i of the result depends only on (seed, i), so
 * a seed gives bit-identical f32/f64 values on every backend. Float dtypes only. Parameters finite (and
 * finite in f32 for f16/bf16/f32, which compute in f32); uniform: lo <= hi, values in [lo, hi) except that
 * rounding may give hi; normal: std >= 0, and its log/sin/cos agree across backends to their math
 * libraries' accuracy. The exact recipe is documented in src/cpu/rand.c. */
wk_status wk_rand_uniform(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed,
                          double lo, double hi, wk_tensor **out);
wk_status wk_rand_normal(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed,
                         double mean, double std, wk_tensor **out);
/* A new contiguous copy of t (always a copy, never an alias). */
wk_status wk_contiguous(const wk_tensor *t, wk_tensor **out);
/* A copy of t on dev (contiguous). */
wk_status wk_to_device(const wk_tensor *t, wk_device *dev, wk_tensor **out);
/* Converts to dt: float->float and int->float round to nearest even, once (f64->f16/bf16 and i64->f16/bf16
 * are correctly rounded, never rounded twice through f32); float->int truncates toward zero and saturates,
 * NaN -> 0; int->int wraps like C unsigned conversion. */
wk_status wk_cast(const wk_tensor *t, wk_dtype dt, wk_tensor **out);
/* 2-D block copy in place: for r < rows, c < cols:
 *   dst.storage[dst_offset + r*dst_ld + c] = src.storage[src_offset + r*src_ld + c]
 * counted in elements from each tensor's storage start (its view offset is not added). Same dtype and
 * device; every element touched must lie inside each storage. All arguments >= 0; dst_ld >= cols when
 * rows > 1 (dst rows never overlap; src_ld may be anything, 0 repeats one row); when src and dst share a
 * storage, the spans [offset, offset + (rows-1)*ld + cols) of the two blocks must not intersect. */
wk_status wk_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                    int64_t dst_ld, int64_t src_offset, int64_t dst_offset);
/* Writes src into the view dst in place (same shape, or src broadcastable to dst's shape; same dtype
 * and device). dst must not have overlapping elements. src may share memory with dst (a shifted or
 * transposed view of it): the result is as if src were read completely before any write. */
wk_status wk_copy_into(wk_tensor *dst, const wk_tensor *src);
/* slice_set: writes src into dst[..., start:start+src.shape[dim], ...] along dim, in place. src has dst's
 * rank and dst's sizes off dim; aliasing as wk_copy_into. */
wk_status wk_slice_set(wk_tensor *dst, const wk_tensor *src, int dim, int64_t start);
/* Concatenates n >= 1 tensors along dim (same dtype, device, and shape apart from dim). */
wk_status wk_cat(const wk_tensor *const *ts, int n, int dim, wk_tensor **out);

/* ---------------------------------------------------------------- element-wise */
typedef enum wk_unary_op {
    WK_UNARY_EXP, WK_UNARY_LOG, WK_UNARY_SIN, WK_UNARY_COS, WK_UNARY_TANH, WK_UNARY_ERF,
    WK_UNARY_RECIP, WK_UNARY_SQRT,
    WK_UNARY_GELU,     /* tanh approximation: PyTorch's gelu(x, approximate='tanh') */
    WK_UNARY_GELU_ERF, /* exact: x * (1 + erf(x / sqrt(2))) / 2, PyTorch's default gelu(x) */
    WK_UNARY_SILU,     /* silu(-inf) and gelu(-inf) are NaN (-inf * 0), as in PyTorch */
    WK_UNARY_SIGMOID, WK_UNARY_CEIL, WK_UNARY_FLOOR,
    WK_UNARY_ROUND,    /* half to even */
    WK_UNARY_SQR,      /* ints too (wraps) */
    WK_UNARY_ABS,      /* ints too (unsigned: identity; INT_MIN wraps to itself) */
    WK_UNARY_NEG,      /* signed ints too (wraps) */
    WK_UNARY_RELU,     /* ints too */
    WK_UNARY_SIGN,     /* ints too; float: -1, 0, 1, NaN stays NaN */
    /* Float only, PyTorch's defaults. NaN gives NaN in each. */
    WK_UNARY_SOFTPLUS,    /* beta 1, threshold 20: x > 20 gives x, else log(1 + e^x) */
    WK_UNARY_MISH,        /* x * tanh(log(1 + e^x)); mish(-inf) is NaN (-inf * 0), as in PyTorch */
    WK_UNARY_HARDSWISH,   /* x * min(max(x + 3, 0), 6) / 6; hardswish(-inf) is NaN (-inf * 0), as in PyTorch */
    WK_UNARY_HARDSIGMOID  /* min(max(x + 3, 0), 6) / 6 */
} wk_unary_op;
#define WK_UNARY_COUNT 24
const char *wk_unary_name(wk_unary_op op); /* "exp", ...; "invalid" otherwise */
wk_status wk_unary(wk_unary_op op, const wk_tensor *x, wk_tensor **out);

/* x*mul + add in x's arithmetic type (f32 for f16/bf16; the integer type itself, wrapping, for ints),
 * with mul and add converted to that type once. */
wk_status wk_affine(const wk_tensor *x, double mul, double add, wk_tensor **out);
wk_status wk_powf(const wk_tensor *x, double e, wk_tensor **out);            /* float */
wk_status wk_elu(const wk_tensor *x, double alpha, wk_tensor **out);         /* float */
/* x > 0 ? x : x * negative_slope (PyTorch's leaky_relu; the slope converted to x's arithmetic type, any value);
 * float. */
wk_status wk_leaky_relu(const wk_tensor *x, double negative_slope, wk_tensor **out);
/* min(max(x, lo), hi); all dtypes (bounds converted to x's dtype); NaN propagates. lo <= hi. */
wk_status wk_clamp(const wk_tensor *x, double lo, double hi, wk_tensor **out);

/* Gated linear units on a split last dim: (a, b) = the first and second halves of x's last dim (x (..., 2H) ->
 * out (..., H); x of rank >= 1, last dim even, else WK_ERR_SHAPE). x may be any strided view, typically of a fused
 * gate/up projection. Float dtypes; f16/bf16 compute in f32. The activations are wk_unary's. */
typedef enum wk_glu_kind {
    WK_GLU_SIGMOID,   /* "glu": a * sigmoid(b), PyTorch's F.glu(x, -1) */
    WK_GLU_SWIGLU,    /* "swiglu": silu(a) * b */
    WK_GLU_GEGLU,     /* "geglu": gelu_erf(a) * b (exact gelu, F.gelu(a) * b) */
    WK_GLU_GEGLU_TANH /* "geglu_tanh": gelu(a) * b (tanh approximation, F.gelu(a, approximate='tanh') * b) */
} wk_glu_kind;
#define WK_GLU_COUNT 4
const char *wk_glu_name(wk_glu_kind kind); /* "glu", "swiglu", "geglu", "geglu_tanh"; "invalid" otherwise */
wk_status wk_glu(wk_glu_kind kind, const wk_tensor *x, wk_tensor **out);

typedef enum wk_binary_op {
    WK_BINARY_ADD, WK_BINARY_SUB, WK_BINARY_MUL,
    WK_BINARY_DIV,     /* ints truncate toward zero; int division by zero gives 0 */
    WK_BINARY_MAXIMUM, /* NaN propagates */
    WK_BINARY_MINIMUM
} wk_binary_op;
#define WK_BINARY_COUNT 6
const char *wk_binary_name(wk_binary_op op);
/* Broadcasting (numpy rules); a and b must have the same dtype and device. */
wk_status wk_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out);

typedef enum wk_compare_op { WK_CMP_EQ, WK_CMP_NE, WK_CMP_LT, WK_CMP_LE, WK_CMP_GT, WK_CMP_GE } wk_compare_op;
#define WK_COMPARE_COUNT 6
const char *wk_compare_name(wk_compare_op op);
/* Broadcasting; result u8 holding 0 or 1 (IEEE: any comparison with NaN is false, except ne). */
wk_status wk_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out);
/* out = cond ? t : f, broadcasting all three. cond: u8, u32 or i64 (non-zero is true); t, f same dtype. */
wk_status wk_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor **out);

/* ---------------------------------------------------------------- masks
 * Any dtype; x any strided view; the result is new and contiguous, x's shape and dtype. */
/* Over the last two dims (rank >= 2, else WK_ERR_SHAPE), the others batched: tril keeps x[..., i, j] where
 * j <= i + diagonal, triu where j >= i + diagonal, and zeroes the rest (PyTorch's rule; any diagonal, positive
 * above the main diagonal, negative below). */
wk_status wk_tril(const wk_tensor *x, int64_t diagonal, wk_tensor **out);
wk_status wk_triu(const wk_tensor *x, int64_t diagonal, wk_tensor **out);
/* out = mask ? value : x. mask u8 (non-zero fills; other dtypes WK_ERR_DTYPE), on x's device, broadcastable to
 * x's shape (numpy rules) without broadening it: WK_ERR_SHAPE otherwise (PyTorch's in-place masked_fill_ rule; its
 * out-of-place form would also broadcast x to the mask). value is converted to x's dtype once, as wk_fill converts
 * it (float->int truncates and saturates, NaN -> 0). */
wk_status wk_masked_fill(const wk_tensor *x, const wk_tensor *mask, double value, wk_tensor **out);

/* ---------------------------------------------------------------- reductions */
typedef enum wk_reduce_op { WK_REDUCE_SUM, WK_REDUCE_MIN, WK_REDUCE_MAX, WK_REDUCE_MEAN } wk_reduce_op;
#define WK_REDUCE_COUNT 4
const char *wk_reduce_name(wk_reduce_op op);
/* Reduces over the ndims dims listed (distinct, may be negative); ndims == 0 reduces over every dim
 * (a rank-0 tensor reduces to itself).
 * sum: f16/bf16 accumulate in f32, ints wrap; mean: float only; min/max: NaN propagates, and an empty
 * reduction is WK_ERR_SHAPE. keepdim keeps reduced dims with size 1. */
wk_status wk_reduce(wk_reduce_op op, const wk_tensor *x, const int *dims, int ndims, bool keepdim,
                    wk_tensor **out);
/* Index (i64) of the min/max along dim; first index on ties; NaN counts as the extreme. */
wk_status wk_argmin(const wk_tensor *x, int dim, bool keepdim, wk_tensor **out);
wk_status wk_argmax(const wk_tensor *x, int dim, bool keepdim, wk_tensor **out);
/* Over the last dim, max subtracted first. Float only. */
wk_status wk_softmax_last_dim(const wk_tensor *x, wk_tensor **out);
wk_status wk_log_softmax_last_dim(const wk_tensor *x, wk_tensor **out);
/* x / sqrt(mean(x^2) + eps) * w over the last dim; w is 1-D of the last dim's size; eps finite and >= 0.
 * Statistics in f32 or wider (the CPU uses f64). x must have rank >= 1. */
wk_status wk_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor **out);
/* A pre-norm transformer's residual add and the next rms_norm in one pass (PyTorch: s = x + r; F.rms_norm(s, ...)):
 * *sum = x + r, rounded to x's dtype as wk_binary(WK_BINARY_ADD) rounds it, and *out = wk_rms_norm(*sum, w, eps);
 * both bit for bit what those two calls give on the same device (a NaN's payload aside). x and r: the same shape
 * and float dtype, any strides, rank >= 1; w and eps as wk_rms_norm's; *sum and *out are new contiguous tensors of
 * x's shape (empty for an empty x). r of another shape is WK_ERR_SHAPE, of another dtype WK_ERR_DTYPE, on another
 * device WK_ERR_DEVICE; sum or out NULL, or both the same pointer, WK_ERR_INVALID_ARGUMENT. */
wk_status wk_add_rms_norm(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor **sum,
                          wk_tensor **out);
/* (x - mean) / sqrt(var + eps) * w + b over the last dim (biased variance); w and b may be NULL. */
wk_status wk_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps,
                        wk_tensor **out);
/* layer_norm over the last k dims (1 <= k <= rank, else WK_ERR_SHAPE): each row of the last k dims' numel is
 * normalised as one (PyTorch's layer_norm with normalized_shape = x's last k dims); w and b (may be NULL) have
 * exactly the last k dims' shape, x's dtype and device. k == 1 is wk_layer_norm. */
wk_status wk_layer_norm_dims(const wk_tensor *x, int k, const wk_tensor *w, const wk_tensor *b, double eps,
                             wk_tensor **out);
/* Inference batch norm (PyTorch's F.batch_norm with training=False): x (N, C, *) of rank >= 2, channels dim 1;
 * out = (x - mean[c]) / sqrt(var[c] + eps) * w[c] + b[c]. mean and var (the running statistics) are required,
 * w and b may be NULL; all 1-D of C, x's dtype and device (PyTorch also takes f32 statistics for half x: here
 * they share x's dtype). Float only; f16/bf16 compute in f32, rounded once. eps finite and >= 0. */
wk_status wk_batch_norm(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                        const wk_tensor *b, double eps, wk_tensor **out);
/* Group norm (PyTorch's F.group_norm): x (N, C, *) of rank >= 2; the C channels split into `groups` groups of
 * C / groups, and each (sample, group) is normalised over its channels and spatial positions (biased variance),
 * then out = y * w[c] + b[c]. groups >= 1 must divide C (else WK_ERR_INVALID_ARGUMENT); w and b may be NULL, 1-D
 * of C. Float only; statistics in f32 or wider (the CPU uses f64), f16/bf16 rounded once. */
wk_status wk_group_norm(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                        wk_tensor **out);
/* Stable sort along the last dim. argsort gives i64 indices; sort gives values and (if indices is
 * not NULL) indices. NaN sorts as larger than every number (PyTorch). */
wk_status wk_argsort(const wk_tensor *x, bool descending, wk_tensor **out);
wk_status wk_sort(const wk_tensor *x, bool descending, wk_tensor **values, wk_tensor **indices);
/* The k largest (largest = true) or smallest elements along dim, as PyTorch's topk: values (x's dtype) and
 * i64 indices of x's shape with size k along dim (contiguous). The order is the stable sort's: among equal
 * values the lower index comes first, and NaN is larger than every number (so largest puts NaNs first, lower
 * index first). sorted = false is accepted and gives the same (sorted) result. k in 0..size of dim, else
 * WK_ERR_INVALID_ARGUMENT (a dim out of range: WK_ERR_SHAPE); a rank-0 x is one element. Every dtype. */
wk_status wk_topk(const wk_tensor *x, int64_t k, int dim, bool largest, bool sorted, wk_tensor **values,
                  wk_tensor **indices);
/* The k-th smallest element (k from 1) along dim and its i64 index: element k-1 of the stable ascending sort
 * (NaN largest; among equal values the lower index first). keepdim keeps dim with size 1. k outside 1..size
 * (and an empty dim) is WK_ERR_INVALID_ARGUMENT. */
wk_status wk_kthvalue(const wk_tensor *x, int64_t k, int dim, bool keepdim, wk_tensor **values,
                      wk_tensor **indices);
/* PyTorch's lower median along dim: kthvalue with k = (size + 1) / 2, except that a row holding a NaN gives
 * NaN and the index of its first NaN (torch.median). An empty dim is WK_ERR_INVALID_ARGUMENT. */
wk_status wk_median(const wk_tensor *x, int dim, bool keepdim, wk_tensor **values, wk_tensor **indices);

/* Sampling for generation: one token id per row of logits (B, V) (f32, f16 or bf16), on logits' device.
 * Each array holds `count` values: 1 (one value for every row) or B (one per row); a NULL array is its default.
 * Per row, in this order:
 *  1. penalties over the distinct ids of prev_ids' row (ids outside [0, V) are ignored): a logit l of such an
 *     id becomes l / repetition_penalty when l > 0, else l * repetition_penalty (CTRL, as transformers), then
 *     l - presence_penalty. They apply in greedy mode too.
 *  2. temperature 0: greedy, the id of the largest (penalised) logit, the lowest such id on ties. Else:
 *  3. the candidates: the top_k largest penalised logits (top_k 0 or >= V: all V), ordered as wk_topk orders
 *     them (descending, lower id first among equal logits); z = logit / temperature in f32.
 *  4. weights w = exp(z - z_max) in f64 by core/numerics.h's wk_exp_det (the candidates' softmax, unnormalised);
 *     cumulative sums C_j over the candidates in that order, blocked as numerics.h's WK_CDF_BLOCK says.
 *  5. top-p: keep the first m candidates, m the smallest with C_{m-1} >= top_p * C_{last} (at least one);
 *     min-p: keep only candidates before the first whose w < min_p (w of the first is 1: prob / max prob).
 *  6. one draw u in [0, 1) from Philox4x32-10 with key seed on the counter (offset, row) (numerics.h's
 *     wk_sample_uniform); the id is that of the first kept candidate j with C_j > u * C_{kept-1}.
 * So the same inputs and seed pick the same id on every backend, bit for bit (the rule tests check it).
 * NaN: a row whose largest penalised logit is NaN (NaN counts as the largest, as in wk_topk) gets id -1; no error
 * is raised, since seeing it would cost a synchronization. +inf logits share all the mass; -inf weigh 0.
 * Errors (WK_ERR_INVALID_ARGUMENT, nothing written): temperature < 0 or NaN, top_k < 0, top_p outside (0, 1],
 * min_p outside [0, 1], repetition_penalty <= 0 or not finite, presence_penalty not finite, count not 1 or B,
 * logits not (B, V) with V >= 1, prev_ids not i64/i32 (B, P) on logits' device (WK_ERR_DTYPE for integer logits,
 * WK_ERR_SHAPE for prev_ids' rows). B = 0 gives an empty ids. */
typedef struct wk_sample_params {
    int64_t count;                   /* 1 or B: how many values each non-NULL array below holds */
    const float *temperature;        /* >= 0 (0: greedy); NULL: 1 */
    const int64_t *top_k;            /* >= 0 (0: off); NULL: off */
    const float *top_p;              /* in (0, 1]; NULL: 1 */
    const float *min_p;              /* in [0, 1]; NULL: 0 */
    const float *repetition_penalty; /* > 0; NULL: 1 */
    const float *presence_penalty;   /* finite; NULL: 0 */
    const uint64_t *seed;            /* Philox keys; NULL: 0 */
    uint64_t offset;                 /* the step: pass 0, 1, 2, ... on successive calls to draw new numbers */
} wk_sample_params;
wk_status wk_sample(const wk_tensor *logits, const wk_sample_params *p, const wk_tensor *prev_ids, wk_tensor **ids);
/* torch.multinomial on probability rows probs (B, V) or (V) (f32, f64, f16, bf16): num_samples i64 ids a row
 * ((B, n) or (n)). Weights need not sum to 1. Draw j of row r is u = wk_sample_uniform(seed, j, r); the id is the
 * first i whose blocked cumulative sum (f64, numerics.h's WK_CDF_BLOCK) exceeds u times the row's total, over the
 * ids not drawn yet when replacement is false. Errors: num_samples < 0, or > V without replacement. Rows with a
 * negative, NaN or infinite weight or no positive weight (PyTorch's errors) give -1 for every draw that cannot be
 * made, as would draws without replacement beyond the positive weights; seeing it would need a synchronization. */
wk_status wk_multinomial(const wk_tensor *probs, int64_t num_samples, bool replacement, uint64_t seed,
                         wk_tensor **out);

/* ---------------------------------------------------------------- statistics
 * Over the ndims dims listed (distinct, may be negative; ndims == 0: every dim), as wk_reduce; keepdim keeps
 * them with size 1. Float only (WK_ERR_DTYPE for ints, as PyTorch's var/std/norm). x may be any strided view.
 * Accumulation: var, std and norm sum in f64 on every backend (two passes for var: the mean, then the squared
 * deviations), so the 2-norm of f16/bf16/f32 values cannot overflow (no scaling; PyTorch's f32 sum of squares
 * can); logsumexp takes the max, then sums exp(x - max) (f64 on the CPU, f32 on the GPU but for f64). */
/* var = sum((x - mean)^2) / (N - correction), correction = unbiased ? 1 : 0 (PyTorch's torch.var); std =
 * sqrt(var). N <= correction (an empty reduction, or one element with unbiased) gives NaN, as PyTorch (which
 * divides by max(0, N - correction)); any NaN or infinity in a reduction gives NaN. */
wk_status wk_var(const wk_tensor *x, const int *dims, int ndims, bool unbiased, bool keepdim, wk_tensor **out);
wk_status wk_std(const wk_tensor *x, const int *dims, int ndims, bool unbiased, bool keepdim, wk_tensor **out);
/* log(sum(exp(x))) with the max subtracted first: a reduction whose max is +inf gives +inf, one of only -inf (or
 * an empty one) gives -inf, and a NaN gives NaN (PyTorch's torch.logsumexp). */
wk_status wk_logsumexp(const wk_tensor *x, const int *dims, int ndims, bool keepdim, wk_tensor **out);
/* The vector p-norm (PyTorch's torch.linalg.vector_norm) for p = 1 (sum |x|), 2 (sqrt(sum x^2)) or INFINITY
 * (max |x|); other p: WK_ERR_INVALID_ARGUMENT. NaN propagates. An empty reduction gives 0 for p 1 and 2 and is
 * WK_ERR_SHAPE for p = inf (no identity, as max). */
wk_status wk_norm(const wk_tensor *x, double p, const int *dims, int ndims, bool keepdim, wk_tensor **out);

/* ---------------------------------------------------------------- cumulative ops
 * Along dim (in [-rank, rank); a rank-0 x takes 0 or -1 and is one element); x any strided view, out new and
 * contiguous of x's shape. cumsum/cumprod: every dtype; float x keeps its dtype (f16/bf16 accumulate in f32 and
 * each output is rounded once, as PyTorch), integer x (u8, u32, i32, i64) gives i64, accumulated in i64 with
 * wrapping (PyTorch promotes integers to int64). logcumsumexp: float only, out[i] = log(sum_{j<=i} exp(x[j]))
 * accumulated as PyTorch (max + log1p(exp(min - max)) per step; -inf stays -inf, +inf gives +inf, NaN
 * spreads from its position on). GPU partial sums add in a different order than the CPU's sequential ones. */
wk_status wk_cumsum(const wk_tensor *x, int dim, wk_tensor **out);
wk_status wk_cumprod(const wk_tensor *x, int dim, wk_tensor **out);
wk_status wk_logcumsumexp(const wk_tensor *x, int dim, wk_tensor **out);

/* ---------------------------------------------------------------- linear algebra */
#define WK_MATMUL_ALLOW_TF32 1u /* let f32 products use TF32 tensor cores where the device has them */
/* (..., m, k) x (..., k, n) -> (..., m, n), batch dims broadcast; both ranks >= 2; f16, bf16, f32, f64
 * (f16/bf16 accumulate in f32). */
wk_status wk_matmul(const wk_tensor *a, const wk_tensor *b, wk_tensor **out);
wk_status wk_matmul_ex(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor **out);

/* ---------------------------------------------------------------- convolution, pooling, resampling */
/* Per-axis parameters; 1-D ops use index 0 only. */
typedef struct wk_conv_params {
    int64_t stride[2];         /* >= 1 */
    int64_t padding[2];        /* >= 0 */
    int64_t dilation[2];       /* >= 1 */
    int64_t output_padding[2]; /* transposed only: 0 <= output_padding < max(stride, dilation) */
    int64_t groups;            /* >= 1, divides in and out channels */
} wk_conv_params;
/* stride 1, padding 0, dilation 1, output_padding 0, groups 1. */
wk_conv_params wk_conv_params_default(void);

/* x (N, C, L) * w (O, C/groups, K) [+ bias (O)] -> (N, O, Lout). bias may be NULL. Float only. */
wk_status wk_conv1d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                    wk_tensor **out);
/* x (N, C, H, W) * w (O, C/groups, KH, KW) [+ bias (O)] -> (N, O, Hout, Wout). */
wk_status wk_conv2d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                    wk_tensor **out);
/* x (N, C, L) with w (C, O/groups, K) -> (N, O, Lout),
 * Lout = (L-1)*stride - 2*padding + dilation*(K-1) + output_padding + 1. */
wk_status wk_conv_transpose1d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                              const wk_conv_params *p, wk_tensor **out);
wk_status wk_conv_transpose2d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                              const wk_conv_params *p, wk_tensor **out);

typedef struct wk_pool_params {
    int64_t kernel[2];      /* >= 1 */
    int64_t stride[2];      /* >= 1 */
    int64_t padding[2];     /* 0 <= padding <= kernel/2 (PyTorch's rule) */
    bool ceil_mode;         /* output size rounds up (a window must still start inside the input or left padding) */
    bool count_include_pad; /* avg only: divide by the full window, padding included */
} wk_pool_params;
/* x (N, C, H, W). max_pool2d: all dtypes (NaN propagates); avg_pool2d: float. */
wk_status wk_max_pool2d(const wk_tensor *x, const wk_pool_params *p, wk_tensor **out);
wk_status wk_avg_pool2d(const wk_tensor *x, const wk_pool_params *p, wk_tensor **out);
/* PyTorch 'nearest': src = min(floorf(dst * (float)(in / out)), in - 1), the scale computed and applied
 * in f32 as PyTorch's main path does (this differs from the exact floor(dst * in / out) in rare cases,
 * e.g. 3 -> 123 at dst 41). x (N, C, L) / (N, C, H, W); all dtypes. */
wk_status wk_upsample_nearest1d(const wk_tensor *x, int64_t out_l, wk_tensor **out);
wk_status wk_upsample_nearest2d(const wk_tensor *x, int64_t out_h, int64_t out_w, wk_tensor **out);
/* Bilinear (PyTorch rules). scale_h/scale_w > 0 are used for the source index (as PyTorch's
 * scale_factor with recompute_scale_factor=False) when align_corners is false; <= 0 means in/out. */
wk_status wk_upsample_bilinear2d(const wk_tensor *x, int64_t out_h, int64_t out_w, bool align_corners,
                                 double scale_h, double scale_w, wk_tensor **out);

/* ---------------------------------------------------------------- indexing
 * Index tensors are u8, u32, i32 or i64. An index outside [0, size) is WK_ERR_INDEX_OUT_OF_RANGE
 * naming the op; memory is never touched out of bounds. On a GPU the error is found by the kernel and
 * reported at the next synchronisation (wk_device_sync, wk_tensor_to_host): the call itself may return
 * WK_OK and an output whose contents are then unspecified. In-place scatter and index_add leave their
 * target unchanged on failure on every backend. An in-place target must
 * not overlap itself, ids or src (WK_ERR_INVALID_ARGUMENT, as PyTorch). */
/* ids 1-D: out = x with dim replaced by len(ids). */
wk_status wk_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out);
/* Row lookup in a block-quantized x (an embedding table stored quantized): dim must be 0 and x's rank >= 2
 * (WK_ERR_SHAPE otherwise); the rows picked come back dequantized as f32 (wk_index_select_dequant for f16 or
 * bf16), shape x's with dim 0 replaced by len(ids). */
wk_status wk_index_select_dequant(const wk_tensor *x, const wk_tensor *ids, wk_dtype dt, wk_tensor **out);
/* ids has x's rank, ids.shape[d] <= x.shape[d] for d != dim: out[i][j][k] = x[i][ids[i][j][k]][k] (dim 1). */
wk_status wk_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out);
/* x[..ids[i][j][k]..] = src[i][j][k] for every element of ids (ids.shape <= src.shape, and <= x.shape
 * off dim). With duplicate indices the last write in row-major order of ids wins on the CPU;
 * other backends may pick any of them. */
wk_status wk_scatter(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out);
wk_status wk_scatter_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src);
/* As scatter, adding: duplicates accumulate. */
wk_status wk_scatter_add(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out);
wk_status wk_scatter_add_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src);
/* ids 1-D of src.shape[dim] entries: x[.., ids[i], ..] += src[.., i, ..]; duplicates accumulate. */
wk_status wk_index_add(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out);
wk_status wk_index_add_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src);

/* ---------------------------------------------------------------- block quantization (GGML's formats)
 * wk_dequantize: x of a block-quantized dtype (any view a quantized tensor may be) to dt in f32, f16 or bf16
 * (WK_ERR_DTYPE otherwise), x's shape. Every value is computed in f32 exactly as gguf-py's
 * gguf.quants.dequantize (and ggml's dequantize_row_*) compute it, then rounded once to dt: bit-exact on every
 * backend for every block type (Q8_K, which gguf-py lacks, as ggml: f32 scale times i8).
 * wk_quantize: x of f32, f16 or bf16 (f16/bf16 widened to f32 exactly) to qt in Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
 * Q4_K, Q5_K, Q6_K (WK_ERR_DTYPE otherwise), x's shape; rank >= 1 and the last dim a multiple of qt's block
 * size (WK_ERR_SHAPE). Q4_0 .. Q8_0 are gguf-py's gguf.quants.quantize bit for bit (= ggml's quantize_row_*_ref);
 * the K types follow ggml's reference quantizers (quantize_row_q{4,5,6}_K_ref: per sub-block a weighted
 * least-squares search of scale and min, then 6-bit (Q6_K: 8-bit) scales of the sub-block scales). Every value
 * of x must be finite: NaN or +-inf is WK_ERR_INVALID_ARGUMENT naming the first row (flattened over the leading
 * dims) that holds one, found before anything is written (on a GPU this reads one value a row back: a sync). */
wk_status wk_dequantize(const wk_tensor *x, wk_dtype dt, wk_tensor **out);
wk_status wk_quantize(const wk_tensor *x, wk_dtype qt, wk_tensor **out);
/* wk_matmul_q: out = x @ w^T, a linear layer with block-quantized weights (GGUF's orientation: each row of w is one
 * output feature). x (..., K) of f32, f16 or bf16, any view; w (N, K) of any block-quantized dtype, rank 2, any view
 * a quantized tensor may be; out (..., N) new and contiguous, in x's dtype (as wk_matmul keeps its operands'). w's
 * values are wk_dequantize's in f32; x's f16/bf16 values are widened exactly; products and sums over K are f32 and
 * each result is rounded once to x's dtype (the summation order differs between backends: matmul's tolerance). On a
 * GPU with more than 8 rows of x (M = x's elements / K: prefill) w is dequantized to x's dtype (for f16/bf16 x that
 * rounds each weight once more) into scratch of at most 64 MiB at a time and multiplied by the vendor BLAS (f32
 * accumulation, no TF32); up to 8 rows read w's blocks once, decoded in registers. K = 0 gives zeros. Errors: w not
 * of a block-quantized dtype, x not f32/f16/bf16: WK_ERR_DTYPE; w's rank not 2, x's rank 0 or x's last dim not K:
 * WK_ERR_SHAPE; x and w on two devices: WK_ERR_DEVICE. */
wk_status wk_matmul_q(const wk_tensor *x, const wk_tensor *w, wk_tensor **out);

/* wk_linear: a linear layer and the steps a decoder chains around it, each optional, in one call:
 *     out = residual + glu(rope(rms_norm(x, norm, eps) @ w^T + bias))
 * x (..., K) of f32, f16 or bf16, any view; w (N, K), each row one output feature: of x's dtype (any view with unit
 * stride along K, wk_matmul's numerics) or block-quantized (wk_matmul_q's rules and numerics). With p NULL or all
 * zero it is x @ w^T. p->norm (K) of x's dtype: x's rows through wk_rms_norm with p->eps first. p->bias (N) of x's
 * dtype. p->glu: the product's halves through wk_glu(p->glu_kind) (N even; out's last dim N / 2). p->residual of
 * out's shape and x's dtype (any strides), added last. p->rope_cos and p->rope_sin ((T, D/2) of x's dtype, T x's
 * second-to-last dim, 1 for a 1-D x; D even): a q/k projection's rotary embedding, the product's first rope_cols
 * columns (0: all N; a multiple of D) taken as heads of D and rotated as wk_rope (halves) or, with rope_interleaved,
 * wk_rope_i (pairs 2i, 2i + 1) rotate (B, H, T, D), token t by row t of the tables; not with glu.
 * out (..., N or N / 2) new and contiguous, in x's dtype. Where the backend fuses the steps they run on f32 values
 * and out is rounded once: a GPU for one row of x (a decode step) in one kernel; the CPU for f32 x and w with only
 * bias and residual, any rows, by one GEMM accumulating into residual + bias (so the sum's order differs: a product
 * that cancels a huge residual + bias may overflow where the composition would not). Elsewhere they run as the
 * separate ops, each rounding to x's dtype; results differ between the two by the rounding of the intermediates
 * (matmul's tolerance covers it). Errors: as wk_matmul_q's for
 * x and w (a float w of another dtype than x: WK_ERR_DTYPE); norm, bias or residual of the wrong shape: WK_ERR_SHAPE,
 * of another dtype: WK_ERR_DTYPE, on another device: WK_ERR_DEVICE; eps negative or not finite, or glu_kind not a
 * wk_glu_kind: WK_ERR_INVALID_ARGUMENT; glu with N odd: WK_ERR_SHAPE; one rope table without the other, or rope with
 * glu: WK_ERR_INVALID_ARGUMENT; tables of the wrong shape, rope_cols negative, past N or not a multiple of D:
 * WK_ERR_SHAPE, of another dtype: WK_ERR_DTYPE, on another device: WK_ERR_DEVICE. */
typedef struct wk_linear_params {
    const wk_tensor *norm;     /* RMSNorm weight (K), or NULL */
    double eps;                /* the norm's epsilon */
    const wk_tensor *bias;     /* (N), or NULL */
    bool glu;                  /* gate the product's halves (first: gate, second: up) */
    wk_glu_kind glu_kind;      /* WK_GLU_SWIGLU for Llama's MLP */
    const wk_tensor *residual; /* out's shape, or NULL */
    const wk_tensor *rope_cos, *rope_sin; /* (T, D/2) each, or NULL: no rotary embedding */
    bool rope_interleaved;     /* rotate pairs (2i, 2i + 1) of each head (GGUF's order); false: halves (i, i + D/2) */
    int64_t rope_cols;         /* the output's leading columns rotated, a multiple of D; 0: all */
} wk_linear_params;
wk_status wk_linear(const wk_tensor *x, const wk_tensor *w, const wk_linear_params *p, wk_tensor **out);

/* ---------------------------------------------------------------- padding and reordering
 * Copies whose every output element is one input element (or the pad value): all dtypes, any input view; the
 * result is a new contiguous tensor. Sizes that overflow are WK_ERR_SHAPE (the size rule). */
typedef enum wk_pad_mode {
    WK_PAD_CONSTANT = 0, WK_PAD_REFLECT = 1, WK_PAD_REPLICATE = 2, WK_PAD_CIRCULAR = 3
} wk_pad_mode;
/* torch.nn.functional.pad. pads holds npads values, last dim first: (left, right) of the last dim, then of the
 * dim before, ...; a negative pad crops. Output size of a padded dim: size + left + right. The rules, PyTorch's:
 *  - npads even and <= 2 * rank, pads may be NULL when npads is 0 (WK_ERR_INVALID_ARGUMENT otherwise); mode one
 *    of the four (WK_ERR_INVALID_ARGUMENT).
 *  - CONSTANT: any rank and any number of dims; value converted to x's dtype as wk_full does. The crops of a dim
 *    may not exceed it (size + min(left, 0) + min(right, 0) >= 0), so output sizes are >= 0 (WK_ERR_SHAPE).
 *  - REFLECT, REPLICATE, CIRCULAR: npads 2, 4 or 6 (the last 1, 2 or 3 dims) and x of rank npads/2 + 1 or
 *    npads/2 + 2 (an optional batch dim), else WK_ERR_SHAPE; every dim but that batch dim non-empty
 *    (WK_ERR_SHAPE); value is not used.
 *  - REFLECT: out[o] = x[o - left] reflected at the first and last element (which are not repeated); every
 *    pad < the dim's size, and every output size >= 1 (WK_ERR_SHAPE). Crops count from the input's ends.
 *  - REPLICATE: out[o] = x[clamp(o - left, 0, size - 1)]; every output size >= 1 (WK_ERR_SHAPE).
 *  - CIRCULAR: every pad <= the dim's size and output sizes >= 0 (WK_ERR_SHAPE). As PyTorch's composite, crops
 *    apply first and the positive pads wrap around the cropped extent; a positive pad larger than that extent
 *    is WK_ERR_SHAPE here (PyTorch reads memory it has not written yet there). */
wk_status wk_pad(const wk_tensor *x, const int64_t *pads, int npads, wk_pad_mode mode, double value,
                 wk_tensor **out);
/* torch.flip: reverses the ndims dims listed (distinct, may be negative; duplicates WK_ERR_SHAPE). ndims 0: a
 * copy. */
wk_status wk_flip(const wk_tensor *x, const int *dims, int ndims, wk_tensor **out);
/* torch.roll: out[..., (i + shifts[k]) mod size, ...] = x[..., i, ...] along dims[k], for n >= 1 (shift, dim)
 * pairs; any shift, negative too; a dim listed twice rolls by the sum. dims NULL: n must be 1, and the roll is over
 * the flattened tensor (PyTorch's dims=None), reshaped back. */
wk_status wk_roll(const wk_tensor *x, const int64_t *shifts, const int *dims, int n, wk_tensor **out);
/* torch.Tensor.repeat: n >= rank repeats (>= 0), x viewed with n - rank leading size-1 dims, then tiled:
 * out.shape[d] = shape[d] * repeats[d]. n > WK_MAX_RANK or n < rank: WK_ERR_SHAPE; a negative repeat:
 * WK_ERR_INVALID_ARGUMENT. */
wk_status wk_repeat(const wk_tensor *x, const int64_t *repeats, int n, wk_tensor **out);
/* torch.repeat_interleave along dim: each element repeated `repeats` (>= 0) times in place. PyTorch's dim=None
 * (flatten first) is wk_flatten then dim 0. */
wk_status wk_repeat_interleave(const wk_tensor *x, int64_t repeats, int dim, wk_tensor **out);
/* The same with per-element counts: repeats (u8, u32, i32, i64; rank 0 or 1) holds x.shape[dim] counts >= 0, or
 * one count for all (WK_ERR_SHAPE otherwise; a negative count WK_ERR_INVALID_ARGUMENT). The output size is their
 * sum, so the counts are read to the host (a device sync, as in PyTorch without output_size). */
wk_status wk_repeat_interleave_tensor(const wk_tensor *x, const wk_tensor *repeats, int dim, wk_tensor **out);
/* torch.nn.functional.one_hot: ids (u8, u32, i32 or i64; PyTorch takes i64 only) -> i64 of ids' shape +
 * (num_classes), 1 where the last index equals the id, else 0. An id outside [0, num_classes) is
 * WK_ERR_INDEX_OUT_OF_RANGE as for the indexing ops (on a GPU at the next synchronisation). num_classes -1: the
 * largest id + 1, which reads ids to the host (a device sync; an empty ids is then WK_ERR_INVALID_ARGUMENT, a
 * negative id WK_ERR_INDEX_OUT_OF_RANGE at once). Other num_classes < 0: WK_ERR_INVALID_ARGUMENT. */
wk_status wk_one_hot(const wk_tensor *ids, int64_t num_classes, wk_tensor **out);

/* ---------------------------------------------------------------- transformer pieces
 * cos and sin are (T, D/2) of x's dtype; D even. */
/* x (B, H, T, D): rotates halves: out[i] = x[i]*c - x[i+D/2]*s, out[i+D/2] = x[i]*s + x[i+D/2]*c. */
wk_status wk_rope(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out);
/* x (B, H, T, D): rotates interleaved pairs (x[2i], x[2i+1]). */
wk_status wk_rope_i(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out);
/* x (B, T, H, D): as wk_rope with the (b, t, h, d) layout. */
wk_status wk_rope_thd(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out);

/* ---------------------------------------------------------------- attention
 * wk_attention: out = softmax(scores) V per query row, fused (never an Sq x Skv buffer), where for query i and
 * key j of batch b and query head h (key/value head h / (Hq / Hkv): MHA, GQA, MQA):
 *   s = scale * (q_i . k_j); with softcap > 0, s = softcap * tanh(s / softcap); then ALiBi adds
 *   -slope[h] * |i + L - Sq - j|; then bias adds bias[b][h][i][j] (a u8 bias is a mask instead: 0 drops the key).
 *   Key j is seen when j < L (L = seq_lens[b] when given, else Skv) and, with the query aligned to the END of its
 *   keys (query i sits at position p = i + L - Sq), when p - window_left <= j <= p + window_right (-1: unbounded).
 *   causal is window_right = 0: query i sees keys up to L - Sq + i (FlashAttention's and KV-cache decoding's
 *   bottom-right alignment; PyTorch's is_causal aligns top-left, j <= i, which is the same only when Sq == L).
 * q (B, Hq, Sq, D), k (B, Hkv, Skv, D), v (B, Hkv, Skv, Dv): any strides (a (B, S, H, D) buffer is a permuted
 * view, no copy), one dtype of f16, bf16, f32; Hq a multiple of Hkv; 1 <= D, Dv <= 256. Scores, softmax and the
 * sum over keys are f32. out (B, Hq, Sq, Dv) in q's dtype; lse (may be NULL): the f32 log-sum-exp of each row's
 * scores (B, Hq, Sq), so partial results over disjoint key sets merge exactly. A row that sees no key gives
 * out 0 and lse -inf, never NaN. Sq == 0 or B == 0: empty outputs; Skv == 0: every row sees no key.
 * On NVIDIA GPUs from sm_80, f16/bf16 with D == Dv of 64 or 128 and no bias, ALiBi or soft-cap run on tensor
 * cores (FlashAttention-2's scheme): the softmax weights are rounded to q's dtype before they multiply V, and a
 * NaN or inf in v at a key below L that a row does not see (causal, window) may still reach that row's result
 * (keys at or past L are never read). WICK_ATTENTION_KERNEL=scalar selects the f32 scalar kernels instead;
 * =mma_v1 runs prefill on the earlier single-buffered tensor-core kernel (for comparison).
 * A paged cache (block_table set): k and v are block pools (num_blocks, Hkv, block_size, D) (any strides, so the
 * (num_blocks, block_size, Hkv, D) layout of serving engines is a permuted view); key j of batch b is row
 * j % block_size of block block_table[b][j / block_size]; Skv is max_blocks * block_size and seq_lens is
 * required. A block id outside [0, num_blocks) among a row's first ceil(seq_lens[b] / block_size) entries, or a
 * length outside [0, Skv], is WK_ERR_INDEX_OUT_OF_RANGE, found as the indexing ops find a bad index (on a GPU at
 * the next synchronisation). Memory is never read out of bounds. */
typedef struct wk_attention_params {
    double scale;              /* 0: 1 / sqrt(D) */
    double softcap;            /* 0: none; else > 0 */
    bool causal;               /* window_right = 0 (bottom-right aligned, see above) */
    bool windowed;             /* apply window_left / window_right (false: unbounded both ways) */
    int64_t window_left;       /* keys before the query's position it sees; -1: unbounded */
    int64_t window_right;      /* keys after it; -1: unbounded */
    const wk_tensor *bias;     /* NULL, or broadcastable to (B, Hq, Sq, Skv): f32 or q's dtype (added) or u8 */
    const wk_tensor *alibi;    /* NULL, or f32 (Hq) slopes */
    const wk_tensor *seq_lens; /* NULL, or i32 (B): batch b's keys are its first seq_lens[b] */
    const wk_tensor *block_table; /* NULL, or i32 (B, max_blocks): k and v are a paged block pool */
} wk_attention_params;
/* p may be NULL (every default). lse may be NULL. */
wk_status wk_attention(const wk_tensor *q, const wk_tensor *k, const wk_tensor *v, const wk_attention_params *p,
                       wk_tensor **out, wk_tensor **lse);
/* Writes new keys and values into a cache, in place: k, v (B, Hkv, Snew, D / Dv) go to positions seq_lens[b] ..
 * seq_lens[b] + Snew - 1 of batch b, in a contiguous cache k_cache (B, Hkv, Smax, D) (block_table NULL) or a
 * paged pool (num_blocks, Hkv, block_size, D) through block_table (B, max_blocks) i32. seq_lens (B) i32 is
 * read, not advanced (add Snew to it for the next step). Caches of one dtype with k and v (f16, bf16, f32), any
 * strides, not overlapping k, v or each other. A position past the cache or a block id outside the pool is
 * WK_ERR_INDEX_OUT_OF_RANGE and nothing is written (on a GPU the error comes at the next synchronisation, and
 * the caches are still unchanged). */
wk_status wk_kv_append(wk_tensor *k_cache, wk_tensor *v_cache, const wk_tensor *k, const wk_tensor *v,
                       const wk_tensor *seq_lens, const wk_tensor *block_table);
/* A decoder's attention step in one call (FlashAttention's flash_attn_with_kvcache): k_new, v_new (B, Hkv, Sq,
 * D / Dv) appended to the caches as wk_kv_append(k_cache, v_cache, k_new, v_new, p->seq_lens, p->block_table) does,
 * then wk_attention(q, k_cache, v_cache) with every p field as given but the lengths, which are p->seq_lens[b] + Sq
 * (p->seq_lens: the lengths before the step, required, not advanced). Sq is q's and k_new's dim 2. Errors: as the
 * two ops' (the same codes, found before anything is written), Sq of k_new not q's: WK_ERR_SHAPE, q overlapping a
 * cache: WK_ERR_INVALID_ARGUMENT. Where the backend fuses it (NVIDIA GPUs, the tensor-core decode kernel: Sq times
 * the query heads of a key head at most 16, or Sq 1; a contiguous cache; at most 64 sequences) the new keys are
 * written and read by the attention's own kernel, one launch instead of two; elsewhere, and under
 * WICK_ATTENTION_KV_FUSED=0, the two ops run in turn. */
wk_status wk_attention_kv(const wk_tensor *q, wk_tensor *k_cache, wk_tensor *v_cache, const wk_tensor *k_new,
                          const wk_tensor *v_new, const wk_attention_params *p, wk_tensor **out, wk_tensor **lse);

/* ---------------------------------------------------------------- foreign memory
 * Memory wick does not own: a caller's buffer, a file mapping, another framework's tensor (DLPack below). */
/* Called exactly once, with the ctx given, when the last wick reference to wrapped memory goes. */
typedef void (*wk_deleter)(void *ctx);
/* A tensor over memory the caller owns: ptr is a host pointer (dev "cpu") or a device address on dev (memory
 * of dev's own context: for CUDA the device's primary context, as PyTorch and CuPy use). ptr addresses element
 * 0; strides are in elements, all >= 0 (NULL: row-major). wick never frees ptr: when the tensor and every view
 * of it are released it calls deleter(ctx) once (deleter may be NULL). On failure the deleter is not called
 * and the memory stays the caller's. The caller keeps the memory valid, and does not write it while wick's
 * queued work may read it, until the deleter runs. */
wk_status wk_tensor_wrap(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, const int64_t *strides,
                         void *ptr, wk_deleter deleter, void *ctx, wk_tensor **out);
/* True when t's memory must not be written: a read-only file mapping (wk_safetensors_load on the CPU), a
 * DLPack import flagged read-only. Every in-place op on such a tensor (wk_fill, wk_copy_into, wk_slice_set,
 * wk_copy2d, the *_inplace ops) is WK_ERR_INVALID_ARGUMENT and changes nothing; ops that make new tensors
 * read it as any other. wk_contiguous gives a writable copy. */
bool wk_tensor_is_read_only(const wk_tensor *t);
/* The native handle of the calling thread's current stream of dev (a CUstream or hipStream_t; 0 on the CPU), for
 * ordering wick's work with another framework's (the DLPack stream argument). */
wk_status wk_device_native_stream(wk_device *dev, uintptr_t *out);

/* Page-locked host memory for dev's GPU: uploads from it (wk_tensor_from_host, wk_to_device of a tensor
 * wrapping it) are one DMA at full bus speed. Freed with wk_host_free_pinned on the same device (NULL is a
 * no-op). WK_ERR_UNSUPPORTED on the CPU device. */
wk_status wk_host_alloc_pinned(wk_device *dev, size_t bytes, void **out);
void wk_host_free_pinned(wk_device *dev, void *ptr);

/* ---------------------------------------------------------------- streams, events, graphs
 * A stream is an in-order queue of work on one device. Every device has a default stream (wk_stream_default),
 * the one wick uses unless told otherwise. Each thread has a current stream per device, the default until
 * wk_stream_set_current changes it: every op on that device's tensors, every transfer and every allocation
 * the thread makes is queued on it. Work on two streams may run at the same time; order it with events
 * (wk_event_record on one stream, wk_stream_wait on the other).
 *
 * Memory and streams: freeing is always safe. A tensor released (its last reference gone) while work queued
 * on any stream of its device may still use it keeps its memory until that work has completed: when a device
 * has more than its default stream, wick makes the release wait, on the device, for the work queued so far on
 * every stream it knows of that device (the default, those made by wk_stream_create and those adopted with
 * wk_stream_from_native), without blocking the host or the streams. Writing a tensor on one stream while
 * another stream reads it is a race unless an event orders the two, as in CUDA.
 *
 * On the CPU, ops run when they are called, so a stream is an in-order queue that is always empty: every call
 * here behaves as on a GPU whose work finished at once (events record the host's clock; waits return at once),
 * and code written for a GPU runs unchanged. The CPU has no native streams (wk_stream_from_native), no
 * page-locked memory (wk_host_register) and no graphs (capture is WK_ERR_UNSUPPORTED on the CPU: its ops are
 * not replayable kernels). */
typedef struct wk_stream wk_stream;
typedef struct wk_event wk_event;
typedef struct wk_graph wk_graph;

/* The device's default stream, owned by the library (never destroyed; wk_stream_destroy ignores it). */
wk_stream *wk_stream_default(wk_device *dev);
/* A new stream on dev (on a GPU a non-blocking stream of normal priority). Destroy it with wk_stream_destroy. */
wk_status wk_stream_create(wk_device *dev, wk_stream **out);
/* Adopts a stream the caller owns (a CUstream / hipStream_t of dev's context, e.g. PyTorch's
 * torch.cuda.current_stream().cuda_stream), so that wick's work can be queued on it and ordered with the
 * caller's. wick never destroys the native stream: the caller keeps it alive until wk_stream_destroy of the
 * handle returned here. handle 0 (the legacy default stream) is WK_ERR_INVALID_ARGUMENT: wick's memory is
 * stream-ordered and the legacy stream synchronises with every other. WK_ERR_UNSUPPORTED on the CPU. */
wk_status wk_stream_from_native(wk_device *dev, uintptr_t handle, wk_stream **out);
/* Releases the handle. Work already queued on it completes; tensors it used stay valid. A thread whose current
 * stream it was falls back to the default stream. A stream in the middle of a capture is WK_ERR_INVALID_ARGUMENT
 * (end the capture first). NULL and the default stream: WK_OK, nothing done. */
wk_status wk_stream_destroy(wk_stream *s);
wk_device *wk_stream_device(const wk_stream *s);
/* The native handle (CUstream / hipStream_t; 0 on the CPU). */
uintptr_t wk_stream_native(const wk_stream *s);
/* The calling thread's current stream of dev, and setting it (s NULL: the default). s must be a stream of dev
 * (WK_ERR_DEVICE otherwise). Other threads keep theirs. */
wk_stream *wk_stream_current(wk_device *dev);
wk_status wk_stream_set_current(wk_device *dev, wk_stream *s);
/* Waits until the work queued on s so far has finished; device-side faults surface here as in wk_device_sync.
 * wk_device_sync waits for every stream of the device that wick knows. */
wk_status wk_stream_sync(wk_stream *s);
/* *idle: whether the work queued on s so far has finished (never blocks). */
wk_status wk_stream_query(wk_stream *s, bool *idle);

/* Events mark a point in a stream's work. flags: WK_EVENT_TIMING to use it with wk_event_elapsed_ms (timing
 * costs a little on every record). */
#define WK_EVENT_TIMING 1u
wk_status wk_event_create(wk_device *dev, unsigned flags, wk_event **out);
void wk_event_destroy(wk_event *e); /* NULL: no-op; pending waits on it stay valid */
/* Marks the point after the work queued on s so far (s NULL: the calling thread's current stream of the
 * event's device). Recording again moves the mark. */
wk_status wk_event_record(wk_event *e, wk_stream *s);
/* Work queued on s from now on waits until e's mark has been reached (an event never recorded: no wait). Does
 * not block the host. s and e on the same device (WK_ERR_DEVICE otherwise). */
wk_status wk_stream_wait(wk_stream *s, wk_event *e);
/* Blocks the host until e's mark has been reached; *done: whether it has (never blocks). */
wk_status wk_event_sync(wk_event *e);
wk_status wk_event_query(wk_event *e, bool *done);
/* Milliseconds between two recorded marks, both of events made with WK_EVENT_TIMING, end's reached
 * (WK_ERR_INVALID_ARGUMENT otherwise: not recorded, no timing, not reached yet, different devices). */
wk_status wk_event_elapsed_ms(const wk_event *start, const wk_event *end, float *ms);

/* Page-locked host memory and asynchronous copies. wk_host_register page-locks [ptr, ptr + bytes) of memory the
 * caller allocated, so copies to and from it run as one DMA and asynchronously (as from wk_host_alloc_pinned);
 * wk_host_unregister undoes it (before the caller frees the memory; no copy may be in flight). On the CPU:
 * WK_ERR_UNSUPPORTED. */
wk_status wk_host_register(wk_device *dev, void *ptr, size_t bytes);
wk_status wk_host_unregister(wk_device *dev, void *ptr);
/* Copies queued on the calling thread's current stream of t's device, in order with its ops; they return at
 * once when the host memory is page-locked (wick's or registered). From pageable memory they return once the
 * host bytes have been read (to_device) or written (to_host): the copy is then done as far as the host is
 * concerned. The bytes are row-major, as for wk_tensor_from_host / wk_tensor_to_host.
 *  - wk_tensor_write_async: src into t, which must be contiguous and writable with src_bytes equal to its
 *    wk_tensor_nbytes (a graph's inputs are updated this way). src must not change until the stream has
 *    passed the copy.
 *  - wk_tensor_to_host_async: t's contents into dst (dst_bytes at least wk_tensor_nbytes; a strided t goes
 *    through a contiguous copy on the device first). Read dst only after the stream has passed the copy
 *    (wk_stream_sync, or an event recorded after it). Device-side faults surface at the next sync.
 *  - wk_to_device_async: as wk_to_device, a CPU <-> GPU copy queued as above (between two GPUs, and for a
 *    block-quantized tensor, it is wk_to_device's synchronous copy); a CPU result's memory is valid only once the source device's stream has
 *    passed the copy. */
wk_status wk_tensor_write_async(wk_tensor *t, const void *src, size_t src_bytes);
wk_status wk_tensor_to_host_async(const wk_tensor *t, void *dst, size_t dst_bytes);
wk_status wk_to_device_async(const wk_tensor *t, wk_device *dev, wk_tensor **out);

/* Graphs: capture a sequence of ops once, replay it many times with one launch (CUDA graphs, HIP graphs).
 *  - wk_stream_begin_capture(s): from now on the calling thread's work on s's device is recorded, not run:
 *    s becomes the thread's current stream of the device until the capture ends. s may not be the default
 *    stream (create one), and no other thread may queue work on s meanwhile; other streams run as usual.
 *  - During the capture, allocations (op outputs, scratch) come from the graph's own memory: their addresses
 *    stay fixed for every replay. Tensors made before the capture and used by it (its inputs, weights) must
 *    stay alive, unchanged in shape and place, for as long as the graph may be replayed; update inputs by
 *    writing into them (wk_tensor_write_async, wk_copy_into, an in-place op) before a replay. Releasing such a
 *    tensor during the capture fails the capture.
 *  - What cannot be captured returns an error from the op and fails the capture: anything that waits for the
 *    device (wk_device_sync, wk_tensor_to_host, ops that read a count back, such as wk_one_hot with -1 or
 *    wk_repeat_interleave with counts), uploads from host memory (wk_tensor_from_host, wk_to_device from the CPU,
 *    wk_tensor_write_async: the graph would read the host buffer again at every replay), collectives, and a
 *    vendor library's refusal. A failed capture never gives a graph.
 *  - wk_stream_end_capture(s, &g): ends the capture (whatever happens) and restores the thread's previous
 *    current stream; the graph, or the first failure of the capture (its op's message) and *out NULL.
 *    Tensors made during the capture are the graph's outputs: after each replay they hold its results (before
 *    the first replay, nothing: do not read them). They stay valid after wk_graph_destroy, until released.
 *  - wk_graph_launch(g, s): queues one replay on s (NULL: the current stream of the graph's device), in order
 *    with s's other work; replays of one graph must not overlap (launch them on one stream, or order them).
 *    Device-side faults surface at the next sync.
 *  - wk_graph_destroy: frees the graph; a replay in flight completes. NULL: no-op. */
wk_status wk_stream_begin_capture(wk_stream *s);
wk_status wk_stream_end_capture(wk_stream *s, wk_graph **out);
wk_status wk_graph_launch(wk_graph *g, wk_stream *s);
void wk_graph_destroy(wk_graph *g);

/* ---------------------------------------------------------------- files
 * Files are untrusted input: a damaged or hostile file gives WK_ERR_FILE with a message naming the file and
 * what is wrong; nothing is read outside the file and no allocation is made from an unchecked size. An I/O
 * failure (missing file, no permission, disk full) is WK_ERR_IO naming the file and the system's reason.
 *
 * Element types of files. A file may hold a type wick has no dtype for: such a tensor lists fine, and loading
 * it is WK_ERR_DTYPE naming the type unless the caller asks for a dtype to convert to on load (the _as loads):
 * the values then go through the widest exact wick dtype (i8/i16/u16/bool -> i32, u64 -> i64 (wrapping above
 * 2^63-1), f8 -> f32) and then wk_cast's rules. */
typedef enum wk_file_type {
    WK_FILE_U8 = 0, WK_FILE_U32 = 1, WK_FILE_I32 = 2, WK_FILE_I64 = 3, /* the wick dtypes, same values */
    WK_FILE_F16 = 4, WK_FILE_BF16 = 5, WK_FILE_F32 = 6, WK_FILE_F64 = 7,
    WK_FILE_BOOL = 8, WK_FILE_I8 = 9, WK_FILE_I16 = 10, WK_FILE_U16 = 11, WK_FILE_U64 = 12,
    WK_FILE_F8_E4M3 = 13, WK_FILE_F8_E5M2 = 14,
    WK_FILE_QUANTIZED = 15 /* a GGML block-quantized type: wk_gguf_tensor_info.ggml_type says which */
} wk_file_type;
#define WK_FILE_TYPE_COUNT 16
/* "u8" .. "f64", "bool", "i8", "i16", "u16", "u64", "f8_e4m3", "f8_e5m2", "quantized"; "invalid" otherwise. */
const char *wk_file_type_name(wk_file_type t);

/* ---- safetensors (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length, a JSON
 * header {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}, then the data.
 * An open file is mapped read-only (mmap); tensors loaded to the CPU are zero-copy read-only views of the
 * mapping where the data is aligned for its dtype (else a copy), and the mapping lives until the last of them
 * and the wk_safetensors handle are released. A load to a GPU is one upload from the mapping. */
typedef struct wk_safetensors wk_safetensors;
typedef struct wk_safetensors_tensor_info {
    const char *name;      /* valid while the file is open */
    const char *file_type_name; /* the file's own name for the type: "F32", "BF16", "I8", "F8_E4M3", ... */
    wk_file_type type;
    int rank;
    int64_t shape[WK_MAX_RANK];
    uint64_t offset;       /* byte offset of the data in the file */
    uint64_t bytes;
} wk_safetensors_tensor_info;
wk_status wk_safetensors_open(const char *path, wk_safetensors **out);
void wk_safetensors_close(wk_safetensors *f); /* NULL is a no-op; loaded tensors stay valid */
int64_t wk_safetensors_count(const wk_safetensors *f);      /* tensors, in the header's order */
wk_status wk_safetensors_tensor_info_get(const wk_safetensors *f, int64_t i, wk_safetensors_tensor_info *out);
/* Index of the tensor called name; WK_ERR_INVALID_ARGUMENT naming it when absent. */
wk_status wk_safetensors_find(const wk_safetensors *f, const char *name, int64_t *index);
int64_t wk_safetensors_metadata_count(const wk_safetensors *f); /* "__metadata__" entries */
wk_status wk_safetensors_metadata_get(const wk_safetensors *f, int64_t i, const char **key, const char **value);
/* The value of metadata key, or WK_ERR_INVALID_ARGUMENT when absent. */
wk_status wk_safetensors_metadata_find(const wk_safetensors *f, const char *key, const char **value);
wk_status wk_safetensors_load(const wk_safetensors *f, const char *name, wk_device *dev, wk_tensor **out);
/* Loads and converts to dt (see "Element types of files"). */
wk_status wk_safetensors_load_as(const wk_safetensors *f, const char *name, wk_device *dev, wk_dtype dt,
                                 wk_tensor **out);
/* n tensors by name (names NULL: the first n in the file's order, n <= count); all or nothing: on failure no
 * tensor is returned. */
wk_status wk_safetensors_load_many(const wk_safetensors *f, const char *const *names, int64_t n, wk_device *dev,
                                   wk_tensor **outs);
/* Writes n named tensors (any device, any strides; names distinct and not "__metadata__") and nmeta string
 * pairs of metadata to path: to a temporary file in path's directory, then renamed over path, so path is
 * either the old file or the whole new one. The data starts 8-byte aligned (the header is padded with
 * spaces). */
wk_status wk_safetensors_save(const char *path, int64_t n, const char *const *names, const wk_tensor *const *ts,
                              int64_t nmeta, const char *const *keys, const char *const *values);

/* ---- GGUF v2 and v3 (the llama.cpp format). GGUF dims are innermost first: a GGUF tensor of
 * ne = (ne[0], ne[1], ...) is the wick tensor of shape (..., ne[1], ne[0]); ne = (4096, 11008) loads as
 * shape (11008, 4096). Tensors of wick dtypes (and i8/i16 through the _as load) load as such: the GGML
 * block-quantized types wick has (Q4_0 .. IQ4_XS) as its block dtypes, their raw blocks unconverted (_as to a
 * float dtype dequantizes them); wk_gguf_load_raw gives any tensor, the other block types included, as u8 raw
 * blocks, shape (rows, bytes a row), with the type in wk_gguf_tensor_info. Like safetensors, the file is mapped
 * read-only and CPU loads are zero-copy read-only views where aligned. */
typedef struct wk_gguf wk_gguf;
/* Metadata value types, the GGUF spec's numbering. */
typedef enum wk_gguf_type {
    WK_GGUF_UINT8 = 0, WK_GGUF_INT8 = 1, WK_GGUF_UINT16 = 2, WK_GGUF_INT16 = 3, WK_GGUF_UINT32 = 4,
    WK_GGUF_INT32 = 5, WK_GGUF_FLOAT32 = 6, WK_GGUF_BOOL = 7, WK_GGUF_STRING = 8, WK_GGUF_ARRAY = 9,
    WK_GGUF_UINT64 = 10, WK_GGUF_INT64 = 11, WK_GGUF_FLOAT64 = 12
} wk_gguf_type;
/* A metadata value, owned by the open file. */
typedef struct wk_gguf_value wk_gguf_value;
typedef struct wk_gguf_tensor_info {
    const char *name;
    uint32_t ggml_type;      /* the GGML type number (0 F32, 1 F16, 2 Q4_0, ... 30 BF16) */
    const char *ggml_type_name; /* "F32", "Q4_K", ...; "unknown" for a number this build does not know */
    wk_file_type type;       /* WK_FILE_QUANTIZED for the block types */
    int rank;
    int64_t ne[WK_MAX_RANK]; /* GGUF order, innermost first */
    int64_t shape[WK_MAX_RANK]; /* wick order: shape[i] = ne[rank - 1 - i] */
    uint64_t offset;         /* byte offset of the data in the file */
    uint64_t bytes;
} wk_gguf_tensor_info;
wk_status wk_gguf_open(const char *path, wk_gguf **out);
void wk_gguf_close(wk_gguf *g); /* NULL is a no-op; loaded tensors stay valid */
uint32_t wk_gguf_version(const wk_gguf *g);
uint32_t wk_gguf_alignment(const wk_gguf *g);  /* general.alignment, 32 when absent */
int64_t wk_gguf_metadata_count(const wk_gguf *g);
/* Key i (in file order) and its value. */
wk_status wk_gguf_metadata_get(const wk_gguf *g, int64_t i, const char **key, const wk_gguf_value **value);
/* The value of key; WK_ERR_INVALID_ARGUMENT naming it when absent. */
wk_status wk_gguf_metadata_find(const wk_gguf *g, const char *key, const wk_gguf_value **value);
wk_gguf_type wk_gguf_value_type(const wk_gguf_value *v);
/* Typed reads: WK_ERR_DTYPE naming both types when the value's type does not fit: _int takes any integer
 * type whose value fits int64, _uint any non-negative integer, _float float32/float64, _bool bool. */
wk_status wk_gguf_value_int(const wk_gguf_value *v, int64_t *out);
wk_status wk_gguf_value_uint(const wk_gguf_value *v, uint64_t *out);
wk_status wk_gguf_value_float(const wk_gguf_value *v, double *out);
wk_status wk_gguf_value_bool(const wk_gguf_value *v, bool *out);
/* A string's bytes: len of them, then a NUL wick adds (the string itself may hold NULs). */
wk_status wk_gguf_value_string(const wk_gguf_value *v, const char **s, uint64_t *len);
/* An array: its element type and length, and element i as a value. */
wk_status wk_gguf_value_array(const wk_gguf_value *v, wk_gguf_type *elem_type, uint64_t *len);
wk_status wk_gguf_value_array_get(const wk_gguf_value *v, uint64_t i, const wk_gguf_value **out);
int64_t wk_gguf_tensor_count(const wk_gguf *g);
wk_status wk_gguf_tensor_info_get(const wk_gguf *g, int64_t i, wk_gguf_tensor_info *out);
wk_status wk_gguf_find(const wk_gguf *g, const char *name, int64_t *index);
/* A tensor of a wick dtype; WK_ERR_DTYPE for i8/i16 (use _as) and the block types wick lacks (use _raw). */
wk_status wk_gguf_load(const wk_gguf *g, const char *name, wk_device *dev, wk_tensor **out);
wk_status wk_gguf_load_as(const wk_gguf *g, const char *name, wk_device *dev, wk_dtype dt, wk_tensor **out);
/* Any tensor's bytes as u8 of shape (rows, bytes a row), rows = the product of ne[1..]. */
wk_status wk_gguf_load_raw(const wk_gguf *g, const char *name, wk_device *dev, wk_tensor **out);
/* Writing: a builder of metadata and tensors, then one atomic write (temporary file + rename), version 3,
 * tensors aligned to general.alignment when set (an unsigned integer, a power of two), else 32. Tensors of
 * f32, f16, bf16, f64, i32, i64 and the block dtypes (any device, any strides); u8 and u32 are WK_ERR_DTYPE (GGUF
 * has no unsigned tensor types). wk_npy_save, wk_safetensors_save and wk_to_dlpack refuse the block dtypes
 * (WK_ERR_DTYPE): those formats have no type for them. */
typedef struct wk_gguf_writer wk_gguf_writer;
wk_status wk_gguf_writer_new(wk_gguf_writer **out);
void wk_gguf_writer_free(wk_gguf_writer *w);
/* Metadata, in the order added; a key added twice is WK_ERR_INVALID_ARGUMENT. */
wk_status wk_gguf_writer_set_int(wk_gguf_writer *w, const char *key, wk_gguf_type type, int64_t v);
wk_status wk_gguf_writer_set_uint(wk_gguf_writer *w, const char *key, wk_gguf_type type, uint64_t v);
wk_status wk_gguf_writer_set_float(wk_gguf_writer *w, const char *key, wk_gguf_type type, double v);
wk_status wk_gguf_writer_set_bool(wk_gguf_writer *w, const char *key, bool v);
wk_status wk_gguf_writer_set_string(wk_gguf_writer *w, const char *key, const char *s, uint64_t len);
/* An array of n numbers/bools of elem_type (the values' C type is the GGUF type's: uint8_t ... double, bool
 * as uint8_t), or of n strings (elem_type WK_GGUF_STRING, values a const char *const *, lens their lengths). */
wk_status wk_gguf_writer_set_array(wk_gguf_writer *w, const char *key, wk_gguf_type elem_type, uint64_t n,
                                   const void *values, const uint64_t *lens);
/* Adds key with a copy of v, a value of an open file (any type, nested arrays included). */
wk_status wk_gguf_writer_set_value(wk_gguf_writer *w, const char *key, const wk_gguf_value *v);
/* The writer keeps a reference to t until it is freed. */
wk_status wk_gguf_writer_add_tensor(wk_gguf_writer *w, const char *name, const wk_tensor *t);
wk_status wk_gguf_writer_save(const wk_gguf_writer *w, const char *path);

/* ---- .npy (numpy's format, versions 1.0, 2.0 and 3.0; little-endian; C or Fortran order). */
/* Reads path to a tensor on dev (on the CPU a zero-copy read-only view of the mapped file where aligned); a
 * Fortran-order file keeps its column-major layout as strides. Types wick lacks: WK_ERR_DTYPE, or converted by
 * _as. */
wk_status wk_npy_load(const char *path, wk_device *dev, wk_tensor **out);
wk_status wk_npy_load_as(const char *path, wk_device *dev, wk_dtype dt, wk_tensor **out);
/* Writes t (any device, any strides) as version 1.0 (2.0 when the header needs it), C order, atomically. */
wk_status wk_npy_save(const char *path, const wk_tensor *t);

/* ---------------------------------------------------------------- DLPack 1.x exchange
 * The structs are DLPack's (dlpack.h, v1.x; declared by wick_dlpack.h, ABI-checked against the published
 * header). Exports share t's memory; imports share the producer's: no copy either way. */
struct DLManagedTensorVersioned;
struct DLManagedTensor;
/* consumer_stream: the DLPack protocol's `stream` as an integer. For a GPU tensor, wick's queued work on it is
 * ordered before work the consumer queues on that stream afterwards: -1 no ordering (the consumer
 * synchronises), 0 or 1 the legacy default stream, 2 the per-thread default stream, anything else a CUstream
 * / hipStream_t. Ignored for CPU tensors. The result's strides are always filled; its flags have READ_ONLY
 * where t is read-only (the legacy struct has no flags: a read-only t is WK_ERR_INVALID_ARGUMENT there). The
 * consumer calls the result's deleter once; it drops wick's reference. */
wk_status wk_to_dlpack(const wk_tensor *t, int64_t consumer_stream, struct DLManagedTensorVersioned **out);
wk_status wk_to_dlpack_legacy(const wk_tensor *t, int64_t consumer_stream, struct DLManagedTensor **out);
/* Import flags. */
#define WK_DLPACK_ALLOW_COPY 1u /* negative strides: copy into a new tensor (the producer's deleter runs at once) */
/* A wick tensor sharing m's memory; wick owns m from then on and calls its deleter exactly once, when the last
 * reference goes. CPU, CUDA host-pinned and ROCm host memory import as "cpu", CUDA device (and managed) memory
 * as "cuda:N", ROCm as "rocm:N". Refused with nothing taken (the caller still owns m): a DLPack major version
 * other than 1 (versioned), lanes != 1, a type wick lacks (WK_ERR_DTYPE; bool imports as u8), a device wick does
 * not drive (WK_ERR_DEVICE), negative strides without WK_DLPACK_ALLOW_COPY, a byte_offset that is not a
 * multiple of the element size. A READ_ONLY flag gives a read-only tensor. */
wk_status wk_from_dlpack(struct DLManagedTensorVersioned *m, unsigned flags, wk_tensor **out);
wk_status wk_from_dlpack_legacy(struct DLManagedTensor *m, unsigned flags, wk_tensor **out);

/* ---------------------------------------------------------------- communicators and collectives
 * A communicator joins `size` ranks, each a device; collectives move and combine tensors across them. On
 * NVIDIA GPUs the library is NCCL (libnccl.so.2), on AMD RCCL (librccl.so.1), both loaded at run time
 * (WICK_NCCL_LIBRARY / WICK_RCCL_LIBRARY name a path); wk_comm_library says which was found. The CPU device
 * has its own communicator over the threads of one process (same API, same results), for tests and CI.
 *
 * Making one:
 *  - wk_comm_init_all: every rank in this process, one per device of devs (GPUs of one backend, each at
 *    most once; or the CPU device, any number of times). Returns when all are ready.
 *  - wk_comm_init_rank: one rank of `size`; the other ranks join from other threads or processes (or, for
 *    GPUs, other machines) with the same id. wk_comm_id_new makes the id on one rank, whose caller sends its
 *    WK_COMM_ID_BYTES bytes to the others any way it likes. A CPU id serves threads of the making process only.
 *    Blocks until every rank has joined.
 *  - timeout_s > 0 bounds every wait of the communicator: joining, a collective's host call, wk_comm_wait,
 *    wk_comm_destroy. When it expires the communicator is aborted and the call returns WK_ERR_COMM. 0 waits
 *    without bound (joining too), for speed: on GPUs NCCL/RCCL then launch each collective from the calling
 *    thread, where with a timeout they launch through the library's own thread, which costs 100-150 us a call
 *    (measured on two H200s: README, Benchmarks). Without a timeout, wk_comm_abort from another thread stops
 *    work queued on the device, but a host call blocked inside the library (a peer that died while connections
 *    were being made) may not return: use a timeout where peers can fail.
 *
 * Collectives:
 *  - Every rank calls the same collectives in the same order with the same dtype, element counts, op and
 *    root. The CPU communicator checks this and fails all ranks with WK_ERR_COMM when they differ; the GPU
 *    libraries cannot check it and may hang or corrupt data (wk_comm_wait's timeout then reports it).
 *  - Tensors are contiguous (any start offset) on the rank's device, of one dtype (any wick dtype); a strided
 *    view is WK_ERR_INVALID_ARGUMENT (wk_contiguous first). An output is written in place: it must be
 *    writable and must not overlap the input, except where a call says the two may be the same tensor.
 *    Buffers of different ranks must not overlap. A root or peer outside [0, size), an output that overlaps its
 *    input or is read-only: WK_ERR_INVALID_ARGUMENT; a tensor on another device than the rank's: WK_ERR_DEVICE.
 *  - On a GPU a collective is queued on the device's stream, in order with wick's ops, and returns: read its
 *    output through the usual synchronising calls (wk_tensor_to_host, wk_device_sync), or wk_comm_wait. On
 *    the CPU it returns when this rank's part is done.
 *  - Reductions: SUM, PROD, MIN, MAX, and AVG (float dtypes only: the sum divided by size). Integers wrap.
 *    f16/bf16 results may differ in the last bit between libraries (the order of the partial sums differs);
 *    the CPU communicator sums in f64 in rank order and rounds once. MIN/MAX of a NaN: NaN on the CPU; what
 *    the GPU library does otherwise.
 *  - A failed collective (a peer gone, a timeout, an abort) is WK_ERR_COMM with the library's text; the
 *    communicator is then broken: every later collective on it is WK_ERR_COMM and only wk_comm_destroy is
 *    useful. Argument errors (WK_ERR_SHAPE, ...) are found before anything is queued and break nothing.
 *
 * Groups: between wk_comm_group_begin and wk_comm_group_end (nestable, per thread) collectives are queued
 * but not waited for, so one thread can drive several ranks (wk_comm_init_all) and a rank can send and
 * receive in one step; the group's work starts at the outermost end, which returns its first error. Without
 * a group, one thread driving two ranks of one communicator deadlocks (until the timeout), as in NCCL. The CPU
 * communicator holds 64 collectives (and 8 sends from one rank to another) in flight: a rank that queues more
 * than that ahead of the slowest rank waits for it (in a group driven by one thread: until the timeout). */
typedef struct wk_comm wk_comm;
#define WK_COMM_ID_BYTES 128
typedef struct wk_comm_id {
    unsigned char bytes[WK_COMM_ID_BYTES];
} wk_comm_id;
typedef enum wk_comm_op { WK_COMM_SUM, WK_COMM_PROD, WK_COMM_MIN, WK_COMM_MAX, WK_COMM_AVG } wk_comm_op;
#define WK_COMM_OP_COUNT 5
const char *wk_comm_op_name(wk_comm_op op);

/* The collective library serving dev ("NCCL 2.28.9", "RCCL 2.18.3", "threads" on the CPU) in *name, owned by
 * the library; WK_ERR_UNSUPPORTED with the reason (what was looked for) when there is none. */
wk_status wk_comm_library(wk_device *dev, const char **name);
wk_status wk_comm_id_new(wk_device *dev, wk_comm_id *out);
/* out: an array of n communicators, rank i on devs[i]; all made or none. */
wk_status wk_comm_init_all(wk_device *const *devs, int n, double timeout_s, wk_comm **out);
wk_status wk_comm_init_rank(wk_device *dev, int size, const wk_comm_id *id, int rank, double timeout_s,
                            wk_comm **out);
/* Waits for the communicator's queued collectives (up to the timeout), then frees it. A broken or aborted
 * communicator is freed without waiting. NULL is a no-op. Returns the wait's status: freed either way. */
wk_status wk_comm_destroy(wk_comm *c);
/* Stops the communicator's queued and running collectives (on the GPU, through the library's abort) and breaks
 * it. May be called from another thread while one is blocked in a call on c; free it with wk_comm_destroy. */
wk_status wk_comm_abort(wk_comm *c);
/* Waits until the collectives this rank queued so far are complete: WK_ERR_COMM when one failed or the
 * timeout expired (the communicator is then aborted). */
wk_status wk_comm_wait(wk_comm *c);
int wk_comm_rank(const wk_comm *c);
int wk_comm_size(const wk_comm *c);
wk_device *wk_comm_device(const wk_comm *c);

wk_status wk_comm_group_begin(void);
wk_status wk_comm_group_end(void);

/* out = op over the ranks' x; same shape and dtype; out may be x itself (in place). */
wk_status wk_comm_all_reduce(wk_comm *c, const wk_tensor *x, wk_comm_op op, wk_tensor *out);
/* out = the ranks' x concatenated in rank order along dim 0: x (d0, ...) -> out (size * d0, ...); a 0-d x
 * gives out (size). */
wk_status wk_comm_all_gather(wk_comm *c, const wk_tensor *x, wk_tensor *out);
/* x (size * d0, ...) reduced over the ranks; rank r's out (d0, ...) is block r of dim 0 of the result. */
wk_status wk_comm_reduce_scatter(wk_comm *c, const wk_tensor *x, wk_comm_op op, wk_tensor *out);
/* out on every rank = x of rank root (x is read on root only, where out may be x; elsewhere x may be NULL). */
wk_status wk_comm_broadcast(wk_comm *c, const wk_tensor *x, int root, wk_tensor *out);
/* out on rank root = op over the ranks' x; out is written on root only (NULL elsewhere); it may be x. */
wk_status wk_comm_reduce(wk_comm *c, const wk_tensor *x, wk_comm_op op, int root, wk_tensor *out);
/* Point to point: rank peer's matching wk_comm_recv gets x (same dtype and element count); a rank that sends and
 * receives in one step groups the two. */
wk_status wk_comm_send(wk_comm *c, const wk_tensor *x, int peer);
wk_status wk_comm_recv(wk_comm *c, wk_tensor *out, int peer);

/* Tensor-parallel linear layers (Megatron-LM's column- and row-parallel), out = x W^T for a weight W (N, K) in
 * the PyTorch/GGUF orientation (a row per output feature) split across the ranks; 2-D operands of one float
 * dtype, any strides; the call returns once all is queued. WICK_TP_CHUNKS=N makes the product in N chunks,
 * each chunk's collective queued (on GPUs, on a high-priority side stream) while the next chunk is computed;
 * the default is one chunk, since on two H200s the chunks' communication did not overlap cuBLAS's GEMMs.
 * The gathered column layer on GPUs whose ranks are all in this process (one thread each, outside a group, not
 * capturing) with a direct path between every two: each of 8 chunks (WICK_TP_CHUNKS, at most 16 here) goes to
 * the other ranks' buffers by the copy engines as soon as it is made, overlapping the next chunk's product; the
 * ranks meet on the host twice a call (a rank that does not come: WK_ERR_COMM after the communicator's timeout,
 * the communicator broken; ranks that disagree on the shapes: WK_ERR_COMM on each, nothing copied). The first such
 * call lets every GPU of the communicator write into the others' memory pools (for good). Elsewhere, and with
 * WICK_TP_PEER_COPY=0, the exchange goes through NCCL/RCCL's send and receive.
 *  - wk_tp_linear_column: w_shard = rows [r N/size, (r+1) N/size) of W; x (M, K), the same on every rank.
 *    gather false: out (M, N/size) contiguous, this rank's columns of x W^T (nothing is communicated).
 *    gather true: out (M, N), all of x W^T on every rank, as the transposed view of an (N, M) buffer
 *    (wk_contiguous makes it row-major).
 *  - wk_tp_linear_row: w_shard = columns [r K/size, (r+1) K/size) of W, an (N, K/size) tensor; x_shard (M,
 *    K/size) this rank's columns of x (a column-parallel layer's output without gather). out (M, N) contiguous:
 *    x W^T, the ranks' partial products summed (all_reduce), on every rank.
 * Every rank calls the same layer with the same shapes (the collectives' rule). */
wk_status wk_tp_linear_column(wk_comm *c, const wk_tensor *x, const wk_tensor *w_shard, bool gather, wk_tensor **out);
wk_status wk_tp_linear_row(wk_comm *c, const wk_tensor *x_shard, const wk_tensor *w_shard, wk_tensor **out);

/* ---------------------------------------------------------------- build information */
typedef struct wk_build_info {
    const char *version;        /* WICK_VERSION_STRING */
    const char *build_type;     /* CMake build type */
    const char *options;        /* build options, space separated ("openmp openblas asan ...") */
    const char *cuda_targets;   /* embedded NVIDIA kernel targets, "" when none */
    const char *rocm_targets;   /* embedded AMD kernel targets, "" when none */
} wk_build_info;
void wk_get_build_info(wk_build_info *out);

#if defined(__GNUC__) && defined(WICK_BUILDING)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* WICK_H */

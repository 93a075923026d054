/* backend.h: the interface every backend fills (cpu/; gpu/, vendor-neutral, for CUDA and ROCm).
 * ops/ validates arguments, works out broadcasting and output shapes, allocates outputs, then calls a slot. */
#ifndef WK_BACKEND_H
#define WK_BACKEND_H

#include "core/dtype.h"
#include "core/tensor.h"

/* Contract for every op slot:
 *  - Arguments are validated: dtypes, devices, shapes and parameters are what the slot's comment says.
 *    A backend never re-validates them.
 *  - Inputs may be any strided view (strides >= 0, stride 0 for broadcast dims, non-zero offset).
 *    Outputs are fresh contiguous tensors allocated by ops/, unless the slot says "in place".
 *  - Execution may be asynchronous: a slot may return once work is queued on the device's stream.
 *    Errors found on the device (an index out of range) are reported by sync(), naming the op.
 *    Errors found while queueing (a vendor call failing) are returned at once.
 *  - Required slots: probe, device, alloc, free, upload, download, sync, fill and copy (the library itself uses
 *    them). Every other slot is optional: left NULL, the backend lacks the op, and ops/ returns
 *    WK_ERR_UNSUPPORTED naming the op and the backend (tests/test_backend_slots.c).
 *  - A slot never sees an empty output (ops/ applies wick.h's zero-size rule once, WK_SLOT), except the
 *    indexing slots, which run whenever there are indices. */
/* The stream table of a backend (ops/stream.c and ops/graph.c validate; the table only acts). Streams, events
 * and graphs handed to it are of the device it serves. Work is queued on the calling thread's current stream of
 * the device (core/stream.h wk_stream_of) unless a stream is named. */
typedef struct wk_stream_backend {
    /* A new stream: fills s->native (owned), or takes s->native given by the caller (adopted, !s->owned). */
    wk_status (*create)(wk_stream *s);
    /* Work queued so far on s completes; an owned native queue is released. */
    void (*destroy)(wk_stream *s);
    wk_status (*sync)(wk_stream *s); /* device-side faults surface here, as in sync() */
    wk_status (*query)(wk_stream *s, bool *idle);
    wk_status (*event_create)(wk_event *e); /* fills e->native */
    void (*event_destroy)(wk_event *e);
    wk_status (*event_record)(wk_event *e, wk_stream *s);
    wk_status (*wait)(wk_stream *s, wk_event *e); /* e recorded */
    wk_status (*event_sync)(wk_event *e);         /* e recorded */
    wk_status (*event_query)(wk_event *e, bool *done);
    /* Both recorded with WK_EVENT_TIMING; WK_ERR_INVALID_ARGUMENT when end's mark is not reached yet. */
    wk_status (*elapsed_ms)(const wk_event *start, const wk_event *end, float *ms);
    /* Page-locking caller memory (NULL where there is none: the CPU). */
    wk_status (*host_register)(wk_device *dev, void *ptr, size_t bytes);
    wk_status (*host_unregister)(wk_device *dev, void *ptr);
    /* Copies queued on the current stream, returning at once from page-locked memory. */
    wk_status (*upload_async)(wk_device *dev, void *dst, const void *src, size_t bytes);
    wk_status (*download_async)(wk_device *dev, void *dst, const void *src, size_t bytes);
    /* Graphs (NULL where there are none: the CPU). capture_begin: s (not the default) starts recording the calling
     * thread's work; ops/ has made it the thread's current stream. capture_end: stops it (always), and on success
     * fills g->native; the first failure during the capture otherwise. */
    wk_status (*capture_begin)(wk_stream *s);
    wk_status (*capture_end)(wk_stream *s, wk_graph *g);
    wk_status (*graph_launch)(wk_graph *g, wk_stream *s);
    void (*graph_destroy)(wk_graph *g);
} wk_stream_backend;

/* The slots' parameters that choose a variant. */
typedef enum wk_softmax_kind { WK_SOFTMAX = 0, WK_LOG_SOFTMAX = 1 } wk_softmax_kind;
typedef enum wk_sort_order { WK_SORT_ASCENDING = 0, WK_SORT_DESCENDING = 1 } wk_sort_order;
/* The topk slot's selections (the stable sort's order, NaN largest): the k smallest or largest in order; the k-th
 * smallest alone; the median: the k-th smallest unless the row holds a NaN, then its first NaN. */
typedef enum wk_topk_mode { WK_TOPK_SMALLEST, WK_TOPK_LARGEST, WK_TOPK_KTH, WK_TOPK_MEDIAN } wk_topk_mode;
/* topk's SMALLEST/LARGEST take k up to this; ops/ sorts whole rows for more. */
#define WK_TOPK_SLOT_MAX_K 256
/* The sampling slots' per-row parameters: a (B, WK_SAMPLE_NPARAM) f64 tensor, these columns. */
enum { WK_SP_TEMP, WK_SP_TOPK, WK_SP_TOPP, WK_SP_MINP, WK_SP_REP, WK_SP_PRES, WK_SP_SEED_LO, WK_SP_SEED_HI,
       WK_SAMPLE_NPARAM };
typedef enum wk_scatter_mode { WK_SCATTER_SET = 0, WK_SCATTER_ADD = 1 } wk_scatter_mode;
/* Whose tensor an in-place slot writes: the caller's (left unchanged on failure where the backend can), or the
 * op's own fresh output. */
typedef enum wk_write_target { WK_TARGET_CALLER = 0, WK_TARGET_FRESH = 1 } wk_write_target;
/* rope (halves of (B, H, T, D)), rope_i (interleaved pairs of (B, H, T, D)), rope_thd (halves of (B, T, H, D)).
 * The GPU's kernels take it as their first axis in this order (kernels/rope.h). */
typedef enum wk_rope_kind { WK_ROPE_HALVES = 0, WK_ROPE_INTERLEAVED = 1, WK_ROPE_THD = 2 } wk_rope_kind;
/* reorder: one index map per dim (core/numerics.h, wk_reorder_src) and the constant pad's value. */
typedef struct wk_reorder_map {
    int32_t kind[WK_MAX_RANK]; /* wk_reorder_kind */
    int64_t a[WK_MAX_RANK];    /* the map's parameter (shift, pad before, repeat factor) */
    wk_scalar value;           /* WK_REORDER_CONSTANT: the pad value in x's storage form */
} wk_reorder_map;
/* tril (keep the lower triangle) or triu (the upper); the GPU's kernels take it in this order (kernels/mask.h). */
typedef enum wk_tri_kind { WK_TRI_LOWER = 0, WK_TRI_UPPER = 1 } wk_tri_kind;
/* stats: the statistic over a row; the GPU's kernels take it in this order (kernels/stats.h). */
typedef enum wk_stats_op {
    WK_STATS_VAR = 0, WK_STATS_STD = 1, WK_STATS_LOGSUMEXP = 2, WK_STATS_NORM1 = 3, WK_STATS_NORM2 = 4,
    WK_STATS_NORM_INF = 5
} wk_stats_op;
/* scan: the cumulative op; the GPU's kernels take it in this order (kernels/scan.h). */
typedef enum wk_scan_op { WK_SCAN_SUM = 0, WK_SCAN_PROD = 1, WK_SCAN_LOGSUMEXP = 2 } wk_scan_op;
/* conv: the number of spatial dims, and forward or transposed. */
typedef enum wk_conv_dims { WK_CONV_1D = 1, WK_CONV_2D = 2 } wk_conv_dims;
typedef enum wk_conv_dir { WK_CONV_FORWARD = 0, WK_CONV_TRANSPOSED = 1 } wk_conv_dir;

/* Attention (ops/attention.c validates as wick.h says). q (B, Hq, Sq, D); k, v (B, Hkv, Skv, D / Dv), or block
 * pools (num_blocks, Hkv, block_size, D / Dv) when block_table is set; any strides. bias: NULL or a view of shape
 * (B, Hq, Sq, skv) (stride 0 on broadcast dims), f32, q's dtype, or u8 (a mask); alibi f32 (Hq); seq_lens i32 (B)
 * (always set when paged); block_table i32 (B, max_blocks). window_left/right: -1 unbounded, causal folded in;
 * scale resolved (never 0); softcap 0 for none. out fresh and contiguous, lse NULL or fresh f32 (B, Hq, Sq).
 * The slot checks what lives in device memory (lengths in [0, skv], block ids within the pool for the blocks a
 * length uses) and reports it as an indexing slot reports a bad index. */
typedef struct wk_attn {
    const wk_tensor *q, *k, *v, *bias, *alibi, *seq_lens, *block_table;
    wk_tensor *out, *lse;
    double scale, softcap;
    int64_t window_left, window_right;
    int64_t skv;        /* key positions a sequence has: k's dim 2, or max_blocks * block_size */
    int64_t block_size; /* paged: the pools' dim 2; 0 otherwise */
    const wk_tensor *k_new, *v_new; /* attention_kv: (B, Hkv, Sq, D / Dv) appended first; NULL otherwise */
} wk_attn;
/* kv_append: k, v (B, Hkv, Snew, D / Dv) into caches shaped as wk_attn's k and v (block_size 0: (B, Hkv, capacity,
 * D)); dtypes equal; caches writable and disjoint from everything else. The slot checks lengths (seq_lens[b] +
 * Snew <= capacity, seq_lens[b] >= 0) and block ids before writing anything, and writes nothing when one is bad
 * (a GPU reports it at the next synchronisation). Runs only when k or v has elements. */
typedef struct wk_kv_write {
    wk_tensor *k_cache, *v_cache;
    const wk_tensor *k, *v, *seq_lens, *block_table;
    int64_t capacity;   /* positions a sequence may hold */
    int64_t block_size; /* paged: the pools' dim 2; 0 otherwise */
} wk_kv_write;

/* linear (wk_linear): x (M, K) contiguous, any float dtype, M >= 0; w (N, K) of x's dtype with unit stride along K
 * and rows ld elements apart, or block-quantized and contiguous; norm (K), bias (N) contiguous of x's dtype or NULL;
 * glu: N even, out's last dim N / 2; residual of out's shape, contiguous, or NULL; out (M, N or N / 2) contiguous.
 * rope_cos, rope_sin: (T, D/2) with unit stride along D/2 (row m of x at position m % T), or NULL; rope_cols a
 * multiple of D, 1 <= rope_cols <= N, N a multiple of D; not with glu. N, K >= 1, eps finite and >= 0. */
typedef struct wk_linear_job {
    const wk_tensor *x, *w, *norm, *bias, *residual, *rope_cos, *rope_sin;
    wk_tensor *out;
    double eps;
    bool glu;
    wk_glu_kind glu_kind;
    bool rope_interleaved;
    int64_t rope_cols;
} wk_linear_job;

/* Collectives (ops/comm.c validates: ranks, roots, dtypes, counts; buffers contiguous, writable, disjoint).
 * count: elements of one rank's block: all_reduce, broadcast, reduce, send, recv: the whole tensor;
 * all_gather: the input (the output holds size * count); reduce_scatter: the output (the input holds
 * size * count). send/recv: device addresses with offsets applied; NULL where a rank has none (broadcast's
 * input off the root, reduce's output off the root). peer: the root (broadcast, reduce) or the other rank. */
typedef enum wk_coll_kind {
    WK_COLL_ALL_REDUCE, WK_COLL_ALL_GATHER, WK_COLL_REDUCE_SCATTER, WK_COLL_BROADCAST, WK_COLL_REDUCE,
    WK_COLL_SEND, WK_COLL_RECV
} wk_coll_kind;
#define WK_COLL_KIND_COUNT 7
typedef struct wk_coll {
    wk_coll_kind kind;
    wk_comm_op op; /* reductions: all_reduce, reduce_scatter, reduce */
    wk_dtype dtype;
    size_t count;
    const void *send;
    void *recv;
    int peer;
    /* Queue on the communicator's side stream, after the work queued on the device so far, without making the
     * device's later work wait (join does that): communication overlapped with compute (ops/comm_tp.c). */
    bool side;
} wk_coll;
const char *wk_coll_name(wk_coll_kind k); /* "all_reduce", ... (ops/comm.c) */

#define WK_GATHER_CHUNKS_MAX 16 /* gather_made's chunks */

/* A backend's communicators: `impl` is the backend's own per-rank state. Every function reports failures with
 * wk_error (WK_ERR_COMM once the communicator is broken) and may be called from any thread. */
typedef struct wk_comm_backend {
    /* A device serves one rank of a communicator (a GPU under NCCL/RCCL); false: any number (the CPU's threads). */
    bool one_rank_per_device;
    /* The library's name and version, or WK_ERR_UNSUPPORTED with what was looked for. */
    wk_status (*library)(wk_device *dev, const char **name);
    wk_status (*id_new)(wk_device *dev, wk_comm_id *out);
    /* Ranks first .. first + n - 1 of a communicator of `size` ranks, rank first + i on devs[i], into impl[i]:
     * all or none. Blocks until all `size` ranks have joined (or timeout_s > 0 expires: WK_ERR_COMM). */
    wk_status (*init)(wk_device *const *devs, int n, int size, int first, const wk_comm_id *id, double timeout_s,
                      void **impl);
    /* Queues c on the rank's device. grouped: inside this thread's group (group_begin was called): return once
     * queued; otherwise return when the rank's part is queued (GPU) or done (CPU). */
    wk_status (*run)(void *impl, const wk_coll *c, bool grouped);
    /* This thread's group: begin, and end (start the group's work and wait as run does ungrouped). */
    wk_status (*group_begin)(void);
    wk_status (*group_end)(void);
    wk_status (*wait)(void *impl);
    wk_status (*abort)(void *impl);
    /* Waits as wait does (unless broken), then frees impl whatever happened. */
    wk_status (*destroy)(void *impl);
    /* The device's later work waits for the side stream's (optional: NULL where run is synchronous). */
    wk_status (*join)(void *impl);
    /* Optional (NULL: none). An all-gather of blocks made in chunks, without the library: buf holds `size` blocks
     * of block_bytes, this rank's at rank * block_bytes. Where every rank of the communicator is in this process
     * with a direct path to every other (and the device is not capturing), make(ctx, i, ...) for i < chunks queues
     * chunk i of this rank's block (bytes [*offset, *offset + *bytes) of it), each chunk goes to the same place in
     * every other rank's buf as soon as it is made, the device's later work waits for every copy into and out of
     * buf, and *done is true (also when it then fails). Else *done is false and nothing was called (an error then
     * comes only from a communicator already broken). Every rank calls
     * it for the same gather, from its own thread, outside a group (ops/comm_tp.c). 1 <= chunks <=
     * WK_GATHER_CHUNKS_MAX. */
    wk_status (*gather_made)(void *impl, void *buf, size_t block_bytes, int chunks,
                             wk_status (*make)(void *ctx, int chunk, size_t *offset, size_t *bytes), void *ctx,
                             bool *done);
} wk_comm_backend;

struct wk_backend {
    const char *name; /* "cpu", "cuda", "rocm" */
    /* The kernel targets compiled into this build ("sm_80 sm_90 compute_90"), "" when none; NULL for the CPU. */
    const char *kernel_targets;

    /* ---- devices and memory (required) */
    /* Fills info for this backend (availability, device count, what was looked for). */
    wk_status (*probe)(wk_backend_info *info);
    /* Device number `ordinal` of this backend, created on first use and kept for the process. */
    wk_status (*device)(int ordinal, wk_device **out);
    /* bytes may be 0; *ptr is then any value free() accepts. Failure: WK_ERR_OUT_OF_MEMORY. */
    wk_status (*alloc)(wk_device *dev, size_t bytes, void **ptr);
    /* bytes: what alloc was asked for (lets a backend keep size-class caches). */
    void (*free)(wk_device *dev, void *ptr, size_t bytes);
    /* Host <-> device copies of contiguous bytes; dst/src device addresses include any offset.
     * download waits for queued work that writes src. */
    wk_status (*upload)(wk_device *dev, void *dst, const void *src, size_t bytes);
    wk_status (*download)(wk_device *dev, void *dst, const void *src, size_t bytes);
    /* Waits for queued work; returns device-side errors recorded since the last sync. */
    wk_status (*sync)(wk_device *dev);
    /* ---- streams (optional: the CPU's ops are synchronous and it has none) */
    /* The native handle of the stream dev's work is queued on (a CUstream / hipStream_t). */
    wk_status (*native_stream)(wk_device *dev, uintptr_t *out);
    /* Work that a foreign stream (the DLPack protocol's integer: 0/1 legacy default, 2 per-thread default, else
     * a handle) queues from now on waits for all work queued on dev so far. */
    wk_status (*order_stream)(wk_device *dev, int64_t stream);
    /* An upload whose source bytes come from fill(ctx, buf, offset, n), which writes bytes [offset, offset + n)
     * of the source into host memory buf and returns false on failure (a file read: the io/ loaders). fill
     * may run on several host threads at once, for disjoint ranges. Optional: without it, io/ uploads from
     * the mapping. */
    wk_status (*upload_fill)(wk_device *dev, void *dst, size_t bytes, bool (*fill)(void *ctx, void *buf,
                             size_t offset, size_t n), void *ctx);
    /* Page-locked host memory for fast uploads to dev (wk_host_alloc_pinned). */
    wk_status (*host_alloc_pinned)(wk_device *dev, size_t bytes, void **out);
    void (*host_free_pinned)(wk_device *dev, void *ptr);
    /* Streams, events, page-locked registration, asynchronous copies and graphs (wick.h "streams"): required. */
    const wk_stream_backend *streams;

    /* ---- creation and copies (fill and copy required, the rest optional; so are all the op slots below) */
    /* In place: every element of the view dst = v (storage form of dst's dtype). dst has no overlap. */
    wk_status (*fill)(wk_tensor *dst, wk_scalar v);
    /* dst contiguous 1-D: dst[i] = (dtype)(start + i*step), computed in f64. */
    wk_status (*arange)(wk_tensor *dst, double start, double step);
    /* dst contiguous float: element i from Philox4x32-10 (seed, counter i); normal: a=mean, b=std;
     * uniform: a=lo, b=hi. See cpu/rand.c for the exact bit recipe every backend must reproduce. */
    wk_status (*rand_uniform)(wk_tensor *dst, uint64_t seed, double lo, double hi);
    wk_status (*rand_normal)(wk_tensor *dst, uint64_t seed, double mean, double std);
    /* In place: dst (a view with no overlap) = src; same dtype and shape (src may be broadcast). */
    wk_status (*copy)(const wk_tensor *src, wk_tensor *dst);
    /* dst (contiguous, src's shape, other dtype) = cast(src), rules of wk_cast. */
    wk_status (*cast)(const wk_tensor *src, wk_tensor *dst);
    /* In place 2-D block copy in elements, offsets from each storage's start; bounds checked by ops/. */
    wk_status (*copy2d)(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                        int64_t dst_ld, int64_t src_offset, int64_t dst_offset);

    /* ---- element-wise (out contiguous, inputs already broadcast to out's shape) */
    /* op valid for x's dtype (float: all ops; ints: sqr, abs, neg, relu, sign). */
    wk_status (*unary)(wk_unary_op op, const wk_tensor *x, wk_tensor *out);
    /* mul/add in the arithmetic form of x's dtype (wk_scalar_compute). */
    wk_status (*affine)(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out);
    wk_status (*powf)(const wk_tensor *x, double e, wk_tensor *out);     /* float */
    wk_status (*elu)(const wk_tensor *x, double alpha, wk_tensor *out);  /* float */
    wk_status (*leaky_relu)(const wk_tensor *x, double negative_slope, wk_tensor *out); /* float */
    /* float; a and b: the halves of the op's input, views of one tensor with out's shape and the same strides. */
    wk_status (*glu)(wk_glu_kind kind, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
    /* lo/hi in arithmetic form. */
    wk_status (*clamp)(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out);
    /* a, b, out: same dtype and shape. */
    wk_status (*binary)(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
    /* a, b same dtype and shape; out u8. */
    wk_status (*compare)(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out);
    /* cond u8/u32/i64; t, f, out same dtype; all the same shape. */
    wk_status (*where)(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out);

    /* ---- masks (out contiguous, x's shape and dtype; any dtype) */
    /* x of rank >= 2: out[..., i, j] = keep ? x[..., i, j] : 0, keep = j - i <= diagonal (lower) or >= diagonal
     * (upper); diagonal clamped to [-rows, cols] (the last two dims' sizes), the same result. */
    wk_status (*tri)(const wk_tensor *x, wk_tri_kind kind, int64_t diagonal, wk_tensor *out);
    /* mask u8 already broadcast to x's shape; v in the storage form of x's dtype. out = mask != 0 ? v : x. */
    wk_status (*masked_fill)(const wk_tensor *x, const wk_tensor *mask, wk_scalar v, wk_tensor *out);

    /* ---- reductions */
    /* The last nreduce dims of x are reduced (ops/ permutes the reduced dims last); out is contiguous with
     * numel = product of x's other dims. nreduce may be 0 (a copy). mean: float; min/max: x non-empty
     * along the reduced dims. */
    wk_status (*reduce)(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out);
    /* op MIN or MAX over x's last dim (size >= 1) -> out i64 contiguous of x's other dims. */
    wk_status (*arg_reduce)(wk_reduce_op op, const wk_tensor *x, wk_tensor *out);
    /* Over the last dim of x (rank >= 1); out contiguous, x's shape and dtype. */
    wk_status (*softmax)(const wk_tensor *x, wk_softmax_kind kind, wk_tensor *out);
    /* w: 1-D of the last dim's size, x's dtype. */
    wk_status (*rms_norm)(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out);
    /* x and r: the same shape and dtype, any strides; w as rms_norm's; sum and out contiguous of x's shape. sum =
     * x + r rounded to the dtype bit for bit as the binary slot's ADD, out bit for bit what rms_norm gives on sum
     * (NaN payloads aside). */
    wk_status (*add_rms_norm)(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor *sum,
                              wk_tensor *out);
    /* w and b may be NULL. */
    wk_status (*layer_norm)(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out);
    /* x (N, C, S) of rank 3, any strides, float; mean, var 1-D of C, w, b 1-D of C or NULL, all x's dtype; out
     * contiguous (N, C, S). */
    wk_status (*batch_norm)(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                            const wk_tensor *b, double eps, wk_tensor *out);
    /* x (N, C, S) of rank 3, any strides, float, S >= 1; groups divides C; w, b 1-D of C or NULL; out contiguous. */
    wk_status (*group_norm)(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out);
    /* The statistic over x's last dim (size >= 1; ops/ merges the reduced dims into it), x float of rank >= 1,
     * any strides -> out contiguous of x's other dims, x's dtype. correction: var and std. */
    wk_status (*stats)(wk_stats_op op, const wk_tensor *x, double correction, wk_tensor *out);
    /* Cumulative op along dim of x (rank >= 1, any strides) into out, contiguous of x's shape: i64 for integer x
     * (sum, prod), else x's dtype (logsumexp: float only). */
    wk_status (*scan)(wk_scan_op op, const wk_tensor *x, int dim, wk_tensor *out);
    /* Stable sort along the last dim; values (x's dtype) and/or indices (i64) may be NULL, not both. */
    wk_status (*sort)(const wk_tensor *x, wk_sort_order order, wk_tensor *values, wk_tensor *indices);
    /* Selection along x's last dim (size n >= 1): values (x's dtype) and indices (i64), contiguous (rows, kout):
     * kout = k (1 <= k <= min(n, WK_TOPK_SLOT_MAX_K)) for SMALLEST/LARGEST, 1 for KTH/MEDIAN (1 <= k <= n). */
    wk_status (*topk)(const wk_tensor *x, int64_t k, wk_topk_mode mode, wk_tensor *values, wk_tensor *indices);
    /* Sampling (wick.h's wk_sample): params (B, WK_SAMPLE_NPARAM) f64 contiguous. sample_penalize: z (B, V) f32
     * contiguous, in place, prev (B, P) i64/i32 contiguous (P >= 1). sample_pick: cand (B, K) f32 contiguous, the
     * candidates sorted as wk_topk's largest, cand_ids (B, K) i64; ids (B) i64. */
    wk_status (*sample_penalize)(wk_tensor *z, const wk_tensor *prev, const wk_tensor *params);
    wk_status (*sample_pick)(const wk_tensor *cand, const wk_tensor *cand_ids, const wk_tensor *params,
                             uint64_t offset, wk_tensor *ids);
    /* probs (B, V) f32/f64 contiguous, V >= 1; out (B, n) i64, n >= 1 (n <= V without replacement). */
    wk_status (*multinomial)(const wk_tensor *probs, int64_t n, bool replacement, uint64_t seed, wk_tensor *out);

    /* ---- linear algebra */
    /* a (..., m, k), b (..., k, n), out (..., m, n): same rank, batch dims already broadcast (stride 0).
     * flags: WK_MATMUL_*. */
    wk_status (*matmul)(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor *out);

    /* ---- convolution, pooling, resampling */
    /* Forward: x (N, C, *S), w (O, C/g, *K). Transposed: w (C, O/g, *K). S and K have `dims` dims; for
     * WK_CONV_1D only index 0 of p's arrays is meaningful. bias (O) may be NULL. */
    wk_status (*conv)(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                      wk_conv_dims dims, wk_conv_dir dir, wk_tensor *out);
    /* op MAX or MEAN (avg), x (N, C, H, W). */
    wk_status (*pool2d)(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out);
    /* x (N, C, L) or (N, C, H, W); out the same rank with the new spatial sizes. */
    wk_status (*upsample_nearest)(const wk_tensor *x, wk_tensor *out);
    /* scale_h/scale_w: as wk_upsample_bilinear2d (<= 0: none). */
    wk_status (*upsample_bilinear2d)(const wk_tensor *x, bool align_corners, double scale_h, double scale_w,
                                     wk_tensor *out);

    /* ---- indexing: ids u8/u32/i32/i64; out-of-range indices are an error, never an access. These slots run
     * whenever ids has elements, even when out (or x, in place) has none: the indices are checked all the same. */
    wk_status (*index_select)(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out);
    wk_status (*gather)(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out);
    /* In place on x (a view with no overlap), ids non-empty. mode: accumulate or set. On failure x is unchanged
     * when target is WK_TARGET_CALLER (on the CPU); WK_TARGET_FRESH: x is the op's own new output, which need
     * not be left unchanged when an index is bad. */
    wk_status (*scatter)(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_scatter_mode mode,
                         wk_write_target target);
    wk_status (*index_add)(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_write_target target);

    /* ---- reordering (ops/reorder.c, ops/reorder_pad.c) */
    /* out[o] = x[src(o)]: x and out have one rank, and along dim d out's index o reads x's index
     * wk_reorder_src(m->kind[d], o, x.shape[d], m->a[d]), which ops/ guarantees lies in [0, x.shape[d]) or is -1
     * (only for WK_REORDER_CONSTANT): then out[o] = m->value. x may be empty when out is not (every read is -1);
     * a dim whose map is the identity is WK_REORDER_SAME. All dtypes: the slot moves element bytes. */
    wk_status (*reorder)(const wk_tensor *x, const wk_reorder_map *m, wk_tensor *out);
    /* ids (index dtype, any view), out i64 (ids' shape, classes): out[..., c] = ids[...] == c. An id outside
     * [0, classes) is an error as in the indexing slots (GPU: at the next sync). classes >= 1. */
    wk_status (*one_hot)(const wk_tensor *ids, int64_t classes, wk_tensor *out);

    /* ---- transformer pieces */
    wk_status (*rope)(wk_rope_kind kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin,
                      wk_tensor *out);
    wk_status (*attention)(const wk_attn *a);
    wk_status (*kv_append)(const wk_kv_write *w);
    /* Optional: wk_attention_kv in one pass: k_new, v_new written into the caches k, v at positions seq_lens[b] ..
     * seq_lens[b] + Sq - 1 (as kv_append: nothing written when a length is bad), then the attention over
     * seq_lens[b] + Sq keys. WK_ERR_UNSUPPORTED (no message) where the backend does not fuse the call: ops/attention.c
     * then runs kv_append and attention. */
    wk_status (*attention_kv)(const wk_attn *a);

    /* ---- block quantization (ops/quant.c; the formats and the arithmetic in core/quant_blocks.h) */
    /* x contiguous of a block-quantized dtype, out contiguous f32/f16/bf16 of x's shape: every element of x as
     * wk_q_value computes it, rounded once to out's dtype. */
    wk_status (*dequantize)(const wk_tensor *x, wk_tensor *out);
    /* x contiguous f32/f16/bf16 with every value finite, out contiguous of x's shape and a quantizable block dtype
     * (wk_qi_quantizable): each block of x as wk_q_quantize_block makes it from its values in f32. */
    wk_status (*quantize)(const wk_tensor *x, wk_tensor *out);
    /* x (M, K) contiguous f32/f16/bf16, w (N, K) contiguous of a block-quantized dtype, out (M, N) contiguous of x's
     * dtype; M, N, K >= 1: out = x @ w^T with w's values as wk_q_value gives them, f32 products and sums. */
    wk_status (*matmul_q)(const wk_tensor *x, const wk_tensor *w, wk_tensor *out);
    /* Optional: the steps of wk_linear in one pass (the job's rules above). WK_ERR_UNSUPPORTED (no message) where
     * the backend does not fuse this call: ops/linear.c then runs the steps as the separate ops. linear_max_rows:
     * the most rows of x it takes (0: any), so that ops/linear.c allocates no output for a call it would refuse. */
    wk_status (*linear)(const wk_linear_job *j);
    int64_t linear_max_rows;

    /* ---- communicators (optional): NULL when the backend has none */
    const wk_comm_backend *comm;
};

/* The backends compiled into this build, CPU first. */
extern const wk_backend wk_cpu_backend;
extern const wk_backend wk_cuda_backend; /* gpu/backend.c, on the CUDA runtime */
extern const wk_backend wk_rocm_backend; /* gpu/backend.c, on the HIP runtime */
const wk_backend *const *wk_backends(int *count);

#endif

/* common.h: the validation and shape helpers every file of ops/ uses, so each check is written once.
 * Each helper takes the op name and, on failure, records a message naming it and returns a status. */
#ifndef WK_OPS_COMMON_H
#define WK_OPS_COMMON_H

#include "backend.h"
#include "core/error.h"
#include "core/quant_blocks.h"

/* The device a tensor lives on, and its backend. */
static inline wk_device *wk_dev(const wk_tensor *t) { return t->storage->device; }
static inline const wk_backend *wk_be(const wk_tensor *t) { return t->storage->device->backend; }

/* t is not NULL (name: "x", "weight", ...) and not of a block-quantized dtype: every op's check of every tensor it
 * takes, so no block-quantized tensor reaches a backend slot that does not expect one (WK_ERR_DTYPE saying to
 * dequantize first). */
wk_status wk_check_tensor(const char *op, const char *name, const wk_tensor *t);
/* t is not NULL; any dtype: for the few ops that take block-quantized tensors (views keeping whole rows, transfers,
 * row lookup, dequantize). */
wk_status wk_check_tensor_q(const char *op, const char *name, const wk_tensor *t);
/* out-parameter is not NULL. */
wk_status wk_check_out(const char *op, const void *out);
/* b is on a's device. */
wk_status wk_check_same_device(const char *op, const wk_tensor *a, const wk_tensor *b);
/* b has a's dtype. */
wk_status wk_check_same_dtype(const char *op, const wk_tensor *a, const wk_tensor *b);
/* t's dtype is a float dtype. */
wk_status wk_check_float(const char *op, const wk_tensor *t);
/* t's dtype is an index dtype (u8, u32, i32, i64). */
wk_status wk_check_index_dtype(const char *op, const wk_tensor *t);
/* t has exactly `rank` dims. */
wk_status wk_check_rank(const char *op, const char *name, const wk_tensor *t, int rank);
/* t is a valid in-place target (no element addressed twice). */
wk_status wk_check_writable(const char *op, const wk_tensor *t);
/* t (may be NULL) shares no byte with the in-place target: what an op reads while writing the target must not
 * change under it (a changing index could escape the range checked before the writes). */
wk_status wk_check_no_alias(const char *op, const char *target_name, const wk_tensor *target, const char *name,
                            const wk_tensor *t);
/* A linear layer's x (..., K) of f32/f16/bf16 and w (N, K) on x's device: w block-quantized, or also (float_w) of
 * x's dtype (wk_matmul_q, wk_linear). */
wk_status wk_check_linear_operands(const char *op, const wk_tensor *x, const wk_tensor *w, bool float_w);
/* The backend has the slot (pass the slot pointer cast to const void *). */
wk_status wk_check_slot(const char *op, const wk_tensor *t, const void *slot);
#define WK_CHECK_SLOT(op, t, slot) wk_check_slot(op, t, (const void *)(uintptr_t)wk_be(t)->slot)
/* Runs backend slot `slot` of dst's device with the arguments that follow, unless dst, the tensor the slot
 * writes, has no elements: the one place where wick.h's rule for zero-size results is applied, so a backend
 * slot never sees an empty output (but for the indexing slots, which check their indices: backend.h). */
#define WK_SLOT(dst, slot, ...) (wk_empty(dst) ? WK_OK : wk_be(dst)->slot(__VA_ARGS__))
static inline bool wk_empty(const wk_tensor *t) { return wk_tensor_numel(t) == 0; }

/* The arguments of an op that makes a new tensor from (dev, dt, rank, shape): out not NULL, a device, a valid
 * dtype, rank in 0..WK_MAX_RANK, no negative size. */
wk_status wk_check_new(const char *op, const wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                       const void *out);
/* A new contiguous tensor of t's shape on t's device holding t's values (ops/copy.c; for contiguous and cast). */
wk_status wk_copy_contiguous(const char *op, const wk_tensor *t, wk_tensor **out);

/* ops/quant.c: the transfers of a block-quantized t (wk_to_device, wk_tensor_to_host), its blocks gathered through a
 * u8 view of its rows when it is not contiguous. */
wk_status wk_quant_to_device(const char *op, const wk_tensor *t, wk_device *dev, wk_tensor **out);
wk_status wk_quant_to_host(const wk_tensor *t, void *dst, size_t dst_bytes);
/* A block-quantized x's blocks contiguous: x itself (a new reference) or a copy of its rows. */
wk_status wk_quant_contiguous(const wk_tensor *x, wk_tensor **out);
/* wk_index_select of a block-quantized x: dim 0 only, rows dequantized to f32. */
wk_status wk_quant_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out);
/* A view of t (rank >= d0 + k, k >= 1) with dims [d0, d0 + k) merged into one (rank - k + 1 dims): over t's own
 * storage when their strides line up (size-1 dims ignored), else over a contiguous copy of t. */
wk_status wk_merge_view(const char *op, const wk_tensor *t, int d0, int k, wk_tensor **out);

/* Marks the dims listed (distinct, may be negative; ndims == 0: every dim) in reduced[] (false on entry); a rank-0
 * x accepts dim 0 and -1 (reducing it changes nothing), as PyTorch. The reductions' shared dims check. */
wk_status wk_reduce_dims(const char *op, const wk_tensor *x, const int *dims, int ndims, bool *reduced);
/* dim in [-rank, rank) -> [0, rank). */
wk_status wk_norm_dim(const char *op, int dim, int rank, int *out);

/* numpy broadcast of two shapes into (rank, shape). */
wk_status wk_broadcast_shape(const char *op, int ra, const int64_t *sa, int rb, const int64_t *sb, int *rank,
                             int64_t *shape);
/* A view of t broadcast to (rank, shape), which must be broadcast-compatible (checked). */
wk_status wk_broadcast_view(const char *op, const wk_tensor *t, int rank, const int64_t *shape, wk_tensor **out);

/* wk_tensor_alloc with the op named in front of the message on failure. */
wk_status wk_alloc_output(const char *op, wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                          wk_tensor **out);
/* Hands t to *out when s is WK_OK, else releases t; returns s. The one exit of an op with an output. */
wk_status wk_finish(wk_status s, wk_tensor *t, wk_tensor **out);

/* Formats "f32 [2, 3] on cpu" for messages. */
const char *wk_describe(char *buf, size_t cap, const wk_tensor *t);

#endif

/* stubs.c: TEMPORARY weak placeholders while op families are built in parallel; removed before landing. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "cpu/cpu.h"
#include "core/error.h"
#define WEAK __attribute__((weak))
WEAK wk_status wk_cpu_fill(wk_tensor *dst, wk_scalar v) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_fill: not implemented yet"); }
WEAK wk_status wk_cpu_copy(const wk_tensor *src, wk_tensor *dst) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_copy: not implemented yet"); }
WEAK wk_status wk_cpu_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld, int64_t dst_ld, int64_t src_offset, int64_t dst_offset) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_copy2d: not implemented yet"); }
WEAK wk_status wk_cpu_arange(wk_tensor *dst, double start, double step) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_arange: not implemented yet"); }
WEAK wk_status wk_cpu_cast(const wk_tensor *src, wk_tensor *dst) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_cast: not implemented yet"); }
WEAK wk_status wk_cpu_rand_uniform(wk_tensor *dst, uint64_t seed, double lo, double hi) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_rand_uniform: not implemented yet"); }
WEAK wk_status wk_cpu_rand_normal(wk_tensor *dst, uint64_t seed, double mean, double std) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_rand_normal: not implemented yet"); }
WEAK wk_status wk_cpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_unary: not implemented yet"); }
WEAK wk_status wk_cpu_affine(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_affine: not implemented yet"); }
WEAK wk_status wk_cpu_powf(const wk_tensor *x, double e, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_powf: not implemented yet"); }
WEAK wk_status wk_cpu_elu(const wk_tensor *x, double alpha, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_elu: not implemented yet"); }
WEAK wk_status wk_cpu_clamp(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_clamp: not implemented yet"); }
WEAK wk_status wk_cpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_binary: not implemented yet"); }
WEAK wk_status wk_cpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_compare: not implemented yet"); }
WEAK wk_status wk_cpu_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_where: not implemented yet"); }
WEAK wk_status wk_cpu_reduce(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_reduce: not implemented yet"); }
WEAK wk_status wk_cpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_arg_reduce: not implemented yet"); }
WEAK wk_status wk_cpu_softmax(const wk_tensor *x, bool log, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_softmax: not implemented yet"); }
WEAK wk_status wk_cpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_rms_norm: not implemented yet"); }
WEAK wk_status wk_cpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_layer_norm: not implemented yet"); }
WEAK wk_status wk_cpu_sort(const wk_tensor *x, bool descending, wk_tensor *values, wk_tensor *indices) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_sort: not implemented yet"); }
WEAK wk_status wk_cpu_matmul(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_matmul: not implemented yet"); }
WEAK wk_status wk_cpu_conv(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p, int spatial, bool transposed, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_conv: not implemented yet"); }
WEAK wk_status wk_cpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_pool2d: not implemented yet"); }
WEAK wk_status wk_cpu_upsample_nearest(const wk_tensor *x, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_upsample_nearest: not implemented yet"); }
WEAK wk_status wk_cpu_upsample_bilinear2d(const wk_tensor *x, bool align_corners, double scale_h, double scale_w, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_upsample_bilinear2d: not implemented yet"); }
WEAK wk_status wk_cpu_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_index_select: not implemented yet"); }
WEAK wk_status wk_cpu_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_gather: not implemented yet"); }
WEAK wk_status wk_cpu_scatter(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, bool add) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_scatter: not implemented yet"); }
WEAK wk_status wk_cpu_index_add(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_index_add: not implemented yet"); }
WEAK wk_status wk_cpu_rope(int kind, const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor *out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cpu_rope: not implemented yet"); }
WEAK wk_status wk_zeros(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_zeros: not implemented yet"); }
WEAK wk_status wk_ones(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_ones: not implemented yet"); }
WEAK wk_status wk_full(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double value, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_full: not implemented yet"); }
WEAK wk_status wk_fill(wk_tensor *t, double value) { return wk_error(WK_ERR_UNSUPPORTED, "wk_fill: not implemented yet"); }
WEAK wk_status wk_arange(wk_device *dev, wk_dtype dt, double start, double end, double step, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_arange: not implemented yet"); }
WEAK wk_status wk_rand_uniform(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed, double lo, double hi, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_rand_uniform: not implemented yet"); }
WEAK wk_status wk_rand_normal(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed, double mean, double std, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_rand_normal: not implemented yet"); }
WEAK wk_status wk_contiguous(const wk_tensor *t, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_contiguous: not implemented yet"); }
WEAK wk_status wk_to_device(const wk_tensor *t, wk_device *dev, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_to_device: not implemented yet"); }
WEAK wk_status wk_cast(const wk_tensor *t, wk_dtype dt, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cast: not implemented yet"); }
WEAK wk_status wk_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld, int64_t dst_ld, int64_t src_offset, int64_t dst_offset) { return wk_error(WK_ERR_UNSUPPORTED, "wk_copy2d: not implemented yet"); }
WEAK wk_status wk_copy_into(wk_tensor *dst, const wk_tensor *src) { return wk_error(WK_ERR_UNSUPPORTED, "wk_copy_into: not implemented yet"); }
WEAK wk_status wk_slice_set(wk_tensor *dst, const wk_tensor *src, int dim, int64_t start) { return wk_error(WK_ERR_UNSUPPORTED, "wk_slice_set: not implemented yet"); }
WEAK wk_status wk_cat(const wk_tensor *const *ts, int n, int dim, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_cat: not implemented yet"); }
WEAK wk_status wk_unary(wk_unary_op op, const wk_tensor *x, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_unary: not implemented yet"); }
WEAK wk_status wk_affine(const wk_tensor *x, double mul, double add, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_affine: not implemented yet"); }
WEAK wk_status wk_powf(const wk_tensor *x, double e, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_powf: not implemented yet"); }
WEAK wk_status wk_elu(const wk_tensor *x, double alpha, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_elu: not implemented yet"); }
WEAK wk_status wk_clamp(const wk_tensor *x, double lo, double hi, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_clamp: not implemented yet"); }
WEAK wk_status wk_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_binary: not implemented yet"); }
WEAK wk_status wk_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_compare: not implemented yet"); }
WEAK wk_status wk_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_where: not implemented yet"); }
WEAK wk_status wk_reduce(wk_reduce_op op, const wk_tensor *x, const int *dims, int ndims, bool keepdim, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_reduce: not implemented yet"); }
WEAK wk_status wk_argmin(const wk_tensor *x, int dim, bool keepdim, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_argmin: not implemented yet"); }
WEAK wk_status wk_argmax(const wk_tensor *x, int dim, bool keepdim, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_argmax: not implemented yet"); }
WEAK wk_status wk_softmax_last_dim(const wk_tensor *x, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_softmax_last_dim: not implemented yet"); }
WEAK wk_status wk_log_softmax_last_dim(const wk_tensor *x, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_log_softmax_last_dim: not implemented yet"); }
WEAK wk_status wk_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_rms_norm: not implemented yet"); }
WEAK wk_status wk_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_layer_norm: not implemented yet"); }
WEAK wk_status wk_argsort(const wk_tensor *x, bool descending, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_argsort: not implemented yet"); }
WEAK wk_status wk_sort(const wk_tensor *x, bool descending, wk_tensor **values, wk_tensor **indices) { return wk_error(WK_ERR_UNSUPPORTED, "wk_sort: not implemented yet"); }
WEAK wk_status wk_matmul(const wk_tensor *a, const wk_tensor *b, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_matmul: not implemented yet"); }
WEAK wk_status wk_matmul_ex(const wk_tensor *a, const wk_tensor *b, unsigned flags, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_matmul_ex: not implemented yet"); }
WEAK wk_status wk_conv1d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_conv1d: not implemented yet"); }
WEAK wk_status wk_conv2d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_conv2d: not implemented yet"); }
WEAK wk_status wk_conv_transpose1d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_conv_transpose1d: not implemented yet"); }
WEAK wk_status wk_conv_transpose2d(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_conv_transpose2d: not implemented yet"); }
WEAK wk_status wk_max_pool2d(const wk_tensor *x, const wk_pool_params *p, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_max_pool2d: not implemented yet"); }
WEAK wk_status wk_avg_pool2d(const wk_tensor *x, const wk_pool_params *p, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_avg_pool2d: not implemented yet"); }
WEAK wk_status wk_upsample_nearest1d(const wk_tensor *x, int64_t out_l, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_upsample_nearest1d: not implemented yet"); }
WEAK wk_status wk_upsample_nearest2d(const wk_tensor *x, int64_t out_h, int64_t out_w, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_upsample_nearest2d: not implemented yet"); }
WEAK wk_status wk_upsample_bilinear2d(const wk_tensor *x, int64_t out_h, int64_t out_w, bool align_corners, double scale_h, double scale_w, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_upsample_bilinear2d: not implemented yet"); }
WEAK wk_status wk_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_index_select: not implemented yet"); }
WEAK wk_status wk_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_gather: not implemented yet"); }
WEAK wk_status wk_scatter(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_scatter: not implemented yet"); }
WEAK wk_status wk_scatter_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src) { return wk_error(WK_ERR_UNSUPPORTED, "wk_scatter_inplace: not implemented yet"); }
WEAK wk_status wk_scatter_add(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_scatter_add: not implemented yet"); }
WEAK wk_status wk_scatter_add_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src) { return wk_error(WK_ERR_UNSUPPORTED, "wk_scatter_add_inplace: not implemented yet"); }
WEAK wk_status wk_index_add(const wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_index_add: not implemented yet"); }
WEAK wk_status wk_index_add_inplace(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src) { return wk_error(WK_ERR_UNSUPPORTED, "wk_index_add_inplace: not implemented yet"); }
WEAK wk_status wk_rope(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_rope: not implemented yet"); }
WEAK wk_status wk_rope_i(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_rope_i: not implemented yet"); }
WEAK wk_status wk_rope_thd(const wk_tensor *x, const wk_tensor *cos, const wk_tensor *sin, wk_tensor **out) { return wk_error(WK_ERR_UNSUPPORTED, "wk_rope_thd: not implemented yet"); }

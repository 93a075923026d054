/* TEMPORARY weak placeholders while the slot files are written; removed before commit. */
#include "gpu/runtime.h"
#define W __attribute__((weak))
#define U(name) return wk_error(WK_ERR_UNSUPPORTED, name ": not yet on the GPU")
W wk_status wk_gpu_fill(wk_tensor *dst, wk_scalar v) { (void)dst; (void)v; U("fill"); }
W wk_status wk_gpu_arange(wk_tensor *dst, double a, double b) { (void)dst; (void)a; (void)b; U("arange"); }
W wk_status wk_gpu_rand_uniform(wk_tensor *d, uint64_t s, double a, double b) { (void)d; (void)s; (void)a; (void)b; U("rand"); }
W wk_status wk_gpu_rand_normal(wk_tensor *d, uint64_t s, double a, double b) { (void)d; (void)s; (void)a; (void)b; U("rand"); }
W wk_status wk_gpu_copy(const wk_tensor *s, wk_tensor *d) { (void)s; (void)d; U("copy"); }
W wk_status wk_gpu_cast(const wk_tensor *s, wk_tensor *d) { (void)s; (void)d; U("cast"); }
W wk_status wk_gpu_copy2d(const wk_tensor *s, wk_tensor *d, int64_t a, int64_t b, int64_t c, int64_t e, int64_t f, int64_t g) { (void)s; (void)d; (void)a; (void)b; (void)c; (void)e; (void)f; (void)g; U("copy2d"); }
W wk_status wk_gpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *o) { (void)op; (void)x; (void)o; U("unary"); }
W wk_status wk_gpu_affine(const wk_tensor *x, wk_scalar m, wk_scalar a, wk_tensor *o) { (void)x; (void)m; (void)a; (void)o; U("affine"); }
W wk_status wk_gpu_powf(const wk_tensor *x, double e, wk_tensor *o) { (void)x; (void)e; (void)o; U("powf"); }
W wk_status wk_gpu_elu(const wk_tensor *x, double e, wk_tensor *o) { (void)x; (void)e; (void)o; U("elu"); }
W wk_status wk_gpu_clamp(const wk_tensor *x, wk_scalar l, wk_scalar h, wk_tensor *o) { (void)x; (void)l; (void)h; (void)o; U("clamp"); }
W wk_status wk_gpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *o) { (void)op; (void)a; (void)b; (void)o; U("binary"); }
W wk_status wk_gpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *o) { (void)op; (void)a; (void)b; (void)o; U("compare"); }
W wk_status wk_gpu_where(const wk_tensor *c, const wk_tensor *t, const wk_tensor *f, wk_tensor *o) { (void)c; (void)t; (void)f; (void)o; U("where"); }
W wk_status wk_gpu_reduce(wk_reduce_op op, const wk_tensor *x, int n, wk_tensor *o) { (void)op; (void)x; (void)n; (void)o; U("reduce"); }
W wk_status wk_gpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *o) { (void)op; (void)x; (void)o; U("arg_reduce"); }
W wk_status wk_gpu_softmax(const wk_tensor *x, bool l, wk_tensor *o) { (void)x; (void)l; (void)o; U("softmax"); }
W wk_status wk_gpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double e, wk_tensor *o) { (void)x; (void)w; (void)e; (void)o; U("rms_norm"); }
W wk_status wk_gpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double e, wk_tensor *o) { (void)x; (void)w; (void)b; (void)e; (void)o; U("layer_norm"); }
W wk_status wk_gpu_sort(const wk_tensor *x, bool d, wk_tensor *v, wk_tensor *i) { (void)x; (void)d; (void)v; (void)i; U("sort"); }
W wk_status wk_gpu_matmul(const wk_tensor *a, const wk_tensor *b, unsigned f, wk_tensor *o) { (void)a; (void)b; (void)f; (void)o; U("matmul"); }
W wk_status wk_gpu_conv(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, const wk_conv_params *p, int s, bool t, wk_tensor *o) { (void)x; (void)w; (void)b; (void)p; (void)s; (void)t; (void)o; U("conv"); }
W wk_status wk_gpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *o) { (void)op; (void)x; (void)p; (void)o; U("pool2d"); }
W wk_status wk_gpu_upsample_nearest(const wk_tensor *x, wk_tensor *o) { (void)x; (void)o; U("upsample"); }
W wk_status wk_gpu_upsample_bilinear2d(const wk_tensor *x, bool a, double h, double w, wk_tensor *o) { (void)x; (void)a; (void)h; (void)w; (void)o; U("upsample"); }
W wk_status wk_gpu_index_select(const wk_tensor *x, int d, const wk_tensor *i, wk_tensor *o) { (void)x; (void)d; (void)i; (void)o; U("index_select"); }
W wk_status wk_gpu_gather(const wk_tensor *x, int d, const wk_tensor *i, wk_tensor *o) { (void)x; (void)d; (void)i; (void)o; U("gather"); }
W wk_status wk_gpu_scatter(wk_tensor *x, int d, const wk_tensor *i, const wk_tensor *s, bool a) { (void)x; (void)d; (void)i; (void)s; (void)a; U("scatter"); }
W wk_status wk_gpu_index_add(wk_tensor *x, int d, const wk_tensor *i, const wk_tensor *s) { (void)x; (void)d; (void)i; (void)s; U("index_add"); }
W wk_status wk_gpu_rope(int k, const wk_tensor *x, const wk_tensor *c, const wk_tensor *s, wk_tensor *o) { (void)k; (void)x; (void)c; (void)s; (void)o; U("rope"); }
W const wk_gpu_blas *wk_cuda_blas_get(wk_gpu_dev *d, const char **why) { (void)d; *why = "not yet"; return NULL; }
W const wk_gpu_dnn *wk_cuda_dnn_get(wk_gpu_dev *d, const char **why) { (void)d; *why = "not yet"; return NULL; }

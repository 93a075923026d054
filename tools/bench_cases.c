/* bench_cases.c: the cases `wick bench` times (element-wise, masks, glu, casts, copies, reductions, norms, sort, topk,
 * sample, indexing, padding and reordering, pooling, resampling, conv2d, matmul, quantized matmul, the host cost of a
 * tiny op), each at a CPU, GPU and --quick size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---------------------------------------------------------------- inputs */

/* xorshift64*: fast enough to fill 64M-element inputs; the values only need to look random. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

static void store_value(wk_dtype dt, void *buf, int64_t i, double v)
{
    switch (dt) {
    case WK_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case WK_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case WK_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case WK_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case WK_F16: ((uint16_t *)buf)[i] = wk_f32_to_f16((float)v); break;
    case WK_BF16: ((uint16_t *)buf)[i] = wk_f32_to_bf16((float)v); break;
    case WK_F32: ((float *)buf)[i] = (float)v; break;
    case WK_F64: ((double *)buf)[i] = v; break;
    default: break; /* the block-quantized dtypes have no element values */
    }
}

bool bench_is_cpu(const wk_device *dev) { return strcmp(wk_device_name(dev), "cpu") == 0; }

const int64_t *bench_shape(const bench_case *c, bool quick, bool gpu)
{
    return quick ? c->quick : gpu && c->gpu[0] ? c->gpu : c->full;
}

/* Integers: uniform f64, truncated by the cast, clamped because rounding may give hi. */
static wk_status device_random(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double lo, double hi,
                               wk_tensor **out)
{
    static uint64_t seed = 0x5eed;
    if (wk_dtype_is_float(dt))
        return wk_rand_uniform(dev, dt, rank, shape, seed++, lo, hi, out);
    wk_tensor *u = NULL, *i = NULL;
    wk_status s = wk_rand_uniform(dev, WK_F64, rank, shape, seed++, lo, hi, &u);
    if (s == WK_OK)
        s = wk_cast(u, dt, &i);
    wk_tensor_release(u);
    if (s == WK_OK)
        s = wk_clamp(i, lo, hi - 1, out);
    wk_tensor_release(i);
    return s;
}

wk_status bench_random(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double lo, double hi,
                       wk_tensor **out)
{
    if (!bench_is_cpu(dev) && device_random(dev, dt, rank, shape, lo, hi, out) == WK_OK)
        return WK_OK;
    static uint64_t state = 0x9e3779b97f4a7c15ull;
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    size_t esize = wk_dtype_size(dt);
    void *buf = malloc(n > 0 ? (size_t)n * esize : 1);
    if (!buf)
        return WK_ERR_OUT_OF_MEMORY;
    bool integer = !wk_dtype_is_float(dt);
    for (int64_t i = 0; i < n; i++) {
        double v = lo + (hi - lo) * ((double)(next_random(&state) >> 11) * 0x1p-53);
        if (integer && v >= hi) /* rounding at the top of [lo, hi) */
            v = hi - 1;
        store_value(dt, buf, i, v);
    }
    wk_status s = wk_tensor_from_host(dev, dt, rank, shape, buf, out);
    free(buf);
    return s;
}

static wk_status add_input(bench_inputs *in, wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                           double lo, double hi)
{
    wk_tensor *t = NULL;
    wk_status s = bench_random(dev, dt, rank, shape, lo, hi, &t);
    if (s == WK_OK)
        in->t[in->n++] = t;
    return s;
}

static const int64_t *main_shape(const bench_inputs *in) { return wk_tensor_shape(in->t[0]); }

/* ---------------------------------------------------------------- setups (inputs after t[0]) */

static wk_status setup_same(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    return add_input(in, dev, c->dtype, c->rank, main_shape(in), c->lo, c->hi);
}

/* where(cond, t[0], t[1]) with cond = t[2], u8 0/1. */
static wk_status setup_where(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    WK_BENCH_TRY(setup_same(c, dev, in));
    return add_input(in, dev, WK_U8, c->rank, main_shape(in), 0, 2);
}

static wk_status setup_norm_weights(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    const int64_t *last = &main_shape(in)[c->rank - 1];
    for (int k = 0; k < c->param[0]; k++) /* param[0]: 1 for w, 2 for w and b */
        WK_BENCH_TRY(add_input(in, dev, c->dtype, 1, last, 0.5, 1.5));
    return WK_OK;
}

/* add_rms_norm: r (t[0]'s shape), w, and a tensor of t[0]'s shape the run never reads: it stands for the sum the op
 * writes besides its output (the harness counts the bytes of the inputs and of one output). */
static wk_status setup_add_norm(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    WK_BENCH_TRY(setup_same(c, dev, in));
    WK_BENCH_TRY(setup_norm_weights(c, dev, in));
    return setup_same(c, dev, in);
}

/* Random i64 indices into dim c->param[0] of t[0]: 1-D of t[0]'s dim 0 (index_select, index_add) or
 * t[0]'s shape (gather, scatter_add). param[1] != 0 adds a src of t[0]'s shape. */
static wk_status setup_indices(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    const int64_t *shape = main_shape(in);
    double size = (double)shape[c->param[0]];
    bool one_d = c->param[0] == 0;
    WK_BENCH_TRY(add_input(in, dev, WK_I64, one_d ? 1 : c->rank, shape, 0, size));
    if (c->param[1])
        WK_BENCH_TRY(setup_same(c, dev, in));
    return WK_OK;
}

/* masked_fill's u8 mask (0 or 1): of t[0]'s shape, or (param[0] != 0) of its last two dims, broadcast. */
static wk_status setup_mask(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    int rank = c->param[0] ? 2 : c->rank;
    return add_input(in, dev, WK_U8, rank, main_shape(in) + (c->rank - rank), 0, 2);
}

/* conv2d with param = {out channels, kernel (square), stride, padding}, with bias. */
static wk_status setup_conv2d(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    const int64_t *x = main_shape(in);
    int64_t o = c->param[0], k = c->param[1], stride = c->param[2], pad = c->param[3];
    int64_t w_shape[4] = {o, x[1], k, k};
    WK_BENCH_TRY(add_input(in, dev, c->dtype, 4, w_shape, -0.1, 0.1));
    WK_BENCH_TRY(add_input(in, dev, c->dtype, 1, &o, -0.1, 0.1));
    int64_t ho = (x[2] + 2 * pad - k) / stride + 1, wo = (x[3] + 2 * pad - k) / stride + 1;
    in->flops = 2.0 * (double)(x[0] * o * ho * wo) * (double)(x[1] * k * k);
    return WK_OK;
}

/* Square matrices: b has a's shape. */
static wk_status setup_matmul(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    WK_BENCH_TRY(setup_same(c, dev, in));
    const int64_t *a = main_shape(in);
    in->flops = 2.0 * (double)a[0] * (double)a[1] * (double)a[1];
    snprintf(in->shape, sizeof in->shape, "%lldx%lld @ %lldx%lld", (long long)a[0], (long long)a[1],
             (long long)a[1], (long long)a[1]);
    return WK_OK;
}

/* w (param[1], K) of block type param[0], quantized from uniform values, for x (M, K) = t[0]. */
static wk_status setup_matmul_q(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    const int64_t *x = main_shape(in);
    int64_t w_shape[2] = {c->param[1], x[1]};
    wk_tensor *f = NULL, *q = NULL;
    WK_BENCH_TRY(bench_random(dev, WK_F32, 2, w_shape, -1, 1, &f));
    wk_status s = wk_quantize(f, (wk_dtype)c->param[0], &q);
    wk_tensor_release(f);
    WK_BENCH_TRY(s);
    in->t[in->n++] = q;
    in->flops = 2.0 * (double)x[0] * (double)w_shape[0] * (double)w_shape[1];
    snprintf(in->shape, sizeof in->shape, "%lldx%lld @ %s %lldx%lld^T", (long long)x[0], (long long)x[1],
             wk_dtype_name((wk_dtype)c->param[0]), (long long)w_shape[0], (long long)w_shape[1]);
    return WK_OK;
}

/* Two 1-element f32 tensors; one run is param[0] adds back to back. */
static wk_status setup_tiny(const bench_case *c, wk_device *dev, bench_inputs *in)
{
    WK_BENCH_TRY(setup_same(c, dev, in));
    in->calls = c->param[0];
    snprintf(in->shape, sizeof in->shape, "1, %d calls", c->param[0]);
    return WK_OK;
}

/* ---------------------------------------------------------------- runs */

static wk_status run_binary(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_binary((wk_binary_op)c->param[0], in->t[0], in->t[1], out);
}
static wk_status run_unary(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_unary((wk_unary_op)c->param[0], in->t[0], out);
}
static wk_status run_cast(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_cast(in->t[0], (wk_dtype)c->param[0], out);
}
static wk_status run_where(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_where(in->t[2], in->t[0], in->t[1], out);
}
/* param[0]: the wk_glu_kind, over t[0]'s halves (a fused gate/up projection). */
static wk_status run_glu(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_glu((wk_glu_kind)c->param[0], in->t[0], out);
}
static wk_status run_tril(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_tril(in->t[0], 0, out);
}
static wk_status run_masked_fill(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_masked_fill(in->t[0], in->t[1], -1e4, out);
}
static wk_status run_affine(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_affine(in->t[0], 1.5, 0.25, out);
}
static wk_status run_contiguous(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_contiguous(in->t[0], out);
}
static wk_status run_reduce(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    int dim = c->param[1];
    return wk_reduce((wk_reduce_op)c->param[0], in->t[0], &dim, 1, false, out);
}
static wk_status run_softmax(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_softmax_last_dim(in->t[0], out);
}
/* cumsum along dim param[0] */
static wk_status run_cumsum(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_cumsum(in->t[0], c->param[0], out);
}
static wk_status run_layer_norm(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_layer_norm(in->t[0], in->t[1], in->t[2], 1e-5, out);
}
static wk_status run_rms_norm(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_rms_norm(in->t[0], in->t[1], 1e-6, out);
}
static wk_status run_add_rms_norm(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    wk_tensor *sum = NULL;
    wk_status s = wk_add_rms_norm(in->t[0], in->t[1], in->t[2], 1e-6, &sum, out);
    wk_tensor_release(sum);
    return s;
}
static wk_status run_argsort(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_argsort(in->t[0], false, out);
}
static wk_status run_topk(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    wk_tensor *ix = NULL;
    wk_status s = wk_topk(in->t[0], c->param[0], -1, true, true, out, &ix);
    wk_tensor_release(ix);
    return s;
}
/* Generation's sampling: temperature 0.8, top_k 50, top_p 0.9, a seed a row. */
static wk_status run_sample(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    float t = 0.8f, tp = 0.9f;
    int64_t k = 50;
    uint64_t seed = 42;
    wk_sample_params p = {.count = 1, .temperature = &t, .top_k = &k, .top_p = &tp, .seed = &seed};
    return wk_sample(in->t[0], &p, NULL, out);
}
static wk_status run_index_select(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_index_select(in->t[0], c->param[0], in->t[1], out);
}
static wk_status run_gather(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_gather(in->t[0], c->param[0], in->t[1], out);
}
static wk_status run_scatter_add(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_scatter_add(in->t[0], c->param[0], in->t[1], in->t[2], out);
}
static wk_status run_index_add(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    return wk_index_add(in->t[0], c->param[0], in->t[1], in->t[2], out);
}
/* param = {wk_pad_mode, pad}: the last two dims padded by `pad` on every side. */
static wk_status run_pad(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    const int64_t p = c->param[1], pads[4] = {p, p, p, p};
    return wk_pad(in->t[0], pads, 4, (wk_pad_mode)c->param[0], 0, out);
}
/* param = {dims to flip: 1 the last, 2 the last two}. */
static wk_status run_flip(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    const int dims[2] = {-1, -2};
    return wk_flip(in->t[0], dims, c->param[0], out);
}
/* param = {shift of the last dim, shift of the one before}. */
static wk_status run_roll(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    const int64_t shifts[2] = {c->param[0], c->param[1]};
    const int dims[2] = {-1, -2};
    return wk_roll(in->t[0], shifts, dims, 2, out);
}
/* param = {repeats of dim 1}: repeat (1, r, 1, 1). */
static wk_status run_repeat(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    const int64_t reps[4] = {1, c->param[0], 1, 1};
    return wk_repeat(in->t[0], reps, 4, out);
}
/* param = {WK_REDUCE_MAX or WK_REDUCE_MEAN, kernel, stride, padding} (square). */
static wk_status run_pool(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    int64_t k = c->param[1], st = c->param[2], pad = c->param[3];
    wk_pool_params p = {.kernel = {k, k}, .stride = {st, st}, .padding = {pad, pad}, .ceil_mode = false,
                        .count_include_pad = true};
    return c->param[0] == WK_REDUCE_MAX ? wk_max_pool2d(in->t[0], &p, out) : wk_avg_pool2d(in->t[0], &p, out);
}
/* 2x upsampling; param[0] != 0 for bilinear (align_corners false). */
static wk_status run_upsample(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    const int64_t *x = main_shape(in);
    if (c->param[0])
        return wk_upsample_bilinear2d(in->t[0], 2 * x[2], 2 * x[3], false, 0, 0, out);
    return wk_upsample_nearest2d(in->t[0], 2 * x[2], 2 * x[3], out);
}
static wk_status run_conv2d(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    wk_conv_params p = wk_conv_params_default();
    p.stride[0] = p.stride[1] = c->param[2];
    p.padding[0] = p.padding[1] = c->param[3];
    return wk_conv2d(in->t[0], in->t[1], in->t[2], &p, out);
}
static wk_status run_matmul(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_matmul(in->t[0], in->t[1], out);
}

static wk_status run_matmul_q(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    return wk_matmul_q(in->t[0], in->t[1], out);
}

/* The host cost of an op: every output is released at once, as a caller chaining tiny ops would. */
static wk_status run_tiny(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    for (int64_t i = 0; i < in->calls; i++) {
        wk_tensor *o = NULL;
        WK_BENCH_TRY(wk_binary(WK_BINARY_ADD, in->t[0], in->t[1], &o));
        if (i + 1 < in->calls)
            wk_tensor_release(o);
        else
            *out = o;
    }
    return WK_OK;
}

/* The launch alone: an in-place fill of one element (no allocation, no views), to split tiny_add's host
 * cost into the launch and the rest. */
static wk_status run_tiny_fill(const bench_case *c, const bench_inputs *in, wk_tensor **out)
{
    (void)c;
    (void)out;
    for (int64_t i = 0; i < in->calls; i++)
        WK_BENCH_TRY(wk_fill(in->t[0], 1.5));
    return WK_OK;
}

/* ---------------------------------------------------------------- the table */

#define N_FULL 67108864 /* 64M elements: 256 MiB of f32, far beyond any cache */
#define N_QUICK 4194304
#define N_GPU 268435456 /* 256M elements: 1 GiB of f32 per tensor, 20x an H100's L2 */
#define VEC(name, var_, dt, lo_, hi_, p0, setup_, run_)                                                      \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = dt, .rank = 1, .full = {N_FULL},          \
     .quick = {N_QUICK}, .gpu = {N_GPU}, .lo = lo_, .hi = hi_, .param = {p0}, .setup = setup_, .run = run_}
#define VEC_GPU(name, var_, dt, lo_, hi_, p0, setup_, run_)                                                  \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = dt, .rank = 1, .quick = {N_QUICK},        \
     .gpu = {N_GPU}, .gpu_only = true, .lo = lo_, .hi = hi_, .param = {p0}, .setup = setup_, .run = run_}
/* A matrix (r, c) on the CPU, (qr, qc) with --quick, (gr, gc) on a GPU. */
#define MAT(name, var_, dt, r, c_, qr, qc, gr, gc, tr, p0, p1, setup_, run_)                                \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = dt, .rank = 2, .full = {r, c_},           \
     .quick = {qr, qc}, .gpu = {gr, gc}, .lo = -2, .hi = 2, .transposed = tr, .param = {p0, p1},          \
     .setup = setup_, .run = run_}
#define MAT_GPU(name, var_, dt, qr, qc, gr, gc, p0, p1, setup_, run_)                                       \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = dt, .rank = 2, .quick = {qr, qc},         \
     .gpu = {gr, gc}, .gpu_only = true, .lo = -2, .hi = 2, .param = {p0, p1}, .setup = setup_, .run = run_}
/* ResNet's pooling input (32, 64, 112, 112) on the CPU and GPU; op, kernel, stride, padding. */
#define POOL(name, var_, gpu_only_, op_, k, s_, p_)                                                          \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = WK_F32, .rank = 4, .full = {32, 64, 112, 112}, \
     .quick = {2, 64, 112, 112}, .gpu = {32, 64, 112, 112}, .gpu_only = gpu_only_, .lo = -2, .hi = 2,       \
     .param = {op_, k, s_, p_}, .run = run_pool}
/* An image batch: (4, 32, 256, 256) on the CPU, (8, 64, 512, 512) on a GPU. */
#define IMAGE(name, var_, p0, p1, run_)                                                                      \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = WK_F32, .rank = 4, .full = {4, 32, 256, 256}, \
     .quick = {1, 8, 128, 128}, .gpu = {8, 64, 512, 512}, .lo = -2, .hi = 2, .param = {p0, p1}, .run = run_}
#define UPSAMPLE(name, var_, bilinear)                                                                       \
    {.op = name, .variant = var_, .unit = BENCH_BYTES, .dtype = WK_F32, .rank = 4, .full = {32, 64, 56, 56}, \
     .quick = {2, 64, 56, 56}, .gpu = {32, 64, 128, 128}, .lo = -2, .hi = 2, .param = {bilinear},           \
     .run = run_upsample}
/* x (n, c, hw, hw) (qn images with --quick) into o channels with a k x k kernel, stride s, padding p, bias. */
#define CONV(var_, dt, gpu_only_, n, c_, hw, o, k, s_, p_, qn)                                               \
    {.op = "conv2d", .variant = var_, .unit = BENCH_FLOPS, .dtype = dt, .rank = 4, .full = {n, c_, hw, hw}, \
     .quick = {qn, c_, hw, hw}, .gpu_only = gpu_only_, .lo = -2, .hi = 2, .param = {o, k, s_, p_},         \
     .setup = setup_conv2d, .run = run_conv2d}
#define MATMUL(var_, dt, n, qn, gn)                                                                         \
    {.op = "matmul", .variant = var_, .unit = BENCH_FLOPS, .dtype = dt, .rank = 2, .full = {n, n},        \
     .quick = {qn, qn}, .gpu = {gn, gn}, .lo = -1, .hi = 1, .setup = setup_matmul, .run = run_matmul}
/* A linear layer with block-quantized weights: x (m, k) f16 times w (n, k) of block type qt transposed; GB/s counts
 * the quantized weight bytes (with x and out), what a decode step reads. */
#define MATMUL_Q(var_, unit_, gpu_only_, qt, m, n, k)                                                       \
    {.op = "matmul_q", .variant = var_, .unit = unit_, .dtype = WK_F16, .rank = 2, .full = {m, k},          \
     .quick = {m < 8 ? m : 8, 1024}, .gpu_only = gpu_only_, .lo = -1, .hi = 1, .param = {qt, n},           \
     .setup = setup_matmul_q, .run = run_matmul_q}

static const bench_case cases[] = {
    VEC("add", "f32", WK_F32, -2, 2, WK_BINARY_ADD, setup_same, run_binary),
    VEC("mul", "f32", WK_F32, -2, 2, WK_BINARY_MUL, setup_same, run_binary),
    VEC("exp", "f32", WK_F32, -2, 2, WK_UNARY_EXP, NULL, run_unary),
    VEC("cast", "f32->f16", WK_F32, -100, 100, WK_F16, NULL, run_cast),
    VEC_GPU("cast", "f32->bf16", WK_F32, -100, 100, WK_BF16, NULL, run_cast),
    VEC_GPU("cast", "f16->f32", WK_F16, -100, 100, WK_F32, NULL, run_cast),
    VEC("cast", "f32->f64", WK_F32, -100, 100, WK_F64, NULL, run_cast),
    VEC("cast", "f32->i32", WK_F32, -100, 100, WK_I32, NULL, run_cast),
    VEC_GPU("copy", "f32 contiguous", WK_F32, -2, 2, 0, NULL, run_contiguous),
    VEC("where", "u8 ? f32 : f32", WK_F32, -2, 2, 0, setup_where, run_where),
    VEC("affine", "f32", WK_F32, -2, 2, 0, NULL, run_affine),
    VEC("masked_fill", "f32, u8 mask", WK_F32, -2, 2, 0, setup_mask, run_masked_fill),
    /* attention scores (B*H, T, T) with one (T, T) mask */
    {.op = "masked_fill", .variant = "f32, (T, T) u8 mask broadcast", .unit = BENCH_BYTES, .dtype = WK_F32, .rank = 3,
     .full = {16, 2048, 2048}, .quick = {4, 512, 512}, .gpu = {64, 4096, 4096}, .lo = -2, .hi = 2, .param = {1},
     .setup = setup_mask, .run = run_masked_fill},
    /* a Llama-3-8B MLP's fused gate/up projection of 8192 tokens: (8192, 2 x 14336) -> (8192, 14336) */
    MAT("swiglu", "bf16 fused gate/up", WK_BF16, 2048, 8192, 256, 2048, 8192, 28672, false, WK_GLU_SWIGLU, 0, NULL,
        run_glu),
    MAT("tril", "f32", WK_F32, 8192, 8192, 2048, 2048, 16384, 16384, false, 0, 0, NULL, run_tril),
    MAT("contiguous", "f32 transposed", WK_F32, 8192, 8192, 2048, 2048, 16384, 16384, true, 0, 0, NULL,
        run_contiguous),
    MAT("sum", "f32 last dim", WK_F32, 8192, 8192, 2048, 2048, 16384, 16384, false, WK_REDUCE_SUM, -1, NULL,
        run_reduce),
    MAT("sum", "f32 dim 0", WK_F32, 8192, 8192, 2048, 2048, 16384, 16384, false, WK_REDUCE_SUM, 0, NULL,
        run_reduce),
    MAT("max", "f32 last dim", WK_F32, 8192, 8192, 2048, 2048, 16384, 16384, false, WK_REDUCE_MAX, -1, NULL,
        run_reduce),
    MAT("max", "f32 dim 0", WK_F32, 8192, 8192, 2048, 2048, 16384, 16384, false, WK_REDUCE_MAX, 0, NULL,
        run_reduce),
    MAT("softmax", "f32 last dim", WK_F32, 8192, 4096, 1024, 1024, 32768, 4096, false, 0, 0, NULL, run_softmax),
    MAT_GPU("softmax", "f32 last dim", WK_F32, 512, 8192, 16384, 8192, 0, 0, NULL, run_softmax),
    MAT_GPU("cumsum", "f32 last dim", WK_F32, 512, 16384, 8192, 16384, 1, 0, NULL, run_cumsum),
    MAT_GPU("cumsum", "f32 dim 0", WK_F32, 512, 16384, 8192, 16384, 0, 0, NULL, run_cumsum),
    MAT_GPU("softmax", "bf16 last dim", WK_BF16, 1024, 4096, 32768, 4096, 0, 0, NULL, run_softmax),
    MAT("layer_norm", "f32 w b", WK_F32, 8192, 4096, 1024, 1024, 32768, 4096, false, 2, 0, setup_norm_weights,
        run_layer_norm),
    MAT_GPU("layer_norm", "f32 w b", WK_F32, 512, 8192, 16384, 8192, 2, 0, setup_norm_weights, run_layer_norm),
    MAT_GPU("layer_norm", "bf16 w b", WK_BF16, 1024, 4096, 32768, 4096, 2, 0, setup_norm_weights,
            run_layer_norm),
    MAT("rms_norm", "f32 w", WK_F32, 8192, 4096, 1024, 1024, 32768, 4096, false, 1, 0, setup_norm_weights,
        run_rms_norm),
    MAT("add_rms_norm", "f32 w", WK_F32, 8192, 4096, 1024, 1024, 32768, 4096, false, 1, 0, setup_add_norm,
        run_add_rms_norm),
    MAT_GPU("rms_norm", "bf16 w", WK_BF16, 1024, 4096, 32768, 4096, 1, 0, setup_norm_weights, run_rms_norm),
    MAT_GPU("add_rms_norm", "bf16 w", WK_BF16, 1024, 4096, 32768, 4096, 1, 0, setup_add_norm, run_add_rms_norm),
    MAT_GPU("rms_norm", "bf16 w decode", WK_BF16, 1, 2048, 1, 2048, 1, 0, setup_norm_weights, run_rms_norm),
    MAT_GPU("add_rms_norm", "bf16 w decode", WK_BF16, 1, 2048, 1, 2048, 1, 0, setup_add_norm, run_add_rms_norm),
    MAT("argsort", "f32 last dim", WK_F32, 2048, 4096, 256, 1024, 16384, 4096, false, 0, 0, NULL, run_argsort),
    MAT("topk", "f32 k=50 logits", WK_F32, 32, 128256, 4, 16384, 32, 128256, false, 50, 0, NULL, run_topk),
    MAT("sample", "f32 logits k50 p0.9 t0.8", WK_F32, 32, 128256, 4, 16384, 32, 128256, false, 0, 0, NULL,
        run_sample),
    MAT("index_select", "f32 dim 0 i64", WK_F32, 32768, 1024, 4096, 256, 131072, 1024, false, 0, 0,
        setup_indices, run_index_select),
    MAT("gather", "f32 dim 1 i64", WK_F32, 4096, 4096, 512, 512, 8192, 8192, false, 1, 0, setup_indices,
        run_gather),
    MAT("scatter_add", "f32 dim 1 i64", WK_F32, 4096, 4096, 512, 512, 8192, 8192, false, 1, 1, setup_indices,
        run_scatter_add),
    MAT("index_add", "f32 dim 0 i64", WK_F32, 32768, 1024, 4096, 256, 131072, 1024, false, 0, 1, setup_indices,
        run_index_add),
    POOL("max_pool2d", "f32 3x3 s2 p1", false, WK_REDUCE_MAX, 3, 2, 1),
    POOL("max_pool2d", "f32 2x2 s2", true, WK_REDUCE_MAX, 2, 2, 0),
    POOL("avg_pool2d", "f32 3x3 s2 p1", false, WK_REDUCE_MEAN, 3, 2, 1),
    POOL("avg_pool2d", "f32 2x2 s2", true, WK_REDUCE_MEAN, 2, 2, 0),
    IMAGE("pad", "f32 reflect 3 last 2 dims", WK_PAD_REFLECT, 3, run_pad),
    IMAGE("pad", "f32 constant 3 last 2 dims", WK_PAD_CONSTANT, 3, run_pad),
    IMAGE("pad", "f32 replicate 3 last 2 dims", WK_PAD_REPLICATE, 3, run_pad),
    IMAGE("flip", "f32 last dim", 1, 0, run_flip),
    IMAGE("flip", "f32 last 2 dims", 2, 0, run_flip),
    IMAGE("roll", "f32 last 2 dims by (5, 7)", 5, 7, run_roll),
    IMAGE("repeat", "f32 (1, 2, 1, 1)", 2, 0, run_repeat),
    UPSAMPLE("upsample_nearest2d", "f32 2x", 0),
    UPSAMPLE("upsample_bilinear2d", "f32 2x", 1),
    /* ResNet-50's convolutions at batch 32. */
    CONV("f32 3x3 64->64 p1 bias", WK_F32, false, 32, 64, 56, 64, 3, 1, 1, 4),
    CONV("f32 1x1 256->64 bias", WK_F32, true, 32, 256, 56, 64, 1, 1, 0, 2),
    CONV("f32 3x3 128->128 p1 bias", WK_F32, true, 32, 128, 28, 128, 3, 1, 1, 2),
    CONV("f32 3x3 512->512 p1 bias", WK_F32, true, 32, 512, 7, 512, 3, 1, 1, 2),
    CONV("f32 7x7 3->64 s2 p3 bias", WK_F32, true, 32, 3, 224, 64, 7, 2, 3, 2),
    CONV("bf16 3x3 64->64 p1 bias", WK_BF16, true, 32, 64, 56, 64, 3, 1, 1, 2),
    CONV("bf16 1x1 256->64 bias", WK_BF16, true, 32, 256, 56, 64, 1, 1, 0, 2),
    CONV("bf16 3x3 128->128 p1 bias", WK_BF16, true, 32, 128, 28, 128, 3, 1, 1, 2),
    CONV("bf16 3x3 512->512 p1 bias", WK_BF16, true, 32, 512, 7, 512, 3, 1, 1, 2),
    CONV("bf16 7x7 3->64 s2 p3 bias", WK_BF16, true, 32, 3, 224, 64, 7, 2, 3, 2),
    MATMUL("f32", WK_F32, 2048, 1024, 4096),
    MATMUL("bf16", WK_BF16, 2048, 1024, 8192),
    /* Llama-3-8B's projections at decode (M = 1: 4096 -> 4096, 4096 -> 14336), M = 8 and a prefill of 512. */
    MATMUL_Q("q4_0 M=1 4096x4096", BENCH_BYTES, false, WK_Q4_0, 1, 4096, 4096),
    MATMUL_Q("q8_0 M=1 4096x4096", BENCH_BYTES, false, WK_Q8_0, 1, 4096, 4096),
    MATMUL_Q("q4_k M=1 4096x4096", BENCH_BYTES, false, WK_Q4_K, 1, 4096, 4096),
    MATMUL_Q("q6_k M=1 4096x4096", BENCH_BYTES, false, WK_Q6_K, 1, 4096, 4096),
    MATMUL_Q("q4_0 M=1 14336x4096", BENCH_BYTES, true, WK_Q4_0, 1, 14336, 4096),
    MATMUL_Q("q8_0 M=1 14336x4096", BENCH_BYTES, true, WK_Q8_0, 1, 14336, 4096),
    MATMUL_Q("q4_k M=1 14336x4096", BENCH_BYTES, true, WK_Q4_K, 1, 14336, 4096),
    MATMUL_Q("q6_k M=1 14336x4096", BENCH_BYTES, true, WK_Q6_K, 1, 14336, 4096),
    /* Llama-3.2-1B's tied output matrix at decode, Q6_K in the Q4_0 and Q4_K_M files: a decode step's largest read. */
    MATMUL_Q("q6_k M=1 128256x2048", BENCH_BYTES, true, WK_Q6_K, 1, 128256, 2048),
    /* its layers' products at decode, 2-19 MB each (q/k/v, o, gate/up, down): launch and memory latency count */
    MATMUL_Q("q4_0 M=1 3072x2048", BENCH_BYTES, true, WK_Q4_0, 1, 3072, 2048),
    MATMUL_Q("q4_0 M=1 2048x2048", BENCH_BYTES, true, WK_Q4_0, 1, 2048, 2048),
    MATMUL_Q("q4_0 M=1 16384x2048", BENCH_BYTES, true, WK_Q4_0, 1, 16384, 2048),
    MATMUL_Q("q4_0 M=1 2048x8192", BENCH_BYTES, true, WK_Q4_0, 1, 2048, 8192),
    MATMUL_Q("q4_0 M=8 14336x4096", BENCH_BYTES, true, WK_Q4_0, 8, 14336, 4096),
    MATMUL_Q("q8_0 M=8 14336x4096", BENCH_BYTES, true, WK_Q8_0, 8, 14336, 4096),
    MATMUL_Q("q4_k M=8 14336x4096", BENCH_BYTES, true, WK_Q4_K, 8, 14336, 4096),
    MATMUL_Q("q6_k M=8 14336x4096", BENCH_BYTES, true, WK_Q6_K, 8, 14336, 4096),
    MATMUL_Q("q4_0 M=512 14336x4096", BENCH_FLOPS, true, WK_Q4_0, 512, 14336, 4096),
    MATMUL_Q("q4_k M=512 14336x4096", BENCH_FLOPS, true, WK_Q4_K, 512, 14336, 4096),
    /* What one op costs the caller when the device work is nothing: dispatch, output allocation, launch. */
    {.op = "tiny_add", .variant = "f32", .unit = BENCH_CALLS, .dtype = WK_F32, .rank = 1, .full = {1},
     .quick = {1}, .lo = -2, .hi = 2, .param = {20000}, .setup = setup_tiny, .run = run_tiny},
    {.op = "tiny_fill", .variant = "f32", .unit = BENCH_CALLS, .dtype = WK_F32, .rank = 1, .full = {1},
     .quick = {1}, .lo = -2, .hi = 2, .param = {20000}, .setup = setup_tiny, .run = run_tiny_fill},
};

const bench_case *bench_cases(int *count)
{
    *count = (int)(sizeof cases / sizeof cases[0]);
    return cases;
}

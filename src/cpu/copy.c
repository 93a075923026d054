/* copy.c: the CPU's data-movement slots: fill (const_set) of any non-overlapping view, strided copy (tiled where
 * it transposes) and the 2-D block copy. Fill and copies move raw element bytes: one kernel per element size
 * serves every dtype. */
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

/* ---- transposing copy: dst has unit stride along merged dim b, src along another dim a (a transpose, maybe
 * batched). Walking dst in order would read src one cache line per element. Tiles instead read TILE_SRC_RUN
 * bytes of each src row, long enough for the prefetchers, and write one cache line of each dst row, so every
 * line is read or written once, whole. Inside a tile, SSE2 transposes 16-byte x 16/es-row blocks in registers. */

#if defined(__SSE2__)
#include <emmintrin.h>
#define TILE_SSE2 1
#endif

#if defined(__GNUC__)
#define TILE_INLINE __attribute__((always_inline)) static inline
#else
#define TILE_INLINE static inline
#endif
#if defined(__clang__)
#define TILE_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define TILE_UNROLL _Pragma("GCC unroll 16")
#else
#define TILE_UNROLL
#endif

#define TILE_SRC_RUN 4096 /* bytes of a src row per tile (edge along a) */
#define TILE_DST_RUN 64   /* bytes of a dst row per tile (edge along b): one cache line */
/* From this many bytes of dst on, its lines bypass the caches (non-temporal stores): the copy would only evict
 * its own output, and skipping the read-for-ownership saves a third of the traffic. */
#define TILE_STREAM_BYTES ((int64_t)16 << 20)

/* One tile: dst[i*dst_a + j] = src[i + j*src_b] for i < na, j < nb (strides in bytes). stream: dst and dst_a
 * are line-aligned and the blocks may use non-temporal stores. */
typedef void (*tile_fn)(int64_t na, int64_t nb, char *dst, int64_t dst_a, const char *src, int64_t src_b,
                        bool stream);

#ifdef TILE_SSE2
static inline __m128i tile_unpack(__m128i x, __m128i y, int64_t width, bool high)
{
    switch (width) {
    case 1: return high ? _mm_unpackhi_epi8(x, y) : _mm_unpacklo_epi8(x, y);
    case 2: return high ? _mm_unpackhi_epi16(x, y) : _mm_unpacklo_epi16(x, y);
    case 4: return high ? _mm_unpackhi_epi32(x, y) : _mm_unpacklo_epi32(x, y);
    default: return high ? _mm_unpackhi_epi64(x, y) : _mm_unpacklo_epi64(x, y);
    }
}

/* An L x L block, L = 16/es: L src rows of 16 bytes become L dst rows. Pairs of rows are interleaved log2(L)
 * times at doubling widths, after which register k holds column bitreverse(k). A constant es (the function is
 * always inlined) unrolls every loop, so the block lives in registers. */
TILE_INLINE void tile_block(int64_t es, bool stream, char *dst, int64_t dst_a, const char *src, int64_t src_b)
{
    enum { MAX_L = 16 };
    const int L = (int)(16 / es);
    __m128i r[MAX_L], t[MAX_L];
    TILE_UNROLL
    for (int k = 0; k < L; k++)
        r[k] = _mm_loadu_si128((const __m128i *)(const void *)(src + k * src_b));
    TILE_UNROLL
    for (int64_t width = es; width < 16; width *= 2) {
        TILE_UNROLL
        for (int k = 0; k < L / 2; k++) {
            t[k] = tile_unpack(r[2 * k], r[2 * k + 1], width, false);
            t[k + L / 2] = tile_unpack(r[2 * k], r[2 * k + 1], width, true);
        }
        TILE_UNROLL
        for (int k = 0; k < L; k++)
            r[k] = t[k];
    }
    TILE_UNROLL
    for (int k = 0; k < L; k++) {
        int col = 0;
        for (int bit = 1, rest = k; bit < L; bit <<= 1, rest >>= 1)
            col = (col << 1) | (rest & 1);
        __m128i *d = (__m128i *)(void *)(dst + col * dst_a);
        if (stream)
            _mm_stream_si128(d, r[k]);
        else
            _mm_storeu_si128(d, r[k]);
    }
}
#endif

/* Scalar rows [a0, a1) x cols [b0, b1) of a tile: the whole tile without SSE2, else the edges. */
#define TILE_KERNEL(T)                                                                                         \
    static void tile_part_##T(int64_t a0, int64_t a1, int64_t b0, int64_t b1, char *dst, int64_t dst_a,       \
                              const char *src, int64_t src_b)                                                  \
    {                                                                                                          \
        for (int64_t i = a0; i < a1; i++) {                                                                    \
            T *restrict d = (T *)(void *)(dst + i * dst_a);                                                    \
            const char *restrict s = src + i * (int64_t)sizeof(T);                                             \
            for (int64_t j = b0; j < b1; j++)                                                                  \
                memcpy(d + j, s + j * src_b, sizeof(T));                                                       \
        }                                                                                                      \
    }                                                                                                          \
    static void tile_##T(int64_t na, int64_t nb, char *dst, int64_t dst_a, const char *src, int64_t src_b,    \
                         bool stream)                                                                          \
    {                                                                                                          \
        int64_t full_a = 0, full_b = 0;                                                                        \
        TILE_BLOCKS(T)                                                                                         \
        tile_part_##T(0, full_a, full_b, nb, dst, dst_a, src, src_b);                                          \
        tile_part_##T(full_a, na, 0, nb, dst, dst_a, src, src_b);                                              \
    }

#ifdef TILE_SSE2
#define TILE_BLOCKS(T)                                                                                         \
    const int64_t es = (int64_t)sizeof(T), L = 16 / es;                                                       \
    full_a = na - na % L;                                                                                      \
    full_b = nb - nb % L;                                                                                      \
    for (int64_t i = 0; i < full_a; i += L)                                                                    \
        for (int64_t j = 0; j < full_b; j += L)                                                                \
            tile_block(es, stream, dst + i * dst_a + j * es, dst_a, src + i * es + j * src_b, src_b);
#else
#define TILE_BLOCKS(T) (void)stream;
#endif

TILE_KERNEL(uint8_t)
TILE_KERNEL(uint16_t)
TILE_KERNEL(uint32_t)
TILE_KERNEL(uint64_t)
#undef TILE_KERNEL
#undef TILE_BLOCKS

typedef struct tile_plan {
    char *dst;
    const char *src;
    tile_fn kernel;
    bool stream;
    int64_t na, nb, edge_a, edge_b, tiles_a, tiles_b;
    int64_t elem, dst_a, src_b; /* bytes; dst's stride along b and src's along a are elem */
    int nbatch; /* the other merged dims, walked outside the tiles */
    int64_t batch_shape[WK_MAX_RANK], batch_dst[WK_MAX_RANK], batch_src[WK_MAX_RANK];
} tile_plan;

/* Tiles [begin, end) in order (batch index, tile along a, tile along b): threads, which take contiguous
 * ranges, write disjoint bands of dst rows, and the first touches of a fresh dst fault in order. */
static void tile_range(void *arg, int64_t begin, int64_t end)
{
    const tile_plan *p = arg;
    int64_t per_batch = p->tiles_a * p->tiles_b, batch = begin / per_batch, rest = begin % per_batch;
    int64_t ta = rest / p->tiles_b, tb = rest % p->tiles_b;
    int64_t idx[WK_MAX_RANK];
    char *dst = p->dst;
    const char *src = p->src;
    for (int d = p->nbatch - 1; d >= 0; d--) {
        idx[d] = batch % p->batch_shape[d];
        batch /= p->batch_shape[d];
        dst += idx[d] * p->batch_dst[d];
        src += idx[d] * p->batch_src[d];
    }
    for (int64_t t = begin; t < end; t++) {
        int64_t a0 = ta * p->edge_a, b0 = tb * p->edge_b;
        int64_t na = p->na - a0 < p->edge_a ? p->na - a0 : p->edge_a;
        int64_t nb = p->nb - b0 < p->edge_b ? p->nb - b0 : p->edge_b;
        p->kernel(na, nb, dst + a0 * p->dst_a + b0 * p->elem, p->dst_a, src + a0 * p->elem + b0 * p->src_b,
                  p->src_b, p->stream);
        if (++tb < p->tiles_b)
            continue;
        tb = 0;
        if (++ta < p->tiles_a)
            continue;
        ta = 0;
        for (int d = p->nbatch - 1; d >= 0; d--) {
            dst += p->batch_dst[d];
            src += p->batch_src[d];
            if (++idx[d] < p->batch_shape[d])
                break;
            dst -= idx[d] * p->batch_dst[d];
            src -= idx[d] * p->batch_src[d];
            idx[d] = 0;
        }
    }
#ifdef TILE_SSE2
    if (p->stream)
        _mm_sfence(); /* non-temporal stores are weakly ordered: publish them before the threads join */
#endif
}

/* The tiled plan when the merged dims make dst and src unit-stride along different dims (false otherwise).
 * numel > 0. */
static bool tile_plan_for(const wk_tensor *src, wk_tensor *dst, tile_plan *p)
{
    static const tile_fn kernels[9] = {[1] = tile_uint8_t, [2] = tile_uint16_t, [4] = tile_uint32_t,
                                       [8] = tile_uint64_t};
    const wk_tensor *ops[2] = {dst, src};
    int64_t es = (int64_t)wk_dtype_size(dst->dtype);
    wk_cpu_dims m;
    wk_cpu_merge_dims(dst->rank, dst->shape, 2, ops, &m);
    int last = m.rank - 1, a = -1, b = -1;
    if (m.strides[0][last] == es && (m.strides[1][last] == es || m.strides[1][last] == 0))
        return false; /* the plain walk streams both, or repeats one src element */
    for (int d = 0; d < m.rank; d++) {
        if (m.strides[0][d] == es)
            b = d;
        if (m.strides[1][d] == es)
            a = d;
    }
    if (a < 0 || b < 0 || a == b)
        return false;
    *p = (tile_plan){
        .dst = wk_tensor_data(dst),
        .src = wk_tensor_data(src),
        .kernel = kernels[es],
        .na = m.shape[a],
        .nb = m.shape[b],
        .elem = es,
        .dst_a = m.strides[0][a],
        .src_b = m.strides[1][b],
    };
    /* A short side hands its share of the tile to the other. Edges stay multiples of a cache line's worth of
     * elements (whole SSE2 blocks, and dst lines whole where dst is line-aligned). */
    int64_t line = TILE_DST_RUN / es, edge_a = TILE_SRC_RUN / es, edge_b = line, area = edge_a * edge_b;
    p->edge_a = p->nb < edge_b ? area / p->nb / line * line : edge_a;
    p->edge_b = p->na < edge_a ? area / p->na / line * line : edge_b;
    p->tiles_a = (p->na + p->edge_a - 1) / p->edge_a;
    p->tiles_b = (p->nb + p->edge_b - 1) / p->edge_b;
    /* Streaming stores fill whole lines only where dst rows start on lines; with 1-byte elements a block
     * writes 16 rows at once, more lines than the write-combining buffers hold. */
    bool aligned = es > 1 && (uintptr_t)p->dst % TILE_DST_RUN == 0 && p->dst_a % TILE_DST_RUN == 0;
    for (int d = 0; d < m.rank; d++) {
        if (d == a || d == b)
            continue;
        p->batch_shape[p->nbatch] = m.shape[d];
        p->batch_dst[p->nbatch] = m.strides[0][d];
        p->batch_src[p->nbatch] = m.strides[1][d];
        aligned = aligned && m.strides[0][d] % TILE_DST_RUN == 0;
        p->nbatch++;
    }
    p->stream = aligned && wk_numel(dst->rank, dst->shape) * es >= TILE_STREAM_BYTES;
    return true;
}

wk_status wk_cpu_copy(const wk_tensor *src, wk_tensor *dst)
{
    tile_plan p;
    if (tile_plan_for(src, dst, &p)) {
        int64_t tiles = wk_numel(p.nbatch, p.batch_shape) * p.tiles_a * p.tiles_b;
        int64_t tile_elems = (p.na < p.edge_a ? p.na : p.edge_a) * (p.nb < p.edge_b ? p.nb : p.edge_b);
        wk_cpu_parallel_for(tiles, (WK_CPU_GRAIN + tile_elems - 1) / tile_elems, tile_range, &p);
        return WK_OK;
    }
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

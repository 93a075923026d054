/* copy.cu: kernels that move element bytes unchanged: fill of a view, and copy of a view into a view (broadcast
 * splat, row-wise, tiled transpose, general strided). One kernel per element size (1, 2, 4, 8) serves all dtypes.
 * Warp width (wave64, wave32): the transpose tile goes through shared memory between barriers and no kernel
 * moves values between lanes, so none depends on the width. */
#include "common.cuh"
#include "copy.h"

/* The unit of every vectorised access: one 16-byte load or store per thread. Also the element of the rows and
 * strided kernels' _16 variants: rows contiguous in both views whose starts and strides are all multiples of
 * 16 bytes move as 16-byte elements (the host rescales the dims). */
struct alignas(16) copy_v16 {
    uint32_t w[4];
};
static_assert(sizeof(copy_v16) == COPY_VEC_BYTES, "the host widens rows and counts vector accesses by COPY_VEC_BYTES");

/* Storage of a word of ES bytes. */
template <int ES> struct copy_word;
template <> struct copy_word<1> { typedef uint8_t type; };
template <> struct copy_word<2> { typedef uint16_t type; };
template <> struct copy_word<4> { typedef uint32_t type; };
template <> struct copy_word<8> { typedef uint64_t type; };

/* Elements of p before its first 16-byte boundary (at most n). */
template <class T> __device__ __forceinline__ int64_t copy_head(const T *p, int64_t n)
{
    int64_t h = (int64_t)(((16u - ((uintptr_t)p & 15u)) & 15u) / sizeof(T));
    return h < n ? h : n;
}

/* Offsets of linear index i in two layouts of the same shape (dims as in wk_offset). 32-bit division where
 * every index fits, as it costs a fraction of the 64-bit one. */
__device__ __forceinline__ void copy_offsets(const wk_gpu_layout &A, const wk_gpu_layout &B, int64_t i, bool small,
                                             int64_t &oa, int64_t &ob)
{
    oa = 0;
    ob = 0;
    for (int d = A.rank - 1; d >= 0; d--) {
        int64_t s = A.shape[d], q = 0;
        if (d > 0)
            q = small ? (int64_t)((uint32_t)i / (uint32_t)s) : i / s;
        int64_t r = i - q * s;
        oa += r * A.stride[d];
        ob += r * B.stride[d];
        i = q;
    }
}

__device__ __forceinline__ int64_t copy_offset(const wk_gpu_layout &A, int64_t i, bool small)
{
    int64_t o = 0;
    for (int d = A.rank - 1; d >= 0; d--) {
        int64_t s = A.shape[d], q = 0;
        if (d > 0)
            q = small ? (int64_t)((uint32_t)i / (uint32_t)s) : i / s;
        o += (i - q * s) * A.stride[d];
        i = q;
    }
    return o;
}

/* ---- contiguous runs shared by several kernels; (tid, nthr) is the caller's thread numbering */

/* 16 bytes holding v repeated. */
template <class T> __device__ __forceinline__ copy_v16 copy_splat16(T v)
{
    uint64_t x = (uint64_t)v;
    if (sizeof(T) == 1)
        x *= 0x0101010101010101ull;
    else if (sizeof(T) == 2)
        x *= 0x0001000100010001ull;
    else if (sizeof(T) == 4)
        x |= x << 32;
    copy_v16 r = {{(uint32_t)x, (uint32_t)(x >> 32), (uint32_t)x, (uint32_t)(x >> 32)}};
    return r;
}
template <> __device__ __forceinline__ copy_v16 copy_splat16<copy_v16>(copy_v16 v) { return v; }

template <class T> __device__ __forceinline__ void copy_fill_span(T *d, T v, int64_t n, int64_t tid, int64_t nthr)
{
    const int64_t V = 16 / sizeof(T);
    int64_t head = copy_head(d, n), nv = (n - head) / V, tail = head + nv * V;
    copy_v16 w = copy_splat16(v);
    copy_v16 *dv = reinterpret_cast<copy_v16 *>(d + head);
    for (int64_t k = tid; k < nv; k += nthr)
        dv[k] = w;
    for (int64_t k = tid; k < n - nv * V; k += nthr)
        d[k < head ? k : tail + (k - head)] = v;
}

/* d[0, n) = s[0, n); 16-byte accesses when both can reach a 16-byte boundary at the same element. */
template <class T>
__device__ __forceinline__ void copy_span(T *d, const T *s, int64_t n, int64_t tid, int64_t nthr)
{
    const int64_t V = 16 / sizeof(T);
    int64_t head = copy_head(d, n);
    if (((uintptr_t)(s + head) & 15u) != 0)
        head = n;
    int64_t nv = (n - head) / V, tail = head + nv * V;
    copy_v16 *dv = reinterpret_cast<copy_v16 *>(d + head);
    const copy_v16 *sv = reinterpret_cast<const copy_v16 *>(s + head);
    for (int64_t k = tid; k < nv; k += nthr)
        dv[k] = sv[k];
    for (int64_t k = tid; k < n - nv * V; k += nthr) {
        int64_t i = k < head ? k : tail + (k - head);
        d[i] = s[i];
    }
}

/* ---- fill: every element of the view L = bits (the storage form, zero-extended) */

template <class T> __device__ void copy_fill_body(T *d, const wk_gpu_layout &L, int64_t n, uint64_t bits)
{
    T v = (T)bits;
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, nthr = (int64_t)gridDim.x * blockDim.x;
    if (L.contiguous) {
        copy_fill_span(d, v, n, tid, nthr);
        return;
    }
    bool small = n <= 0xffffffffll;
    for (int64_t i = tid; i < n; i += nthr)
        d[copy_offset(L, i, small)] = v;
}

/* ---- splat: contiguous d[0, n) = *s (a source broadcast along every dim) */

template <class T> __device__ void copy_splat_body(T *d, const T *s, int64_t n)
{
    copy_fill_span(d, *s, n, (int64_t)blockIdx.x * blockDim.x + threadIdx.x, (int64_t)gridDim.x * blockDim.x);
}

/* ---- rows: `rows` rows of `cols` elements, inner strides ds / ss, row starts from two outer layouts of one
 * shape. Work items are chunks of `chunk` elements of a row, one per block at a time, so a few long rows still
 * fill the device and a row's start offsets are computed once per chunk. */

template <class T>
__device__ void copy_rows_body(T *dst, const T *src, const wk_gpu_layout &dout, const wk_gpu_layout &sout,
                               int64_t rows, int64_t cols, int64_t ds, int64_t ss, int64_t chunk)
{
    int64_t per_row = (cols + chunk - 1) / chunk, items = rows * per_row;
    bool small = rows <= 0xffffffffll;
    for (int64_t w = blockIdx.x; w < items; w += gridDim.x) {
        int64_t r = w / per_row, c0 = (w - r * per_row) * chunk;
        int64_t len = cols - c0 < chunk ? cols - c0 : chunk;
        int64_t od, os;
        copy_offsets(dout, sout, r, small, od, os);
        T *d = dst + od + c0 * ds;
        const T *s = src + os + c0 * ss;
        if (ds == 1 && ss == 1)
            copy_span(d, s, len, threadIdx.x, blockDim.x);
        else if (ds == 1 && ss == 0)
            copy_fill_span(d, *s, len, threadIdx.x, blockDim.x);
        else
            for (int64_t c = threadIdx.x; c < len; c += blockDim.x)
                d[c * ds] = s[c * ss];
    }
}

/* ---- general: per element offsets in two layouts of one shape */

template <class T>
__device__ void copy_strided_body(T *dst, const T *src, const wk_gpu_layout &dl, const wk_gpu_layout &sl, int64_t n)
{
    bool small = n <= 0xffffffffll;
    WK_GRID_LOOP(i, n)
    {
        int64_t od, os;
        copy_offsets(dl, sl, i, small, od, os);
        dst[od] = src[os];
    }
}

/* ---- transpose: dst(i, j) = src(i, j) over dims a (unit stride in src) and b (unit stride in dst), in tiles
 * staged through shared memory so that both the reads of src rows and the writes of dst rows are coalesced.
 * Elements move in words W of P = sizeof(W)/sizeof(E) elements: a thread loads P src rows' words (P elements
 * along a each), transposes that P x P block in registers, and stores P words that each hold P elements along b.
 * A tile is COPY_TILE_W words wide in both directions (32*P x 32*P elements); word columns are XOR-swizzled by
 * the row's word index, so the column-wise writes and the row-wise reads both hit distinct banks. */

/* The first n (0..P) elements at p as one word (the rest zero). */
template <class E, class W> __device__ __forceinline__ W copy_load_part(const E *p, int64_t n)
{
    const int P = sizeof(W) / sizeof(E);
    if (n >= P)
        return *reinterpret_cast<const W *>(p);
    W w = 0;
    for (int e = 0; e < P - 1; e++)
        if (e < n)
            w |= (W)p[e] << (8 * sizeof(E) * e);
    return w;
}

/* The first n (at most P; none when n <= 0) elements of word w to p. */
template <class E, class W> __device__ __forceinline__ void copy_store_part(E *p, W w, int64_t n)
{
    const int P = sizeof(W) / sizeof(E);
    if (n >= P) {
        *reinterpret_cast<W *>(p) = w;
        return;
    }
    for (int e = 0; e < P - 1; e++)
        if (e < n)
            p[e] = (E)(w >> (8 * sizeof(E) * e));
}

/* Thread x's P words of src rows P*g .. P*g + P-1 (P elements along a each), transposed in registers into the
 * shared tile: row P*x + e (a-element) gets the word of b-elements P*g .., at column g swizzled by x. */
template <class E, class W> __device__ __forceinline__ void copy_tile_put(const W *in, int g, W (*tile)[COPY_TILE_W])
{
    const int P = sizeof(W) / sizeof(E), BITS = 8 * sizeof(E);
    const W MASK = (W)(E)~(E)0;
    const int x = threadIdx.x;
#pragma unroll
    for (int e = 0; e < P; e++) {
        W o = 0;
#pragma unroll
        for (int q = 0; q < P; q++)
            o |= ((in[q] >> (BITS * e)) & MASK) << (BITS * q);
        tile[P * x + e][g ^ x] = o;
    }
}

/* One tile: s and d point at the thread's word x of the tile's first src / dst row; ra x rb elements are inside
 * the view (all of it when FULL). */
template <class E, class W, bool FULL>
__device__ __forceinline__ void copy_tile(E *d, const E *s, int64_t dst_a, int64_t src_b, int64_t ra, int64_t rb,
                                          W (*tile)[COPY_TILE_W])
{
    const int P = sizeof(W) / sizeof(E), T = COPY_TILE_W * P, KB = COPY_TILE_W / COPY_TILE_R;
    const int x = threadIdx.x, y = threadIdx.y;

    /* src rows j = P*g + q (g = y + R*k) of the tile, word x of each. A full tile issues all its loads before
     * any shared store; a partial one (the view's edges) goes k by k, so that it does not raise the kernel's
     * register count (and lower the full tiles' occupancy). */
    W in[KB][P];
    const E *p = s + (int64_t)(P * y) * src_b;
    const int64_t step = (int64_t)(P * COPY_TILE_R) * src_b;
    if (FULL) {
#pragma unroll
        for (int k = 0; k < KB; k++, p += step)
#pragma unroll
            for (int q = 0; q < P; q++)
                in[k][q] = *reinterpret_cast<const W *>(p + q * src_b);
#pragma unroll
        for (int k = 0; k < KB; k++)
            copy_tile_put<E, W>(in[k], y + COPY_TILE_R * k, tile);
    } else {
#pragma unroll 1
        for (int k = 0; k < KB; k++, p += step) {
            int g = y + COPY_TILE_R * k;
#pragma unroll
            for (int q = 0; q < P; q++)
                in[0][q] = P * g + q < rb ? copy_load_part<E, W>(p + q * src_b, ra - P * x) : 0;
            copy_tile_put<E, W>(in[0], g, tile);
        }
    }
    __syncthreads();

    /* dst rows r = y + R*k (a-elements), word x (b-elements P*x ..) of each */
    E *o = d + (int64_t)y * dst_a;
    const int64_t ostep = (int64_t)COPY_TILE_R * dst_a;
    if (FULL) {
#pragma unroll
        for (int k = 0; k < T / COPY_TILE_R; k++, o += ostep) {
            int r = y + COPY_TILE_R * k;
            *reinterpret_cast<W *>(o) = tile[r][x ^ (r / P)];
        }
    } else {
#pragma unroll 1
        for (int r = y; r < ra; r += COPY_TILE_R, o += ostep)
            copy_store_part<E, W>(o, tile[r][x ^ (r / P)], rb - P * x);
    }
    __syncthreads(); /* the next tile overwrites the shared tile */
}

template <class E, class W>
__device__ void copy_transpose_body(E *dst, const E *src, int64_t na, int64_t nb, int64_t dst_a, int64_t src_b,
                                    const wk_gpu_layout &dbatch, const wk_gpu_layout &sbatch, int64_t tiles_a,
                                    int64_t tiles_b, int64_t ntiles)
{
    const int P = sizeof(W) / sizeof(E), T = COPY_TILE_W * P;
    __shared__ W tile[COPY_TILE_W * P][COPY_TILE_W];
    bool small = ntiles <= 0xffffffffll;
    for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        int64_t rest = t / tiles_b, tb = t - rest * tiles_b, batch = rest / tiles_a, ta = rest - batch * tiles_a;
        int64_t a0 = ta * T, b0 = tb * T;
        int64_t ra = na - a0 < T ? na - a0 : T, rb = nb - b0 < T ? nb - b0 : T; /* extents inside the tile */
        int64_t od, os;
        copy_offsets(dbatch, sbatch, batch, small, od, os);
        const E *s = src + os + a0 + b0 * src_b + P * threadIdx.x;
        E *d = dst + od + a0 * dst_a + b0 + P * threadIdx.x;
        if (ra == T && rb == T)
            copy_tile<E, W, true>(d, s, dst_a, src_b, ra, rb, tile);
        else
            copy_tile<E, W, false>(d, s, dst_a, src_b, ra, rb, tile);
    }
}

/* ---- entry points: each set's variants (copy.h) unpack the one parameter struct */

template <class T, class, int> __device__ __forceinline__ void copy_fill_run(const wk_gpu_copy_args &p)
{
    copy_fill_body((T *)p.dst, p.dl, p.n, p.bits);
}

template <class T, class, int> __device__ __forceinline__ void copy_splat_run(const wk_gpu_copy_args &p)
{
    copy_splat_body((T *)p.dst, (const T *)p.src, p.n);
}

template <class T, class, int> __device__ __forceinline__ void copy_rows_run(const wk_gpu_copy_args &p)
{
    copy_rows_body((T *)p.dst, (const T *)p.src, p.dl, p.sl, p.rows, p.cols, p.ds, p.ss, p.chunk);
}

template <class T, class, int> __device__ __forceinline__ void copy_strided_run(const wk_gpu_copy_args &p)
{
    copy_strided_body((T *)p.dst, (const T *)p.src, p.dl, p.sl, p.n);
}

/* The items of the COPY_TRANSPOSE axis: an element type E, packed in words of COPY_PACKED_WORD bytes, or
 * copy_single<E>, one element per word. copy_pack<item> gives the element and word types. */
template <class E> struct copy_single;
template <class E> struct copy_pack {
    typedef E elem;
    typedef typename copy_word<COPY_PACKED_WORD(sizeof(E))>::type word;
};
template <class E> struct copy_pack<copy_single<E>> {
    typedef E elem;
    typedef E word;
};

template <class I, class, int> __device__ __forceinline__ void copy_transpose_run(const wk_gpu_copy_args &p)
{
    typedef typename copy_pack<I>::elem E;
    typedef typename copy_pack<I>::word W;
    copy_transpose_body<E, W>((E *)p.dst, (const E *)p.src, p.na, p.nb, p.dst_a, p.src_b, p.dl, p.sl, p.tiles_a,
                              p.tiles_b, p.ntiles);
}

WK_COPY_KERNELS(WK_DEFINE_KERNELS)

/* index.cu: kernels of the indexing family: reads through an index (index_select, gather), writes through
 * one (scatter, scatter_add, index_add) and the range pass that guards the in-place writers.
 * Warp width (wave64, wave32): no kernel moves values between lanes. The per-line accumulator of index_add is
 * shared memory with atomics between barriers; 8- and 16-bit adds are compare-and-swap loops on the aligned
 * 32-bit word, which progress under lockstep execution too (each round one lane's swap succeeds). */
#include "common.cuh"
#include "index.h"

/* A grid-stride loop over [0, n) where each thread takes the IX_UNROLL elements e0 + u * G per round: each
 * of them coalesced across the warp, all of their loads issued before any is used. The body tests each
 * against n. */
#define IX_ROUNDS(e0, G, n)                                                                             \
    const int64_t G = (int64_t)gridDim.x * blockDim.x;                                                   \
    for (int64_t e0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e0 < (int64_t)(n); e0 += IX_UNROLL * G)

/* As unsigned, a negative index wraps above every size. */
__device__ __forceinline__ bool ix_ok(int64_t v, int64_t size) { return (uint64_t)v < (uint64_t)size; }

/* Records a bad index in the fault record (layout.h): the thread whose code lands first also leaves its
 * value for the error message. With several bad indices, which one is named depends on that race. */
__device__ __forceinline__ void ix_fault(int32_t *fault, int code, int64_t value)
{
    if (atomicCAS(fault, 0, code) == 0)
        reinterpret_cast<wk_gpu_fault_rec *>(fault)->value = value;
}

/* A 16-byte unit for the vectorised row copies and index loads. */
struct alignas(16) ix_b16 { uint32_t w[4]; };

/* ---------------------------------------------------------------- atomic adds
 * Native where the hardware has them; u8, f16 and bf16 go through a compare-and-swap on the aligned
 * 32-bit word holding them (little-endian lanes), which every target has. */
__device__ __forceinline__ void ix_atomic_add(float *p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void ix_atomic_add(double *p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void ix_atomic_add(uint32_t *p, uint32_t v)
{
    atomicAdd((unsigned int *)p, (unsigned int)v);
}
__device__ __forceinline__ void ix_atomic_add(int32_t *p, int32_t v)
{
    atomicAdd((unsigned int *)p, (unsigned int)v); /* two's complement: the unsigned add wraps the same */
}
__device__ __forceinline__ void ix_atomic_add(int64_t *p, int64_t v)
{
    atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

/* word with its lane at bit `sh` replaced by lane + v */
__device__ __forceinline__ uint32_t ix_lane_add(uint32_t word, int sh, uint8_t v)
{
    uint32_t b = ((word >> sh) + v) & 0xffu;
    return (word & ~(0xffu << sh)) | (b << sh);
}
/* the 16-bit float lanes, told apart by a tag argument: lane + v in f32, rounded back */
__device__ __forceinline__ uint32_t ix_lane_add(uint32_t word, int sh, wk_f16, float v)
{
    uint32_t h = wk_f32_to_f16_bits(wk_f16_bits_to_f32((uint16_t)(word >> sh)) + v);
    return (word & ~(0xffffu << sh)) | (h << sh);
}
__device__ __forceinline__ uint32_t ix_lane_add(uint32_t word, int sh, wk_bf16, float v)
{
    uint32_t h = wk_f32_to_bf16_bits(wk_bf16_bits_to_f32((uint16_t)(word >> sh)) + v);
    return (word & ~(0xffffu << sh)) | (h << sh);
}

template <class T, class C> __device__ __forceinline__ void ix_atomic_add_lane(T *p, C v)
{
    uintptr_t a = (uintptr_t)p;
    uint32_t *w = (uint32_t *)(a & ~(uintptr_t)3);
    const int sh = (int)(a & 3) * 8;
    uint32_t old = *w, assumed;
    do {
        assumed = old;
        uint32_t upd;
        if constexpr (sizeof(T) == 1)
            upd = ix_lane_add(assumed, sh, (uint8_t)v);
        else
            upd = ix_lane_add(assumed, sh, T{}, (float)v);
        old = atomicCAS((unsigned int *)w, assumed, upd);
    } while (old != assumed);
}
__device__ __forceinline__ void ix_atomic_add(uint8_t *p, uint8_t v) { ix_atomic_add_lane(p, v); }
__device__ __forceinline__ void ix_atomic_add(wk_f16 *p, float v) { ix_atomic_add_lane(p, v); }
__device__ __forceinline__ void ix_atomic_add(wk_bf16 *p, float v) { ix_atomic_add_lane(p, v); }

/* All 4/sizeof(T) lanes of the aligned word w at once: one compare-and-swap loop per word instead of one
 * per element, and no two threads fighting over one word. */
template <class T> __device__ __forceinline__ void ix_atomic_add_word(T *w, const T *v)
{
    constexpr int V = 4 / sizeof(T);
    typename wk_compute<T>::type add[V];
#pragma unroll
    for (int l = 0; l < V; l++)
        add[l] = wk_ld(v + l);
    unsigned int *wp = (unsigned int *)w;
    uint32_t old = *wp, assumed;
    do {
        assumed = old;
        uint32_t upd = assumed;
#pragma unroll
        for (int l = 0; l < V; l++) {
            if constexpr (sizeof(T) == 1)
                upd = ix_lane_add(upd, 8 * l, (uint8_t)add[l]);
            else
                upd = ix_lane_add(upd, 16 * l, T{}, (float)add[l]);
        }
        old = atomicCAS(wp, assumed, upd);
    } while (old != assumed);
}

/* ---------------------------------------------------------------- range pass
 * Sets the fault word when one of the n indices (ids' own layout) lies outside [0, size). Queued before
 * a writing kernel, which then writes nothing: x stays unchanged on a bad index. */
template <class I>
__device__ void index_check_body(const I *ids, const wk_gpu_layout &li, int64_t n, int64_t size, int32_t *fault,
                                 int code)
{
    bool bad = false;
    int64_t bad_value = 0; /* this thread's first bad index */
    int64_t done = 0;
    if (li.contiguous && ((uintptr_t)ids & 15) == 0) {
        /* 16-byte loads over the whole vectors, the tail below */
        constexpr int per = 16 / sizeof(I);
        const int64_t nv = n / per;
        const ix_b16 *v = (const ix_b16 *)ids;
        IX_ROUNDS(e0, G, nv)
        {
            ix_b16 b[IX_UNROLL];
#pragma unroll
            for (int u = 0; u < IX_UNROLL; u++)
                if (e0 + u * G < nv)
                    b[u] = v[e0 + u * G];
#pragma unroll
            for (int u = 0; u < IX_UNROLL; u++)
                if (e0 + u * G < nv) {
                    const I *lane = (const I *)&b[u];
#pragma unroll
                    for (int l = 0; l < per; l++)
                        if (!bad && !ix_ok((int64_t)lane[l], size)) {
                            bad = true;
                            bad_value = (int64_t)lane[l];
                        }
                }
        }
        done = nv * per;
    }
    IX_ROUNDS(e0, G, n - done)
    {
        I v[IX_UNROLL];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++)
            if (e0 + u * G < n - done)
                v[u] = ids[wk_offset(li, done + e0 + u * G)];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++)
            if (e0 + u * G < n - done && !bad && !ix_ok((int64_t)v[u], size)) {
                bad = true;
                bad_value = (int64_t)v[u];
            }
    }
    if (bad)
        ix_fault(fault, code, bad_value);
}

/* ---------------------------------------------------------------- gather (index_select's general path)
 * out (contiguous over the iteration shape, n elements) = x[lx(e) + ids[li(e)] * xk]: lx is x's layout at
 * that shape with stride 0 along dim, li the ids' layout at it. A bad index faults and writes nothing. */
template <class T, class I>
__device__ void index_gather_body(const T *x, const wk_gpu_layout &lx, int64_t xk, const I *ids,
                                  const wk_gpu_layout &li, T *out, int64_t n, int64_t size, int32_t *fault, int code)
{
    IX_ROUNDS(e0, G, n)
    {
        int64_t id[IX_UNROLL];
        T v[IX_UNROLL];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++)
            id[u] = e0 + u * G < n ? (int64_t)ids[wk_offset(li, e0 + u * G)] : 0;
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++)
            if (e0 + u * G < n && ix_ok(id[u], size))
                v[u] = x[wk_offset(lx, e0 + u * G) + id[u] * xk];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            if (e0 + u * G >= n)
                continue;
            if (ix_ok(id[u], size))
                out[e0 + u * G] = v[u];
            else
                ix_fault(fault, code, id[u]);
        }
    }
}

/* ---------------------------------------------------------------- gather along the last dim, a block a row
 * (index.h, index_gather_rows): row o = blockIdx.x, ids j0 .. j1 - 1 of it (blockIdx.y's chunk of cl). No division
 * per element; the ids' loads of IX_UNROLL rounds go out together. src: x's row (stride xk) or its copy in shared
 * memory (stride 1). */
template <class T, class I>
__device__ __forceinline__ void ix_gather_row(const T *src, int64_t sk, const I *ids, int64_t ik, T *out, int64_t j0,
                                              int64_t j1, int64_t size, int32_t *fault, int code)
{
    for (int64_t j = j0 + threadIdx.x; j < j1; j += IX_UNROLL * (int64_t)blockDim.x) {
        int64_t id[IX_UNROLL];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            int64_t e = j + u * (int64_t)blockDim.x;
            id[u] = e < j1 ? (int64_t)wk_ldg(ids + e * ik) : 0;
        }
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            int64_t e = j + u * (int64_t)blockDim.x;
            if (e >= j1)
                continue;
            if (ix_ok(id[u], size))
                out[e] = src[id[u] * sk];
            else
                ix_fault(fault, code, id[u]);
        }
    }
}

template <class T, class I, int> __device__ __forceinline__ void index_gather_rows_run(const wk_gpu_index_args &p)
{
    int64_t o = blockIdx.x, cl = (p.L + gridDim.y - 1) / gridDim.y;
    int64_t j0 = blockIdx.y * cl, j1 = j0 + cl < p.L ? j0 + cl : p.L;
    const T *xr = (const T *)p.x + o * p.xo;
    const I *ids = (const I *)p.ids + o * p.so;
    T *out = (T *)p.out + o * p.L;
    if (p.stage) {
        extern __shared__ unsigned long long ix_gsmem[]; /* 8-byte aligned for every T */
        T *row = reinterpret_cast<T *>(ix_gsmem);
        for (int64_t k = threadIdx.x; k < p.size; k += blockDim.x)
            row[k] = wk_ldg(xr + k * p.xk);
        __syncthreads();
        ix_gather_row<T, I>(row, 1, ids, p.ik, out, j0, j1, p.size, p.fault, p.code);
    } else {
        ix_gather_row<T, I>(xr, p.xk, ids, p.ik, out, j0, j1, p.size, p.fault, p.code);
    }
}

/* ---------------------------------------------------------------- index_select over compact rows
 * x as (outer, size, inner) rows with unit stride inside (x offset o*xo + id*xk + i), out contiguous
 * (outer, L, inner); everything counted in units U (up to 16 bytes) that whole elements make up. One
 * index per row, shared by the row's threads. */
template <class U, class I>
__device__ void index_select_rows_body(const U *x, const I *ids, U *out, int64_t n, int64_t inner, int64_t L,
                                       int64_t xo, int64_t xk, int64_t ik, int64_t size, int32_t *fault)
{
    IX_ROUNDS(e0, G, n)
    {
        int64_t id[IX_UNROLL], src[IX_UNROLL];
        U v[IX_UNROLL];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            int64_t e = e0 + u * G < n ? e0 + u * G : 0;
            int64_t r = e / inner, i = e - r * inner, o = r / L, k = r - o * L;
            id[u] = (int64_t)ids[k * ik];
            src[u] = o * xo + i;
        }
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++)
            if (e0 + u * G < n && ix_ok(id[u], size))
                v[u] = x[src[u] + id[u] * xk];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            if (e0 + u * G >= n)
                continue;
            if (ix_ok(id[u], size))
                out[e0 + u * G] = v[u];
            else
                ix_fault(fault, WK_GPU_FAULT_INDEX_SELECT, id[u]);
        }
    }
}

/* ---------------------------------------------------------------- scatter, scatter_add, index_add: general
 * For each of the n elements of the iteration shape: x[lx(e) + ids[li(e)] * xk] = (or +=) src[ls(e)].
 * Every writing kernel takes `code`. 0: the range pass ran first on this stream, so a set fault word (this
 * op's bad index, or an earlier op's) means write nothing and x stays unchanged, and a bad index met here
 * was reported already. Non-zero (x is the op's own new output): no range pass; a bad index is reported
 * here with that code and skipped, the other elements are written. Duplicate destinations under set: any
 * one of the writes wins. */
__device__ __forceinline__ bool ix_write_off(const int32_t *fault, int code)
{
    return code == 0 && *(volatile const int32_t *)fault != 0;
}

template <class T, class I, bool ADD>
__device__ void index_scatter_body(T *x, const wk_gpu_layout &lx, int64_t xk, const I *ids, const wk_gpu_layout &li,
                                   const T *src, const wk_gpu_layout &ls, int64_t n, int64_t size, int32_t *fault,
                                   int code)
{
    if (ix_write_off(fault, code))
        return;
    IX_ROUNDS(e0, G, n)
    {
        int64_t id[IX_UNROLL];
        T v[IX_UNROLL];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++)
            if (e0 + u * G < n) {
                id[u] = (int64_t)ids[wk_offset(li, e0 + u * G)];
                v[u] = src[wk_offset(ls, e0 + u * G)];
            }
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            if (e0 + u * G >= n)
                continue;
            if (!ix_ok(id[u], size)) {
                if (code)
                    ix_fault(fault, code, id[u]);
                continue;
            }
            T *p = x + wk_offset(lx, e0 + u * G) + id[u] * xk;
            if constexpr (ADD)
                ix_atomic_add(p, wk_ld(&v[u]));
            else
                *p = v[u];
        }
    }
}

/* ---------------------------------------------------------------- scatter_add / index_add along a line
 * When dim is the innermost dim of the iteration and x's line along it fits in shared memory: one block
 * per line accumulates its K sources there (shared atomics), then adds the sums into x's line in one
 * pass, instead of K scattered global atomics. lxo/lio/lso: the lines' offsets (layouts over the dims
 * before dim); xk/ik/sk: strides along dim. */
template <class T> struct ix_acc { typedef typename wk_compute<T>::type type; };
template <> struct ix_acc<uint8_t> { typedef unsigned int type; };
template <> struct ix_acc<uint32_t> { typedef unsigned int type; };
template <> struct ix_acc<int32_t> { typedef unsigned int type; };
template <> struct ix_acc<int64_t> { typedef unsigned long long type; };

/* -0.0 leaves every float unchanged when added (x + -0 is x, -0 included): untouched elements write
 * back as they were. */
template <class A> __device__ __forceinline__ A ix_acc_zero() { return (A)0; }
template <> __device__ __forceinline__ float ix_acc_zero<float>() { return -0.0f; }
template <> __device__ __forceinline__ double ix_acc_zero<double>() { return -0.0; }

/* *p += a: floats in their compute type, ints wrapping through unsigned arithmetic. */
template <class T> __device__ __forceinline__ void ix_add_into(T *p, typename ix_acc<T>::type a)
{
    wk_st(p, wk_ld(p) + a);
}
__device__ __forceinline__ void ix_add_into(uint8_t *p, unsigned int a) { *p = (uint8_t)(*p + a); }
__device__ __forceinline__ void ix_add_into(uint32_t *p, unsigned int a) { *p += a; }
__device__ __forceinline__ void ix_add_into(int32_t *p, unsigned int a) { *p = (int32_t)((unsigned int)*p + a); }
__device__ __forceinline__ void ix_add_into(int64_t *p, unsigned long long a)
{
    *p = (int64_t)((unsigned long long)*p + a);
}

template <class T, class I>
__device__ void index_scatter_add_lines_body(T *x, const wk_gpu_layout &lxo, int64_t xk, const I *ids,
                                             const wk_gpu_layout &lio, int64_t ik, const T *src,
                                             const wk_gpu_layout &lso, int64_t sk, int64_t lines, int64_t K,
                                             int64_t size, int32_t *fault, int code)
{
    typedef typename ix_acc<T>::type A;
    extern __shared__ unsigned long long ix_smem[]; /* 8-byte aligned for every A */
    A *acc = (A *)ix_smem;
    if (ix_write_off(fault, code)) /* nothing here writes the word when code is 0: all threads agree */
        return;
    const int t = threadIdx.x, bs = blockDim.x;
    for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
        T *xl = x + wk_offset(lxo, line);
        const I *il = ids + wk_offset(lio, line);
        const T *sl = src + wk_offset(lso, line);
        for (int64_t j = t; j < size; j += bs)
            acc[j] = ix_acc_zero<A>();
        __syncthreads();
        for (int64_t k0 = t; k0 < K; k0 += IX_UNROLL * bs) {
            int64_t id[IX_UNROLL];
            T v[IX_UNROLL];
#pragma unroll
            for (int u = 0; u < IX_UNROLL; u++)
                if (k0 + u * bs < K) {
                    id[u] = (int64_t)il[(k0 + u * bs) * ik];
                    v[u] = sl[(k0 + u * bs) * sk];
                }
#pragma unroll
            for (int u = 0; u < IX_UNROLL; u++) {
                if (k0 + u * bs >= K)
                    continue;
                if (ix_ok(id[u], size))
                    atomicAdd(acc + id[u], (A)wk_ld(&v[u]));
                else if (code)
                    ix_fault(fault, code, id[u]);
            }
        }
        __syncthreads();
        for (int64_t j = t; j < size; j += bs)
            ix_add_into(xl + j * xk, acc[j]);
        __syncthreads(); /* acc is cleared for the next line only after every thread has read it */
    }
}

/* ---------------------------------------------------------------- index_add over compact rows
 * x (outer, size, inner) and src (outer, L, inner), unit stride inside rows: x[o, ids[k], i] += src[o, k, i].
 * Threads run along i (coalesced atomics). V = 1 element per thread, or (u8, f16, bf16) the whole 32-bit
 * word: inner, strides and offsets are then multiples of V, so each thread owns aligned words. n and inner
 * count units of V elements; strides are in elements. */
template <class T, class I, int V>
__device__ void index_add_rows_body(T *x, const I *ids, const T *src, int64_t n, int64_t inner, int64_t L,
                                    int64_t xo, int64_t xk, int64_t so, int64_t sk, int64_t ik, int64_t size,
                                    int32_t *fault, int code)
{
    if (ix_write_off(fault, code))
        return;
    IX_ROUNDS(e0, G, n)
    {
        int64_t id[IX_UNROLL], dst[IX_UNROLL];
        T v[IX_UNROLL][V];
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            if (e0 + u * G >= n)
                continue;
            int64_t e = e0 + u * G, r = e / inner, i = e - r * inner, o = r / L, k = r - o * L;
            id[u] = (int64_t)ids[k * ik];
            dst[u] = o * xo + i * V;
            const T *s = src + o * so + k * sk + i * V;
#pragma unroll
            for (int l = 0; l < V; l++)
                v[u][l] = s[l];
        }
#pragma unroll
        for (int u = 0; u < IX_UNROLL; u++) {
            if (e0 + u * G >= n)
                continue;
            if (!ix_ok(id[u], size)) {
                if (code)
                    ix_fault(fault, code, id[u]);
                continue;
            }
            T *p = x + dst[u] + id[u] * xk;
            if constexpr (V == 1)
                ix_atomic_add(p, wk_ld(&v[u][0]));
            else
                ix_atomic_add_word(p, v[u]);
        }
    }
}

/* The same over rows wide enough to give a block's threads IX_UNROLL units each: one block per row (grid-
 * stride over the outer * L rows), so the row's index is read once and no element pays for the divisions
 * that split a flat position into (o, k, i). The src loads are issued before the index is tested, so their
 * latency overlaps the index load. */
template <class T, class I, int V>
__device__ void index_add_wide_body(T *x, const I *ids, const T *src, int64_t rows, int64_t inner, int64_t L,
                                    int64_t xo, int64_t xk, int64_t so, int64_t sk, int64_t ik, int64_t size,
                                    int32_t *fault, int code)
{
    if (ix_write_off(fault, code))
        return;
    const int t = threadIdx.x, bs = blockDim.x;
    /* (o, k) of row r, stepped along with r: k + gk < 2L, so one carry suffices */
    const int64_t go = (int64_t)gridDim.x / L, gk = (int64_t)gridDim.x - go * L;
    int64_t o = (int64_t)blockIdx.x / L, k = (int64_t)blockIdx.x - o * L;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const int64_t id = (int64_t)ids[k * ik];
        const bool ok = ix_ok(id, size);
        const T *s = src + o * so + k * sk;
        T *xr = x + o * xo + (ok ? id : 0) * xk;
        for (int64_t i0 = t; i0 < inner; i0 += IX_UNROLL * bs) {
            T v[IX_UNROLL][V];
#pragma unroll
            for (int u = 0; u < IX_UNROLL; u++)
                if (i0 + u * bs < inner) {
#pragma unroll
                    for (int l = 0; l < V; l++)
                        v[u][l] = s[(i0 + u * bs) * V + l];
                }
#pragma unroll
            for (int u = 0; u < IX_UNROLL; u++) {
                if (!ok || i0 + u * bs >= inner)
                    continue;
                T *p = xr + (i0 + u * bs) * V;
                if constexpr (V == 1)
                    ix_atomic_add(p, wk_ld(&v[u][0]));
                else
                    ix_atomic_add_word(p, v[u]);
            }
        }
        if (!ok && code && t == 0)
            ix_fault(fault, code, id);
        o += go;
        k += gk;
        if (k >= L) {
            k -= L;
            o++;
        }
    }
}

/* ---------------------------------------------------------------- entry points (index.h)
 * Each unpacks the fields its set reads (index.h) and calls its body: TA the value (or row-unit) type, TB the
 * index type; index_check's index type is its A. */
template <class I, class, int> __device__ __forceinline__ void index_check_run(const wk_gpu_index_args &p)
{
    index_check_body((const I *)p.ids, p.li, p.n, p.size, p.fault, p.code);
}

template <class U, class I, int> __device__ __forceinline__ void index_select_rows_run(const wk_gpu_index_args &p)
{
    index_select_rows_body((const U *)p.x, (const I *)p.ids, (U *)p.out, p.n, p.inner, p.L, p.xo, p.xk, p.ik,
                           p.size, p.fault);
}

template <class T, class I, int> __device__ __forceinline__ void index_gather_run(const wk_gpu_index_args &p)
{
    index_gather_body((const T *)p.x, p.lx, p.xk, (const I *)p.ids, p.li, (T *)p.out, p.n, p.size, p.fault, p.code);
}

template <class T, class I, int> __device__ __forceinline__ void index_scatter_run(const wk_gpu_index_args &p)
{
    index_scatter_body<T, I, false>((T *)p.x, p.lx, p.xk, (const I *)p.ids, p.li, (const T *)p.src, p.ls, p.n,
                                    p.size, p.fault, p.code);
}

template <class T, class I, int> __device__ __forceinline__ void index_scatter_add_run(const wk_gpu_index_args &p)
{
    index_scatter_body<T, I, true>((T *)p.x, p.lx, p.xk, (const I *)p.ids, p.li, (const T *)p.src, p.ls, p.n,
                                   p.size, p.fault, p.code);
}

/* lx, li, ls: the lines' layouts over the dims before dim. */
template <class T, class I, int>
__device__ __forceinline__ void index_scatter_add_lines_run(const wk_gpu_index_args &p)
{
    static_assert(sizeof(typename ix_acc<T>::type) == IX_ACC_BYTES(sizeof(T)), "the host sizes acc by IX_ACC_BYTES");
    index_scatter_add_lines_body((T *)p.x, p.lx, p.xk, (const I *)p.ids, p.li, p.ik, (const T *)p.src, p.ls, p.sk,
                                 p.lines, p.K, p.size, p.fault, p.code);
}

template <class T, class I, int W>
__device__ __forceinline__ void index_scatter_add_lines64_run(const wk_gpu_index_args &p)
{
    index_scatter_add_lines_run<T, I, W>(p);
}

/* V = 1, or (the _w sets, sub-word dtypes) the elements of one 32-bit word. n: units (rows) or rows (wide). */
template <class T, class I, int V> __device__ __forceinline__ void index_add_rows_v(const wk_gpu_index_args &p)
{
    index_add_rows_body<T, I, V>((T *)p.x, (const I *)p.ids, (const T *)p.src, p.n, p.inner, p.L, p.xo, p.xk, p.so,
                                 p.sk, p.ik, p.size, p.fault, p.code);
}
template <class T, class I, int V> __device__ __forceinline__ void index_add_wide_v(const wk_gpu_index_args &p)
{
    index_add_wide_body<T, I, V>((T *)p.x, (const I *)p.ids, (const T *)p.src, p.n, p.inner, p.L, p.xo, p.xk, p.so,
                                 p.sk, p.ik, p.size, p.fault, p.code);
}
template <class T, class I, int> __device__ __forceinline__ void index_add_rows_run(const wk_gpu_index_args &p)
{
    index_add_rows_v<T, I, 1>(p);
}
template <class T, class I, int> __device__ __forceinline__ void index_add_wide_run(const wk_gpu_index_args &p)
{
    index_add_wide_v<T, I, 1>(p);
}
template <class T, class I, int> __device__ __forceinline__ void index_add_rows_w_run(const wk_gpu_index_args &p)
{
    index_add_rows_v<T, I, 4 / sizeof(T)>(p);
}
template <class T, class I, int> __device__ __forceinline__ void index_add_wide_w_run(const wk_gpu_index_args &p)
{
    index_add_wide_v<T, I, 4 / sizeof(T)>(p);
}

WK_INDEX_KERNELS(WK_DEFINE_KERNELS)

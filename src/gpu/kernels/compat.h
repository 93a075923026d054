/* compat.h: the only file in kernels/ that may name a vendor intrinsic or header. Kernel sources use the
 * wk_* names below and build unchanged with nvcc (CUDA) and hipcc (HIP). */
#ifndef WK_GPU_COMPAT_H
#define WK_GPU_COMPAT_H

#include <stdint.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#define WK_GPU_VENDOR "hip"
#else
#include <cuda_fp16.h>
#define WK_GPU_VENDOR "cuda"
#endif

/* Entry points are found from the host by the names the kernel lists give them (entries.h; cuModuleGetFunction /
 * hipModuleGetFunction, once per device and variant). */
#define WK_KERNEL extern "C" __global__

/* The warp (NVIDIA, 32) or wavefront (AMD, 64 on CDNA, 32 on RDNA) width. WK_WARP_SIZE is the built-in
 * warpSize of both vendors. WK_HW_WARP is the same width as a compile-time constant of the device pass: 32 on
 * NVIDIA; on AMD the width the target is compiled for. Kernels whose logic depends on the width take it as a
 * template parameter (see WK_WIDTHS in common.cuh), so each build knows it when it compiles them.
 * On AMD, clang gives it as __AMDGCN_WAVEFRONT_SIZE, deprecated since ROCm 6.3 and removed in newer clang
 * (llvm-project PR 157463); without it the width follows the target's generation, as AMD advises: gfx9 runs
 * wave64, gfx10 and later wave32 (HIP's default there). The device checks the result when it opens
 * (device.c, probe.cu), so a build whose guess is wrong, or made with -mwavefrontsize64, fails loudly. */
#define WK_WARP_SIZE warpSize
#if defined(__HIPCC__)
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define WK_HW_WARP __AMDGCN_WAVEFRONT_SIZE
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__GFX9__)
#define WK_HW_WARP 64
#elif defined(__HIP_DEVICE_COMPILE__)
#define WK_HW_WARP 32
#else
#define WK_HW_WARP 64 /* the host pass, which compiles no kernel body */
#endif
#else
#define WK_HW_WARP 32
#endif

/* Largest block any kernel launches (HIP also caps a block at 1024 threads); shared arrays with a slot per
 * thread or per warp are sized from it. */
#define WK_MAX_BLOCK 1024

/* The xor shuffle across the whole warp/wavefront (all lanes active): lane i gets lane (i ^ mask)'s v.
 * HIP's __shfl_xor takes the width as a third argument, here the full wavefront (64 lanes on gfx9, 32 on
 * gfx10+ in wave32), so a mask below the width never leaves it. HIP has no lane mask: a wavefront always
 * executes its active lanes together, and every caller runs this with all lanes of the warp active, so
 * CUDA's full-mask _sync form means the same. 64-bit and f64 values are moved as two 32-bit halves by both
 * vendors' overloads. */
#if defined(__HIPCC__)
template <class T> __device__ __forceinline__ T wk_shfl_xor(T v, int mask) { return __shfl_xor(v, mask, WK_WARP_SIZE); }
#else
template <class T> __device__ __forceinline__ T wk_shfl_xor(T v, int mask)
{
    return __shfl_xor_sync(0xffffffffu, v, mask);
}
#endif

/* Warp votes, all lanes active (every caller runs them with the whole warp). wk_ballot: bit i set where lane i's
 * p is true, over the hardware warp (HIP: 64 bits on wave64, the low 32 on wave32). wk_syncwarp: the lanes of
 * one warp meet, and shared-memory writes made before it are seen by the warp's lanes after it (CUDA
 * __syncwarp; an AMD wavefront runs its lanes together and its LDS accesses in order, so a wavefront-scope
 * fence and the compiler's wave barrier keep the order). wk_popc: set bits of a 32- or 64-bit mask. */
#if defined(__HIPCC__)
__device__ __forceinline__ uint64_t wk_ballot(bool p) { return (uint64_t)__ballot(p); }
__device__ __forceinline__ void wk_syncwarp(void)
{
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "wavefront");
    __builtin_amdgcn_wave_barrier();
}
#else
__device__ __forceinline__ uint64_t wk_ballot(bool p) { return (uint64_t)__ballot_sync(0xffffffffu, p); }
__device__ __forceinline__ void wk_syncwarp(void) { __syncwarp(); }
#endif
__device__ __forceinline__ int wk_popc(uint32_t m) { return __popc(m); }
__device__ __forceinline__ int wk_popc(uint64_t m) { return __popcll(m); }

/* WK_LAUNCH_BOUNDS(threads, blocks): at most `threads` per block, and registers kept low enough that
 * `blocks` such blocks fit on one SM (CUDA's __launch_bounds__ meaning). HIP's two-argument
 * __launch_bounds__ passes its second argument as amdgpu_waves_per_eu, a count of wavefronts per SIMD,
 * not of blocks per CU, so it is converted here: a CU (gfx9) or WGP (gfx10+, the default WGP mode) has 4
 * SIMDs, so `blocks` blocks of `threads` are blocks * threads / (4 * wavefront width) waves per SIMD, at
 * least 1. The one-argument __launch_bounds__(threads) means the same on both vendors (HIP:
 * amdgpu_flat_work_group_size(1, threads)) and is used as it is; without it HIP-Clang allows 1024. */
#if defined(__HIPCC__)
#define WK_LAUNCH_BOUNDS(threads, blocks)                                                                     \
    __attribute__((amdgpu_flat_work_group_size(1, threads),                                                   \
                   amdgpu_waves_per_eu(((blocks) * (threads) + 4 * WK_HW_WARP - 1) / (4 * WK_HW_WARP))))
#else
#define WK_LAUNCH_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#endif

/* A product rounded on its own: the compiler may not fuse it into a following add (an FMA would round
 * once where the CPU rounds twice, and bit-exact results such as Philox floats and arange need the two
 * roundings). CUDA's __fmul_rn / __dmul_rn are never contracted. HIP 5.2 defines them as a plain `x * y`,
 * which HIP-Clang (-ffp-contract=fast-honor-pragmas by default) does fuse with the caller's add (checked:
 * v_fmac_f32 / v_fmac_f64 on gfx90a), so on HIP the product is written here under a pragma that turns
 * contraction off for it; the pragma is kept through inlining (v_mul then v_add). */
#if defined(__HIPCC__)
__device__ __forceinline__ float wk_mul_rn(float a, float b)
{
#pragma clang fp contract(off)
    return a * b;
}
__device__ __forceinline__ double wk_mul_rn(double a, double b)
{
#pragma clang fp contract(off)
    return a * b;
}
#else
__device__ __forceinline__ float wk_mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double wk_mul_rn(double a, double b) { return __dmul_rn(a, b); }
#endif

/* A load through the read-only data path (CUDA's ld.global.nc, __ldg), for inputs that no thread of the kernel
 * writes. Kernels that took such pointers as __restrict__ parameters had it inferred; from a field of an argument
 * struct nvcc no longer proves it, and the loads lose the path (norm_softmax_long_f64 ran 32% slower on an H100).
 * HIP: a plain load, which AMD's compiler treats the same way either way. */
#if defined(__HIPCC__)
template <class T> __device__ __forceinline__ T wk_ldg(const T *p) { return *p; }
#else
template <class T> __device__ __forceinline__ T wk_ldg(const T *p)
{
    T t;
    if constexpr (sizeof(T) == 16) {
        uint4 u = __ldg(reinterpret_cast<const uint4 *>(p));
        memcpy(&t, &u, 16);
    } else if constexpr (sizeof(T) == 8) {
        unsigned long long u = __ldg(reinterpret_cast<const unsigned long long *>(p));
        memcpy(&t, &u, 8);
    } else if constexpr (sizeof(T) == 4) {
        unsigned int u = __ldg(reinterpret_cast<const unsigned int *>(p));
        memcpy(&t, &u, 4);
    } else if constexpr (sizeof(T) == 2) {
        unsigned short u = __ldg(reinterpret_cast<const unsigned short *>(p));
        memcpy(&t, &u, 2);
    } else {
        unsigned char u = __ldg(reinterpret_cast<const unsigned char *>(p));
        memcpy(&t, &u, 1);
    }
    return t;
}
#endif

/* Four floats from L2 (p 16-byte aligned), as wk_ld_l2. */
__device__ __forceinline__ void wk_ld_l2_v4(const float *p, float (&v)[4])
{
#if defined(__HIPCC__)
    for (int i = 0; i < 4; i++)
        v[i] = *(const volatile float *)(p + i);
#else
    const float4 t = __ldcg(reinterpret_cast<const float4 *>(p));
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
#endif
}

/* A release and acquire fence at device scope. CUDA (sm_70+): fence.acq_rel.gpu, not __threadfence's sequentially
 * consistent membar.gl, which costs microseconds on a busy H100; HIP: __threadfence. */
__device__ __forceinline__ void wk_fence_gpu(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700 && !defined(__HIPCC__)
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    __threadfence();
#endif
}

/* A load from L2, past the SM's L1: data other blocks of the running kernel wrote (read after their fence and a
 * ticket that says they are done). CUDA: ld.global.cg, which the compiler may batch; HIP: a volatile load. */
__device__ __forceinline__ float wk_ld_l2(const float *p)
{
#if defined(__HIPCC__)
    return *(const volatile float *)p;
#else
    return __ldcg(p);
#endif
}

/* The start of every kernel (common.cuh WK_DEFINE_KERNELS). Launched to overlap the stream's previous kernel
 * (runtime.h WK_GPU_LAUNCH_OVERLAP: programmatic dependent launch, NVIDIA sm_90 and later), it waits until that
 * kernel has completed and its writes are visible, then lets the stream's next kernel begin its launch in turn.
 * Launched plainly, and on every other target, it does nothing. */
__device__ __forceinline__ void wk_grid_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIPCC__)
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* c + the dot product of a's and b's four signed bytes: NVIDIA's dp4a (sm_61 and later), AMD's v_dot4_i32_i8 on the
 * targets known to have it, else four multiplies (the quantized mat-vec's integer path, matmul_q.cu). */
__device__ __forceinline__ int wk_dp4a(int a, int b, int c)
{
#if defined(__HIPCC__) && (defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || \
                           defined(__gfx941__) || defined(__gfx942__) || defined(__gfx1030__))
    return __builtin_amdgcn_sdot4(a, b, c, false);
#elif !defined(__HIPCC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 610
    return __dp4a(a, b, c);
#else
#pragma unroll
    for (int i = 0; i < 32; i += 8)
        c += (int)(int8_t)(a >> i) * (int)(int8_t)(b >> i);
    return c;
#endif
}

/* An empty statement that tells the compiler v may have changed here, emitting nothing: work that depends on v is
 * not hoisted above it out of a loop (a kernel that holds packed values across a loop keeps them packed instead of
 * keeping their conversions, which would take twice the registers). */
__device__ __forceinline__ void wk_opaque(uint32_t &v)
{
#if defined(__HIPCC__)
    __asm__ volatile("" : "+v"(v));
#else
    asm volatile("" : "+r"(v));
#endif
}

/* f16 <-> f32 with the hardware conversion (round to nearest even): core/numerics.h's wk_f32_to_f16_bits and
 * wk_f16_bits_to_f32 use these in the device pass. On HIP the bits go through
 * __half_raw (its x is the bit pattern; __half converts to and from it in every ROCm since 1.x), and
 * __float2half_rn / __half2float are _Float16 casts (v_cvt_f16_f32 / v_cvt_f32_f16, RNE; NaN stays NaN). */
__device__ __forceinline__ float wk_hw_f16_bits_to_f32(uint16_t h)
{
#if defined(__HIPCC__)
    __half_raw r;
    r.x = h;
    return __half2float(__half(r));
#else
    return __half2float(__ushort_as_half(h));
#endif
}
__device__ __forceinline__ uint16_t wk_hw_f32_to_f16_bits(float f)
{
#if defined(__HIPCC__)
    __half_raw r = __half(__float2half_rn(f));
    return r.x;
#else
    return __half_as_ushort(__float2half_rn(f));
#endif
}

/* ---------------------------------------------------------------- tensor-core tiles (attention_mma.cu)
 * NVIDIA sm_80 and later: mma.sync m16n8k16 (f16/bf16 inputs, f32 accumulators), ldmatrix and cp.async. Every
 * other target (older NVIDIA, AMD) gets the same results from a fallback made of shuffles and plain memory
 * accesses: correct, slow, and there only so that the kernels build everywhere (the host launches them on
 * sm_80+ alone). Fragments follow PTX's layout for m16n8k16 (lane = 4 * g + t, 32 lanes; an AMD wave64 works
 * as two 32-lane halves): A (16x16, two 16-bit values a register) a[0] = row g, cols 2t, 2t+1; a[1] = row g + 8;
 * a[2], a[3] = the same rows, cols 2t + 8, 2t + 9; B (16x8) b[0] = rows 2t, 2t + 1 of col g, b[1] = rows 2t + 8,
 * 2t + 9; C (16x8 f32) c[0], c[1] = row g, cols 2t, 2t + 1; c[2], c[3] = row g + 8. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define WK_TC_NATIVE 1
#else
#define WK_TC_NATIVE 0
#endif

/* v of lane src (0..31) of this lane's 32-lane group; every lane of the group calls it. */
template <class T> __device__ __forceinline__ T wk_shfl_idx32(T v, int src)
{
#if defined(__HIPCC__)
    return __shfl(v, src, 32);
#else
    return __shfl_sync(0xffffffffu, v, src, 32);
#endif
}

/* A 16-bit float's bits as f32 (bf: bfloat16, else IEEE half). */
template <int BF> __device__ __forceinline__ float wk_tc_to_f32(uint32_t h)
{
    if (BF) {
        uint32_t u = (h & 0xffffu) << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return wk_hw_f16_bits_to_f32((uint16_t)h);
}

/* Two f32 rounded to nearest even into one register of 16-bit floats (lo in the low half), as core/numerics.h's
 * wk_f32_to_f16_bits / wk_f32_to_bf16_bits round (NaN stays NaN). */
template <int BF> __device__ __forceinline__ uint32_t wk_tc_pack(float lo, float hi)
{
#if WK_TC_NATIVE
    uint32_t r;
    if (BF)
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#else
    uint32_t h[2];
    float f[2] = {lo, hi};
    for (int i = 0; i < 2; i++) {
        if (BF) {
            uint32_t u;
            memcpy(&u, &f[i], 4);
            h[i] = (u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        } else {
            h[i] = wk_hw_f32_to_f16_bits(f[i]);
        }
    }
    return (h[0] & 0xffffu) | (h[1] << 16);
#endif
}

/* d (16x8, f32) += a (16x16) * b (16x8), a warp-wide product (every lane calls it). */
template <int BF> __device__ __forceinline__ void wk_tc_mma(float d[4], const uint32_t a[4], const uint32_t b[2])
{
#if WK_TC_NATIVE
    if (BF)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    int lane = (int)(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
    for (int q = 0; q < 4; q++) { /* the k pairs 2q, 2q + 1 and 2q + 8, 2q + 9 */
        uint32_t ar[4], bc[2][2];
        for (int i = 0; i < 4; i++)
            ar[i] = wk_shfl_idx32(a[i], 4 * g + q);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 2; i++)
                bc[c][i] = wk_shfl_idx32(b[i], 4 * (2 * t + c) + q);
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++)
                for (int i = 0; i < 2; i++)
                    for (int h = 0; h < 2; h++)
                        d[2 * r + c] += wk_tc_to_f32<BF>(ar[r + 2 * i] >> (16 * h)) *
                                        wk_tc_to_f32<BF>(bc[c][i] >> (16 * h));
    }
#endif
}

/* Four 8x8 matrices of 16-bit values from shared memory: lane 8i + j gives the address of row j of matrix i
 * (16 bytes, 16-byte aligned); r[i] gets matrix i's row g, cols 2t, 2t + 1 (wk_tc_ldsm_t: transposed, rows 2t,
 * 2t + 1 of col g). */
__device__ __forceinline__ void wk_tc_ldsm(uint32_t r[4], const uint16_t *row)
{
#if WK_TC_NATIVE
    uint32_t a = (uint32_t)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
#else
    int lane = (int)(threadIdx.x & 31u);
    for (int i = 0; i < 4; i++) {
        const uint16_t *src = (const uint16_t *)wk_shfl_idx32((unsigned long long)row, 8 * i + (lane >> 2));
        r[i] = (uint32_t)src[2 * (lane & 3)] | ((uint32_t)src[2 * (lane & 3) + 1] << 16);
    }
#endif
}
__device__ __forceinline__ void wk_tc_ldsm_t(uint32_t r[4], const uint16_t *row)
{
#if WK_TC_NATIVE
    uint32_t a = (uint32_t)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
#else
    int lane = (int)(threadIdx.x & 31u);
    for (int i = 0; i < 4; i++) {
        const uint16_t *s0 = (const uint16_t *)wk_shfl_idx32((unsigned long long)row, 8 * i + 2 * (lane & 3));
        const uint16_t *s1 = (const uint16_t *)wk_shfl_idx32((unsigned long long)row, 8 * i + 2 * (lane & 3) + 1);
        r[i] = (uint32_t)s0[lane >> 2] | ((uint32_t)s1[lane >> 2] << 16);
    }
#endif
}

/* 16 bytes from global to shared memory (both 16-byte aligned), asynchronously: visible to the block after
 * wk_tc_async_wait() and a barrier (the fallback copies at once). wk_tc_async_commit closes a group. */
__device__ __forceinline__ void wk_tc_async16(void *dst, const void *src)
{
#if WK_TC_NATIVE
    uint32_t a = (uint32_t)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(src) : "memory");
#else
    struct alignas(16) w16 { uint32_t w[4]; };
    *(w16 *)dst = *(const w16 *)src;
#endif
}
__device__ __forceinline__ void wk_tc_async_commit(void)
{
#if WK_TC_NATIVE
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
__device__ __forceinline__ void wk_tc_async_wait(void)
{
#if WK_TC_NATIVE
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}

#endif

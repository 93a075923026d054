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

#endif

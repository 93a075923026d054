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

/* Entry points are looked up by name from the host (cuModuleGetFunction / hipModuleGetFunction). */
#define WK_KERNEL extern "C" __global__

/* The warp (NVIDIA, 32) or wavefront (AMD, 64 on CDNA, 32 on RDNA) width is read at run time, never
 * assumed: warpSize is a built-in on both. */
#define WK_WARP_SIZE warpSize

/* Largest block any kernel launches; shared arrays sized per warp use WK_MAX_BLOCK / WK_MIN_WARP. */
#define WK_MAX_BLOCK 1024
#define WK_MIN_WARP 32

/* Shuffles across the whole warp/wavefront (all lanes active). */
#if defined(__HIPCC__)
template <class T> __device__ __forceinline__ T wk_shfl_down(T v, int delta) { return __shfl_down(v, delta); }
template <class T> __device__ __forceinline__ T wk_shfl_xor(T v, int mask) { return __shfl_xor(v, mask); }
template <class T> __device__ __forceinline__ T wk_shfl(T v, int lane) { return __shfl(v, lane); }
#else
template <class T> __device__ __forceinline__ T wk_shfl_down(T v, int delta)
{
    return __shfl_down_sync(0xffffffffu, v, delta);
}
template <class T> __device__ __forceinline__ T wk_shfl_xor(T v, int mask)
{
    return __shfl_xor_sync(0xffffffffu, v, mask);
}
template <class T> __device__ __forceinline__ T wk_shfl(T v, int lane) { return __shfl_sync(0xffffffffu, v, lane); }
#endif

/* A product rounded on its own: the compiler may not fuse it into a following add (an FMA would round
 * once where the CPU rounds twice, and bit-exact results such as Philox floats and arange need the two
 * roundings). __fmul_rn / __dmul_rn exist under these names in both CUDA and HIP. */
__device__ __forceinline__ float wk_mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double wk_mul_rn(double a, double b) { return __dmul_rn(a, b); }

/* f16 <-> f32 with the hardware conversion (round to nearest even). */
__device__ __forceinline__ float wk_f16_bits_to_f32(uint16_t h)
{
#if defined(__HIPCC__)
    __half_raw r;
    r.x = h;
    return __half2float(__half(r));
#else
    return __half2float(__ushort_as_half(h));
#endif
}
__device__ __forceinline__ uint16_t wk_f32_to_f16_bits(float f)
{
#if defined(__HIPCC__)
    __half_raw r = __half(__float2half_rn(f));
    return r.x;
#else
    return __half_as_ushort(__float2half_rn(f));
#endif
}

#endif

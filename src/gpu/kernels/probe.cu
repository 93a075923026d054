/* probe.cu: what the device checks when it opens: that the width its kernels were compiled for is the width
 * the GPU runs (device.c), since the width-dependent kernels (WK_WIDTHS) are correct only at their own. */
#include "common.cuh"
#include "probe.h"

/* out[0] = the compile-time width of this build's target (WK_HW_WARP), out[1] = the width the hardware runs. */
template <class, class, int> __device__ __forceinline__ void probe_wave_width_run(const wk_gpu_probe_args &p)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        p.out[0] = WK_HW_WARP;
        p.out[1] = WK_WARP_SIZE;
    }
}

WK_PROBE_KERNELS(WK_DEFINE_KERNELS)

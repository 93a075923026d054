/* probe.cu: what the device checks when it opens: that the width its kernels were compiled for is the width
 * the GPU runs (backend.c), since the width-dependent kernels (WK_WIDTHS) are correct only at their own. */
#include "common.cuh"

/* out[0] = the compile-time width of this build's target (WK_HW_WARP), out[1] = the width the hardware runs. */
WK_KERNEL void probe_wave_width(int *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = WK_HW_WARP;
        out[1] = WK_WARP_SIZE;
    }
}

/* probe.h: the device-open probe's interface (kernels/probe.cu): the warp width its build was compiled for and
 * the one the GPU runs, written to out[0] and out[1]. */
#ifndef WK_GPU_KERNELS_PROBE_H
#define WK_GPU_KERNELS_PROBE_H

#include "entries.h"

typedef struct wk_gpu_probe_args {
    int32_t *out; /* 2 ints of device memory */
} wk_gpu_probe_args;

/* Built per width (WIDTHS) though its body does not depend on it: its _w64 variant is present exactly when the
 * build has the logical wave64 kernels (device.c). */
#define WK_PROBE_KERNELS(X) X(probe, probe_wave_width, wk_gpu_probe_args, NONE, NONE, WIDTHS, )

#endif

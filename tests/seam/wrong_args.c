/* wrong_args.c: must NOT compile: a launch of pool_max with the probe's argument struct (test_seam_types). */
#include "gpu/launch.h"

wk_status wrong(wk_gpu_dev *d);
wk_status wrong(wk_gpu_dev *d)
{
    wk_gpu_probe_args args = {0};
    wk_gpu_dim one = {1, 1, 1};
    return WK_GPU_LAUNCH(d, pool_max, WK_F32, 0, 0, one, one, 0, args);
}

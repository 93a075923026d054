/* right_args.c: must compile: the control for wrong_args.c (the same launch with the set's own struct). */
#include "gpu/launch.h"

wk_status right(wk_gpu_dev *d);
wk_status right(wk_gpu_dev *d)
{
    wk_gpu_pool_args args = {0};
    wk_gpu_dim one = {1, 1, 1};
    return WK_GPU_LAUNCH(d, pool_max, WK_F32, 0, 0, one, one, 0, args);
}

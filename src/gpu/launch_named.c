/* launch_named.c: TRANSITIONAL: launch by a kernel's name, for the families not yet on the typed seam. */
#include <stdio.h>
#include <string.h>

#include "gpu/device.h"

const char *wk_gpu_sfx(wk_dtype dt)
{
    static const char *const names[WK_DTYPE_COUNT] = {"u8", "u32", "i32", "i64", "f16", "bf16", "f32", "f64"};
    return (unsigned)dt < WK_DTYPE_COUNT ? names[dt] : "invalid";
}

const char *wk_gpu_width_sfx(const wk_gpu_dev *d) { return wk_gpu_width_slot(d) ? "_w64" : ""; }

void wk_gpu_div_magic(int64_t d, uint32_t *m, uint32_t *s)
{
    wk_gpu_divisor v = wk_gpu_divisor_of(d);
    *m = v.m;
    *s = v.s;
}

wk_status wk_gpu_launch_named(wk_gpu_dev *d, const char *name, wk_gpu_dim grid, wk_gpu_dim block, unsigned smem,
                              void **args)
{
    wk_gpu_handle fn = NULL;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0)
        return WK_OK;
    for (int m = 0; m < d->module_count && !fn; m++)
        WK_TRY(d->rt->function_get(d->modules[m], name, &fn));
    if (!fn)
        return wk_error(WK_ERR_UNSUPPORTED, "kernel %s: not in this build's %s kernels", name, d->rt->backend);
    return d->rt->launch(fn, grid, block, smem, d->stream, args);
}

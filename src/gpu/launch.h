/* launch.h: the typed seam between host code and kernels. Every kernel set of kernels/families.h has an id
 * WK_KS_<set> and a parameter type; WK_GPU_LAUNCH checks at compile time that a launch passes that type, and
 * wk_gpu_launch checks its size, finds the variant's entry point and queues it. */
#ifndef WK_GPU_LAUNCH_H
#define WK_GPU_LAUNCH_H

#include <stddef.h>

#include "core/error.h"
#include "gpu/kernels/families.h"

typedef struct wk_gpu_dev wk_gpu_dev;

typedef struct wk_gpu_dim {
    unsigned x, y, z;
} wk_gpu_dim;

#define WK_KSET_ENUM_(fam, set, P, A, B, W, ATTR) WK_KS_##set,
typedef enum wk_gpu_kset { WK_GPU_KERNEL_SETS(WK_KSET_ENUM_) WK_KS_COUNT } wk_gpu_kset;
#undef WK_KSET_ENUM_
#define WK_KSET_TYPE_(fam, set, P, A, B, W, ATTR) typedef P wk_gpu_args_##set;
WK_GPU_KERNEL_SETS(WK_KSET_TYPE_)
#undef WK_KSET_TYPE_

/* Queues the variant (a, b, w) of kernel set `set` on d's stream with `args` (an lvalue of the set's parameter
 * type: anything else does not compile). a, b, w are the variant's slots on the set's axes (entries.h): for a
 * dtype axis the wk_dtype, for a width axis wk_gpu_width_slot(d), else 0. */
#define WK_GPU_LAUNCH(d, set, a, b, w, grid, block, smem, args)                                                  \
    _Generic((args), wk_gpu_args_##set: wk_gpu_launch)(d, WK_KS_##set, a, b, w, grid, block, smem, &(args),     \
                                                         sizeof(args))

/* The same, untyped: WK_GPU_LAUNCH's target. A variant the set's list does not build, or slots out of its axes,
 * is WK_ERR_UNSUPPORTED naming the kernel (op and dtypes); args_size not the set's is WK_ERR_INTERNAL; a launch
 * failure is WK_ERR_BACKEND with the vendor's text. A grid with a zero dimension queues nothing. */
wk_status wk_gpu_launch(wk_gpu_dev *d, wk_gpu_kset set, int a, int b, int w, wk_gpu_dim grid, wk_gpu_dim block,
                        unsigned smem, const void *args, size_t args_size);

/* The entry point's name of a variant ("pool_max_f32"), for messages and tests: WK_OK when the list builds it;
 * WK_ERR_UNSUPPORTED (with a message naming it) when not, *name then still naming it where the slots are in range. */
wk_status wk_gpu_kernel_name(wk_gpu_kset set, int a, int b, int w, const char **name);

/* True when d's kernels include the variant's entry point (it is listed as built and its module has it). */
bool wk_gpu_kernel_present(wk_gpu_dev *d, wk_gpu_kset set, int a, int b, int w);

/* Per device: the handles of the entry points found so far, looked up on first use in the set's module. */
typedef struct wk_gpu_kernel_cache wk_gpu_kernel_cache;
wk_status wk_gpu_kernel_cache_create(wk_gpu_kernel_cache **out);
void wk_gpu_kernel_cache_destroy(wk_gpu_kernel_cache *c);

#endif

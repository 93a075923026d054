/* families.h: every kernel family's list (kernels/<family>.h), joined: the one list the host's kernel table
 * (gpu/launch.c) is generated from. A new family adds its header here. */
#ifndef WK_GPU_KERNELS_FAMILIES_H
#define WK_GPU_KERNELS_FAMILIES_H

#include "pool.h"
#include "probe.h"

#define WK_GPU_KERNEL_SETS(X) WK_PROBE_KERNELS(X) WK_POOL_KERNELS(X)

#endif

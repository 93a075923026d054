/* norm.h: the norm family's interface (kernels/norm.cu, gpu/norm.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_NORM_H
#define WK_GPU_KERNELS_NORM_H

#include "entries.h"
#include "../layout.h"

#define WK_NORM_KERNELS(X)

#endif

/* rope.h: the rope family's interface (kernels/rope.cu, gpu/rope.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_ROPE_H
#define WK_GPU_KERNELS_ROPE_H

#include "entries.h"
#include "../layout.h"

#define WK_ROPE_KERNELS(X)

#endif

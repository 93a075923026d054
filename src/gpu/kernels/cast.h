/* cast.h: the cast family's interface (kernels/cast.cu, gpu/cast.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_CAST_H
#define WK_GPU_KERNELS_CAST_H

#include "entries.h"
#include "../layout.h"

#define WK_CAST_KERNELS(X)

#endif

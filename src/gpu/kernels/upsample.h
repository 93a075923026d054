/* upsample.h: the upsample family's interface (kernels/upsample.cu, gpu/upsample.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_UPSAMPLE_H
#define WK_GPU_KERNELS_UPSAMPLE_H

#include "entries.h"
#include "../layout.h"

#define WK_UPSAMPLE_KERNELS(X)

#endif

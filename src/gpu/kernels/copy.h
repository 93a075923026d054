/* copy.h: the copy family's interface (kernels/copy.cu, gpu/copy.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_COPY_H
#define WK_GPU_KERNELS_COPY_H

#include "entries.h"
#include "../layout.h"

#define WK_COPY_KERNELS(X)

#endif

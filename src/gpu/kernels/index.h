/* index.h: the index family's interface (kernels/index.cu, gpu/index.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_INDEX_H
#define WK_GPU_KERNELS_INDEX_H

#include "entries.h"
#include "../layout.h"

#define WK_INDEX_KERNELS(X)

#endif

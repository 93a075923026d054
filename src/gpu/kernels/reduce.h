/* reduce.h: the reduce family's interface (kernels/reduce.cu, gpu/reduce.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_REDUCE_H
#define WK_GPU_KERNELS_REDUCE_H

#include "entries.h"
#include "../layout.h"

#define WK_REDUCE_KERNELS(X)

#endif

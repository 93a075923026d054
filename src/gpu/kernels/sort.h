/* sort.h: the sort family's interface (kernels/sort.cu, gpu/sort.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_SORT_H
#define WK_GPU_KERNELS_SORT_H

#include "entries.h"
#include "../layout.h"

#define WK_SORT_KERNELS(X)

#endif

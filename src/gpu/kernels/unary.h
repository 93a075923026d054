/* unary.h: the unary family's interface (kernels/unary.cu, gpu/unary.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_UNARY_H
#define WK_GPU_KERNELS_UNARY_H

#include "entries.h"
#include "../layout.h"

#define WK_UNARY_KERNELS(X)

#endif

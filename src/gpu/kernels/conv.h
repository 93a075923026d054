/* conv.h: the conv family's interface (kernels/conv.cu, gpu/conv.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_CONV_H
#define WK_GPU_KERNELS_CONV_H

#include "entries.h"
#include "../layout.h"

#define WK_CONV_KERNELS(X)

#endif

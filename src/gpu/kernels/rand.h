/* rand.h: the rand family's interface (kernels/rand.cu, gpu/rand.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_RAND_H
#define WK_GPU_KERNELS_RAND_H

#include "entries.h"
#include "../layout.h"

#define WK_RAND_KERNELS(X)

#endif

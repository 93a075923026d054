/* binary.h: the binary family's interface (kernels/binary.cu, gpu/binary.c). TRANSITIONAL: not on the typed seam yet. */
#ifndef WK_GPU_KERNELS_BINARY_H
#define WK_GPU_KERNELS_BINARY_H

#include "entries.h"
#include "../layout.h"

#define WK_BINARY_KERNELS(X)

#endif

/* families.h: every kernel family's list (kernels/<family>.h), joined: the one list the host's kernel table
 * (gpu/launch.c) is generated from. A new family adds its header and its list here. */
#ifndef WK_GPU_KERNELS_FAMILIES_H
#define WK_GPU_KERNELS_FAMILIES_H

#include "attention.h"
#include "attention_mma.h"
#include "binary.h"
#include "cast.h"
#include "conv.h"
#include "copy.h"
#include "gemv.h"
#include "index.h"
#include "mask.h"
#include "matmul_q.h"
#include "matmul_q_dot.h"
#include "norm.h"
#include "pool.h"
#include "probe.h"
#include "quant.h"
#include "rand.h"
#include "reduce.h"
#include "reorder.h"
#include "rope.h"
#include "sample.h"
#include "scan.h"
#include "sort.h"
#include "sort_radix.h"
#include "stats.h"
#include "unary.h"
#include "upsample.h"

#define WK_GPU_KERNEL_SETS(X)                                                                                        \
    WK_ATTENTION_KERNELS(X) WK_ATTENTION_MMA_KERNELS(X) WK_BINARY_KERNELS(X) WK_CAST_KERNELS(X) WK_CONV_KERNELS(X)   \
    WK_COPY_KERNELS(X) WK_GEMV_KERNELS(X) WK_INDEX_KERNELS(X) WK_MASK_KERNELS(X) WK_MATMUL_Q_KERNELS(X)              \
    WK_MATMUL_Q_DOT_KERNELS(X) WK_NORM_KERNELS(X) WK_POOL_KERNELS(X) WK_PROBE_KERNELS(X) WK_QUANT_KERNELS(X)         \
    WK_RAND_KERNELS(X) WK_REDUCE_KERNELS(X) WK_REORDER_KERNELS(X) WK_ROPE_KERNELS(X) WK_SAMPLE_KERNELS(X)            \
    WK_SCAN_KERNELS(X) WK_SORT_KERNELS(X) WK_SORT_RADIX_KERNELS(X) WK_STATS_KERNELS(X) WK_UNARY_KERNELS(X)           \
    WK_UPSAMPLE_KERNELS(X)

#endif

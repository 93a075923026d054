/* sort_radix.h: the sort family's block radix sort (kernels/sort_radix.cu, gpu/sort.c): the stable sort along the
 * last dim for rows that fit one block's shared memory, with sort.h's arguments and keys. */
#ifndef WK_GPU_KERNELS_SORT_RADIX_H
#define WK_GPU_KERNELS_SORT_RADIX_H

#include "sort.h"

/* A row of n <= SORT_RADIX_MAX_N (64-bit keys: SORT_RADIX_MAX_N64) per block: its (key, index) pairs sorted in
 * shared memory by an LSD radix sort of 8-bit digits, a pass per byte of the key (sort_keys.cuh's radix keys:
 * u8 1, f16 and bf16 2, 32-bit dtypes 4, 64-bit 8), then written to the outputs. Threads: n / SORT_RADIX_ITEMS
 * rounded up to a multiple of 64 (so every warp width divides it), at least 64; each holds SORT_RADIX_ITEMS
 * keys. Dynamic shared memory: the keys (4 or 8 bytes) and u16 indices of threads * SORT_RADIX_ITEMS slots,
 * then two u16 tables of 256 digits per warp of the width launched (wk_gpu_logical_warp): 40 KiB for 4096 f32
 * keys in warps of 32. Of sort.h's arguments it reads x, lr, s, rows, n, desc, values, indices. */
#define SORT_RADIX_ITEMS 8
#define SORT_RADIX_MAX_N 4096
#define SORT_RADIX_MAX_N64 2048

#define SORT_RADIX_THREADS (SORT_RADIX_MAX_N / SORT_RADIX_ITEMS)

/* Launch bounds: three blocks of 512 an SM (40 registers a thread on sm_90). */
#define WK_SORT_RADIX_KERNELS(X)                                                                                  \
    X(sort_radix, sort_radix, wk_gpu_sort_args, DT_ALL, NONE, WIDTHS, WK_LAUNCH_BOUNDS(SORT_RADIX_THREADS, 3))

#endif

/* nccl_lib.h: NCCL on NVIDIA and RCCL on AMD, one API under one set of names, loaded with dlopen on first use (never
 * linked; nccl_lib.c), for nccl.c's communicators. */
#ifndef WK_GPU_NCCL_LIB_H
#define WK_GPU_NCCL_LIB_H

#include "gpu/device.h"
#include "gpu/nccl_api.h"

typedef struct nccl_fns {
    wk_ncclGetVersion_fn get_version;
    wk_ncclGetUniqueId_fn get_unique_id;
    wk_ncclCommInitRankConfig_fn init_rank_config;
    wk_ncclCommFinalize_fn finalize;
    wk_ncclCommDestroy_fn destroy;
    wk_ncclCommAbort_fn abort;
    wk_ncclCommGetAsyncError_fn async_error;
    wk_ncclCommSplit_fn split; /* optional: NCCL 2.18 */
    wk_ncclGetErrorString_fn error_string;
    wk_ncclGetLastError_fn last_error; /* optional: NCCL 2.13 */
    wk_ncclAllReduce_fn all_reduce;
    wk_ncclBroadcast_fn broadcast;
    wk_ncclReduce_fn reduce;
    wk_ncclAllGather_fn all_gather;
    wk_ncclReduceScatter_fn reduce_scatter;
    wk_ncclSend_fn send;
    wk_ncclRecv_fn recv;
    wk_ncclGroupStart_fn group_start;
    wk_ncclGroupEnd_fn group_end;
} nccl_fns;

enum { LIB_NCCL = 0, LIB_RCCL = 1 };

/* The library a device's communicators use (its vendor's). */
int nccl_lib_index(const wk_device *dev);
/* Loads it once (thread-safe): WK_ERR_UNSUPPORTED, naming op and what was looked for, when it cannot. */
wk_status nccl_load(const char *op, int lib);
/* After a load: its functions (optional ones NULL where the library lacks them), "NCCL", "NCCL 2.28.9". */
const nccl_fns *nccl_fns_of(int lib);
const char *nccl_lib_name(int lib);
const char *nccl_lib_version(int lib);

#endif

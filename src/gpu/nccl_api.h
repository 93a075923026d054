/* nccl_api.h: wick's own declarations of the NCCL types, values and functions that nccl.c resolves with dlsym.
 * RCCL exports the same API under the same names. Only what we call; tests/abi/nccl_abi.c checks every item
 * against the real nccl.h. */
#ifndef WK_GPU_NCCL_API_H
#define WK_GPU_NCCL_API_H

#include <stddef.h>

/* Enums are declared as the integer type GCC and Clang make them compatible with (unsigned int: every value of
 * ncclResult_t, ncclDataType_t and ncclRedOp_t is non-negative); the ABI test proves each. */
struct ncclComm;
struct CUstream_st;
typedef struct ncclComm *wk_ncclComm_t;
typedef struct CUstream_st *wk_ncclStream_t; /* cudaStream_t; hipStream_t for RCCL, also a pointer */
typedef unsigned int wk_ncclResult_t;
typedef unsigned int wk_ncclDataType_t;
typedef unsigned int wk_ncclRedOp_t;

#define WK_NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[WK_NCCL_UNIQUE_ID_BYTES];
} wk_ncclUniqueId;

enum {
    WK_NCCL_SUCCESS = 0,
    WK_NCCL_IN_PROGRESS = 7,
    WK_NCCL_INT8 = 0, WK_NCCL_UINT8 = 1, WK_NCCL_INT32 = 2, WK_NCCL_UINT32 = 3, WK_NCCL_INT64 = 4,
    WK_NCCL_UINT64 = 5, WK_NCCL_FLOAT16 = 6, WK_NCCL_FLOAT32 = 7, WK_NCCL_FLOAT64 = 8, WK_NCCL_BFLOAT16 = 9,
    WK_NCCL_SUM = 0, WK_NCCL_PROD = 1, WK_NCCL_MAX = 2, WK_NCCL_MIN = 3, WK_NCCL_AVG = 4,
    WK_NCCL_CONFIG_UNDEF_INT = -2147483647 - 1 /* INT_MIN */
};

/* The leading fields of ncclConfig_t as NCCL 2.14 has them; later versions append fields and read only what
 * `size` and `version` say the caller knows. */
typedef struct {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cgaClusterSize;
    int minCTAs;
    int maxCTAs;
    const char *netName;
} wk_ncclConfig_t;
#define WK_NCCL_CONFIG_MAGIC 0xcafebeefu
#define WK_NCCL_CONFIG_VERSION 21400 /* NCCL_VERSION(2, 14, 0) */

typedef wk_ncclResult_t (*wk_ncclGetVersion_fn)(int *version);
typedef wk_ncclResult_t (*wk_ncclGetUniqueId_fn)(wk_ncclUniqueId *uniqueId);
typedef wk_ncclResult_t (*wk_ncclCommInitRankConfig_fn)(wk_ncclComm_t *comm, int nranks, wk_ncclUniqueId commId,
                                                         int rank, wk_ncclConfig_t *config);
typedef wk_ncclResult_t (*wk_ncclCommSplit_fn)(wk_ncclComm_t comm, int color, int key, wk_ncclComm_t *newcomm,
                                               wk_ncclConfig_t *config);
typedef wk_ncclResult_t (*wk_ncclCommFinalize_fn)(wk_ncclComm_t comm);
typedef wk_ncclResult_t (*wk_ncclCommDestroy_fn)(wk_ncclComm_t comm);
typedef wk_ncclResult_t (*wk_ncclCommAbort_fn)(wk_ncclComm_t comm);
typedef wk_ncclResult_t (*wk_ncclCommGetAsyncError_fn)(wk_ncclComm_t comm, wk_ncclResult_t *asyncError);
typedef const char *(*wk_ncclGetErrorString_fn)(wk_ncclResult_t result);
typedef const char *(*wk_ncclGetLastError_fn)(wk_ncclComm_t comm);
typedef wk_ncclResult_t (*wk_ncclAllReduce_fn)(const void *sendbuff, void *recvbuff, size_t count,
                                                wk_ncclDataType_t datatype, wk_ncclRedOp_t op, wk_ncclComm_t comm,
                                                wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclBroadcast_fn)(const void *sendbuff, void *recvbuff, size_t count,
                                                wk_ncclDataType_t datatype, int root, wk_ncclComm_t comm,
                                                wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclReduce_fn)(const void *sendbuff, void *recvbuff, size_t count,
                                             wk_ncclDataType_t datatype, wk_ncclRedOp_t op, int root,
                                             wk_ncclComm_t comm, wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclAllGather_fn)(const void *sendbuff, void *recvbuff, size_t sendcount,
                                                wk_ncclDataType_t datatype, wk_ncclComm_t comm,
                                                wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclReduceScatter_fn)(const void *sendbuff, void *recvbuff, size_t recvcount,
                                                    wk_ncclDataType_t datatype, wk_ncclRedOp_t op,
                                                    wk_ncclComm_t comm, wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclSend_fn)(const void *sendbuff, size_t count, wk_ncclDataType_t datatype, int peer,
                                           wk_ncclComm_t comm, wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclRecv_fn)(void *recvbuff, size_t count, wk_ncclDataType_t datatype, int peer,
                                           wk_ncclComm_t comm, wk_ncclStream_t stream);
typedef wk_ncclResult_t (*wk_ncclGroupStart_fn)(void);
typedef wk_ncclResult_t (*wk_ncclGroupEnd_fn)(void);

#endif

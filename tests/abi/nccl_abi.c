/* nccl_abi.c: compile-time proof that src/gpu/nccl_api.h matches the real nccl.h: every function-pointer type,
 * integer stand-in for an enum, enum value, the unique id, and the leading fields of ncclConfig_t. Build only. */
#include <stddef.h>

#include <nccl.h>

#include "gpu/nccl_api.h"

#if !defined(__GNUC__)
#error "nccl_abi.c needs __builtin_types_compatible_p (GCC or Clang)"
#endif

#define SAME_TYPE(ours, real) \
    _Static_assert(__builtin_types_compatible_p(ours, real), #ours " is not compatible with " #real)
#define SAME_FN(real) SAME_TYPE(wk_##real##_fn, __typeof__(&real))
#define SAME_VALUE(ours, real) _Static_assert((long long)(ours) == (long long)(real), #ours " != " #real)
#define SAME_FIELD(ours, real, f)                                                                        \
    _Static_assert(offsetof(ours, f) == offsetof(real, f), #ours "." #f ": offset differs");            \
    _Static_assert(sizeof(((ours *)0)->f) == sizeof(((real *)0)->f), #ours "." #f ": size differs");    \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((ours *)0)->f), __typeof__(((real *)0)->f)), \
                   #ours "." #f ": type differs")

SAME_TYPE(wk_ncclComm_t, ncclComm_t);
SAME_TYPE(wk_ncclStream_t, cudaStream_t);
SAME_TYPE(wk_ncclResult_t, ncclResult_t);
SAME_TYPE(wk_ncclDataType_t, ncclDataType_t);
SAME_TYPE(wk_ncclRedOp_t, ncclRedOp_t);
_Static_assert(sizeof(wk_ncclUniqueId) == sizeof(ncclUniqueId), "ncclUniqueId size");
_Static_assert(NCCL_UNIQUE_ID_BYTES == WK_NCCL_UNIQUE_ID_BYTES, "NCCL_UNIQUE_ID_BYTES");

SAME_VALUE(WK_NCCL_SUCCESS, ncclSuccess);
SAME_VALUE(WK_NCCL_IN_PROGRESS, ncclInProgress);
SAME_VALUE(WK_NCCL_INT8, ncclInt8);
SAME_VALUE(WK_NCCL_UINT8, ncclUint8);
SAME_VALUE(WK_NCCL_INT32, ncclInt32);
SAME_VALUE(WK_NCCL_UINT32, ncclUint32);
SAME_VALUE(WK_NCCL_INT64, ncclInt64);
SAME_VALUE(WK_NCCL_UINT64, ncclUint64);
SAME_VALUE(WK_NCCL_FLOAT16, ncclFloat16);
SAME_VALUE(WK_NCCL_FLOAT32, ncclFloat32);
SAME_VALUE(WK_NCCL_FLOAT64, ncclFloat64);
SAME_VALUE(WK_NCCL_BFLOAT16, ncclBfloat16);
SAME_VALUE(WK_NCCL_SUM, ncclSum);
SAME_VALUE(WK_NCCL_PROD, ncclProd);
SAME_VALUE(WK_NCCL_MAX, ncclMax);
SAME_VALUE(WK_NCCL_MIN, ncclMin);
SAME_VALUE(WK_NCCL_AVG, ncclAvg);
SAME_VALUE(WK_NCCL_CONFIG_MAGIC, 0xcafebeef);
SAME_VALUE(WK_NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT);
SAME_VALUE(WK_NCCL_CONFIG_VERSION, NCCL_VERSION(2, 14, 0));

SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, size);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, magic);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, version);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, blocking);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, cgaClusterSize);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, minCTAs);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, maxCTAs);
SAME_FIELD(wk_ncclConfig_t, ncclConfig_t, netName);
/* NCCL_CONFIG_INITIALIZER's magic, as nccl.c sets it. */
static const ncclConfig_t initializer = NCCL_CONFIG_INITIALIZER;

SAME_FN(ncclGetVersion);
/* These two take our own structs: the id (same bytes) and the config (a prefix of NCCL's, as `size` says), so
 * their types are checked as NCCL's with those structs in place. */
SAME_TYPE(__typeof__(&ncclGetUniqueId), ncclResult_t (*)(ncclUniqueId *));
SAME_TYPE(wk_ncclGetUniqueId_fn, wk_ncclResult_t (*)(wk_ncclUniqueId *));
SAME_TYPE(__typeof__(&ncclCommInitRankConfig), ncclResult_t (*)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *));
SAME_TYPE(wk_ncclCommInitRankConfig_fn,
          wk_ncclResult_t (*)(wk_ncclComm_t *, int, wk_ncclUniqueId, int, wk_ncclConfig_t *));
SAME_FIELD(wk_ncclUniqueId, ncclUniqueId, internal);
SAME_TYPE(__typeof__(&ncclCommSplit), ncclResult_t (*)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *));
SAME_TYPE(wk_ncclCommSplit_fn, wk_ncclResult_t (*)(wk_ncclComm_t, int, int, wk_ncclComm_t *, wk_ncclConfig_t *));
SAME_FN(ncclCommFinalize);
SAME_FN(ncclCommDestroy);
SAME_FN(ncclCommAbort);
SAME_FN(ncclCommGetAsyncError);
SAME_FN(ncclGetErrorString);
SAME_FN(ncclGetLastError);
SAME_FN(ncclAllReduce);
SAME_FN(ncclBroadcast);
SAME_FN(ncclReduce);
SAME_FN(ncclAllGather);
SAME_FN(ncclReduceScatter);
SAME_FN(ncclSend);
SAME_FN(ncclRecv);
SAME_FN(ncclGroupStart);
SAME_FN(ncclGroupEnd);

int main(void) { return initializer.magic == WK_NCCL_CONFIG_MAGIC ? 0 : 1; }

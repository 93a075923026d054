/* nccl_lib.c: NCCL (NVIDIA) and RCCL (AMD) loaded at run time (nccl_lib.h): their symbols, checked versions. */
#include <stdio.h>

#include "gpu/nccl_lib.h"
#include "gpu/vendor_lib.h"

static nccl_fns fns[2];
static char version[2][48]; /* "NCCL 2.28.9", written by the library's check, once */

#define NCCL_SYMS(i)                                                                                              \
    {                                                                                                             \
        {"ncclGetVersion", &fns[i].get_version, false}, {"ncclGetUniqueId", &fns[i].get_unique_id, false},        \
        {"ncclCommInitRankConfig", &fns[i].init_rank_config, false},                                              \
        {"ncclCommFinalize", &fns[i].finalize, false}, {"ncclCommDestroy", &fns[i].destroy, false},               \
        {"ncclCommAbort", &fns[i].abort, false}, {"ncclCommGetAsyncError", &fns[i].async_error, false},           \
        {"ncclCommSplit", &fns[i].split, true},                                                                   \
        {"ncclGetErrorString", &fns[i].error_string, false}, {"ncclGetLastError", &fns[i].last_error, true},      \
        {"ncclAllReduce", &fns[i].all_reduce, false}, {"ncclBroadcast", &fns[i].broadcast, false},                \
        {"ncclReduce", &fns[i].reduce, false}, {"ncclAllGather", &fns[i].all_gather, false},                      \
        {"ncclReduceScatter", &fns[i].reduce_scatter, false}, {"ncclSend", &fns[i].send, false},                  \
        {"ncclRecv", &fns[i].recv, false}, {"ncclGroupStart", &fns[i].group_start, false},                        \
        {"ncclGroupEnd", &fns[i].group_end, false},                                                               \
    }
static const wk_gpu_sym nccl_syms[] = NCCL_SYMS(LIB_NCCL);
static const wk_gpu_sym rccl_syms[] = NCCL_SYMS(LIB_RCCL);

/* The version as text; NCCL codes it as X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z since. */
static bool check_version(int lib, const char *name, char *error, size_t cap)
{
    int v = 0;
    if (fns[lib].get_version(&v) != WK_NCCL_SUCCESS)
        v = 0;
    int major = v >= 10000 ? v / 10000 : v / 1000, minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
    snprintf(version[lib], sizeof version[lib], "%s %d.%d.%d", name, major, minor, v % 100);
    if (major > 2 || (major == 2 && minor >= 14))
        return true;
    snprintf(error, cap, "%s is too old (2.14 or newer is needed: non-blocking communicators)", version[lib]);
    return false;
}
static bool check_nccl(char *error, size_t cap) { return check_version(LIB_NCCL, "NCCL", error, cap); }
static bool check_rccl(char *error, size_t cap) { return check_version(LIB_RCCL, "RCCL", error, cap); }

static const char *const nccl_names[] = {"libnccl.so.2", "libnccl.so", NULL};
static const char *const rccl_names[] = {"librccl.so.1", "librccl.so", NULL};
static wk_gpu_lib libs[2] = {
    {.name = "NCCL", .env = "WICK_NCCL_LIBRARY", .names = nccl_names, .syms = nccl_syms,
     .nsyms = sizeof nccl_syms / sizeof nccl_syms[0], .needs = "NCCL 2.14 or newer", .check = check_nccl,
     WK_GPU_LIB_STATE},
    {.name = "RCCL", .env = "WICK_RCCL_LIBRARY", .names = rccl_names, .syms = rccl_syms,
     .nsyms = sizeof rccl_syms / sizeof rccl_syms[0], .needs = "RCCL 2.14 or newer", .check = check_rccl,
     WK_GPU_LIB_STATE},
};

int nccl_lib_index(const wk_device *dev)
{
    return ((const wk_gpu_dev *)dev->impl)->rt == &wk_cuda_runtime ? LIB_NCCL : LIB_RCCL;
}

wk_status nccl_load(const char *op, int lib)
{
    const char *why = NULL;
    if (!wk_gpu_lib_load(&libs[lib], &why))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: %s", op, why);
    return WK_OK;
}

const nccl_fns *nccl_fns_of(int lib) { return &fns[lib]; }
const char *nccl_lib_name(int lib) { return libs[lib].name; }
const char *nccl_lib_version(int lib) { return version[lib]; }

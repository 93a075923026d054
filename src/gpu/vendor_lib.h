/* vendor_lib.h: what the vendor libraries' files (cublas.c, rocblas.c, cudnn.c, miopen.c) share: finding a
 * library and resolving its symbols from a table, once per process, and one handle per device made on first
 * use, with a per-device lock for the libraries whose handles serve one thread at a time. */
#ifndef WK_GPU_VENDOR_LIB_H
#define WK_GPU_VENDOR_LIB_H

#include <pthread.h>
#include <stdatomic.h>

#include "gpu/gpu.h"

/* A symbol and the function pointer it goes into; an optional one may be missing (the pointer stays NULL). */
typedef struct wk_gpu_sym {
    const char *name;
    void *slot;
    bool optional;
} wk_gpu_sym;

#define WK_GPU_LIB_STREAM_HANDLES 64

typedef struct wk_gpu_lib {
    const char *name;         /* "cuBLAS", for messages */
    const char *env;          /* "WICK_CUBLAS_LIBRARY": a path tried instead of the names */
    const char *const *names; /* sonames tried in order, NULL-terminated */
    const wk_gpu_sym *syms;
    int nsyms;
    const char *needs; /* "cuBLAS 11 or newer": what a missing symbol means */
    /* After the symbols resolve, may refuse the library (a version too old) with the reason; may be NULL. */
    bool (*check)(char *error, size_t cap);
    /* Makes and configures a handle of d bound to `stream`; on failure returns false with the failing call's name
     * and the library's text for its status (a half-made handle destroyed). */
    bool (*create)(wk_gpu_dev *d, void *stream, void **handle, const char **call, const char **text);
    /* State: zero, but for the locks WK_GPU_LIB_STATE sets. */
    pthread_mutex_t load_lock, make_lock;
    atomic_bool loaded;
    char error[512]; /* why the library is not usable; "" once loaded */
    pthread_mutex_t use_lock[WK_GPU_MAX_DEVICES];
    _Atomic(void *) handle[WK_GPU_MAX_DEVICES]; /* each device's default stream's */
    /* Handles for the API's other streams (wick.h "streams"), made on first use there and kept: a stream's own
     * handle keeps its workspace apart from other streams' and lets a capture use it. */
    struct wk_gpu_lib_stream {
        void *stream, *handle;
        int ordinal;
    } on_stream[WK_GPU_LIB_STREAM_HANDLES];
    atomic_int on_stream_count;
} wk_gpu_lib;
#define WK_GPU_LIB_STATE .load_lock = PTHREAD_MUTEX_INITIALIZER, .make_lock = PTHREAD_MUTEX_INITIALIZER

/* Loads the library and resolves its symbols, once per process; false with the reason in *why (which outlives
 * the call) when it is absent or refused. Thread-safe. For libraries without per-device handles (NCCL). */
bool wk_gpu_lib_load(wk_gpu_lib *l, const char **why);
/* d's handle for the calling thread's current stream of d (d's context current on this thread: the libraries bind
 * handles to the current device), made once per device and stream and kept for the process; NULL with the reason in *why (which outlives the call) when the library is
 * absent or refuses. Thread-safe. */
void *wk_gpu_lib_handle(wk_gpu_lib *l, wk_gpu_dev *d, const char **why);
/* Whether the library serves d: loaded, with d's handle made; else false with the reason in *why (may be NULL). */
bool wk_gpu_lib_serves(wk_gpu_lib *l, wk_gpu_dev *d, const char **why);
/* The lock around uses of d's handle, for libraries whose handles must not serve two threads at once (cuDNN,
 * MIOpen, rocBLAS). Valid once wk_gpu_lib_handle has returned d's handle. */
pthread_mutex_t *wk_gpu_lib_lock(wk_gpu_lib *l, wk_gpu_dev *d);

#endif

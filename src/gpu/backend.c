/* backend.c: the vendor-neutral GPU backend: devices, stream-ordered memory, the fault record, kernel lookup
 * by name and launch, layouts, and the backend table that binds a vendor runtime (runtime.h) to the slots. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/runtime.h"

#define MAX_IMAGES 32
/* Small-block cache: size classes of 2^8 .. 2^20 bytes, a few blocks each. */
#define CACHE_MIN_SHIFT 8
#define CACHE_CLASSES 13
#define CACHE_DEPTH 32

typedef struct fn_entry {
    char *name;
    wk_gpu_handle fn;
} fn_entry;

struct wk_gpu_dev {
    wk_device base; /* base.impl points back here */
    const wk_gpu_runtime *rt;
    int ordinal;
    wk_gpu_props props;
    int lanes; /* the logical warp width the width-dependent kernels run at (pick_lanes) */
    wk_gpu_handle ctx, stream;
    wk_gpu_handle modules[MAX_IMAGES];
    int module_count;
    int *fault; /* device address of the fault record (wk_gpu_fault_rec, layout.h) */
    pthread_mutex_t lock; /* guards the function table */
    fn_entry *fns;        /* open addressing, power-of-two capacity */
    size_t fn_cap, fn_count;
    bool fns_complete;    /* every module's kernels were listed: a miss needs no module lookups */
    /* Freed tensor storage of small sizes, reused without a driver call (see gpu_alloc). */
    pthread_mutex_t cache_lock;
    void *cache[CACHE_CLASSES][CACHE_DEPTH];
    int cache_count[CACHE_CLASSES];
};

/* Per vendor: its devices, opened on first use and kept for the process. */
typedef struct vendor_state {
    const wk_gpu_runtime *rt;
    const wk_backend *backend;
    pthread_mutex_t lock;
    wk_gpu_dev *devs[WK_GPU_MAX_DEVICES];
    bool probed;
    wk_status probe_status;
    int device_count;
    char detail[640];
} vendor_state;

/* ---------------------------------------------------------------- small accessors */
/* The context this thread last made current, so that enter() switches only on a change. Opening a device
 * makes its context current too, and dev_open records that here. */
static _Thread_local wk_gpu_handle current;

/* Makes the device's context current on the calling thread (once per thread and device switch). */
static wk_gpu_dev *enter(wk_device *dev)
{
    wk_gpu_dev *d = dev->impl;
    if (current != d->ctx && d->rt->make_current(d->ctx) == WK_OK)
        current = d->ctx;
    return d;
}

wk_gpu_dev *wk_gpu_dev_of(const wk_tensor *t) { return enter(t->storage->device); }

int wk_gpu_logical_warp(const wk_gpu_dev *d) { return d->lanes; }
const char *wk_gpu_width_sfx(const wk_gpu_dev *d) { return d->lanes == d->props.warp_size ? "" : "_w64"; }
int wk_gpu_sm_count(const wk_gpu_dev *d) { return d->props.sm_count; }
const char *wk_gpu_dev_name(const wk_gpu_dev *d) { return d->base.name; }
int wk_gpu_ordinal(const wk_gpu_dev *d) { return d->ordinal; }
void *wk_gpu_stream(const wk_gpu_dev *d) { return d->stream; }
void *wk_gpu_fault_record(const wk_gpu_dev *d) { return d->fault; }

const char *wk_gpu_sfx(wk_dtype dt)
{
    static const char *const names[WK_DTYPE_COUNT] = {"u8", "u32", "i32", "i64", "f16", "bf16", "f32", "f64"};
    return (unsigned)dt < WK_DTYPE_COUNT ? names[dt] : "invalid";
}

/* Grid-stride kernels get at most this many waves of full occupancy (2048 resident threads per
 * multiprocessor): enough to keep every SM busy while a loop amortises block start-up.
 * WICK_GPU_GRID_WAVES overrides it (a tuning knob for benchmarks). */
static int64_t grid_waves(void)
{
    static int64_t waves = 0;
    if (waves == 0) {
        const char *v = getenv("WICK_GPU_GRID_WAVES");
        long long w = v ? atoll(v) : 0;
        waves = w > 0 ? w : 32;
    }
    return waves;
}

unsigned wk_gpu_blocks(const wk_gpu_dev *d, int64_t n, unsigned threads)
{
    int64_t need = (n + threads - 1) / threads;
    int64_t cap = (int64_t)d->props.sm_count * (2048 / threads) * grid_waves();
    if (cap > 0x7fffffff)
        cap = 0x7fffffff;
    if (cap < 1)
        cap = 1;
    if (need > cap)
        need = cap;
    return need < 1 ? 1u : (unsigned)need;
}

/* s = ceil(log2 d), m = floor(2^32 * (2^s - d) / d) + 1. */
void wk_gpu_div_magic(int64_t d, uint32_t *m, uint32_t *s)
{
    uint32_t sh = 0;
    while (((uint64_t)1 << sh) < (uint64_t)d)
        sh++;
    *s = sh;
    *m = (uint32_t)(((((uint64_t)1 << 32) * (((uint64_t)1 << sh) - (uint64_t)d)) / (uint64_t)d) + 1);
}

wk_gpu_layout wk_gpu_layout_make(int rank, const int64_t *shape, const int64_t *strides)
{
    wk_gpu_layout L;
    memset(&L, 0, sizeof L);
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 1)
            continue;
        if (r > 0 && L.stride[r - 1] == strides[i] * shape[i]) {
            L.shape[r - 1] *= shape[i];
            L.stride[r - 1] = strides[i];
            continue;
        }
        L.shape[r] = shape[i];
        L.stride[r] = strides[i];
        r++;
    }
    L.rank = r;
    L.contiguous = r == 0 || (r == 1 && L.stride[0] == 1);
    return L;
}

wk_gpu_layout wk_gpu_layout_of(const wk_tensor *t) { return wk_gpu_layout_make(t->rank, t->shape, t->strides); }

/* ---------------------------------------------------------------- memory */
wk_status wk_gpu_malloc(wk_gpu_dev *d, size_t bytes, void **ptr)
{
    if (bytes == 0) {
        *ptr = NULL;
        return WK_OK;
    }
    return d->rt->alloc_async(d->ordinal, d->stream, bytes, ptr);
}

void wk_gpu_free(wk_gpu_dev *d, void *ptr)
{
    if (ptr)
        d->rt->free_async(d->stream, ptr);
}

wk_status wk_gpu_memset(wk_gpu_dev *d, void *ptr, int byte, size_t bytes)
{
    return bytes ? d->rt->memset8(d->stream, ptr, byte, bytes) : WK_OK;
}

wk_status wk_gpu_copy_d2d(wk_gpu_dev *d, void *dst, const void *src, size_t bytes)
{
    return bytes ? d->rt->copy_d2d(d->stream, dst, src, bytes) : WK_OK;
}

/* Size class of a small allocation, or -1. Tiny ops allocate and free an output per call: reusing
 * freed blocks of the same class on the same stream skips the driver (stream order keeps it safe: a
 * block is reused only by work queued after the work that last used it). */
static int cache_class(size_t bytes)
{
    if (bytes == 0 || bytes > ((size_t)1 << (CACHE_MIN_SHIFT + CACHE_CLASSES - 1)))
        return -1;
    int c = 0;
    while (((size_t)1 << (CACHE_MIN_SHIFT + c)) < bytes)
        c++;
    return c;
}

/* Gives every cached block back to the pool (on out of memory, so the driver can reuse it). */
static void cache_release(wk_gpu_dev *d)
{
    pthread_mutex_lock(&d->cache_lock);
    for (int c = 0; c < CACHE_CLASSES; c++)
        while (d->cache_count[c] > 0)
            wk_gpu_free(d, d->cache[c][--d->cache_count[c]]);
    pthread_mutex_unlock(&d->cache_lock);
}

static wk_status gpu_alloc(wk_device *dev, size_t bytes, void **ptr)
{
    wk_gpu_dev *d = enter(dev);
    int c = cache_class(bytes);
    wk_status s = WK_OK;
    *ptr = NULL;
    if (c >= 0) {
        pthread_mutex_lock(&d->cache_lock);
        if (d->cache_count[c] > 0)
            *ptr = d->cache[c][--d->cache_count[c]];
        pthread_mutex_unlock(&d->cache_lock);
    }
    if (!*ptr) {
        size_t size = c >= 0 ? (size_t)1 << (CACHE_MIN_SHIFT + c) : bytes;
        s = wk_gpu_malloc(d, size, ptr);
        if (s == WK_ERR_OUT_OF_MEMORY) {
            cache_release(d);
            s = wk_gpu_malloc(d, size, ptr);
        }
    }
    /* WICK_POISON=1: fresh memory is all ones (NaN for floats) so a test sees unwritten elements. */
    if (s == WK_OK && bytes) {
        static int poison = -1;
        if (poison < 0) {
            const char *v = getenv("WICK_POISON");
            poison = v && *v && strcmp(v, "0") != 0;
        }
        if (poison && (s = wk_gpu_memset(d, *ptr, 0xff, bytes)) != WK_OK)
            wk_gpu_free(d, *ptr);
    }
    return s;
}

static void gpu_free(wk_device *dev, void *ptr, size_t bytes)
{
    wk_gpu_dev *d = enter(dev);
    int c = cache_class(bytes);
    if (ptr && c >= 0) {
        pthread_mutex_lock(&d->cache_lock);
        bool kept = d->cache_count[c] < CACHE_DEPTH;
        if (kept)
            d->cache[c][d->cache_count[c]++] = ptr;
        pthread_mutex_unlock(&d->cache_lock);
        if (kept)
            return;
    }
    wk_gpu_free(d, ptr);
}

static wk_status gpu_upload(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    wk_gpu_dev *d = enter(dev);
    return bytes ? d->rt->copy_h2d(d->stream, dst, src, bytes) : WK_OK;
}

static const char *fault_op(int code)
{
    switch (code) {
    case WK_GPU_FAULT_INDEX_SELECT: return "index_select";
    case WK_GPU_FAULT_GATHER: return "gather";
    case WK_GPU_FAULT_SCATTER: return "scatter";
    case WK_GPU_FAULT_SCATTER_ADD: return "scatter_add";
    case WK_GPU_FAULT_INDEX_ADD: return "index_add";
    }
    return "an indexing op";
}

/* Waits for the stream, then turns a fault recorded by a kernel into a status naming the op and the index. */
static wk_status sync_and_check(wk_gpu_dev *d)
{
    wk_gpu_fault_rec fault = {0, 0, 0};
    WK_TRY(d->rt->copy_d2h(d->stream, &fault, d->fault, sizeof fault));
    WK_TRY(d->rt->stream_sync(d->stream));
    if (fault.code == WK_GPU_FAULT_NONE)
        return WK_OK;
    WK_TRY(d->rt->memset8(d->stream, d->fault, 0, sizeof fault));
    return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: index %lld is outside [0, size) on %s (found on the device, "
                    "reported at the next synchronisation; the op wrote nothing for it)", fault_op(fault.code),
                    (long long)fault.value, d->base.name);
}

static wk_status gpu_download(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    wk_gpu_dev *d = enter(dev);
    if (bytes)
        WK_TRY(d->rt->copy_d2h(d->stream, dst, src, bytes));
    return sync_and_check(d);
}

static wk_status gpu_sync(wk_device *dev) { return sync_and_check(enter(dev)); }

/* ---------------------------------------------------------------- kernels by name */
static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static wk_status fn_insert(wk_gpu_dev *d, char *name, wk_gpu_handle fn)
{
    if ((d->fn_count + 1) * 2 > d->fn_cap) {
        size_t cap = d->fn_cap ? d->fn_cap * 2 : 256;
        fn_entry *t = calloc(cap, sizeof *t);
        if (!t)
            return wk_error(WK_ERR_OUT_OF_MEMORY, "kernel table: out of host memory");
        for (size_t i = 0; i < d->fn_cap; i++) {
            if (!d->fns[i].name)
                continue;
            size_t j = hash_name(d->fns[i].name) & (cap - 1);
            while (t[j].name)
                j = (j + 1) & (cap - 1);
            t[j] = d->fns[i];
        }
        free(d->fns);
        d->fns = t;
        d->fn_cap = cap;
    }
    size_t j = hash_name(name) & (d->fn_cap - 1);
    while (d->fns[j].name)
        j = (j + 1) & (d->fn_cap - 1);
    d->fns[j].name = name;
    d->fns[j].fn = fn;
    d->fn_count++;
    return WK_OK;
}

static wk_gpu_handle table_get(const wk_gpu_dev *d, const char *name)
{
    if (d->fn_cap == 0)
        return NULL;
    for (size_t j = hash_name(name) & (d->fn_cap - 1); d->fns[j].name; j = (j + 1) & (d->fn_cap - 1))
        if (strcmp(d->fns[j].name, name) == 0)
            return d->fns[j].fn;
    return NULL;
}

static wk_status find_function(wk_gpu_dev *d, const char *name, wk_gpu_handle *out)
{
    wk_status s = WK_OK;
    /* A table filled from the modules' own lists at open is never written again: read it unlocked. */
    if (d->fns_complete) {
        *out = table_get(d, name);
        return *out ? WK_OK
                    : wk_error(WK_ERR_UNSUPPORTED, "kernel %s: not in this build's %s kernels (a wick bug: please "
                               "report)", name, d->rt->backend);
    }
    pthread_mutex_lock(&d->lock);
    if ((*out = table_get(d, name)) != NULL) {
        pthread_mutex_unlock(&d->lock);
        return WK_OK;
    }
    for (int m = 0; m < d->module_count && !*out && s == WK_OK && !d->fns_complete; m++)
        s = d->rt->function_get(d->modules[m], name, out);
    if (s == WK_OK && !*out)
        s = wk_error(WK_ERR_UNSUPPORTED, "kernel %s: not in this build's %s kernels (a wick bug: please report)",
                     name, d->rt->backend);
    if (s == WK_OK) {
        char *copy = strdup(name);
        s = copy ? fn_insert(d, copy, *out) : wk_error(WK_ERR_OUT_OF_MEMORY, "kernel table: out of host memory");
        if (s != WK_OK)
            free(copy);
    }
    pthread_mutex_unlock(&d->lock);
    return s;
}

wk_status wk_gpu_launch(wk_gpu_dev *d, const char *name, wk_gpu_dim grid, wk_gpu_dim block, unsigned smem,
                        void **args)
{
    wk_gpu_handle fn;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0)
        return WK_OK;
    WK_TRY(find_function(d, name, &fn));
    wk_status s = d->rt->launch(fn, grid, block, smem, d->stream, args);
    if (s != WK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        return wk_error(s, "kernel %s on %s (grid %u,%u,%u block %u,%u,%u): %s", name, d->base.name, grid.x, grid.y,
                        grid.z, block.x, block.y, block.z, msg);
    }
    return WK_OK;
}

/* ---------------------------------------------------------------- vendor libraries */
const wk_gpu_blas *wk_gpu_blas_of(wk_gpu_dev *d, const char **why)
{
    *why = "no BLAS library is wired for this vendor";
    return d->rt->blas ? d->rt->blas(d, why) : NULL;
}

const wk_gpu_dnn *wk_gpu_dnn_of(wk_gpu_dev *d, const char **why)
{
    *why = "no DNN library is wired for this vendor";
    return d->rt->dnn ? d->rt->dnn(d, why) : NULL;
}

/* ---------------------------------------------------------------- devices */
static void probe_locked(vendor_state *v)
{
    const wk_gpu_runtime *rt = v->rt;
    const char *why = NULL;
    v->probed = true;
    v->device_count = 0;
    v->probe_status = WK_ERR_DEVICE;
    if (rt->load(&why) != WK_OK) {
        snprintf(v->detail, sizeof v->detail, "%s", why);
        return;
    }
    int n = 0;
    wk_status s = rt->device_count(&n);
    if (s != WK_OK || n == 0) {
        snprintf(v->detail, sizeof v->detail, "%s loaded (driver %s) but it reports no %s device%s%s",
                 rt->vendor_lib, rt->driver_version(), rt->backend, s != WK_OK ? ": " : "",
                 s != WK_OK ? wk_last_error() : "");
        return;
    }
    if (*rt->image_count == 0) {
        snprintf(v->detail, sizeof v->detail, "%d device(s) found, but this build has no %s kernels (its compiler "
                 "was not found when wick was built)", n, rt->backend);
        return;
    }
    v->device_count = n;
    v->probe_status = WK_OK;
    const char *lw = getenv("WICK_GPU_LOGICAL_WARP");
    snprintf(v->detail, sizeof v->detail, "%d device(s), %s driver %s, kernels for %s%s%s%s", n, rt->vendor_lib,
             rt->driver_version(), rt->targets, lw && *lw ? "; WICK_GPU_LOGICAL_WARP=" : "", lw && *lw ? lw : "",
             lw && *lw ? " (logical warp width of the reductions)" : "");
}

static wk_status gpu_probe(vendor_state *v, wk_backend_info *info)
{
    pthread_mutex_lock(&v->lock);
    if (!v->probed)
        probe_locked(v);
    pthread_mutex_unlock(&v->lock);
    info->name = v->rt->backend;
    info->available = v->probe_status == WK_OK;
    info->device_count = v->device_count;
    info->detail = v->detail;
    return WK_OK;
}

static void dev_destroy(wk_gpu_dev *d)
{
    /* Contexts, streams and modules belong to the process once opened; only host memory is ours here. */
    for (size_t i = 0; i < d->fn_cap; i++)
        free(d->fns[i].name);
    free(d->fns);
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->cache_lock);
    free(d);
}

typedef struct list_ctx {
    wk_gpu_dev *d;
    wk_status status;
} list_ctx;

static void add_listed(void *ctx, const char *name, wk_gpu_handle fn)
{
    list_ctx *l = ctx;
    char *copy = l->status == WK_OK ? strdup(name) : NULL;
    if (l->status != WK_OK)
        return;
    l->status = copy ? fn_insert(l->d, copy, fn) : wk_error(WK_ERR_OUT_OF_MEMORY, "kernel table: out of host memory");
    if (l->status != WK_OK)
        free(copy);
}

/* Fills the kernel table from the modules' own lists where the driver can give them. */
static wk_status list_kernels(wk_gpu_dev *d)
{
    list_ctx l = {d, WK_OK};
    for (int m = 0; m < d->module_count && l.status == WK_OK; m++) {
        wk_status s = d->rt->list_functions ? d->rt->list_functions(d->modules[m], add_listed, &l) : WK_ERR_UNSUPPORTED;
        if (s == WK_ERR_UNSUPPORTED)
            return WK_OK; /* looked up one by one instead */
        if (s != WK_OK)
            return s;
    }
    d->fns_complete = l.status == WK_OK;
    return l.status;
}

/* The logical warp width of the width-dependent kernels (WK_WIDTHS in kernels/common.cuh): the device's own, or
 * 64 on a 32-wide device when WICK_GPU_LOGICAL_WARP=64 asks for it and the build has the _w64 kernels (NVIDIA
 * builds do): the wave64 logic then runs, and is tested, on an NVIDIA GPU. */
static wk_status pick_lanes(wk_gpu_dev *d)
{
    const char *v = getenv("WICK_GPU_LOGICAL_WARP");
    char *end = NULL;
    wk_gpu_handle fn;
    d->lanes = d->props.warp_size;
    if (!v || !*v || (strtol(v, &end, 10) == d->lanes && *end == '\0'))
        return WK_OK;
    if (strcmp(v, "64") == 0 && d->lanes == 32 && find_function(d, "reduce_finish_sum_f32_w64", &fn) == WK_OK) {
        d->lanes = 64;
        return WK_OK;
    }
    return wk_error(WK_ERR_DEVICE, "WICK_GPU_LOGICAL_WARP=%s: this device's warp is %d wide, and the only other "
                    "width is 64 on a 32-wide device with the wave64 test kernels (NVIDIA builds)", v, d->lanes);
}

/* The width the kernels were compiled for, and the one the GPU runs, against the width the device reports
 * (probe.cu). The width-dependent kernels are correct only at their own width, so a mismatch (an AMD build
 * made with -mwavefrontsize64, or a compiler without __AMDGCN_WAVEFRONT_SIZE guessing wrong: compat.h) refuses
 * the device instead of computing wrong sums. The fault record serves as the two ints of scratch. */
static wk_status check_width(wk_gpu_dev *d)
{
    int got[2] = {0, 0};
    void *args[] = {&d->fault};
    wk_gpu_dim one = {1, 1, 1};
    WK_TRY(wk_gpu_launch(d, "probe_wave_width", one, one, 0, args));
    WK_TRY(d->rt->copy_d2h(d->stream, got, d->fault, sizeof got));
    WK_TRY(d->rt->stream_sync(d->stream));
    WK_TRY(d->rt->memset8(d->stream, d->fault, 0, sizeof(wk_gpu_fault_rec)));
    if (got[0] != d->props.warp_size || got[1] != d->props.warp_size)
        return wk_error(WK_ERR_DEVICE, "its kernels were compiled for a warp of %d lanes and run at %d, but the "
                        "device reports %d (rebuild for this GPU's wavefront width)", got[0], got[1],
                        d->props.warp_size);
    return WK_OK;
}

static wk_status dev_open(vendor_state *v, int ordinal, wk_gpu_dev **out)
{
    const wk_gpu_runtime *rt = v->rt;
    wk_gpu_dev *d = calloc(1, sizeof *d);
    if (!d)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "device_get: out of host memory");
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->cache_lock, NULL);
    d->rt = rt;
    d->ordinal = ordinal;
    d->base.backend = v->backend;
    d->base.ordinal = ordinal;
    d->base.impl = d;
    snprintf(d->base.name, sizeof d->base.name, "%s:%d", rt->backend, ordinal);
    wk_status s = rt->device_open(ordinal, &d->props, &d->ctx, &d->stream);
    current = s == WK_OK ? d->ctx : NULL; /* device_open switched this thread's context (NULL: unknown) */
    for (int i = 0; s == WK_OK && i < *rt->image_count && i < MAX_IMAGES; i++)
        if ((s = rt->module_load(&rt->images[i], &d->modules[i])) == WK_OK)
            d->module_count++;
    if (s == WK_OK)
        s = list_kernels(d);
    if (s == WK_OK)
        s = pick_lanes(d);
    if (s == WK_OK)
        s = rt->alloc_async(ordinal, d->stream, sizeof(wk_gpu_fault_rec), (void **)&d->fault);
    if (s == WK_OK)
        s = rt->memset8(d->stream, d->fault, 0, sizeof(wk_gpu_fault_rec));
    if (s == WK_OK)
        s = check_width(d);
    if (s == WK_OK)
        s = rt->stream_sync(d->stream);
    if (s != WK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        dev_destroy(d);
        return wk_error(s, "device_get: %s:%d: %s", rt->backend, ordinal, msg);
    }
    *out = d;
    return WK_OK;
}

static wk_status gpu_device(vendor_state *v, int ordinal, wk_device **out)
{
    wk_backend_info info;
    gpu_probe(v, &info);
    if (!info.available)
        return wk_error(WK_ERR_DEVICE, "device_get: %s:%d: %s", v->rt->backend, ordinal, info.detail);
    if (ordinal < 0 || ordinal >= info.device_count || ordinal >= WK_GPU_MAX_DEVICES)
        return wk_error(WK_ERR_DEVICE, "device_get: %s:%d: %d device(s) found", v->rt->backend, ordinal,
                        info.device_count);
    wk_status s = WK_OK;
    pthread_mutex_lock(&v->lock);
    if (!v->devs[ordinal])
        s = dev_open(v, ordinal, &v->devs[ordinal]);
    pthread_mutex_unlock(&v->lock);
    if (s == WK_OK)
        *out = &v->devs[ordinal]->base;
    return s;
}

/* ---------------------------------------------------------------- backend tables */
/* The slots every GPU vendor shares; only probe and device differ (they pick the runtime). */
#define WK_GPU_SLOTS                                                                                              \
    .alloc = gpu_alloc, .free = gpu_free, .upload = gpu_upload, .download = gpu_download, .sync = gpu_sync,      \
    .fill = wk_gpu_fill, .arange = wk_gpu_arange, .rand_uniform = wk_gpu_rand_uniform,                           \
    .rand_normal = wk_gpu_rand_normal, .copy = wk_gpu_copy, .cast = wk_gpu_cast, .copy2d = wk_gpu_copy2d,       \
    .unary = wk_gpu_unary, .affine = wk_gpu_affine, .powf = wk_gpu_powf, .elu = wk_gpu_elu,                      \
    .clamp = wk_gpu_clamp, .binary = wk_gpu_binary, .compare = wk_gpu_compare, .where = wk_gpu_where,           \
    .reduce = wk_gpu_reduce, .arg_reduce = wk_gpu_arg_reduce, .softmax = wk_gpu_softmax,                         \
    .rms_norm = wk_gpu_rms_norm, .layer_norm = wk_gpu_layer_norm, .sort = wk_gpu_sort, .matmul = wk_gpu_matmul, \
    .conv = wk_gpu_conv, .pool2d = wk_gpu_pool2d, .upsample_nearest = wk_gpu_upsample_nearest,                   \
    .upsample_bilinear2d = wk_gpu_upsample_bilinear2d, .index_select = wk_gpu_index_select,                      \
    .gather = wk_gpu_gather, .scatter = wk_gpu_scatter, .index_add = wk_gpu_index_add, .rope = wk_gpu_rope

static vendor_state cuda_state = {.rt = &wk_cuda_runtime, .backend = &wk_cuda_backend,
                                  .lock = PTHREAD_MUTEX_INITIALIZER};
static wk_status cuda_probe(wk_backend_info *info) { return gpu_probe(&cuda_state, info); }
static wk_status cuda_device(int ordinal, wk_device **out) { return gpu_device(&cuda_state, ordinal, out); }

const wk_backend wk_cuda_backend = {.name = "cuda", .probe = cuda_probe, .device = cuda_device, WK_GPU_SLOTS};

static vendor_state rocm_state = {.rt = &wk_hip_runtime, .backend = &wk_rocm_backend,
                                  .lock = PTHREAD_MUTEX_INITIALIZER};
static wk_status rocm_probe(wk_backend_info *info) { return gpu_probe(&rocm_state, info); }
static wk_status rocm_device(int ordinal, wk_device **out) { return gpu_device(&rocm_state, ordinal, out); }

const wk_backend wk_rocm_backend = {.name = "rocm", .probe = rocm_probe, .device = rocm_device, WK_GPU_SLOTS};

/* launch.c: the kernel table generated from kernels/families.h (every set's entry-point names and parameter
 * size), the per-device cache of entry points, kernel launch, and launch geometry (grid sizes, divisors). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numerics.h"
#include "gpu/device.h"

/* ---------------------------------------------------------------- the table, from the one list */
typedef struct kernel_name {
    const char *name;
    bool built;
} kernel_name;

/* The names of a set's variants in slot order (a, b, w), each marked built or not (entries.h). */
#define NAME_W_(sw, LW, set, sa, sb, ok) {WK_STR(set##sa##sb##sw), ok},
#define NAME_WN_(sw, LW, set, sa, sb, ok) {WK_STR(set##sa##sb##sw), false},
#define NAME_B_(sb, Tb, set, W, sa, ok) WK_WX_##W(NAME_W_, NAME_WN_, set, sa, sb, ok)
#define NAME_BN_(sb, Tb, set, W, sa, ok) WK_WX_##W(NAME_W_, NAME_WN_, set, sa, sb, false)
#define NAME_A_(sa, Ta, set, B, W) WK_BX_##B(NAME_B_, NAME_BN_, set, W, sa, true)
#define NAME_AN_(sa, Ta, set, B, W) WK_BX_##B(NAME_B_, NAME_BN_, set, W, sa, false)
#define SET_NAMES_(fam, set, P, A, B, W, ATTR)                                                                    \
    static const kernel_name names_##set[] = {WK_AX_##A(NAME_A_, NAME_AN_, set, B, W)};                         \
    _Static_assert(sizeof names_##set / sizeof names_##set[0] ==                                                 \
                       WK_AXIS_LEN(WK_AX_##A) * WK_AXIS_LEN(WK_BX_##B) * WK_AXIS_LEN(WK_WX_##W),                \
                   "kernel set " #set ": names do not match its axes");
WK_GPU_KERNEL_SETS(SET_NAMES_)

typedef struct kernel_set {
    const char *name, *family; /* "pool_max", "pool" (its module: kernels/pool.cu) */
    size_t args_size;
    int len[3]; /* slots on axes A, B, W */
    const kernel_name *names;
} kernel_set;

#define SET_INFO_(fam, set, P, A, B, W, ATTR)                                                                     \
    {#set, #fam, sizeof(P), {WK_AXIS_LEN(WK_AX_##A), WK_AXIS_LEN(WK_BX_##B), WK_AXIS_LEN(WK_WX_##W)}, names_##set},
static const kernel_set sets[WK_KS_COUNT] = {WK_GPU_KERNEL_SETS(SET_INFO_)};

/* Where each set's slots start in a device's cache, and their total. */
static size_t set_start[WK_KS_COUNT + 1];
static pthread_once_t starts_once = PTHREAD_ONCE_INIT;

static void compute_starts(void)
{
    for (int k = 0; k < WK_KS_COUNT; k++)
        set_start[k + 1] = set_start[k] + (size_t)(sets[k].len[0] * sets[k].len[1] * sets[k].len[2]);
}

/* The variant's index within its set, or -1 when a slot is outside its axis. */
static int slot_of(const kernel_set *s, int a, int b, int w)
{
    if (a < 0 || b < 0 || w < 0 || a >= s->len[0] || b >= s->len[1] || w >= s->len[2])
        return -1;
    return (a * s->len[1] + b) * s->len[2] + w;
}

/* The variant's index within its set, its entry point's name, and WK_OK when the set's list builds it. */
static wk_status variant_of(wk_gpu_kset set, int a, int b, int w, const char **name, int *slot)
{
    *name = NULL;
    *slot = -1;
    if ((unsigned)set >= WK_KS_COUNT)
        return wk_error(WK_ERR_INTERNAL, "kernel set %d: no such set (a wick bug: please report)", (int)set);
    const kernel_set *s = &sets[set];
    *slot = slot_of(s, a, b, w);
    if (*slot < 0)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: no kernel for variant (%d, %d, %d): its axes have %d x %d x %d "
                        "(kernels/%s.h)", s->name, a, b, w, s->len[0], s->len[1], s->len[2], s->family);
    *name = s->names[*slot].name;
    if (!s->names[*slot].built)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: kernels/%s.h builds no %s kernel (that dtype or variant is not "
                        "served by this op's GPU kernels)", s->name, s->family, *name);
    return WK_OK;
}

wk_status wk_gpu_kernel_name(wk_gpu_kset set, int a, int b, int w, const char **name)
{
    int slot;
    return variant_of(set, a, b, w, name, &slot);
}

/* ---------------------------------------------------------------- per device: entry points found so far */
struct wk_gpu_kernel_cache {
    _Atomic(wk_gpu_handle) *fns; /* set_start[k] + slot */
};

wk_status wk_gpu_kernel_cache_create(wk_gpu_kernel_cache **out)
{
    pthread_once(&starts_once, compute_starts);
    wk_gpu_kernel_cache *c = calloc(1, sizeof *c);
    if (c)
        c->fns = calloc(set_start[WK_KS_COUNT], sizeof *c->fns);
    if (!c || !c->fns) {
        free(c);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "kernel table: out of host memory");
    }
    *out = c;
    return WK_OK;
}

void wk_gpu_kernel_cache_destroy(wk_gpu_kernel_cache *c)
{
    if (c)
        free(c->fns);
    free(c);
}

/* The entry point `name` of set s in the module of its family (kernels/<family>.cu). Two threads may both
 * look it up; both store the same handle. */
static wk_status resolve(wk_gpu_dev *d, const kernel_set *s, const char *name, wk_gpu_handle *fn)
{
    *fn = NULL;
    for (int m = 0; m < d->module_count; m++)
        if (strcmp(d->rt->images[m].name, s->family) == 0)
            WK_TRY(d->rt->function_get(d->modules[m], name, fn));
    if (!*fn)
        return wk_error(WK_ERR_UNSUPPORTED, "kernel %s: not in this build's %s kernels (kernels/%s.cu; a wick bug: "
                        "please report)", name, d->rt->backend, s->family);
    return WK_OK;
}

/* The handle of a built variant's entry point (slot within set), found once per device. */
static wk_status entry_point(wk_gpu_dev *d, wk_gpu_kset set, int slot, const char *name, wk_gpu_handle *fn)
{
    _Atomic(wk_gpu_handle) *cached = &d->kernels->fns[set_start[set] + (size_t)slot];
    *fn = atomic_load_explicit(cached, memory_order_acquire);
    if (!*fn) {
        WK_TRY(resolve(d, &sets[set], name, fn));
        atomic_store_explicit(cached, *fn, memory_order_release);
    }
    return WK_OK;
}

bool wk_gpu_kernel_present(wk_gpu_dev *d, wk_gpu_kset set, int a, int b, int w)
{
    const char *name;
    int slot;
    wk_gpu_handle fn;
    return variant_of(set, a, b, w, &name, &slot) == WK_OK && entry_point(d, set, slot, name, &fn) == WK_OK;
}

wk_status wk_gpu_launch(wk_gpu_dev *d, wk_gpu_kset set, int a, int b, int w, wk_gpu_dim grid, wk_gpu_dim block,
                        unsigned smem, const void *args, size_t args_size)
{
    const char *name;
    int slot;
    wk_gpu_handle fn;
    WK_TRY(variant_of(set, a, b, w, &name, &slot));
    if (args_size != sets[set].args_size)
        return wk_error(WK_ERR_INTERNAL, "kernel %s takes %zu bytes of arguments, given %zu (a wick bug: please "
                        "report)", name, sets[set].args_size, args_size);
    if (grid.x == 0 || grid.y == 0 || grid.z == 0)
        return WK_OK;
    WK_TRY(entry_point(d, set, slot, name, &fn));
    void *params[1] = {(void *)args};
    unsigned flags = d->overlap ? WK_GPU_LAUNCH_OVERLAP : 0;
    wk_status st = d->rt->launch(fn, grid, block, smem, wk_gpu_stream(d), params, flags);
    if (st != WK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        return wk_error(st, "kernel %s on %s (grid %u,%u,%u block %u,%u,%u): %s", name, d->base.name, grid.x, grid.y,
                        grid.z, block.x, block.y, block.z, msg);
    }
    return WK_OK;
}

/* ---------------------------------------------------------------- launch geometry */
/* Grid-stride kernels get at most this many waves of full occupancy (2048 resident threads per
 * multiprocessor): enough to keep every SM busy while a loop amortises block start-up.
 * WICK_GPU_GRID_WAVES overrides it (a tuning knob for benchmarks). */
static int64_t waves;
static pthread_once_t waves_once = PTHREAD_ONCE_INIT;

static void waves_init(void)
{
    const char *v = getenv("WICK_GPU_GRID_WAVES");
    long long n = v ? atoll(v) : 0;
    waves = n > 0 ? n : 32;
}

/* Read once, by whichever thread launches first (several may at once). */
static int64_t grid_waves(void)
{
    pthread_once(&waves_once, waves_init);
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

wk_gpu_layout wk_gpu_layout_make(int rank, const int64_t *shape, const int64_t *strides)
{
    wk_gpu_layout L;
    memset(&L, 0, sizeof L);
    for (int i = 0; i < rank; i++) {
        L.shape[i] = shape[i];
        L.stride[i] = strides[i];
    }
    L.rank = wk_merge_dims(rank, L.shape, L.stride);
    for (int i = L.rank; i < rank; i++)
        L.shape[i] = L.stride[i] = 0;
    L.contiguous = L.rank == 0 || (L.rank == 1 && L.stride[0] == 1);
    return L;
}

wk_gpu_layout wk_gpu_layout_of(const wk_tensor *t) { return wk_gpu_layout_make(t->rank, t->shape, t->strides); }

bool wk_gpu_vec16(const wk_tensor *t)
{
    int64_t vw = 16 / (int64_t)wk_dtype_size(t->dtype), last = t->rank - 1;
    bool ok = t->rank > 0 && t->strides[last] == 1 && t->shape[last] % vw == 0 &&
              (uintptr_t)wk_tensor_data(t) % 16 == 0;
    for (int64_t i = 0; ok && i < last; i++)
        ok = t->strides[i] % vw == 0;
    return ok;
}

/* s = ceil(log2 d), m = floor(2^32 * (2^s - d) / d) + 1. */
wk_gpu_divisor wk_gpu_divisor_of(int64_t d)
{
    uint32_t sh = 0;
    while (((uint64_t)1 << sh) < (uint64_t)d)
        sh++;
    wk_gpu_divisor r = {(uint32_t)(((((uint64_t)1 << 32) * (((uint64_t)1 << sh) - (uint64_t)d)) / (uint64_t)d) + 1),
                        sh};
    return r;
}

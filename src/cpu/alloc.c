/* alloc.c: the CPU's allocations: 64-byte aligned (2 MiB for large ones, so transparent huge pages can back them),
 * with a cache of freed large blocks that later allocations of about the same size reuse, so that a model's
 * step-by-step temporaries do not have the kernel fault in and zero fresh pages every time. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/error.h"
#include "cpu/cpu.h"

/* WICK_POISON=1 fills new allocations with 0xff bytes (NaN for every float dtype, all ones for ints)
 * so a test sees any element an op forgot to write. Read once, by whichever thread allocates first. */
static bool poison;
static pthread_once_t poison_once = PTHREAD_ONCE_INIT;

static void poison_init(void)
{
    const char *v = getenv("WICK_POISON");
    poison = v && *v && strcmp(v, "0") != 0;
}

static bool poison_enabled(void)
{
    pthread_once(&poison_once, poison_init);
    return poison;
}

/* ---- the cache: blocks of at least CACHE_MIN bytes, reused for a request they exceed by at most 1/8. Off under
 * the sanitizers and the allocation-failure sweep (a reused block would hide a use after free, and an
 * allocation the sweep must fail); WICK_CPU_CACHE_MB sets its size (default 1024; 0: off). */
#define CACHE_MIN ((size_t)1 << 20)
#define CACHE_SLOTS 64
#if defined(__SANITIZE_ADDRESS__) || defined(WICK_FAULT_INJECTION)
#define CACHE_DEFAULT_MB 0
#else
#define CACHE_DEFAULT_MB 1024
#endif

static struct {
    pthread_mutex_t lock;
    pthread_once_t once;
    size_t limit, held;
    int n;
    struct { void *p; size_t bytes; } slot[CACHE_SLOTS];
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT};

static void cache_init(void)
{
    const char *v = getenv("WICK_CPU_CACHE_MB");
    char *end = NULL;
    long long mb = v && *v ? strtoll(v, &end, 10) : CACHE_DEFAULT_MB;
    if (v && *v && (*end != '\0' || mb < 0))
        mb = CACHE_DEFAULT_MB; /* not a number: the default */
    cache.limit = (size_t)mb << 20;
}

/* A cached block of `bytes` to `bytes` + 1/8, or NULL. */
static void *cache_take(size_t bytes)
{
    pthread_once(&cache.once, cache_init);
    if (cache.limit == 0 || bytes < CACHE_MIN)
        return NULL;
    void *p = NULL;
    pthread_mutex_lock(&cache.lock);
    int best = -1;
    for (int i = 0; i < cache.n; i++)
        if (cache.slot[i].bytes >= bytes && cache.slot[i].bytes <= bytes + bytes / 8 &&
            (best < 0 || cache.slot[i].bytes < cache.slot[best].bytes))
            best = i;
    if (best >= 0) {
        p = cache.slot[best].p;
        cache.held -= cache.slot[best].bytes;
        cache.slot[best] = cache.slot[--cache.n];
    }
    pthread_mutex_unlock(&cache.lock);
    return p;
}

/* Keeps the block when there is room; false: the caller frees it. */
static bool cache_put(void *p, size_t bytes)
{
    pthread_once(&cache.once, cache_init);
    if (cache.limit == 0 || bytes < CACHE_MIN)
        return false;
    pthread_mutex_lock(&cache.lock);
    bool kept = cache.n < CACHE_SLOTS && cache.held + bytes <= cache.limit;
    if (kept) {
        cache.slot[cache.n].p = p;
        cache.slot[cache.n++].bytes = bytes;
        cache.held += bytes;
    }
    pthread_mutex_unlock(&cache.lock);
    return kept;
}

/* The size a request of `bytes` is given: a multiple of 64, or of 2 MiB from 4 MiB up. */
static size_t rounded_size(size_t bytes, size_t *align)
{
    size_t r = (bytes + 63) & ~(size_t)63;
    *align = 64;
    if (r >= ((size_t)4 << 20)) {
        *align = (size_t)2 << 20;
        r = (r + *align - 1) & ~(*align - 1);
    }
    return r ? r : 64;
}

wk_status wk_cpu_alloc(wk_device *dev, size_t bytes, void **ptr)
{
    (void)dev;
    size_t align, rounded = rounded_size(bytes, &align);
    void *p = cache_take(rounded);
    if (!p) {
        p = aligned_alloc(align, rounded);
#ifdef MADV_HUGEPAGE
        /* First touch of a fresh buffer otherwise faults every 4 KiB, which costs more than an element-wise pass
         * over it (numpy advises the same). Only advice: failure changes nothing. */
        if (p && align > 64)
            madvise(p, rounded, MADV_HUGEPAGE);
#endif
    }
    if (!p)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "cpu: cannot allocate %zu bytes", bytes);
    if (poison_enabled())
        memset(p, 0xff, rounded);
    *ptr = p;
    return WK_OK;
}

void wk_cpu_free(wk_device *dev, void *ptr, size_t bytes)
{
    (void)dev;
    size_t align;
    if (ptr && !cache_put(ptr, rounded_size(bytes, &align)))
        free(ptr);
}

/* fault.c: the allocation counters and wrappers behind fault.h. Compiled in every build; only a
 * WICK_FAULT_INJECTION build counts and fails allocations (see fault.h). */
#include "core/fault.h"

/* This file calls the real allocators (the build's -include of fault.h already defined the redirections). */
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup
#undef aligned_alloc
#undef posix_memalign

#include <errno.h>
#include <stdatomic.h>

#ifdef WICK_FAULT_INJECTION
#include <jansson.h>
#include <pthread.h>

static atomic_long counted[2];  /* allocations since the last wk_fi_set */
static atomic_long fail_at[2];  /* 1-based index that fails; 0 = disarmed */
static atomic_bool fired[2];

static void *json_alloc(size_t n) { return wk_fi_malloc(n); }

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init(void)
{
    static const char *const env[2] = {"WICK_FAIL_HOST_ALLOC", "WICK_FAIL_DEVICE_ALLOC"};
    for (int k = 0; k < 2; k++) {
        const char *v = getenv(env[k]);
        if (v && *v)
            atomic_store(&fail_at[k], strtol(v, NULL, 10));
    }
    json_set_alloc_funcs(json_alloc, free);
}

void wk_fi_init(void) { pthread_once(&init_once, init); }

static atomic_bool absorbed; /* a fallback handled an injected failure (wk_fi_absorb) */

void wk_fi_set(wk_fi_kind kind, long n)
{
    pthread_once(&init_once, init);
    atomic_store(&fail_at[kind], 0);
    atomic_store(&counted[kind], 0);
    atomic_store(&fired[kind], false);
    atomic_store(&absorbed, false);
    atomic_store(&fail_at[kind], n);
}

long wk_fi_count(wk_fi_kind kind) { return atomic_load(&counted[kind]); }

bool wk_fi_fired(wk_fi_kind kind) { return atomic_load(&fired[kind]); }

void wk_fi_absorb(void) { atomic_store(&absorbed, true); }
bool wk_fi_absorbed(void) { return atomic_load(&absorbed); }

bool wk_fi_fail(wk_fi_kind kind)
{
    pthread_once(&init_once, init);
    long i = atomic_fetch_add(&counted[kind], 1) + 1;
    long n = atomic_load(&fail_at[kind]);
    if (n <= 0 || i != n)
        return false;
    long expect = n; /* one failure, then disarmed (a racing thread cannot fire twice) */
    if (!atomic_compare_exchange_strong(&fail_at[kind], &expect, 0))
        return false;
    atomic_store(&fired[kind], true);
    return true;
}
#else
void wk_fi_init(void) {}
void wk_fi_set(wk_fi_kind kind, long n) { (void)kind, (void)n; }
long wk_fi_count(wk_fi_kind kind) { return (void)kind, 0; }
bool wk_fi_fired(wk_fi_kind kind) { return (void)kind, false; }
bool wk_fi_fail(wk_fi_kind kind) { return (void)kind, false; }
void wk_fi_absorb(void) {}
bool wk_fi_absorbed(void) { return false; }
#endif

void *wk_fi_malloc(size_t n) { return wk_fi_fail(WK_FI_HOST) ? NULL : malloc(n); }

void *wk_fi_calloc(size_t n, size_t size) { return wk_fi_fail(WK_FI_HOST) ? NULL : calloc(n, size); }

/* realloc(NULL, 0)-style frees are not allocations; a failed realloc leaves p allocated, as the real one. */
void *wk_fi_realloc(void *p, size_t n) { return wk_fi_fail(WK_FI_HOST) ? NULL : realloc(p, n); }

char *wk_fi_strdup(const char *s) { return wk_fi_fail(WK_FI_HOST) ? NULL : strdup(s); }

char *wk_fi_strndup(const char *s, size_t n) { return wk_fi_fail(WK_FI_HOST) ? NULL : strndup(s, n); }

void *wk_fi_aligned_alloc(size_t align, size_t n) { return wk_fi_fail(WK_FI_HOST) ? NULL : aligned_alloc(align, n); }

int wk_fi_posix_memalign(void **p, size_t align, size_t n)
{
    return wk_fi_fail(WK_FI_HOST) ? ENOMEM : posix_memalign(p, align, n);
}

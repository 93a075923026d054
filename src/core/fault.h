/* fault.h: allocation-failure injection for the reliability sweep (tests/io/test_alloc_faults.c). Under the
 * CMake option WICK_FAULT_INJECTION every library source is compiled with `-include core/fault.h`, which
 * sends malloc, calloc, realloc, strdup, strndup, aligned_alloc and posix_memalign through the counting
 * wrappers of fault.c (jansson's allocations too, through json_set_alloc_funcs). The Nth "host" allocation,
 * or separately the Nth "device" allocation (every backend's alloc slot and page-locked allocation), fails
 * once; then the hook disarms itself. Without the option the hooks compile to "never fail". */
#ifndef WK_CORE_FAULT_H
#define WK_CORE_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum wk_fi_kind { WK_FI_HOST = 0, WK_FI_DEVICE = 1 } wk_fi_kind;

/* Arms the environment's settings and routes jansson's allocations through the counter (done at the first
 * allocation anyway); safetensors.c calls it before wrapping jansson's allocator in its own tracking. */
void wk_fi_init(void);
/* Fails the nth allocation of kind counted from now (1-based), once; n = 0 disarms. Resets the count. The
 * environment's WICK_FAIL_HOST_ALLOC / WICK_FAIL_DEVICE_ALLOC arm the same way at the first allocation. */
void wk_fi_set(wk_fi_kind kind, long n);
/* Allocations of kind counted since the last wk_fi_set (0 without WICK_FAULT_INJECTION). */
long wk_fi_count(wk_fi_kind kind);
/* Whether an allocation of kind was made to fail since the last wk_fi_set. */
bool wk_fi_fired(wk_fi_kind kind);
/* The hook: counts one allocation of kind; true when this one must fail. */
bool wk_fi_fail(wk_fi_kind kind);
/* Called where the library handles a failed allocation by a fallback it is designed to take (the GPU's cached
 * blocks released and the allocation retried, a smaller workspace, another convolution algorithm), so the sweep
 * accepts a run in which the injected failure reached no caller; wk_fi_absorbed says whether that happened
 * since the last wk_fi_set. */
void wk_fi_absorb(void);
bool wk_fi_absorbed(void);

void *wk_fi_malloc(size_t n);
void *wk_fi_calloc(size_t n, size_t size);
void *wk_fi_realloc(void *p, size_t n);
char *wk_fi_strdup(const char *s);
char *wk_fi_strndup(const char *s, size_t n);
void *wk_fi_aligned_alloc(size_t align, size_t n);
int wk_fi_posix_memalign(void **p, size_t align, size_t n);

#ifdef WICK_FAULT_INJECTION
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup
#undef aligned_alloc
#undef posix_memalign
#define malloc(n) wk_fi_malloc(n)
#define calloc(n, s) wk_fi_calloc(n, s)
#define realloc(p, n) wk_fi_realloc(p, n)
#define strdup(s) wk_fi_strdup(s)
#define strndup(s, n) wk_fi_strndup(s, n)
#define aligned_alloc(a, n) wk_fi_aligned_alloc(a, n)
#define posix_memalign(p, a, n) wk_fi_posix_memalign(p, a, n)
#endif

#endif

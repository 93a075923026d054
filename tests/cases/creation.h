/* creation.h: helpers of the 'creation' case family (creation*.c, also used by view.c): inputs built from raw
 * element bytes in every layout, exact byte-level comparison, and the plain reference of wk_cast's rules. */
#ifndef WKT_CREATION_H
#define WKT_CREATION_H

#include "harness.h"

/* A view of logical (rank, shape) in `layout` over fresh storage, built from `logical` (row-major raw
 * elements of dt). Padding elements get `pad` bytes. *eff receives the values the view really shows
 * (malloc'd; a broadcast layout repeats the first slice). *phys_n / *phys (optional) receive the whole
 * storage's size and bytes (malloc'd), and *map (optional) the storage index of each logical element. */
typedef struct crt_view {
    wk_tensor *t;
    void *eff;       /* numel elements */
    void *phys;      /* phys_n elements, the storage as built */
    int64_t *map;    /* numel entries */
    int64_t numel, phys_n;
} crt_view;
wk_status crt_make(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                   const void *logical, unsigned char pad, crt_view *v);
void crt_view_free(crt_view *v);

/* n random raw elements of dt. wide: values across the whole range (ints) or far outside the integer
 * ranges (floats), else the harness's default ranges. */
void crt_random(wk_dtype dt, void *buf, int64_t n, bool wide, wkt_rng *rng);
/* Writes the boundary values of wk_cast's rules (NaN, inf, half-way, out of range) that dt can hold
 * into buf (at most cap elements); returns how many. */
int64_t crt_specials(wk_dtype dt, void *buf, int64_t cap);

/* Element i of buf as a double (exact for every dtype but i64 beyond 2^53). */
double crt_get(wk_dtype dt, const void *buf, int64_t i);
/* The reference conversion of wk_cast: element i of src (dtype from) into element i of dst (dtype to). */
void crt_convert(wk_dtype from, const void *src, int64_t i, wk_dtype to, void *dst);
/* v converted to dt by wk_cast's float rules (v a double: correctly rounded, saturating). */
void crt_from_double(wk_dtype dt, double v, void *dst, int64_t i);

/* All of t's logical elements as raw bytes (malloc'd); false with r failed on error. */
bool crt_read(const wk_tensor *t, void **bytes, wkt_result *r);
/* Exact comparison: equal bits, except that any NaN matches any NaN. Marks r failed on a mismatch. */
void crt_compare(wk_dtype dt, const void *got, const void *want, int64_t n, const char *what, wkt_result *r);

/* Sub-families, appended by creation.c. */
void crt_cast_cases(wkt_list *l);
void crt_cast_errors(wkt_errctx *e);
void crt_rand_cases(wkt_list *l);
void crt_rand_errors(wkt_errctx *e);
void crt_copy_cases(wkt_list *l);
void crt_copy_errors(wkt_errctx *e);

/* Checks that a pointer out-parameter stayed NULL after a failing call. */
void crt_expect_untouched(wkt_errctx *e, const void *out, const char *what);

#endif

/* harness.h: the case table that drives both ctest and `wick check`. A case is op x dtype x layout x
 * shape with a run function that builds random inputs, runs the op on a device, and compares against a
 * float64 reference written plainly in tests/cases/ (never the backend's code). */
#ifndef WKT_HARNESS_H
#define WKT_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "wick.h"

/* ---- random numbers (xoshiro256**, seeded per case from the run seed and the case index) */
typedef struct wkt_rng { uint64_t s[4]; } wkt_rng;
void wkt_rng_seed(wkt_rng *r, uint64_t seed);
uint64_t wkt_rng_next(wkt_rng *r);
double wkt_rng_uniform(wkt_rng *r, double lo, double hi); /* [lo, hi) */
int64_t wkt_rng_int(wkt_rng *r, int64_t lo, int64_t hi);  /* [lo, hi] */

/* ---- layouts a case input can take (logical shape is always the same) */
typedef enum wkt_layout {
    WKT_CONTIG,     /* row-major */
    WKT_TRANSPOSED, /* last two dims stored swapped (rank >= 2) */
    WKT_PERMUTED,   /* all dims stored reversed (rank >= 3) */
    WKT_BROADCAST,  /* the first dim of size > 1 has stride 0 */
    WKT_OFFSET,     /* a view starting at a non-zero offset with padded rows */
    WKT_LAYOUT_COUNT
} wkt_layout;
const char *wkt_layout_name(wkt_layout l);
/* Whether layout l makes sense for a shape of this rank (transposed needs rank >= 2, ...). */
bool wkt_layout_applies(wkt_layout l, int rank, const int64_t *shape);

/* Value distribution of random inputs. Ints draw integers in [lo, hi] (clamped to the dtype's range);
 * floats draw uniformly in [lo, hi) and are rounded to the dtype. */
typedef struct wkt_dist { double lo, hi; } wkt_dist;
/* The default for a dtype: floats [-2, 2), signed ints [-100, 100], unsigned [0, 200]. */
wkt_dist wkt_dist_default(wk_dtype dt);

/* Makes a tensor of logical (rank, shape) on dev in `layout`, filled with random values, and returns
 * its logical values row-major as doubles in *vals (malloc'd, caller frees; exactly the dtype's values).
 * Returns WK_OK or the failing status (the message is in wk_last_error()). */
wk_status wkt_make(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout, wkt_dist dist,
                   wkt_rng *rng, wk_tensor **t, double **vals);
/* The same from given logical values (converted to dt). */
wk_status wkt_make_from(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                        const double *vals, wk_tensor **t);
/* Reads a tensor's logical values as doubles (malloc'd into *vals). */
wk_status wkt_read(const wk_tensor *t, double **vals);
/* Rounds v to what dtype dt stores (f16/bf16 round-to-nearest-even through f32; ints wrap like C
 * unsigned conversion of the exact integer, used by the reference for integer arithmetic). */
double wkt_round_to(wk_dtype dt, double v);

/* ---- comparison */
typedef enum wkt_tol_kind { WKT_TOL_ELEMENTWISE, WKT_TOL_MATMUL } wkt_tol_kind;
/* The tolerance of README.md ("Parity tolerance") for dt (0 for integer dtypes: exact). */
double wkt_tol(wk_dtype dt, wkt_tol_kind kind);

typedef struct wkt_result {
    double max_rel_err; /* relative L2 error (0 when exact) */
    double tol;
    bool pass;
    bool skipped;       /* the case could not run here (reported as SKIP, never as pass) */
    char msg[256];      /* why it failed or was skipped */
    wk_status status;   /* the first failing status wkt_failed saw (WK_OK: none) */
} wkt_result;

/* Compares got against want (n values): NaN and infinities must be at the same places; integer dtypes
 * (and exact == true) must match exactly; floats within tol in relative L2. Fills r (err, pass, msg).
 * Combines with an existing failure in r: call it once per output. */
void wkt_compare(wk_dtype dt, const double *got, const double *want, int64_t n, double tol, bool exact,
                 wkt_result *r);
/* Marks r failed with a message (printf-style). */
void wkt_fail(wkt_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails r with the status and wk_last_error() when s != WK_OK; returns s != WK_OK. */
bool wkt_failed(wk_status s, wkt_result *r, const char *what);

/* ---- the table */
typedef struct wkt_case wkt_case;
typedef void (*wkt_run_fn)(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r);
struct wkt_case {
    const char *family;
    char op[32];
    wk_dtype dtype;
    wkt_layout layout;
    int rank;
    int64_t shape[WK_MAX_RANK]; /* the main input's logical shape */
    int iparam[8];              /* family-specific parameters */
    double fparam[4];
    wkt_run_fn run;
};
/* Formats the shape as "2x3x4" ("scalar" for rank 0). */
const char *wkt_shape_name(const wkt_case *c, char *buf, size_t cap);

typedef struct wkt_list { wkt_case *items; int n, cap; } wkt_list;
void wkt_add(wkt_list *l, const wkt_case *c);
void wkt_list_free(wkt_list *l);

/* ---- error-path tests: each family checks its bad inputs on a device */
typedef struct wkt_errctx { wk_device *dev; int checks, failures; } wkt_errctx;
/* Checks that `got` equals `want` and that wk_last_error() names `op`; prints a line on failure. */
void wkt_expect(wkt_errctx *e, wk_status got, wk_status want, const char *op, const char *what);
#define WKT_EXPECT(e, call, want, op) wkt_expect((e), (call), (want), (op), #call)

/* ---- families: each file of tests/cases/ provides one */
typedef struct wkt_family {
    const char *name;
    void (*cases)(wkt_list *l);  /* appends its cases */
    void (*errors)(wkt_errctx *e); /* error-path checks, may be NULL */
} wkt_family;
const wkt_family *const *wkt_families(int *count);

/* ---- running the table (used by tests/test_parity.c and `wick check`) */
typedef struct wkt_options {
    const char *op_filter; /* run only these ops (one name or a comma-separated list; NULL: all) */
    bool json;             /* one JSON record per case instead of a text line */
    bool quiet;            /* print failures only (text mode) */
    bool zero_size;        /* run each case with its main input's first dim 0 (cases of rank 0 are left out) */
    uint64_t seed;
    FILE *out;
} wkt_options;
typedef struct wkt_summary { int passed, failed, skipped; } wkt_summary;
/* Runs every case on dev and prints one line (or JSON record) per case. */
wkt_summary wkt_run_table(wk_device *dev, const wkt_options *o);
/* Seed from $WICK_SEED, else from the clock. */
uint64_t wkt_default_seed(void);

#endif

/* bench.h: the cases of `wick bench` (tools/bench_cases.c) and what the timing harness
 * (tools/cmd_bench.c) needs from them. */
#ifndef WICK_BENCH_H
#define WICK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "wick.h"

#define BENCH_MAX_INPUTS 4

/* What a case's rate is measured against: memory traffic (bytes read + written, against the device's
 * measured copy bandwidth) or arithmetic (flops, against the measured f32 matmul peak). */
typedef enum bench_unit { BENCH_BYTES, BENCH_FLOPS } bench_unit;

/* The inputs of one case at one size. The harness releases every tensor in t. */
typedef struct bench_inputs {
    wk_tensor *t[BENCH_MAX_INPUTS];
    int n;
    double flops;    /* BENCH_FLOPS cases: floating-point operations of one run */
    char shape[64];  /* shown in the report; the main input's shape unless setup writes another */
} bench_inputs;

typedef struct bench_case bench_case;
/* Adds the inputs after the main one (t[0]) and sets flops where the unit is BENCH_FLOPS. */
typedef wk_status (*bench_setup_fn)(const bench_case *c, wk_device *dev, bench_inputs *in);
/* One run of the op; the harness releases *out. */
typedef wk_status (*bench_run_fn)(const bench_case *c, const bench_inputs *in, wk_tensor **out);

struct bench_case {
    const char *op;       /* what --op selects */
    const char *variant;  /* dtypes and layout, e.g. "f32->f16", "f32 dim 0" */
    bench_unit unit;
    wk_dtype dtype;       /* the main input t[0] */
    int rank;
    int64_t full[4];      /* its shape in a full run */
    int64_t quick[4];     /* and with --quick */
    double lo, hi;        /* its values are uniform in [lo, hi) */
    bool transposed;      /* t[0] is the transpose of a contiguous (shape[1], shape[0]) matrix */
    int param[2];         /* op-specific: a dim, an enum value, a dtype */
    bench_setup_fn setup; /* may be NULL: t[0] is the only input */
    bench_run_fn run;
};

/* Returns the status of expr when it is not WK_OK. */
#define WK_BENCH_TRY(expr)               \
    do {                                 \
        wk_status bench_s_ = (expr);     \
        if (bench_s_ != WK_OK)           \
            return bench_s_;             \
    } while (0)

/* The case table, in report order. */
const bench_case *bench_cases(int *count);

/* A tensor of dtype dt filled on the host with values uniform in [lo, hi) (integers: truncated). */
wk_status bench_random(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double lo, double hi,
                       wk_tensor **out);

#endif

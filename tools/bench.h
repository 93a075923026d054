/* bench.h: the cases of `wick bench` (tools/bench_cases.c) and what the timing harness
 * (tools/cmd_bench.c) needs from them. */
#ifndef WICK_BENCH_H
#define WICK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "wick.h"

#define BENCH_MAX_INPUTS 4

/* What a case's rate is measured against: memory traffic (bytes read + written, against the device's
 * measured copy bandwidth), arithmetic (flops, against the measured matmul peak of its dtype class), or
 * host cost (calls per run: the time of one call, launch included, in microseconds; no peak). */
typedef enum bench_unit { BENCH_BYTES, BENCH_FLOPS, BENCH_CALLS } bench_unit;

/* The inputs of one case at one size. The harness releases every tensor in t. */
typedef struct bench_inputs {
    wk_tensor *t[BENCH_MAX_INPUTS];
    int n;
    double flops;    /* BENCH_FLOPS cases: floating-point operations of one run */
    int64_t calls;   /* BENCH_CALLS cases: op calls in one run */
    char shape[64];  /* shown in the report; the main input's shape unless setup writes another */
} bench_inputs;

typedef struct bench_case bench_case;
/* Adds the inputs after the main one (t[0]) and sets flops / calls where the unit asks for them. */
typedef wk_status (*bench_setup_fn)(const bench_case *c, wk_device *dev, bench_inputs *in);
/* One run of the op; the harness releases *out. */
typedef wk_status (*bench_run_fn)(const bench_case *c, const bench_inputs *in, wk_tensor **out);

/* Sizes: `full` and `quick` are for the CPU (a 2-core box); a GPU takes `gpu` (or `full` where gpu[0] is 0)
 * and `quick` with --quick. gpu_only cases (no CPU size) are skipped on the CPU. */
struct bench_case {
    const char *op;       /* what --op selects */
    const char *variant;  /* dtypes and layout, e.g. "f32->f16", "f32 dim 0" */
    bench_unit unit;
    wk_dtype dtype;       /* the main input t[0] */
    int rank;
    int64_t full[4];      /* its shape in a full run on the CPU */
    int64_t quick[4];     /* and with --quick */
    int64_t gpu[4];       /* and in a full run on a GPU */
    bool gpu_only;
    double lo, hi;        /* its values are uniform in [lo, hi) */
    bool transposed;      /* t[0] is the transpose of a contiguous (shape[1], shape[0]) matrix */
    int param[4];         /* op-specific: a dim, an enum value, a dtype, conv/pool geometry */
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

/* The shape of c's main input for a run: quick, else on a GPU (gpu), else full. */
const int64_t *bench_shape(const bench_case *c, bool quick, bool gpu);

/* Whether dev is the CPU (the sizes, the timing policy and the input filling differ on a GPU). */
bool bench_is_cpu(const wk_device *dev);

/* A tensor of dtype dt with values uniform in [lo, hi) (integers: truncated): filled on the host for the
 * CPU; generated on the device (wk_rand_uniform) elsewhere, which avoids host filling and uploading of
 * GiB-sized inputs, falling back to the host when the device cannot. */
wk_status bench_random(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, double lo, double hi,
                       wk_tensor **out);

#endif

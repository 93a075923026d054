/* cmd_bench.c: `wick bench`: measures the device's copy bandwidth and matmul peak, then times each case of
 * bench_cases.c (median of several runs after a warm-up, each a batch of calls ended by wk_device_sync). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"

static const char bench_usage[] =
    "usage: wick bench [--device D] [--op NAMES] [--quick] [--json] [--list]\n"
    "  --device D   cpu, cuda:0, rocm:0, gpu:0, or all (default: every device found)\n"
    "  --op NAMES   time only these ops (comma-separated; --list shows them)\n"
    "  --quick      smaller sizes and fewer runs (a smoke test, well under a minute on 2 cores)\n"
    "  --json       one JSON record per line: the peaks, one per case, a summary\n"
    "  --list       print the cases with their sizes, run nothing\n"
    "A GPU runs larger sizes than the CPU, and cases of its own. There each timed run is a batch of calls\n"
    "(a few ms of work) ended by one wk_device_sync, divided by the calls: launch latency is hidden as in a\n"
    "real program, not added to every call.\n"
    "Rates: GB/s counts bytes read + written once (inputs + output); GFLOP/s for matmul and conv2d;\n"
    "us/op for tiny_add (the host cost of a 1-element op, launch included, over many calls back to back).\n"
    "'of peak' is against the copy bandwidth measured first (wk_copy_into of a large f32 tensor) or the\n"
    "matmul rate measured first (f32; on a GPU bf16 too, for bf16/f16 cases).\n"
    "Exit status: 0 all timed, 1 an op failed, 2 bad usage.\n";

#define MAX_RUNS 25

typedef struct run_policy {
    double budget_s; /* aim for about this much timed work per case */
    int min_runs, max_runs;
    /* > 0: each timed run is a batch of calls lasting about this long, ended by one sync, so that on a GPU
     * the sync's latency is not charged to every call. 0: one call per run (the CPU). */
    double batch_s;
    int max_batch;
} run_policy;

typedef struct timing {
    wk_status status;
    char error[320];
    int runs, batch;
    double median_s, best_s; /* per call */
} timing;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed call: runs the op and returns its output (released after the clock stops; may be NULL). */
typedef wk_status (*op_fn)(const void *ctx, wk_tensor **out);

static wk_status run_once(wk_device *dev, op_fn fn, const void *ctx, double *seconds, wk_tensor **out)
{
    *out = NULL;
    double t0 = now_s();
    wk_status s = fn(ctx, out);
    if (s == WK_OK)
        s = wk_device_sync(dev);
    *seconds = now_s() - t0;
    return s;
}

/* batch calls then one sync; *seconds per call. Outputs are released as they come (a batch of one
 * releases after the clock stops, as the CPU runs always did). */
static wk_status run_batch(wk_device *dev, op_fn fn, const void *ctx, int batch, double *seconds)
{
    wk_tensor *out = NULL;
    if (batch <= 1) {
        wk_status s = run_once(dev, fn, ctx, seconds, &out);
        wk_tensor_release(out);
        return s;
    }
    wk_status s = WK_OK;
    double t0 = now_s();
    for (int k = 0; k < batch && s == WK_OK; k++) {
        out = NULL;
        s = fn(ctx, &out);
        wk_tensor_release(out);
    }
    if (s == WK_OK)
        s = wk_device_sync(dev);
    *seconds = (now_s() - t0) / batch;
    return s;
}

static int clamp_count(double want, int lo, int hi) { return want < lo ? lo : want > hi ? hi : (int)want; }

/* A warm-up run (its output handed back in *first for byte counting), a second run to size the batches
 * where the policy batches (the first may carry one-time costs: module loading, library handles), then
 * as many runs as the policy allows; never times an op that failed. */
static timing time_op(wk_device *dev, op_fn fn, const void *ctx, const run_policy *p, wk_tensor **first)
{
    timing t = {.status = WK_OK, .error = "", .runs = 0, .batch = 1, .median_s = 0, .best_s = 0};
    double times[MAX_RUNS], warm = 0;
    t.status = run_once(dev, fn, ctx, &warm, first);
    if (t.status == WK_OK && p->batch_s > 0) {
        t.status = run_batch(dev, fn, ctx, 1, &warm);
        t.batch = warm > 0 ? clamp_count(ceil(p->batch_s / warm), 1, p->max_batch) : p->max_batch;
    }
    if (t.status != WK_OK) {
        snprintf(t.error, sizeof t.error, "%s", wk_last_error());
        wk_tensor_release(*first);
        *first = NULL;
        return t;
    }
    int runs = warm > 0 ? clamp_count(ceil(p->budget_s / (warm * t.batch)), p->min_runs, p->max_runs)
                        : p->max_runs;
    for (int r = 0; r < runs; r++) {
        t.status = run_batch(dev, fn, ctx, t.batch, &times[r]);
        if (t.status != WK_OK) {
            snprintf(t.error, sizeof t.error, "%s", wk_last_error());
            return t;
        }
    }
    qsort(times, (size_t)runs, sizeof times[0], cmp_double);
    t.runs = runs;
    t.median_s = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
    t.best_s = times[0];
    return t;
}

static double tensor_bytes(const wk_tensor *t)
{
    return t ? (double)wk_tensor_nbytes(t) : 0; /* a block-quantized tensor counts its blocks */
}

/* ---------------------------------------------------------------- peaks */

typedef struct peak {
    bool ok;
    double rate; /* GB/s or GFLOP/s, from the best run */
} peak;

typedef struct pair_ctx {
    wk_tensor *a, *b;
} pair_ctx;

static wk_status copy_once(const void *ctx, wk_tensor **out)
{
    const pair_ctx *c = ctx;
    (void)out;
    return wk_copy_into(c->a, c->b);
}

static wk_status matmul_once(const void *ctx, wk_tensor **out)
{
    const pair_ctx *c = ctx;
    return wk_matmul(c->a, c->b, out);
}

static void print_peak(bool json, wk_device *dev, const char *kind, const char *what, const timing *t,
                       double rate, const char *unit)
{
    if (json) {
        printf("{\"record\":\"peak\",\"device\":");
        cli_json_string(stdout, wk_device_name(dev));
        printf(",\"kind\":\"%s\",\"what\":", kind);
        cli_json_string(stdout, what);
        if (t->status == WK_OK)
            printf(",\"status\":\"ok\",\"runs\":%d,\"best_ms\":%.6g,\"rate\":%.6g,\"unit\":\"%s\"}\n", t->runs,
                   1e3 * t->best_s, rate, unit);
        else {
            printf(",\"status\":\"%s\",\"error\":", wk_status_string(t->status));
            cli_json_string(stdout, t->error);
            printf("}\n");
        }
    } else if (t->status == WK_OK) {
        printf("%-9s peak: %9.2f %-7s (%s, best of %d)\n", kind, rate, unit, what, t->runs);
    } else {
        printf("%-9s peak: unavailable: %s: %s (%s)\n", kind, wk_status_string(t->status), t->error, what);
    }
}

/* Copy bandwidth: bytes read + written per second by wk_copy_into of one large contiguous f32 tensor. */
static peak measure_copy(wk_device *dev, bool quick, bool json, const run_policy *p)
{
    int64_t n = quick ? (int64_t)16 << 20 : bench_is_cpu(dev) ? (int64_t)64 << 20 : (int64_t)256 << 20;
    pair_ctx c = {NULL, NULL};
    peak pk = {.ok = false, .rate = 0};
    timing t = {.status = WK_OK};
    wk_tensor *none = NULL;
    t.status = wk_tensor_empty(dev, WK_F32, 1, &n, &c.a);
    if (t.status == WK_OK)
        t.status = bench_random(dev, WK_F32, 1, &n, -1, 1, &c.b);
    if (t.status == WK_OK)
        t = time_op(dev, copy_once, &c, p, &none);
    else
        snprintf(t.error, sizeof t.error, "%s", wk_last_error());
    wk_tensor_release(none);
    char what[96];
    snprintf(what, sizeof what, "wk_copy_into, %lld MiB f32", (long long)(n * 4 >> 20));
    if (t.status == WK_OK && t.best_s > 0) {
        pk.ok = true;
        pk.rate = 2.0 * (double)n * 4 / t.best_s * 1e-9;
    }
    print_peak(json, dev, "copy", what, &t, pk.rate, "GB/s");
    wk_tensor_release(c.a);
    wk_tensor_release(c.b);
    return pk;
}

/* BLAS peak: the rate of a large square matmul of dtype dt (f32; bf16 on a GPU, whose tensor cores make
 * it another scale). */
static peak measure_blas(wk_device *dev, wk_dtype dt, bool quick, bool json, const run_policy *p)
{
    bool cpu = bench_is_cpu(dev), half = dt != WK_F32;
    int64_t n = cpu ? (quick ? 1024 : 2048) : half ? (quick ? 2048 : 8192) : (quick ? 1024 : 4096);
    int64_t shape[2] = {n, n};
    pair_ctx c = {NULL, NULL};
    peak pk = {.ok = false, .rate = 0};
    timing t = {.status = WK_OK};
    wk_tensor *first = NULL;
    t.status = bench_random(dev, dt, 2, shape, -1, 1, &c.a);
    if (t.status == WK_OK)
        t.status = bench_random(dev, dt, 2, shape, -1, 1, &c.b);
    if (t.status == WK_OK)
        t = time_op(dev, matmul_once, &c, p, &first);
    else
        snprintf(t.error, sizeof t.error, "%s", wk_last_error());
    wk_tensor_release(first);
    char what[96];
    snprintf(what, sizeof what, "wk_matmul %s %lld^3", wk_dtype_name(dt), (long long)n);
    if (t.status == WK_OK && t.best_s > 0) {
        pk.ok = true;
        pk.rate = 2.0 * (double)n * (double)n * (double)n / t.best_s * 1e-9;
    }
    print_peak(json, dev, half ? "blas_bf16" : "blas", what, &t, pk.rate, "GFLOP/s");
    wk_tensor_release(c.a);
    wk_tensor_release(c.b);
    return pk;
}

/* ---------------------------------------------------------------- cases */

typedef struct case_ctx {
    const bench_case *c;
    bench_inputs in;
} case_ctx;

static wk_status case_once(const void *ctx, wk_tensor **out)
{
    const case_ctx *cc = ctx;
    return cc->c->run(cc->c, &cc->in, out);
}

/* The main input t[0], then the case's other inputs. */
static wk_status make_inputs(const bench_case *c, wk_device *dev, bool quick, bench_inputs *in)
{
    const int64_t *shape = bench_shape(c, quick, !bench_is_cpu(dev));
    if (c->transposed) {
        int64_t stored[2] = {shape[1], shape[0]};
        wk_tensor *base = NULL;
        WK_BENCH_TRY(bench_random(dev, c->dtype, 2, stored, c->lo, c->hi, &base));
        wk_status s = wk_transpose(base, 0, 1, &in->t[0]);
        wk_tensor_release(base);
        WK_BENCH_TRY(s);
    } else {
        WK_BENCH_TRY(bench_random(dev, c->dtype, c->rank, shape, c->lo, c->hi, &in->t[0]));
    }
    in->n = 1;
    size_t used = 0;
    for (int d = 0; d < c->rank && used < sizeof in->shape; d++)
        used += (size_t)snprintf(in->shape + used, sizeof in->shape - used, d ? "x%lld" : "%lld",
                                 (long long)shape[d]);
    return c->setup ? c->setup(c, dev, in) : WK_OK;
}

/* Host-to-device bandwidth: wk_to_device of a CPU tensor over page-locked memory (wk_host_alloc_pinned: one
 * DMA) or over ordinary malloc'd memory (pageable: the library stages it). GPU devices only. */
typedef struct h2d_ctx {
    wk_tensor *host;
    wk_device *dev;
} h2d_ctx;

static wk_status h2d_once(const void *ctx, wk_tensor **out)
{
    const h2d_ctx *c = ctx;
    wk_tensor *t = NULL;
    wk_status s = wk_to_device(c->host, c->dev, &t);
    wk_tensor_release(t);
    (void)out;
    return s;
}

static void h2d_free(void *ctx) { free(ctx); }

static peak measure_h2d(wk_device *dev, bool pinned, bool quick, bool json, const run_policy *p)
{
    size_t bytes = quick ? (size_t)64 << 20 : (size_t)1 << 30;
    int64_t n = (int64_t)(bytes / 4);
    peak pk = {.ok = false, .rate = 0};
    timing t = {.status = WK_OK};
    wk_device *cpu = NULL;
    void *buf = NULL;
    h2d_ctx c = {NULL, dev};
    wk_tensor *none = NULL;
    t.status = wk_device_get("cpu", &cpu);
    if (t.status == WK_OK)
        t.status = pinned ? wk_host_alloc_pinned(dev, bytes, &buf)
                          : ((buf = malloc(bytes)) ? WK_OK : WK_ERR_OUT_OF_MEMORY);
    if (t.status == WK_OK) {
        memset(buf, 0, bytes); /* pageable pages exist before the timing */
        t.status = wk_tensor_wrap(cpu, WK_F32, 1, &n, NULL, buf, pinned ? NULL : h2d_free, buf, &c.host);
    }
    if (t.status == WK_OK)
        t = time_op(dev, h2d_once, &c, p, &none);
    else
        snprintf(t.error, sizeof t.error, "%s", wk_last_error());
    if (t.status == WK_OK && t.best_s > 0) {
        pk.ok = true;
        pk.rate = (double)bytes / t.best_s * 1e-9;
    }
    char what[96];
    snprintf(what, sizeof what, "wk_to_device of %zu MiB from %s host memory", bytes >> 20,
             pinned ? "page-locked" : "pageable");
    print_peak(json, dev, pinned ? "h2d_pinned" : "h2d_pageable", what, &t, pk.rate, "GB/s");
    if (c.host)
        wk_tensor_release(c.host);
    else if (!pinned)
        free(buf);
    if (pinned)
        wk_host_free_pinned(dev, buf);
    return pk;
}

/* The peaks a case is measured against. */
typedef struct peaks {
    peak copy, blas, blas_bf16;
} peaks;

/* The peak for c and its name; NULL when c has none. */
static const peak *peak_of(const bench_case *c, const peaks *pk, bool cpu, const char **of)
{
    *of = "copy";
    if (c->unit == BENCH_CALLS)
        return NULL;
    if (c->unit == BENCH_BYTES)
        return &pk->copy;
    bool half = c->dtype == WK_F16 || c->dtype == WK_BF16;
    *of = half && !cpu ? "blas_bf16" : "blas";
    return half && !cpu ? &pk->blas_bf16 : &pk->blas;
}

static void print_case(bool json, wk_device *dev, const bench_case *c, const bench_inputs *in, const timing *t,
                       double work, const peak *pk, const char *of)
{
    bool flops = c->unit == BENCH_FLOPS, calls = c->unit == BENCH_CALLS;
    double rate = t->status == WK_OK && t->median_s > 0 ? work / t->median_s * 1e-9 : 0;
    if (calls) /* microseconds per call */
        rate = work > 0 ? 1e6 * t->median_s / work : 0;
    double frac = pk && pk->ok && pk->rate > 0 ? rate / pk->rate : -1;
    if (json) {
        printf("{\"record\":\"case\",\"device\":");
        cli_json_string(stdout, wk_device_name(dev));
        printf(",\"op\":\"%s\",\"variant\":\"%s\",\"shape\":\"%s\"", c->op, c->variant, in->shape);
        if (t->status != WK_OK) {
            printf(",\"status\":\"%s\",\"error\":", wk_status_string(t->status));
            cli_json_string(stdout, t->error);
            printf("}\n");
            return;
        }
        printf(",\"status\":\"ok\",\"runs\":%d,\"batch\":%d,\"median_ms\":%.6g,\"best_ms\":%.6g,\"%s\":%.6g,"
               "\"%s\":%.6g",
               t->runs, t->batch, 1e3 * t->median_s, 1e3 * t->best_s, flops ? "flops" : calls ? "calls" : "bytes",
               work, flops ? "gflop_per_s" : calls ? "us_per_op" : "gb_per_s", rate);
        if (!pk)
            printf(",\"fraction\":null,\"fraction_of\":null}\n");
        else if (frac >= 0)
            printf(",\"fraction\":%.4f,\"fraction_of\":\"%s\"}\n", frac, of);
        else
            printf(",\"fraction\":null,\"fraction_of\":\"%s\"}\n", of);
        return;
    }
    printf("%-20s %-26s %-22s ", c->op, c->variant, in->shape);
    if (t->status != WK_OK) {
        printf("error %s: %s\n", wk_status_string(t->status), t->error);
        return;
    }
    if (!pk) {
        printf("%10.3f %9.2f %s\n", 1e3 * t->median_s, rate, calls ? "us/op" : "-");
        return;
    }
    printf("%10.3f %9.2f %-7s", 1e3 * t->median_s, rate, flops ? "GFLOP/s" : "GB/s");
    if (frac >= 0)
        printf(" %6.1f%% %s\n", 100 * frac, of);
    else
        printf("      - %s\n", of);
}

/* Builds, times and reports one case; returns whether it ran. */
static bool bench_one(wk_device *dev, const bench_case *c, bool quick, bool json, const run_policy *p,
                      const peaks *pks)
{
    case_ctx cc = {.c = c, .in = {.n = 0, .flops = 0, .calls = 0, .shape = ""}};
    timing t = {.status = WK_OK, .error = "", .batch = 1};
    wk_tensor *first = NULL;
    double work = 0;
    t.status = make_inputs(c, dev, quick, &cc.in);
    if (t.status != WK_OK) {
        snprintf(t.error, sizeof t.error, "making inputs: %s", wk_last_error());
    } else {
        t = time_op(dev, case_once, &cc, p, &first);
        work = c->unit == BENCH_CALLS ? (double)cc.in.calls : cc.in.flops;
        if (c->unit == BENCH_BYTES) {
            work = tensor_bytes(first);
            for (int k = 0; k < cc.in.n; k++)
                work += tensor_bytes(cc.in.t[k]);
        }
    }
    const char *of = NULL;
    const peak *pk = peak_of(c, pks, bench_is_cpu(dev), &of);
    print_case(json, dev, c, &cc.in, &t, work, pk, of);
    fflush(stdout);
    wk_tensor_release(first);
    for (int k = 0; k < cc.in.n; k++)
        wk_tensor_release(cc.in.t[k]);
    return t.status == WK_OK;
}

/* ---------------------------------------------------------------- the command */

static void shape_text(char *buf, size_t size, int rank, const int64_t *shape)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, d ? "x%lld" : "%lld", (long long)shape[d]);
}

static void list_cases(const bench_case *cases, int n)
{
    printf("%-20s %-26s %-18s %-18s %s\n", "op", "variant", "cpu shape", "quick shape", "gpu shape");
    for (int i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        char full[64] = "-", quick[64], gpu[64];
        if (!c->gpu_only)
            shape_text(full, sizeof full, c->rank, c->full);
        shape_text(quick, sizeof quick, c->rank, c->quick);
        shape_text(gpu, sizeof gpu, c->rank, bench_shape(c, false, true));
        printf("%-20s %-26s %-18s %-18s %s\n", c->op, c->variant, full, quick, gpu);
    }
}

int cmd_bench(int argc, char **argv)
{
    const char *device = NULL, *op_arg = NULL;
    bool json = false, quick = false, list_only = false;
    for (int i = 1; i < argc; i++) {
        int m;
        if ((m = cli_value_option(argc, argv, &i, "--device", &device)) ||
            (m = cli_value_option(argc, argv, &i, "--op", &op_arg))) {
            if (m < 0)
                goto bad_usage;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--list") == 0) {
            list_only = true;
        } else if (cli_is_help(argv[i])) {
            fputs(bench_usage, stdout);
            return CLI_OK;
        } else {
            fprintf(stderr, "wick bench: unknown option '%s'\n", argv[i]);
            goto bad_usage;
        }
    }

    int ncases = 0;
    const bench_case *cases = bench_cases(&ncases);
    if (list_only) {
        list_cases(cases, ncases);
        return CLI_OK;
    }
    bool *selected = calloc((size_t)ncases, sizeof *selected);
    if (!selected) {
        fprintf(stderr, "wick bench: out of memory\n");
        return CLI_FAILED;
    }
    bool need_copy = false, need_blas = false, need_blas_bf16 = false;
    char op_buf[512];
    char *names[64];
    int nnames = op_arg ? cli_split_list(op_arg, op_buf, sizeof op_buf, names, 64) : 0;
    if (nnames < 0) {
        fprintf(stderr, "wick bench: bad --op list '%s'\n", op_arg);
        goto bad_usage;
    }
    for (int k = 0; k < nnames; k++) {
        bool known = false;
        for (int i = 0; i < ncases; i++)
            known |= strcmp(cases[i].op, names[k]) == 0;
        if (!known) {
            fprintf(stderr, "wick bench: no benchmark of op '%s' (wick bench --list shows them)\n", names[k]);
            free(selected);
            goto bad_usage;
        }
    }
    for (int i = 0; i < ncases; i++) {
        selected[i] = nnames == 0;
        for (int k = 0; k < nnames; k++)
            selected[i] |= strcmp(cases[i].op, names[k]) == 0;
        need_copy |= selected[i] && cases[i].unit == BENCH_BYTES;
        need_blas |= selected[i] && cases[i].unit == BENCH_FLOPS;
        need_blas_bf16 |= selected[i] && cases[i].unit == BENCH_FLOPS &&
                          (cases[i].dtype == WK_F16 || cases[i].dtype == WK_BF16);
    }

    wk_device *devs[CLI_MAX_DEVICES];
    int ndev = 0;
    if (!cli_devices(device, devs, &ndev)) {
        free(selected);
        goto bad_usage;
    }
    /* Poisoning new allocations (a test aid) would add a memset to every timed op. */
    unsetenv("WICK_POISON");

    /* The CPU: one call per run, as always. A GPU: batches of a few ms per run, and a smaller budget per
     * case, since its cases take milliseconds and there are more of them. */
    const run_policy cpu_policy = quick ? (run_policy){.budget_s = 0.25, .min_runs = 3, .max_runs = 10}
                                        : (run_policy){.budget_s = 2.0, .min_runs = 5, .max_runs = MAX_RUNS};
    const run_policy gpu_policy =
        quick ? (run_policy){.budget_s = 0.05, .min_runs = 3, .max_runs = 10, .batch_s = 0.002, .max_batch = 100}
              : (run_policy){.budget_s = 0.25, .min_runs = 5, .max_runs = MAX_RUNS, .batch_s = 0.005,
                             .max_batch = 1000};
    int timed = 0, failed = 0;
    for (int d = 0; d < ndev; d++) {
        bool cpu = bench_is_cpu(devs[d]);
        const run_policy *policy = cpu ? &cpu_policy : &gpu_policy;
        if (!json) {
            printf("device %s (%s sizes; median of %d-%d runs after a warm-up%s)\n", wk_device_name(devs[d]),
                   quick ? "quick" : cpu ? "full" : "gpu", policy->min_runs, policy->max_runs,
                   cpu ? "" : ", each a batch of calls ended by one sync, per call");
            fflush(stdout);
        }
        peaks pk = {{false, 0}, {false, 0}, {false, 0}};
        if (need_copy && !(pk.copy = measure_copy(devs[d], quick, json, policy)).ok)
            failed++;
        if (need_blas && !(pk.blas = measure_blas(devs[d], WK_F32, quick, json, policy)).ok)
            failed++;
        if (need_blas_bf16 && !cpu && !(pk.blas_bf16 = measure_blas(devs[d], WK_BF16, quick, json, policy)).ok)
            failed++;
        if (need_copy && !cpu) /* no case is rated against these: they are reported for the file loaders */
            for (int pinned = 1; pinned >= 0; pinned--)
                failed += !measure_h2d(devs[d], pinned, quick, json, policy).ok;
        if (!json)
            printf("%-20s %-26s %-22s %10s %17s %s\n", "op", "variant", "shape", "median ms", "rate", "of peak");
        for (int i = 0; i < ncases; i++) {
            if (!selected[i] || (cpu && cases[i].gpu_only))
                continue;
            bool ok = bench_one(devs[d], &cases[i], quick, json, policy, &pk);
            timed += ok;
            failed += !ok;
        }
    }
    free(selected);
    if (json)
        printf("{\"record\":\"summary\",\"timed\":%d,\"failed\":%d}\n", timed, failed);
    else
        printf("%d timed, %d failed\n", timed, failed);
    return failed ? CLI_FAILED : CLI_OK;

bad_usage:
    fputs(bench_usage, stderr);
    return CLI_USAGE;
}

/* runner.c: runs the case table on one device and prints a line (or a JSON record) per case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

uint64_t wkt_default_seed(void)
{
    const char *s = getenv("WICK_SEED");
    if (s && *s)
        return strtoull(s, NULL, 0);
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
}

static void print_case(FILE *f, const wkt_options *o, const wkt_case *c, const wkt_result *r, wk_device *dev)
{
    char sh[96];
    wkt_shape_name(c, sh, sizeof sh);
    const char *verdict = r->skipped ? "SKIP" : r->pass ? "PASS" : "FAIL";
    if (o->json) {
        char err[32];
        if (isfinite(r->max_rel_err))
            snprintf(err, sizeof err, "%.3e", r->max_rel_err);
        else
            snprintf(err, sizeof err, "null");
        fprintf(f,
                "{\"device\":\"%s\",\"family\":\"%s\",\"op\":\"%s\",\"dtype\":\"%s\",\"layout\":\"%s\","
                "\"shape\":\"%s\",\"max_rel_err\":%s,\"tol\":%.1e,\"pass\":%s,\"skipped\":%s}\n",
                wk_device_name(dev), c->family, c->op, wk_dtype_name(c->dtype), wkt_layout_name(c->layout), sh, err,
                r->tol, r->pass && !r->skipped ? "true" : "false", r->skipped ? "true" : "false");
        return;
    }
    if (o->quiet && r->pass && !r->skipped)
        return;
    fprintf(f, "%-4s %-8s %-22s %-5s %-10s %-14s err %-9.2e tol %-7.0e %s\n", verdict, wk_device_name(dev), c->op,
            wk_dtype_name(c->dtype), wkt_layout_name(c->layout), sh, r->max_rel_err, r->tol, r->msg);
}

/* The errors wick.h's zero-size rule documents, by op: min, max, argmin and argmax of nothing have no identity;
 * an index into an emptied dim is out of range. A case run emptied (WICK_ZERO_SIZE) that fails with its op's
 * documented status, and no other failure, passes. */
static bool documented_empty_error(const char *op, wk_status s)
{
    static const char *const no_identity[] = {"reduce_min", "reduce_max", "argmin", "argmax"};
    static const char *const indexing[] = {"index_select", "gather", "scatter", "scatter_add", "index_add"};
    for (size_t i = 0; i < sizeof no_identity / sizeof *no_identity; i++)
        if (strcmp(op, no_identity[i]) == 0)
            return s == WK_ERR_SHAPE;
    for (size_t i = 0; i < sizeof indexing / sizeof *indexing; i++)
        if (strncmp(op, indexing[i], strlen(indexing[i])) == 0)
            return s == WK_ERR_INDEX_OUT_OF_RANGE;
    return false;
}

/* op_filter is one op name or a comma-separated list of them. */
static bool op_selected(const char *filter, const char *op)
{
    if (!filter)
        return true;
    size_t n = strlen(op);
    for (const char *p = filter; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, op, n) == 0)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

wkt_summary wkt_run_table(wk_device *dev, const wkt_options *o)
{
    wkt_summary sum = {0, 0, 0};
    wkt_list list = {0};
    int nf = 0;
    const wkt_family *const *fams = wkt_families(&nf);
    FILE *f = o->out ? o->out : stdout;
    for (int i = 0; i < nf; i++)
        fams[i]->cases(&list);
    for (int i = 0; i < list.n; i++) {
        wkt_case zc = list.items[i];
        const wkt_case *c = &list.items[i];
        if (!op_selected(o->op_filter, c->op) || (o->zero_size && c->rank == 0))
            continue;
        if (o->zero_size) { /* the same case with nothing in it: every op's empty rule (wick.h) */
            zc.shape[0] = 0;
            c = &zc;
        }
        wkt_rng rng;
        wkt_rng_seed(&rng, o->seed ^ ((uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull));
        wkt_result r = {.max_rel_err = 0, .tol = 0, .pass = true, .skipped = false, .msg = "", .status = WK_OK};
        c->run(c, dev, &rng, &r);
        if (o->zero_size && !r.pass && documented_empty_error(c->op, r.status) &&
            strncmp(r.msg, c->op, strlen(c->op)) == 0) {
            r.pass = true;
            snprintf(r.msg, sizeof r.msg, "%s (the documented error)", wk_status_string(r.status));
        }
        if (r.skipped)
            sum.skipped++;
        else if (r.pass)
            sum.passed++;
        else
            sum.failed++;
        print_case(f, o, c, &r, dev);
    }
    wkt_list_free(&list);
    return sum;
}

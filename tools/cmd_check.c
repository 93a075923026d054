/* cmd_check.c: `wick check`: runs the case table of tests/ (the same one ctest runs) on one or every
 * device against the float64 reference, one line or JSON record per case, then a summary. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "harness.h"

static const char check_usage[] =
    "usage: wick check [--device D] [--op NAMES] [--seed N] [--json] [--quiet] [--list]\n"
    "  --device D   cpu, cuda:0, rocm:0, gpu:0, or all (default: every device found)\n"
    "  --op NAMES   run only the cases of these ops (comma-separated; --list shows them)\n"
    "  --seed N     replay a run (default: $WICK_SEED, else from the clock; printed first)\n"
    "  --json       one JSON record per line: a header, one per case, one summary per device, a total\n"
    "  --quiet      text mode: print failed and skipped cases only\n"
    "  --list       print the ops of the case table with their number of cases, run nothing\n"
    "Exit status: 0 all passed, 1 a case failed (or none ran), 2 bad usage.\n";

/* The distinct op names of the case table, in table order, with their case counts. */
typedef struct op_names {
    char (*name)[32];
    int *cases;
    int n;
} op_names;

static bool collect_ops(op_names *ops)
{
    wkt_list list = {0};
    int nf = 0;
    const wkt_family *const *fams = wkt_families(&nf);
    for (int i = 0; i < nf; i++)
        fams[i]->cases(&list);
    ops->n = 0;
    ops->name = malloc(sizeof *ops->name * (size_t)(list.n + 1));
    ops->cases = malloc(sizeof *ops->cases * (size_t)(list.n + 1));
    if (!ops->name || !ops->cases) {
        wkt_list_free(&list);
        return false;
    }
    for (int i = 0; i < list.n; i++) {
        int k = 0;
        while (k < ops->n && strcmp(ops->name[k], list.items[i].op) != 0)
            k++;
        if (k == ops->n) {
            snprintf(ops->name[k], sizeof ops->name[k], "%s", list.items[i].op);
            ops->cases[k] = 0;
            ops->n++;
        }
        ops->cases[k]++;
    }
    wkt_list_free(&list);
    return true;
}

static void free_ops(op_names *ops)
{
    free(ops->name);
    free(ops->cases);
}

static bool known_op(const op_names *ops, const char *name)
{
    for (int k = 0; k < ops->n; k++)
        if (strcmp(ops->name[k], name) == 0)
            return true;
    return false;
}

int cmd_check(int argc, char **argv)
{
    /* Before anything allocates: new allocations are filled with NaN / all-ones bytes, so an element an
     * op forgets to write fails its case. */
    setenv("WICK_POISON", "1", 1);
    const char *device = NULL, *op_arg = NULL, *seed_arg = NULL;
    bool json = false, quiet = false, list_only = false;
    for (int i = 1; i < argc; i++) {
        int m;
        if ((m = cli_value_option(argc, argv, &i, "--device", &device)) ||
            (m = cli_value_option(argc, argv, &i, "--op", &op_arg)) ||
            (m = cli_value_option(argc, argv, &i, "--seed", &seed_arg))) {
            if (m < 0)
                goto bad_usage;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            quiet = true;
        } else if (strcmp(argv[i], "--list") == 0) {
            list_only = true;
        } else if (cli_is_help(argv[i])) {
            fputs(check_usage, stdout);
            return CLI_OK;
        } else {
            fprintf(stderr, "wick check: unknown option '%s'\n", argv[i]);
            goto bad_usage;
        }
    }

    uint64_t seed = 0;
    if (seed_arg && !cli_parse_u64(seed_arg, &seed)) {
        fprintf(stderr, "wick check: --seed wants an unsigned integer, not '%s'\n", seed_arg);
        goto bad_usage;
    }
    if (!seed_arg)
        seed = wkt_default_seed();

    op_names ops;
    if (!collect_ops(&ops)) {
        fprintf(stderr, "wick check: out of memory\n");
        return CLI_FAILED;
    }
    if (list_only) {
        for (int k = 0; k < ops.n; k++)
            printf("%-24s %d case(s)\n", ops.name[k], ops.cases[k]);
        free_ops(&ops);
        return CLI_OK;
    }
    char op_buf[512];
    char *filters[64];
    int nfilters = 0;
    if (op_arg) {
        nfilters = cli_split_list(op_arg, op_buf, sizeof op_buf, filters, 64);
        if (nfilters < 0)
            fprintf(stderr, "wick check: bad --op list '%s'\n", op_arg);
        for (int k = 0; k < nfilters; k++)
            if (!known_op(&ops, filters[k])) {
                fprintf(stderr, "wick check: no case of op '%s' in the table (wick check --list shows them)\n",
                        filters[k]);
                nfilters = -1;
            }
    }
    free_ops(&ops);
    if (nfilters < 0)
        goto bad_usage;

    wk_device *devs[CLI_MAX_DEVICES];
    int ndev = 0;
    if (!cli_devices(device, devs, &ndev))
        goto bad_usage;

    if (json) {
        printf("{\"record\":\"header\",\"seed\":%llu,\"devices\":[", (unsigned long long)seed);
        for (int d = 0; d < ndev; d++) {
            if (d)
                putchar(',');
            cli_json_string(stdout, wk_device_name(devs[d]));
        }
        printf("]}\n");
    } else {
        printf("seed %llu (replay with --seed %llu)\n", (unsigned long long)seed, (unsigned long long)seed);
    }
    fflush(stdout);

    wkt_summary total = {0, 0, 0};
    for (int d = 0; d < ndev; d++) {
        wkt_summary dev_sum = {0, 0, 0};
        for (int k = 0; k < (nfilters ? nfilters : 1); k++) {
            wkt_options o = {.op_filter = nfilters ? filters[k] : NULL, .json = json, .quiet = quiet,
                             .seed = seed, .out = stdout};
            wkt_summary s = wkt_run_table(devs[d], &o);
            dev_sum.passed += s.passed;
            dev_sum.failed += s.failed;
            dev_sum.skipped += s.skipped;
        }
        if (json) {
            printf("{\"record\":\"device_summary\",\"device\":");
            cli_json_string(stdout, wk_device_name(devs[d]));
            printf(",\"passed\":%d,\"failed\":%d,\"skipped\":%d}\n", dev_sum.passed, dev_sum.failed,
                   dev_sum.skipped);
        } else if (ndev > 1) {
            printf("%s: %d passed, %d failed, %d skipped\n", wk_device_name(devs[d]), dev_sum.passed,
                   dev_sum.failed, dev_sum.skipped);
        }
        total.passed += dev_sum.passed;
        total.failed += dev_sum.failed;
        total.skipped += dev_sum.skipped;
    }
    if (json)
        printf("{\"record\":\"summary\",\"seed\":%llu,\"passed\":%d,\"failed\":%d,\"skipped\":%d}\n",
               (unsigned long long)seed, total.passed, total.failed, total.skipped);
    else
        printf("%d passed, %d failed, %d skipped\n", total.passed, total.failed, total.skipped);
    if (total.passed == 0 && total.failed == 0)
        fprintf(stderr, "wick check: no case ran\n");
    return total.failed || total.passed == 0 ? CLI_FAILED : CLI_OK;

bad_usage:
    fputs(check_usage, stderr);
    return CLI_USAGE;
}

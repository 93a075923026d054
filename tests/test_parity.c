/* test_parity.c: runs the whole case table on every device this build can reach and compares each
 * against the float64 reference. Backends without a device are reported as SKIPPED, never as passed.
 * WICK_OP=a,b runs only those ops; WICK_BACKENDS=cuda,rocm only those backends (exit 77, ctest's
 * "skipped", when none of them has a device); WICK_ZERO_SIZE=1 runs every case with its main input emptied. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int main(void)
{
    setenv("WICK_POISON", "1", 1); /* new allocations are filled with NaN / all-ones bytes */
    const char *zero = getenv("WICK_ZERO_SIZE");
    wkt_options o = {.op_filter = getenv("WICK_OP"), .json = false, .quiet = getenv("WICK_VERBOSE") == NULL,
                     .zero_size = zero && *zero && strcmp(zero, "0") != 0, .seed = wkt_default_seed(), .out = stdout};
    printf("seed %llu (replay with WICK_SEED=%llu)\n", (unsigned long long)o.seed, (unsigned long long)o.seed);
    int failed = 0, passed = 0, skipped = 0;
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        const char *only = getenv("WICK_BACKENDS");
        if (wk_backend_info_get(b, &info) != WK_OK)
            continue;
        if (only && *only && !strstr(only, info.name))
            continue;
        if (!info.available || info.device_count == 0) {
            printf("SKIPPED backend %s: %s\n", info.name, info.detail);
            skipped++;
            continue;
        }
        for (int d = 0; d < info.device_count; d++) {
            char name[32];
            wk_device *dev = NULL;
            snprintf(name, sizeof name, d == 0 && b == 0 ? "%s" : "%s:%d", info.name, d);
            if (wk_device_get(name, &dev) != WK_OK) {
                printf("FAIL cannot open %s: %s\n", name, wk_last_error());
                failed++;
                continue;
            }
            wkt_summary s = wkt_run_table(dev, &o);
            printf("%s: %d passed, %d failed, %d skipped\n", name, s.passed, s.failed, s.skipped);
            passed += s.passed;
            failed += s.failed;
            skipped += s.skipped;
        }
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    if (!failed && passed == 0 && getenv("WICK_BACKENDS"))
        return 77; /* none of the asked-for backends has a device here */
    return failed || passed == 0 ? 1 : 0;
}

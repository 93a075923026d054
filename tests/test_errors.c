/* test_errors.c: every family's error-path checks (bad shapes, dtypes, devices, parameters, NULLs):
 * each must return the right status, name the op in wk_last_error(), and change nothing. */
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    wk_device *cpu = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK) {
        printf("FAIL cannot open cpu: %s\n", wk_last_error());
        return 1;
    }
    wkt_errctx e = {.dev = cpu, .checks = 0, .failures = 0};
    int nf = 0;
    const wkt_family *const *fams = wkt_families(&nf);
    for (int i = 0; i < nf; i++) {
        if (!fams[i]->errors)
            continue;
        int before = e.failures, checks = e.checks;
        fams[i]->errors(&e);
        printf("%-10s %3d checks, %d failed\n", fams[i]->name, e.checks - checks, e.failures - before);
    }
    printf("%d passed, %d failed\n", e.checks - e.failures, e.failures);
    return e.failures || e.checks == 0 ? 1 : 0;
}

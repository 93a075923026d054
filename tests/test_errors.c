/* test_errors.c: every family's error-path checks (bad shapes, dtypes, devices, parameters, NULLs):
 * each must return the right status, name the op in wk_last_error(), and change nothing. On the CPU; with --gpu on
 * the first GPU this build reaches instead (the families' checks; exit 77, ctest's skip, where there is none), so
 * that a GPU slot's own refusals (a fused kernel's bad length that writes nothing) are tested too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Device names: malformed or unknown ones, and every GPU backend's ordinal out of range, or, where the backend
 * has no device here, a refusal that says what it looked for. *out is never written on failure. */
static void device_errors(wkt_errctx *e)
{
    wk_device *sentinel = (wk_device *)&e->checks, *dev = sentinel;
    WKT_EXPECT(e, wk_device_get(NULL, &dev), WK_ERR_INVALID_ARGUMENT, "device_get");
    WKT_EXPECT(e, wk_device_get("cpu", NULL), WK_ERR_INVALID_ARGUMENT, "device_get");
    static const char *const bad[] = {"", ":0", "nosuch:0", "cuda:", "cuda:x", "cuda:-1", "rocm:1x", "cpu:9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        WKT_EXPECT(e, wk_device_get(bad[i], &dev), WK_ERR_DEVICE, "device_get");
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        char name[32];
        if (wk_backend_info_get(b, &info) != WK_OK || strcmp(info.name, "cpu") == 0)
            continue;
        int past = info.available ? info.device_count : 0;
        snprintf(name, sizeof name, "%s:%d", info.name, past);
        WKT_EXPECT(e, wk_device_get(name, &dev), WK_ERR_DEVICE, "device_get");
        e->checks++;
        if (!strstr(wk_last_error(), name) || (!info.available && !strstr(wk_last_error(), info.detail))) {
            e->failures++;
            printf("FAIL device_get(\"%s\"): the message does not name the device and what was looked for: %s\n",
                   name, wk_last_error());
        }
    }
    e->checks++;
    if (dev != sentinel) {
        e->failures++;
        printf("FAIL device_get wrote its out-param on failure\n");
    }
}

/* The first GPU device this build reaches, or NULL. */
static wk_device *first_gpu(void)
{
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        char name[32];
        wk_device *dev = NULL;
        if (wk_backend_info_get(b, &info) != WK_OK || strcmp(info.name, "cpu") == 0 || !info.available ||
            info.device_count < 1)
            continue;
        snprintf(name, sizeof name, "%s:0", info.name);
        if (wk_device_get(name, &dev) == WK_OK)
            return dev;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    bool gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    if (argc > 1 && !gpu) {
        printf("usage: test_errors [--gpu]\n");
        return 2;
    }
    wk_device *dev = NULL;
    if (gpu && !(dev = first_gpu())) {
        printf("SKIPPED: no GPU device here\n");
        return 77;
    }
    if (!gpu && wk_device_get("cpu", &dev) != WK_OK) {
        printf("FAIL cannot open cpu: %s\n", wk_last_error());
        return 1;
    }
    printf("error paths on %s\n", wk_device_name(dev));
    wkt_errctx e = {.dev = dev, .checks = 0, .failures = 0};
    if (!gpu) {
        device_errors(&e);
        printf("%-10s %3d checks, %d failed\n", "device", e.checks, e.failures);
    }
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

/* test_kernel_table.c: the host's kernel table (gpu/launch.c), generated from the family lists of
 * kernels/families.h, on any machine: every variant has a unique entry-point name, a variant a list does not
 * build and slots outside a set's axes are WK_ERR_UNSUPPORTED naming the kernel, and arguments of the wrong size
 * are refused before anything is looked up. Where a GPU is reachable, every variant the lists build must be
 * present in the device's kernels (the lists and the compiled entry points agree). `test_kernel_table --list
 * [SET_PREFIX]` prints the names of the built variants, one a line, to compare with a kernel build's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "wick.h"

#include "check.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Walks every slot of every set (up to 16 a axis: more than any set has); with `list`, prints the built ones
 * whose name starts with it. Returns the names of the variants, built or not. */
static int walk(const char *list, const char **names, int cap)
{
    int n = 0;
    for (int k = 0; k < WK_KS_COUNT; k++)
        for (int a = 0; a < 16; a++)
            for (int b = 0; b < 16; b++)
                for (int w = 0; w < 2; w++) {
                    const char *name = NULL;
                    wk_status s = wk_gpu_kernel_name((wk_gpu_kset)k, a, b, w, &name);
                    if (!name)
                        continue;
                    CHECK(s == WK_OK || s == WK_ERR_UNSUPPORTED, "set %d (%d, %d, %d): status %s", k, a, b, w,
                          wk_status_string(s));
                    if (s == WK_ERR_UNSUPPORTED)
                        CHECK(strstr(wk_last_error(), name) != NULL, "the message does not name %s", name);
                    if (list && s == WK_OK && strncmp(name, list, strlen(list)) == 0)
                        printf("%s\n", name);
                    if (n < cap)
                        names[n++] = name;
                }
    return n;
}

/* On each GPU backend with a device: every built variant's entry point is found (the _w64 variants only where
 * the build has them, as the probe's _w64 says). */
static void check_device_kernels(void)
{
    for (int b = 0; b < wk_backend_count(); b++) {
        wk_backend_info info;
        wk_device *dev = NULL;
        char name[32];
        if (wk_backend_info_get(b, &info) != WK_OK || strcmp(info.name, "cpu") == 0 || !info.available)
            continue;
        snprintf(name, sizeof name, "%s:0", info.name);
        CHECK(wk_device_get(name, &dev) == WK_OK, "open %s", name);
        if (!dev)
            continue;
        wk_gpu_dev *d = dev->impl; /* a GPU backend's device (core/tensor.h) */
        bool wide = wk_gpu_kernel_present(d, WK_KS_probe_wave_width, 0, 0, 1);
        int found = 0;
        for (int k = 0; k < WK_KS_COUNT; k++)
            for (int a = 0; a < 16; a++)
                for (int bb = 0; bb < 16; bb++)
                    for (int w = 0; w < (wide ? 2 : 1); w++) {
                        const char *kname = NULL;
                        if (wk_gpu_kernel_name((wk_gpu_kset)k, a, bb, w, &kname) != WK_OK)
                            continue;
                        bool present = wk_gpu_kernel_present(d, (wk_gpu_kset)k, a, bb, w);
                        CHECK(present, "%s: %s is listed but not in the device's kernels", name, kname);
                        found += present;
                    }
        printf("test_kernel_table: %s: %d entry points found%s\n", name, found, wide ? " (with _w64)" : "");
    }
}

int main(int argc, char **argv)
{
    static const char *names[1 << 16];
    if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
        walk(argc >= 3 ? argv[2] : "", names, 1 << 16);
        return failures ? 1 : 0;
    }
    int n = walk(NULL, names, 1 << 16);
    CHECK(n > 0 && n < (1 << 16), "%d variants", n);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 1; i < n; i++)
        CHECK(strcmp(names[i - 1], names[i]) != 0, "two variants are both named %s", names[i]);

    /* a variant the list does not build: avg pooling of u8 */
    const char *name = NULL;
    wk_status s = wk_gpu_kernel_name(WK_KS_pool_avg, WK_U8, 0, 0, &name);
    CHECK(s == WK_ERR_UNSUPPORTED && name && strcmp(name, "pool_avg_u8") == 0, "pool_avg u8: %s, %s",
          wk_status_string(s), name ? name : "(null)");
    CHECK(strstr(wk_last_error(), "pool_avg_u8") && strstr(wk_last_error(), "kernels/pool.h"),
          "the message names neither the kernel nor its list");
    s = wk_gpu_kernel_name(WK_KS_pool_max, WK_F32, 0, 0, &name);
    CHECK(s == WK_OK && strcmp(name, "pool_max_f32") == 0, "pool_max f32: %s", wk_status_string(s));
    s = wk_gpu_kernel_name(WK_KS_probe_wave_width, 0, 0, 1, &name);
    CHECK(s == WK_OK && strcmp(name, "probe_wave_width_w64") == 0, "probe _w64: %s", wk_status_string(s));

    /* slots outside the axes, and a set that does not exist */
    CHECK(wk_gpu_kernel_name(WK_KS_pool_max, WK_DTYPE_COUNT, 0, 0, &name) == WK_ERR_UNSUPPORTED && !name,
          "dtype slot past the axis");
    CHECK(strstr(wk_last_error(), "pool_max") != NULL, "the message does not name the set");
    CHECK(wk_gpu_kernel_name(WK_KS_pool_max, -1, 0, 0, &name) == WK_ERR_UNSUPPORTED, "negative slot");
    CHECK(wk_gpu_kernel_name(WK_KS_pool_max, WK_F32, 1, 0, &name) == WK_ERR_UNSUPPORTED, "second axis has 1 slot");
    CHECK(wk_gpu_kernel_name(WK_KS_COUNT, 0, 0, 0, &name) == WK_ERR_INTERNAL, "no such set");

    /* arguments of another size are refused before the device is touched (here: none) */
    wk_gpu_pool_args args;
    memset(&args, 0, sizeof args);
    wk_gpu_dim one = {1, 1, 1};
    s = wk_gpu_launch(NULL, WK_KS_pool_max, WK_F32, 0, 0, one, one, 0, &args, sizeof args - 8);
    CHECK(s == WK_ERR_INTERNAL && strstr(wk_last_error(), "pool_max_f32"), "short arguments: %s",
          wk_status_string(s));
    s = wk_gpu_launch(NULL, WK_KS_pool_avg, WK_I32, 0, 0, one, one, 0, &args, sizeof args);
    CHECK(s == WK_ERR_UNSUPPORTED && strstr(wk_last_error(), "pool_avg_i32"), "unbuilt variant: %s",
          wk_status_string(s));

    check_device_kernels();
    printf("test_kernel_table: %d variants, %d checks, %d failures\n", n, checks, failures);
    return failures ? 1 : 0;
}

/* npy_tool.c: wick's .npy reader and writer driven from the numpy interop test (tests/py/test_npy.py):
 *   npy_tool copy IN OUT [DTYPE]  wk_npy_load (wk_npy_load_as DTYPE when given) then wk_npy_save
 *   npy_tool hex IN [DTYPE]       prints "dtype D", "shape N N ...", "readonly 0|1" and "hex <row-major bytes>"
 * Exit status 0 on success; 1 with "npy_tool: <status>: <message>" on stderr when wick refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int fail(wk_status s)
{
    fprintf(stderr, "npy_tool: %s: %s\n", wk_status_string(s), wk_last_error());
    return 1;
}

static wk_status load(const char *path, const char *dtype, wk_tensor **out)
{
    wk_device *cpu = NULL;
    wk_status s = wk_device_get("cpu", &cpu);
    if (s != WK_OK)
        return s;
    if (!dtype)
        return wk_npy_load(path, cpu, out);
    wk_dtype dt;
    if ((s = wk_dtype_from_name(dtype, &dt)) != WK_OK)
        return s;
    return wk_npy_load_as(path, cpu, dt, out);
}

static int hex(const wk_tensor *t)
{
    printf("dtype %s\nshape", wk_dtype_name(wk_tensor_dtype(t)));
    for (int i = 0; i < wk_tensor_rank(t); i++)
        printf(" %lld", (long long)wk_tensor_shape(t)[i]);
    printf("\nreadonly %d\nhex ", wk_tensor_is_read_only(t) ? 1 : 0);
    size_t n = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    unsigned char *b = malloc(n ? n : 1);
    wk_status s = b ? wk_tensor_to_host(t, b, n) : WK_ERR_OUT_OF_MEMORY;
    if (s != WK_OK) {
        free(b);
        return fail(s);
    }
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    bool copy = argc >= 4 && argc <= 5 && strcmp(argv[1], "copy") == 0;
    bool dump = argc >= 3 && argc <= 4 && strcmp(argv[1], "hex") == 0;
    if (!copy && !dump) {
        fprintf(stderr, "usage: npy_tool copy IN OUT [DTYPE] | npy_tool hex IN [DTYPE]\n");
        return 2;
    }
    wk_tensor *t = NULL;
    wk_status s = load(argv[2], copy ? (argc == 5 ? argv[4] : NULL) : (argc == 4 ? argv[3] : NULL), &t);
    if (s != WK_OK)
        return fail(s);
    int rc = 0;
    if (copy) {
        s = wk_npy_save(argv[3], t);
        rc = s == WK_OK ? 0 : fail(s);
    } else {
        rc = hex(t);
    }
    wk_tensor_release(t);
    return rc;
}

/* fuzz_npy.c: the .npy reader on arbitrary bytes: load to the CPU (plain, and converted to f64 and to the
 * file's own dtype through the _as load), touch every loaded byte, and check that the two loads agree on the
 * shape and that a plain load fails only for a file's type (WK_ERR_DTYPE) or a damaged file (WK_ERR_FILE). */
#include "fuzz_common.h" /* first: it sets _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>

#include "wick.h"

static unsigned sink;

static void touch(wk_tensor *t)
{
    size_t n = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    unsigned char *b = malloc(n + 1);
    if (!b || wk_tensor_to_host(t, b, n + 1) != WK_OK)
        abort(); /* a tensor that loaded must read back */
    for (size_t i = 0; i < n; i++)
        sink += b[i];
    free(b);
}

static bool same_shape(const wk_tensor *a, const wk_tensor *b)
{
    return wk_tensor_rank(a) == wk_tensor_rank(b) &&
           memcmp(wk_tensor_shape(a), wk_tensor_shape(b), sizeof(int64_t) * (size_t)wk_tensor_rank(a)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    wk_device *cpu = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK)
        return 0;
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    wk_tensor *t = NULL, *a = NULL;
    wk_status s = wk_npy_load(path, cpu, &t);
    if (s != WK_OK && s != WK_ERR_DTYPE && s != WK_ERR_FILE)
        abort();
    wk_status sa = wk_npy_load_as(path, cpu, WK_F64, &a);
    if (s == WK_OK && sa != WK_OK)
        abort(); /* every wick dtype converts to f64 */
    if (s == WK_ERR_FILE && sa != WK_ERR_FILE)
        abort();
    if (s == WK_OK) {
        touch(t);
        if (!same_shape(t, a))
            abort();
        wk_tensor *b = NULL;
        if (wk_npy_load_as(path, cpu, wk_tensor_dtype(t), &b) != WK_OK || !same_shape(t, b))
            abort();
        touch(b);
        wk_tensor_release(b);
    }
    if (sa == WK_OK)
        touch(a);
    wk_tensor_release(a);
    wk_tensor_release(t);
    close(fd);
    return 0;
}

/* fuzz_safetensors.c: the safetensors reader on arbitrary bytes: open, walk every tensor's info and every metadata
 * entry, find each tensor by name, load each to the CPU (plain, and converted to f32 for the types wick lacks),
 * touch every loaded byte, close. Saving what loaded and reopening it must round-trip the count. */
#include "fuzz_common.h" /* first: it sets _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>

#include "wick.h"

static unsigned sink;

static void touch(wk_tensor *t)
{
    size_t n = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    unsigned char *b = malloc(n + 1);
    if (b && wk_tensor_to_host(t, b, n + 1) == WK_OK)
        for (size_t i = 0; i < n; i++)
            sink += b[i];
    free(b);
}

/* Every tensor of f loaded to the CPU; the ones of wick dtypes are kept in ts/names (n of them). */
static void load_all(wk_safetensors *f, wk_device *cpu, wk_tensor **ts, const char **names, int64_t *n)
{
    for (int64_t i = 0; i < wk_safetensors_count(f); i++) {
        wk_safetensors_tensor_info info;
        int64_t idx = -1;
        if (wk_safetensors_tensor_info_get(f, i, &info) != WK_OK)
            abort();
        if (wk_safetensors_find(f, info.name, &idx) != WK_OK || idx != i)
            abort();
        sink += (unsigned)strlen(info.file_type_name) + (unsigned)info.rank;
        if (info.bytes > ((uint64_t)64 << 20))
            continue; /* keep each run fast: the checks have run already */
        wk_tensor *t = NULL;
        wk_status s = wk_safetensors_load(f, info.name, cpu, &t);
        if (s == WK_OK) {
            touch(t);
            ts[*n] = t;
            names[(*n)++] = info.name;
        } else if (s != WK_ERR_DTYPE) {
            abort(); /* a file that opened must load */
        } else if (wk_safetensors_load_as(f, info.name, cpu, WK_F32, &t) == WK_OK) {
            touch(t);
            wk_tensor_release(t);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    wk_device *cpu = NULL;
    wk_safetensors *f = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK)
        return 0;
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (wk_safetensors_open(path, &f) == WK_OK) {
        int64_t count = wk_safetensors_count(f), n = 0;
        for (int64_t i = 0; i < wk_safetensors_metadata_count(f); i++) {
            const char *k = NULL, *v = NULL, *w = NULL;
            if (wk_safetensors_metadata_get(f, i, &k, &v) != WK_OK || wk_safetensors_metadata_find(f, k, &w) != WK_OK)
                abort();
            sink += (unsigned)strlen(k) + (unsigned)strlen(v) + (unsigned)strlen(w);
        }
        wk_tensor **ts = calloc((size_t)count + 1, sizeof *ts);
        const char **names = calloc((size_t)count + 1, sizeof *names);
        if (ts && names) {
            load_all(f, cpu, ts, names, &n);
            char out[] = "/dev/shm/wick-fuzz-st-XXXXXX";
            int ofd = mkstemp(out);
            if (ofd >= 0) {
                close(ofd);
                wk_safetensors *g = NULL;
                if (wk_safetensors_save(out, n, names, (const wk_tensor *const *)ts, 0, NULL, NULL) != WK_OK ||
                    wk_safetensors_open(out, &g) != WK_OK || wk_safetensors_count(g) != n)
                    abort();
                wk_safetensors_close(g);
                unlink(out);
            }
        }
        for (int64_t i = 0; i < n; i++)
            wk_tensor_release(ts[i]);
        free(ts);
        free(names);
        wk_safetensors_close(f);
    }
    close(fd);
    return 0;
}

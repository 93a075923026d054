/* fuzz_gguf.c: the GGUF reader on arbitrary bytes: open, walk every metadata value (arrays recursively, every
 * typed read), every tensor's info, find each by name, load each to the CPU (typed, _as f32, raw), close. What
 * opened is re-written with wk_gguf_writer (all metadata, the tensors of wick dtypes) and must reopen alike. */
#include "fuzz_common.h" /* first: it sets _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>

#include "io/gguf.h"

static unsigned sink;

static void touch(wk_tensor *t)
{
    size_t n = wk_tensor_nbytes(t);
    unsigned char *b = malloc(n + 1);
    if (b && wk_tensor_to_host(t, b, n + 1) == WK_OK)
        for (size_t i = 0; i < n; i++)
            sink += b[i];
    free(b);
}

static void walk(const wk_gguf_value *v)
{
    int64_t i = 0;
    uint64_t u = 0, n = 0;
    double f = 0;
    bool b = false;
    const char *s = NULL;
    wk_gguf_type t = wk_gguf_value_type(v), et;
    bool is_int = t <= WK_GGUF_INT32 || t == WK_GGUF_UINT64 || t == WK_GGUF_INT64;
    if ((wk_gguf_value_int(v, &i) == WK_OK || wk_gguf_value_uint(v, &u) == WK_OK) != is_int)
        abort();
    if ((wk_gguf_value_float(v, &f) == WK_OK) != (t == WK_GGUF_FLOAT32 || t == WK_GGUF_FLOAT64))
        abort();
    if ((wk_gguf_value_bool(v, &b) == WK_OK) != (t == WK_GGUF_BOOL))
        abort();
    if (wk_gguf_value_string(v, &s, &n) == WK_OK) {
        if (t != WK_GGUF_STRING || s[n] != '\0')
            abort();
        sink += n ? (unsigned char)s[n - 1] : 0;
    }
    if (wk_gguf_value_array(v, &et, &n) != WK_OK)
        return;
    for (uint64_t k = 0; k < n; k++) {
        const wk_gguf_value *e = NULL;
        if (wk_gguf_value_array_get(v, k, &e) != WK_OK || wk_gguf_value_type(e) != et)
            abort();
        walk(e);
    }
    sink += (unsigned)i + (unsigned)u + (unsigned)f + b;
}

/* Every tensor loaded; those of wick dtypes go to the writer. Returns how many did. */
static int64_t load_all(const wk_gguf *g, wk_device *cpu, wk_gguf_writer *w)
{
    int64_t added = 0;
    for (int64_t i = 0; i < wk_gguf_tensor_count(g); i++) {
        wk_gguf_tensor_info info;
        int64_t idx = -1;
        wk_tensor *t = NULL;
        if (wk_gguf_tensor_info_get(g, i, &info) != WK_OK || wk_gguf_find(g, info.name, &idx) != WK_OK || idx != i)
            abort();
        bool known = strcmp(info.ggml_type_name, "unknown") != 0;
        if (info.bytes > ((uint64_t)64 << 20))
            continue;
        wk_status s = wk_gguf_load_raw(g, info.name, cpu, &t);
        if (s != (known ? WK_OK : WK_ERR_DTYPE) || (t && (uint64_t)wk_tensor_numel(t) != info.bytes))
            abort();
        if (t)
            touch(t);
        wk_tensor_release(t);
        t = NULL;
        s = wk_gguf_load(g, info.name, cpu, &t);
        char lower[16] = {0};
        for (size_t k = 0; k + 1 < sizeof lower && info.ggml_type_name[k]; k++)
            lower[k] = (char)(info.ggml_type_name[k] | (info.ggml_type_name[k] >= 'A' && info.ggml_type_name[k] <= 'Z' ? 0x20 : 0));
        wk_dtype qd;
        bool block = info.type == WK_FILE_QUANTIZED && wk_dtype_from_name(lower, &qd) == WK_OK; /* a wick block dtype */
        if (s != (known && (info.type < WK_DTYPE_COUNT || block) ? WK_OK : WK_ERR_DTYPE))
            abort();
        if (t) {
            touch(t);
            if (wk_gguf_writer_add_tensor(w, info.name, t) != WK_OK)
                abort();
            added++;
            wk_tensor_release(t);
        } else if (wk_gguf_load_as(g, info.name, cpu, WK_F32, &t) == WK_OK) {
            touch(t);
            wk_tensor_release(t);
        }
    }
    return added;
}

/* Writes what g holds and reopens it. */
static void round_trip(const wk_gguf *g, wk_device *cpu)
{
    wk_gguf_writer *w = NULL;
    if (wk_gguf_writer_new(&w) != WK_OK)
        return;
    for (int64_t i = 0; i < wk_gguf_metadata_count(g); i++) {
        const char *key = NULL;
        const wk_gguf_value *v = NULL, *v2 = NULL;
        if (wk_gguf_metadata_get(g, i, &key, &v) != WK_OK || wk_gguf_metadata_find(g, key, &v2) != WK_OK || v != v2)
            abort();
        walk(v);
        if (wk_gguf_writer_set_value(w, key, v) != WK_OK)
            abort();
    }
    int64_t n = load_all(g, cpu, w);
    char out[] = "/dev/shm/wick-fuzz-gguf-XXXXXX";
    int ofd = mkstemp(out);
    if (ofd >= 0) {
        close(ofd);
        wk_gguf *h = NULL;
        if (wk_gguf_writer_save(w, out) != WK_OK || wk_gguf_open(out, &h) != WK_OK ||
            wk_gguf_tensor_count(h) != n || wk_gguf_metadata_count(h) != wk_gguf_metadata_count(g) ||
            wk_gguf_alignment(h) != wk_gguf_alignment(g))
            abort();
        wk_gguf_close(h);
        unlink(out);
    }
    wk_gguf_writer_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    wk_device *cpu = NULL;
    wk_gguf *g = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK)
        return 0;
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (wk_gguf_open(path, &g) == WK_OK) {
        sink += wk_gguf_version(g);
        round_trip(g, cpu);
        wk_gguf_close(g);
    }
    close(fd);
    return 0;
}

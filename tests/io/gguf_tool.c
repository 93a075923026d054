/* gguf_tool.c: a test program over wick's GGUF API for tests/py/test_gguf.py.
 *   gguf_tool dump FILE      prints the version, alignment, every metadata key with its typed value (canonical
 *                            text: arrays recursively, floats %.17g, strings with \xHH escapes) and every tensor's
 *                            name, GGML type, ne, offset, bytes and the FNV-1a 64 hash of its raw bytes (and of a
 *                            typed load, for the types wick has a dtype for)
 *   gguf_tool copy IN OUT    writes every metadata value and every tensor of a wick dtype to OUT with the writer */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/gguf.h"

static wk_device *cpu;

static int fail(const char *what)
{
    fprintf(stderr, "gguf_tool: %s: %s\n", what, wk_last_error());
    return 1;
}

static void print_bytes(const char *s, uint64_t n)
{
    putchar('"');
    for (uint64_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            putchar(c);
        else
            printf("\\x%02x", c);
    }
    putchar('"');
}

static void print_float(double f)
{
    if (isnan(f))
        printf("nan");
    else if (isinf(f))
        printf(f > 0 ? "inf" : "-inf");
    else
        printf("%.17g", f);
}

static int print_value(const wk_gguf_value *v)
{
    wk_gguf_type t = wk_gguf_value_type(v), et;
    int64_t i = 0;
    uint64_t u = 0, n = 0;
    double f = 0;
    bool b = false;
    const char *s = NULL;
    if (t == WK_GGUF_ARRAY) {
        if (wk_gguf_value_array(v, &et, &n) != WK_OK)
            return fail("array");
        printf("array<%s>[", wk_gguf_type_name(et));
        for (uint64_t k = 0; k < n; k++) {
            const wk_gguf_value *e = NULL;
            if (k)
                putchar(',');
            if (wk_gguf_value_array_get(v, k, &e) != WK_OK || print_value(e))
                return fail("array element");
        }
        putchar(']');
        return 0;
    }
    printf("%s:", wk_gguf_type_name(t));
    if (t == WK_GGUF_STRING) {
        if (wk_gguf_value_string(v, &s, &n) != WK_OK)
            return fail("string");
        print_bytes(s, n);
    } else if (t == WK_GGUF_BOOL) {
        if (wk_gguf_value_bool(v, &b) != WK_OK)
            return fail("bool");
        printf(b ? "true" : "false");
    } else if (t == WK_GGUF_FLOAT32 || t == WK_GGUF_FLOAT64) {
        if (wk_gguf_value_float(v, &f) != WK_OK)
            return fail("float");
        print_float(f);
    } else if (wk_gguf_value_int(v, &i) == WK_OK) {
        printf("%lld", (long long)i);
    } else if (wk_gguf_value_uint(v, &u) == WK_OK) {
        printf("%llu", (unsigned long long)u);
    } else {
        return fail("integer");
    }
    return 0;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The FNV-1a hash of t's row-major bytes; 0 and a message on failure. */
static int hash_tensor(const wk_tensor *t, uint64_t *h)
{
    size_t bytes = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    unsigned char *buf = malloc(bytes ? bytes : 1);
    if (!buf || wk_tensor_to_host(t, buf, bytes) != WK_OK) {
        free(buf);
        return fail("tensor to host");
    }
    *h = fnv1a(buf, bytes);
    free(buf);
    return 0;
}

static int dump_tensor(const wk_gguf *g, int64_t i)
{
    wk_gguf_tensor_info ti;
    wk_tensor *t = NULL;
    uint64_t h = 0;
    if (wk_gguf_tensor_info_get(g, i, &ti) != WK_OK)
        return fail("tensor info");
    printf("tensor ");
    print_bytes(ti.name, strlen(ti.name));
    printf(" %s %u ne=[", ti.ggml_type_name, ti.ggml_type);
    for (int d = 0; d < ti.rank; d++)
        printf(d ? ",%lld" : "%lld", (long long)ti.ne[d]);
    printf("] offset=%llu bytes=%llu", (unsigned long long)ti.offset, (unsigned long long)ti.bytes);
    if (strcmp(ti.ggml_type_name, "unknown") == 0) {
        printf(" raw=unknown\n");
        return 0;
    }
    if (wk_gguf_load_raw(g, ti.name, cpu, &t) != WK_OK || hash_tensor(t, &h))
        return fail("raw load");
    wk_tensor_release(t);
    printf(" fnv=%016llx", (unsigned long long)h);
    if (ti.type < WK_DTYPE_COUNT) {
        t = NULL;
        if (wk_gguf_load(g, ti.name, cpu, &t) != WK_OK || hash_tensor(t, &h))
            return fail("load");
        wk_tensor_release(t);
        printf(" load_fnv=%016llx", (unsigned long long)h);
    }
    putchar('\n');
    return 0;
}

static int dump(const char *path)
{
    wk_gguf *g = NULL;
    if (wk_gguf_open(path, &g) != WK_OK)
        return fail("open");
    int rc = 0;
    printf("version %u\nalignment %u\n", wk_gguf_version(g), wk_gguf_alignment(g));
    for (int64_t i = 0; i < wk_gguf_metadata_count(g) && !rc; i++) {
        const char *key = NULL;
        const wk_gguf_value *v = NULL;
        if (wk_gguf_metadata_get(g, i, &key, &v) != WK_OK)
            return fail("metadata");
        printf("kv ");
        print_bytes(key, strlen(key));
        putchar(' ');
        rc = print_value(v);
        putchar('\n');
    }
    for (int64_t i = 0; i < wk_gguf_tensor_count(g) && !rc; i++)
        rc = dump_tensor(g, i);
    wk_gguf_close(g);
    return rc;
}

/* Stores element e of a scalar array into buf (its C type's bytes) through the typed reads. */
static wk_status store_scalar(const wk_gguf_value *e, wk_gguf_type et, unsigned char *buf)
{
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;
    bool b = false;
    size_t size = wk_gguf_scalar_size(et);
    if (et == WK_GGUF_FLOAT32 || et == WK_GGUF_FLOAT64) {
        float f32 = 0;
        WK_TRY(wk_gguf_value_float(e, &f));
        f32 = (float)f;
        memcpy(buf, et == WK_GGUF_FLOAT32 ? (void *)&f32 : (void *)&f, size);
    } else if (et == WK_GGUF_BOOL) {
        WK_TRY(wk_gguf_value_bool(e, &b));
        buf[0] = b;
    } else if (et == WK_GGUF_INT8 || et == WK_GGUF_INT16 || et == WK_GGUF_INT32 || et == WK_GGUF_INT64) {
        WK_TRY(wk_gguf_value_int(e, &i));
        memcpy(buf, &i, size);
    } else {
        WK_TRY(wk_gguf_value_uint(e, &u));
        memcpy(buf, &u, size);
    }
    return WK_OK;
}

/* An array through the typed API and wk_gguf_writer_set_array (nested arrays: wk_gguf_writer_set_value). */
static wk_status copy_array(wk_gguf_writer *w, const char *key, const wk_gguf_value *v)
{
    wk_gguf_type et;
    uint64_t n = 0;
    WK_TRY(wk_gguf_value_array(v, &et, &n));
    if (et == WK_GGUF_ARRAY)
        return wk_gguf_writer_set_value(w, key, v);
    size_t size = et == WK_GGUF_STRING ? sizeof(char *) : wk_gguf_scalar_size(et);
    unsigned char *buf = malloc(n * size + 1);
    uint64_t *lens = malloc(n * sizeof *lens + 1);
    wk_status s = buf && lens ? WK_OK : WK_ERR_OUT_OF_MEMORY;
    for (uint64_t k = 0; k < n && s == WK_OK; k++) {
        const wk_gguf_value *e = NULL;
        const char *str = NULL;
        s = wk_gguf_value_array_get(v, k, &e);
        if (s == WK_OK && et == WK_GGUF_STRING) {
            s = wk_gguf_value_string(e, &str, &lens[k]);
            memcpy(buf + k * size, &str, sizeof str);
        } else if (s == WK_OK) {
            s = store_scalar(e, et, buf + k * size);
        }
    }
    if (s == WK_OK)
        s = wk_gguf_writer_set_array(w, key, et, n, buf, lens);
    free(buf);
    free(lens);
    return s;
}

static wk_status copy_value(wk_gguf_writer *w, const char *key, const wk_gguf_value *v)
{
    wk_gguf_type t = wk_gguf_value_type(v);
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;
    bool b = false;
    const char *s = NULL;
    switch (t) {
    case WK_GGUF_ARRAY: return copy_array(w, key, v);
    case WK_GGUF_STRING: WK_TRY(wk_gguf_value_string(v, &s, &u)); return wk_gguf_writer_set_string(w, key, s, u);
    case WK_GGUF_BOOL: WK_TRY(wk_gguf_value_bool(v, &b)); return wk_gguf_writer_set_bool(w, key, b);
    case WK_GGUF_FLOAT32:
    case WK_GGUF_FLOAT64: WK_TRY(wk_gguf_value_float(v, &f)); return wk_gguf_writer_set_float(w, key, t, f);
    case WK_GGUF_INT8:
    case WK_GGUF_INT16:
    case WK_GGUF_INT32:
    case WK_GGUF_INT64: WK_TRY(wk_gguf_value_int(v, &i)); return wk_gguf_writer_set_int(w, key, t, i);
    default: WK_TRY(wk_gguf_value_uint(v, &u)); return wk_gguf_writer_set_uint(w, key, t, u);
    }
}

static int copy_tensors(const wk_gguf *g, wk_gguf_writer *w)
{
    for (int64_t i = 0; i < wk_gguf_tensor_count(g); i++) {
        wk_gguf_tensor_info ti;
        wk_tensor *t = NULL;
        if (wk_gguf_tensor_info_get(g, i, &ti) != WK_OK)
            return fail("tensor info");
        if (ti.type >= WK_DTYPE_COUNT) {
            fprintf(stderr, "gguf_tool: skipping tensor '%s' of type %s\n", ti.name, ti.ggml_type_name);
            continue;
        }
        if (wk_gguf_load(g, ti.name, cpu, &t) != WK_OK || wk_gguf_writer_add_tensor(w, ti.name, t) != WK_OK)
            return fail(ti.name);
        wk_tensor_release(t);
    }
    return 0;
}

static int copy(const char *in, const char *out)
{
    wk_gguf *g = NULL;
    wk_gguf_writer *w = NULL;
    if (wk_gguf_open(in, &g) != WK_OK)
        return fail("open");
    if (wk_gguf_writer_new(&w) != WK_OK)
        return fail("writer");
    int rc = 0;
    for (int64_t i = 0; i < wk_gguf_metadata_count(g) && !rc; i++) {
        const char *key = NULL;
        const wk_gguf_value *v = NULL;
        if (wk_gguf_metadata_get(g, i, &key, &v) != WK_OK || copy_value(w, key, v) != WK_OK)
            rc = fail(key ? key : "metadata");
    }
    if (!rc)
        rc = copy_tensors(g, w);
    if (!rc && wk_gguf_writer_save(w, out) != WK_OK)
        rc = fail("save");
    wk_gguf_writer_free(w); /* after the save: the loaded tensors are views of g's mapping */
    wk_gguf_close(g);
    return rc;
}

int main(int argc, char **argv)
{
    if (wk_device_get("cpu", &cpu) != WK_OK)
        return fail("cpu");
    if (argc == 3 && strcmp(argv[1], "dump") == 0)
        return dump(argv[2]);
    if (argc == 4 && strcmp(argv[1], "copy") == 0)
        return copy(argv[2], argv[3]);
    fprintf(stderr, "usage: gguf_tool dump FILE | gguf_tool copy IN OUT\n");
    return 2;
}

/* st_tool.c: drives wick's safetensors reader and writer for tests/py/test_safetensors.py (which must not depend
 * on the Python package or the CLI):
 *   st_tool dump FILE      prints one JSON object: {"tensors": [{"name", "dtype", "shape", "offset", "bytes",
 *                          "hex"}...], "metadata": {...}}; "hex" is the bytes of the tensor loaded to the CPU
 *                          (wk_safetensors_load_as to its own dtype), absent for types wick lacks
 *   st_tool copy IN OUT    loads every tensor of a wick dtype from IN and saves them, with IN's metadata, to OUT
 * Exits 1 with wick's message on any failure. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int fail(const char *what)
{
    fprintf(stderr, "st_tool: %s: %s\n", what, wk_last_error());
    return 1;
}

static char *hex_of(const wk_tensor *t)
{
    size_t n = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    unsigned char *b = malloc(n + 1);
    char *h = malloc(2 * n + 1);
    if (!b || !h || wk_tensor_to_host(t, b, n + 1) != WK_OK) {
        free(b);
        free(h);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        snprintf(h + 2 * i, 3, "%02x", b[i]);
    h[2 * n] = '\0';
    free(b);
    return h;
}

static int dump(const char *path)
{
    wk_device *cpu = NULL;
    wk_safetensors *f = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK || wk_safetensors_open(path, &f) != WK_OK)
        return fail("open");
    json_t *root = json_object(), *tensors = json_array(), *meta = json_object();
    int rc = 0;
    for (int64_t i = 0; i < wk_safetensors_count(f) && rc == 0; i++) {
        wk_safetensors_tensor_info info;
        if (wk_safetensors_tensor_info_get(f, i, &info) != WK_OK)
            return fail("tensor_info_get");
        json_t *e = json_object(), *shape = json_array();
        for (int d = 0; d < info.rank; d++)
            json_array_append_new(shape, json_integer(info.shape[d]));
        json_object_set_new(e, "name", json_string(info.name));
        json_object_set_new(e, "dtype", json_string(info.file_type_name));
        json_object_set_new(e, "shape", shape);
        json_object_set_new(e, "offset", json_integer((json_int_t)info.offset));
        json_object_set_new(e, "bytes", json_integer((json_int_t)info.bytes));
        if ((int)info.type < WK_DTYPE_COUNT) {
            wk_tensor *t = NULL;
            char *h = NULL;
            if (wk_safetensors_load_as(f, info.name, cpu, (wk_dtype)info.type, &t) != WK_OK || !(h = hex_of(t)))
                rc = fail(info.name);
            else
                json_object_set_new(e, "hex", json_string(h));
            free(h);
            wk_tensor_release(t);
        }
        json_array_append_new(tensors, e);
    }
    for (int64_t i = 0; i < wk_safetensors_metadata_count(f); i++) {
        const char *k, *v;
        if (wk_safetensors_metadata_get(f, i, &k, &v) == WK_OK)
            json_object_set_new(meta, k, json_string(v));
    }
    json_object_set_new(root, "tensors", tensors);
    json_object_set_new(root, "metadata", meta);
    char *s = json_dumps(root, JSON_INDENT(1));
    if (rc == 0 && s)
        printf("%s\n", s);
    free(s);
    json_decref(root);
    wk_safetensors_close(f);
    return rc;
}

static int copy(const char *in, const char *out)
{
    wk_device *cpu = NULL;
    wk_safetensors *f = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK || wk_safetensors_open(in, &f) != WK_OK)
        return fail("open");
    int64_t n = wk_safetensors_count(f), nm = wk_safetensors_metadata_count(f), k = 0;
    const char **names = calloc((size_t)n + 1, sizeof *names), **keys = calloc((size_t)nm + 1, sizeof *keys);
    const char **values = calloc((size_t)nm + 1, sizeof *values);
    wk_tensor **ts = calloc((size_t)n + 1, sizeof *ts);
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        wk_safetensors_tensor_info info;
        wk_safetensors_tensor_info_get(f, i, &info);
        if ((int)info.type >= WK_DTYPE_COUNT) {
            fprintf(stderr, "st_tool: skipping %s (%s)\n", info.name, info.file_type_name);
            continue;
        }
        names[k] = info.name;
        if (wk_safetensors_load(f, info.name, cpu, &ts[k]) != WK_OK)
            rc = fail(info.name);
        k++;
    }
    for (int64_t i = 0; i < nm; i++)
        wk_safetensors_metadata_get(f, i, &keys[i], &values[i]);
    if (rc == 0 && wk_safetensors_save(out, k, names, (const wk_tensor *const *)ts, nm, keys, values) != WK_OK)
        rc = fail("save");
    for (int64_t i = 0; i < k; i++)
        wk_tensor_release(ts[i]);
    free(ts);
    free(names);
    free(keys);
    free(values);
    wk_safetensors_close(f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "dump") == 0)
        return dump(argv[2]);
    if (argc == 4 && strcmp(argv[1], "copy") == 0)
        return copy(argv[2], argv[3]);
    fprintf(stderr, "usage: st_tool dump FILE | st_tool copy IN OUT\n");
    return 2;
}

/* safetensors_write.c: wk_safetensors_save: every argument checked first, then the JSON header (jansson, in the
 * caller's order, padded with spaces so the data starts 8-byte aligned) and the data, written atomically. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/tensor.h"
#include "io/io.h"

/* The safetensors name of a file type (safetensors.c). */
const char *wk_st_type_name(wk_file_type t);
/* Whether a jansson allocation of this thread failed since the last call (safetensors.c). */
bool wk_st_json_oom_take(void);

/* What the writer callback needs. The data goes in order of element size, largest first (the header keeps the
 * caller's order): every tensor then starts aligned for its dtype, so CPU loads are zero-copy, and the data
 * section has no holes (the reference implementation requires that). */
typedef struct st_save {
    int64_t n;
    const wk_tensor *const *ts;
    int64_t *order;   /* n indices into ts, in data order */
    uint64_t *begin;  /* n data offsets, by index into ts */
    char *header;     /* the JSON text */
    size_t header_len, padded;
} st_save;

/* True when s is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as JSON
 * strings must be. */
static bool utf8_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        unsigned n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 9;
        if (n == 9 || c == 0xC0 || c == 0xC1 || c > 0xF4)
            return false;
        uint32_t cp = n ? c & (0x3Fu >> n) : c;
        for (unsigned i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += n + 1;
    }
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The n strings are non-NULL, valid UTF-8 and distinct (what: "tensor name", "metadata key", ...). */
static wk_status check_strings(const char *path, const char *what, int64_t n, const char *const *s, bool unique)
{
    for (int64_t i = 0; i < n; i++) {
        if (!s[i])
            return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: %s %lld is NULL", path, what, (long long)i);
        if (!utf8_ok(s[i]))
            return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: %s %lld is not valid UTF-8", path, what,
                            (long long)i);
    }
    if (!unique || n < 2)
        return WK_OK;
    const char **c = malloc((size_t)n * sizeof *c);
    if (!c)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "safetensors save: %s: out of host memory", path);
    memcpy(c, s, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_str);
    wk_status st = WK_OK;
    for (int64_t i = 1; i < n && st == WK_OK; i++)
        if (strcmp(c[i - 1], c[i]) == 0)
            st = wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: %s '%s' is given twice", path, what, c[i]);
    free(c);
    return st;
}

static wk_status check_args(const char *path, int64_t n, const char *const *names, const wk_tensor *const *ts,
                            int64_t nmeta, const char *const *keys, const char *const *values)
{
    if (!path)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: path is NULL");
    if (n < 0 || nmeta < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: negative count (%lld tensors, %lld metadata)",
                        path, (long long)n, (long long)nmeta);
    if ((n && (!names || !ts)) || (nmeta && (!keys || !values)))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: %s is NULL", path,
                        n && !names ? "names" : n && !ts ? "tensors" : !keys ? "keys" : "values");
    if ((uint64_t)n > SIZE_MAX / 16 || (uint64_t)nmeta > SIZE_MAX / 16)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "safetensors save: %s: too many entries", path);
    for (int64_t i = 0; i < n; i++) {
        if (!ts[i])
            return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: tensor %lld is NULL", path, (long long)i);
        if (names[i] && strcmp(names[i], "__metadata__") == 0)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: a tensor cannot be called __metadata__",
                            path);
        if (wk_dtype_is_quantized(ts[i]->dtype))
            return wk_error(WK_ERR_DTYPE, "safetensors save: %s: tensor %lld is %s, a block-quantized dtype safetensors "
                            "has no type for: dequantize it (wk_dequantize) or save it as GGUF", path, (long long)i,
                            wk_dtype_name(ts[i]->dtype));
        if (!wk_st_type_name((wk_file_type)ts[i]->dtype) || !wk_file_type_is_dtype((wk_file_type)ts[i]->dtype))
            return wk_error(WK_ERR_DTYPE, "safetensors save: %s: tensor %lld has an invalid dtype", path, (long long)i);
    }
    WK_TRY(check_strings(path, "tensor name", n, names, true));
    WK_TRY(check_strings(path, "metadata key", nmeta, keys, true));
    return check_strings(path, "metadata value", nmeta, values, false);
}

/* Data order (element size descending, stable) and each tensor's data offset; false when the total overflows. */
static bool layout(st_save *w)
{
    int64_t k = 0;
    uint64_t at = 0;
    for (size_t es = 8; es >= 1; es /= 2)
        for (int64_t i = 0; i < w->n; i++) {
            const wk_tensor *t = w->ts[i];
            uint64_t bytes = 0;
            if (wk_dtype_size(t->dtype) != es)
                continue;
            if (!wk_io_numel_bytes(t->rank, t->shape, es, &bytes) || !wk_add_u64(at, bytes, &at) ||
                at > (uint64_t)INT64_MAX)
                return false;
            w->order[k++] = i;
            w->begin[i] = at - bytes;
        }
    return k == w->n;
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]}, or NULL when out of memory. */
static json_t *tensor_entry(const wk_tensor *t, uint64_t begin)
{
    json_t *e = json_object(), *shape = json_array(), *offs = json_array();
    uint64_t bytes = 0;
    wk_io_numel_bytes(t->rank, t->shape, wk_dtype_size(t->dtype), &bytes);
    const char *type = wk_st_type_name((wk_file_type)t->dtype);
    bool ok = e && shape && offs && json_object_set_new(e, "dtype", json_string(type)) == 0;
    for (int d = 0; ok && d < t->rank; d++)
        ok = json_array_append_new(shape, json_integer(t->shape[d])) == 0;
    ok = ok && json_array_append_new(offs, json_integer((json_int_t)begin)) == 0 &&
         json_array_append_new(offs, json_integer((json_int_t)(begin + bytes))) == 0;
    ok = ok && json_object_set(e, "shape", shape) == 0 && json_object_set(e, "data_offsets", offs) == 0;
    json_decref(shape);
    json_decref(offs);
    if (!ok) {
        json_decref(e);
        return NULL;
    }
    return e;
}

/* The header's JSON text into w->header: "__metadata__" first (when there is any), then the tensors. */
static bool build_header(st_save *w, const char *const *names, int64_t nmeta, const char *const *keys,
                         const char *const *values)
{
    wk_st_json_oom_take();
    json_t *root = json_object(), *meta = nmeta ? json_object() : NULL;
    bool ok = root && (!nmeta || meta);
    for (int64_t i = 0; ok && i < nmeta; i++)
        ok = json_object_set_new(meta, keys[i], json_string(values[i])) == 0;
    if (ok && meta)
        ok = json_object_set(root, "__metadata__", meta) == 0;
    for (int64_t i = 0; ok && i < w->n; i++)
        ok = json_object_set_new(root, names[i], tensor_entry(w->ts[i], w->begin[i])) == 0;
    if (ok)
        w->header = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(meta);
    json_decref(root);
    /* jansson 2.14's json_dumps ignores a failure while writing an object key: the text it returns is damaged */
    if (w->header && wk_st_json_oom_take()) {
        free(w->header);
        w->header = NULL;
    }
    if (!w->header)
        return false;
    w->header_len = strlen(w->header);
    w->padded = (w->header_len + 7) / 8 * 8;
    return true;
}

static wk_status write_all(void *ctx, FILE *f, const char *path)
{
    const st_save *w = ctx;
    static const char spaces[8] = "        ";
    uint64_t len = w->padded;
    WK_TRY(wk_io_write(f, path, &len, 8));
    WK_TRY(wk_io_write(f, path, w->header, w->header_len));
    WK_TRY(wk_io_write(f, path, spaces, w->padded - w->header_len));
    for (int64_t k = 0; k < w->n; k++)
        WK_TRY(wk_io_write_tensor(f, path, w->ts[w->order[k]]));
    return WK_OK;
}

wk_status wk_safetensors_save(const char *path, int64_t n, const char *const *names, const wk_tensor *const *ts,
                              int64_t nmeta, const char *const *keys, const char *const *values)
{
    WK_TRY(check_args(path, n, names, ts, nmeta, keys, values));
    st_save w = {.n = n, .ts = ts};
    w.order = malloc((n ? (size_t)n : 1) * sizeof *w.order);
    w.begin = malloc((n ? (size_t)n : 1) * sizeof *w.begin);
    wk_status s = WK_OK;
    if (!w.order || !w.begin)
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "safetensors save: %s: out of host memory", path);
    else if (!layout(&w))
        s = wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors save: %s: the tensors' total size overflows", path);
    else if (!build_header(&w, names, nmeta, keys, values))
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "safetensors save: %s: out of host memory building the header", path);
    if (s == WK_OK)
        s = wk_io_write_atomic(path, write_all, &w);
    free(w.header);
    free(w.order);
    free(w.begin);
    return s;
}

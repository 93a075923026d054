/* safetensors.c: reading safetensors files: the 8-byte header length, the JSON header (parsed with jansson,
 * checked entry by entry against the file's size), the tensor table in the header's order, and loads through
 * io/load.c. Writing is in safetensors_write.c. */
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fault.h"
#include "io/io.h"

/* Headers over this size are refused (the reference implementation's limit). */
#define ST_MAX_HEADER ((uint64_t)100 * 1000 * 1000)

typedef struct st_tensor {
    char *name;
    wk_file_type type;
    int rank;
    int64_t shape[WK_MAX_RANK];
    uint64_t begin, end; /* data_offsets, relative to the data section */
} st_tensor;

struct wk_safetensors {
    wk_file_map *map;
    uint64_t data_start; /* 8 + header length */
    int64_t n, nmeta;
    st_tensor *t;        /* n entries, in the header's order */
    st_tensor **by_name; /* the same entries sorted by name, for find */
    char **meta;         /* 2 * nmeta strings: key, value, key, value, ... */
};

/* The file's type names. */
static const struct {
    const char *name;
    wk_file_type type;
} st_types[] = {
    {"F64", WK_FILE_F64},   {"F32", WK_FILE_F32},         {"F16", WK_FILE_F16},         {"BF16", WK_FILE_BF16},
    {"I64", WK_FILE_I64},   {"I32", WK_FILE_I32},         {"I16", WK_FILE_I16},         {"I8", WK_FILE_I8},
    {"U8", WK_FILE_U8},     {"U64", WK_FILE_U64},         {"U32", WK_FILE_U32},         {"U16", WK_FILE_U16},
    {"BOOL", WK_FILE_BOOL}, {"F8_E4M3", WK_FILE_F8_E4M3}, {"F8_E5M2", WK_FILE_F8_E5M2},
};
#define ST_NTYPES (sizeof st_types / sizeof st_types[0])

/* The safetensors name of t ("F32", "I8", ...); NULL for a type the format lacks. Also used by the writer. */
const char *wk_st_type_name(wk_file_type t);
const char *wk_st_type_name(wk_file_type t)
{
    for (size_t i = 0; i < ST_NTYPES; i++)
        if (st_types[i].type == t)
            return st_types[i].name;
    return NULL;
}

static bool st_type_of(const char *name, wk_file_type *out)
{
    for (size_t i = 0; i < ST_NTYPES; i++)
        if (strcmp(st_types[i].name, name) == 0) {
            *out = st_types[i].type;
            return true;
        }
    return false;
}

void wk_safetensors_close(wk_safetensors *f)
{
    if (!f)
        return;
    for (int64_t i = 0; i < f->n; i++)
        free(f->t[i].name);
    for (int64_t i = 0; i < 2 * f->nmeta; i++)
        free(f->meta[i]);
    free(f->t);
    free(f->by_name);
    free(f->meta);
    wk_file_map_release(f->map);
    free(f);
}

/* ---------------------------------------------------------------- the header */

/* jansson 2.14 reports an allocation failure inside its lexer as a syntax error ("invalid token") and one in
 * its lexer's setup not at all (json_error_t left unwritten): its allocator is wrapped, once, around whatever
 * allocator was installed, so that a failure sets this thread's flag and the parse is told apart as out of
 * memory, not a damaged file. */
static _Thread_local bool json_oom;
static json_malloc_t json_next_malloc;
static json_free_t json_next_free;
static pthread_once_t json_once = PTHREAD_ONCE_INIT;

static void *json_track_malloc(size_t n)
{
    void *p = json_next_malloc(n);
    if (!p)
        json_oom = true;
    return p;
}

static void json_track_free(void *p) { json_next_free(p); }

static void json_track_init(void)
{
    wk_fi_init(); /* a fault-injection build's counter first, so the tracking wraps it */
    json_get_alloc_funcs(&json_next_malloc, &json_next_free);
    json_set_alloc_funcs(json_track_malloc, json_track_free);
}

/* Whether a jansson allocation of this thread failed since the last call (safetensors_write.c's json_dumps, which
 * in jansson 2.14 can swallow a failure and return a damaged text); installs the tracking at the first call. */
bool wk_st_json_oom_take(void);
bool wk_st_json_oom_take(void)
{
    pthread_once(&json_once, json_track_init);
    bool r = json_oom;
    json_oom = false;
    return r;
}

/* The header's JSON object, after the checks on its length. */
static wk_status read_header(const wk_file_map *m, json_t **root, uint64_t *data_start)
{
    uint64_t n = 0;
    if (m->size < 8)
        return wk_error(WK_ERR_FILE, "%s: %zu bytes: too short for a safetensors file (an 8-byte header length)",
                        m->path, m->size);
    memcpy(&n, m->base, 8);
    if (n > ST_MAX_HEADER)
        return wk_error(WK_ERR_FILE, "%s: header length %llu is over the limit of %llu bytes", m->path,
                        (unsigned long long)n, (unsigned long long)ST_MAX_HEADER);
    if (n > m->size - 8)
        return wk_error(WK_ERR_FILE, "%s: header length %llu runs past the end of the file (%zu bytes)", m->path,
                        (unsigned long long)n, m->size);
    json_error_t err;
    memset(&err, 0, sizeof err);
    wk_st_json_oom_take();
    json_t *j = json_loadb((const char *)m->base + 8, (size_t)n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (!j && (json_oom || json_error_code(&err) == json_error_out_of_memory))
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory parsing the header", m->path);
    if (!j)
        return wk_error(WK_ERR_FILE, "%s: the header is not valid JSON: %s (at header byte %d)", m->path, err.text,
                        err.position);
    if (!json_is_object(j)) {
        json_decref(j);
        return wk_error(WK_ERR_FILE, "%s: the header is not a JSON object", m->path);
    }
    *root = j;
    *data_start = 8 + n;
    return WK_OK;
}

/* A JSON integer >= 0 into *out. */
static bool nonneg_int(const json_t *v, int64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static wk_status parse_shape(const char *path, const char *name, const json_t *v, st_tensor *e)
{
    if (!json_is_array(v))
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': \"shape\" is missing or not an array", path, name);
    if (json_array_size(v) > WK_MAX_RANK)
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': shape has %zu dims, more than %d", path, name,
                        json_array_size(v), WK_MAX_RANK);
    e->rank = (int)json_array_size(v);
    for (int i = 0; i < e->rank; i++)
        if (!nonneg_int(json_array_get(v, (size_t)i), &e->shape[i]))
            return wk_error(WK_ERR_FILE, "%s: tensor '%s': shape[%d] is not an integer >= 0", path, name, i);
    return WK_OK;
}

static wk_status parse_offsets(const char *path, const char *name, const json_t *v, st_tensor *e)
{
    int64_t b = 0, x = 0;
    if (!json_is_array(v) || json_array_size(v) != 2 || !nonneg_int(json_array_get(v, 0), &b) ||
        !nonneg_int(json_array_get(v, 1), &x))
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': \"data_offsets\" is not a pair of integers >= 0", path,
                        name);
    if (x < b)
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': data_offsets [%lld, %lld] end before they begin", path,
                        name, (long long)b, (long long)x);
    e->begin = (uint64_t)b;
    e->end = (uint64_t)x;
    return WK_OK;
}

/* Entry `name` of the header: its keys, dtype, shape and offsets, checked against the data section's size. */
static wk_status parse_tensor(const char *path, uint64_t data_size, const char *name, const json_t *v,
                              st_tensor *e)
{
    const char *k;
    json_t *x;
    if (!json_is_object(v))
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': its entry is not a JSON object", path, name);
    json_object_foreach((json_t *)v, k, x) {
        if (strcmp(k, "dtype") != 0 && strcmp(k, "shape") != 0 && strcmp(k, "data_offsets") != 0)
            return wk_error(WK_ERR_FILE, "%s: tensor '%s': unknown key '%s'", path, name, k);
    }
    const json_t *dt = json_object_get(v, "dtype");
    if (!json_is_string(dt))
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': \"dtype\" is missing or not a string", path, name);
    if (!st_type_of(json_string_value(dt), &e->type))
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': unknown dtype '%s'", path, name, json_string_value(dt));
    WK_TRY(parse_shape(path, name, json_object_get(v, "shape"), e));
    WK_TRY(parse_offsets(path, name, json_object_get(v, "data_offsets"), e));
    uint64_t need = 0;
    char sh[160];
    wk_shape_str(sh, sizeof sh, e->rank, e->shape);
    if (!wk_io_numel_bytes(e->rank, e->shape, wk_file_type_size(e->type), &need))
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': %s shape %s is too large (its size overflows)", path, name,
                        json_string_value(dt), sh);
    if (e->end - e->begin != need)
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': data_offsets [%llu, %llu] hold %llu bytes, %s shape %s needs "
                        "%llu", path, name, (unsigned long long)e->begin, (unsigned long long)e->end,
                        (unsigned long long)(e->end - e->begin), json_string_value(dt), sh, (unsigned long long)need);
    if (e->end > data_size)
        return wk_error(WK_ERR_FILE, "%s: tensor '%s': data_offsets [%llu, %llu] run past the end of the data "
                        "section (%llu bytes)", path, name, (unsigned long long)e->begin, (unsigned long long)e->end,
                        (unsigned long long)data_size);
    return WK_OK;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static wk_status parse_metadata(wk_safetensors *f, const json_t *v)
{
    const char *path = f->map->path, *k;
    json_t *x;
    if (!json_is_object(v))
        return wk_error(WK_ERR_FILE, "%s: \"__metadata__\" is not a JSON object", path);
    json_object_foreach((json_t *)v, k, x) {
        if (!json_is_string(x))
            return wk_error(WK_ERR_FILE, "%s: \"__metadata__\" entry '%s' is not a string", path, k);
    }
    size_t n = json_object_size(v);
    f->meta = calloc(n ? 2 * n : 1, sizeof *f->meta);
    if (!f->meta)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    json_object_foreach((json_t *)v, k, x) {
        f->meta[2 * f->nmeta] = dup_or_null(k);
        f->meta[2 * f->nmeta + 1] = dup_or_null(json_string_value(x));
        f->nmeta++;
        if (!f->meta[2 * f->nmeta - 2] || !f->meta[2 * f->nmeta - 1])
            return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    }
    return WK_OK;
}

/* Every entry of the header, tensors in its order (jansson keeps an object's keys in insertion order, which
 * json_object_foreach walks, so wick lists tensors as the file does). */
static wk_status parse_entries(wk_safetensors *f, const json_t *root)
{
    const char *path = f->map->path, *k;
    json_t *v;
    uint64_t data_size = f->map->size - f->data_start;
    size_t n = json_object_size(root);
    f->t = calloc(n ? n : 1, sizeof *f->t);
    if (!f->t)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    json_object_foreach((json_t *)root, k, v) {
        if (strcmp(k, "__metadata__") == 0) {
            WK_TRY(parse_metadata(f, v));
            continue;
        }
        st_tensor *e = &f->t[f->n];
        WK_TRY(parse_tensor(path, data_size, k, v, e));
        if (!(e->name = strdup(k)))
            return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
        f->n++;
    }
    return WK_OK;
}

static int by_begin(const void *a, const void *b)
{
    const st_tensor *x = *(st_tensor *const *)a, *y = *(st_tensor *const *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(st_tensor *const *)a)->name, (*(st_tensor *const *)b)->name);
}

/* No two tensors share a byte (tensors of no bytes overlap nothing); holes between them are allowed. Leaves
 * f->by_name sorted by name. */
static wk_status check_overlap(wk_safetensors *f)
{
    int64_t m = 0;
    f->by_name = malloc((f->n ? (size_t)f->n : 1) * sizeof *f->by_name);
    if (!f->by_name)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", f->map->path);
    for (int64_t i = 0; i < f->n; i++)
        if (f->t[i].end > f->t[i].begin)
            f->by_name[m++] = &f->t[i];
    qsort(f->by_name, (size_t)m, sizeof *f->by_name, by_begin);
    for (int64_t i = 1; i < m; i++) {
        const st_tensor *a = f->by_name[i - 1], *b = f->by_name[i];
        if (b->begin < a->end)
            return wk_error(WK_ERR_FILE, "%s: tensors '%s' [%llu, %llu] and '%s' [%llu, %llu] overlap",
                            f->map->path, a->name, (unsigned long long)a->begin, (unsigned long long)a->end, b->name,
                            (unsigned long long)b->begin, (unsigned long long)b->end);
    }
    for (int64_t i = 0; i < f->n; i++)
        f->by_name[i] = &f->t[i];
    if (f->n)
        qsort(f->by_name, (size_t)f->n, sizeof *f->by_name, by_name);
    return WK_OK;
}

wk_status wk_safetensors_open(const char *path, wk_safetensors **out)
{
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors open: out is NULL");
    wk_file_map *m = NULL;
    WK_TRY(wk_file_map_open(path, &m));
    wk_safetensors *f = calloc(1, sizeof *f);
    if (!f) {
        wk_file_map_release(m);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    }
    f->map = m;
    json_t *root = NULL;
    wk_status s = read_header(m, &root, &f->data_start);
    if (s == WK_OK)
        s = parse_entries(f, root);
    json_decref(root);
    if (s == WK_OK)
        s = check_overlap(f);
    if (s != WK_OK) {
        wk_safetensors_close(f);
        return s;
    }
    *out = f;
    return WK_OK;
}

/* ---------------------------------------------------------------- queries */

int64_t wk_safetensors_count(const wk_safetensors *f) { return f ? f->n : 0; }

int64_t wk_safetensors_metadata_count(const wk_safetensors *f) { return f ? f->nmeta : 0; }

wk_status wk_safetensors_tensor_info_get(const wk_safetensors *f, int64_t i, wk_safetensors_tensor_info *out)
{
    if (!f || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors tensor_info_get: %s is NULL", !f ? "file" : "out");
    if (i < 0 || i >= f->n)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: tensor index %lld outside [0, %lld)", f->map->path,
                        (long long)i, (long long)f->n);
    const st_tensor *e = &f->t[i];
    wk_safetensors_tensor_info r = {.name = e->name, .file_type_name = wk_st_type_name(e->type), .type = e->type,
                                    .rank = e->rank, .offset = f->data_start + e->begin, .bytes = e->end - e->begin};
    memcpy(r.shape, e->shape, sizeof r.shape);
    *out = r;
    return WK_OK;
}

/* The entry called name, or an error naming it. */
static wk_status lookup(const wk_safetensors *f, const char *name, const st_tensor **out)
{
    if (!f || !name)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors: %s is NULL", !f ? "file" : "tensor name");
    st_tensor key = {.name = (char *)name}, *kp = &key;
    st_tensor **hit = f->n ? bsearch(&kp, f->by_name, (size_t)f->n, sizeof *f->by_name, by_name) : NULL;
    if (!hit)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: no tensor named '%s'", f->map->path, name);
    *out = *hit;
    return WK_OK;
}

wk_status wk_safetensors_find(const wk_safetensors *f, const char *name, int64_t *index)
{
    const st_tensor *e = NULL;
    if (!index)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors find: index is NULL");
    WK_TRY(lookup(f, name, &e));
    *index = e - f->t;
    return WK_OK;
}

wk_status wk_safetensors_metadata_get(const wk_safetensors *f, int64_t i, const char **key, const char **value)
{
    if (!f || !key || !value)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors metadata_get: %s is NULL",
                        !f ? "file" : !key ? "key" : "value");
    if (i < 0 || i >= f->nmeta)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: metadata index %lld outside [0, %lld)", f->map->path,
                        (long long)i, (long long)f->nmeta);
    *key = f->meta[2 * i];
    *value = f->meta[2 * i + 1];
    return WK_OK;
}

wk_status wk_safetensors_metadata_find(const wk_safetensors *f, const char *key, const char **value)
{
    if (!f || !key || !value)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors metadata_find: %s is NULL",
                        !f ? "file" : !key ? "key" : "value");
    for (int64_t i = 0; i < f->nmeta; i++)
        if (strcmp(f->meta[2 * i], key) == 0) {
            *value = f->meta[2 * i + 1];
            return WK_OK;
        }
    return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: no metadata key '%s'", f->map->path, key);
}

/* ---------------------------------------------------------------- loads */

static wk_status load_entry(const wk_safetensors *f, const st_tensor *e, wk_device *dev, wk_tensor **out)
{
    if (!wk_file_type_is_dtype(e->type))
        return wk_io_type_error(f->map, e->name, e->type);
    return wk_io_load(f->map, f->data_start + e->begin, (wk_dtype)e->type, e->rank, e->shape, NULL, dev, out);
}

wk_status wk_safetensors_load(const wk_safetensors *f, const char *name, wk_device *dev, wk_tensor **out)
{
    const st_tensor *e = NULL;
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors load: out is NULL");
    WK_TRY(lookup(f, name, &e));
    return load_entry(f, e, dev, out);
}

wk_status wk_safetensors_load_as(const wk_safetensors *f, const char *name, wk_device *dev, wk_dtype dt,
                                 wk_tensor **out)
{
    const st_tensor *e = NULL;
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors load_as: out is NULL");
    WK_TRY(lookup(f, name, &e));
    return wk_io_load_as(f->map, f->data_start + e->begin, e->type, e->rank, e->shape, dev, dt, e->name, out);
}

wk_status wk_safetensors_load_many(const wk_safetensors *f, const char *const *names, int64_t n, wk_device *dev,
                                   wk_tensor **outs)
{
    if (!f || !outs)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "safetensors load_many: %s is NULL", !f ? "file" : "outs");
    if (n < 0 || (!names && n > f->n))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: load_many of %lld tensors (the file has %lld)", f->map->path,
                        (long long)n, (long long)f->n);
    if (n == 0)
        return WK_OK;
    if ((uint64_t)n > SIZE_MAX / sizeof(wk_tensor *))
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: load_many of %lld tensors", f->map->path, (long long)n);
    const st_tensor **es = malloc((size_t)n * sizeof *es);
    wk_tensor **ts = calloc((size_t)n, sizeof *ts);
    wk_status s = es && ts ? WK_OK : wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", f->map->path);
    for (int64_t i = 0; i < n && s == WK_OK; i++) {
        es[i] = &f->t[i];
        if (names)
            s = lookup(f, names[i], &es[i]);
    }
    for (int64_t i = 0; i < n && s == WK_OK; i++)
        s = load_entry(f, es[i], dev, &ts[i]);
    if (s == WK_OK)
        memcpy(outs, ts, (size_t)n * sizeof *ts);
    else if (ts)
        for (int64_t i = 0; i < n; i++)
            wk_tensor_release(ts[i]);
    free(es);
    free(ts);
    return s;
}

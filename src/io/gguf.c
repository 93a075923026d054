/* gguf.c: the GGUF v2/v3 reader: header, metadata (parsed by gguf_meta.c), tensor infos and their data ranges,
 * every count and offset checked against the mapped file; lookups by name and the loads (typed, _as, raw). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/gguf.h"

#define MIN_KV_BYTES 13     /* key length (8), value type (4), a one-byte value */
#define MIN_TENSOR_BYTES 24 /* name length (8), n_dims (4), type (4), offset (8) */

/* The first member of a metadata entry and of a tensor: what the name index compares. */
typedef struct gguf_name {
    const char *s;
    uint64_t len;
} gguf_name;

typedef struct gguf_kv {
    gguf_name key;
    wk_gguf_value value;
} gguf_kv;

typedef struct gguf_tensor {
    gguf_name name;
    uint32_t ggml_type;
    int rank;
    int64_t ne[WK_MAX_RANK];
    uint64_t rel;    /* offset in the data section, as in the file */
    uint64_t offset; /* offset in the file */
    uint64_t bytes, rows, row_bytes;
} gguf_tensor;

/* Open addressing over entry indices (slot = index + 1; 0 is empty). */
typedef struct name_index {
    size_t *slots;
    size_t mask;
    const char *base; /* the entries: gguf_kv or gguf_tensor, stride bytes apart */
    size_t stride;
} name_index;

struct wk_gguf {
    wk_file_map *map;
    uint32_t version, alignment;
    uint64_t n_kv, n_tensors;
    gguf_kv *kvs;
    gguf_tensor *tensors;
    name_index kv_index, tensor_index;
    wk_gguf_arena arena;
};

/* ---------------------------------------------------------------- name index */

static uint64_t fnv1a(const char *s, uint64_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static wk_status index_init(wk_gguf *g, name_index *ix, uint64_t n, const void *base, size_t stride)
{
    size_t cap = 8;
    while (cap < n * 2) /* n <= the file's size / 13: no overflow */
        cap *= 2;
    ix->slots = cap <= SIZE_MAX / sizeof(size_t) ? wk_gguf_arena_alloc(&g->arena, cap * sizeof(size_t)) : NULL;
    if (!ix->slots)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu names", g->map->path,
                        (unsigned long long)n);
    memset(ix->slots, 0, cap * sizeof(size_t));
    ix->mask = cap - 1;
    ix->base = base;
    ix->stride = stride;
    return WK_OK;
}

/* The slot holding name s, or the empty slot where it goes. */
static size_t *index_slot(const name_index *ix, const char *s, uint64_t len)
{
    for (size_t h = (size_t)fnv1a(s, len) & ix->mask;; h = (h + 1) & ix->mask) {
        if (!ix->slots[h])
            return &ix->slots[h];
        const gguf_name *n = (const gguf_name *)(ix->base + (ix->slots[h] - 1) * ix->stride);
        if (n->len == len && memcmp(n->s, s, (size_t)len) == 0)
            return &ix->slots[h];
    }
}

/* Index of name, or -1. */
static int64_t index_find(const name_index *ix, const char *s)
{
    size_t slot = ix->slots ? *index_slot(ix, s, strlen(s)) : 0;
    return slot ? (int64_t)slot - 1 : -1;
}

/* Reads a key or tensor name into entry i (name n of the index), refusing NULs and duplicates. */
static wk_status read_name(wk_gguf *g, wk_gguf_cursor *c, name_index *ix, uint64_t i, const char *what)
{
    gguf_name *n = (gguf_name *)(ix->base + i * ix->stride);
    WK_TRY(wk_gguf_read_string(c, &g->arena, what, &n->s, &n->len));
    if (memchr(n->s, '\0', (size_t)n->len))
        return wk_error(WK_ERR_FILE, "%s: %s '%.128s' holds a NUL byte", c->path, what, n->s);
    size_t *slot = index_slot(ix, n->s, n->len);
    if (*slot)
        return wk_error(WK_ERR_FILE, "%s: duplicate %s '%.128s'", c->path, what, n->s);
    *slot = (size_t)i + 1;
    return WK_OK;
}

/* ---------------------------------------------------------------- header and metadata */

static wk_status parse_header(wk_gguf *g, wk_gguf_cursor *c)
{
    const char *path = c->path;
    if (c->size < 4 || memcmp(c->base, "GGUF", 4) != 0)
        return wk_error(WK_ERR_FILE, "%s: not a GGUF file (no \"GGUF\" magic at the start)", path);
    c->pos = 4;
    WK_TRY(wk_gguf_read_u32(c, "the version", &g->version));
    if (g->version != 2 && g->version != 3) {
        uint32_t swapped = __builtin_bswap32(g->version);
        return wk_error(WK_ERR_FILE, "%s: GGUF version %u is not supported (wick reads versions 2 and 3)%s", path,
                        g->version, swapped == 2 || swapped == 3 ? ": a big-endian file" : "");
    }
    WK_TRY(wk_gguf_read_u64(c, "the tensor count", &g->n_tensors));
    WK_TRY(wk_gguf_read_u64(c, "the metadata count", &g->n_kv));
    size_t left = wk_gguf_left(c);
    if (g->n_kv > left / MIN_KV_BYTES)
        return wk_error(WK_ERR_FILE, "%s: %llu metadata entries cannot fit in the %zu bytes left", path,
                        (unsigned long long)g->n_kv, left);
    left -= (size_t)g->n_kv * MIN_KV_BYTES;
    if (g->n_tensors > left / MIN_TENSOR_BYTES)
        return wk_error(WK_ERR_FILE, "%s: %llu tensors cannot fit in the %zu bytes left", path,
                        (unsigned long long)g->n_tensors, left);
    return WK_OK;
}

static wk_status parse_metadata(wk_gguf *g, wk_gguf_cursor *c)
{
    g->kvs = wk_gguf_arena_alloc(&g->arena, (size_t)g->n_kv * sizeof *g->kvs);
    if (!g->kvs)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu metadata entries", c->path,
                        (unsigned long long)g->n_kv);
    WK_TRY(index_init(g, &g->kv_index, g->n_kv, g->kvs, sizeof *g->kvs));
    for (uint64_t i = 0; i < g->n_kv; i++) {
        gguf_kv *kv = &g->kvs[i];
        uint32_t type = 0;
        WK_TRY(read_name(g, c, &g->kv_index, i, "metadata key"));
        WK_TRY(wk_gguf_read_u32(c, "a metadata value type", &type));
        WK_TRY(wk_gguf_parse_value(c, &g->arena, type, 0, kv->key.s, &kv->value));
    }
    g->alignment = WK_GGUF_DEFAULT_ALIGNMENT;
    int64_t a = index_find(&g->kv_index, "general.alignment");
    if (a >= 0) {
        const wk_gguf_value *v = &g->kvs[a].value;
        if (v->type != WK_GGUF_UINT32)
            return wk_error(WK_ERR_FILE, "%s: general.alignment is a %s, not a uint32", c->path,
                            wk_gguf_type_name(v->type));
        if (v->v.u == 0 || (v->v.u & (v->v.u - 1)) != 0)
            return wk_error(WK_ERR_FILE, "%s: general.alignment %llu is not a power of two", c->path,
                            (unsigned long long)v->v.u);
        g->alignment = (uint32_t)v->v.u;
    }
    return WK_OK;
}

/* ---------------------------------------------------------------- tensor infos */

/* Bytes of t from its dims and type: ne[0] a whole number of blocks, a shape wick can hold (io.h's size rule),
 * no product past INT64_MAX. */
static wk_status tensor_size(const wk_gguf_cursor *c, gguf_tensor *t)
{
    uint64_t numel = 0;
    if (!wk_io_numel_bytes(t->rank, t->ne, 1, &numel))
        return wk_error(WK_ERR_FILE, "%s: tensor '%.128s': the product of its dims overflows", c->path, t->name.s);
    const wk_ggml_type_info *info = wk_ggml_type(t->ggml_type);
    if (!info) /* listed with its number; its size is unknown, so it is never loaded */
        return WK_OK;
    uint64_t ne0 = t->rank ? (uint64_t)t->ne[0] : 1;
    if (ne0 % info->block)
        return wk_error(WK_ERR_FILE, "%s: tensor '%.128s': ne[0] = %llu is not a multiple of %s's block of %u",
                        c->path, t->name.s, (unsigned long long)ne0, info->name, info->block);
    uint64_t rows = 0;
    if (!wk_io_numel_bytes(t->rank ? t->rank - 1 : 0, t->ne + 1, 1, &rows) ||
        !wk_io_numel_bytes(1, (int64_t[]){(int64_t)(ne0 / info->block)}, info->block_bytes, &t->row_bytes) ||
        !wk_io_numel_bytes(1, (int64_t[]){(int64_t)rows}, t->row_bytes, &t->bytes))
        return wk_error(WK_ERR_FILE, "%s: tensor '%.128s': its size in bytes overflows", c->path, t->name.s);
    t->rows = rows;
    return WK_OK;
}

static wk_status parse_tensor_info(wk_gguf *g, wk_gguf_cursor *c, uint64_t i)
{
    gguf_tensor *t = &g->tensors[i];
    uint32_t n_dims = 0;
    WK_TRY(read_name(g, c, &g->tensor_index, i, "tensor name"));
    WK_TRY(wk_gguf_read_u32(c, "a tensor's dim count", &n_dims));
    if (n_dims > WK_MAX_RANK)
        return wk_error(WK_ERR_FILE, "%s: tensor '%.128s' has %u dims; wick's limit is %d", c->path, t->name.s,
                        n_dims, WK_MAX_RANK);
    t->rank = (int)n_dims;
    for (int d = 0; d < t->rank; d++) {
        uint64_t ne = 0;
        WK_TRY(wk_gguf_read_u64(c, "a tensor dim", &ne));
        if (ne > (uint64_t)INT64_MAX)
            return wk_error(WK_ERR_FILE, "%s: tensor '%.128s': ne[%d] = %llu is too large", c->path, t->name.s, d,
                            (unsigned long long)ne);
        t->ne[d] = (int64_t)ne;
    }
    WK_TRY(wk_gguf_read_u32(c, "a tensor's type", &t->ggml_type));
    WK_TRY(wk_gguf_read_u64(c, "a tensor's offset", &t->rel));
    return tensor_size(c, t);
}

typedef struct range {
    uint64_t begin, end;
    const char *name;
} range;

static int range_cmp(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : 0;
}

/* No two tensors with bytes share one. */
static wk_status check_overlaps(const wk_gguf *g)
{
    if (g->n_tensors < 2)
        return WK_OK;
    range *r = malloc((size_t)g->n_tensors * sizeof *r);
    if (!r)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", g->map->path);
    for (uint64_t i = 0; i < g->n_tensors; i++)
        r[i] = (range){g->tensors[i].offset, g->tensors[i].offset + g->tensors[i].bytes, g->tensors[i].name.s};
    qsort(r, (size_t)g->n_tensors, sizeof *r, range_cmp);
    wk_status s = WK_OK;
    const range *last = NULL; /* the non-empty range reaching furthest so far */
    for (uint64_t i = 0; i < g->n_tensors && s == WK_OK; i++) {
        if (r[i].end == r[i].begin)
            continue;
        if (last && r[i].begin < last->end)
            s = wk_error(WK_ERR_FILE, "%s: the data of tensors '%.128s' and '%.128s' overlap", g->map->path,
                         last->name, r[i].name);
        if (!last || r[i].end > last->end)
            last = &r[i];
    }
    free(r);
    return s;
}

static wk_status parse_tensors(wk_gguf *g, wk_gguf_cursor *c)
{
    g->tensors = wk_gguf_arena_alloc(&g->arena, (size_t)g->n_tensors * sizeof *g->tensors);
    if (!g->tensors)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu tensors", c->path,
                        (unsigned long long)g->n_tensors);
    memset(g->tensors, 0, (size_t)g->n_tensors * sizeof *g->tensors);
    WK_TRY(index_init(g, &g->tensor_index, g->n_tensors, g->tensors, sizeof *g->tensors));
    for (uint64_t i = 0; i < g->n_tensors; i++)
        WK_TRY(parse_tensor_info(g, c, i));
    uint64_t a = g->alignment, start = ((uint64_t)c->pos + a - 1) / a * a; /* pos < 2^63, a <= 2^31 */
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        gguf_tensor *t = &g->tensors[i];
        uint64_t end = 0;
        if (t->rel % a)
            return wk_error(WK_ERR_FILE, "%s: tensor '%.128s': offset %llu is not a multiple of the alignment %u",
                            c->path, t->name.s, (unsigned long long)t->rel, g->alignment);
        if (!wk_add_u64(start, t->rel, &t->offset) || !wk_add_u64(t->offset, t->bytes, &end) || end > c->size)
            return wk_error(WK_ERR_FILE, "%s: tensor '%.128s': its %llu bytes at data offset %llu lie outside the "
                            "file's %zu bytes (data starts at %llu)", c->path, t->name.s,
                            (unsigned long long)t->bytes, (unsigned long long)t->rel, c->size,
                            (unsigned long long)start);
    }
    return check_overlaps(g);
}

/* ---------------------------------------------------------------- open, close, queries */

wk_status wk_gguf_open(const char *path, wk_gguf **out)
{
    if (!path || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf open: %s is NULL", !path ? "path" : "out");
    wk_file_map *m = NULL;
    WK_TRY(wk_file_map_open(path, &m));
    wk_gguf *g = calloc(1, sizeof *g);
    if (!g) {
        wk_file_map_release(m);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    }
    g->map = m;
    wk_gguf_cursor c = {m->base, m->size, 0, m->path};
    wk_status s = parse_header(g, &c);
    if (s == WK_OK)
        s = parse_metadata(g, &c);
    if (s == WK_OK)
        s = parse_tensors(g, &c);
    if (s != WK_OK) { /* nothing lazy exists yet: the arena holds everything */
        wk_gguf_arena_free(&g->arena);
        wk_file_map_release(m);
        free(g);
        return s;
    }
    *out = g;
    return WK_OK;
}

void wk_gguf_close(wk_gguf *g)
{
    if (!g)
        return;
    for (uint64_t i = 0; i < g->n_kv; i++)
        wk_gguf_value_free_lazy(&g->kvs[i].value);
    wk_gguf_arena_free(&g->arena);
    wk_file_map_release(g->map);
    free(g);
}

uint32_t wk_gguf_version(const wk_gguf *g) { return g ? g->version : 0; }
uint32_t wk_gguf_alignment(const wk_gguf *g) { return g ? g->alignment : 0; }
int64_t wk_gguf_metadata_count(const wk_gguf *g) { return g ? (int64_t)g->n_kv : 0; }
int64_t wk_gguf_tensor_count(const wk_gguf *g) { return g ? (int64_t)g->n_tensors : 0; }

wk_status wk_gguf_metadata_get(const wk_gguf *g, int64_t i, const char **key, const wk_gguf_value **value)
{
    if (!g)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf metadata: file is NULL");
    if (i < 0 || (uint64_t)i >= g->n_kv)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: metadata index %lld out of range [0, %llu)", g->map->path,
                        (long long)i, (unsigned long long)g->n_kv);
    if (key)
        *key = g->kvs[i].key.s;
    if (value)
        *value = &g->kvs[i].value;
    return WK_OK;
}

wk_status wk_gguf_metadata_find(const wk_gguf *g, const char *key, const wk_gguf_value **value)
{
    if (!g || !key || !value)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf metadata: %s is NULL", !g ? "file" : !key ? "key" : "value");
    int64_t i = index_find(&g->kv_index, key);
    if (i < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: no metadata key '%s'", g->map->path, key);
    *value = &g->kvs[i].value;
    return WK_OK;
}

wk_status wk_gguf_tensor_info_get(const wk_gguf *g, int64_t i, wk_gguf_tensor_info *out)
{
    if (!g || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf tensor info: %s is NULL", !g ? "file" : "out");
    if (i < 0 || (uint64_t)i >= g->n_tensors)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: tensor index %lld out of range [0, %llu)", g->map->path,
                        (long long)i, (unsigned long long)g->n_tensors);
    const gguf_tensor *t = &g->tensors[i];
    const wk_ggml_type_info *info = wk_ggml_type(t->ggml_type);
    wk_gguf_tensor_info r = {.name = t->name.s, .ggml_type = t->ggml_type, .rank = t->rank,
                             .ggml_type_name = info ? info->name : "unknown",
                             .type = info ? info->ft : WK_FILE_QUANTIZED, .offset = t->offset, .bytes = t->bytes};
    for (int d = 0; d < WK_MAX_RANK; d++) { /* unused dims are 1, as in GGML */
        r.ne[d] = d < t->rank ? t->ne[d] : 1;
        r.shape[d] = d < t->rank ? t->ne[t->rank - 1 - d] : 1;
    }
    *out = r;
    return WK_OK;
}

wk_status wk_gguf_find(const wk_gguf *g, const char *name, int64_t *index)
{
    if (!g || !name || !index)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf find: %s is NULL", !g ? "file" : !name ? "name" : "index");
    int64_t i = index_find(&g->tensor_index, name);
    if (i < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: no tensor '%s'", g->map->path, name);
    *index = i;
    return WK_OK;
}

/* ---------------------------------------------------------------- loads */

/* The tensor called name and its known type (WK_ERR_DTYPE for a number this build does not know). */
static wk_status lookup(const wk_gguf *g, const char *name, wk_device *dev, wk_tensor **out, const gguf_tensor **t,
                        const wk_ggml_type_info **info)
{
    if (!g || !name || !dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf load: %s is NULL",
                        !g ? "file" : !name ? "name" : !dev ? "device" : "out");
    int64_t i = 0;
    WK_TRY(wk_gguf_find(g, name, &i));
    *t = &g->tensors[i];
    *info = wk_ggml_type((*t)->ggml_type);
    if (!*info)
        return wk_error(WK_ERR_DTYPE, "%s: tensor '%s' has GGML type %u, which this build does not know",
                        g->map->path, name, (*t)->ggml_type);
    return WK_OK;
}

static void wick_shape(const gguf_tensor *t, int64_t *shape)
{
    for (int d = 0; d < t->rank; d++)
        shape[d] = t->ne[t->rank - 1 - d];
}

/* A block-quantized tensor: its raw blocks (zero-copy on the CPU, as wk_gguf_load_raw) seen as the wick dtype. */
static wk_status load_blocks(const wk_gguf *g, const gguf_tensor *t, wk_dtype qt, wk_device *dev, wk_tensor **out)
{
    int64_t shape[WK_MAX_RANK], st[WK_MAX_RANK], raw_shape[2] = {(int64_t)t->rows, (int64_t)t->row_bytes};
    wick_shape(t, shape);
    WK_TRY(wk_check_qshape(g->map->path, qt, t->rank, shape));
    wk_tensor *raw = NULL;
    WK_TRY(wk_io_load(g->map, t->offset, WK_U8, 2, raw_shape, NULL, dev, &raw));
    wk_contiguous_strides(t->rank, shape, st);
    wk_status s = wk_tensor_view(raw, t->rank, shape, st, raw->offset / (int64_t)wk_dtype_block_bytes(qt), out);
    if (s == WK_OK)
        (*out)->dtype = qt; /* the offset above is 0: a fresh load or a view of the mapping from its start */
    wk_tensor_release(raw);
    return s;
}

wk_status wk_gguf_load(const wk_gguf *g, const char *name, wk_device *dev, wk_tensor **out)
{
    const gguf_tensor *t = NULL;
    const wk_ggml_type_info *info = NULL;
    wk_dtype qt;
    WK_TRY(lookup(g, name, dev, out, &t, &info));
    if (wk_ggml_type_to_dtype(t->ggml_type, &qt))
        return load_blocks(g, t, qt, dev, out);
    if (!wk_file_type_is_dtype(info->ft))
        return wk_io_type_error(g->map, name, info->ft);
    int64_t shape[WK_MAX_RANK];
    wick_shape(t, shape);
    return wk_io_load(g->map, t->offset, (wk_dtype)info->ft, t->rank, shape, NULL, dev, out);
}

wk_status wk_gguf_load_as(const wk_gguf *g, const char *name, wk_device *dev, wk_dtype dt, wk_tensor **out)
{
    const gguf_tensor *t = NULL;
    const wk_ggml_type_info *info = NULL;
    wk_dtype qt;
    WK_TRY(lookup(g, name, dev, out, &t, &info));
    if (wk_ggml_type_to_dtype(t->ggml_type, &qt)) {
        if (dt == qt)
            return load_blocks(g, t, qt, dev, out);
        wk_tensor *q = NULL;
        WK_TRY(load_blocks(g, t, qt, dev, &q));
        wk_status s = wk_dequantize(q, dt, out);
        wk_tensor_release(q);
        return s;
    }
    int64_t shape[WK_MAX_RANK];
    wick_shape(t, shape);
    return wk_io_load_as(g->map, t->offset, info->ft, t->rank, shape, dev, dt, name, out);
}

wk_status wk_gguf_load_raw(const wk_gguf *g, const char *name, wk_device *dev, wk_tensor **out)
{
    const gguf_tensor *t = NULL;
    const wk_ggml_type_info *info = NULL;
    WK_TRY(lookup(g, name, dev, out, &t, &info));
    int64_t shape[2] = {(int64_t)t->rows, (int64_t)t->row_bytes};
    return wk_io_load(g->map, t->offset, WK_U8, 2, shape, NULL, dev, out);
}

/* gguf_meta.c: GGUF metadata values: the bounded cursor and arena the reader parses with, the value tree
 * (arrays of scalars stay in the mapping until read), the typed query API and the encoding the writer copies. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/gguf.h"

/* ---------------------------------------------------------------- types */

static const struct {
    const char *name;
    size_t size;
} value_types[] = {
    {"uint8", 1}, {"int8", 1},    {"uint16", 2}, {"int16", 2},  {"uint32", 4}, {"int32", 4},   {"float32", 4},
    {"bool", 1},  {"string", 0},  {"array", 0},  {"uint64", 8}, {"int64", 8},  {"float64", 8},
};
#define N_VALUE_TYPES (sizeof value_types / sizeof value_types[0])

size_t wk_gguf_scalar_size(uint32_t type) { return type < N_VALUE_TYPES ? value_types[type].size : 0; }

const char *wk_gguf_type_name(uint32_t type) { return type < N_VALUE_TYPES ? value_types[type].name : "unknown"; }

static bool is_signed(uint32_t t)
{
    return t == WK_GGUF_INT8 || t == WK_GGUF_INT16 || t == WK_GGUF_INT32 || t == WK_GGUF_INT64;
}

static bool is_unsigned(uint32_t t)
{
    return t == WK_GGUF_UINT8 || t == WK_GGUF_UINT16 || t == WK_GGUF_UINT32 || t == WK_GGUF_UINT64;
}

/* ---------------------------------------------------------------- arena */

#define ARENA_BLOCK ((size_t)64 << 10)

struct wk_gguf_arena_block {
    struct wk_gguf_arena_block *next;
    size_t used, cap;
    _Alignas(8) unsigned char data[];
};

void *wk_gguf_arena_alloc(wk_gguf_arena *a, size_t n)
{
    n = n ? n : 1;
    if (n > SIZE_MAX - 8 - sizeof(struct wk_gguf_arena_block))
        return NULL;
    n = (n + 7) & ~(size_t)7;
    struct wk_gguf_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        struct wk_gguf_arena_block *nb = malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        if (b && cap == n) { /* a big request: keep filling the current block afterwards */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void wk_gguf_arena_free(wk_gguf_arena *a)
{
    while (a->head) {
        struct wk_gguf_arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

/* ---------------------------------------------------------------- cursor */

static wk_status short_read(const wk_gguf_cursor *c, const char *what, uint64_t need)
{
    return wk_error(WK_ERR_FILE, "%s: truncated: %s needs %llu bytes at offset %zu, %zu left", c->path, what,
                    (unsigned long long)need, c->pos, wk_gguf_left(c));
}

wk_status wk_gguf_read_u32(wk_gguf_cursor *c, const char *what, uint32_t *out)
{
    if (wk_gguf_left(c) < 4)
        return short_read(c, what, 4);
    memcpy(out, c->base + c->pos, 4);
    c->pos += 4;
    return WK_OK;
}

wk_status wk_gguf_read_u64(wk_gguf_cursor *c, const char *what, uint64_t *out)
{
    if (wk_gguf_left(c) < 8)
        return short_read(c, what, 8);
    memcpy(out, c->base + c->pos, 8);
    c->pos += 8;
    return WK_OK;
}

wk_status wk_gguf_read_string(wk_gguf_cursor *c, wk_gguf_arena *a, const char *what, const char **s,
                              uint64_t *len)
{
    uint64_t n = 0;
    WK_TRY(wk_gguf_read_u64(c, what, &n));
    if (n > wk_gguf_left(c))
        return wk_error(WK_ERR_FILE, "%s: %s: a string of %llu bytes at offset %zu runs past the end (%zu left)",
                        c->path, what, (unsigned long long)n, c->pos - 8, wk_gguf_left(c));
    if (n == 0) {
        *s = "";
        *len = 0;
        return WK_OK;
    }
    char *p = wk_gguf_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory for a string of %llu bytes", c->path,
                        (unsigned long long)n);
    memcpy(p, c->base + c->pos, (size_t)n);
    p[n] = '\0';
    c->pos += (size_t)n;
    *s = p;
    *len = n;
    return WK_OK;
}

/* ---------------------------------------------------------------- parsing */

static void node_init(wk_gguf_value *v, uint32_t type)
{
    memset(v, 0, sizeof *v);
    v->type = type;
    atomic_init(&v->elems, NULL);
}

/* A scalar of type t from its little-endian bytes at p. */
static void decode_scalar(uint32_t t, const unsigned char *p, wk_gguf_value *v)
{
    node_init(v, t);
    switch (t) {
    case WK_GGUF_UINT8: v->v.u = p[0]; break;
    case WK_GGUF_INT8: v->v.i = (int8_t)p[0]; break;
    case WK_GGUF_BOOL: v->v.u = p[0] != 0; break;
    case WK_GGUF_UINT16: { uint16_t x; memcpy(&x, p, 2); v->v.u = x; } break;
    case WK_GGUF_INT16: { int16_t x; memcpy(&x, p, 2); v->v.i = x; } break;
    case WK_GGUF_UINT32: { uint32_t x; memcpy(&x, p, 4); v->v.u = x; } break;
    case WK_GGUF_INT32: { int32_t x; memcpy(&x, p, 4); v->v.i = x; } break;
    case WK_GGUF_FLOAT32: { float x; memcpy(&x, p, 4); v->v.f = x; } break;
    case WK_GGUF_UINT64: memcpy(&v->v.u, p, 8); break;
    case WK_GGUF_INT64: memcpy(&v->v.i, p, 8); break;
    case WK_GGUF_FLOAT64: memcpy(&v->v.f, p, 8); break;
    default: break;
    }
}

static wk_status parse_array(wk_gguf_cursor *c, wk_gguf_arena *a, int depth, const char *what, wk_gguf_value *out)
{
    if (depth >= WK_GGUF_MAX_DEPTH)
        return wk_error(WK_ERR_FILE, "%s: metadata '%.128s': arrays nested deeper than %d", c->path, what,
                        WK_GGUF_MAX_DEPTH);
    uint32_t et = 0;
    uint64_t n = 0;
    WK_TRY(wk_gguf_read_u32(c, "an array's element type", &et));
    WK_TRY(wk_gguf_read_u64(c, "an array's length", &n));
    size_t size = wk_gguf_scalar_size(et), min = size ? size : et == WK_GGUF_STRING ? 8 : et == WK_GGUF_ARRAY ? 12 : 0;
    if (!min)
        return wk_error(WK_ERR_FILE, "%s: metadata '%.128s': unknown array element type %u", c->path, what, et);
    if (n > wk_gguf_left(c) / min)
        return wk_error(WK_ERR_FILE, "%s: metadata '%.128s': an array of %llu %s at offset %zu runs past the end "
                        "(%zu bytes left)", c->path, what, (unsigned long long)n, wk_gguf_type_name(et), c->pos - 12,
                        wk_gguf_left(c));
    out->elem_type = et;
    out->n = n;
    if (size) {
        out->v.raw = c->base + c->pos;
        c->pos += (size_t)n * size;
        return WK_OK;
    }
    if (n == 0)
        return WK_OK;
    wk_gguf_value *nodes = n <= SIZE_MAX / sizeof *nodes ? wk_gguf_arena_alloc(a, (size_t)n * sizeof *nodes) : NULL;
    if (!nodes)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory for an array of %llu values", c->path,
                        (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++)
        WK_TRY(wk_gguf_parse_value(c, a, et, depth + 1, what, &nodes[i]));
    atomic_store(&out->elems, nodes);
    return WK_OK;
}

wk_status wk_gguf_parse_value(wk_gguf_cursor *c, wk_gguf_arena *a, uint32_t type, int depth, const char *what,
                              wk_gguf_value *out)
{
    node_init(out, type);
    size_t size = wk_gguf_scalar_size(type);
    if (size) {
        if (wk_gguf_left(c) < size)
            return short_read(c, "a metadata value", size);
        decode_scalar(type, c->base + c->pos, out);
        c->pos += size;
        return WK_OK;
    }
    if (type == WK_GGUF_STRING)
        return wk_gguf_read_string(c, a, "a metadata string", &out->v.s, &out->n);
    if (type == WK_GGUF_ARRAY)
        return parse_array(c, a, depth, what, out);
    return wk_error(WK_ERR_FILE, "%s: metadata '%.128s': unknown value type %u", c->path, what, type);
}

void wk_gguf_value_free_lazy(wk_gguf_value *v)
{
    if (v->type != WK_GGUF_ARRAY)
        return;
    wk_gguf_value *e = atomic_load(&v->elems);
    if (wk_gguf_scalar_size(v->elem_type)) {
        free(e);
        atomic_store(&v->elems, NULL);
    } else if (e && v->elem_type == WK_GGUF_ARRAY) {
        for (uint64_t i = 0; i < v->n; i++)
            wk_gguf_value_free_lazy(&e[i]);
    }
}

/* ---------------------------------------------------------------- typed reads */

static wk_status wrong_type(const wk_gguf_value *v, const char *want)
{
    return wk_error(WK_ERR_DTYPE, "GGUF metadata: a %s value cannot be read as %s", wk_gguf_type_name(v->type),
                    want);
}

static wk_status null_value(void) { return wk_error(WK_ERR_INVALID_ARGUMENT, "GGUF metadata: value is NULL"); }

/* NULL (a caller's bug: wick.h has no status here) reads as uint8; every typed read of it fails. */
wk_gguf_type wk_gguf_value_type(const wk_gguf_value *v) { return v ? (wk_gguf_type)v->type : WK_GGUF_UINT8; }

wk_status wk_gguf_value_int(const wk_gguf_value *v, int64_t *out)
{
    if (!v || !out)
        return null_value();
    if (is_signed(v->type)) {
        *out = v->v.i;
        return WK_OK;
    }
    if (!is_unsigned(v->type))
        return wrong_type(v, "int64");
    if (v->v.u > (uint64_t)INT64_MAX)
        return wk_error(WK_ERR_DTYPE, "GGUF metadata: the %s value %llu does not fit int64",
                        wk_gguf_type_name(v->type), (unsigned long long)v->v.u);
    *out = (int64_t)v->v.u;
    return WK_OK;
}

wk_status wk_gguf_value_uint(const wk_gguf_value *v, uint64_t *out)
{
    if (!v || !out)
        return null_value();
    if (is_unsigned(v->type)) {
        *out = v->v.u;
        return WK_OK;
    }
    if (!is_signed(v->type))
        return wrong_type(v, "uint64");
    if (v->v.i < 0)
        return wk_error(WK_ERR_DTYPE, "GGUF metadata: the %s value %lld does not fit uint64",
                        wk_gguf_type_name(v->type), (long long)v->v.i);
    *out = (uint64_t)v->v.i;
    return WK_OK;
}

wk_status wk_gguf_value_float(const wk_gguf_value *v, double *out)
{
    if (!v || !out)
        return null_value();
    if (v->type != WK_GGUF_FLOAT32 && v->type != WK_GGUF_FLOAT64)
        return wrong_type(v, "float64");
    *out = v->v.f;
    return WK_OK;
}

wk_status wk_gguf_value_bool(const wk_gguf_value *v, bool *out)
{
    if (!v || !out)
        return null_value();
    if (v->type != WK_GGUF_BOOL)
        return wrong_type(v, "bool");
    *out = v->v.u != 0;
    return WK_OK;
}

wk_status wk_gguf_value_string(const wk_gguf_value *v, const char **s, uint64_t *len)
{
    if (!v || !s)
        return null_value();
    if (v->type != WK_GGUF_STRING)
        return wrong_type(v, "string");
    *s = v->v.s;
    if (len)
        *len = v->n;
    return WK_OK;
}

wk_status wk_gguf_value_array(const wk_gguf_value *v, wk_gguf_type *elem_type, uint64_t *len)
{
    if (!v)
        return null_value();
    if (v->type != WK_GGUF_ARRAY)
        return wrong_type(v, "array");
    if (elem_type)
        *elem_type = (wk_gguf_type)v->elem_type;
    if (len)
        *len = v->n;
    return WK_OK;
}

/* The element nodes of an array of scalars, made once (the first caller's allocation wins a race). */
static wk_gguf_value *scalar_nodes(const wk_gguf_value *cv)
{
    wk_gguf_value *v = (wk_gguf_value *)cv; /* the tree is the open file's, not const storage */
    wk_gguf_value *e = atomic_load(&v->elems);
    if (e)
        return e;
    size_t size = wk_gguf_scalar_size(v->elem_type);
    if (v->n > SIZE_MAX / sizeof *e || !(e = malloc((size_t)v->n * sizeof *e)))
        return NULL;
    for (uint64_t i = 0; i < v->n; i++)
        decode_scalar(v->elem_type, v->v.raw + i * size, &e[i]);
    wk_gguf_value *expected = NULL;
    if (!atomic_compare_exchange_strong(&v->elems, &expected, e)) {
        free(e);
        return expected;
    }
    return e;
}

wk_status wk_gguf_value_array_get(const wk_gguf_value *v, uint64_t i, const wk_gguf_value **out)
{
    if (!v || !out)
        return null_value();
    if (v->type != WK_GGUF_ARRAY)
        return wrong_type(v, "array");
    if (i >= v->n)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "GGUF metadata: index %llu out of range for an array of %llu",
                        (unsigned long long)i, (unsigned long long)v->n);
    wk_gguf_value *e = wk_gguf_scalar_size(v->elem_type) ? scalar_nodes(v) : atomic_load(&v->elems);
    if (!e)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "GGUF metadata: out of host memory for an array of %llu values",
                        (unsigned long long)v->n);
    *out = &e[i];
    return WK_OK;
}

/* ---------------------------------------------------------------- encoding */

static bool encode_scalar(const wk_gguf_value *v, wk_gguf_put put, void *ctx)
{
    unsigned char b[8];
    switch (v->type) {
    case WK_GGUF_UINT8: case WK_GGUF_BOOL: b[0] = (uint8_t)(v->type == WK_GGUF_BOOL ? v->v.u != 0 : v->v.u); break;
    case WK_GGUF_INT8: { int8_t x = (int8_t)v->v.i; memcpy(b, &x, 1); } break;
    case WK_GGUF_UINT16: { uint16_t x = (uint16_t)v->v.u; memcpy(b, &x, 2); } break;
    case WK_GGUF_INT16: { int16_t x = (int16_t)v->v.i; memcpy(b, &x, 2); } break;
    case WK_GGUF_UINT32: { uint32_t x = (uint32_t)v->v.u; memcpy(b, &x, 4); } break;
    case WK_GGUF_INT32: { int32_t x = (int32_t)v->v.i; memcpy(b, &x, 4); } break;
    case WK_GGUF_FLOAT32: { float x = (float)v->v.f; memcpy(b, &x, 4); } break;
    default: memcpy(b, &v->v.u, 8); break; /* uint64, int64, float64 */
    }
    return put(ctx, b, wk_gguf_scalar_size(v->type));
}

bool wk_gguf_value_encode(const wk_gguf_value *v, wk_gguf_put put, void *ctx)
{
    if (wk_gguf_scalar_size(v->type))
        return encode_scalar(v, put, ctx);
    if (v->type == WK_GGUF_STRING)
        return put(ctx, &v->n, 8) && put(ctx, v->v.s, (size_t)v->n);
    if (v->type != WK_GGUF_ARRAY)
        return false;
    if (!put(ctx, &v->elem_type, 4) || !put(ctx, &v->n, 8))
        return false;
    size_t size = wk_gguf_scalar_size(v->elem_type);
    if (size) /* the file's bytes as they are */
        return put(ctx, v->v.raw, (size_t)v->n * size);
    const wk_gguf_value *e = atomic_load(&((wk_gguf_value *)v)->elems);
    for (uint64_t i = 0; i < v->n; i++)
        if (!wk_gguf_value_encode(&e[i], put, ctx))
            return false;
    return true;
}

/* gguf_write.c: the GGUF writer: metadata encoded as it is added (copies, in order), tensors kept by reference,
 * then one atomic write of a version 3 file with every tensor's data aligned to general.alignment (else 32). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/gguf.h"

/* A growable byte buffer; failed once an allocation failed. */
typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    bool failed;
} wbuf;

static bool wbuf_put(void *ctx, const void *p, size_t n)
{
    wbuf *b = ctx;
    if (b->failed)
        return false;
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2)
                return !(b->failed = true);
            cap *= 2;
        }
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            return !(b->failed = true);
        b->p = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
    return true;
}

typedef struct wkv {
    char *key;
    wbuf enc; /* the value's type (u32) and its bytes */
} wkv;

typedef struct wten {
    char *name;
    wk_tensor *t;
    uint32_t ggml_type;
} wten;

struct wk_gguf_writer {
    wkv *kvs;
    size_t n_kv, cap_kv;
    wten *ts;
    size_t n_t, cap_t;
    uint32_t alignment;
};

wk_status wk_gguf_writer_new(wk_gguf_writer **out)
{
    if (!out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: out is NULL");
    wk_gguf_writer *w = calloc(1, sizeof *w);
    if (!w)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "gguf writer: out of host memory");
    w->alignment = WK_GGUF_DEFAULT_ALIGNMENT;
    *out = w;
    return WK_OK;
}

void wk_gguf_writer_free(wk_gguf_writer *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_kv; i++) {
        free(w->kvs[i].key);
        free(w->kvs[i].enc.p);
    }
    for (size_t i = 0; i < w->n_t; i++) {
        free(w->ts[i].name);
        wk_tensor_release(w->ts[i].t);
    }
    free(w->kvs);
    free(w->ts);
    free(w);
}

/* Room for one more element of an array of *cap. */
static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 8;
    void *q = c <= SIZE_MAX / size ? realloc(*p, c * size) : NULL;
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* Adds key with the encoded value enc (taken over: freed on failure). */
static wk_status add_kv(wk_gguf_writer *w, const char *key, wbuf *enc)
{
    wk_status s = WK_OK;
    uint32_t type = 0, a = 0;
    if (!w || !key)
        s = wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: %s is NULL", !w ? "writer" : "key");
    for (size_t i = 0; s == WK_OK && i < w->n_kv; i++)
        if (strcmp(w->kvs[i].key, key) == 0)
            s = wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata key '%s' added twice", key);
    if (s == WK_OK && enc->failed)
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "gguf writer: out of host memory for metadata '%s'", key);
    if (s == WK_OK && strcmp(key, "general.alignment") == 0) {
        memcpy(&type, enc->p, 4);
        if (type == WK_GGUF_UINT32)
            memcpy(&a, enc->p + 4, 4);
        if (type != WK_GGUF_UINT32 || a == 0 || (a & (a - 1)) != 0)
            s = wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: general.alignment must be a uint32 power of two");
    }
    char *k = s == WK_OK ? strdup(key) : NULL;
    if (s == WK_OK && (!k || !grow((void **)&w->kvs, &w->cap_kv, w->n_kv, sizeof *w->kvs)))
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "gguf writer: out of host memory for metadata '%s'", key);
    if (s != WK_OK) {
        free(k);
        free(enc->p);
        return s;
    }
    if (a)
        w->alignment = a;
    w->kvs[w->n_kv++] = (wkv){k, *enc};
    return WK_OK;
}

/* A buffer starting with the value type. */
static wbuf typed(uint32_t type)
{
    wbuf b = {0};
    wbuf_put(&b, &type, 4);
    return b;
}

/* The bounds of integer type t; false when t is not an integer type. */
static bool int_bounds(uint32_t t, int64_t *lo, uint64_t *hi)
{
    size_t bits = wk_gguf_scalar_size(t) * 8;
    bool sig = t == WK_GGUF_INT8 || t == WK_GGUF_INT16 || t == WK_GGUF_INT32 || t == WK_GGUF_INT64;
    bool uns = t == WK_GGUF_UINT8 || t == WK_GGUF_UINT16 || t == WK_GGUF_UINT32 || t == WK_GGUF_UINT64;
    if (!sig && !uns)
        return false;
    *hi = sig ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
    *lo = sig ? -(int64_t)*hi - 1 : 0;
    return true;
}

/* Adds an integer value given as its two's complement bits after a range check. */
static wk_status set_integer(wk_gguf_writer *w, const char *key, uint32_t type, uint64_t bits, bool fits)
{
    if (!fits)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': the value does not fit %s",
                        key ? key : "(null)", wk_gguf_type_name(type));
    wbuf b = typed(type);
    wbuf_put(&b, &bits, wk_gguf_scalar_size(type)); /* the low bytes: the host is little-endian */
    return add_kv(w, key, &b);
}

static wk_status not_integer(const char *key, uint32_t type)
{
    return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': %s is not an integer type",
                    key ? key : "(null)", wk_gguf_type_name(type));
}

wk_status wk_gguf_writer_set_int(wk_gguf_writer *w, const char *key, wk_gguf_type type, int64_t v)
{
    int64_t lo = 0;
    uint64_t hi = 0;
    if (!int_bounds(type, &lo, &hi))
        return not_integer(key, type);
    return set_integer(w, key, type, (uint64_t)v, v >= lo && (v < 0 || (uint64_t)v <= hi));
}

wk_status wk_gguf_writer_set_uint(wk_gguf_writer *w, const char *key, wk_gguf_type type, uint64_t v)
{
    int64_t lo = 0;
    uint64_t hi = 0;
    if (!int_bounds(type, &lo, &hi))
        return not_integer(key, type);
    return set_integer(w, key, type, v, v <= hi);
}

wk_status wk_gguf_writer_set_float(wk_gguf_writer *w, const char *key, wk_gguf_type type, double v)
{
    if (type != WK_GGUF_FLOAT32 && type != WK_GGUF_FLOAT64)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': %s is not a float type",
                        key ? key : "(null)", wk_gguf_type_name(type));
    wbuf b = typed(type);
    float f = (float)v;
    if (type == WK_GGUF_FLOAT32)
        wbuf_put(&b, &f, 4);
    else
        wbuf_put(&b, &v, 8);
    return add_kv(w, key, &b);
}

wk_status wk_gguf_writer_set_bool(wk_gguf_writer *w, const char *key, bool v)
{
    uint8_t x = v ? 1 : 0;
    wbuf b = typed(WK_GGUF_BOOL);
    wbuf_put(&b, &x, 1);
    return add_kv(w, key, &b);
}

wk_status wk_gguf_writer_set_string(wk_gguf_writer *w, const char *key, const char *s, uint64_t len)
{
    if (!s && len)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': string is NULL", key ? key : "(null)");
    if (len > SIZE_MAX)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': string too long", key ? key : "(null)");
    wbuf b = typed(WK_GGUF_STRING);
    wbuf_put(&b, &len, 8);
    wbuf_put(&b, s, (size_t)len);
    return add_kv(w, key, &b);
}

/* Appends n strings (lens NULL: their strlen) after the array header in b. */
static void put_strings(wbuf *b, uint64_t n, const char *const *s, const uint64_t *lens)
{
    for (uint64_t i = 0; i < n && !b->failed; i++) {
        uint64_t len = lens ? lens[i] : s[i] ? strlen(s[i]) : 0;
        if (len > SIZE_MAX || (!s[i] && len))
            b->failed = true;
        else if (wbuf_put(b, &len, 8))
            wbuf_put(b, s[i], (size_t)len);
    }
}

wk_status wk_gguf_writer_set_array(wk_gguf_writer *w, const char *key, wk_gguf_type elem_type, uint64_t n,
                                   const void *values, const uint64_t *lens)
{
    const char *k = key ? key : "(null)";
    size_t size = wk_gguf_scalar_size(elem_type);
    if (!size && elem_type != WK_GGUF_STRING)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': arrays of %s cannot be written", k,
                        wk_gguf_type_name(elem_type));
    if (n && !values)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': values is NULL", k);
    if (size && n > SIZE_MAX / size)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': array too long", k);
    uint32_t et = elem_type;
    wbuf b = typed(WK_GGUF_ARRAY);
    wbuf_put(&b, &et, 4);
    wbuf_put(&b, &n, 8);
    if (elem_type == WK_GGUF_STRING)
        put_strings(&b, n, values, lens);
    else if (elem_type != WK_GGUF_BOOL)
        wbuf_put(&b, values, (size_t)n * size);
    for (uint64_t i = 0; elem_type == WK_GGUF_BOOL && i < n; i++) {
        uint8_t x = ((const uint8_t *)values)[i] != 0;
        wbuf_put(&b, &x, 1);
    }
    return add_kv(w, key, &b);
}

wk_status wk_gguf_writer_set_value(wk_gguf_writer *w, const char *key, const wk_gguf_value *v)
{
    if (!v)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: metadata '%s': value is NULL", key ? key : "(null)");
    wbuf b = typed(v->type);
    if (!wk_gguf_value_encode(v, wbuf_put, &b))
        b.failed = true;
    return add_kv(w, key, &b);
}

wk_status wk_gguf_writer_add_tensor(wk_gguf_writer *w, const char *name, const wk_tensor *t)
{
    uint32_t type = 0;
    if (!w || !name || !t)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: %s is NULL", !w ? "writer" : !name ? "name" : "tensor");
    if (!wk_ggml_type_of_dtype(t->dtype, &type))
        return wk_error(WK_ERR_DTYPE, "gguf writer: tensor '%s' is %s: GGUF has no tensor type for it "
                        "(f32, f16, bf16, f64, i32, i64 and the block-quantized dtypes are written)", name, wk_dtype_name(t->dtype));
    for (size_t i = 0; i < w->n_t; i++)
        if (strcmp(w->ts[i].name, name) == 0)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer: tensor '%s' added twice", name);
    char *n = strdup(name);
    if (!n || !grow((void **)&w->ts, &w->cap_t, w->n_t, sizeof *w->ts)) {
        free(n);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "gguf writer: out of host memory for tensor '%s'", name);
    }
    wk_tensor_retain((wk_tensor *)t);
    w->ts[w->n_t++] = (wten){n, (wk_tensor *)t, type};
    return WK_OK;
}

/* ---------------------------------------------------------------- saving */

typedef struct wout {
    FILE *f;
    const char *path;
    uint64_t pos;
} wout;

static wk_status out_put(wout *o, const void *p, size_t n)
{
    WK_TRY(wk_io_write(o->f, o->path, p, n));
    o->pos += n;
    return WK_OK;
}

static wk_status out_string(wout *o, const char *s)
{
    uint64_t n = strlen(s);
    WK_TRY(out_put(o, &n, 8));
    return out_put(o, s, (size_t)n);
}

/* Zeros up to the next multiple of a. */
static wk_status out_pad(wout *o, uint32_t a)
{
    static const unsigned char zeros[4096];
    uint64_t n = (a - o->pos % a) % a;
    while (n) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        WK_TRY(out_put(o, zeros, k));
        n -= k;
    }
    return WK_OK;
}

static uint64_t tensor_bytes(const wk_tensor *t)
{
    return (uint64_t)wk_tensor_nbytes(t);
}

static wk_status write_tensor_infos(const wk_gguf_writer *w, wout *o)
{
    uint64_t offset = 0, a = w->alignment;
    for (size_t i = 0; i < w->n_t; i++) {
        const wk_tensor *t = w->ts[i].t;
        uint32_t rank = (uint32_t)t->rank;
        WK_TRY(out_string(o, w->ts[i].name));
        WK_TRY(out_put(o, &rank, 4));
        for (int d = t->rank - 1; d >= 0; d--) {
            uint64_t ne = (uint64_t)t->shape[d];
            WK_TRY(out_put(o, &ne, 8));
        }
        WK_TRY(out_put(o, &w->ts[i].ggml_type, 4));
        WK_TRY(out_put(o, &offset, 8));
        offset += (tensor_bytes(t) + a - 1) / a * a;
    }
    return WK_OK;
}

static wk_status write_file(void *ctx, FILE *f, const char *path)
{
    const wk_gguf_writer *w = ctx;
    wout o = {f, path, 0};
    uint32_t version = 3;
    uint64_t counts[2] = {w->n_t, w->n_kv};
    WK_TRY(out_put(&o, "GGUF", 4));
    WK_TRY(out_put(&o, &version, 4));
    WK_TRY(out_put(&o, counts, 16));
    for (size_t i = 0; i < w->n_kv; i++) {
        WK_TRY(out_string(&o, w->kvs[i].key));
        WK_TRY(out_put(&o, w->kvs[i].enc.p, w->kvs[i].enc.n));
    }
    WK_TRY(write_tensor_infos(w, &o));
    WK_TRY(out_pad(&o, w->alignment));
    for (size_t i = 0; i < w->n_t; i++) {
        WK_TRY(wk_io_write_tensor(f, path, w->ts[i].t));
        o.pos += tensor_bytes(w->ts[i].t);
        WK_TRY(out_pad(&o, w->alignment));
    }
    return WK_OK;
}

wk_status wk_gguf_writer_save(const wk_gguf_writer *w, const char *path)
{
    if (!w || !path)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "gguf writer save: %s is NULL", !w ? "writer" : "path");
    return wk_io_write_atomic(path, write_file, (void *)w);
}

/* npy.c: numpy's .npy files (versions 1.0, 2.0 and 3.0, little-endian, C or Fortran order): the header's
 * Python dict literal read by a small strict parser, checked against the file's size, loads through
 * io/load.c, and the writer (version 1.0 unless the header needs 2.0, C order, atomic). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/io.h"

/* Headers over this size are refused. */
#define NPY_MAX_HEADER ((uint64_t)100 * 1000 * 1000)
/* "\x93NUMPY", major, minor. */
#define NPY_MAGIC_LEN 8
/* The header (magic, length and dict) is padded to a multiple of this when written. */
#define NPY_ALIGN 64

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* What a header says. */
typedef struct npy_header {
    wk_file_type type;
    int rank;
    int64_t shape[WK_MAX_RANK];
    bool fortran;
    uint64_t data_offset; /* where the array's bytes start */
} npy_header;

/* A cursor over the header's text. */
typedef struct npy_parser {
    const char *path;
    const unsigned char *p, *end;
    bool py2; /* versions 1.0 and 2.0: a Python 2 writer may have put 'L' after integers */
} npy_parser;

/* A slice of the header (a string's contents, without quotes). */
typedef struct npy_str {
    const char *s;
    size_t n;
} npy_str;

/* Longest part of a slice quoted in a message. */
#define NPY_QUOTE_MAX 40
#define NPY_Q(x) (int)((x).n < NPY_QUOTE_MAX ? (x).n : NPY_QUOTE_MAX), (x).s

/* ---------------------------------------------------------------- the header's dict literal */

static void skip_ws(npy_parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

/* The next non-blank character (skipped), or -1 at the end. */
static int next_char(npy_parser *ps)
{
    skip_ws(ps);
    return ps->p < ps->end ? *ps->p++ : -1;
}

static int peek_char(npy_parser *ps)
{
    skip_ws(ps);
    return ps->p < ps->end ? *ps->p : -1;
}

static wk_status syntax(const npy_parser *ps, const unsigned char *start, const char *what)
{
    return wk_error(WK_ERR_FILE, "%s: the header is not a numpy header dict: %s at header byte %lld", ps->path,
                    what, (long long)(ps->p - start));
}

/* A quoted string ('...' or "...") of printable ASCII without escapes. */
static bool parse_string(npy_parser *ps, npy_str *out)
{
    int q = next_char(ps);
    if (q != '\'' && q != '"')
        return false;
    const unsigned char *s = ps->p;
    while (ps->p < ps->end && *ps->p != q) {
        if (*ps->p < 0x20 || *ps->p > 0x7e || *ps->p == '\\')
            return false;
        ps->p++;
    }
    if (ps->p == ps->end)
        return false;
    out->s = (const char *)s;
    out->n = (size_t)(ps->p - s);
    ps->p++;
    return true;
}

static bool is_word_char(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* The word w, not followed by another identifier character. */
static bool take_word(npy_parser *ps, const char *w)
{
    size_t n = strlen(w);
    skip_ws(ps);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0 ||
        (ps->p + n < ps->end && is_word_char(ps->p[n])))
        return false;
    ps->p += n;
    return true;
}

static wk_status parse_bool(npy_parser *ps, const unsigned char *start, bool *out)
{
    if (take_word(ps, "True"))
        *out = true;
    else if (take_word(ps, "False"))
        *out = false;
    else
        return syntax(ps, start, "'fortran_order' is not True or False");
    return WK_OK;
}

/* A decimal integer >= 0 that fits int64 (Python's syntax: no leading zeros, no sign). */
static wk_status parse_dim(npy_parser *ps, const unsigned char *start, int64_t *out)
{
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '-')
        return wk_error(WK_ERR_FILE, "%s: the header's shape has a negative dim", ps->path);
    if (ps->p == ps->end || *ps->p < '0' || *ps->p > '9')
        return syntax(ps, start, "a shape entry is not an integer");
    const unsigned char *first = ps->p;
    uint64_t v = 0;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        uint64_t d = (uint64_t)(*ps->p++ - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return wk_error(WK_ERR_FILE, "%s: the header's shape has a dim over 2^63 - 1", ps->path);
        v = v * 10 + d;
    }
    if (*first == '0' && ps->p - first > 1)
        return syntax(ps, start, "an integer with a leading zero");
    if (ps->py2 && ps->p < ps->end && (*ps->p == 'L' || *ps->p == 'l'))
        ps->p++;
    if (ps->p < ps->end && (is_word_char(*ps->p) || *ps->p == '.'))
        return syntax(ps, start, "a shape entry is not an integer");
    *out = (int64_t)v;
    return WK_OK;
}

/* A tuple of dims: "()", "(5,)", "(3, 4)", "(3, 4,)". */
static wk_status parse_shape(npy_parser *ps, const unsigned char *start, npy_header *h)
{
    if (next_char(ps) != '(')
        return syntax(ps, start, "'shape' is not a tuple");
    int n = 0;
    bool comma = false; /* a comma followed the last dim */
    while (peek_char(ps) != ')') {
        if (n > 0 && !comma)
            return syntax(ps, start, "expected ',' or ')' in 'shape'");
        if (n == WK_MAX_RANK)
            return wk_error(WK_ERR_FILE, "%s: the header's shape has more than %d dims", ps->path, WK_MAX_RANK);
        WK_TRY(parse_dim(ps, start, &h->shape[n]));
        n++;
        comma = peek_char(ps) == ',';
        if (comma)
            ps->p++;
    }
    ps->p++;
    if (n == 1 && !comma)
        return syntax(ps, start, "'shape' is a parenthesised integer, not a 1-tuple (write (n,))");
    h->rank = n;
    return WK_OK;
}

/* The dict's three entries; descr is kept as text and interpreted afterwards. */
static wk_status parse_dict(npy_parser *ps, npy_header *h, npy_str *descr)
{
    const unsigned char *start = ps->p;
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    bool seen[3] = {false, false, false};
    if (next_char(ps) != '{')
        return syntax(ps, start, "it does not start with '{'");
    while (peek_char(ps) != '}') {
        npy_str key;
        if (!parse_string(ps, &key))
            return syntax(ps, start, "expected a quoted key or '}'");
        int k = 0;
        while (k < 3 && !(strlen(keys[k]) == key.n && memcmp(keys[k], key.s, key.n) == 0))
            k++;
        if (k == 3)
            return wk_error(WK_ERR_FILE, "%s: the header has an unknown key '%.*s'", ps->path, NPY_Q(key));
        if (seen[k])
            return wk_error(WK_ERR_FILE, "%s: the header has the key '%s' twice", ps->path, keys[k]);
        seen[k] = true;
        if (next_char(ps) != ':')
            return syntax(ps, start, "expected ':' after a key");
        if (k == 0 && peek_char(ps) == '[')
            return wk_error(WK_ERR_DTYPE, "%s: a structured dtype (a list of fields): wick reads plain arrays only",
                            ps->path);
        if (k == 0 && !parse_string(ps, descr))
            return syntax(ps, start, "'descr' is not a quoted string");
        if (k == 1)
            WK_TRY(parse_bool(ps, start, &h->fortran));
        if (k == 2)
            WK_TRY(parse_shape(ps, start, h));
        int c = peek_char(ps);
        if (c != ',' && c != '}')
            return syntax(ps, start, "expected ',' or '}' after a value");
        if (c == ',')
            ps->p++;
    }
    ps->p++;
    if (peek_char(ps) != -1)
        return syntax(ps, start, "text after the closing '}'");
    for (int k = 0; k < 3; k++)
        if (!seen[k])
            return wk_error(WK_ERR_FILE, "%s: the header has no '%s'", ps->path, keys[k]);
    return WK_OK;
}

/* ---------------------------------------------------------------- descr */

static const struct {
    char kind;
    int size;
    wk_file_type type;
    const char *descr; /* what the writer puts */
} npy_types[] = {
    {'b', 1, WK_FILE_BOOL, "|b1"}, {'i', 1, WK_FILE_I8, "|i1"},  {'u', 1, WK_FILE_U8, "|u1"},
    {'i', 2, WK_FILE_I16, "<i2"},  {'u', 2, WK_FILE_U16, "<u2"}, {'f', 2, WK_FILE_F16, "<f2"},
    {'i', 4, WK_FILE_I32, "<i4"},  {'u', 4, WK_FILE_U32, "<u4"}, {'f', 4, WK_FILE_F32, "<f4"},
    {'i', 8, WK_FILE_I64, "<i8"},  {'u', 8, WK_FILE_U64, "<u8"}, {'f', 8, WK_FILE_F64, "<f8"},
};
#define NPY_NTYPES (sizeof npy_types / sizeof npy_types[0])

/* descr ("<f4", "|u1", ...) to a file type: WK_ERR_DTYPE for numpy types wick cannot read, WK_ERR_FILE for
 * text that is no numpy type descr. */
static wk_status parse_descr(const char *path, npy_str d, wk_file_type *out)
{
    size_t i = 0;
    char order = d.n && strchr("<>|=", d.s[0]) ? d.s[i++] : '=';
    char kind = i < d.n ? d.s[i++] : 0;
    int size = 0;
    bool digits = i < d.n;
    for (; i < d.n && digits; i++) {
        digits = d.s[i] >= '0' && d.s[i] <= '9' && size < 100000;
        size = size * 10 + (d.s[i] - '0');
    }
    if (kind && strchr("OSUVacmM", kind)) {
        if (kind == 'V' && digits && size == 2)
            return wk_error(WK_ERR_DTYPE, "%s: descr '%.*s' is raw 2-byte records, which is how ml_dtypes saves "
                            "bfloat16: .npy has no bfloat16 type (save it as float32, or use safetensors)",
                            path, NPY_Q(d));
        if (kind == 'O')
            return wk_error(WK_ERR_DTYPE, "%s: descr '%.*s' is an object array (pickled Python objects), which "
                            "wick does not read", path, NPY_Q(d));
        return wk_error(WK_ERR_DTYPE, "%s: descr '%.*s' (complex, string, raw or date/time data) has no wick dtype",
                        path, NPY_Q(d));
    }
    for (size_t k = 0; digits && kind && k < NPY_NTYPES; k++) {
        if (npy_types[k].kind != kind || npy_types[k].size != size)
            continue;
        if (size > 1 && order == '>')
            return wk_error(WK_ERR_DTYPE, "%s: descr '%.*s' is big-endian: wick reads little-endian .npy files "
                            "only (numpy: arr.astype(arr.dtype.newbyteorder('<')))", path, NPY_Q(d));
        if (size > 1 && order == '|')
            return wk_error(WK_ERR_FILE, "%s: descr '%.*s' has no byte order for a multi-byte type", path, NPY_Q(d));
        *out = npy_types[k].type;
        return WK_OK;
    }
    if (digits && kind && strchr("biuf", kind))
        return wk_error(WK_ERR_DTYPE, "%s: descr '%.*s' has no wick dtype", path, NPY_Q(d));
    return wk_error(WK_ERR_FILE, "%s: descr '%.*s' is not a numpy dtype", path, NPY_Q(d));
}

/* ---------------------------------------------------------------- the whole header */

/* Magic, version and header length: the dict is the bytes [*hdr, *hdr + *hlen); *major is the version. */
static wk_status read_prefix(const wk_file_map *m, size_t *hdr, uint64_t *hlen, int *major)
{
    if (m->size < NPY_MAGIC_LEN || memcmp(m->base, npy_magic, sizeof npy_magic) != 0)
        return wk_error(WK_ERR_FILE, "%s: not a .npy file (no \\x93NUMPY magic at its start)", m->path);
    int maj = m->base[6], min = m->base[7];
    if (maj < 1 || maj > 3 || min != 0)
        return wk_error(WK_ERR_FILE, "%s: .npy version %d.%d (wick reads 1.0, 2.0 and 3.0)", m->path, maj, min);
    size_t lenbytes = maj == 1 ? 2 : 4;
    if (m->size < NPY_MAGIC_LEN + lenbytes)
        return wk_error(WK_ERR_FILE, "%s: truncated: %zu bytes end inside the header length", m->path, m->size);
    const unsigned char *b = m->base + NPY_MAGIC_LEN;
    uint64_t n = maj == 1 ? (uint64_t)b[0] | (uint64_t)b[1] << 8
                          : (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
    if (n > NPY_MAX_HEADER)
        return wk_error(WK_ERR_FILE, "%s: header length %llu is over the limit of %llu bytes", m->path,
                        (unsigned long long)n, (unsigned long long)NPY_MAX_HEADER);
    if (n > m->size - NPY_MAGIC_LEN - lenbytes)
        return wk_error(WK_ERR_FILE, "%s: header length %llu runs past the end of the file (%zu bytes)", m->path,
                        (unsigned long long)n, m->size);
    *hdr = NPY_MAGIC_LEN + lenbytes;
    *hlen = n;
    *major = maj;
    return WK_OK;
}

/* The parsed, checked header: the data's size is exactly the rest of the file. */
static wk_status read_header(const wk_file_map *m, npy_header *out)
{
    size_t hdr = 0;
    uint64_t hlen = 0;
    int major = 0;
    WK_TRY(read_prefix(m, &hdr, &hlen, &major));
    npy_header h = {.rank = 0};
    npy_str descr = {NULL, 0};
    npy_parser ps = {m->path, m->base + hdr, m->base + hdr + hlen, major < 3};
    WK_TRY(parse_dict(&ps, &h, &descr));
    WK_TRY(parse_descr(m->path, descr, &h.type));
    uint64_t bytes = 0, es = wk_file_type_size(h.type);
    char buf[200];
    if (!wk_io_numel_bytes(h.rank, h.shape, es, &bytes))
        return wk_error(WK_ERR_FILE, "%s: shape %s is too large (its size overflows)", m->path,
                        wk_shape_str(buf, sizeof buf, h.rank, h.shape));
    h.data_offset = hdr + hlen;
    uint64_t have = m->size - h.data_offset;
    if (have < bytes)
        return wk_error(WK_ERR_FILE, "%s: truncated: descr '%.*s' shape %s needs %llu bytes of data, the file has %llu",
                        m->path, NPY_Q(descr), wk_shape_str(buf, sizeof buf, h.rank, h.shape),
                        (unsigned long long)bytes, (unsigned long long)have);
    if (have > bytes)
        return wk_error(WK_ERR_FILE, "%s: %llu bytes after the array's data (descr '%.*s' shape %s: %llu bytes)",
                        m->path, (unsigned long long)(have - bytes), NPY_Q(descr),
                        wk_shape_str(buf, sizeof buf, h.rank, h.shape), (unsigned long long)bytes);
    *out = h;
    return WK_OK;
}

/* ---------------------------------------------------------------- loads */

static wk_status open_header(const char *path, wk_device *dev, wk_tensor **out, wk_file_map **m, npy_header *h)
{
    if (!path || !dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "npy load: %s is NULL", !path ? "path" : !dev ? "device" : "out");
    WK_TRY(wk_file_map_open(path, m));
    wk_status s = read_header(*m, h);
    if (s != WK_OK)
        wk_file_map_release(*m);
    return s;
}

wk_status wk_npy_load(const char *path, wk_device *dev, wk_tensor **out)
{
    wk_file_map *m = NULL;
    npy_header h;
    WK_TRY(open_header(path, dev, out, &m, &h));
    wk_status s;
    if (!wk_file_type_is_dtype(h.type)) {
        s = wk_error(WK_ERR_DTYPE, "%s: the array has type %s, which wick has no dtype for: load it with "
                     "wk_npy_load_as to convert it", path, wk_file_type_name(h.type));
    } else if (h.fortran && h.rank > 1) {
        int64_t st[WK_MAX_RANK], acc = 1;
        for (int i = 0; i < h.rank; i++) {
            st[i] = acc;
            acc *= h.shape[i] ? h.shape[i] : 1; /* bounded by read_header */
        }
        s = wk_io_load(m, h.data_offset, (wk_dtype)h.type, h.rank, h.shape, st, dev, out);
    } else {
        s = wk_io_load(m, h.data_offset, (wk_dtype)h.type, h.rank, h.shape, NULL, dev, out);
    }
    wk_file_map_release(m);
    return s;
}

wk_status wk_npy_load_as(const char *path, wk_device *dev, wk_dtype dt, wk_tensor **out)
{
    wk_file_map *m = NULL;
    npy_header h;
    WK_TRY(open_header(path, dev, out, &m, &h));
    /* A Fortran-order array is the row-major array of the reversed shape, its dims then reversed (a view). */
    bool rev = h.fortran && h.rank > 1;
    int64_t shape[WK_MAX_RANK];
    int perm[WK_MAX_RANK];
    for (int i = 0; i < h.rank; i++) {
        shape[i] = rev ? h.shape[h.rank - 1 - i] : h.shape[i];
        perm[i] = h.rank - 1 - i;
    }
    wk_tensor *t = NULL;
    wk_status s = wk_io_load_as(m, h.data_offset, h.type, h.rank, shape, dev, dt, "array", &t);
    wk_file_map_release(m);
    if (s != WK_OK || !rev) {
        if (s == WK_OK)
            *out = t;
        return s;
    }
    s = wk_permute(t, perm, out);
    wk_tensor_release(t);
    return s;
}

/* ---------------------------------------------------------------- save */

typedef struct npy_save_ctx {
    const wk_tensor *t;
    const char *header; /* the whole prefix: magic, length, dict, padding, '\n' */
    size_t header_len;
} npy_save_ctx;

static wk_status write_npy(void *ctx, FILE *f, const char *path)
{
    const npy_save_ctx *c = ctx;
    WK_TRY(wk_io_write(f, path, c->header, c->header_len));
    return wk_io_write_tensor(f, path, c->t);
}

/* The prefix for t into buf (cap bytes): version 1.0, or 2.0 when the dict passes 65535 bytes. */
static size_t make_header(const wk_tensor *t, const char *descr, char *buf, size_t cap)
{
    char dict[64 + 24 * WK_MAX_RANK];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    int rank = wk_tensor_rank(t);
    for (int i = 0; i < rank; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld", i ? ", " : "",
                      (long long)wk_tensor_shape(t)[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", rank == 1 ? "," : "");
    size_t dlen = (size_t)n + 1; /* and the '\n' */
    int major = 1;
    size_t pre = NPY_MAGIC_LEN + 2, total = (pre + dlen + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total - pre > 65535) { /* version 1.0's length is 16 bits */
        major = 2;
        pre = NPY_MAGIC_LEN + 4;
        total = (pre + dlen + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    }
    if (total > cap)
        return 0;
    size_t hl = total - pre;
    memcpy(buf, npy_magic, sizeof npy_magic);
    buf[6] = (char)major;
    buf[7] = 0;
    for (size_t i = 0; i < pre - NPY_MAGIC_LEN; i++)
        buf[NPY_MAGIC_LEN + i] = (char)((hl >> (8 * i)) & 0xff);
    memcpy(buf + pre, dict, (size_t)n);
    memset(buf + pre + n, ' ', total - pre - (size_t)n - 1);
    buf[total - 1] = '\n';
    return total;
}

wk_status wk_npy_save(const char *path, const wk_tensor *t)
{
    if (!path || !t)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "npy save: %s is NULL", !path ? "path" : "tensor");
    wk_dtype dt = wk_tensor_dtype(t);
    if (wk_dtype_is_quantized(dt))
        return wk_error(WK_ERR_DTYPE, "%s: .npy has no type for the block-quantized dtype %s: dequantize the tensor "
                        "(wk_dequantize) or save it as GGUF", path, wk_dtype_name(dt));
    if (dt == WK_BF16)
        return wk_error(WK_ERR_DTYPE, "%s: .npy has no bfloat16 type: cast the tensor to f32 first, or use "
                        "safetensors", path);
    const char *descr = NULL;
    for (size_t k = 0; k < NPY_NTYPES; k++)
        if (npy_types[k].type == (wk_file_type)dt)
            descr = npy_types[k].descr;
    if (!descr)
        return wk_error(WK_ERR_DTYPE, "%s: npy save: invalid dtype %d", path, (int)dt);
    char header[NPY_ALIGN * 8];
    npy_save_ctx c = {t, header, make_header(t, descr, header, sizeof header)};
    if (!c.header_len)
        return wk_error(WK_ERR_INTERNAL, "%s: npy save: the header does not fit its buffer", path);
    return wk_io_write_atomic(path, write_npy, &c);
}

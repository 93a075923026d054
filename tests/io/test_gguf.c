/* test_gguf.c: the GGUF reader and writer on hand-built files: a valid file read in full (metadata of every type
 * through the typed API, tensor infos, typed/_as/raw loads), every hostile class (each truncation, bad magic and
 * versions, counts and lengths past the end, a nesting bomb, bad dims, offsets and alignments, duplicates) and
 * the writer's round trip of every dtype it writes, with its refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/gguf.h"

static wk_device *cpu;

/* ---------------------------------------------------------------- building files */

typedef struct bb {
    unsigned char *p;
    size_t n, cap;
} bb;

static void put(bb *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}
static void u8(bb *b, uint8_t v) { put(b, &v, 1); }
static void u32(bb *b, uint32_t v) { put(b, &v, 4); }
static void u64(bb *b, uint64_t v) { put(b, &v, 8); }
static void strn(bb *b, const char *s, uint64_t n)
{
    u64(b, n);
    put(b, s, (size_t)n);
}
static void str(bb *b, const char *s) { strn(b, s, strlen(s)); }
static void header(bb *b, uint32_t version, uint64_t nt, uint64_t nkv)
{
    put(b, "GGUF", 4);
    u32(b, version);
    u64(b, nt);
    u64(b, nkv);
}
static void kv_u32(bb *b, const char *key, uint32_t v)
{
    str(b, key);
    u32(b, WK_GGUF_UINT32);
    u32(b, v);
}
static void tinfo(bb *b, const char *name, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off)
{
    str(b, name);
    u32(b, nd);
    for (uint32_t i = 0; i < nd; i++)
        u64(b, ne[i]);
    u32(b, type);
    u64(b, off);
}
static void pad(bb *b, size_t a)
{
    while (b->n % a)
        u8(b, 0);
}
static void fill(bb *b, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++)
        u8(b, (unsigned char)(seed + i * 7));
}

/* A file name in the working directory; a ring of buffers, so a caller's path outlives the next few calls. */
static const char *tmp_path(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "gguf_test_%d_%s", (int)getpid(), name);
    return p;
}

static void save(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n))
        abort();
    fclose(f);
}

/* Opens bytes; expects status want and (when want is an error) a message containing frag. */
static void expect_open(const char *what, const void *p, size_t n, wk_status want, const char *frag)
{
    const char *path = tmp_path("hostile.gguf");
    save(path, p, n);
    wk_gguf *g = (wk_gguf *)0x1;
    wk_status s = wk_gguf_open(path, &g);
    CHECK(s == want, "%s: open gave %s, wanted %s", what, wk_status_string(s), wk_status_string(want));
    if (s == WK_OK)
        wk_gguf_close(g);
    else
        CHECK(g == (wk_gguf *)0x1, "%s: out written on failure", what);
    if (s != WK_OK && frag)
        CHECK(strstr(wk_last_error(), frag) != NULL, "%s: message lacks '%s'", what, frag);
    unlink(path);
}

/* The valid file most hostile cases start from: 3 metadata, an F32 (3, 2) at 0 and a Q8_0 ne (64, 2) at 32;
 * the file ends where the last tensor does. */
static bb base_file(void)
{
    bb b = {0};
    header(&b, 3, 2, 3);
    kv_u32(&b, "general.alignment", 32);
    str(&b, "general.name");
    u32(&b, WK_GGUF_STRING);
    str(&b, "tiny");
    str(&b, "a.list");
    u32(&b, WK_GGUF_ARRAY);
    u32(&b, WK_GGUF_INT16);
    u64(&b, 3);
    int16_t v[3] = {-1, 2, -300};
    put(&b, v, sizeof v);
    tinfo(&b, "w", 2, (uint64_t[]){3, 2}, 0, 0);
    tinfo(&b, "q", 2, (uint64_t[]){64, 2}, 8, 32);
    pad(&b, 32);
    float f[6] = {1, 2, 3, 4, 5, 6};
    put(&b, f, sizeof f);
    pad(&b, 32);
    fill(&b, 4 * 34, 3);
    return b;
}

/* ---------------------------------------------------------------- the valid file */

static void test_valid(void)
{
    bb b = base_file();
    const char *path = tmp_path("valid.gguf");
    save(path, b.p, b.n);
    wk_gguf *g = NULL;
    CHECK(wk_gguf_open(path, &g) == WK_OK, "open valid");
    if (!g)
        return;
    CHECK(wk_gguf_version(g) == 3 && wk_gguf_alignment(g) == 32, "version/alignment");
    CHECK(wk_gguf_metadata_count(g) == 3 && wk_gguf_tensor_count(g) == 2, "counts");
    const char *key = NULL;
    const wk_gguf_value *v = NULL;
    CHECK(wk_gguf_metadata_get(g, 1, &key, &v) == WK_OK && strcmp(key, "general.name") == 0, "key 1");
    CHECK(wk_gguf_metadata_get(g, 3, &key, &v) == WK_ERR_INVALID_ARGUMENT, "key index 3");
    CHECK(wk_gguf_metadata_get(g, -1, &key, &v) == WK_ERR_INVALID_ARGUMENT, "key index -1");
    CHECK(wk_gguf_metadata_find(g, "nope", &v) == WK_ERR_INVALID_ARGUMENT && strstr(wk_last_error(), "nope"),
          "absent key");
    wk_gguf_tensor_info ti;
    CHECK(wk_gguf_tensor_info_get(g, 0, &ti) == WK_OK, "info 0");
    CHECK(strcmp(ti.name, "w") == 0 && ti.ggml_type == 0 && strcmp(ti.ggml_type_name, "F32") == 0 &&
              ti.type == WK_FILE_F32 && ti.rank == 2 && ti.ne[0] == 3 && ti.ne[1] == 2 && ti.shape[0] == 2 &&
              ti.shape[1] == 3 && ti.bytes == 24 && ti.offset % 32 == 0 && ti.offset + 24 <= b.n,
          "info 0 fields");
    uint64_t w_off = ti.offset;
    CHECK(wk_gguf_tensor_info_get(g, 1, &ti) == WK_OK && ti.type == WK_FILE_QUANTIZED && ti.ggml_type == 8 &&
              strcmp(ti.ggml_type_name, "Q8_0") == 0 && ti.bytes == 4 * 34 && ti.offset == w_off + 32 &&
              ti.offset + ti.bytes == b.n, "info 1 fields");
    CHECK(wk_gguf_tensor_info_get(g, 2, &ti) == WK_ERR_INVALID_ARGUMENT, "info index 2");
    int64_t idx = -1;
    CHECK(wk_gguf_find(g, "q", &idx) == WK_OK && idx == 1, "find q");
    CHECK(wk_gguf_find(g, "x", &idx) == WK_ERR_INVALID_ARGUMENT && strstr(wk_last_error(), "'x'"), "find x");

    wk_tensor *t = NULL;
    CHECK(wk_gguf_load(g, "w", cpu, &t) == WK_OK, "load w");
    if (t) {
        float out[6];
        CHECK(wk_tensor_dtype(t) == WK_F32 && wk_tensor_rank(t) == 2 && wk_tensor_shape(t)[0] == 2 &&
                  wk_tensor_shape(t)[1] == 3, "w shape");
        CHECK(wk_tensor_to_host(t, out, sizeof out) == WK_OK && out[0] == 1 && out[5] == 6, "w values");
        CHECK(wk_tensor_is_read_only(t), "w is a read-only view of the mapping");
    }
    wk_tensor *tq = NULL, *td = NULL;
    CHECK(wk_gguf_load(g, "q", cpu, &tq) == WK_OK && wk_tensor_dtype(tq) == WK_Q8_0 && wk_tensor_rank(tq) == 2 &&
              wk_tensor_shape(tq)[0] == 2 && wk_tensor_shape(tq)[1] == 64 && wk_tensor_nbytes(tq) == 4 * 34 &&
              wk_tensor_is_read_only(tq), "Q8_0 loads as WK_Q8_0, a read-only view of its blocks");
    wk_tensor_release(tq);
    tq = NULL;
    CHECK(wk_gguf_load_as(g, "q", cpu, WK_F32, &tq) == WK_OK && wk_tensor_dtype(tq) == WK_F32 &&
              wk_tensor_numel(tq) == 128, "load_as f32 of Q8_0 dequantizes");
    wk_tensor_release(tq);
    tq = NULL;
    CHECK(wk_gguf_load_as(g, "q", cpu, WK_I32, &tq) == WK_ERR_DTYPE && !tq, "load_as i32 of Q8_0 refused");
    CHECK(wk_gguf_load_as(g, "w", cpu, WK_F64, &td) == WK_OK && wk_tensor_dtype(td) == WK_F64, "load_as f64");
    CHECK(wk_gguf_load_raw(g, "q", cpu, &tq) == WK_OK, "raw load of Q8_0");
    wk_gguf_close(g); /* loaded tensors stay valid */
    if (tq) {
        unsigned char raw[4 * 34];
        CHECK(wk_tensor_dtype(tq) == WK_U8 && wk_tensor_rank(tq) == 2 && wk_tensor_shape(tq)[0] == 2 &&
                  wk_tensor_shape(tq)[1] == 68, "raw shape (rows, bytes a row)");
        CHECK(wk_tensor_to_host(tq, raw, sizeof raw) == WK_OK && memcmp(raw, b.p + b.n - sizeof raw, sizeof raw) == 0,
              "raw bytes are the file's");
    }
    if (t) {
        float out[6];
        CHECK(wk_tensor_to_host(t, out, sizeof out) == WK_OK && out[2] == 3, "w valid after close");
    }
    double dd[6];
    CHECK(td && wk_tensor_to_host(td, dd, sizeof dd) == WK_OK && dd[4] == 5.0, "f64 values");
    wk_tensor_release(t);
    wk_tensor_release(tq);
    wk_tensor_release(td);
    unlink(path);
    free(b.p);
}

/* ---------------------------------------------------------------- hostile files */

static void test_truncations(void)
{
    bb b = base_file();
    for (size_t n = 0; n < b.n; n++) {
        char what[64];
        snprintf(what, sizeof what, "prefix of %zu bytes", n);
        expect_open(what, b.p, n, WK_ERR_FILE, NULL);
    }
    expect_open("the whole file", b.p, b.n, WK_OK, NULL);
    free(b.p);
}

static void test_header(void)
{
    bb b = base_file();
    b.p[0] = 'g';
    expect_open("bad magic", b.p, b.n, WK_ERR_FILE, "magic");
    b.p[0] = 'G';
    uint32_t versions[] = {0, 1, 4, 0x02000000};
    const char *frags[] = {"version 0", "version 1", "version 4", "big-endian"};
    for (int i = 0; i < 4; i++) {
        memcpy(b.p + 4, &versions[i], 4);
        expect_open(frags[i], b.p, b.n, WK_ERR_FILE, frags[i]);
    }
    uint32_t two = 2;
    memcpy(b.p + 4, &two, 4);
    expect_open("version 2", b.p, b.n, WK_OK, NULL);
    free(b.p);

    bb h = {0};
    header(&h, 3, 0, (uint64_t)1 << 60);
    fill(&h, 100, 0);
    expect_open("huge kv count", h.p, h.n, WK_ERR_FILE, "cannot fit");
    h.n = 0;
    header(&h, 3, UINT64_MAX, 0);
    fill(&h, 100, 0);
    expect_open("huge tensor count", h.p, h.n, WK_ERR_FILE, "cannot fit");
    h.n = 0;
    header(&h, 3, 2, 4); /* 4 * 13 + 2 * 24 = 100 bytes needed, 99 there */
    fill(&h, 99, 0);
    expect_open("counts just over the bytes left", h.p, h.n, WK_ERR_FILE, "cannot fit");
    free(h.p);
    expect_open("empty file", "", 0, WK_ERR_FILE, "magic");
    expect_open("3 bytes", "GGU", 3, WK_ERR_FILE, "magic");
}

static void test_lengths(void)
{
    bb b = {0};
    header(&b, 3, 0, 1);
    u64(&b, (uint64_t)1 << 62); /* a key longer than the file */
    fill(&b, 40, 1);
    expect_open("key length past the end", b.p, b.n, WK_ERR_FILE, "runs past the end");
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, WK_GGUF_STRING);
    u64(&b, 30);
    fill(&b, 29, 1);
    expect_open("string value one byte short", b.p, b.n, WK_ERR_FILE, "runs past the end");
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, WK_GGUF_ARRAY);
    u32(&b, WK_GGUF_UINT32);
    u64(&b, UINT64_MAX / 2);
    fill(&b, 64, 1);
    expect_open("u32 array past the end", b.p, b.n, WK_ERR_FILE, "runs past the end");
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, WK_GGUF_ARRAY);
    u32(&b, WK_GGUF_STRING);
    u64(&b, (uint64_t)1 << 40);
    fill(&b, 64, 0);
    expect_open("string array past the end", b.p, b.n, WK_ERR_FILE, "runs past the end");
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, 13);
    u64(&b, 0);
    expect_open("unknown value type", b.p, b.n, WK_ERR_FILE, "unknown value type 13");
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, WK_GGUF_ARRAY);
    u32(&b, 77);
    u64(&b, 1);
    expect_open("unknown element type", b.p, b.n, WK_ERR_FILE, "element type 77");
    b.n = 0;
    header(&b, 3, 0, 1);
    strn(&b, "a\0b", 3);
    u32(&b, WK_GGUF_UINT8);
    u8(&b, 1);
    expect_open("key with a NUL", b.p, b.n, WK_ERR_FILE, "NUL");
    free(b.p);
}

/* A key whose value is `levels` arrays nested, the innermost an empty u8 array. */
static void nested(bb *b, int levels)
{
    header(b, 3, 0, 1);
    str(b, "deep");
    u32(b, WK_GGUF_ARRAY);
    for (int i = 0; i < levels - 1; i++) {
        u32(b, WK_GGUF_ARRAY);
        u64(b, 1);
    }
    u32(b, WK_GGUF_UINT8);
    u64(b, 0);
}

static void test_depth(void)
{
    bb b = {0};
    nested(&b, 100000);
    expect_open("100000 nested arrays", b.p, b.n, WK_ERR_FILE, "nested deeper than 64");
    b.n = 0;
    nested(&b, 65);
    expect_open("65 nested arrays", b.p, b.n, WK_ERR_FILE, "nested deeper than 64");
    b.n = 0;
    nested(&b, 64);
    expect_open("64 nested arrays", b.p, b.n, WK_OK, NULL);
    free(b.p);
}

/* One tensor of the given dims/type/offset followed by `data` bytes of data. */
static void one_tensor(bb *b, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off, size_t data)
{
    b->n = 0;
    header(b, 3, 1, 0);
    tinfo(b, "t", nd, ne, type, off);
    pad(b, 32);
    fill(b, data, 9);
}

static void test_tensor_infos(void)
{
    bb b = {0};
    uint64_t ne9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    one_tensor(&b, 9, ne9, 0, 0, 4);
    expect_open("n_dims 9", b.p, b.n, WK_ERR_FILE, "9 dims");
    one_tensor(&b, 8, ne9, 0, 0, 4);
    expect_open("n_dims 8", b.p, b.n, WK_OK, NULL);
    one_tensor(&b, 2, (uint64_t[]){(uint64_t)1 << 32, (uint64_t)1 << 32}, 0, 0, 64);
    expect_open("dims product overflow", b.p, b.n, WK_ERR_FILE, "overflows");
    one_tensor(&b, 3, (uint64_t[]){0, (uint64_t)1 << 40, (uint64_t)1 << 30}, 0, 0, 64);
    expect_open("dims product overflow beside a zero dim", b.p, b.n, WK_ERR_FILE, "overflows");
    one_tensor(&b, 2, (uint64_t[]){0, (uint64_t)1 << 59}, 0, 0, 64);
    expect_open("an empty tensor of huge dims", b.p, b.n, WK_OK, NULL);
    one_tensor(&b, 2, (uint64_t[]){0, (uint64_t)1 << 60}, 0, 0, 64);
    expect_open("an empty tensor of dims too large for wick", b.p, b.n, WK_ERR_FILE, "overflows");
    one_tensor(&b, 3, (uint64_t[]){(uint64_t)1 << 20, (uint64_t)1 << 20, (uint64_t)1 << 22}, 0, 0, 64);
    expect_open("bytes overflow", b.p, b.n, WK_ERR_FILE, "overflows");
    one_tensor(&b, 1, (uint64_t[]){UINT64_MAX}, 0, 0, 64);
    expect_open("dim over INT64_MAX", b.p, b.n, WK_ERR_FILE, "too large");
    one_tensor(&b, 2, (uint64_t[]){33, 1}, 8, 0, 34 * 2);
    expect_open("ne[0] not a multiple of the block", b.p, b.n, WK_ERR_FILE, "not a multiple of Q8_0's block");
    one_tensor(&b, 1, (uint64_t[]){4}, 0, 4, 64);
    expect_open("misaligned offset", b.p, b.n, WK_ERR_FILE, "not a multiple of the alignment");
    one_tensor(&b, 1, (uint64_t[]){4}, 0, (uint64_t)1 << 40, 64);
    expect_open("offset outside the file", b.p, b.n, WK_ERR_FILE, "outside the file");
    one_tensor(&b, 1, (uint64_t[]){4}, 0, UINT64_MAX - 31, 64);
    expect_open("offset overflowing", b.p, b.n, WK_ERR_FILE, "outside the file");
    one_tensor(&b, 1, (uint64_t[]){5}, 0, 0, 19);
    expect_open("data one byte short", b.p, b.n, WK_ERR_FILE, "outside the file");
    one_tensor(&b, 1, (uint64_t[]){5}, 0, 0, 20);
    expect_open("data exactly there", b.p, b.n, WK_OK, NULL);
    one_tensor(&b, 1, (uint64_t[]){4}, 99, 0, 0);
    expect_open("unknown ggml type lists", b.p, b.n, WK_OK, NULL);
    free(b.p);
}

/* Two tensors: "a" of na f32 at offset oa, and "b" (named nb) of nbe f32 at ob, then data bytes. */
static void two_tensors(bb *b, uint64_t na, uint64_t oa, const char *nb, uint64_t nbe, uint64_t ob, size_t data)
{
    b->n = 0;
    header(b, 3, 2, 0);
    tinfo(b, "a", 1, &na, 0, oa);
    tinfo(b, nb, 1, &nbe, 0, ob);
    pad(b, 32);
    fill(b, data, 1);
}

static void test_overlaps(void)
{
    bb b = {0};
    two_tensors(&b, 16, 0, "b", 16, 0, 128);
    expect_open("same range", b.p, b.n, WK_ERR_FILE, "overlap");
    two_tensors(&b, 16, 0, "b", 16, 32, 128);
    expect_open("partial overlap", b.p, b.n, WK_ERR_FILE, "overlap");
    two_tensors(&b, 16, 64, "b", 64, 0, 256);
    expect_open("one inside another", b.p, b.n, WK_ERR_FILE, "overlap");
    two_tensors(&b, 16, 0, "b", 16, 64, 128);
    expect_open("adjacent", b.p, b.n, WK_OK, NULL);
    two_tensors(&b, 0, 0, "b", 16, 0, 64);
    expect_open("an empty tensor at another's offset", b.p, b.n, WK_OK, NULL);
    two_tensors(&b, 16, 0, "a", 16, 64, 128);
    expect_open("duplicate tensor name", b.p, b.n, WK_ERR_FILE, "duplicate tensor name 'a'");
    b.n = 0;
    header(&b, 3, 0, 2);
    kv_u32(&b, "k", 1);
    kv_u32(&b, "k", 2);
    expect_open("duplicate key", b.p, b.n, WK_ERR_FILE, "duplicate metadata key 'k'");
    free(b.p);
}

static void test_alignment(void)
{
    uint32_t bad[] = {0, 3, 48};
    bb b = {0};
    for (int i = 0; i < 3; i++) {
        b.n = 0;
        header(&b, 3, 0, 1);
        kv_u32(&b, "general.alignment", bad[i]);
        expect_open("bad alignment", b.p, b.n, WK_ERR_FILE, "not a power of two");
    }
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "general.alignment");
    u32(&b, WK_GGUF_UINT64);
    u64(&b, 32);
    expect_open("alignment as uint64", b.p, b.n, WK_ERR_FILE, "not a uint32");
    b.n = 0;
    header(&b, 3, 0, 1);
    str(&b, "general.alignment");
    u32(&b, WK_GGUF_STRING);
    str(&b, "32");
    expect_open("alignment as a string", b.p, b.n, WK_ERR_FILE, "not a uint32");
    /* alignment 8: offset 8 is fine, and the data section starts at a multiple of 8 */
    b.n = 0;
    header(&b, 3, 1, 1);
    kv_u32(&b, "general.alignment", 8);
    tinfo(&b, "t", 1, (uint64_t[]){2}, 0, 8);
    pad(&b, 8);
    fill(&b, 16, 0);
    expect_open("alignment 8", b.p, b.n, WK_OK, NULL);
    free(b.p);
}

/* ---------------------------------------------------------------- the typed metadata API */

static void kv_scalar(bb *b, const char *key, uint32_t type, const void *v, size_t n)
{
    str(b, key);
    u32(b, type);
    put(b, v, n);
}

static void array_head(bb *b, uint32_t et, uint64_t n)
{
    u32(b, et);
    u64(b, n);
}

/* Every value type, strings with NULs, arrays of scalars, of strings and of arrays. */
static bb metadata_file(void)
{
    bb b = {0};
    header(&b, 3, 0, 18);
    uint8_t vu8 = 200; int8_t vi8 = -5; uint16_t vu16 = 65535; int16_t vi16 = INT16_MIN;
    uint32_t vu32 = 4000000000u; int32_t vi32 = -2000000000; float vf32 = 1.5f; uint8_t vb = 1;
    uint64_t vu64 = UINT64_MAX; int64_t vi64 = INT64_MIN; double vf64 = -0.1;
    kv_scalar(&b, "u8", WK_GGUF_UINT8, &vu8, 1);
    kv_scalar(&b, "i8", WK_GGUF_INT8, &vi8, 1);
    kv_scalar(&b, "u16", WK_GGUF_UINT16, &vu16, 2);
    kv_scalar(&b, "i16", WK_GGUF_INT16, &vi16, 2);
    kv_scalar(&b, "u32", WK_GGUF_UINT32, &vu32, 4);
    kv_scalar(&b, "i32", WK_GGUF_INT32, &vi32, 4);
    kv_scalar(&b, "f32", WK_GGUF_FLOAT32, &vf32, 4);
    kv_scalar(&b, "bool", WK_GGUF_BOOL, &vb, 1);
    str(&b, "str");
    u32(&b, WK_GGUF_STRING);
    strn(&b, "a\0b", 3);
    str(&b, "empty");
    u32(&b, WK_GGUF_STRING);
    str(&b, "");
    kv_scalar(&b, "u64", WK_GGUF_UINT64, &vu64, 8);
    kv_scalar(&b, "i64", WK_GGUF_INT64, &vi64, 8);
    kv_scalar(&b, "f64", WK_GGUF_FLOAT64, &vf64, 8);
    str(&b, "arr_u8");
    u32(&b, WK_GGUF_ARRAY);
    array_head(&b, WK_GGUF_UINT8, 3);
    put(&b, (uint8_t[]){1, 2, 3}, 3);
    str(&b, "arr_str");
    u32(&b, WK_GGUF_ARRAY);
    array_head(&b, WK_GGUF_STRING, 3);
    str(&b, "x");
    str(&b, "");
    strn(&b, "y\0z", 3);
    str(&b, "arr_arr");
    u32(&b, WK_GGUF_ARRAY);
    array_head(&b, WK_GGUF_ARRAY, 3);
    array_head(&b, WK_GGUF_INT32, 2);
    put(&b, (int32_t[]){7, -8}, 8);
    array_head(&b, WK_GGUF_STRING, 1);
    str(&b, "q");
    array_head(&b, WK_GGUF_FLOAT64, 0);
    str(&b, "arr_bool");
    u32(&b, WK_GGUF_ARRAY);
    array_head(&b, WK_GGUF_BOOL, 2);
    put(&b, (uint8_t[]){0, 1}, 2);
    str(&b, "arr_f32");
    u32(&b, WK_GGUF_ARRAY);
    array_head(&b, WK_GGUF_FLOAT32, 2);
    put(&b, (float[]){0.25f, -2.0f}, 8);
    return b;
}

static const wk_gguf_value *find(const wk_gguf *g, const char *key)
{
    const wk_gguf_value *v = NULL;
    CHECK(wk_gguf_metadata_find(g, key, &v) == WK_OK && v, "find %s", key);
    return v;
}

static void check_ints(const wk_gguf *g)
{
    const char *keys[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64"};
    int64_t ints[] = {200, -5, 65535, INT16_MIN, 4000000000ll, -2000000000, 0, INT64_MIN};
    wk_gguf_type types[] = {WK_GGUF_UINT8, WK_GGUF_INT8, WK_GGUF_UINT16, WK_GGUF_INT16,
                            WK_GGUF_UINT32, WK_GGUF_INT32, WK_GGUF_UINT64, WK_GGUF_INT64};
    for (int i = 0; i < 8; i++) {
        const wk_gguf_value *v = find(g, keys[i]);
        int64_t x = 12345;
        uint64_t u = 12345;
        double f = 0;
        bool b = false;
        if (!v)
            continue;
        CHECK(wk_gguf_value_type(v) == types[i], "%s type", keys[i]);
        if (i == 6) {
            CHECK(wk_gguf_value_int(v, &x) == WK_ERR_DTYPE && x == 12345 && strstr(wk_last_error(), "uint64") &&
                      strstr(wk_last_error(), "int64"), "u64 max does not fit int64, naming both");
            CHECK(wk_gguf_value_uint(v, &u) == WK_OK && u == UINT64_MAX, "u64 max as uint");
        } else {
            CHECK(wk_gguf_value_int(v, &x) == WK_OK && x == ints[i], "%s as int: %lld", keys[i], (long long)x);
            wk_status s = wk_gguf_value_uint(v, &u);
            CHECK(ints[i] < 0 ? s == WK_ERR_DTYPE && u == 12345 : s == WK_OK && u == (uint64_t)ints[i],
                  "%s as uint", keys[i]);
        }
        CHECK(wk_gguf_value_float(v, &f) == WK_ERR_DTYPE && strstr(wk_last_error(), "float64"), "%s as float",
              keys[i]);
        CHECK(wk_gguf_value_bool(v, &b) == WK_ERR_DTYPE, "%s as bool", keys[i]);
    }
}

static void check_scalars(const wk_gguf *g)
{
    double f = 0;
    bool b = false;
    int64_t x = 0;
    const char *s = NULL;
    uint64_t len = 99;
    const wk_gguf_value *v = find(g, "f32");
    CHECK(v && wk_gguf_value_float(v, &f) == WK_OK && f == 1.5, "f32");
    CHECK(v && wk_gguf_value_int(v, &x) == WK_ERR_DTYPE && strstr(wk_last_error(), "float32"), "f32 as int");
    v = find(g, "f64");
    CHECK(v && wk_gguf_value_float(v, &f) == WK_OK && f == -0.1, "f64");
    v = find(g, "bool");
    CHECK(v && wk_gguf_value_bool(v, &b) == WK_OK && b, "bool");
    CHECK(v && wk_gguf_value_int(v, &x) == WK_ERR_DTYPE, "bool as int");
    CHECK(v && wk_gguf_value_string(v, &s, &len) == WK_ERR_DTYPE && !s, "bool as string");
    v = find(g, "str");
    CHECK(v && wk_gguf_value_string(v, &s, &len) == WK_OK && len == 3 && memcmp(s, "a\0b", 4) == 0,
          "string with a NUL, and a NUL after it");
    CHECK(v && wk_gguf_value_array(v, NULL, &len) == WK_ERR_DTYPE && strstr(wk_last_error(), "string"),
          "string as array");
    v = find(g, "empty");
    CHECK(v && wk_gguf_value_string(v, &s, &len) == WK_OK && len == 0 && s[0] == 0, "empty string");
}

static void check_arrays(const wk_gguf *g)
{
    wk_gguf_type et = WK_GGUF_STRING;
    uint64_t len = 0, u = 0;
    const wk_gguf_value *v = find(g, "arr_u8"), *e = NULL, *e2 = NULL;
    CHECK(v && wk_gguf_value_array(v, &et, &len) == WK_OK && et == WK_GGUF_UINT8 && len == 3, "arr_u8");
    CHECK(v && wk_gguf_value_array_get(v, 2, &e) == WK_OK && wk_gguf_value_uint(e, &u) == WK_OK && u == 3,
          "arr_u8[2]");
    CHECK(v && wk_gguf_value_array_get(v, 2, &e2) == WK_OK && e2 == e, "element nodes are made once");
    CHECK(v && wk_gguf_value_array_get(v, 3, &e) == WK_ERR_INVALID_ARGUMENT && e == e2, "arr_u8[3]");
    const char *s = NULL;
    v = find(g, "arr_str");
    CHECK(v && wk_gguf_value_array(v, &et, &len) == WK_OK && et == WK_GGUF_STRING && len == 3, "arr_str");
    CHECK(v && wk_gguf_value_array_get(v, 2, &e) == WK_OK && wk_gguf_value_string(e, &s, &len) == WK_OK &&
              len == 3 && memcmp(s, "y\0z", 4) == 0, "arr_str[2]");
    CHECK(v && wk_gguf_value_array_get(v, 1, &e) == WK_OK && wk_gguf_value_string(e, &s, &len) == WK_OK &&
              len == 0, "arr_str[1]");
    v = find(g, "arr_arr");
    CHECK(v && wk_gguf_value_array(v, &et, &len) == WK_OK && et == WK_GGUF_ARRAY && len == 3, "arr_arr");
    int64_t x = 0;
    const wk_gguf_value *inner = NULL;
    CHECK(v && wk_gguf_value_array_get(v, 0, &inner) == WK_OK && wk_gguf_value_array(inner, &et, &len) == WK_OK &&
              et == WK_GGUF_INT32 && len == 2, "arr_arr[0]");
    CHECK(inner && wk_gguf_value_array_get(inner, 1, &e) == WK_OK && wk_gguf_value_int(e, &x) == WK_OK && x == -8,
          "arr_arr[0][1]");
    CHECK(v && wk_gguf_value_array_get(v, 1, &inner) == WK_OK && wk_gguf_value_array_get(inner, 0, &e) == WK_OK &&
              wk_gguf_value_string(e, &s, NULL) == WK_OK && strcmp(s, "q") == 0, "arr_arr[1][0]");
    CHECK(v && wk_gguf_value_array_get(v, 2, &inner) == WK_OK && wk_gguf_value_array(inner, &et, &len) == WK_OK &&
              et == WK_GGUF_FLOAT64 && len == 0 && wk_gguf_value_array_get(inner, 0, &e) == WK_ERR_INVALID_ARGUMENT,
          "arr_arr[2] empty");
    bool b = true;
    double f = 0;
    v = find(g, "arr_bool");
    CHECK(v && wk_gguf_value_array_get(v, 0, &e) == WK_OK && wk_gguf_value_bool(e, &b) == WK_OK && !b, "bool[0]");
    v = find(g, "arr_f32");
    CHECK(v && wk_gguf_value_array_get(v, 1, &e) == WK_OK && wk_gguf_value_float(e, &f) == WK_OK && f == -2.0,
          "f32[1]");
    CHECK(wk_gguf_value_int(NULL, &x) == WK_ERR_INVALID_ARGUMENT, "NULL value");
}

static void test_metadata(void)
{
    bb b = metadata_file();
    const char *path = tmp_path("meta.gguf");
    save(path, b.p, b.n);
    wk_gguf *g = NULL;
    CHECK(wk_gguf_open(path, &g) == WK_OK, "open metadata file");
    if (g) {
        check_ints(g);
        check_scalars(g);
        check_arrays(g);
        wk_gguf_close(g);
    }
    unlink(path);
    for (size_t n = 0; n < b.n; n++) /* every prefix of it is damaged */
        expect_open("metadata prefix", b.p, n, WK_ERR_FILE, NULL);
    free(b.p);
}

/* ---------------------------------------------------------------- other tensor types */

static void test_other_types(void)
{
    bb b = {0};
    header(&b, 3, 3, 0);
    tinfo(&b, "i8", 1, (uint64_t[]){4}, 24, 0);
    tinfo(&b, "i16", 2, (uint64_t[]){2, 2}, 25, 32);
    tinfo(&b, "odd", 1, (uint64_t[]){4}, 99, 64);
    pad(&b, 32);
    put(&b, (int8_t[]){-1, 2, -128, 127}, 4);
    pad(&b, 32);
    put(&b, (int16_t[]){-300, 1, 2, 32767}, 8);
    pad(&b, 32);
    const char *path = tmp_path("types.gguf");
    save(path, b.p, b.n);
    wk_gguf *g = NULL;
    CHECK(wk_gguf_open(path, &g) == WK_OK, "open types");
    if (!g)
        return;
    wk_tensor *t = NULL;
    wk_gguf_tensor_info ti;
    CHECK(wk_gguf_tensor_info_get(g, 0, &ti) == WK_OK && ti.type == WK_FILE_I8 && strcmp(ti.ggml_type_name, "I8") == 0,
          "i8 info");
    CHECK(wk_gguf_load(g, "i8", cpu, &t) == WK_ERR_DTYPE && strstr(wk_last_error(), "i8") && !t, "i8 plain load");
    CHECK(wk_gguf_load(g, "i16", cpu, &t) == WK_ERR_DTYPE && !t, "i16 plain load");
    int32_t v[4];
    CHECK(wk_gguf_load_as(g, "i8", cpu, WK_I32, &t) == WK_OK && wk_tensor_to_host(t, v, sizeof v) == WK_OK &&
              v[0] == -1 && v[2] == -128 && v[3] == 127, "i8 as i32");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_gguf_load_as(g, "i16", cpu, WK_I32, &t) == WK_OK && wk_tensor_shape(t)[0] == 2 &&
              wk_tensor_to_host(t, v, sizeof v) == WK_OK && v[0] == -300 && v[3] == 32767, "i16 as i32");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_gguf_load_raw(g, "i16", cpu, &t) == WK_OK && wk_tensor_shape(t)[0] == 2 && wk_tensor_shape(t)[1] == 4,
          "i16 raw");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_gguf_tensor_info_get(g, 2, &ti) == WK_OK && strcmp(ti.ggml_type_name, "unknown") == 0 &&
              ti.ggml_type == 99 && ti.type == WK_FILE_QUANTIZED, "unknown type lists");
    CHECK(wk_gguf_load_raw(g, "odd", cpu, &t) == WK_ERR_DTYPE && strstr(wk_last_error(), "99") && !t,
          "unknown type raw load");
    CHECK(wk_gguf_load(g, "odd", cpu, &t) == WK_ERR_DTYPE && !t, "unknown type load");
    CHECK(wk_gguf_load(g, "i8", NULL, &t) == WK_ERR_INVALID_ARGUMENT, "NULL device");
    CHECK(wk_gguf_load(g, "nope", cpu, &t) == WK_ERR_INVALID_ARGUMENT, "absent tensor");
    wk_gguf_close(g);
    unlink(path);
    free(b.p);
}

/* ---------------------------------------------------------------- the writer */

/* A (2, 3) tensor of dt, transposed: a strided (3, 2) view. *expect gets its row-major values as doubles. */
static wk_tensor *strided(wk_dtype dt, double *expect)
{
    double src[6] = {1, -2, 3.5, 4, 1e3, -0.25};
    wk_tensor *a = NULL, *c = NULL, *t = NULL;
    if (wk_tensor_from_host(cpu, WK_F64, 2, (int64_t[]){2, 3}, src, &a) != WK_OK || wk_cast(a, dt, &c) != WK_OK ||
        wk_transpose(c, 0, 1, &t) != WK_OK)
        abort();
    wk_tensor_release(a);
    wk_tensor_release(c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            expect[i * 2 + j] = wk_dtype_is_float(dt) ? src[j * 3 + i] : trunc(src[j * 3 + i]);
    return t;
}

static void set_all_metadata(wk_gguf_writer *w)
{
    CHECK(wk_gguf_writer_set_uint(w, "general.alignment", WK_GGUF_UINT32, 64) == WK_OK, "alignment 64");
    CHECK(wk_gguf_writer_set_int(w, "i8", WK_GGUF_INT8, -128) == WK_OK, "set i8");
    CHECK(wk_gguf_writer_set_int(w, "u8", WK_GGUF_UINT8, 255) == WK_OK, "set u8");
    CHECK(wk_gguf_writer_set_uint(w, "u16", WK_GGUF_UINT16, 65535) == WK_OK, "set u16");
    CHECK(wk_gguf_writer_set_int(w, "i16", WK_GGUF_INT16, -1) == WK_OK, "set i16");
    CHECK(wk_gguf_writer_set_int(w, "i32", WK_GGUF_INT32, INT32_MIN) == WK_OK, "set i32");
    CHECK(wk_gguf_writer_set_uint(w, "u64", WK_GGUF_UINT64, UINT64_MAX) == WK_OK, "set u64");
    CHECK(wk_gguf_writer_set_int(w, "i64", WK_GGUF_INT64, INT64_MIN) == WK_OK, "set i64");
    CHECK(wk_gguf_writer_set_float(w, "f32", WK_GGUF_FLOAT32, 0.1) == WK_OK, "set f32");
    CHECK(wk_gguf_writer_set_float(w, "f64", WK_GGUF_FLOAT64, 0.1) == WK_OK, "set f64");
    CHECK(wk_gguf_writer_set_bool(w, "yes", true) == WK_OK, "set bool");
    CHECK(wk_gguf_writer_set_string(w, "s", "n\0ul", 4) == WK_OK, "set string");
    int32_t ai[3] = {1, -2, 3};
    uint8_t ab[3] = {1, 0, 7};
    double af[2] = {1.5, -1e300};
    const char *as[3] = {"tok", "", "a\0b"};
    uint64_t lens[3] = {3, 0, 3};
    CHECK(wk_gguf_writer_set_array(w, "ai", WK_GGUF_INT32, 3, ai, NULL) == WK_OK, "set int array");
    CHECK(wk_gguf_writer_set_array(w, "ab", WK_GGUF_BOOL, 3, ab, NULL) == WK_OK, "set bool array");
    CHECK(wk_gguf_writer_set_array(w, "af", WK_GGUF_FLOAT64, 2, af, NULL) == WK_OK, "set f64 array");
    CHECK(wk_gguf_writer_set_array(w, "as", WK_GGUF_STRING, 3, as, lens) == WK_OK, "set string array");
    CHECK(wk_gguf_writer_set_array(w, "as2", WK_GGUF_STRING, 2, as, NULL) == WK_OK, "set strlen array");
    CHECK(wk_gguf_writer_set_array(w, "empty", WK_GGUF_UINT16, 0, NULL, NULL) == WK_OK, "set empty array");
}

static void check_all_metadata(const wk_gguf *g)
{
    int64_t x = 0;
    uint64_t u = 0, len = 0;
    double f = 0;
    bool b = false;
    const char *s = NULL;
    const wk_gguf_value *v = NULL, *e = NULL;
    CHECK(wk_gguf_alignment(g) == 64 && wk_gguf_version(g) == 3 && wk_gguf_metadata_count(g) == 19, "header back");
    CHECK((v = find(g, "i8")) && wk_gguf_value_type(v) == WK_GGUF_INT8 && !wk_gguf_value_int(v, &x) && x == -128, "i8");
    CHECK((v = find(g, "u8")) && !wk_gguf_value_uint(v, &u) && u == 255, "u8");
    CHECK((v = find(g, "u16")) && wk_gguf_value_type(v) == WK_GGUF_UINT16 && !wk_gguf_value_uint(v, &u) &&
              u == 65535, "u16");
    CHECK((v = find(g, "i16")) && !wk_gguf_value_int(v, &x) && x == -1, "i16");
    CHECK((v = find(g, "i32")) && !wk_gguf_value_int(v, &x) && x == INT32_MIN, "i32");
    CHECK((v = find(g, "u64")) && !wk_gguf_value_uint(v, &u) && u == UINT64_MAX, "u64");
    CHECK((v = find(g, "i64")) && !wk_gguf_value_int(v, &x) && x == INT64_MIN, "i64");
    CHECK((v = find(g, "f32")) && wk_gguf_value_type(v) == WK_GGUF_FLOAT32 && !wk_gguf_value_float(v, &f) &&
              f == (double)0.1f, "f32");
    CHECK((v = find(g, "f64")) && !wk_gguf_value_float(v, &f) && f == 0.1, "f64");
    CHECK((v = find(g, "yes")) && !wk_gguf_value_bool(v, &b) && b, "bool");
    CHECK((v = find(g, "s")) && !wk_gguf_value_string(v, &s, &len) && len == 4 && !memcmp(s, "n\0ul", 5), "str");
    CHECK((v = find(g, "ai")) && !wk_gguf_value_array_get(v, 1, &e) && !wk_gguf_value_int(e, &x) && x == -2, "ai");
    CHECK((v = find(g, "ab")) && !wk_gguf_value_array_get(v, 2, &e) && !wk_gguf_value_bool(e, &b) && b, "ab");
    CHECK((v = find(g, "af")) && !wk_gguf_value_array_get(v, 1, &e) && !wk_gguf_value_float(e, &f) && f == -1e300,
          "af");
    CHECK((v = find(g, "as")) && !wk_gguf_value_array_get(v, 2, &e) && !wk_gguf_value_string(e, &s, &len) &&
              len == 3 && !memcmp(s, "a\0b", 4), "as");
    CHECK((v = find(g, "as2")) && !wk_gguf_value_array(v, NULL, &len) && len == 2 &&
              !wk_gguf_value_array_get(v, 0, &e) && !wk_gguf_value_string(e, &s, &len) && !strcmp(s, "tok"), "as2");
    wk_gguf_type et = WK_GGUF_BOOL;
    CHECK((v = find(g, "empty")) && !wk_gguf_value_array(v, &et, &len) && et == WK_GGUF_UINT16 && len == 0, "empty");
    CHECK((v = find(g, "nest")) && !wk_gguf_value_array_get(v, 0, &e) && !wk_gguf_value_array_get(e, 1, &e) &&
              !wk_gguf_value_int(e, &x) && x == -8, "nested array copied with set_value");
}

static const wk_dtype write_dtypes[] = {WK_F32, WK_F16, WK_BF16, WK_F64, WK_I32, WK_I64};

/* Loads every tensor of the round trip and compares it with what was written. */
static void check_written(const wk_gguf *g, double expect[6][6])
{
    char name[16];
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "t%d", i);
        wk_tensor *t = NULL, *d = NULL;
        wk_gguf_tensor_info ti;
        int64_t idx = -1;
        CHECK(wk_gguf_find(g, name, &idx) == WK_OK && wk_gguf_tensor_info_get(g, idx, &ti) == WK_OK &&
                  ti.offset % 64 == 0 && ti.ne[0] == 2 && ti.ne[1] == 3 && (int)ti.type == (int)write_dtypes[i],
              "%s info", name);
        CHECK(wk_gguf_load(g, name, cpu, &t) == WK_OK && wk_tensor_dtype(t) == write_dtypes[i] &&
                  wk_tensor_shape(t)[0] == 3 && wk_tensor_shape(t)[1] == 2, "%s load", name);
        double got[6] = {0};
        CHECK(t && wk_cast(t, WK_F64, &d) == WK_OK && wk_tensor_to_host(d, got, sizeof got) == WK_OK, "%s read", name);
        for (int k = 0; k < 6; k++)
            CHECK(got[k] == expect[i][k], "%s[%d]: %g vs %g", name, k, got[k], expect[i][k]);
        wk_tensor_release(t);
        wk_tensor_release(d);
    }
    wk_tensor *t = NULL;
    float one = 0;
    CHECK(wk_gguf_load(g, "scalar", cpu, &t) == WK_OK && wk_tensor_rank(t) == 0 &&
              wk_tensor_to_host(t, &one, 4) == WK_OK && one == 42.0f, "rank 0 tensor");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_gguf_load(g, "none", cpu, &t) == WK_OK && wk_tensor_numel(t) == 0 && wk_tensor_shape(t)[0] == 0 &&
              wk_tensor_shape(t)[1] == 5, "empty tensor");
    wk_tensor_release(t);
}

/* A value with nested arrays, read from the metadata file, for wk_gguf_writer_set_value. */
static void add_nested(wk_gguf_writer *w)
{
    bb b = metadata_file();
    const char *path = tmp_path("nest_src.gguf");
    save(path, b.p, b.n);
    wk_gguf *g = NULL;
    const wk_gguf_value *v = NULL;
    CHECK(wk_gguf_open(path, &g) == WK_OK && wk_gguf_metadata_find(g, "arr_arr", &v) == WK_OK, "nested source");
    CHECK(v && wk_gguf_writer_set_value(w, "nest", v) == WK_OK, "set_value");
    wk_gguf_close(g); /* the writer holds a copy */
    unlink(path);
    free(b.p);
}

static void test_writer_round_trip(void)
{
    wk_gguf_writer *w = NULL;
    CHECK(wk_gguf_writer_new(&w) == WK_OK, "writer new");
    if (!w)
        return;
    set_all_metadata(w);
    add_nested(w);
    double expect[6][6];
    char name[16];
    for (int i = 0; i < 6; i++) {
        wk_tensor *t = strided(write_dtypes[i], expect[i]);
        snprintf(name, sizeof name, "t%d", i);
        CHECK(wk_gguf_writer_add_tensor(w, name, t) == WK_OK, "add %s", name);
        wk_tensor_release(t); /* the writer keeps its own reference */
    }
    wk_tensor *s = NULL, *z = NULL;
    float v42 = 42;
    CHECK(wk_tensor_from_host(cpu, WK_F32, 0, NULL, &v42, &s) == WK_OK, "scalar");
    CHECK(wk_tensor_empty(cpu, WK_F32, 2, (int64_t[]){0, 5}, &z) == WK_OK, "empty");
    CHECK(wk_gguf_writer_add_tensor(w, "scalar", s) == WK_OK && wk_gguf_writer_add_tensor(w, "none", z) == WK_OK,
          "add scalar and empty");
    wk_tensor_release(s);
    wk_tensor_release(z);
    const char *path = tmp_path("written.gguf");
    CHECK(wk_gguf_writer_save(w, path) == WK_OK, "save");
    wk_gguf_writer_free(w);
    wk_gguf *g = NULL;
    CHECK(wk_gguf_open(path, &g) == WK_OK, "open written");
    if (g) {
        check_all_metadata(g);
        check_written(g, expect);
        wk_gguf_close(g);
    }
    unlink(path);
}

static void test_writer_refusals(void)
{
    wk_gguf_writer *w = NULL;
    if (wk_gguf_writer_new(&w) != WK_OK)
        return;
    wk_tensor *t8 = NULL, *t32 = NULL, *f = NULL;
    wk_tensor_empty(cpu, WK_U8, 1, (int64_t[]){4}, &t8);
    wk_tensor_empty(cpu, WK_U32, 1, (int64_t[]){4}, &t32);
    wk_tensor_empty(cpu, WK_F32, 1, (int64_t[]){4}, &f);
    CHECK(wk_gguf_writer_add_tensor(w, "a", t8) == WK_ERR_DTYPE && strstr(wk_last_error(), "u8"), "u8 tensor");
    CHECK(wk_gguf_writer_add_tensor(w, "a", t32) == WK_ERR_DTYPE, "u32 tensor");
    CHECK(wk_gguf_writer_add_tensor(w, "a", f) == WK_OK, "f32 tensor");
    CHECK(wk_gguf_writer_add_tensor(w, "a", f) == WK_ERR_INVALID_ARGUMENT, "tensor added twice");
    CHECK(wk_gguf_writer_add_tensor(w, NULL, f) == WK_ERR_INVALID_ARGUMENT, "NULL name");
    CHECK(wk_gguf_writer_set_int(w, "k", WK_GGUF_INT32, 1) == WK_OK, "k");
    CHECK(wk_gguf_writer_set_bool(w, "k", true) == WK_ERR_INVALID_ARGUMENT, "key added twice");
    CHECK(wk_gguf_writer_set_int(w, "x", WK_GGUF_UINT8, 256) == WK_ERR_INVALID_ARGUMENT, "256 in u8");
    CHECK(wk_gguf_writer_set_int(w, "x", WK_GGUF_UINT8, -1) == WK_ERR_INVALID_ARGUMENT, "-1 in u8");
    CHECK(wk_gguf_writer_set_int(w, "x", WK_GGUF_INT8, -129) == WK_ERR_INVALID_ARGUMENT, "-129 in i8");
    CHECK(wk_gguf_writer_set_uint(w, "x", WK_GGUF_INT8, 128) == WK_ERR_INVALID_ARGUMENT, "128 in i8");
    CHECK(wk_gguf_writer_set_uint(w, "x", WK_GGUF_INT64, (uint64_t)1 << 63) == WK_ERR_INVALID_ARGUMENT, "2^63 i64");
    CHECK(wk_gguf_writer_set_int(w, "x", WK_GGUF_FLOAT32, 1) == WK_ERR_INVALID_ARGUMENT, "int as float32");
    CHECK(wk_gguf_writer_set_float(w, "x", WK_GGUF_INT32, 1) == WK_ERR_INVALID_ARGUMENT, "float as int32");
    CHECK(wk_gguf_writer_set_array(w, "x", WK_GGUF_ARRAY, 1, "", NULL) == WK_ERR_INVALID_ARGUMENT, "array of arrays");
    CHECK(wk_gguf_writer_set_array(w, "x", WK_GGUF_INT32, 2, NULL, NULL) == WK_ERR_INVALID_ARGUMENT, "NULL values");
    CHECK(wk_gguf_writer_set_string(w, "x", NULL, 3) == WK_ERR_INVALID_ARGUMENT, "NULL string");
    CHECK(wk_gguf_writer_set_uint(w, "general.alignment", WK_GGUF_UINT32, 3) == WK_ERR_INVALID_ARGUMENT, "align 3");
    CHECK(wk_gguf_writer_set_uint(w, "general.alignment", WK_GGUF_UINT32, 0) == WK_ERR_INVALID_ARGUMENT, "align 0");
    CHECK(wk_gguf_writer_set_uint(w, "general.alignment", WK_GGUF_UINT64, 64) == WK_ERR_INVALID_ARGUMENT,
          "align as u64");
    CHECK(wk_gguf_writer_set_int(NULL, "x", WK_GGUF_INT32, 1) == WK_ERR_INVALID_ARGUMENT, "NULL writer");
    CHECK(wk_gguf_writer_save(w, "/nonexistent-dir-wick/x.gguf") == WK_ERR_IO, "save into a missing directory");
    /* the failures added nothing: the file has k and a */
    const char *path = tmp_path("refusals.gguf");
    wk_gguf *g = NULL;
    CHECK(wk_gguf_writer_save(w, path) == WK_OK && wk_gguf_open(path, &g) == WK_OK, "save after refusals");
    CHECK(g && wk_gguf_metadata_count(g) == 1 && wk_gguf_tensor_count(g) == 1 && wk_gguf_alignment(g) == 32,
          "only k and a");
    wk_gguf_close(g);
    unlink(path);
    wk_gguf_writer_free(w);
    wk_tensor_release(t8);
    wk_tensor_release(t32);
    wk_tensor_release(f);
}

static void test_more(void)
{
    test_metadata();
    test_other_types();
    test_writer_round_trip();
    test_writer_refusals();
}

int main(void)
{
    if (wk_device_get("cpu", &cpu) != WK_OK)
        return 1;
    test_valid();
    test_truncations();
    test_header();
    test_lengths();
    test_depth();
    test_tensor_infos();
    test_overlaps();
    test_alignment();
    test_more();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}

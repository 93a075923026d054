/* test_safetensors.c: the safetensors reader and writer. Hand-made hostile files (each must be WK_ERR_FILE naming
 * the file, out untouched), round trips of every wick dtype from strided views, metadata, zero-size tensors,
 * read-only zero-copy CPU loads that outlive the handle, conversions of types wick lacks, load_many's
 * all-or-nothing rule and the atomicity of save. Runs in the build directory (files are written there). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"

static wk_device *cpu;

/* ---------------------------------------------------------------- helpers */

static void write_raw(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n)) {
        printf("FAIL cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* A file of an 8-byte header length (hlen, or strlen(json) when hlen is UINT64_MAX), json, then dlen bytes of data
 * (0, 1, 2, ... when data is NULL). */
static void make_file_len(const char *path, uint64_t hlen, const char *json, const void *data, size_t dlen)
{
    size_t jl = strlen(json);
    unsigned char *buf = malloc(8 + jl + dlen + 1);
    if (hlen == UINT64_MAX)
        hlen = jl;
    memcpy(buf, &hlen, 8);
    memcpy(buf + 8, json, jl);
    for (size_t i = 0; i < dlen; i++)
        buf[8 + jl + i] = data ? ((const unsigned char *)data)[i] : (unsigned char)i;
    write_raw(path, buf, 8 + jl + dlen);
    free(buf);
}

static void make_file(const char *path, const char *json, const void *data, size_t dlen)
{
    make_file_len(path, UINT64_MAX, json, data, dlen);
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(len > 0 ? (size_t)len : 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

/* wk_safetensors_open(path) fails with want, names the file (and needle when given) and leaves out alone. */
static void expect_open_fails(const char *path, wk_status want, const char *needle, int line)
{
    wk_safetensors *sentinel = (wk_safetensors *)&checks, *f = sentinel;
    wk_status s = wk_safetensors_open(path, &f);
    CHECK(s == want, "line %d: open %s gave %s, want %s", line, path, wk_status_string(s), wk_status_string(want));
    CHECK(strstr(wk_last_error(), path) != NULL, "line %d: message does not name %s", line, path);
    CHECK(!needle || strstr(wk_last_error(), needle), "line %d: message does not say '%s'", line, needle);
    CHECK(f == sentinel, "line %d: out written on failure", line);
    if (s == WK_OK && f != sentinel)
        wk_safetensors_close(f);
}
#define OPEN_FAILS(path, want, needle) expect_open_fails(path, want, needle, __LINE__)

/* One hostile header: made into a file with dlen bytes of data, then must fail to open. */
static void hostile(const char *json, size_t dlen, const char *needle, int line)
{
    static int k;
    char path[64];
    snprintf(path, sizeof path, "st_hostile_%d.safetensors", k++);
    make_file(path, json, NULL, dlen);
    expect_open_fails(path, WK_ERR_FILE, needle, line);
    unlink(path);
}
#define HOSTILE(json, dlen, needle) hostile(json, dlen, needle, __LINE__)

/* strstr ignoring ASCII case. */
static bool has_ci(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++)
        if (strncasecmp(s, needle, n) == 0)
            return true;
    return false;
}

static bool same_bytes(const wk_tensor *t, const void *want, size_t n)
{
    size_t tn = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    unsigned char *buf = malloc(n ? n : 1);
    bool ok = tn == n && wk_tensor_to_host(t, buf, n ? n : 1) == WK_OK && memcmp(buf, want, n) == 0;
    free(buf);
    return ok;
}

/* ---------------------------------------------------------------- hostile files */

static void test_hostile_framing(void)
{
    OPEN_FAILS("st_no_such_file.safetensors", WK_ERR_IO, NULL);
    write_raw("st_empty.safetensors", "", 0);
    OPEN_FAILS("st_empty.safetensors", WK_ERR_FILE, "too short");
    write_raw("st_short.safetensors", "\x10\0\0\0\0", 5);
    OPEN_FAILS("st_short.safetensors", WK_ERR_FILE, "too short");
    make_file_len("st_hlen.safetensors", 1000, "{}", NULL, 0);
    OPEN_FAILS("st_hlen.safetensors", WK_ERR_FILE, "runs past the end");
    make_file_len("st_hlen_huge.safetensors", UINT64_MAX - 3, "{}", NULL, 0);
    OPEN_FAILS("st_hlen_huge.safetensors", WK_ERR_FILE, "over the limit");
    /* a sparse file big enough to hold a header of 100 MB + 1: refused for the limit, not the size */
    uint64_t big = 100000001;
    make_file_len("st_hlen_100mb.safetensors", big, "{}", NULL, 0);
    CHECK(truncate("st_hlen_100mb.safetensors", (off_t)(big + 64)) == 0, "truncate");
    OPEN_FAILS("st_hlen_100mb.safetensors", WK_ERR_FILE, "over the limit");
    /* NUL bytes inside the header (data bytes 0, 1 counted into it) */
    make_file_len("st_hlen0.safetensors", 4, "{}", NULL, 4);
    OPEN_FAILS("st_hlen0.safetensors", WK_ERR_FILE, "not valid JSON");
    make_file_len("st_hlen0.safetensors", 0, "", NULL, 0);
    OPEN_FAILS("st_hlen0.safetensors", WK_ERR_FILE, "not valid JSON");
    const char *files[] = {"st_empty", "st_short", "st_hlen", "st_hlen_huge", "st_hlen_100mb", "st_hlen0"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s.safetensors", files[i]);
        unlink(p);
    }
    /* a directory is not a file */
    OPEN_FAILS(".", WK_ERR_IO, NULL);
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(NULL, &f) == WK_ERR_INVALID_ARGUMENT, "NULL path");
    CHECK(wk_safetensors_open("x", NULL) == WK_ERR_INVALID_ARGUMENT, "NULL out");
}

static void test_hostile_json(void)
{
    HOSTILE("{\"a\":", 0, "not valid JSON");
    HOSTILE("[1, 2]", 0, "not a JSON object");
    HOSTILE("\"str\"", 0, "not a JSON object");
    HOSTILE("{} {}", 0, "not valid JSON");
    HOSTILE("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
            "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", 2, "duplicate");
    HOSTILE("{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, "duplicate");
    HOSTILE("{\"\xff\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, "not valid JSON");
    HOSTILE("{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, "not valid JSON");
    HOSTILE("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,99999999999999999999]}}", 1,
            "not valid JSON");
    HOSTILE("{\"a\":{\"dtype\":\"F3", 0, "not valid JSON"); /* a string running past the header */
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,2", 0, "not valid JSON");
    /* an array-depth bomb */
    size_t depth = 100000;
    char *bomb = malloc(depth + 16);
    strcpy(bomb, "{\"a\":");
    memset(bomb + 5, '[', depth);
    bomb[5 + depth] = '\0';
    HOSTILE(bomb, 0, "not valid JSON");
    free(bomb);
}

static void test_hostile_entries(void)
{
    HOSTILE("{\"a\":5}", 0, "not a JSON object");
    HOSTILE("{\"a\":{\"dtype\":\"F128\",\"shape\":[1],\"data_offsets\":[0,16]}}", 16, "unknown dtype 'F128'");
    HOSTILE("{\"a\":{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "unknown dtype 'f32'");
    HOSTILE("{\"a\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "\"dtype\"");
    HOSTILE("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "\"dtype\"");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"extra\":1}}", 4, "unknown key 'extra'");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,4]}}", 16, "\"shape\"");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, "\"shape\"");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}", 4, "shape[0]");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,-1],\"data_offsets\":[0,4]}}", 4, "shape[1]");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", 4, "shape[0]");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[[1]],\"data_offsets\":[0,4]}}", 4, "shape[0]");
    HOSTILE("{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1, "9 dims");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":[0,4]}}", 4, "overflow");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,2,0],\"data_offsets\":[0,0]}}", 4, "overflow");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[0,4611686018427387904,2],\"data_offsets\":[0,0]}}", 4, "overflow");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "data_offsets");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4, "data_offsets");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8, "data_offsets");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 4, "data_offsets");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":\"0-4\"}}", 4, "data_offsets");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", 8, "end before they begin");
    HOSTILE("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[8,20]}}", 32,
            "tensor 'w': data_offsets [8, 20] hold 12 bytes, F32 shape [2, 2] needs 16");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 7, "run past the end");
    HOSTILE("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[9,9]}}", 8, "run past the end");
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[9223372036854775800,9223372036854775807]}}",
            8, NULL);
    HOSTILE("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
            "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, "overlap");
    HOSTILE("{\"b\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[5,8]},"
            "\"c\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
            "\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[1,9]}}", 9, "overlap");
    HOSTILE("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4, "overlap");
    HOSTILE("{\"__metadata__\":{\"k\":1}}", 0, "'k' is not a string");
    HOSTILE("{\"__metadata__\":{\"k\":\"v\",\"n\":null}}", 0, "'n' is not a string");
    HOSTILE("{\"__metadata__\":{\"k\":{\"x\":\"y\"}}}", 0, "'k' is not a string");
    HOSTILE("{\"__metadata__\":[\"k\",\"v\"]}", 0, "\"__metadata__\" is not a JSON object");
    HOSTILE("{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}", 0, "duplicate");
}

/* Files that look odd but are valid: holes between tensors, misaligned data, zero-size tensors sharing offsets,
 * padding after the JSON, the header's order kept whatever the data's order. */
static void test_odd_but_valid(void)
{
    const char *path = "st_odd.safetensors";
    unsigned char data[40];
    float fv[2] = {1.5f, -2.25f};
    for (int i = 0; i < 40; i++)
        data[i] = (unsigned char)(100 + i);
    memcpy(data + 13, fv, 8); /* misaligned f32 */
    make_file(path,
              "{\"zeta\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[13,21]},"
              "\"alpha\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[1,4]},"
              "\"empty1\":{\"dtype\":\"F64\",\"shape\":[0,5],\"data_offsets\":[2,2]},"
              "\"empty2\":{\"dtype\":\"I64\",\"shape\":[3,0],\"data_offsets\":[2,2]},"
              "\"mid\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[30,31]}}    \n  ",
              data, 40);
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(path, &f) == WK_OK, "open odd file");
    if (!f)
        return;
    static const char *const order[] = {"zeta", "alpha", "empty1", "empty2", "mid"};
    CHECK(wk_safetensors_count(f) == 5, "count %lld", (long long)wk_safetensors_count(f));
    for (int64_t i = 0; i < wk_safetensors_count(f) && i < 5; i++) {
        wk_safetensors_tensor_info info;
        int64_t idx = -1;
        CHECK(wk_safetensors_tensor_info_get(f, i, &info) == WK_OK && strcmp(info.name, order[i]) == 0,
              "tensor %lld is %s, want %s", (long long)i, info.name, order[i]);
        CHECK(wk_safetensors_find(f, order[i], &idx) == WK_OK && idx == i, "find %s", order[i]);
    }
    wk_safetensors_tensor_info info;
    CHECK(wk_safetensors_tensor_info_get(f, 0, &info) == WK_OK && info.type == WK_FILE_F32 && info.rank == 1 &&
              info.shape[0] == 2 && info.bytes == 8 && strcmp(info.file_type_name, "F32") == 0,
          "info of zeta");
    wk_tensor *t = NULL;
    CHECK(wk_safetensors_load(f, "zeta", cpu, &t) == WK_OK && same_bytes(t, fv, 8), "misaligned f32 loads");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_safetensors_load(f, "alpha", cpu, &t) == WK_OK && same_bytes(t, data + 1, 3), "alpha loads");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_safetensors_load(f, "mid", cpu, &t) == WK_OK && wk_tensor_rank(t) == 0 && same_bytes(t, data + 30, 1),
          "scalar loads");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_safetensors_load(f, "empty1", cpu, &t) == WK_OK && wk_tensor_rank(t) == 2 &&
              wk_tensor_shape(t)[0] == 0 && wk_tensor_shape(t)[1] == 5 && wk_tensor_dtype(t) == WK_F64,
          "zero-size loads");
    wk_tensor_release(t);
    int64_t idx = 7;
    CHECK(wk_safetensors_find(f, "nope", &idx) == WK_ERR_INVALID_ARGUMENT && idx == 7 &&
              strstr(wk_last_error(), "nope"),
          "find of a missing name");
    CHECK(wk_safetensors_tensor_info_get(f, 5, &info) == WK_ERR_INVALID_ARGUMENT, "info index past the end");
    CHECK(wk_safetensors_tensor_info_get(f, -1, &info) == WK_ERR_INVALID_ARGUMENT, "info index -1");
    CHECK(wk_safetensors_metadata_count(f) == 0, "no metadata");
    const char *v = NULL;
    CHECK(wk_safetensors_metadata_find(f, "k", &v) == WK_ERR_INVALID_ARGUMENT && !v, "metadata_find of none");
    CHECK(wk_safetensors_load(f, "zeta", NULL, &t) == WK_ERR_INVALID_ARGUMENT, "load to a NULL device");
    CHECK(wk_safetensors_load(f, NULL, cpu, &t) == WK_ERR_INVALID_ARGUMENT, "load of a NULL name");
    wk_safetensors_close(f);
    wk_safetensors_close(NULL);
    CHECK(wk_safetensors_count(NULL) == 0 && wk_safetensors_metadata_count(NULL) == 0, "counts of NULL");
    unlink(path);
}

/* ---------------------------------------------------------------- round trips */

/* Element k of a test tensor of dt, as bytes at p: varied values, and -0.0, inf, NaN for the floats. */
static void element(wk_dtype dt, int64_t k, unsigned char *p)
{
    double v = (double)((k * 37) % 101 - 50) * 0.375;
    if (wk_dtype_is_float(dt) && k < 3)
        v = k == 0 ? -0.0 : k == 1 ? INFINITY : NAN;
    switch (dt) {
    case WK_U8: p[0] = (unsigned char)(k * 37 + 11); break;
    case WK_U32: { uint32_t x = (uint32_t)k * 2654435761u; memcpy(p, &x, 4); } break;
    case WK_I32: { int32_t x = (int32_t)(k * 100003) - 700000; memcpy(p, &x, 4); } break;
    case WK_I64: { int64_t x = (int64_t)k * -3000000000037LL; memcpy(p, &x, 8); } break;
    case WK_F16: { uint16_t x = wk_f32_to_f16((float)v); memcpy(p, &x, 2); } break;
    case WK_BF16: { uint16_t x = wk_f32_to_bf16((float)v); memcpy(p, &x, 2); } break;
    case WK_F32: { float x = (float)v; memcpy(p, &x, 4); } break;
    case WK_F64: memcpy(p, &v, 8); break;
    default: break; /* the block-quantized dtypes have no element values */
    }
}

/* A (rows, cols) tensor of dt, transposed to (cols, rows): a non-contiguous view. *logical gets its row-major
 * contents as the caller sees them. */
static wk_tensor *transposed(wk_dtype dt, int64_t rows, int64_t cols, unsigned char **logical)
{
    size_t es = wk_dtype_size(dt), n = (size_t)(rows * cols);
    unsigned char *src = malloc(n * es + 1), *dst = malloc(n * es + 1);
    for (size_t k = 0; k < n; k++)
        element(dt, (int64_t)k, src + k * es);
    for (int64_t c = 0; c < cols; c++)
        for (int64_t r = 0; r < rows; r++)
            memcpy(dst + (size_t)(c * rows + r) * es, src + (size_t)(r * cols + c) * es, es);
    wk_tensor *base = NULL, *t = NULL;
    int64_t shape[2] = {rows, cols};
    if (wk_tensor_from_host(cpu, dt, 2, shape, src, &base) != WK_OK || wk_transpose(base, 0, 1, &t) != WK_OK) {
        printf("FAIL cannot make a %s tensor: %s\n", wk_dtype_name(dt), wk_last_error());
        exit(1);
    }
    wk_tensor_release(base);
    free(src);
    *logical = dst;
    return t;
}

static void test_round_trip(void)
{
    const char *path = "st_round.safetensors";
    enum { N = 2 * WK_DTYPE_COUNT + 2 };
    const char *names[N];
    char namebuf[N][32];
    wk_tensor *ts[N];
    unsigned char *want[N];
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        /* odd sizes so that, in the caller's order, tensors would fall misaligned */
        ts[2 * d] = transposed((wk_dtype)d, 3, 5, &want[2 * d]);
        ts[2 * d + 1] = transposed((wk_dtype)d, 1 + d, 3, &want[2 * d + 1]);
        snprintf(namebuf[2 * d], 32, "%s.t", wk_dtype_name((wk_dtype)d));
        snprintf(namebuf[2 * d + 1], 32, "layer.%d.%s", d, wk_dtype_name((wk_dtype)d));
    }
    int64_t zshape[3] = {2, 0, 3};
    CHECK(wk_tensor_empty(cpu, WK_F32, 3, zshape, &ts[N - 2]) == WK_OK, "empty tensor");
    CHECK(wk_full(cpu, WK_I64, 0, NULL, -5.0, &ts[N - 1]) == WK_OK, "scalar");
    int64_t m5 = -5;
    want[N - 2] = malloc(1);
    want[N - 1] = malloc(8);
    memcpy(want[N - 1], &m5, 8);
    snprintf(namebuf[N - 2], 32, "zero_size");
    snprintf(namebuf[N - 1], 32, "scalar");
    for (int i = 0; i < N; i++)
        names[i] = namebuf[i];
    const char *keys[] = {"format", "empty", "caf\xc3\xa9", "quote\"\\"};
    const char *values[] = {"pt", "", "\xe2\x98\x95 na\xc3\xafve", "line\nbreak"};
    wk_status s = wk_safetensors_save(path, N, names, (const wk_tensor *const *)ts, 4, keys, values);
    CHECK(s == WK_OK, "save round trip");
    size_t flen = 0;
    unsigned char *raw = read_all(path, &flen);
    uint64_t hl = 0;
    if (raw && flen >= 8)
        memcpy(&hl, raw, 8);
    CHECK(raw && flen >= 8 && hl % 8 == 0 && hl <= flen - 8, "header length %llu is a multiple of 8",
          (unsigned long long)hl);
    CHECK(raw && hl > 0 && hl <= flen - 8 && raw[8] == '{', "header starts with {");
    free(raw);
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(path, &f) == WK_OK, "open round trip");
    if (!f)
        goto done;
    CHECK(wk_safetensors_count(f) == N, "count");
    for (int i = 0; i < N && i < wk_safetensors_count(f); i++) {
        wk_safetensors_tensor_info info;
        CHECK(wk_safetensors_tensor_info_get(f, i, &info) == WK_OK, "info %d", i);
        const wk_tensor *t = ts[i];
        size_t bytes = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
        CHECK(strcmp(info.name, names[i]) == 0, "order: %s, want %s", info.name, names[i]);
        CHECK(info.type == (wk_file_type)wk_tensor_dtype(t) && info.rank == wk_tensor_rank(t) &&
                  memcmp(info.shape, wk_tensor_shape(t), (size_t)info.rank * 8) == 0 && info.bytes == bytes,
              "info of %s", names[i]);
        CHECK(info.offset % wk_dtype_size(wk_tensor_dtype(t)) == 0,
              "%s at offset %llu is aligned for its dtype", names[i], (unsigned long long)info.offset);
        wk_tensor *l = NULL;
        CHECK(wk_safetensors_load(f, names[i], cpu, &l) == WK_OK, "load %s", names[i]);
        if (!l)
            continue;
        CHECK(wk_tensor_dtype(l) == wk_tensor_dtype(t) && wk_tensor_rank(l) == wk_tensor_rank(t) &&
                  memcmp(wk_tensor_shape(l), wk_tensor_shape(t), (size_t)info.rank * 8) == 0,
              "loaded %s's dtype and shape", names[i]);
        CHECK(same_bytes(l, want[i], bytes), "loaded %s's bytes", names[i]);
        CHECK(wk_tensor_is_read_only(l), "%s is a zero-copy read-only view", names[i]);
        wk_tensor_release(l);
    }
    CHECK(wk_safetensors_metadata_count(f) == 4, "metadata count");
    for (int i = 0; i < 4 && i < wk_safetensors_metadata_count(f); i++) {
        const char *k = NULL, *v = NULL;
        CHECK(wk_safetensors_metadata_get(f, i, &k, &v) == WK_OK && strcmp(k, keys[i]) == 0 &&
                  strcmp(v, values[i]) == 0,
              "metadata %d", i);
        CHECK(wk_safetensors_metadata_find(f, keys[i], &v) == WK_OK && strcmp(v, values[i]) == 0, "find %s", keys[i]);
    }
    const char *k = NULL, *v = NULL;
    CHECK(wk_safetensors_metadata_get(f, 4, &k, &v) == WK_ERR_INVALID_ARGUMENT && !k, "metadata index past end");
    wk_safetensors_close(f);
done:
    for (int i = 0; i < N; i++) {
        wk_tensor_release(ts[i]);
        free(want[i]);
    }
    unlink(path);
}

/* No tensors and no metadata: "{}" padded to 8 bytes. */
static void test_empty_save(void)
{
    const char *path = "st_nothing.safetensors";
    CHECK(wk_safetensors_save(path, 0, NULL, NULL, 0, NULL, NULL) == WK_OK, "save nothing");
    size_t n = 0;
    unsigned char *raw = read_all(path, &n);
    CHECK(raw && n == 16 && memcmp(raw, "\x08\0\0\0\0\0\0\0{}      ", 16) == 0, "the empty file's bytes");
    free(raw);
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(path, &f) == WK_OK && wk_safetensors_count(f) == 0, "open the empty file");
    wk_tensor *outs[1] = {NULL};
    CHECK(wk_safetensors_load_many(f, NULL, 0, cpu, outs) == WK_OK, "load_many of none");
    wk_safetensors_close(f);
    unlink(path);
}

/* ---------------------------------------------------------------- read-only views */

static void test_read_only(void)
{
    const char *path = "st_ro.safetensors";
    float vals[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3};
    wk_tensor *t = NULL, *l = NULL, *c = NULL;
    const char *name = "w";
    CHECK(wk_tensor_from_host(cpu, WK_F32, 2, shape, vals, &t) == WK_OK, "from_host");
    CHECK(wk_safetensors_save(path, 1, &name, (const wk_tensor *const *)&t, 0, NULL, NULL) == WK_OK, "save");
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(path, &f) == WK_OK, "open");
    CHECK(wk_safetensors_load(f, "w", cpu, &l) == WK_OK, "load");
    wk_safetensors_close(f); /* the tensor keeps the mapping */
    unlink(path);            /* and the mapping keeps the file */
    if (!l)
        goto done;
    CHECK(wk_tensor_is_read_only(l), "a CPU load is read-only");
    CHECK(wk_fill(l, 7.0) == WK_ERR_INVALID_ARGUMENT, "wk_fill on a read-only load");
    CHECK(same_bytes(l, vals, sizeof vals), "values after close and fill");
    CHECK(wk_contiguous(l, &c) == WK_OK && !wk_tensor_is_read_only(c) && wk_fill(c, 7.0) == WK_OK,
          "wk_contiguous gives a writable copy");
    CHECK(same_bytes(l, vals, sizeof vals), "the mapping is unchanged by the copy's fill");
    /* save a view of a mapping over its own file: the old mapping stays valid */
    const char *path2 = "st_ro2.safetensors";
    CHECK(wk_safetensors_save(path2, 1, &name, (const wk_tensor *const *)&l, 0, NULL, NULL) == WK_OK, "save");
    CHECK(wk_safetensors_open(path2, &f) == WK_OK, "reopen");
    wk_tensor *l2 = NULL;
    CHECK(f && wk_safetensors_load(f, "w", cpu, &l2) == WK_OK, "load again");
    const wk_tensor *pair[2] = {l2, c};
    const char *names[2] = {"w", "c"};
    CHECK(wk_safetensors_save(path2, 2, names, pair, 0, NULL, NULL) == WK_OK, "save over the mapped file");
    CHECK(l2 && same_bytes(l2, vals, sizeof vals), "the old mapping survives the rename");
    wk_tensor_release(l2);
    wk_safetensors_close(f);
    unlink(path2);
done:
    wk_tensor_release(t);
    wk_tensor_release(l);
    wk_tensor_release(c);
}

/* ---------------------------------------------------------------- types wick lacks */

static const unsigned char conv_data[] = {
    0x80, 0xff, 0x00, 0x7f,                         /* i8 [0, 4): -128 -1 0 127 */
    0x00, 0x01, 0x05, 0x00,                         /* bool [4, 8): 0 1 1 0 */
    0x38, 0xc0, 0x01, 0x7e, 0x7f,                   /* f8_e4m3 [8, 13): 1 -2 2^-9 448 NaN */
    0x3c, 0x7c, 0xc2,                               /* f8_e5m2 [13, 16): 1 inf -3 */
    0xff, 0xff, 0x01, 0x00,                         /* u16 [16, 20): 65535 1 */
    0x00, 0x80,                                     /* i16 [20, 22): -32768 */
    0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* u64 [24, 32) after 2 bytes of hole: 2^64-1 */
    0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0,             /* f32 [32, 40): 1 -2.5 */
};

static void test_conversions(void)
{
    const char *path = "st_conv.safetensors";
    make_file(path,
              "{\"i8\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]},"
              "\"bool\":{\"dtype\":\"BOOL\",\"shape\":[2,2],\"data_offsets\":[4,8]},"
              "\"e4m3\":{\"dtype\":\"F8_E4M3\",\"shape\":[5],\"data_offsets\":[8,13]},"
              "\"e5m2\":{\"dtype\":\"F8_E5M2\",\"shape\":[3],\"data_offsets\":[13,16]},"
              "\"u16\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[16,20]},"
              "\"i16\":{\"dtype\":\"I16\",\"shape\":[1],\"data_offsets\":[20,22]},"
              "\"u64\":{\"dtype\":\"U64\",\"shape\":[1],\"data_offsets\":[24,32]},"
              "\"f32\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[32,40]}}",
              conv_data, sizeof conv_data);
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(path, &f) == WK_OK, "open conversions");
    if (!f)
        return;
    static const char *const fnames[] = {"I8", "BOOL", "F8_E4M3", "F8_E5M2", "U16", "I16", "U64", "F32"};
    static const wk_file_type ftypes[] = {WK_FILE_I8,  WK_FILE_BOOL, WK_FILE_F8_E4M3, WK_FILE_F8_E5M2,
                                          WK_FILE_U16, WK_FILE_I16,  WK_FILE_U64,     WK_FILE_F32};
    for (int i = 0; i < 8; i++) {
        wk_safetensors_tensor_info info;
        CHECK(wk_safetensors_tensor_info_get(f, i, &info) == WK_OK && info.type == ftypes[i] &&
                  strcmp(info.file_type_name, fnames[i]) == 0,
              "type of tensor %d is %s", i, fnames[i]);
    }
    wk_tensor *sentinel = (wk_tensor *)&checks, *t = sentinel;
    CHECK(wk_safetensors_load(f, "i8", cpu, &t) == WK_ERR_DTYPE && t == sentinel, "plain load of I8");
    CHECK(has_ci(wk_last_error(), "type i8") && strstr(wk_last_error(), path) && strstr(wk_last_error(), "'i8'"),
          "the message names the file, the tensor and the type: %s", wk_last_error());
    CHECK(wk_safetensors_load(f, "e4m3", cpu, &t) == WK_ERR_DTYPE && has_ci(wk_last_error(), "f8_e4m3"),
          "plain load of F8_E4M3");
    CHECK(wk_safetensors_load_as(f, "i8", cpu, (wk_dtype)99, &t) == WK_ERR_DTYPE && t == sentinel,
          "load_as an invalid dtype");
    struct { const char *name; wk_dtype dt; int n; double v[5]; } cases[] = {
        {"i8", WK_F32, 4, {-128, -1, 0, 127}},
        {"i8", WK_I32, 4, {-128, -1, 0, 127}},
        {"bool", WK_I32, 4, {0, 1, 1, 0}},
        {"bool", WK_F32, 4, {0, 1, 1, 0}},
        {"e4m3", WK_F32, 5, {1, -2, 0.001953125, 448, NAN}},
        {"e4m3", WK_I32, 5, {1, -2, 0, 448, 0}},
        {"e5m2", WK_F32, 3, {1, INFINITY, -3}},
        {"u16", WK_I32, 2, {65535, 1}},
        {"i16", WK_F64, 1, {-32768}},
        {"u64", WK_I64, 1, {-1}},
        {"f32", WK_I32, 2, {1, -2}},
        {"f32", WK_F32, 2, {1, -2.5}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        t = NULL;
        wk_tensor *d = NULL;
        CHECK(wk_safetensors_load_as(f, cases[c].name, cpu, cases[c].dt, &t) == WK_OK && t &&
                  wk_tensor_dtype(t) == cases[c].dt && wk_tensor_numel(t) == cases[c].n,
              "load_as %s -> %s", cases[c].name, wk_dtype_name(cases[c].dt));
        double got[5] = {0};
        if (t && wk_cast(t, WK_F64, &d) == WK_OK && cases[c].dt != WK_I64)
            wk_tensor_to_host(d, got, sizeof got);
        if (t && cases[c].dt == WK_I64) {
            int64_t x = 0;
            wk_tensor_to_host(t, &x, 8);
            got[0] = (double)x;
        }
        for (int i = 0; i < cases[c].n; i++) {
            bool ok = isnan(cases[c].v[i]) ? isnan(got[i]) : got[i] == cases[c].v[i];
            CHECK(ok, "%s -> %s [%d] = %g, want %g", cases[c].name, wk_dtype_name(cases[c].dt), i, got[i],
                  cases[c].v[i]);
        }
        wk_tensor_release(t);
        wk_tensor_release(d);
    }
    /* load_many is all or nothing: a missing name or a type that needs _as returns nothing */
    wk_tensor *outs[3] = {sentinel, sentinel, sentinel};
    const char *bad1[] = {"f32", "nope", "u16"}, *bad2[] = {"f32", "u16", "i8"}, *good[] = {"f32", "f32"};
    CHECK(wk_safetensors_load_many(f, bad1, 3, cpu, outs) == WK_ERR_INVALID_ARGUMENT &&
              strstr(wk_last_error(), "nope"), "load_many with a missing name");
    CHECK(wk_safetensors_load_many(f, bad2, 3, cpu, outs) == WK_ERR_DTYPE, "load_many with an I8");
    CHECK(outs[0] == sentinel && outs[1] == sentinel && outs[2] == sentinel, "load_many returned nothing");
    CHECK(wk_safetensors_load_many(f, NULL, 9, cpu, outs) == WK_ERR_INVALID_ARGUMENT, "load_many past count");
    CHECK(wk_safetensors_load_many(f, NULL, -1, cpu, outs) == WK_ERR_INVALID_ARGUMENT, "load_many of -1");
    CHECK(wk_safetensors_load_many(f, NULL, 1, cpu, outs) == WK_ERR_DTYPE, "load_many of the first (I8)");
    CHECK(outs[0] == sentinel, "nothing returned");
    CHECK(wk_safetensors_load_many(f, good, 2, cpu, outs) == WK_OK && outs[0] != sentinel && outs[1] != sentinel &&
              outs[2] == sentinel,
          "load_many by name");
    float two[2] = {1, -2.5f};
    CHECK(outs[0] != sentinel && same_bytes(outs[0], two, 8) && same_bytes(outs[1], two, 8), "load_many values");
    if (outs[0] != sentinel) {
        wk_tensor_release(outs[0]);
        wk_tensor_release(outs[1]);
    }
    wk_safetensors_close(f);
    unlink(path);
}

/* ---------------------------------------------------------------- save's checks and atomicity */

static bool no_temp_files(const char *prefix)
{
    DIR *d = opendir(".");
    struct dirent *e;
    bool ok = true;
    size_t n = strlen(prefix);
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, prefix, n) == 0 && e->d_name[n] == '.')
            ok = false;
    if (d)
        closedir(d);
    return ok;
}

static void test_save_errors(void)
{
    const char *path = "st_atomic.safetensors";
    wk_tensor *a = NULL, *b = NULL;
    int64_t shape[1] = {3};
    CHECK(wk_arange(cpu, WK_F32, 0, 3, 1, &a) == WK_OK && wk_full(cpu, WK_I32, 1, shape, 4, &b) == WK_OK, "inputs");
    const wk_tensor *ts[2] = {a, b};
    const char *names[2] = {"a", "b"}, *k[1] = {"key"}, *v[1] = {"value"};
    CHECK(wk_safetensors_save(path, 2, names, ts, 1, k, v) == WK_OK, "first save");
    size_t n0 = 0, n1 = 0;
    unsigned char *before = read_all(path, &n0);
    const char *dup[2] = {"a", "a"}, *meta[2] = {"__metadata__", "b"}, *null_name[2] = {"a", NULL};
    const char *bad_utf8[2] = {"a", "\xc3("}, *dup_keys[2] = {"key", "key"}, *vals2[2] = {"x", "y"};
    const char *null_val[1] = {NULL};
    const wk_tensor *null_t[2] = {a, NULL};
    struct { const char *const *names; const wk_tensor *const *ts; int64_t n, nmeta; const char *const *k, *const *v;
             const char *needle; } bad[] = {
        {dup, ts, 2, 0, NULL, NULL, "'a' is given twice"},
        {meta, ts, 2, 0, NULL, NULL, "__metadata__"},
        {null_name, ts, 2, 0, NULL, NULL, "tensor name 1 is NULL"},
        {names, null_t, 2, 0, NULL, NULL, "tensor 1 is NULL"},
        {bad_utf8, ts, 2, 0, NULL, NULL, "UTF-8"},
        {names, ts, 2, 2, dup_keys, vals2, "'key' is given twice"},
        {names, ts, 2, 1, k, null_val, "metadata value 0 is NULL"},
        {names, ts, 2, 1, null_val, k, "metadata key 0 is NULL"},
        {names, ts, -1, 0, NULL, NULL, "negative"},
        {names, ts, 2, -1, NULL, NULL, "negative"},
        {NULL, ts, 2, 0, NULL, NULL, "names is NULL"},
        {names, NULL, 2, 0, NULL, NULL, "tensors is NULL"},
        {names, ts, 2, 1, NULL, v, "keys is NULL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wk_status s = wk_safetensors_save(path, bad[i].n, bad[i].names, bad[i].ts, bad[i].nmeta, bad[i].k, bad[i].v);
        CHECK(s == WK_ERR_INVALID_ARGUMENT && strstr(wk_last_error(), bad[i].needle) &&
                  strstr(wk_last_error(), path),
              "bad save %zu gave %s: %s", i, wk_status_string(s), wk_last_error());
        unsigned char *after = read_all(path, &n1);
        CHECK(after && n1 == n0 && memcmp(before, after, n0) == 0, "bad save %zu left the old file alone", i);
        free(after);
    }
    CHECK(no_temp_files(path), "no temporary file left behind");
    CHECK(wk_safetensors_save(NULL, 2, names, ts, 0, NULL, NULL) == WK_ERR_INVALID_ARGUMENT, "NULL path");
    CHECK(wk_safetensors_save("st_no_such_dir/x.safetensors", 2, names, ts, 0, NULL, NULL) == WK_ERR_IO &&
              strstr(wk_last_error(), "st_no_such_dir/x.safetensors"),
          "save into a missing directory");
    free(before);
    unlink(path);
    wk_tensor_release(a);
    wk_tensor_release(b);
}

/* ---------------------------------------------------------------- a GPU, where there is one */

static void test_gpu(void)
{
    wk_device *gpu = NULL;
    if (wk_device_get("gpu:0", &gpu) != WK_OK) {
        printf("no GPU: GPU loads not tested\n");
        return;
    }
    const char *path = "st_gpu.safetensors";
    unsigned char *want = NULL;
    wk_tensor *t = transposed(WK_BF16, 7, 9, &want), *g = NULL, *l = NULL, *la = NULL, *conv = NULL;
    const char *names[2] = {"g", "gt"}, *cname = "e4m3";
    CHECK(wk_to_device(t, gpu, &g) == WK_OK, "to gpu");
    wk_tensor *gt = NULL, *l2 = NULL;
    CHECK(g && wk_transpose(g, 0, 1, &gt) == WK_OK, "transpose on gpu");
    unsigned char *want_gt = malloc(63 * 2);
    CHECK(gt && wk_tensor_to_host(gt, want_gt, 63 * 2) == WK_OK, "gt to host");
    const wk_tensor *pair[2] = {g, gt};
    CHECK(wk_safetensors_save(path, 2, names, pair, 0, NULL, NULL) == WK_OK, "save from gpu (one strided)");
    wk_safetensors *f = NULL;
    CHECK(wk_safetensors_open(path, &f) == WK_OK, "open");
    CHECK(f && wk_safetensors_load(f, "g", gpu, &l) == WK_OK && wk_tensor_device(l) == gpu &&
              !wk_tensor_is_read_only(l) && same_bytes(l, want, 63 * 2),
          "load to gpu");
    CHECK(f && wk_safetensors_load(f, "gt", cpu, &l2) == WK_OK && same_bytes(l2, want_gt, 63 * 2),
          "a strided gpu tensor saved");
    CHECK(f && wk_safetensors_load_as(f, "g", gpu, WK_F32, &la) == WK_OK && wk_tensor_device(la) == gpu,
          "load_as to gpu");
    wk_tensor_release(l2);
    free(want_gt);
    wk_safetensors_close(f);
    make_file(path, "{\"e4m3\":{\"dtype\":\"F8_E4M3\",\"shape\":[5],\"data_offsets\":[0,5]}}", conv_data + 8, 5);
    f = NULL;
    float e[5] = {0};
    CHECK(wk_safetensors_open(path, &f) == WK_OK && wk_safetensors_load_as(f, cname, gpu, WK_F32, &conv) == WK_OK &&
              wk_tensor_to_host(conv, e, sizeof e) == WK_OK && e[0] == 1 && e[1] == -2 && e[3] == 448 && isnan(e[4]),
          "f8 load_as to gpu");
    wk_safetensors_close(f);
    unlink(path);
    free(want);
    wk_tensor_release(t);
    wk_tensor_release(g);
    wk_tensor_release(gt);
    wk_tensor_release(l);
    wk_tensor_release(la);
    wk_tensor_release(conv);
}

int main(void)
{
    if (wk_device_get("cpu", &cpu) != WK_OK) {
        printf("FAIL cannot open cpu: %s\n", wk_last_error());
        return 1;
    }
    test_hostile_framing();
    test_hostile_json();
    test_hostile_entries();
    test_odd_but_valid();
    test_round_trip();
    test_empty_save();
    test_read_only();
    test_conversions();
    test_save_errors();
    test_gpu();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures || checks == 0 ? 1 : 0;
}

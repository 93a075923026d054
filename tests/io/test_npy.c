/* test_npy.c: .npy reading and writing: every class of damaged or hostile header (bad magic and version,
 * header lengths past the file or over the limit, dicts that are not numpy's, bad descr, big-endian, bad
 * shapes, data too short or too long, every truncation of a valid file), round trips of every dtype from
 * strided inputs, Fortran order, the _as conversions, versions 2.0 and 3.0, and read-only CPU loads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "wick.h"

static wk_device *cpu;
static const char *const tmp_path = "test_npy_tmp.npy";

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n)) {
        printf("cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fclose(f);
}

/* A .npy file: magic, version, length (2 or 4 bytes), dict padded with spaces to a multiple of align (0: no
 * padding) ending in '\n', then data. Returns the size written into buf. */
static size_t make_npy(unsigned char *buf, int major, const char *dict, size_t align, const void *data, size_t n)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict), total = pre + dl + 1;
    if (align)
        total = (total + align - 1) / align * align;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    size_t hl = total - pre;
    for (size_t i = 0; i < pre - 8; i++)
        buf[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', total - pre - dl - 1);
    buf[total - 1] = '\n';
    if (n)
        memcpy(buf + total, data, n);
    return total + n;
}

static unsigned char filebuf[1 << 16];

static void write_npy(int major, const char *dict, const void *data, size_t n)
{
    write_bytes(tmp_path, filebuf, make_npy(filebuf, major, dict, 64, data, n));
}

/* Loading tmp_path gives status want; a failure has a message naming the file and containing `part` and
 * leaves out untouched. load_as (to f64) agrees. */
static void expect_fail(wk_status want, const char *part, const char *what)
{
    wk_tensor *sentinel = (wk_tensor *)&checks, *t = sentinel;
    wk_status s = wk_npy_load(tmp_path, cpu, &t);
    CHECK(s == want, "%s: status %s, want %s", what, wk_status_string(s), wk_status_string(want));
    if (s == WK_OK) {
        wk_tensor_release(t);
    } else {
        CHECK(t == sentinel, "%s: out written on failure", what);
        CHECK(strstr(wk_last_error(), tmp_path) != NULL, "%s: message does not name the file", what);
        CHECK(!part || strstr(wk_last_error(), part) != NULL, "%s: message lacks '%s'", what, part);
    }
    t = sentinel;
    s = wk_npy_load_as(tmp_path, cpu, WK_F64, &t);
    if (want == WK_ERR_DTYPE && part && strcmp(part, "wk_npy_load_as") == 0)
        want = WK_OK; /* the types _as converts */
    CHECK(s == want, "%s: load_as status %s", what, wk_status_string(s));
    if (s == WK_OK)
        wk_tensor_release(t);
    else
        CHECK(t == sentinel, "%s: load_as wrote out on failure", what);
}

static void expect_dict_fail(const char *dict, wk_status want, const char *part)
{
    float data[12] = {0};
    write_npy(1, dict, data, sizeof data);
    expect_fail(want, part, dict);
}

static void test_prefix(void)
{
    unsigned char b[256];
    float data[12] = {0};
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
    size_t n = make_npy(b, 1, dict, 64, data, sizeof data);
    b[1] = 'X';
    write_bytes(tmp_path, b, n);
    expect_fail(WK_ERR_FILE, "magic", "bad magic");
    b[1] = 'N';
    int versions[][2] = {{4, 0}, {0, 0}, {1, 1}, {2, 1}, {255, 0}};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        b[6] = (unsigned char)versions[i][0];
        b[7] = (unsigned char)versions[i][1];
        write_bytes(tmp_path, b, n);
        expect_fail(WK_ERR_FILE, "version", "bad version");
    }
    b[6] = 1;
    b[7] = 0;
    b[8] = 0xff; /* header length 0xff76 past the file */
    write_bytes(tmp_path, b, n);
    expect_fail(WK_ERR_FILE, "past the end", "header length past the file");
    /* version 2.0 with a header length over 100 MB */
    n = make_npy(b, 2, dict, 64, data, sizeof data);
    b[8] = 0;
    b[9] = 0;
    b[10] = 0;
    b[11] = 0x10;
    write_bytes(tmp_path, b, n);
    expect_fail(WK_ERR_FILE, "limit", "header length over 100 MB");
    b[11] = 0xff;
    write_bytes(tmp_path, b, n);
    expect_fail(WK_ERR_FILE, "limit", "header length 4 GB");
    write_bytes(tmp_path, b, 0);
    expect_fail(WK_ERR_FILE, "magic", "empty file");
    /* a header length of 0: no dict at all */
    n = make_npy(b, 1, dict, 64, data, sizeof data);
    b[8] = b[9] = 0;
    write_bytes(tmp_path, b, n);
    expect_fail(WK_ERR_FILE, "not a numpy header", "header length 0");
    wk_tensor *t = NULL;
    CHECK(wk_npy_load("no/such/file.npy", cpu, &t) == WK_ERR_IO && strstr(wk_last_error(), "no/such/file.npy"),
          "missing file: WK_ERR_IO naming it");
}

/* Every strict prefix of a valid file is refused (the data's size must be exact). */
static void test_truncations(void)
{
    unsigned char b[256];
    double data[6] = {1, 2, 3, 4, 5, 6};
    size_t n = make_npy(b, 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", 64, data, sizeof data);
    for (size_t len = 0; len < n; len++) {
        write_bytes(tmp_path, b, len);
        wk_tensor *t = NULL;
        wk_status s = wk_npy_load(tmp_path, cpu, &t);
        CHECK(s == WK_ERR_FILE && t == NULL, "prefix of %zu bytes: status %s", len, wk_status_string(s));
    }
    write_bytes(tmp_path, b, n);
    wk_tensor *t = NULL;
    CHECK(wk_npy_load(tmp_path, cpu, &t) == WK_OK, "the whole file loads");
    wk_tensor_release(t);
}

static void test_dicts(void)
{
    static const struct {
        const char *dict;
        wk_status want;
        const char *part;
    } bad[] = {
        {"[1, 2, 3]", WK_ERR_FILE, "'{'"},
        {"'descr'", WK_ERR_FILE, "'{'"},
        {"{'descr': '<f4', 'fortran_order': False}", WK_ERR_FILE, "'shape'"},
        {"{'descr': '<f4', 'shape': (3, 4)}", WK_ERR_FILE, "'fortran_order'"},
        {"{'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "'descr'"},
        {"{}", WK_ERR_FILE, "'descr'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'shape': (3, 4)}", WK_ERR_FILE, "twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}", WK_ERR_FILE, "unknown key"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4)}", WK_ERR_FILE, "True or False"},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (3, 4)}", WK_ERR_FILE, "True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [3, 4]}", WK_ERR_FILE, "tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (12)}", WK_ERR_FILE, "1-tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", WK_ERR_FILE, "integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}", WK_ERR_FILE, "expected"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4),, }", WK_ERR_FILE, "expected"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4)}", WK_ERR_FILE, "negative"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4.0)}", WK_ERR_FILE, "integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 04)}", WK_ERR_FILE, "leading zero"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", WK_ERR_FILE, "2^63"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", WK_ERR_FILE, "overflow"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4)}", WK_ERR_FILE, "overflow"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (19446744073709551614, 0)}", WK_ERR_FILE, "2^63"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807,)}", WK_ERR_FILE, "overflow"},
        {"{'descr': '|u1', 'fortran_order': True, 'shape': (0, 1152921504606846976, 2)}", WK_ERR_FILE, "overflow"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 12)}", WK_ERR_FILE, "more than 8"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)} x", WK_ERR_FILE, "after the closing"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "expected"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "':'"},
        {"{'descr': <f4, 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "quoted"},
        {"{'descr': '<f4\\', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, NULL},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, NULL},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "quoted key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)", WK_ERR_FILE, NULL},
        {"{'descr': 'xyz', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "not a numpy dtype"},
        {"{'descr': '', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "not a numpy dtype"},
        {"{'descr': '<f', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "not a numpy dtype"},
        {"{'descr': '|f4', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "byte order"},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_DTYPE, "big-endian"},
        {"{'descr': '>i2', 'fortran_order': False, 'shape': (3, 8)}", WK_ERR_DTYPE, "big-endian"},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_DTYPE, "object"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (3, 2)}", WK_ERR_DTYPE, "complex"},
        {"{'descr': '<U1', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_DTYPE, "string"},
        {"{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_DTYPE, "date"},
        {"{'descr': '<V2', 'fortran_order': False, 'shape': (3, 8)}", WK_ERR_DTYPE, "bfloat16"},
        {"{'descr': '<f16', 'fortran_order': False, 'shape': (3,)}", WK_ERR_DTYPE, "no wick dtype"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_DTYPE, "structured"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3)}", WK_ERR_FILE, "after the array"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5)}", WK_ERR_FILE, "truncated"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, "truncated"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}", WK_ERR_FILE, "after the array"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (0,)}", WK_ERR_FILE, "after the array"},
        {"{'descr': '\xe9" "f4', 'fortran_order': False, 'shape': (3, 4)}", WK_ERR_FILE, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_dict_fail(bad[i].dict, bad[i].want, bad[i].part);
    /* Python 2's 'L' is accepted in versions 1.0 and 2.0 only. */
    float data[12] = {0};
    const char *l_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L), }";
    write_npy(3, l_dict, data, sizeof data);
    expect_fail(WK_ERR_FILE, NULL, "3.0 with 'L'");
    write_npy(1, l_dict, data, sizeof data);
    expect_fail(WK_OK, NULL, "1.0 with 'L'");
    /* Accepted spellings: any key order, double quotes, no trailing comma, blanks, no 64-byte padding. */
    static const char *const good[] = {
        "{'shape': (3, 4), 'fortran_order': False, 'descr': '<f4'}",
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 4,)}",
        "{ 'descr' : '=f4' ,\n'fortran_order' : False , 'shape' : ( 3 , 4 ) , }",
        "{'descr':'f4','fortran_order':False,'shape':(3,4)}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        write_npy(1, good[i], data, sizeof data);
        expect_fail(WK_OK, NULL, good[i]);
    }
    /* empty, with the other dims as large as an 8-byte dtype allows: loads, and converts to f64 */
    write_npy(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (0, 288230376151711744, 2)}", NULL, 0);
    expect_fail(WK_OK, NULL, "empty with huge dims");
    write_bytes(tmp_path, filebuf, make_npy(filebuf, 1, good[0], 16, data, sizeof data));
    expect_fail(WK_OK, NULL, "16-byte aligned header");
    write_bytes(tmp_path, filebuf, make_npy(filebuf, 1, good[0], 0, data, sizeof data));
    expect_fail(WK_OK, NULL, "unaligned header");
}

/* Loads tmp_path and checks its dtype, shape and row-major contents. */
static void check_load(wk_dtype want_dt, int rank, const int64_t *shape, const void *want, size_t bytes,
                       const char *what)
{
    wk_tensor *t = NULL;
    wk_status s = wk_npy_load(tmp_path, cpu, &t);
    CHECK(s == WK_OK, "%s: load", what);
    if (s != WK_OK)
        return;
    CHECK(wk_tensor_dtype(t) == want_dt && wk_tensor_rank(t) == rank, "%s: dtype %s rank %d", what,
          wk_dtype_name(wk_tensor_dtype(t)), wk_tensor_rank(t));
    for (int i = 0; i < rank && i < wk_tensor_rank(t); i++)
        CHECK(wk_tensor_shape(t)[i] == shape[i], "%s: shape[%d] %lld", what, i, (long long)wk_tensor_shape(t)[i]);
    unsigned char got[4096];
    CHECK(bytes <= sizeof got && wk_tensor_to_host(t, got, sizeof got) == WK_OK && (!bytes || memcmp(got, want, bytes) == 0),
          "%s: contents differ", what);
    CHECK(wk_tensor_is_read_only(t), "%s: a CPU load is a read-only view", what);
    CHECK(wk_fill(t, 1.0) == WK_ERR_INVALID_ARGUMENT, "%s: wk_fill on the read-only load", what);
    wk_tensor_release(t);
}

/* Save a transposed (strided) view of every dtype and read it back, header checked. */
static void test_round_trips(void)
{
    unsigned char src[3 * 5 * 8], want[3 * 5 * 8];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    for (int d = 0; d < WK_DTYPE_COUNT; d++) {
        wk_dtype dt = (wk_dtype)d;
        size_t es = wk_dtype_size(dt);
        int64_t shape[2] = {3, 5}, tshape[2] = {5, 3};
        wk_tensor *a = NULL, *v = NULL;
        if (wk_tensor_from_host(cpu, dt, 2, shape, src, &a) != WK_OK || wk_transpose(a, 0, 1, &v) != WK_OK) {
            CHECK(0, "%s: making the input", wk_dtype_name(dt));
            continue;
        }
        CHECK(wk_tensor_to_host(v, want, sizeof want) == WK_OK, "to_host");
        unlink(tmp_path);
        wk_status s = wk_npy_save(tmp_path, v);
        if (dt == WK_BF16) {
            CHECK(s == WK_ERR_DTYPE && strstr(wk_last_error(), "bfloat16"), "bf16 save is refused, saying why");
            CHECK(access(tmp_path, F_OK) != 0, "bf16: no file written");
        } else {
            CHECK(s == WK_OK, "%s: save", wk_dtype_name(dt));
            struct stat st;
            FILE *f = fopen(tmp_path, "rb");
            unsigned char h[128] = {0};
            size_t got = f ? fread(h, 1, sizeof h, f) : 0;
            if (f)
                fclose(f);
            CHECK(stat(tmp_path, &st) == 0 && st.st_size == 128 + (off_t)(15 * es), "%s: file size", wk_dtype_name(dt));
            CHECK(got >= 128 && memcmp(h, "\x93NUMPY\x01\x00", 8) == 0 && h[8] + 256 * h[9] == 118 && h[127] == '\n',
                  "%s: a version 1.0 header of 128 bytes ending in a newline", wk_dtype_name(dt));
            check_load(dt, 2, tshape, want, 15 * es, wk_dtype_name(dt));
        }
        wk_tensor_release(v);
        wk_tensor_release(a);
    }
}

/* Rank 0, rank 1, empty, rank 8, and NaN / -0.0 bits. */
static void test_shapes(void)
{
    const int64_t shapes[][8] = {{0}, {1}, {0, 3}, {2, 1, 2, 1, 2, 1, 1, 2}, {7}};
    const int ranks[] = {0, 1, 2, 8, 1};
    float vals[16] = {0.0f, -0.0f, 1.5f, -2.25f, 3e38f, 1e-45f, 0.0f, 0.0f};
    uint32_t nan_bits = 0x7fc12345u, inf_bits = 0xff800000u;
    memcpy(&vals[6], &nan_bits, 4);
    memcpy(&vals[7], &inf_bits, 4);
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        wk_tensor *t = NULL;
        int64_t n = 1;
        for (int k = 0; k < ranks[i]; k++)
            n *= shapes[i][k];
        float *src = vals + (i == 4 ? 1 : 0);
        CHECK(wk_tensor_from_host(cpu, WK_F32, ranks[i], shapes[i], src, &t) == WK_OK, "make");
        CHECK(wk_npy_save(tmp_path, t) == WK_OK, "save rank %d", ranks[i]);
        check_load(WK_F32, ranks[i], shapes[i], src, (size_t)n * 4, "shape");
        wk_tensor_release(t);
    }
    CHECK(wk_npy_save(NULL, NULL) == WK_ERR_INVALID_ARGUMENT, "save NULL");
    wk_tensor *t = NULL;
    CHECK(wk_tensor_from_host(cpu, WK_F32, 1, (int64_t[]){1}, vals, &t) == WK_OK, "make");
    CHECK(wk_npy_save("no/such/dir/x.npy", t) == WK_ERR_IO && strstr(wk_last_error(), "no/such/dir/x.npy"),
          "save into a missing directory: WK_ERR_IO");
    wk_tensor_release(t);
    CHECK(wk_npy_load(tmp_path, cpu, NULL) == WK_ERR_INVALID_ARGUMENT, "load out NULL");
    CHECK(wk_npy_load(tmp_path, NULL, &t) == WK_ERR_INVALID_ARGUMENT, "load dev NULL");
    CHECK(wk_npy_load_as(NULL, cpu, WK_F32, &t) == WK_ERR_INVALID_ARGUMENT, "load_as path NULL");
}

/* Fortran order: a zero-copy strided view with numpy's values, through load and load_as. */
static void test_fortran(void)
{
    float col[24]; /* shape (2, 3, 4): element (i, j, k) at i + 2 j + 6 k */
    for (int i = 0; i < 24; i++)
        col[i] = (float)i;
    float row[24];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                row[(i * 3 + j) * 4 + k] = col[i + 2 * j + 6 * k];
    write_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4), }", col, sizeof col);
    int64_t shape[3] = {2, 3, 4};
    check_load(WK_F32, 3, shape, row, sizeof row, "fortran");
    wk_tensor *t = NULL;
    if (wk_npy_load(tmp_path, cpu, &t) == WK_OK) {
        const int64_t *st = wk_tensor_strides(t);
        CHECK(st[0] == 1 && st[1] == 2 && st[2] == 6, "fortran strides %lld %lld %lld", (long long)st[0],
              (long long)st[1], (long long)st[2]);
        wk_tensor_release(t);
    }
    double rowd[24];
    for (int i = 0; i < 24; i++)
        rowd[i] = row[i];
    CHECK(wk_npy_load_as(tmp_path, cpu, WK_F64, &t) == WK_OK, "fortran load_as f64");
    double got[24];
    CHECK(t && wk_tensor_rank(t) == 3 && wk_tensor_shape(t)[0] == 2 && wk_tensor_shape(t)[2] == 4 &&
          wk_tensor_to_host(t, got, sizeof got) == WK_OK && memcmp(got, rowd, sizeof got) == 0,
          "fortran load_as values");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_npy_load_as(tmp_path, cpu, WK_F32, &t) == WK_OK && wk_tensor_is_read_only(t), "fortran load_as same dtype");
    wk_tensor_release(t);
    /* a Fortran file of a type wick lacks: i16 (2, 3) */
    int16_t c16[6] = {-1, 2, -3, 4, -5, 6};
    int32_t r32[6] = {-1, -3, -5, 2, 4, 6};
    write_npy(1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }", c16, sizeof c16);
    int32_t g32[6];
    t = NULL;
    CHECK(wk_npy_load_as(tmp_path, cpu, WK_I32, &t) == WK_OK && wk_tensor_to_host(t, g32, sizeof g32) == WK_OK &&
          memcmp(g32, r32, sizeof g32) == 0, "fortran i16 load_as i32");
    wk_tensor_release(t);
    /* empty Fortran arrays */
    write_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (0, 5), }", NULL, 0);
    check_load(WK_F32, 2, (int64_t[]){0, 5}, NULL, 0, "fortran empty");
}

/* Types wick lacks: WK_ERR_DTYPE on load, converted by load_as; the 1-byte byte-order spellings. */
static void test_types(void)
{
    static const struct {
        const char *descr;
        unsigned char bytes[16];
        int64_t n;
        wk_dtype as;
        int64_t want[4];
    } cases[] = {
        {"|b1", {0, 1, 2, 0}, 4, WK_I64, {0, 1, 1, 0}},
        {"|i1", {0xff, 0x80, 0x7f, 0}, 4, WK_I64, {-1, -128, 127, 0}},
        {"<i2", {0xff, 0xff, 0x00, 0x80, 0x34, 0x12, 0, 0}, 4, WK_I64, {-1, -32768, 0x1234, 0}},
        {"<u2", {0xff, 0xff, 0x00, 0x80, 0x34, 0x12, 0, 0}, 4, WK_I64, {65535, 32768, 0x1234, 0}},
        {"<u8", {5, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 2, WK_I64, {5, -1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }", cases[i].descr,
                 (long long)cases[i].n);
        size_t es = (size_t)(cases[i].descr[2] - '0');
        write_npy(1, dict, cases[i].bytes, (size_t)cases[i].n * es);
        expect_fail(WK_ERR_DTYPE, "wk_npy_load_as", cases[i].descr);
        wk_tensor *t = NULL;
        int64_t got[4] = {0};
        CHECK(wk_npy_load_as(tmp_path, cpu, cases[i].as, &t) == WK_OK &&
              wk_tensor_to_host(t, got, sizeof got) == WK_OK && memcmp(got, cases[i].want, (size_t)cases[i].n * 8) == 0,
              "%s: load_as values", cases[i].descr);
        wk_tensor_release(t);
    }
    static const char *const u1[] = {"|u1", "<u1", "=u1", ">u1", "u1"};
    unsigned char b[3] = {1, 200, 255};
    for (size_t i = 0; i < sizeof u1 / sizeof u1[0]; i++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }", u1[i]);
        write_npy(1, dict, b, 3);
        check_load(WK_U8, 1, (int64_t[]){3}, b, 3, u1[i]);
    }
    write_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", b, 3);
    expect_fail(WK_ERR_FILE, "truncated", "3 bytes for an f4");
    wk_tensor *t = NULL;
    float one = 1.0f;
    write_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", &one, 4);
    CHECK(wk_npy_load_as(tmp_path, cpu, (wk_dtype)99, &t) == WK_ERR_DTYPE, "load_as an invalid dtype");
}

/* Versions 2.0 and 3.0 as numpy writes them (a 4-byte header length). */
static void test_versions(void)
{
    int32_t v[6] = {1, -2, 3, -4, 5, -6};
    for (int major = 1; major <= 3; major++) {
        write_npy(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
        check_load(WK_I32, 2, (int64_t[]){2, 3}, v, sizeof v, major == 1 ? "1.0" : major == 2 ? "2.0" : "3.0");
    }
    /* version 3.0 (UTF-8): a non-ASCII byte in the dict is still no numpy descr */
    write_npy(3, "{'descr': '<i4\xc3\xa9', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v);
    expect_fail(WK_ERR_FILE, NULL, "3.0 non-ASCII");
}

/* Unaligned data on the CPU: a copy (still right). */
static void test_unaligned(void)
{
    double d[3] = {1.5, -2.5, 1e300};
    write_bytes(tmp_path, filebuf,
                make_npy(filebuf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", 0, d, sizeof d));
    wk_tensor *t = NULL;
    double got[3];
    CHECK(wk_npy_load(tmp_path, cpu, &t) == WK_OK && wk_tensor_to_host(t, got, sizeof got) == WK_OK &&
          memcmp(got, d, sizeof d) == 0, "unaligned f8 data loads");
    wk_tensor_release(t);
}

/* A GPU, where present: the Fortran file loads with the same values. */
static void test_gpu(void)
{
    wk_device *gpu = NULL;
    if (wk_device_get("gpu:0", &gpu) != WK_OK) {
        printf("no GPU: GPU loads not tested\n");
        return;
    }
    float col[6] = {0, 1, 2, 3, 4, 5}, row[6] = {0, 2, 4, 1, 3, 5}, got[6];
    write_npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", col, sizeof col);
    wk_tensor *t = NULL;
    CHECK(wk_npy_load(tmp_path, gpu, &t) == WK_OK && wk_tensor_to_host(t, got, sizeof got) == WK_OK &&
          memcmp(got, row, sizeof got) == 0, "GPU fortran load");
    CHECK(wk_npy_save(tmp_path, t) == WK_OK, "GPU save");
    wk_tensor_release(t);
    t = NULL;
    CHECK(wk_npy_load_as(tmp_path, gpu, WK_F64, &t) == WK_OK, "GPU load_as");
    wk_tensor_release(t);
    check_load(WK_F32, 2, (int64_t[]){2, 3}, row, sizeof row, "GPU save then CPU load");
}

int main(void)
{
    if (wk_device_get("cpu", &cpu) != WK_OK) {
        printf("no cpu device: %s\n", wk_last_error());
        return 1;
    }
    test_prefix();
    test_truncations();
    test_dicts();
    test_round_trips();
    test_shapes();
    test_fortran();
    test_types();
    test_versions();
    test_unaligned();
    test_gpu();
    unlink(tmp_path);
    printf("test_npy: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

/* cmd_info.c: `wick info FILE [--json]`: what a safetensors, GGUF or .npy file holds, printed the way gguf-dump
 * does (metadata, then a table of tensors), or as one JSON object. The format is told by the file's first bytes
 * ("GGUF", "\x93NUMPY", else safetensors); everything shown comes through wick's readers, so a damaged file is
 * refused with the reader's message ("wick info: <message>", exit 1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Array elements shown before "..." (text) or before the list is cut (JSON). */
#define INFO_ARRAY_SHOWN 8
/* String bytes shown in text mode before "...". */
#define INFO_STRING_SHOWN 120
/* Nested arrays shown this deep; deeper ones print as [...]. */
#define INFO_MAX_DEPTH 4

static int info_failed(void)
{
    fprintf(stderr, "wick info: %s\n", wk_last_error());
    return CLI_FAILED;
}

/* "[3, 4]" into buf. */
static const char *shape_text(char *buf, size_t cap, int rank, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
    return buf;
}

static void shape_json(FILE *f, int rank, const int64_t *shape)
{
    fputc('[', f);
    for (int i = 0; i < rank; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)shape[i]);
    fputc(']', f);
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!len || len > n || (len == 2 && p[0] < 0xc2) || (len == 4 && p[0] > 0xf4))
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((len == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (len == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
        (len == 4 && p[0] == 0xf0 && p[1] < 0x90) || (len == 4 && p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return len;
}

/* n bytes (which may hold NULs and invalid UTF-8) as a JSON string: invalid bytes become U+FFFD. */
static void json_bytes(FILE *f, const char *s, uint64_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (uint64_t i = 0; i < n;) {
        size_t len = utf8_len(p + i, (size_t)(n - i));
        if (len == 0) {
            fputs("\\ufffd", f);
            i++;
        } else if (len > 1) {
            fwrite(p + i, 1, len, f);
            i += len;
        } else {
            unsigned char c = p[i++];
            if (c == '"' || c == '\\')
                fprintf(f, "\\%c", c);
            else if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}

/* n bytes quoted for a terminal: printable ASCII and valid UTF-8 as they are, the rest as \xNN; cut after
 * INFO_STRING_SHOWN bytes. */
static void text_bytes(FILE *f, const char *s, uint64_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    uint64_t shown = n < INFO_STRING_SHOWN ? n : INFO_STRING_SHOWN;
    fputc('\'', f);
    for (uint64_t i = 0; i < shown;) {
        size_t len = utf8_len(p + i, (size_t)(n - i));
        if (len > 1) {
            fwrite(p + i, 1, len, f);
            i += len;
            continue;
        }
        unsigned char c = p[i++];
        if (c == '\'' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fprintf(f, n > shown ? "'... (%llu bytes)" : "'", (unsigned long long)n);
}

/* ---------------------------------------------------------------- GGUF */

static const char *gguf_type_name(wk_gguf_type t)
{
    static const char *const names[] = {"uint8", "int8",  "uint16", "int16",  "uint32", "int32",  "float32",
                                        "bool",  "string", "array", "uint64", "int64",  "float64"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

static void gguf_float(FILE *f, double d, bool json)
{
    if (isfinite(d))
        fprintf(f, "%.9g", d);
    else
        fprintf(f, json ? "\"%s\"" : "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
}

/* One value: a scalar, a string or an array (its first INFO_ARRAY_SHOWN elements, recursively). */
static void gguf_value(FILE *f, const wk_gguf_value *v, bool json, int depth)
{
    int64_t i = 0;
    uint64_t u = 0, len = 0;
    double d = 0;
    bool b = false;
    const char *s = NULL;
    wk_gguf_type et;
    switch (wk_gguf_value_type(v)) {
    case WK_GGUF_UINT8: case WK_GGUF_UINT16: case WK_GGUF_UINT32: case WK_GGUF_UINT64:
        if (wk_gguf_value_uint(v, &u) == WK_OK)
            fprintf(f, "%llu", (unsigned long long)u);
        return;
    case WK_GGUF_INT8: case WK_GGUF_INT16: case WK_GGUF_INT32: case WK_GGUF_INT64:
        if (wk_gguf_value_int(v, &i) == WK_OK)
            fprintf(f, "%lld", (long long)i);
        return;
    case WK_GGUF_FLOAT32: case WK_GGUF_FLOAT64:
        if (wk_gguf_value_float(v, &d) == WK_OK)
            gguf_float(f, d, json);
        return;
    case WK_GGUF_BOOL:
        if (wk_gguf_value_bool(v, &b) == WK_OK)
            fputs(b ? (json ? "true" : "True") : (json ? "false" : "False"), f);
        return;
    case WK_GGUF_STRING:
        if (wk_gguf_value_string(v, &s, &len) == WK_OK)
            (json ? json_bytes : text_bytes)(f, s, len);
        return;
    case WK_GGUF_ARRAY:
        if (wk_gguf_value_array(v, &et, &len) != WK_OK)
            return;
        fputc('[', f);
        for (uint64_t k = 0; depth < INFO_MAX_DEPTH && k < len && k < INFO_ARRAY_SHOWN; k++) {
            const wk_gguf_value *e = NULL;
            fputs(k ? ", " : "", f);
            if (wk_gguf_value_array_get(v, k, &e) == WK_OK)
                gguf_value(f, e, json, depth + 1);
        }
        if (!json && (len > INFO_ARRAY_SHOWN || (depth >= INFO_MAX_DEPTH && len)))
            fprintf(f, "%s...", len && depth < INFO_MAX_DEPTH ? ", " : "");
        fputc(']', f);
        return;
    }
    fputs(json ? "null" : "?", f);
}

/* The type column: "uint32", "[string]", "[[int32]]"... */
static void gguf_type_text(char *buf, size_t cap, const wk_gguf_value *v)
{
    wk_gguf_type t = wk_gguf_value_type(v), et;
    uint64_t len = 0;
    if (t != WK_GGUF_ARRAY || wk_gguf_value_array(v, &et, &len) != WK_OK) {
        snprintf(buf, cap, "%s", gguf_type_name(t));
        return;
    }
    const wk_gguf_value *e = NULL;
    char inner[48];
    if (et == WK_GGUF_ARRAY && len > 0 && cap > 24 && wk_gguf_value_array_get(v, 0, &e) == WK_OK)
        gguf_type_text(inner, sizeof inner < cap - 2 ? sizeof inner : cap - 2, e);
    else
        snprintf(inner, sizeof inner, "%s", gguf_type_name(et));
    snprintf(buf, cap, "[%s]", inner);
}

static int gguf_metadata(const wk_gguf *g, bool json)
{
    int64_t n = wk_gguf_metadata_count(g);
    if (!json)
        printf("* %lld metadata key(s)\n", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        const char *key = NULL;
        const wk_gguf_value *v = NULL;
        if (wk_gguf_metadata_get(g, i, &key, &v) != WK_OK)
            return info_failed();
        char type[64];
        gguf_type_text(type, sizeof type, v);
        wk_gguf_type et;
        uint64_t len = 1;
        if (wk_gguf_value_type(v) == WK_GGUF_ARRAY && wk_gguf_value_array(v, &et, &len) != WK_OK)
            return info_failed();
        if (json) {
            printf("%s{\"key\":", i ? "," : "");
            json_bytes(stdout, key, strlen(key));
            printf(",\"type\":\"%s\",\"length\":%llu,\"value\":", type, (unsigned long long)len);
        } else {
            printf("  %6lld: %-12s | %8llu | %s = ", (long long)i + 1, type, (unsigned long long)len, key);
        }
        gguf_value(stdout, v, json, 0);
        printf(json ? "}" : "\n");
    }
    return CLI_OK;
}

static int gguf_tensors(const wk_gguf *g, bool json)
{
    int64_t n = wk_gguf_tensor_count(g);
    if (!json)
        printf("* %lld tensor(s)\n  %6s  %-8s %-24s %-24s %12s %12s  %s\n", (long long)n, "#", "type", "ne",
               "shape", "offset", "bytes", "name");
    for (int64_t i = 0; i < n; i++) {
        wk_gguf_tensor_info ti;
        if (wk_gguf_tensor_info_get(g, i, &ti) != WK_OK)
            return info_failed();
        if (json) {
            printf("%s{\"index\":%lld,\"name\":", i ? "," : "", (long long)i);
            json_bytes(stdout, ti.name, strlen(ti.name));
            printf(",\"ggml_type\":%u,\"type\":\"%s\",\"ne\":", ti.ggml_type, ti.ggml_type_name);
            shape_json(stdout, ti.rank, ti.ne);
            printf(",\"shape\":");
            shape_json(stdout, ti.rank, ti.shape);
            printf(",\"offset\":%llu,\"bytes\":%llu}", (unsigned long long)ti.offset, (unsigned long long)ti.bytes);
            continue;
        }
        char ne[200], shape[200];
        printf("  %6lld: %-8s %-24s %-24s %12llu %12llu  ", (long long)i + 1, ti.ggml_type_name,
               shape_text(ne, sizeof ne, ti.rank, ti.ne), shape_text(shape, sizeof shape, ti.rank, ti.shape),
               (unsigned long long)ti.offset, (unsigned long long)ti.bytes);
        text_bytes(stdout, ti.name, strlen(ti.name));
        putchar('\n');
    }
    return CLI_OK;
}

static int info_gguf(const char *path, bool json)
{
    wk_gguf *g = NULL;
    if (wk_gguf_open(path, &g) != WK_OK)
        return info_failed();
    if (json) {
        printf("{\"file\":");
        cli_json_string(stdout, path);
        printf(",\"format\":\"gguf\",\"version\":%u,\"alignment\":%u,\"metadata\":[", wk_gguf_version(g),
               wk_gguf_alignment(g));
    } else {
        printf("%s: GGUF version %u, alignment %u, %lld metadata key(s), %lld tensor(s)\n", path,
               wk_gguf_version(g), wk_gguf_alignment(g), (long long)wk_gguf_metadata_count(g),
               (long long)wk_gguf_tensor_count(g));
    }
    int rc = gguf_metadata(g, json);
    if (rc == CLI_OK && json)
        printf("],\"tensors\":[");
    if (rc == CLI_OK)
        rc = gguf_tensors(g, json);
    if (rc == CLI_OK && json)
        printf("]}\n");
    wk_gguf_close(g);
    return rc;
}

/* ---------------------------------------------------------------- safetensors */

static int info_safetensors(const char *path, bool json)
{
    wk_safetensors *f = NULL;
    if (wk_safetensors_open(path, &f) != WK_OK)
        return info_failed();
    int64_t nm = wk_safetensors_metadata_count(f), n = wk_safetensors_count(f);
    if (json) {
        printf("{\"file\":");
        cli_json_string(stdout, path);
        printf(",\"format\":\"safetensors\",\"metadata\":{");
    } else {
        printf("%s: safetensors, %lld metadata key(s), %lld tensor(s)\n* %lld metadata key(s)\n", path,
               (long long)nm, (long long)n, (long long)nm);
    }
    int rc = CLI_OK;
    for (int64_t i = 0; i < nm && rc == CLI_OK; i++) {
        const char *k = NULL, *v = NULL;
        if (wk_safetensors_metadata_get(f, i, &k, &v) != WK_OK) {
            rc = info_failed();
        } else if (json) {
            printf(i ? "," : "");
            json_bytes(stdout, k, strlen(k));
            putchar(':');
            json_bytes(stdout, v, strlen(v));
        } else {
            printf("  %6lld: %s = ", (long long)i + 1, k);
            text_bytes(stdout, v, strlen(v));
            putchar('\n');
        }
    }
    if (rc == CLI_OK && json)
        printf("},\"tensors\":[");
    else if (rc == CLI_OK)
        printf("* %lld tensor(s)\n  %6s  %-8s %-24s %12s %12s  %s\n", (long long)n, "#", "dtype", "shape", "offset",
               "bytes", "name");
    for (int64_t i = 0; i < n && rc == CLI_OK; i++) {
        wk_safetensors_tensor_info ti;
        if (wk_safetensors_tensor_info_get(f, i, &ti) != WK_OK) {
            rc = info_failed();
        } else if (json) {
            printf("%s{\"index\":%lld,\"name\":", i ? "," : "", (long long)i);
            json_bytes(stdout, ti.name, strlen(ti.name));
            printf(",\"dtype\":\"%s\",\"shape\":", ti.file_type_name);
            shape_json(stdout, ti.rank, ti.shape);
            printf(",\"offset\":%llu,\"bytes\":%llu}", (unsigned long long)ti.offset, (unsigned long long)ti.bytes);
        } else {
            char shape[200];
            printf("  %6lld: %-8s %-24s %12llu %12llu  ", (long long)i + 1, ti.file_type_name,
                   shape_text(shape, sizeof shape, ti.rank, ti.shape), (unsigned long long)ti.offset,
                   (unsigned long long)ti.bytes);
            text_bytes(stdout, ti.name, strlen(ti.name));
            putchar('\n');
        }
    }
    if (rc == CLI_OK && json)
        printf("]}\n");
    wk_safetensors_close(f);
    return rc;
}

/* ---------------------------------------------------------------- .npy */

/* The header's dict text (after the reader has accepted the file), trailing blanks cut; NULL on failure. */
static char *npy_dict(const char *path, int *major, int *minor)
{
    FILE *f = fopen(path, "rb");
    unsigned char pre[12];
    if (!f || fread(pre, 1, sizeof pre, f) != sizeof pre) {
        if (f)
            fclose(f);
        return NULL;
    }
    *major = pre[6];
    *minor = pre[7];
    size_t n = pre[6] == 1 ? (size_t)pre[8] | (size_t)pre[9] << 8
                           : (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    char *h = malloc(n + 1);
    if (!h || fseek(f, pre[6] == 1 ? 10 : 12, SEEK_SET) != 0 || fread(h, 1, n, f) != n) {
        free(h);
        fclose(f);
        return NULL;
    }
    fclose(f);
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\n' || h[n - 1] == '\r' || h[n - 1] == '\t'))
        n--;
    h[n] = '\0';
    return h;
}

static int info_npy(const char *path, bool json)
{
    wk_device *cpu = NULL;
    wk_tensor *t = NULL;
    if (wk_device_get("cpu", &cpu) != WK_OK)
        return info_failed();
    wk_status s = wk_npy_load(path, cpu, &t); /* a zero-copy view of the mapping: cheap */
    bool has_dtype = s == WK_OK;
    if (s == WK_ERR_DTYPE) /* a type wick lacks: the shape comes from a converted load */
        s = wk_npy_load_as(path, cpu, WK_U8, &t);
    if (s != WK_OK)
        return info_failed();
    int major = 0, minor = 0;
    char *dict = npy_dict(path, &major, &minor);
    /* The reader accepted the dict: "True" can only be fortran_order's value. */
    const char *order = dict && strstr(dict, "True") ? "Fortran" : "C";
    const char *dtype = has_dtype ? wk_dtype_name(wk_tensor_dtype(t)) : NULL;
    if (json) {
        printf("{\"file\":");
        cli_json_string(stdout, path);
        printf(",\"format\":\"npy\",\"version\":\"%d.%d\",\"dtype\":", major, minor);
        if (dtype)
            cli_json_string(stdout, dtype);
        else
            printf("null");
        printf(",\"shape\":");
        shape_json(stdout, wk_tensor_rank(t), wk_tensor_shape(t));
        printf(",\"order\":\"%s\",\"header\":", order);
        json_bytes(stdout, dict ? dict : "", dict ? strlen(dict) : 0);
        printf("}\n");
    } else {
        char shape[200];
        printf("%s: npy version %d.%d\n  dtype:  %s\n  shape:  %s\n  order:  %s\n  header: %s\n", path, major, minor,
               dtype ? dtype : "none in wick (wk_npy_load_as converts it)",
               shape_text(shape, sizeof shape, wk_tensor_rank(t), wk_tensor_shape(t)), order, dict ? dict : "?");
    }
    free(dict);
    wk_tensor_release(t);
    return CLI_OK;
}

int cmd_info_file(const char *path, bool json)
{
    unsigned char magic[6] = {0};
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f)
        fclose(f);
    if (got >= 4 && memcmp(magic, "GGUF", 4) == 0)
        return info_gguf(path, json);
    if (got == 6 && memcmp(magic, "\x93NUMPY", 6) == 0)
        return info_npy(path, json);
    return info_safetensors(path, json); /* also says why a file cannot be opened */
}

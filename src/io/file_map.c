/* file_map.c: a whole file mapped read-only and shared by reference (the open reader and every zero-copy
 * tensor of it), and the names and sizes of file element types. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "io/io.h"

wk_status wk_file_map_open(const char *path, wk_file_map **out)
{
    if (!path || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "file: %s is NULL", !path ? "path" : "out");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return wk_error(WK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        close(fd);
        return wk_error(WK_ERR_IO, "%s: %s", path, S_ISREG(st.st_mode) ? strerror(e) : "not a regular file");
    }
    wk_file_map *m = calloc(1, sizeof *m);
    char *name = strdup(path);
    if (!m || !name) {
        free(m);
        free(name);
        close(fd);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            free(m);
            free(name);
            close(fd);
            return wk_error(e == ENOMEM ? WK_ERR_OUT_OF_MEMORY : WK_ERR_IO, "%s: cannot map %lld bytes: %s", path,
                            (long long)st.st_size, strerror(e));
        }
        m->base = p;
        m->size = (size_t)st.st_size;
    }
    atomic_init(&m->refcount, 1);
    m->fd = fd;
    m->path = name;
    *out = m;
    return WK_OK;
}

void wk_file_map_retain(wk_file_map *m)
{
    if (m)
        atomic_fetch_add(&m->refcount, 1);
}

void wk_file_map_release(wk_file_map *m)
{
    if (m && atomic_fetch_sub(&m->refcount, 1) == 1) {
        if (m->base)
            munmap((void *)m->base, m->size);
        close(m->fd);
        free(m->path);
        free(m);
    }
}

static const struct {
    const char *name;
    size_t size;
} file_types[WK_FILE_TYPE_COUNT] = {
    [WK_FILE_U8] = {"u8", 1},        [WK_FILE_U32] = {"u32", 4},         [WK_FILE_I32] = {"i32", 4},
    [WK_FILE_I64] = {"i64", 8},      [WK_FILE_F16] = {"f16", 2},         [WK_FILE_BF16] = {"bf16", 2},
    [WK_FILE_F32] = {"f32", 4},      [WK_FILE_F64] = {"f64", 8},         [WK_FILE_BOOL] = {"bool", 1},
    [WK_FILE_I8] = {"i8", 1},        [WK_FILE_I16] = {"i16", 2},         [WK_FILE_U16] = {"u16", 2},
    [WK_FILE_U64] = {"u64", 8},      [WK_FILE_F8_E4M3] = {"f8_e4m3", 1}, [WK_FILE_F8_E5M2] = {"f8_e5m2", 1},
    [WK_FILE_QUANTIZED] = {"quantized", 0},
};

const char *wk_file_type_name(wk_file_type t)
{
    return (unsigned)t < WK_FILE_TYPE_COUNT ? file_types[t].name : "invalid";
}

size_t wk_file_type_size(wk_file_type t) { return (unsigned)t < WK_FILE_TYPE_COUNT ? file_types[t].size : 0; }

bool wk_io_numel_bytes(int n, const int64_t *dims, uint64_t elem, uint64_t *bytes)
{
    uint64_t b = elem, widest = 8;
    for (int i = 0; i < n; i++) {
        if (dims[i] < 0 || !wk_mul_u64(widest, dims[i] ? (uint64_t)dims[i] : 1, &widest) ||
            widest > (uint64_t)INT64_MAX || !wk_mul_u64(b, (uint64_t)dims[i], &b))
            return false;
    }
    if (b > (uint64_t)INT64_MAX)
        return false;
    *bytes = b;
    return true;
}

/* write.c: atomic file writes (a temporary file in the target's directory, flushed, fsync'd and renamed over
 * the target) and tensor contents written in row-major order from any device, in bounded host chunks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "core/error.h"
#include "io/io.h"

/* Host chunk for device downloads. */
#define WRITE_CHUNK ((size_t)16 << 20)

wk_status wk_io_write(FILE *f, const char *path, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, f) != n)
        return wk_error(WK_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return WK_OK;
}

static wk_status write_contiguous(FILE *f, const char *path, const wk_tensor *t)
{
    size_t bytes = wk_tensor_nbytes(t);
    wk_device *dev = t->storage->device;
    if (dev->backend == &wk_cpu_backend)
        return wk_io_write(f, path, wk_tensor_data(t), bytes);
    size_t cap = bytes < WRITE_CHUNK ? bytes : WRITE_CHUNK;
    char *buf = malloc(cap ? cap : 1);
    if (!buf)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    wk_status s = WK_OK;
    for (size_t done = 0; done < bytes && s == WK_OK; done += cap) {
        size_t n = bytes - done < cap ? bytes - done : cap;
        s = dev->backend->download(dev, buf, (const char *)wk_tensor_data(t) + done, n);
        if (s == WK_OK)
            s = wk_io_write(f, path, buf, n);
    }
    free(buf);
    return s;
}

wk_status wk_io_write_tensor(FILE *f, const char *path, const wk_tensor *t)
{
    if (wk_tensor_numel(t) == 0)
        return WK_OK;
    if (wk_tensor_is_contiguous(t))
        return write_contiguous(f, path, t);
    wk_tensor *c = NULL; /* a block-quantized view's rows are gathered by wk_to_device (wk_contiguous refuses it) */
    WK_TRY(wk_dtype_is_quantized(t->dtype) ? wk_to_device(t, t->storage->device, &c) : wk_contiguous(t, &c));
    wk_status s = write_contiguous(f, path, c);
    wk_tensor_release(c);
    return s;
}

/* The mode a new file gets: the old file's, or rw-r--r--. */
static mode_t mode_for(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (st.st_mode & 07777) : 0644;
}

wk_status wk_io_write_atomic(const char *path, wk_io_writer fn, void *ctx)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (!tmp)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", path);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".XXXXXX", 8);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        wk_status s = wk_error(WK_ERR_IO, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        free(tmp);
        return s;
    }
    FILE *f = fdopen(fd, "wb");
    wk_status s = f ? fn(ctx, f, path) : wk_error(WK_ERR_IO, "%s: fdopen: %s", path, strerror(errno));
    if (s == WK_OK && (fflush(f) != 0 || fsync(fd) != 0 || fchmod(fd, mode_for(path)) != 0))
        s = wk_error(WK_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    if (f ? fclose(f) != 0 : close(fd) != 0)
        s = s != WK_OK ? s : wk_error(WK_ERR_IO, "%s: close failed: %s", path, strerror(errno));
    if (s == WK_OK && rename(tmp, path) != 0)
        s = wk_error(WK_ERR_IO, "%s: cannot rename %s over it: %s", path, tmp, strerror(errno));
    if (s != WK_OK)
        unlink(tmp);
    free(tmp);
    return s;
}

/* load.c: tensors made from a mapped file's bytes. On the CPU a zero-copy read-only view holding a
 * reference to the mapping (a copy where the bytes are not aligned for the dtype); on a GPU one upload from
 * the mapping. Types of files that wick has no dtype for are widened on the host into an exact carrier dtype,
 * then cast with wk_cast's rules. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "core/error.h"
#include "io/io.h"

static void map_deleter(void *ctx) { wk_file_map_release(ctx); }

/* Bytes the layout spans (0 when empty). */
static uint64_t span_bytes(int rank, const int64_t *shape, const int64_t *strides, uint64_t es)
{
    int64_t last = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 0)
            return 0;
        last += (shape[i] - 1) * (strides ? strides[i] : 0);
    }
    if (!strides) {
        uint64_t b = 0;
        wk_io_numel_bytes(rank, shape, es, &b);
        return b;
    }
    return (uint64_t)(last + 1) * es;
}

/* A copy of the span into fresh host memory, wrapped with the layout. */
static wk_status cpu_copy(wk_file_map *m, const unsigned char *p, uint64_t bytes, wk_dtype dt, int rank,
                          const int64_t *shape, const int64_t *strides, wk_device *dev, wk_tensor **out)
{
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu bytes", m->path,
                        (unsigned long long)bytes);
    memcpy(buf, p, bytes);
    wk_status s = wk_tensor_wrap_foreign(dev, dt, rank, shape, strides, buf, false, free, buf, out);
    if (s != WK_OK)
        free(buf);
    return s;
}

/* Large GPU loads read the file with pread straight into the backend's page-locked staging buffers (on the
 * host threads, in parallel), which measured faster than copying out of the mapping (its page faults and
 * 4 KiB pages); smaller ones upload from the mapping. */
#define WK_IO_FILL_MIN ((uint64_t)8 << 20)

typedef struct file_range {
    int fd;
    uint64_t offset;
} file_range;

static bool fill_pread(void *ctx, void *buf, size_t offset, size_t n)
{
    const file_range *r = ctx;
    char *b = buf;
    while (n > 0) {
        ssize_t got = pread(r->fd, b, n, (off_t)(r->offset + offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        b += got, offset += (size_t)got, n -= (size_t)got;
    }
    return true;
}

static wk_status gpu_upload(wk_file_map *m, uint64_t offset, uint64_t bytes, wk_dtype dt, int rank,
                            const int64_t *shape, const int64_t *strides, wk_device *dev, wk_tensor **out)
{
    wk_tensor *t = NULL;
    int64_t n = (int64_t)(bytes / wk_dtype_size(dt));
    if (!strides)
        WK_TRY(wk_tensor_alloc(dev, dt, rank, shape, &t));
    else
        WK_TRY(wk_tensor_alloc(dev, dt, 1, &n, &t));
    file_range r = {m->fd, offset};
    wk_status s = WK_OK;
    if (bytes >= WK_IO_FILL_MIN && dev->backend->upload_fill)
        s = dev->backend->upload_fill(dev, t->storage->data, bytes, fill_pread, &r);
    else if (bytes)
        s = dev->backend->upload(dev, t->storage->data, m->base + offset, bytes);
    if (s == WK_ERR_IO)
        s = wk_error(WK_ERR_IO, "%s: reading %llu bytes at offset %llu failed (an I/O error, or the file shrank)",
                     m->path, (unsigned long long)bytes, (unsigned long long)offset);
    if (s == WK_OK && strides) {
        wk_tensor *v = NULL;
        s = wk_tensor_view(t, rank, shape, strides, 0, &v);
        wk_tensor_release(t);
        t = v;
    }
    if (s != WK_OK) {
        wk_tensor_release(t);
        return s;
    }
    *out = t;
    return WK_OK;
}

wk_status wk_io_load(wk_file_map *m, uint64_t offset, wk_dtype dt, int rank, const int64_t *shape,
                     const int64_t *strides, wk_device *dev, wk_tensor **out)
{
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: device is NULL", m->path);
    uint64_t es = wk_dtype_size(dt), bytes = span_bytes(rank, shape, strides, es), end = 0;
    if (!wk_add_u64(offset, bytes, &end) || end > m->size)
        return wk_error(WK_ERR_INTERNAL, "%s: bytes [%llu, +%llu) outside the file's %zu", m->path,
                        (unsigned long long)offset, (unsigned long long)bytes, m->size);
    const unsigned char *p = m->base ? m->base + offset : NULL;
    if (dev->backend != &wk_cpu_backend)
        return gpu_upload(m, offset, bytes, dt, rank, shape, strides, dev, out);
    if (!p || (uintptr_t)p % es != 0)
        return cpu_copy(m, p, bytes, dt, rank, shape, strides, dev, out);
    wk_file_map_retain(m);
    wk_status s = wk_tensor_wrap_foreign(dev, dt, rank, shape, strides, (void *)p, true, map_deleter, m, out);
    if (s != WK_OK)
        wk_file_map_release(m);
    return s;
}

wk_status wk_io_type_error(const wk_file_map *m, const char *what, wk_file_type ft)
{
    if (ft == WK_FILE_QUANTIZED)
        return wk_error(WK_ERR_DTYPE, "%s: tensor '%s' is block-quantized: load its raw blocks", m->path, what);
    return wk_error(WK_ERR_DTYPE,
                    "%s: tensor '%s' has type %s, which wick has no dtype for: load it with a _as function to "
                    "convert it",
                    m->path, what, wk_file_type_name(ft));
}

/* f8 e4m3 (the "fn" variant: no infinities, S.1111.111 is NaN; bias 7) to f32, exactly. */
static float f8_e4m3(uint8_t b)
{
    int e = (b >> 3) & 15, f = b & 7;
    float v = e == 15 && f == 7 ? NAN : e == 0 ? ldexpf((float)f, -9) : ldexpf((float)(8 + f), e - 10);
    return b & 0x80 ? -v : v;
}

/* Widens n elements of type ft at p into the carrier dst (i32, i64 or f32). */
static void widen(wk_file_type ft, const unsigned char *p, int64_t n, void *dst)
{
    int32_t *i32 = dst;
    int64_t *i64 = dst;
    float *f32 = dst;
    for (int64_t i = 0; i < n; i++) {
        switch (ft) {
        case WK_FILE_BOOL: i32[i] = p[i] != 0; break;
        case WK_FILE_I8: i32[i] = (int8_t)p[i]; break;
        case WK_FILE_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); i32[i] = v; } break;
        case WK_FILE_U16: { uint16_t v; memcpy(&v, p + 2 * i, 2); i32[i] = v; } break;
        case WK_FILE_U64: { uint64_t v; memcpy(&v, p + 8 * i, 8); i64[i] = (int64_t)v; } break;
        case WK_FILE_F8_E4M3: f32[i] = f8_e4m3(p[i]); break;
        case WK_FILE_F8_E5M2: f32[i] = wk_f16_to_f32((uint16_t)(p[i] << 8)); break;
        default: break;
        }
    }
}

static wk_dtype carrier_of(wk_file_type ft)
{
    return ft == WK_FILE_U64 ? WK_I64 : ft == WK_FILE_F8_E4M3 || ft == WK_FILE_F8_E5M2 ? WK_F32 : WK_I32;
}

/* t converted to want (t itself when it has that dtype); t's reference is passed on. */
static wk_status cast_to(wk_tensor *t, wk_dtype want, wk_tensor **out)
{
    if (t->dtype == want) {
        *out = t;
        return WK_OK;
    }
    wk_status s = wk_cast(t, want, out);
    wk_tensor_release(t);
    return s;
}

wk_status wk_io_load_as(wk_file_map *m, uint64_t offset, wk_file_type ft, int rank, const int64_t *shape,
                        wk_device *dev, wk_dtype want, const char *what, wk_tensor **out)
{
    wk_tensor *t = NULL;
    if (wk_dtype_size(want) == 0)
        return wk_error(WK_ERR_DTYPE, "%s: tensor '%s': invalid dtype %d to load as", m->path, what, (int)want);
    if (wk_file_type_is_dtype(ft)) {
        WK_TRY(wk_io_load(m, offset, (wk_dtype)ft, rank, shape, NULL, dev, &t));
        return cast_to(t, want, out);
    }
    if (ft == WK_FILE_QUANTIZED || wk_file_type_size(ft) == 0)
        return wk_io_type_error(m, what, ft);
    wk_dtype carrier = carrier_of(ft);
    uint64_t bytes = 0;
    if (!wk_io_numel_bytes(rank, shape, wk_dtype_size(carrier), &bytes))
        return wk_error(WK_ERR_INTERNAL, "%s: tensor '%s' is too large to convert", m->path, what);
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory converting tensor '%s'", m->path, what);
    widen(ft, m->base ? m->base + offset : NULL, wk_numel(rank, shape), buf);
    wk_status s = wk_tensor_from_host(dev, carrier, rank, shape, buf, &t);
    free(buf);
    WK_TRY(s);
    return cast_to(t, want, out);
}

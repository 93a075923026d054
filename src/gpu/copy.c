/* copy.c: the GPU's data-movement slots: fill of a view, copy of a view into a view, copy2d. A copy merges the
 * dims of both views, then picks memcpy, splat, tiled transpose, rows or strided kernels (kernels/copy.cu). */
#include <string.h>

#include "gpu/gpu.h"

#define COPY_THREADS 256
/* A transpose tile is 32*P elements on a side: narrower views are cheaper element by element. */
#define COPY_TRANSPOSE_MIN 16
/* Rows at least this long go to the row kernel (one start offset per chunk, contiguous runs vectorised). */
#define COPY_ROWS_MIN 512
#define COPY_ROW_CHUNK_BYTES 16384

/* A copy's dims after dropping size-1 dims, sorting by dst stride (largest outer, so dst is walked in memory
 * order) and merging dims that are one run in both; strides in elements. */
typedef struct copy_dims {
    int rank;
    int64_t shape[WK_GPU_MAX_RANK], ds[WK_GPU_MAX_RANK], ss[WK_GPU_MAX_RANK];
} copy_dims;

static void copy_dims_make(int rank, const int64_t *shape, const int64_t *ds, const int64_t *ss, copy_dims *m)
{
    int order[WK_GPU_MAX_RANK], k = 0;
    for (int d = 0; d < rank; d++)
        if (shape[d] != 1)
            order[k++] = d;
    for (int i = 1; i < k; i++) { /* stable insertion sort, dst stride descending */
        int v = order[i], j = i;
        for (; j > 0 && ds[order[j - 1]] < ds[v]; j--)
            order[j] = order[j - 1];
        order[j] = v;
    }
    m->rank = 0;
    for (int i = 0; i < k; i++) {
        int d = order[i], p = m->rank - 1;
        if (p >= 0 && m->ds[p] == ds[d] * shape[d] && m->ss[p] == ss[d] * shape[d]) {
            m->shape[p] *= shape[d];
            m->ds[p] = ds[d];
            m->ss[p] = ss[d];
            continue;
        }
        m->shape[m->rank] = shape[d];
        m->ds[m->rank] = ds[d];
        m->ss[m->rank] = ss[d];
        m->rank++;
    }
}

/* A kernel layout for dims already merged; the copy kernels never read its contiguous flag. */
static wk_gpu_layout copy_layout(int rank, const int64_t *shape, const int64_t *strides)
{
    wk_gpu_layout l;
    memset(&l, 0, sizeof l);
    l.rank = rank;
    for (int d = 0; d < rank; d++) {
        l.shape[d] = shape[d];
        l.stride[d] = strides[d];
    }
    return l;
}

static wk_gpu_dim copy_dim(unsigned x, unsigned y) { return (wk_gpu_dim){x, y, 1}; }

/* Slot of an element size of 1, 2, 4, 8 (SIZES) or 16 bytes (COPY_WIDE). */
static int copy_size_slot(int64_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 4; }

/* The tiled transpose over dims a (unit stride in src) and b (unit stride in dst), the others batched. Elements
 * move packed in 4- or 8-byte words where every start and stride keeps the words aligned. */
static wk_status copy_transpose(wk_gpu_dev *d, int64_t es, char *dst, const char *src, const copy_dims *m, int a,
                                int b)
{
    int64_t na = m->shape[a], nb = m->shape[b], dst_a = m->ds[a], src_b = m->ss[b];
    int64_t word = COPY_PACKED_WORD(es), p = word / es;
    int64_t shape[WK_GPU_MAX_RANK], ds[WK_GPU_MAX_RANK], ss[WK_GPU_MAX_RANK];
    bool packed = (uintptr_t)dst % (uintptr_t)word == 0 && (uintptr_t)src % (uintptr_t)word == 0 && dst_a % p == 0 &&
                  src_b % p == 0;
    int nbat = 0;
    for (int i = 0; i < m->rank; i++) {
        if (i == a || i == b)
            continue;
        shape[nbat] = m->shape[i];
        ds[nbat] = m->ds[i];
        ss[nbat] = m->ss[i];
        packed = packed && ds[nbat] % p == 0 && ss[nbat] % p == 0;
        nbat++;
    }
    if (!packed)
        p = 1;
    int64_t t = COPY_TILE_W * p, tiles_a = (na + t - 1) / t, tiles_b = (nb + t - 1) / t;
    wk_gpu_copy_args q = {
        .dst = dst, .src = src, .dl = copy_layout(nbat, shape, ds), .sl = copy_layout(nbat, shape, ss),
        .na = na, .nb = nb, .dst_a = dst_a, .src_b = src_b, .tiles_a = tiles_a, .tiles_b = tiles_b,
        .ntiles = wk_numel(nbat, shape) * tiles_a * tiles_b,
    };
    /* slots 0..3 packed, 4..6 one element per word (8-byte elements are both: slot 3) */
    int slot = copy_size_slot(es) + (packed || es == 8 ? 0 : 4);
    unsigned threads = COPY_TILE_W * COPY_TILE_R;
    return WK_GPU_LAUNCH(d, copy_transpose, slot, 0, 0, copy_dim(wk_gpu_blocks(d, q.ntiles * threads, threads), 1),
                         copy_dim(COPY_TILE_W, COPY_TILE_R), 0, q);
}

/* Rows of the last merged dim, in chunks; outer dims through two layouts of one shape. */
static wk_status copy_rows(wk_gpu_dev *d, int64_t es, char *dst, const char *src, const copy_dims *m)
{
    int last = m->rank - 1;
    int64_t cols = m->shape[last], ds = m->ds[last], ss = m->ss[last];
    int64_t rows = wk_numel(last, m->shape), chunk = COPY_ROW_CHUNK_BYTES / es;
    int64_t len = cols < chunk ? cols : chunk;
    /* per thread: a vector access or 1 element */
    int64_t units = ds == 1 && (ss == 1 || ss == 0) ? len * es / COPY_VEC_BYTES : len;
    unsigned threads = units >= 256 ? 256 : 128;
    int64_t items = rows * ((cols + chunk - 1) / chunk);
    wk_gpu_copy_args q = {
        .dst = dst, .src = src, .dl = copy_layout(last, m->shape, m->ds), .sl = copy_layout(last, m->shape, m->ss),
        .rows = rows, .cols = cols, .ds = ds, .ss = ss, .chunk = chunk,
    };
    return WK_GPU_LAUNCH(d, copy_rows, copy_size_slot(es), 0, 0,
                         copy_dim(wk_gpu_blocks(d, items * threads, threads), 1), copy_dim(threads, 1), 0, q);
}

/* Rows contiguous in both views move as the widest word (up to COPY_VEC_BYTES) dividing their length, every other
 * stride and both starts: the dims are rescaled to that element size, which is returned. */
static int64_t copy_widen(copy_dims *m, int64_t es, const char *dst, const char *src)
{
    int last = m->rank - 1;
    int64_t w = COPY_VEC_BYTES;
    for (; w > es; w /= 2) {
        bool ok = (uintptr_t)dst % (uintptr_t)w == 0 && (uintptr_t)src % (uintptr_t)w == 0 &&
                  m->shape[last] * es % w == 0;
        for (int i = 0; i < last && ok; i++)
            ok = m->ds[i] * es % w == 0 && m->ss[i] * es % w == 0;
        if (ok)
            break;
    }
    int64_t f = w / es;
    m->shape[last] /= f;
    for (int i = 0; i < last; i++) {
        m->ds[i] /= f;
        m->ss[i] /= f;
    }
    return w;
}

/* dst view = src view (same shape, src may be broadcast), both as byte addresses of element 0. */
static wk_status copy_run(wk_gpu_dev *d, int64_t es, char *dst, const char *src, int rank, const int64_t *shape,
                          const int64_t *dst_strides, const int64_t *src_strides)
{
    int64_t n = wk_numel(rank, shape);
    copy_dims m;
    copy_dims_make(rank, shape, dst_strides, src_strides, &m);
    if (m.rank == 0)
        return wk_gpu_copy_d2d(d, dst, src, (size_t)es);
    int last = m.rank - 1;
    if (m.rank == 1 && m.ds[0] == 1 && m.ss[0] == 1)
        return wk_gpu_copy_d2d(d, dst, src, (size_t)(n * es));
    if (m.rank == 1 && m.ds[0] == 1 && m.ss[0] == 0) {
        wk_gpu_copy_args q = {.dst = dst, .src = src, .n = n};
        return WK_GPU_LAUNCH(d, copy_splat, copy_size_slot(es), 0, 0,
                             copy_dim(wk_gpu_blocks(d, n / (COPY_VEC_BYTES / es) + 1, COPY_THREADS), 1),
                             copy_dim(COPY_THREADS, 1), 0, q);
    }
    /* dst unit-stride along its last dim, src along another: read src rows and write dst rows through tiles */
    if (m.ds[last] == 1 && m.ss[last] > 1 && m.shape[last] >= COPY_TRANSPOSE_MIN) {
        int a = -1;
        for (int i = 0; i < last; i++)
            if (m.ss[i] == 1 && m.shape[i] >= COPY_TRANSPOSE_MIN)
                a = i;
        if (a >= 0)
            return copy_transpose(d, es, dst, src, &m, a, last);
    }
    if (m.ds[last] == 1 && m.ss[last] == 1) {
        es = copy_widen(&m, es, dst, src);
        n = wk_numel(m.rank, m.shape);
    }
    if (m.shape[last] >= COPY_ROWS_MIN)
        return copy_rows(d, es, dst, src, &m);
    wk_gpu_copy_args q = {
        .dst = dst, .src = src, .dl = copy_layout(m.rank, m.shape, m.ds), .sl = copy_layout(m.rank, m.shape, m.ss),
        .n = n,
    };
    return WK_GPU_LAUNCH(d, copy_strided, copy_size_slot(es), 0, 0, copy_dim(wk_gpu_blocks(d, n, COPY_THREADS), 1),
                         copy_dim(COPY_THREADS, 1), 0, q);
}

wk_status wk_gpu_fill(wk_tensor *dst, wk_scalar v)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    int64_t es = (int64_t)wk_dtype_size(dst->dtype);
    uint64_t bits = es == 1 ? v.u8 : es == 2 ? v.h : es == 4 ? v.u32 : (uint64_t)v.i64;
    wk_gpu_copy_args q = {.dst = wk_tensor_data(dst), .dl = wk_gpu_layout_of(dst), .n = n, .bits = bits};
    if (q.dl.contiguous && bits == 0)
        return wk_gpu_memset(d, q.dst, 0, (size_t)(n * es));
    int64_t items = q.dl.contiguous ? n / (COPY_VEC_BYTES / es) + 1 : n;
    return WK_GPU_LAUNCH(d, copy_fill, copy_size_slot(es), 0, 0, copy_dim(wk_gpu_blocks(d, items, COPY_THREADS), 1),
                         copy_dim(COPY_THREADS, 1), 0, q);
}

wk_status wk_gpu_copy(const wk_tensor *src, wk_tensor *dst)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    return copy_run(d, (int64_t)wk_dtype_size(dst->dtype), wk_tensor_data(dst), wk_tensor_data(src), dst->rank,
                    dst->shape, dst->strides, src->strides);
}

wk_status wk_gpu_copy2d(const wk_tensor *src, wk_tensor *dst, int64_t rows, int64_t cols, int64_t src_ld,
                        int64_t dst_ld, int64_t src_offset, int64_t dst_offset)
{
    if (rows <= 0 || cols <= 0)
        return WK_OK;
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t es = (int64_t)wk_dtype_size(dst->dtype);
    char *pd = (char *)dst->storage->data + dst_offset * es;
    const char *ps = (const char *)src->storage->data + src_offset * es;
    int64_t shape[2] = {rows, cols}, ds[2] = {dst_ld, 1}, ss[2] = {src_ld, 1};
    return copy_run(d, es, pd, ps, 2, shape, ds, ss);
}

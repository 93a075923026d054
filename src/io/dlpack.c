/* dlpack.c: DLPack 1.x exchange. Export: a DLManagedTensorVersioned (or legacy DLManagedTensor) holding a
 * reference to the wick tensor, its shape and strides in the same allocation. Import: a wick tensor over the
 * producer's memory (wk_tensor_wrap_foreign) whose release calls the producer's deleter once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core/error.h"
#include "wick_dlpack.h"

/* One export: both struct forms (one is used), the tensor it keeps alive, shape and strides. */
typedef struct dl_export {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
    wk_tensor *t;
    int64_t shape[WK_MAX_RANK];
    int64_t strides[WK_MAX_RANK];
} dl_export;

static const struct {
    uint8_t code, bits;
} dl_types[WK_DTYPE_COUNT] = {
    [WK_U8] = {kDLUInt, 8},   [WK_U32] = {kDLUInt, 32},  [WK_I32] = {kDLInt, 32},   [WK_I64] = {kDLInt, 64},
    [WK_F16] = {kDLFloat, 16}, [WK_BF16] = {kDLBfloat, 16}, [WK_F32] = {kDLFloat, 32}, [WK_F64] = {kDLFloat, 64},
};

static void export_free(dl_export *e)
{
    wk_tensor_release(e->t);
    free(e);
}
static void deleter_versioned(DLManagedTensorVersioned *m) { export_free(m->manager_ctx); }
static void deleter_legacy(DLManagedTensor *m) { export_free(m->manager_ctx); }

static wk_status fill_device(const wk_device *dev, DLDevice *out)
{
    const char *be = dev->backend->name;
    if (strcmp(be, "cpu") == 0)
        *out = (DLDevice){kDLCPU, 0};
    else if (strcmp(be, "cuda") == 0)
        *out = (DLDevice){kDLCUDA, dev->ordinal};
    else if (strcmp(be, "rocm") == 0)
        *out = (DLDevice){kDLROCM, dev->ordinal};
    else
        return wk_error(WK_ERR_DEVICE, "to_dlpack: device %s has no DLPack device type", dev->name);
    return WK_OK;
}

/* A filled export of t, ordered before consumer_stream's later work. */
static wk_status export_make(const char *op, const wk_tensor *t, int64_t consumer_stream, dl_export **out)
{
    if (!t || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, !t ? "tensor" : "out");
    if (wk_dtype_is_quantized(t->dtype))
        return wk_error(WK_ERR_DTYPE, "%s: DLPack has no type for the block-quantized dtype %s: dequantize the tensor "
                        "first (wk_dequantize)", op, wk_dtype_name(t->dtype));
    wk_device *dev = t->storage->device;
    DLTensor dl = {0};
    WK_TRY(fill_device(dev, &dl.device));
    if (consumer_stream != -1 && dev->backend->order_stream)
        WK_TRY(dev->backend->order_stream(dev, consumer_stream));
    dl_export *e = calloc(1, sizeof *e);
    if (!e)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    memcpy(e->shape, t->shape, sizeof e->shape);
    memcpy(e->strides, t->strides, sizeof e->strides);
    dl.data = wk_tensor_data(t);
    dl.ndim = t->rank;
    dl.dtype = (DLDataType){dl_types[t->dtype].code, dl_types[t->dtype].bits, 1};
    dl.shape = e->shape;
    dl.strides = e->strides;
    e->v.dl_tensor = dl;
    e->l.dl_tensor = dl;
    e->t = (wk_tensor *)t;
    wk_tensor_retain(e->t);
    *out = e;
    return WK_OK;
}

wk_status wk_to_dlpack(const wk_tensor *t, int64_t consumer_stream, struct DLManagedTensorVersioned **out)
{
    dl_export *e = NULL;
    WK_TRY(export_make("to_dlpack", t, consumer_stream, &e));
    e->v.version = (DLPackVersion){DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    e->v.manager_ctx = e;
    e->v.deleter = deleter_versioned;
    e->v.flags = t->storage->read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    *out = &e->v;
    return WK_OK;
}

wk_status wk_to_dlpack_legacy(const wk_tensor *t, int64_t consumer_stream, struct DLManagedTensor **out)
{
    dl_export *e = NULL;
    if (t && t->storage->read_only)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "to_dlpack_legacy: the tensor is read-only and the legacy struct "
                        "has no flag to say so: export it with wk_to_dlpack, or a wk_contiguous copy");
    WK_TRY(export_make("to_dlpack_legacy", t, consumer_stream, &e));
    e->l.manager_ctx = e;
    e->l.deleter = deleter_legacy;
    *out = &e->l;
    return WK_OK;
}

/* ---------------------------------------------------------------- import */
/* What the imported tensor's release hands back: the producer's struct (one of the two). */
typedef struct dl_owner {
    DLManagedTensorVersioned *v;
    DLManagedTensor *l;
} dl_owner;

static void owner_delete(void *ctx)
{
    dl_owner *o = ctx;
    if (o->v && o->v->deleter)
        o->v->deleter(o->v);
    else if (o->l && o->l->deleter)
        o->l->deleter(o->l);
    free(o);
}

static wk_status dtype_of(const char *op, DLDataType t, wk_dtype *out)
{
    if (t.lanes != 1)
        return wk_error(WK_ERR_DTYPE, "%s: vector types (lanes %u) have no wick dtype", op, (unsigned)t.lanes);
    if (t.code == kDLBool && t.bits == 8) {
        *out = WK_U8; /* the same bytes, 0 or 1 */
        return WK_OK;
    }
    for (int d = 0; d < WK_DTYPE_COUNT; d++)
        if (dl_types[d].code == t.code && dl_types[d].bits == t.bits) {
            *out = (wk_dtype)d;
            return WK_OK;
        }
    static const char *const codes[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
    return wk_error(WK_ERR_DTYPE, "%s: DLPack type %s%u (code %u) has no wick dtype", op,
                    t.code < 7 ? codes[t.code] : "code ", (unsigned)t.bits, (unsigned)t.code);
}

static wk_status device_of(const char *op, DLDevice d, wk_device **out)
{
    char name[32];
    switch ((int)d.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
    case kDLROCMHost: snprintf(name, sizeof name, "cpu"); break;
    case kDLCUDA:
    case kDLCUDAManaged: snprintf(name, sizeof name, "cuda:%d", (int)d.device_id); break;
    case kDLROCM: snprintf(name, sizeof name, "rocm:%d", (int)d.device_id); break;
    default:
        return wk_error(WK_ERR_DEVICE, "%s: DLPack device type %d is not one wick drives (CPU, CUDA, ROCm)", op,
                        (int)d.device_type);
    }
    if (wk_device_get(name, out) != WK_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", wk_last_error());
        return wk_error(WK_ERR_DEVICE, "%s: the tensor lives on %s, which this process cannot use: %s", op, name,
                        why);
    }
    return WK_OK;
}

/* A contiguous copy of a layout with negative strides: the view of the same elements with every negative
 * dim's stride turned positive (its first element the lowest address), flipped back with index_select. */
static wk_status copy_flipped(const char *op, wk_device *dev, wk_dtype dt, int rank, const int64_t *shape,
                              const int64_t *strides, char *ptr, wk_tensor **out)
{
    int64_t st[WK_MAX_RANK], es = (int64_t)wk_dtype_size(dt), back = 0; /* elements below ptr */
    bool empty = false;
    for (int i = 0; i < rank; i++)
        empty |= shape[i] == 0;
    for (int i = 0; i < rank; i++) { /* overflow-checked before the negation and the sum */
        if (strides[i] < 0 && shape[i] > 1 && strides[i] < -((INT64_MAX / es - back) / (shape[i] - 1)))
            return wk_error(WK_ERR_SHAPE, "%s: dim %d of size %lld with stride %lld spans more than 2^63 bytes", op,
                            i, (long long)shape[i], (long long)strides[i]);
        st[i] = strides[i] < 0 ? -strides[i] : strides[i];
        if (strides[i] < 0 && shape[i] > 1)
            back += (shape[i] - 1) * st[i];
    }
    char *low = empty || !ptr ? ptr : ptr - back * es; /* nothing addressed: no lowest element */
    wk_tensor *t = NULL;
    WK_TRY(wk_tensor_wrap_foreign(dev, dt, rank, shape, st, low, true, NULL, NULL, &t));
    wk_status s = WK_OK;
    for (int i = 0; i < rank && s == WK_OK; i++) {
        if (empty || strides[i] >= 0 || shape[i] < 2) /* an empty tensor has nothing to flip */
            continue;
        wk_tensor *ids = NULL, *f = NULL;
        s = wk_arange(dev, WK_I64, (double)(shape[i] - 1), -1.0, -1.0, &ids);
        if (s == WK_OK)
            s = wk_index_select(t, i, ids, &f);
        wk_tensor_release(ids);
        if (s == WK_OK) {
            wk_tensor_release(t);
            t = f;
        }
    }
    wk_tensor *c = NULL;
    if (s == WK_OK)
        s = wk_contiguous(t, &c);
    wk_tensor_release(t);
    if (s == WK_OK)
        s = wk_device_sync(dev); /* the producer's memory is handed back next */
    if (s != WK_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", wk_last_error());
        wk_tensor_release(c);
        return wk_error(s, "%s: copying a tensor with negative strides: %s", op, why);
    }
    *out = c;
    return WK_OK;
}

static wk_status import(const char *op, const DLTensor *dl, bool read_only, unsigned flags, dl_owner *o,
                        wk_tensor **out)
{
    wk_dtype dt = WK_U8;
    wk_device *dev = NULL;
    if (dl->ndim < 0 || dl->ndim > WK_MAX_RANK || (dl->ndim > 0 && !dl->shape))
        return wk_error(WK_ERR_SHAPE, "%s: ndim %d outside 0..%d (or no shape)", op, (int)dl->ndim, WK_MAX_RANK);
    WK_TRY(dtype_of(op, dl->dtype, &dt));
    WK_TRY(device_of(op, dl->device, &dev));
    uint64_t es = wk_dtype_size(dt);
    if (dl->byte_offset % es)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: byte_offset %llu is not a multiple of the element size %llu",
                        op, (unsigned long long)dl->byte_offset, (unsigned long long)es);
    char *ptr = dl->data ? (char *)dl->data + dl->byte_offset : NULL; /* NULL + offset is undefined in C */
    bool negative = false;
    int64_t st[WK_MAX_RANK]; /* a dim of size 0 or 1 addresses nothing through its stride: any sign is fine */
    for (int i = 0; dl->strides && i < dl->ndim; i++) {
        st[i] = dl->shape[i] > 1 ? dl->strides[i] : 0;
        negative |= st[i] < 0;
    }
    if (!negative)
        return wk_tensor_wrap_foreign(dev, dt, dl->ndim, dl->shape, dl->strides ? st : NULL, ptr, read_only,
                                      owner_delete, o, out);
    if (!(flags & WK_DLPACK_ALLOW_COPY))
        return wk_error(WK_ERR_INVALID_ARGUMENT,
                        "%s: the tensor has negative strides, which wick's views cannot hold: pass "
                        "WK_DLPACK_ALLOW_COPY to import a copy", op);
    WK_TRY(copy_flipped(op, dev, dt, dl->ndim, dl->shape, st, ptr, out)); /* st: 0 for dims of size 0, 1 */
    owner_delete(o); /* the copy is wick's own: the producer's memory goes back at once */
    return WK_OK;
}

/* Runs import with an owner record; on failure the caller still owns the producer's struct. */
static wk_status import_owned(const char *op, const DLTensor *dl, bool read_only, unsigned flags,
                              DLManagedTensorVersioned *v, DLManagedTensor *l, wk_tensor **out)
{
    dl_owner *o = malloc(sizeof *o);
    if (!o)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    *o = (dl_owner){v, l};
    wk_tensor *t = NULL;
    wk_status s = import(op, dl, read_only, flags, o, &t);
    if (s != WK_OK) {
        free(o);
        return s;
    }
    *out = t;
    return WK_OK;
}

wk_status wk_from_dlpack(struct DLManagedTensorVersioned *m, unsigned flags, wk_tensor **out)
{
    static const char op[] = "from_dlpack";
    if (!m || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, !m ? "tensor" : "out");
    if (m->version.major != DLPACK_MAJOR_VERSION)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: DLPack version %u.%u; wick reads major version %d", op,
                        (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
    if (flags & ~WK_DLPACK_ALLOW_COPY)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op, flags);
    return import_owned(op, &m->dl_tensor, (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0, flags, m, NULL, out);
}

wk_status wk_from_dlpack_legacy(struct DLManagedTensor *m, unsigned flags, wk_tensor **out)
{
    static const char op[] = "from_dlpack_legacy";
    if (!m || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, !m ? "tensor" : "out");
    if (flags & ~WK_DLPACK_ALLOW_COPY)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op, flags);
    return import_owned(op, &m->dl_tensor, false, flags, NULL, m, out);
}

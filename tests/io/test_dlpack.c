/* test_dlpack.c: DLPack export and import on the CPU, and wk_tensor_wrap: memory shared both ways, the
 * producer's deleter run exactly once (after the last view), the refusals (types, devices, versions, offsets,
 * negative strides) leaving the caller's struct untouched, read-only imports, and copies of negative strides. */
#include <string.h>

#include "check.h"
#include "wick_dlpack.h"

static int deleted; /* producer deleter calls */

/* A producer's tensor: n floats it owns, described by a DLManagedTensorVersioned. */
typedef struct producer {
    DLManagedTensorVersioned m;
    DLManagedTensor l;
    float data[64];
    int64_t shape[2], strides[2];
} producer;

static void del_v(DLManagedTensorVersioned *m) { (void)m, deleted++; }
static void del_l(DLManagedTensor *m) { (void)m, deleted++; }

static void producer_init(producer *p, int64_t rows, int64_t cols)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 64; i++)
        p->data[i] = (float)i;
    p->shape[0] = rows, p->shape[1] = cols;
    p->strides[0] = cols, p->strides[1] = 1;
    DLTensor dl = {p->data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, p->shape, p->strides, 0};
    p->m = (DLManagedTensorVersioned){{1, 1}, p, del_v, 0, dl};
    p->l = (DLManagedTensor){dl, p, del_l};
}

static float at(const wk_tensor *t, int64_t i)
{
    float buf[64] = {0};
    wk_tensor_to_host(t, buf, sizeof buf);
    return buf[i];
}

static void test_import_shares(void)
{
    producer p;
    producer_init(&p, 4, 8);
    wk_tensor *t = NULL, *v = NULL;
    deleted = 0;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_OK, "import");
    CHECK(wk_tensor_rank(t) == 2 && wk_tensor_shape(t)[0] == 4 && wk_tensor_shape(t)[1] == 8, "shape");
    p.data[9] = -5.0f;
    CHECK(at(t, 9) == -5.0f, "wick sees the producer's write");
    CHECK(wk_fill(t, 2.0) == WK_OK && p.data[0] == 2.0f && p.data[31] == 2.0f, "the producer sees wick's write");
    CHECK(!wk_tensor_is_read_only(t), "writable import");
    CHECK(wk_transpose(t, 0, 1, &v) == WK_OK, "a view");
    wk_tensor_release(t);
    CHECK(deleted == 0, "deleter waits for the view");
    wk_tensor_release(v);
    CHECK(deleted == 1, "deleter ran once after the last view: %d", deleted);
}

static void test_import_refusals(void)
{
    producer p;
    wk_tensor *t = NULL;
    deleted = 0;
    producer_init(&p, 4, 8);
    p.m.dl_tensor.dtype = (DLDataType){kDLComplex, 64, 1};
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_DTYPE && t == NULL, "complex refused");
    CHECK(strstr(wk_last_error(), "complex") != NULL, "message names the type: %s", wk_last_error());
    producer_init(&p, 4, 8);
    p.m.dl_tensor.dtype = (DLDataType){kDLFloat, 32, 4};
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_DTYPE, "lanes 4 refused");
    producer_init(&p, 4, 8);
    p.m.dl_tensor.dtype = (DLDataType){kDLInt, 16, 1};
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_DTYPE, "int16 refused");
    producer_init(&p, 4, 8);
    p.m.dl_tensor.device = (DLDevice){kDLVulkan, 0};
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_DEVICE, "vulkan refused");
    producer_init(&p, 4, 8);
    p.m.dl_tensor.device = (DLDevice){kDLCUDA, 99};
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_DEVICE && strstr(wk_last_error(), "cuda:99"), "cuda:99 refused");
    producer_init(&p, 4, 8);
    p.m.version.major = 2;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_UNSUPPORTED, "version 2 refused");
    producer_init(&p, 4, 8);
    p.m.dl_tensor.byte_offset = 2;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_INVALID_ARGUMENT, "misaligned byte_offset refused");
    producer_init(&p, 4, 8);
    p.m.dl_tensor.ndim = 9;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_SHAPE, "ndim 9 refused");
    producer_init(&p, 4, 8);
    CHECK(wk_from_dlpack(&p.m, 4, &t) == WK_ERR_INVALID_ARGUMENT, "unknown flag refused");
    CHECK(wk_from_dlpack(NULL, 0, &t) == WK_ERR_INVALID_ARGUMENT, "NULL refused");
    CHECK(deleted == 0 && t == NULL, "no refusal ran the deleter or wrote out");
}

static void test_import_variants(void)
{
    producer p;
    wk_tensor *t = NULL;
    deleted = 0;
    producer_init(&p, 4, 8); /* offset view: rows 1.. of the 4x8, every second column */
    p.shape[0] = 3, p.shape[1] = 4, p.strides[1] = 2;
    p.m.dl_tensor.byte_offset = 8 * sizeof(float);
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_OK, "strided import");
    CHECK(t && at(t, 0) == 8.0f && at(t, 1) == 10.0f && at(t, 4) == 16.0f, "strided values");
    wk_tensor_release(t);
    producer_init(&p, 4, 8);
    p.m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_OK && wk_tensor_is_read_only(t), "read-only import");
    CHECK(wk_fill(t, 1.0) == WK_ERR_INVALID_ARGUMENT && p.data[3] == 3.0f, "fill on read-only refused");
    DLManagedTensorVersioned *rv = NULL;
    DLManagedTensor *rl = NULL;
    CHECK(wk_to_dlpack(t, -1, &rv) == WK_OK && rv->flags == DLPACK_FLAG_BITMASK_READ_ONLY, "re-export read-only");
    if (rv)
        rv->deleter(rv);
    CHECK(wk_to_dlpack_legacy(t, -1, &rl) == WK_ERR_INVALID_ARGUMENT && rl == NULL, "no legacy read-only export");
    wk_tensor_release(t);
    producer_init(&p, 4, 8);
    p.m.dl_tensor.strides = NULL;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_OK && wk_tensor_strides(t)[0] == 8, "NULL strides: row-major");
    wk_tensor_release(t);
    producer_init(&p, 4, 8);
    p.m.dl_tensor.dtype = (DLDataType){kDLBool, 8, 1};
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_OK && wk_tensor_dtype(t) == WK_U8, "bool imports as u8");
    wk_tensor_release(t);
    producer_init(&p, 4, 8);
    CHECK(wk_from_dlpack_legacy(&p.l, 0, &t) == WK_OK && at(t, 5) == 5.0f, "legacy import");
    wk_tensor_release(t);
    CHECK(deleted == 5, "each import's deleter ran once: %d", deleted);
}

static void test_negative_strides(void)
{
    producer p;
    wk_tensor *t = NULL;
    deleted = 0;
    producer_init(&p, 4, 8); /* rows reversed, columns reversed */
    p.strides[0] = -8, p.strides[1] = -1;
    p.m.dl_tensor.data = p.data + 31;
    CHECK(wk_from_dlpack(&p.m, 0, &t) == WK_ERR_INVALID_ARGUMENT && deleted == 0, "negative strides refused");
    CHECK(wk_from_dlpack(&p.m, WK_DLPACK_ALLOW_COPY, &t) == WK_OK, "negative strides copied");
    CHECK(deleted == 1, "the copy handed the producer's memory back at once");
    CHECK(t && at(t, 0) == 31.0f && at(t, 1) == 30.0f && at(t, 8) == 23.0f && at(t, 31) == 0.0f, "copied values");
    CHECK(t && !wk_tensor_is_read_only(t) && wk_tensor_is_contiguous(t), "the copy is wick's own");
    wk_tensor_release(t);
}

static void test_export(void)
{
    float host[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3};
    wk_device *cpu = NULL;
    wk_tensor *t = NULL, *tr = NULL, *back = NULL;
    DLManagedTensorVersioned *m = NULL;
    DLManagedTensor *l = NULL;
    wk_device_get("cpu", &cpu);
    CHECK(wk_tensor_from_host(cpu, WK_F32, 2, shape, host, &t) == WK_OK, "from_host");
    wk_transpose(t, 0, 1, &tr);
    CHECK(wk_to_dlpack(tr, -1, &m) == WK_OK, "export");
    CHECK(m->version.major == 1 && m->flags == 0 && m->dl_tensor.ndim == 2, "header");
    CHECK(m->dl_tensor.shape[0] == 3 && m->dl_tensor.strides[0] == 1 && m->dl_tensor.strides[1] == 3, "strides");
    CHECK(m->dl_tensor.dtype.code == kDLFloat && m->dl_tensor.dtype.bits == 32 && m->dl_tensor.dtype.lanes == 1,
          "dtype");
    CHECK(m->dl_tensor.device.device_type == kDLCPU && ((float *)m->dl_tensor.data)[4] == 5.0f, "device, data");
    wk_tensor_release(tr);
    wk_tensor_release(t); /* the export keeps the memory alive */
    CHECK(wk_from_dlpack(m, 0, &back) == WK_OK, "round trip");
    CHECK(at(back, 1) == 4.0f, "round trip values (transposed)");
    wk_tensor_release(back); /* runs the export's deleter */
    CHECK(wk_tensor_from_host(cpu, WK_F32, 2, shape, host, &t) == WK_OK, "from_host");
    CHECK(wk_to_dlpack_legacy(t, 7, &l) == WK_OK && l->dl_tensor.strides[0] == 3, "legacy export");
    l->deleter(l);
    wk_tensor_release(t);
    CHECK(wk_to_dlpack(NULL, -1, &m) == WK_ERR_INVALID_ARGUMENT, "NULL tensor refused");
    uintptr_t stream = 1;
    CHECK(wk_device_native_stream(cpu, &stream) == WK_OK && stream == 0, "the CPU has no stream");
}

static void count_deleter(void *ctx) { ++*(int *)ctx; }

static void test_wrap(void)
{
    double buf[12];
    int calls = 0;
    int64_t shape[2] = {3, 4}, strides[2] = {1, 3};
    wk_device *cpu = NULL;
    wk_tensor *t = NULL, *c = NULL;
    wk_device_get("cpu", &cpu);
    for (int i = 0; i < 12; i++)
        buf[i] = i;
    CHECK(wk_tensor_wrap(cpu, WK_F64, 2, shape, strides, buf, count_deleter, &calls, &t) == WK_OK, "wrap");
    CHECK(wk_contiguous(t, &c) == WK_OK, "contiguous of a wrapped column-major view");
    double out[12];
    wk_tensor_to_host(c, out, sizeof out);
    CHECK(out[1] == 3.0 && out[4] == 1.0, "column-major values");
    CHECK(wk_fill(t, 7.0) == WK_OK && buf[11] == 7.0, "writes reach the caller's memory");
    wk_tensor_release(c);
    wk_tensor_release(t);
    CHECK(calls == 1, "deleter once: %d", calls);
    int64_t neg[2] = {4, -1};
    t = NULL;
    CHECK(wk_tensor_wrap(cpu, WK_F64, 2, shape, neg, buf, count_deleter, &calls, &t) == WK_ERR_INVALID_ARGUMENT &&
              t == NULL && calls == 1, "negative stride refused, deleter not called");
    CHECK(wk_tensor_wrap(cpu, WK_F64, 2, shape, NULL, NULL, NULL, NULL, &t) == WK_ERR_INVALID_ARGUMENT, "NULL ptr");
    int64_t huge[2] = {INT64_MAX / 2, 4}, hs[2] = {8, 1};
    CHECK(wk_tensor_wrap(cpu, WK_F64, 2, huge, hs, buf, NULL, NULL, &t) == WK_ERR_SHAPE, "span overflow refused");
}

int main(void)
{
    test_import_shares();
    test_import_refusals();
    test_import_variants();
    test_negative_strides();
    test_export();
    test_wrap();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}

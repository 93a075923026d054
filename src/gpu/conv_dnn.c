/* conv_dnn.c: what the DNN libraries' convolution paths (conv_cudnn.c, conv_miopen.c) share: a call's geometry and
 * the limits both libraries have, packed copies, running a plan's candidates, and the per-shape plan cache. */
#include <string.h>

#include "core/tensor.h"
#include "core/fault.h"
#include "gpu/gpu.h"

wk_status wk_gpu_conv_geometry(const char *op, const char *lib, const wk_tensor *x, const wk_tensor *w,
                               const wk_tensor *out, const wk_conv_params *p, int spatial, bool transposed,
                               wk_gpu_conv_geom *g)
{
    int64_t xd[4], yd[4], wd[4], pad[2] = {0, 0}, str[2] = {1, 1}, dil[2] = {1, 1};
    memset(g, 0, sizeof *g);
    for (int i = 0; i < 2; i++)
        xd[i] = x->shape[i], g->xstride[i] = x->strides[i], yd[i] = out->shape[i], wd[i] = w->shape[i];
    if (spatial == 1) {
        xd[2] = yd[2] = wd[2] = 1;
        xd[3] = x->shape[2], g->xstride[3] = x->strides[2], yd[3] = out->shape[2], wd[3] = w->shape[2];
        pad[1] = p->padding[0], str[1] = p->stride[0], dil[1] = p->dilation[0];
    } else {
        for (int i = 2; i < 4; i++)
            xd[i] = x->shape[i], g->xstride[i] = x->strides[i], yd[i] = out->shape[i], wd[i] = w->shape[i];
        for (int i = 0; i < 2; i++)
            pad[i] = p->padding[i], str[i] = p->stride[i], dil[i] = p->dilation[i];
    }
    for (int ax = 0; transposed && ax < spatial; ax++)
        if (p->output_padding[ax] >= p->stride[ax])
            return wk_error(WK_ERR_UNSUPPORTED, "%s: %s needs output_padding < stride", op, lib);
    bool ok = wk_gpu_fits_int(p->groups) && wk_gpu_fits_int(wk_tensor_numel(x)) &&
              wk_gpu_fits_int(wk_tensor_numel(w)) && wk_gpu_fits_int(wk_tensor_numel(out));
    for (int i = 0; i < 4; i++)
        ok = ok && wk_gpu_fits_int(xd[i]) && wk_gpu_fits_int(yd[i]) && wk_gpu_fits_int(wd[i]);
    for (int i = 0; i < 2; i++)
        ok = ok && wk_gpu_fits_int(pad[i]) && wk_gpu_fits_int(str[i]) && wk_gpu_fits_int(dil[i]);
    if (!ok)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: sizes beyond %s's 32-bit range", op, lib);
    wk_gpu_conv_shape *c = &g->shape;
    for (int i = 0; i < 4; i++)
        c->xdim[i] = (int)xd[i], c->ydim[i] = (int)yd[i], c->wdim[i] = (int)wd[i];
    for (int i = 0; i < 2; i++)
        c->pad[i] = (int)pad[i], c->stride[i] = (int)str[i], c->dil[i] = (int)dil[i];
    c->groups = (int)p->groups;
    return WK_OK;
}

wk_status wk_gpu_packed(const wk_tensor *t, wk_tensor **out)
{
    wk_tensor *tmp = NULL;
    WK_TRY(wk_tensor_alloc(t->storage->device, t->dtype, t->rank, t->shape, &tmp));
    wk_status s = wk_gpu_copy(t, tmp);
    if (s != WK_OK) {
        wk_tensor_release(tmp);
        return s;
    }
    *out = tmp;
    return WK_OK;
}

void wk_gpu_packed_strides(const int dim[4], bool nhwc, int stride[4])
{
    if (nhwc) {
        stride[1] = 1, stride[3] = dim[1], stride[2] = dim[3] * dim[1], stride[0] = dim[2] * stride[2];
        return;
    }
    stride[3] = 1;
    for (int i = 2; i >= 0; i--)
        stride[i] = stride[i + 1] * dim[i + 1];
}

wk_status wk_gpu_conv_run_candidates(wk_gpu_dev *d, const char *op, const char *lib, wk_gpu_conv_algo *cand, int *n,
                                     wk_status (*run)(void *ctx, const wk_gpu_conv_algo *a, void *ws), void *ctx,
                                     bool *changed)
{
    size_t short_of = 0;
    int i = 0;
    while (i < *n) {
        const wk_gpu_conv_algo a = cand[i];
        void *ws = NULL;
        if (a.workspace > 0 && wk_gpu_malloc(d, a.workspace, &ws) != WK_OK) {
            wk_fi_absorb(); /* the next candidate runs, or all fail as out of memory */
            short_of = a.workspace;
            i++;
            continue;
        }
        wk_status s = run(ctx, &a, ws);
        if (ws)
            wk_gpu_free(d, ws); /* stream-ordered: the queued convolution still uses it */
        if (s != WK_ERR_UNSUPPORTED)
            return s;
        memmove(&cand[i], &cand[i + 1], (size_t)(*n - i - 1) * sizeof *cand);
        (*n)--;
        *changed = true;
    }
    if (short_of)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: no memory for %s's %zu-byte workspace", op, lib, short_of);
    return wk_error(WK_ERR_UNSUPPORTED, "%s: %s runs no algorithm for this case", op, lib);
}

/* ---------------------------------------------------------------- the plan cache
 * A fixed table of plans, each starting with its key, compared bytewise, replaced round-robin when full. */

static void *slot(const wk_gpu_plan_cache *c, int i) { return (char *)c->slots + (size_t)i * c->plan_size; }

bool wk_gpu_plan_find(wk_gpu_plan_cache *c, const void *key, void *plan)
{
    bool found = false;
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < c->count && !found; i++)
        if (memcmp(slot(c, i), key, c->key_size) == 0) {
            memcpy(plan, slot(c, i), c->plan_size);
            found = true;
        }
    pthread_mutex_unlock(&c->lock);
    return found;
}

void wk_gpu_plan_store(wk_gpu_plan_cache *c, const void *plan)
{
    pthread_mutex_lock(&c->lock);
    int at = -1;
    for (int i = 0; i < c->count && at < 0; i++)
        if (memcmp(slot(c, i), plan, c->key_size) == 0)
            at = i;
    if (at < 0) {
        at = c->count < c->capacity ? c->count++ : c->next;
        c->next = (at + 1) % c->capacity;
    }
    memcpy(slot(c, at), plan, c->plan_size);
    pthread_mutex_unlock(&c->lock);
}

/* graph.c: graph capture and replay on the GPU (CUDA graphs, HIP graphs through the runtime table). During a capture
 * the thread's allocations become the graph's own (alloc nodes: fixed addresses at every replay, freed at its next
 * launch), releases of them become free nodes, and what cannot be captured fails the capture with a message
 * instead of invalidating it behind the caller's back. */
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "gpu/device.h"

/* A capture in progress: the graph memory allocated so far and not yet released in it. */
typedef struct capture {
    void **mem;
    int count, cap;
} capture;

static bool list_add(void ***items, int *count, int *cap, void *p)
{
    if (*count == *cap) {
        int grown = *cap ? *cap * 2 : 64;
        void **m = realloc(*items, (size_t)grown * sizeof *m);
        if (!m)
            return false;
        *items = m, *cap = grown;
    }
    (*items)[(*count)++] = p;
    return true;
}

static bool list_take(void **items, int *count, const void *p)
{
    for (int i = *count - 1; i >= 0; i--)
        if (items[i] == p) {
            items[i] = items[--*count];
            return true;
        }
    return false;
}

wk_status wk_gpu_refuse_capture(const wk_gpu_dev *d, const char *op, const char *why)
{
    wk_stream *s = wk_stream_of((wk_device *)&d->base);
    if (!s->capture)
        return WK_OK;
    return wk_capture_fail(s, WK_ERR_UNSUPPORTED, "%s on %s cannot be captured into a graph: %s", op, d->base.name,
                           why);
}

wk_status wk_gpu_capture_alloc(wk_gpu_dev *d, wk_stream *s, size_t bytes, void **ptr)
{
    capture *c = s->capture;
    WK_TRY(d->rt->alloc_async(d->ordinal, s->native, bytes, ptr));
    if (!list_add(&c->mem, &c->count, &c->cap, *ptr)) {
        d->rt->free_async(s->native, *ptr);
        return wk_capture_fail(s, WK_ERR_OUT_OF_MEMORY, "alloc: out of host memory to track a graph's allocations");
    }
    return WK_OK;
}

void wk_gpu_capture_free(wk_gpu_dev *d, wk_stream *s, void *ptr, size_t bytes)
{
    capture *c = s->capture;
    if (list_take(c->mem, &c->count, ptr)) {
        d->rt->free_async(s->native, ptr);
        return;
    }
    /* Memory from before the capture: its replays would use it after the release. */
    wk_capture_fail(s, WK_ERR_INVALID_ARGUMENT, "a tensor made before the capture on %s was released during it "
                    "(tensors the graph uses must outlive its replays)", d->base.name);
    wk_gpu_release_later(d, ptr, bytes);
}

bool wk_gpu_graph_mem_take(wk_gpu_dev *d, void *ptr)
{
    pthread_mutex_lock(&d->streams_lock);
    bool found = list_take(d->graph_mem, &d->graph_mem_count, ptr);
    atomic_store(&d->graph_mem_any, d->graph_mem_count);
    pthread_mutex_unlock(&d->streams_lock);
    return found;
}

/* The graph memory still held when the capture ends belongs to tensors (the graph's outputs). */
static bool keep_outputs(wk_gpu_dev *d, capture *c)
{
    bool ok = true;
    pthread_mutex_lock(&d->streams_lock);
    for (int i = 0; i < c->count && ok; i++)
        ok = list_add(&d->graph_mem, &d->graph_mem_count, &d->graph_mem_cap, c->mem[i]);
    atomic_store(&d->graph_mem_any, d->graph_mem_count);
    pthread_mutex_unlock(&d->streams_lock);
    return ok;
}

/* The vendor libraries' handles for the stream are made now: making them allocates, which a capture refuses. */
static void prepare_libraries(wk_gpu_dev *d)
{
    const char *why = NULL;
    wk_gpu_blas_of(d, &why);
    wk_gpu_dnn_of(d, &why);
    wk_error_clear();
}

wk_status wk_gpu_graph_begin(wk_stream *s)
{
    wk_gpu_dev *d = wk_gpu_enter(s->dev);
    capture *c = calloc(1, sizeof *c);
    if (!c)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "stream_begin_capture: out of host memory");
    prepare_libraries(d);
    wk_status st = d->rt->capture_begin(s->native);
    if (st != WK_OK) {
        free(c);
        return st;
    }
    s->capture = c;
    return WK_OK;
}

wk_status wk_gpu_graph_end(wk_stream *s, wk_graph *g)
{
    wk_gpu_dev *d = wk_gpu_enter(s->dev);
    capture *c = s->capture;
    wk_gpu_handle exec = NULL;
    wk_status st = d->rt->capture_end(s->native, &exec);
    s->capture = NULL;
    if (s->capture_failed != WK_OK) {
        if (st == WK_OK)
            d->rt->graph_free(exec);
        st = wk_error(s->capture_failed, "stream_end_capture: no graph: %s", s->capture_why);
    } else if (st != WK_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        st = wk_error(st, "stream_end_capture: the driver refused the capture (a call inside it that cannot be "
                      "captured): %s", msg);
    }
    /* Kept out of the cache even when the capture failed: that memory is the graph's, backed only during a replay. */
    if (!keep_outputs(d, c) && st == WK_OK) {
        d->rt->graph_free(exec);
        st = wk_error(WK_ERR_OUT_OF_MEMORY, "stream_end_capture: out of host memory");
    }
    free(c->mem);
    free(c);
    if (st == WK_OK)
        g->native = exec;
    return st;
}

wk_status wk_gpu_graph_launch(wk_graph *g, wk_stream *s)
{
    wk_gpu_dev *d = wk_gpu_enter(g->dev);
    return d->rt->graph_launch(g->native, s->native);
}

void wk_gpu_graph_destroy(wk_graph *g)
{
    wk_gpu_dev *d = wk_gpu_enter(g->dev);
    d->rt->graph_free(g->native);
}

/* graph.c: graph capture and replay on the GPU (CUDA graphs, HIP graphs through the runtime table). During a capture
 * the thread's allocations become the graph's own (alloc nodes: fixed addresses at every replay, freed at its next
 * launch), releases of them become free nodes, and what cannot be captured fails the capture with a message
 * instead of invalidating it behind the caller's back. */
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "gpu/device.h"

/* A capture in progress: the graph memory allocated so far and not yet released in it; the block its kernels take
 * zeroed counters from (wk_gpu_capture_counters). */
typedef struct capture {
    void **mem;
    int count, cap;
    int32_t *counters;
    int64_t counters_used, counters_cap;
} capture;

#define CAPTURE_COUNTERS 4096 /* a block of counters: 16 KiB, 512 decode attentions of 8 items */

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

wk_status wk_gpu_capture_counters(wk_gpu_dev *d, int64_t n, int32_t **out)
{
    wk_stream *s = wk_stream_of(&d->base);
    capture *c = s->capture;
    if (!c)
        return WK_ERR_UNSUPPORTED;
    if (!c->counters || c->counters_used + n > c->counters_cap) {
        int64_t cap = n > CAPTURE_COUNTERS ? n : CAPTURE_COUNTERS;
        void *p;
        WK_TRY(wk_gpu_malloc(d, sizeof(int32_t) * (size_t)cap, &p)); /* the capture's: graph memory */
        wk_status st = wk_gpu_memset(d, p, 0, sizeof(int32_t) * (size_t)cap);
        if (st != WK_OK) {
            wk_gpu_free(d, p);
            return st;
        }
        if (c->counters) /* after the kernels queued so far: stream order */
            wk_gpu_free(d, c->counters);
        c->counters = p, c->counters_used = 0, c->counters_cap = cap;
    }
    *out = c->counters + c->counters_used;
    c->counters_used += n;
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

/* A capture's output: graph memory, allocated by each launch (and freed by the next, which allocates it again) at
 * the same address. The driver frees it only while a launch has it allocated (`live`); a tensor holds it until
 * released (`held`); once both are over, or the graph is gone and no tensor holds it, the record goes. */
struct wk_gpu_graph_mem {
    void *ptr;
    const void *graph; /* NULL: the graph is destroyed, or the capture failed (never allocated) */
    bool live, held;
};

static int mem_find(const wk_gpu_dev *d, const void *ptr)
{
    for (int i = d->graph_mem_count - 1; i >= 0; i--)
        if (d->graph_mem[i].ptr == ptr)
            return i;
    return -1;
}

static void mem_drop(wk_gpu_dev *d, int i)
{
    d->graph_mem[i] = d->graph_mem[--d->graph_mem_count];
    atomic_store(&d->graph_mem_any, d->graph_mem_count);
}

bool wk_gpu_graph_mem_release(wk_gpu_dev *d, void *ptr, size_t bytes)
{
    pthread_mutex_lock(&d->streams_lock);
    int i = mem_find(d, ptr);
    bool live = i >= 0 && d->graph_mem[i].live;
    if (i >= 0) {
        d->graph_mem[i].held = d->graph_mem[i].live = false;
        if (!d->graph_mem[i].graph)
            mem_drop(d, i);
    }
    pthread_mutex_unlock(&d->streams_lock);
    if (live)
        wk_gpu_release_later(d, ptr, bytes); /* after the launches that use it */
    return i >= 0;
}

/* The memory still held when the capture ends belongs to tensors: the graph's outputs (graph NULL: the capture
 * failed, nothing will allocate it). */
static bool keep_outputs(wk_gpu_dev *d, capture *c, const void *graph)
{
    bool ok = true;
    pthread_mutex_lock(&d->streams_lock);
    for (int i = 0; i < c->count && ok; i++) {
        if (d->graph_mem_count == d->graph_mem_cap) {
            int grown = d->graph_mem_cap ? d->graph_mem_cap * 2 : 64;
            struct wk_gpu_graph_mem *m = realloc(d->graph_mem, (size_t)grown * sizeof *m);
            if (!(ok = m != NULL))
                break;
            d->graph_mem = m, d->graph_mem_cap = grown;
        }
        d->graph_mem[d->graph_mem_count++] = (struct wk_gpu_graph_mem){c->mem[i], graph, false, true};
    }
    atomic_store(&d->graph_mem_any, d->graph_mem_count);
    pthread_mutex_unlock(&d->streams_lock);
    return ok;
}

/* After a launch every output of g is allocated; when g goes, those no tensor holds are freed after its launches. */
static void outputs_launched(wk_gpu_dev *d, const void *g, bool destroyed)
{
    void *free_now[64];
    int n = 0;
    pthread_mutex_lock(&d->streams_lock);
    for (int i = d->graph_mem_count - 1; i >= 0; i--) {
        struct wk_gpu_graph_mem *m = &d->graph_mem[i];
        if (m->graph != g)
            continue;
        if (!destroyed) {
            m->live = true;
        } else if (m->held) {
            m->graph = NULL;
        } else {
            if (m->live && n < 64)
                free_now[n++] = m->ptr;
            mem_drop(d, i);
        }
    }
    pthread_mutex_unlock(&d->streams_lock);
    for (int i = 0; i < n; i++)
        wk_gpu_release_later(d, free_now[i], 0);
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
    if (c->counters) /* the graph's own: released in it, after its kernels */
        wk_gpu_capture_free(d, s, c->counters, sizeof(int32_t) * (size_t)c->counters_cap);
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
    /* Kept out of the cache even when the capture failed: that memory is the graph's, backed only by a launch. */
    if (!keep_outputs(d, c, st == WK_OK ? g : NULL) && st == WK_OK) {
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
    WK_TRY(d->rt->graph_launch(g->native, s->native));
    if (atomic_load(&d->graph_mem_any))
        outputs_launched(d, g, false);
    return WK_OK;
}

void wk_gpu_graph_destroy(wk_graph *g)
{
    wk_gpu_dev *d = wk_gpu_enter(g->dev);
    d->rt->graph_free(g->native);
    if (atomic_load(&d->graph_mem_any))
        outputs_launched(d, g, true);
}

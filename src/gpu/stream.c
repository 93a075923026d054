/* stream.c: the GPU's stream table (wick.h "streams"): the API's streams and events on the driver's, page-locked
 * registration, asynchronous copies, and releases while a device has more than its default stream, which wait
 * on the device (never the host) for the work queued so far on every stream before the memory is reused. */
#include <stdlib.h>

#include "core/error.h"
#include "gpu/device.h"

static wk_gpu_dev *dev_of(wk_device *dev) { return wk_gpu_enter(dev); }

bool wk_gpu_capturing(const wk_gpu_dev *d) { return wk_stream_of((wk_device *)&d->base)->capture != NULL; }

wk_status wk_gpu_timed(wk_gpu_dev *d, wk_status (*work)(void *ctx), void *ctx, float *ms)
{
    wk_gpu_handle ev[2] = {NULL, NULL}, stream = wk_gpu_stream(d);
    bool ready = false;
    wk_status s = d->rt->event_create(&ev[0], true);
    if (s == WK_OK)
        s = d->rt->event_create(&ev[1], true);
    if (s == WK_OK)
        s = d->rt->event_record(ev[0], stream);
    if (s == WK_OK)
        s = work(ctx);
    if (s == WK_OK)
        s = d->rt->event_record(ev[1], stream);
    if (s == WK_OK)
        s = d->rt->event_wait(ev[1]);
    if (s == WK_OK)
        s = d->rt->event_elapsed(ev[0], ev[1], ms, &ready);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            d->rt->event_free(ev[i]);
    return s == WK_OK && !ready ? wk_error(WK_ERR_BACKEND, "timing on %s: the end mark was not reached after a wait",
                                           wk_gpu_dev_name(d))
                                : s;
}

/* ---------------------------------------------------------------- releases with several streams */
/* The batch's memory goes back to the pool on the side stream, after it has waited for every stream (a capturing
 * stream's work runs only at replays: a capture's own memory never comes here). Called with streams_lock held. */
static void flush_locked(wk_gpu_dev *d)
{
    if (d->pending_count == 0)
        return;
    wk_status s = WK_OK;
    if (!d->free_stream)
        s = d->rt->stream_create(&d->free_stream);
    if (s == WK_OK)
        s = d->rt->stream_order(d->base.default_stream.native, d->free_stream);
    for (int i = 0; s == WK_OK && i < d->stream_count; i++)
        if (!d->streams[i]->capture)
            s = d->rt->stream_order(d->streams[i]->native, d->free_stream);
    if (s != WK_OK) {
        /* The side stream cannot be ordered: wait on the host instead (slow, never wrong). */
        d->rt->stream_sync(d->base.default_stream.native);
        for (int i = 0; i < d->stream_count; i++)
            if (!d->streams[i]->capture)
                d->rt->stream_sync(d->streams[i]->native);
    }
    wk_gpu_handle on = d->free_stream ? d->free_stream : d->base.default_stream.native;
    for (int i = 0; i < d->pending_count; i++)
        d->rt->free_async(on, d->pending[i]);
    d->pending_count = 0;
    d->pending_bytes = 0;
}

void wk_gpu_release_flush(wk_gpu_dev *d)
{
    pthread_mutex_lock(&d->streams_lock);
    flush_locked(d);
    pthread_mutex_unlock(&d->streams_lock);
}

void wk_gpu_release_later(wk_gpu_dev *d, void *ptr, size_t bytes)
{
    pthread_mutex_lock(&d->streams_lock);
    d->pending[d->pending_count++] = ptr;
    d->pending_bytes += bytes;
    if (d->pending_count == WK_GPU_PENDING_FREES || d->pending_bytes >= WK_GPU_PENDING_BYTES)
        flush_locked(d);
    pthread_mutex_unlock(&d->streams_lock);
}

/* ---------------------------------------------------------------- streams */
static wk_status create(wk_stream *s)
{
    wk_gpu_dev *d = dev_of(s->dev);
    if (s->owned)
        WK_TRY(d->rt->stream_create((wk_gpu_handle *)&s->native));
    pthread_mutex_lock(&d->streams_lock);
    bool room = d->stream_count < WK_GPU_MAX_STREAMS;
    if (room) {
        d->streams[d->stream_count++] = s;
        atomic_store(&d->extra_streams, d->stream_count);
    }
    pthread_mutex_unlock(&d->streams_lock);
    if (!room) {
        if (s->owned)
            d->rt->stream_free(s->native);
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_create: %s serves at most %d streams besides its default",
                        s->dev->name, WK_GPU_MAX_STREAMS);
    }
    return WK_OK;
}

/* The stream's queued work finishes before any memory it may use is reused: the batch is released after it, and
 * the default stream (whose releases skip the batch once no other stream is left) waits for it. */
static void destroy(wk_stream *s)
{
    wk_gpu_dev *d = dev_of(s->dev);
    pthread_mutex_lock(&d->streams_lock);
    flush_locked(d);
    if (d->rt->stream_order(s->native, d->base.default_stream.native) != WK_OK)
        d->rt->stream_sync(s->native);
    for (int i = 0; i < d->stream_count; i++)
        if (d->streams[i] == s) {
            d->streams[i] = d->streams[--d->stream_count];
            break;
        }
    atomic_store(&d->extra_streams, d->stream_count);
    pthread_mutex_unlock(&d->streams_lock);
    if (s->owned)
        d->rt->stream_free(s->native);
}

static wk_status sync(wk_stream *s)
{
    wk_gpu_dev *d = dev_of(s->dev);
    WK_TRY(wk_gpu_sync_and_check(d, s->native));
    if (atomic_load(&d->extra_streams))
        wk_gpu_release_flush(d);
    return WK_OK;
}

static wk_status query(wk_stream *s, bool *idle) { return dev_of(s->dev)->rt->stream_query(s->native, idle); }

/* ---------------------------------------------------------------- events */
static wk_status event_create(wk_event *e)
{
    wk_gpu_dev *d = dev_of(e->dev);
    return d->rt->event_create((wk_gpu_handle *)&e->native, (e->flags & WK_EVENT_TIMING) != 0);
}

static void event_destroy(wk_event *e) { dev_of(e->dev)->rt->event_free(e->native); }

static wk_status event_record(wk_event *e, wk_stream *s)
{
    return dev_of(e->dev)->rt->event_record(e->native, s->native);
}

static wk_status wait(wk_stream *s, wk_event *e) { return dev_of(s->dev)->rt->stream_wait_event(s->native, e->native); }

static wk_status event_sync(wk_event *e) { return dev_of(e->dev)->rt->event_wait(e->native); }

static wk_status event_query(wk_event *e, bool *done) { return dev_of(e->dev)->rt->event_query(e->native, done); }

static wk_status elapsed_ms(const wk_event *start, const wk_event *end, float *ms)
{
    bool ready = false;
    WK_TRY(dev_of(start->dev)->rt->event_elapsed(start->native, end->native, ms, &ready));
    if (!ready)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_elapsed_ms: the end event's mark is not reached yet "
                        "(wk_event_sync it first)");
    return WK_OK;
}

/* ---------------------------------------------------------------- copies */
static wk_status upload_async(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    wk_gpu_dev *d = dev_of(dev);
    WK_TRY(wk_gpu_refuse_capture(d, "tensor_write_async", "an upload from host memory would read the host buffer "
                                 "again at every replay"));
    return wk_gpu_upload_async(d, dst, src, bytes);
}

static wk_status download_async(wk_device *dev, void *dst, const void *src, size_t bytes)
{
    wk_gpu_dev *d = dev_of(dev);
    WK_TRY(wk_gpu_refuse_capture(d, "tensor_to_host_async", "a copy to host memory cannot be replayed"));
    return d->rt->copy_d2h(wk_gpu_stream(d), dst, src, bytes);
}

const wk_stream_backend wk_gpu_streams = {
    .create = create,
    .destroy = destroy,
    .sync = sync,
    .query = query,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .wait = wait,
    .event_sync = event_sync,
    .event_query = event_query,
    .elapsed_ms = elapsed_ms,
    .host_register = wk_gpu_host_register,
    .host_unregister = wk_gpu_host_unregister,
    .upload_async = upload_async,
    .download_async = download_async,
    .capture_begin = wk_gpu_graph_begin,
    .capture_end = wk_gpu_graph_end,
    .graph_launch = wk_gpu_graph_launch,
    .graph_destroy = wk_gpu_graph_destroy,
};

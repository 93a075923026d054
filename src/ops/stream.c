/* stream.c: the front end of streams and events (wick.h "streams"): argument checks, handle lifetimes and each
 * thread's current stream per device; the backend's stream table does the work. */
#include <stdlib.h>

#include "backend.h"
#include "core/error.h"

_Thread_local wk_current_streams wk_current;

static const wk_stream_backend *table(const wk_device *dev) { return dev->backend->streams; }

wk_stream *wk_stream_default(wk_device *dev) { return dev ? &dev->default_stream : NULL; }
wk_device *wk_stream_device(const wk_stream *s) { return s ? s->dev : NULL; }
uintptr_t wk_stream_native(const wk_stream *s) { return s ? (uintptr_t)s->native : 0; }

wk_stream *wk_stream_current(wk_device *dev) { return dev ? wk_stream_of(dev) : NULL; }

wk_status wk_stream_make_current(wk_device *dev, wk_stream *s)
{
    int at = 0;
    while (at < wk_current.count && wk_current.s[at]->dev != dev)
        at++;
    if (s->is_default) {
        if (at < wk_current.count)
            wk_current.s[at] = wk_current.s[--wk_current.count];
        return WK_OK;
    }
    if (at == WK_CURRENT_STREAMS)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_set_current: a thread may have a stream other than the "
                        "default current on at most %d devices", WK_CURRENT_STREAMS);
    wk_current.s[at] = s;
    if (at == wk_current.count)
        wk_current.count++;
    return WK_OK;
}

wk_status wk_stream_set_current(wk_device *dev, wk_stream *s)
{
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_set_current: device is NULL");
    if (s && s->dev != dev)
        return wk_error(WK_ERR_DEVICE, "stream_set_current: the stream is on %s, not %s", s->dev->name, dev->name);
    wk_stream *cur = wk_stream_of(dev);
    if (cur->capture && cur != (s ? s : &dev->default_stream))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_set_current: this thread is capturing on its current "
                        "stream of %s: end the capture first", dev->name);
    return wk_stream_make_current(dev, s ? s : &dev->default_stream);
}

static wk_status stream_new(const char *op, wk_device *dev, void *native, wk_stream **out)
{
    if (!dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: device or out is NULL", op);
    *out = NULL;
    wk_stream *s = calloc(1, sizeof *s);
    if (!s)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    *s = (wk_stream){.dev = dev, .native = native, .owned = native == NULL};
    wk_status st = table(dev)->create(s);
    if (st != WK_OK) {
        free(s);
        return st;
    }
    *out = s;
    return WK_OK;
}

wk_status wk_stream_create(wk_device *dev, wk_stream **out) { return stream_new("stream_create", dev, NULL, out); }

wk_status wk_stream_from_native(wk_device *dev, uintptr_t handle, wk_stream **out)
{
    if (dev && !table(dev)->capture_begin)
        return wk_error(WK_ERR_UNSUPPORTED, "stream_from_native: %s has no native streams", dev->name);
    if (dev && handle == 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_from_native: handle 0 is the legacy default stream, which "
                        "wick's stream-ordered memory cannot use: pass a stream the caller created");
    return stream_new("stream_from_native", dev, (void *)handle, out);
}

wk_status wk_stream_destroy(wk_stream *s)
{
    if (!s || s->is_default)
        return WK_OK;
    if (s->capture)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_destroy: the stream is capturing: end the capture first");
    if (wk_stream_of(s->dev) == s)
        wk_stream_make_current(s->dev, &s->dev->default_stream);
    table(s->dev)->destroy(s);
    free(s);
    return WK_OK;
}

wk_status wk_stream_sync(wk_stream *s)
{
    if (!s)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_sync: stream is NULL");
    if (s->capture)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_sync: the stream is capturing (nothing runs until a replay)");
    return table(s->dev)->sync(s);
}

wk_status wk_stream_query(wk_stream *s, bool *idle)
{
    if (!s || !idle)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_query: stream or idle is NULL");
    return table(s->dev)->query(s, idle);
}

/* ---------------------------------------------------------------- events */
wk_status wk_event_create(wk_device *dev, unsigned flags, wk_event **out)
{
    if (!dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_create: device or out is NULL");
    *out = NULL;
    if (flags & ~WK_EVENT_TIMING)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_create: unknown flags 0x%x", flags & ~WK_EVENT_TIMING);
    wk_event *e = calloc(1, sizeof *e);
    if (!e)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "event_create: out of host memory");
    *e = (wk_event){.dev = dev, .flags = flags};
    wk_status st = table(dev)->event_create(e);
    if (st != WK_OK) {
        free(e);
        return st;
    }
    *out = e;
    return WK_OK;
}

void wk_event_destroy(wk_event *e)
{
    if (!e)
        return;
    table(e->dev)->event_destroy(e);
    free(e);
}

wk_status wk_event_record(wk_event *e, wk_stream *s)
{
    if (!e)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_record: event is NULL");
    if (s && s->dev != e->dev)
        return wk_error(WK_ERR_DEVICE, "event_record: the event is of %s, the stream of %s", e->dev->name,
                        s->dev->name);
    WK_TRY(table(e->dev)->event_record(e, s ? s : wk_stream_of(e->dev)));
    e->recorded = true;
    return WK_OK;
}

wk_status wk_stream_wait(wk_stream *s, wk_event *e)
{
    if (!s || !e)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_wait: stream or event is NULL");
    if (s->dev != e->dev)
        return wk_error(WK_ERR_DEVICE, "stream_wait: the stream is of %s, the event of %s", s->dev->name,
                        e->dev->name);
    return e->recorded ? table(s->dev)->wait(s, e) : WK_OK;
}

wk_status wk_event_sync(wk_event *e)
{
    if (!e)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_sync: event is NULL");
    return e->recorded ? table(e->dev)->event_sync(e) : WK_OK;
}

wk_status wk_event_query(wk_event *e, bool *done)
{
    if (!e || !done)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_query: event or done is NULL");
    *done = true;
    return e->recorded ? table(e->dev)->event_query(e, done) : WK_OK;
}

wk_status wk_event_elapsed_ms(const wk_event *start, const wk_event *end, float *ms)
{
    if (!start || !end || !ms)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_elapsed_ms: start, end or ms is NULL");
    if (start->dev != end->dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_elapsed_ms: the events are of %s and %s", start->dev->name,
                        end->dev->name);
    if (!(start->flags & WK_EVENT_TIMING) || !(end->flags & WK_EVENT_TIMING))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_elapsed_ms: both events need WK_EVENT_TIMING");
    if (!start->recorded || !end->recorded)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "event_elapsed_ms: an event was never recorded");
    return table(start->dev)->elapsed_ms(start, end, ms);
}

/* ---------------------------------------------------------------- page-locked memory */
static wk_status host_checks(const char *op, wk_device *dev, const void *ptr)
{
    if (!dev || !ptr)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: device or ptr is NULL", op);
    if (!table(dev)->host_register)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: %s has no page-locked memory", op, dev->name);
    return WK_OK;
}

wk_status wk_host_register(wk_device *dev, void *ptr, size_t bytes)
{
    WK_TRY(host_checks("host_register", dev, ptr));
    if (bytes == 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "host_register: 0 bytes");
    return table(dev)->host_register(dev, ptr, bytes);
}

wk_status wk_host_unregister(wk_device *dev, void *ptr)
{
    WK_TRY(host_checks("host_unregister", dev, ptr));
    return table(dev)->host_unregister(dev, ptr);
}

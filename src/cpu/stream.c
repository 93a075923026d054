/* stream.c: the CPU's streams and events. Its ops run when they are called, so every stream is an in-order queue
 * that is always empty: syncs and waits return at once, and an event's mark is the host's clock at the record. */
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "cpu/cpu.h"

static wk_status create(wk_stream *s)
{
    (void)s;
    return WK_OK;
}

static void destroy(wk_stream *s) { (void)s; }

static wk_status sync(wk_stream *s)
{
    (void)s;
    return WK_OK;
}

static wk_status query(wk_stream *s, bool *idle)
{
    (void)s;
    *idle = true;
    return WK_OK;
}

static wk_status event_create(wk_event *e)
{
    (void)e;
    return WK_OK;
}

static void event_destroy(wk_event *e) { (void)e; }

static wk_status event_record(wk_event *e, wk_stream *s)
{
    (void)s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->host_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    return WK_OK;
}

static wk_status wait(wk_stream *s, wk_event *e)
{
    (void)s, (void)e;
    return WK_OK;
}

static wk_status event_sync(wk_event *e)
{
    (void)e;
    return WK_OK;
}

static wk_status event_query(wk_event *e, bool *done)
{
    (void)e;
    *done = true;
    return WK_OK;
}

static wk_status elapsed_ms(const wk_event *start, const wk_event *end, float *ms)
{
    *ms = (float)(end->host_ms - start->host_ms);
    return WK_OK;
}

const wk_stream_backend wk_cpu_streams = {
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
    .upload_async = wk_cpu_upload,
    .download_async = wk_cpu_download,
};

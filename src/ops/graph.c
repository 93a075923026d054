/* graph.c: the front end of graph capture and replay (wick.h "streams", Graphs): which stream may capture, the
 * capturing thread's current stream, and the graph handles; the backend's stream table records and replays. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "core/error.h"

static const wk_stream_backend *table(const wk_device *dev) { return dev->backend->streams; }

wk_status wk_capture_fail(wk_stream *s, wk_status st, const char *fmt, ...)
{
    char msg[sizeof s->capture_why];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->capture_failed == WK_OK) {
        s->capture_failed = st;
        snprintf(s->capture_why, sizeof s->capture_why, "%s", msg);
    }
    return wk_error(st, "%s (the capture has failed: end it and capture again without this call)", msg);
}

wk_status wk_stream_begin_capture(wk_stream *s)
{
    if (!s)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_begin_capture: stream is NULL");
    if (!table(s->dev)->capture_begin)
        return wk_error(WK_ERR_UNSUPPORTED, "stream_begin_capture: %s cannot capture graphs (its ops run as they "
                        "are called)", s->dev->name);
    if (s->is_default)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_begin_capture: the default stream of %s cannot capture "
                        "(other threads queue on it): capture on a stream from wk_stream_create", s->dev->name);
    if (s->capture)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_begin_capture: the stream is capturing already");
    wk_stream *before = wk_stream_of(s->dev);
    if (before->capture)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_begin_capture: this thread is capturing on another stream "
                        "of %s", s->dev->name);
    WK_TRY(wk_stream_make_current(s->dev, s));
    s->capture_failed = WK_OK;
    s->capture_why[0] = '\0';
    wk_status st = table(s->dev)->capture_begin(s);
    if (st != WK_OK) {
        wk_stream_make_current(s->dev, before);
        return st;
    }
    s->before_capture = before;
    return WK_OK;
}

wk_status wk_stream_end_capture(wk_stream *s, wk_graph **out)
{
    if (!s || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_end_capture: stream or out is NULL");
    *out = NULL;
    if (!s->capture)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "stream_end_capture: the stream is not capturing");
    wk_graph *g = calloc(1, sizeof *g);
    if (g)
        g->dev = s->dev;
    wk_graph scratch = {.dev = s->dev};
    wk_status st = table(s->dev)->capture_end(s, g ? g : &scratch); /* ends the capture whatever happens */
    wk_stream_make_current(s->dev, s->before_capture);
    s->before_capture = NULL;
    if (st == WK_OK && !g) {
        table(s->dev)->graph_destroy(&scratch);
        st = wk_error(WK_ERR_OUT_OF_MEMORY, "stream_end_capture: out of host memory");
    }
    if (st != WK_OK) {
        free(g);
        return st;
    }
    *out = g;
    return WK_OK;
}

wk_status wk_graph_launch(wk_graph *g, wk_stream *s)
{
    if (!g)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "graph_launch: graph is NULL");
    if (s && s->dev != g->dev)
        return wk_error(WK_ERR_DEVICE, "graph_launch: the graph is of %s, the stream of %s", g->dev->name,
                        s->dev->name);
    wk_stream *on = s ? s : wk_stream_of(g->dev);
    if (on->capture)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "graph_launch: the stream is capturing (a graph inside a graph is "
                        "not supported)");
    return table(g->dev)->graph_launch(g, on);
}

void wk_graph_destroy(wk_graph *g)
{
    if (!g)
        return;
    table(g->dev)->graph_destroy(g);
    free(g);
}

/* stream.h: the internal layout of streams, events and graphs (wick.h "streams"), and the calling thread's
 * current stream per device, which every backend reads to know where to queue work. */
#ifndef WK_CORE_STREAM_H
#define WK_CORE_STREAM_H

#include "wick.h"

struct wk_stream {
    wk_device *dev;
    void *native;     /* the backend's queue (GPU: CUstream / hipStream_t); NULL on the CPU */
    bool owned;       /* made by wick: its native queue goes with the handle */
    bool is_default;  /* the device's default stream (never destroyed) */
    void *capture;    /* the backend's capture state while a capture is on (ops/graph.c) */
    wk_stream *before_capture; /* the capturing thread's current stream before the capture */
    wk_status capture_failed;  /* the capture's first failure (WK_OK: none), and its message */
    char capture_why[400];
};

struct wk_event {
    wk_device *dev;
    void *native;     /* GPU: CUevent / hipEvent_t */
    unsigned flags;   /* WK_EVENT_TIMING */
    bool recorded;
    double host_ms;   /* the CPU's mark: the host's monotonic clock at the record */
};

struct wk_graph {
    wk_device *dev;
    void *native; /* the backend's replayable graph (GPU: CUgraphExec / hipGraphExec_t) */
};

/* The calling thread's current streams, for the devices on which it chose one other than the default. */
#define WK_CURRENT_STREAMS 16
typedef struct wk_current_streams {
    int count;
    wk_stream *s[WK_CURRENT_STREAMS];
} wk_current_streams;
extern _Thread_local wk_current_streams wk_current;

/* The calling thread's current stream of dev (its default stream unless the thread set another). */
static inline wk_stream *wk_stream_of(wk_device *dev)
{
    for (int i = 0; i < wk_current.count; i++)
        if (wk_current.s[i]->dev == dev)
            return wk_current.s[i];
    return wk_stream_default(dev);
}

/* Fails s's capture (the first failure is the one wk_stream_end_capture returns) and returns the error, whose
 * message is made as wk_error's. */
wk_status wk_capture_fail(wk_stream *s, wk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets the calling thread's current stream of s->dev (s a default stream: drops the entry). */
wk_status wk_stream_make_current(wk_device *dev, wk_stream *s);

#endif

/* llama_graph.c: decoding one token per sequence as a replayed graph (wick.h "streams"). The step's inputs -- token
 * ids, the position (rope rows are gathered from it on the device) and the lengths before the step -- live in
 * device tensors written before each replay; the step is captured once, at the first decode, on the decoder's own
 * stream. Every step ends with the host waiting for it (reading its tokens or logits, or a sync), so eager steps on
 * the thread's stream and replays on the decoder's stay in order. WICK_LLAMA_GRAPH=0 keeps decoding eager. */
#include <stdlib.h>
#include <string.h>

#include "llama_internal.h"
#include "scope.h"

typedef struct llama_decoder {
    wk_stream *stream;
    wk_graph *graph;
    wk_tensor *ids, *pos, *len_before;             /* inputs: (B, 1) i32, (1) i32, (B) i32 */
    wk_tensor *logits, *next;                      /* outputs: (B, 1, vocab) f32, (B) i64 */
    int32_t *host;                                 /* the inputs' host side: ids, pos, lens before */
    bool unavailable;                              /* no graphs here: decode eagerly */
} llama_decoder;

/* Everything the decoder holds but the struct itself (its stream's work finished first). */
static void decoder_parts_free(llama_decoder *d)
{
    wk_graph_destroy(d->graph);
    wk_tensor *ts[] = {d->ids, d->pos, d->len_before, d->logits, d->next};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        wk_tensor_release(ts[i]);
    if (d->stream) {
        wk_stream_sync(d->stream);
        wk_stream_destroy(d->stream);
    }
    free(d->host);
    *d = (llama_decoder){0};
}

void llama_decoder_free(llama_model *m)
{
    if (m->decoder)
        decoder_parts_free(m->decoder);
    free(m->decoder);
    m->decoder = NULL;
}

static bool graphs_wanted(void)
{
    const char *v = getenv("WICK_LLAMA_GRAPH");
    return !v || strcmp(v, "0") != 0;
}

/* The inputs, made before the capture (an upload cannot be captured). */
static wk_status make_inputs(llama_model *m, llama_decoder *d)
{
    const int64_t B = m->batch, one = 1, ids_shape[2] = {B, 1};
    d->host = calloc((size_t)(2 * B + 1), sizeof(int32_t));
    if (!d->host)
        return WK_ERR_OUT_OF_MEMORY; /* the caller says so */
    WM_TRY(wk_tensor_empty(m->dev, WK_I32, 2, ids_shape, &d->ids));
    WM_TRY(wk_tensor_empty(m->dev, WK_I32, 1, &one, &d->pos));
    WM_TRY(wk_tensor_empty(m->dev, WK_I32, 1, &B, &d->len_before));
    WM_TRY(wk_fill(d->ids, 0));
    WM_TRY(wk_fill(d->pos, 0));
    return wk_fill(d->len_before, 0);
}

/* The decode step, recorded: rope rows gathered at the position tensor, lengths from the length tensors. */
static wk_status capture(llama_model *m, llama_decoder *d, char *err, size_t cap)
{
    wk_status s = wk_stream_begin_capture(d->stream);
    if (s != WK_OK)
        return s;
    llama_step st = {.n = 1, .len_before = d->len_before, .greedy = true};
    s = wk_index_select(m->cos, 0, d->pos, &st.cos);
    if (s == WK_OK)
        s = wk_index_select(m->sin, 0, d->pos, &st.sin);
    if (s == WK_OK)
        s = llama_step_run(m, d->ids, &st, false, &d->logits, &d->next, err, cap);
    wk_tensor_release(st.cos);
    wk_tensor_release(st.sin);
    wk_status e = wk_stream_end_capture(d->stream, &d->graph);
    if (s == WK_OK && e != WK_OK)
        s = wm_fail(err, cap, e, "llama decode graph: %s", wk_last_error());
    return s;
}

/* The decoder on first use: WK_ERR_UNSUPPORTED where there are no graphs (remembered). */
static wk_status decoder(llama_model *m, llama_decoder **out, char *err, size_t cap)
{
    if (m->decoder) {
        *out = m->decoder;
        return m->decoder->unavailable ? WK_ERR_UNSUPPORTED : WK_OK;
    }
    llama_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "llama decode graph: out of host memory");
    m->decoder = *out = d;
    wk_status s = graphs_wanted() ? wk_stream_create(m->dev, &d->stream) : WK_ERR_UNSUPPORTED;
    wk_stream *before = wk_stream_current(m->dev);
    if (s == WK_OK && (s = wk_stream_set_current(m->dev, d->stream)) == WK_OK) {
        s = make_inputs(m, d);
        if (s == WK_OK)
            s = capture(m, d, err, cap);
        wk_stream_set_current(m->dev, before);
    }
    if (s == WK_ERR_UNSUPPORTED) { /* the CPU, or graphs turned off: forget the parts, decode eagerly */
        decoder_parts_free(d);
        d->unavailable = true;
        return WK_ERR_UNSUPPORTED;
    }
    if (s != WK_OK && err && cap && !err[0])
        wm_fail(err, cap, s, "llama decode graph: %s", wk_last_error());
    return s;
}

wk_status llama_decode_graph(llama_model *m, const int32_t *ids, float *logits, int32_t *next, char *err, size_t cap)
{
    llama_decoder *d = NULL;
    wk_status s = decoder(m, &d, err, cap);
    if (s != WK_OK)
        return s;
    int B = m->batch;
    memcpy(d->host, ids, sizeof(int32_t) * (size_t)B);
    d->host[B] = m->pos;
    for (int b = 0; b < B; b++)
        d->host[B + 1 + b] = m->pos;
    wk_stream *before = wk_stream_current(m->dev);
    WM_TRY(wk_stream_set_current(m->dev, d->stream));
    s = wk_tensor_write_async(d->ids, d->host, sizeof(int32_t) * (size_t)B);
    if (s == WK_OK)
        s = wk_tensor_write_async(d->pos, d->host + B, sizeof(int32_t));
    if (s == WK_OK)
        s = wk_tensor_write_async(d->len_before, d->host + B + 1, sizeof(int32_t) * (size_t)B);
    if (s == WK_OK)
        s = wk_graph_launch(d->graph, d->stream);
    wk_tensor *drawn = NULL; /* sampling: drawn after the replay, from its logits (the graph's draws would repeat) */
    if (s == WK_OK && next && m->sampling.temperature > 0 && (s = llama_sample(m, d->logits, &drawn)) != WK_OK)
        wm_fail(err, cap, s, "sampling: %s", wk_last_error());
    else if (s != WK_OK)
        wm_fail(err, cap, s, "llama decode graph: %s", wk_last_error());
    else if (logits || next)
        s = llama_step_read(m, d->logits, drawn ? drawn : d->next, logits, next, err, cap);
    else if ((s = wk_stream_sync(d->stream)) != WK_OK)
        wm_fail(err, cap, s, "llama decode graph: %s", wk_last_error());
    wk_tensor_release(drawn);
    wk_stream_set_current(m->dev, before);
    return s;
}

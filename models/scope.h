/* scope.h: what the model runners share: the temporaries of one step, released together, with the failing call's
 * message kept for the caller (err, cap), and a linear layer x W^T (+ b). */
#ifndef WM_SCOPE_H
#define WM_SCOPE_H

#include <stdarg.h>
#include <stdio.h>

#include "wick.h"

/* printf into err (cap bytes, always terminated) and return s. */
wk_status wm_fail(char *err, size_t cap, wk_status s, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Returns the status of expr when it is not WK_OK. */
#define WM_TRY(expr)                   \
    do {                               \
        wk_status wm_s_ = (expr);      \
        if (wm_s_ != WK_OK)            \
            return wm_s_;              \
    } while (0)

#define WM_SCOPE_MAX 32
typedef struct wm_scope {
    wk_tensor *t[WM_SCOPE_MAX];
    int n;
    char *err;
    size_t cap;
} wm_scope;

/* Releases every tensor the scope holds. */
void wm_scope_end(wm_scope *sc);
/* Records *out (made by the call that returned s) in the scope; on failure, that call's message into err. */
wk_status wm_track(wm_scope *sc, wk_status s, wk_tensor **out);
#define WM_TRACK(sc, out, call) WM_TRY(wm_track((sc), (call), (out)))
/* x W^T (+ b when b is not NULL), W the (out, in) weight (wk_linear); held by sc. */
wk_status wm_linear(wm_scope *sc, const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, wk_tensor **out);

/* The attention output a (B, heads, n, head_dim) as (B, n, heads * head_dim), contiguous (the next product's input). */
wk_status wm_join_heads(wm_scope *sc, const wk_tensor *a, wk_tensor **out);

#endif

/* scope.c: the model runners' step scope and linear layer (scope.h). */
#include "scope.h"

wk_status wm_fail(char *err, size_t cap, wk_status s, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return s;
}

void wm_scope_end(wm_scope *sc)
{
    for (int i = 0; i < sc->n; i++)
        wk_tensor_release(sc->t[i]);
    sc->n = 0;
}

wk_status wm_track(wm_scope *sc, wk_status s, wk_tensor **out)
{
    if (s != WK_OK)
        return wm_fail(sc->err, sc->cap, s, "%s", wk_last_error());
    if (sc->n == WM_SCOPE_MAX) {
        wk_tensor_release(*out);
        *out = NULL;
        return wm_fail(sc->err, sc->cap, WK_ERR_OUT_OF_MEMORY, "too many temporaries in one step");
    }
    sc->t[sc->n++] = *out;
    return WK_OK;
}

wk_status wm_linear(wm_scope *sc, const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, wk_tensor **out)
{
    const wk_linear_params p = {.bias = b};
    WM_TRACK(sc, out, wk_linear(x, w, &p, out));
    return WK_OK;
}

wk_status wm_join_heads(wm_scope *sc, const wk_tensor *a, wk_tensor **out)
{
    const int perm[4] = {0, 2, 1, 3};
    const int64_t *s = wk_tensor_shape(a), joined[3] = {s[0], s[2], s[1] * s[3]};
    wk_tensor *ap = NULL, *ac = NULL;
    WM_TRACK(sc, &ap, wk_permute(a, perm, &ap));
    WM_TRACK(sc, &ac, wk_contiguous(ap, &ac));
    WM_TRACK(sc, out, wk_reshape(ac, 3, joined, out));
    return WK_OK;
}

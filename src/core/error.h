/* error.h: the thread-local error message and the helpers every layer uses to fail with a status.
 * Messages name the op first ("binary add: ..."), then what was wrong. */
#ifndef WK_CORE_ERROR_H
#define WK_CORE_ERROR_H

#include "wick.h"

#if defined(__GNUC__)
#define WK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WK_PRINTF(a, b)
#endif

/* Records the message for wk_last_error() and returns s, so callers write `return wk_error(...)`. */
wk_status wk_error(wk_status s, const char *fmt, ...) WK_PRINTF(2, 3);
/* Clears the message; every public entry point that succeeds leaves the previous message alone. */
void wk_error_clear(void);

/* Writes "[2, 3, 4]" into buf (always terminated). Returns buf. */
char *wk_shape_str(char *buf, size_t cap, int rank, const int64_t *shape);

/* Propagate a failure: evaluates expr once and returns its status if it is not WK_OK. */
#define WK_TRY(expr)                      \
    do {                                  \
        wk_status wk_try_s_ = (expr);     \
        if (wk_try_s_ != WK_OK)           \
            return wk_try_s_;             \
    } while (0)

#endif

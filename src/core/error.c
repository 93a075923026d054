/* error.c: status names and the thread-local detailed message behind wk_last_error(). */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

const char *wk_status_string(wk_status s)
{
    switch (s) {
    case WK_OK: return "WK_OK";
    case WK_ERR_INVALID_ARGUMENT: return "WK_ERR_INVALID_ARGUMENT";
    case WK_ERR_SHAPE: return "WK_ERR_SHAPE";
    case WK_ERR_DTYPE: return "WK_ERR_DTYPE";
    case WK_ERR_DEVICE: return "WK_ERR_DEVICE";
    case WK_ERR_OUT_OF_MEMORY: return "WK_ERR_OUT_OF_MEMORY";
    case WK_ERR_INDEX_OUT_OF_RANGE: return "WK_ERR_INDEX_OUT_OF_RANGE";
    case WK_ERR_UNSUPPORTED: return "WK_ERR_UNSUPPORTED";
    case WK_ERR_BACKEND: return "WK_ERR_BACKEND";
    case WK_ERR_INTERNAL: return "WK_ERR_INTERNAL";
    case WK_ERR_FILE: return "WK_ERR_FILE";
    case WK_ERR_IO: return "WK_ERR_IO";
    case WK_ERR_COMM: return "WK_ERR_COMM";
    }
    return "WK_ERR_UNKNOWN";
}

const char *wk_last_error(void) { return last_error; }

void wk_error_clear(void) { last_error[0] = '\0'; }

wk_status wk_error(wk_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

char *wk_shape_str(char *buf, size_t cap, int rank, const int64_t *shape)
{
    size_t n = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
    return buf;
}

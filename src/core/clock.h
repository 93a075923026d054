/* clock.h: the monotonic clock, for the waits that a timeout bounds (the communicators). */
#ifndef WK_CORE_CLOCK_H
#define WK_CORE_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double wk_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The monotonic time `seconds` from now, for pthread_cond_timedwait on a condition set to CLOCK_MONOTONIC. */
static inline struct timespec wk_deadline_after(double seconds)
{
    double s = wk_now_s() + seconds;
    struct timespec t;
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    return t;
}

#endif

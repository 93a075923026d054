/* check.h: the CHECK of the stand-alone test programs (test_gpu, test_kernel_table, test_backend_slots): counts
 * checks and failures, and prints a failure with the library's last error. */
#ifndef WKT_CHECK_H
#define WKT_CHECK_H

#include <stdio.h>

#include "wick.h"

/* A program whose checks span several files defines WKT_CHECK_SHARED and the two counters once. */
#ifdef WKT_CHECK_SHARED
extern int checks, failures;
#else
static int checks, failures;
#endif

#define CHECK(cond, ...)                                                                                    \
    do {                                                                                                    \
        checks++;                                                                                           \
        if (!(cond)) {                                                                                      \
            failures++;                                                                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                     \
            printf(__VA_ARGS__);                                                                            \
            printf(" (last error: %s)\n", wk_last_error());                                                 \
        }                                                                                                   \
    } while (0)

#endif

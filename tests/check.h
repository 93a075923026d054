/* check.h: the CHECK of the stand-alone test programs (test_gpu, test_kernel_table, test_backend_slots): counts
 * checks and failures, and prints a failure with the library's last error. */
#ifndef WKT_CHECK_H
#define WKT_CHECK_H

#include <stdio.h>

#include "wick.h"

static int checks, failures;

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

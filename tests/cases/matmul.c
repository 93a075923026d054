/* matmul.c: case family 'matmul' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_matmul = {.name = "matmul", .cases = cases, .errors = NULL};

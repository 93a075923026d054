/* pool.c: case family 'pool' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_pool = {.name = "pool", .cases = cases, .errors = NULL};

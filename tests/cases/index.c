/* index.c: case family 'index' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_index = {.name = "index", .cases = cases, .errors = NULL};

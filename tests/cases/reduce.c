/* reduce.c: case family 'reduce' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_reduce = {.name = "reduce", .cases = cases, .errors = NULL};

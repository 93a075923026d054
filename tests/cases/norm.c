/* norm.c: case family 'norm' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_norm = {.name = "norm", .cases = cases, .errors = NULL};

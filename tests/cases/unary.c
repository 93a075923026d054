/* unary.c: case family 'unary' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_unary = {.name = "unary", .cases = cases, .errors = NULL};

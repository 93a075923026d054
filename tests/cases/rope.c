/* rope.c: case family 'rope' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_rope = {.name = "rope", .cases = cases, .errors = NULL};

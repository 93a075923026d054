/* view.c: case family 'view' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_view = {.name = "view", .cases = cases, .errors = NULL};

/* conv.c: case family 'conv' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_conv = {.name = "conv", .cases = cases, .errors = NULL};

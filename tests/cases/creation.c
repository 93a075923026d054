/* creation.c: case family 'creation' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_creation = {.name = "creation", .cases = cases, .errors = NULL};

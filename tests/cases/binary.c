/* binary.c: case family 'binary' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_binary = {.name = "binary", .cases = cases, .errors = NULL};

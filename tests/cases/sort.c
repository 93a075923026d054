/* sort.c: case family 'sort' (placeholder until its cases are written). */
#include "harness.h"

static void cases(wkt_list *l) { (void)l; }

const wkt_family wkt_family_sort = {.name = "sort", .cases = cases, .errors = NULL};

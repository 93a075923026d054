/* wick.c: placeholder CLI until tools/ is written. */
#include "wick.h"
int main(void) { return 0; }

/* streams.h: what the stream tests' files share: check.h's CHECK with counters both files add to, and random inputs. */
#ifndef WK_TEST_STREAMS_H
#define WK_TEST_STREAMS_H

#define WKT_CHECK_SHARED
#include "../check.h"

#define OK(call) CHECK((call) == WK_OK, "%s", #call)
#define FAILS(call, code) CHECK((call) == (code), "%s should give %d", #call, (int)(code))

float frand(void); /* uniform in [-0.5, 0.5) */
/* A new f32 tensor of random values on dev (NULL on failure). */
wk_tensor *rand_tensor(wk_device *dev, int rank, const int64_t *shape);

/* graphs.c */
/* Largest relative difference of two f32 or i64 tensors (read to the host; i64 compared as values; inf when either
 * cannot be read or a NaN appears). */
double out_diff(const wk_tensor *a, const wk_tensor *b);
void test_graphs(wk_device *dev, bool gpu);
void test_stream_errors(wk_device *dev, bool gpu);
/* graph_attention.c (GPUs only: the CPU captures no graph) */
void test_graph_attention(wk_device *dev);

#endif

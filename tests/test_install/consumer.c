/* consumer.c: a program outside the wick tree, built against an installed wick (pkg-config and
 * find_package(wick), shared and static): a matmul and a reduction, checked against known values. */
#include <stdio.h>
#include <string.h>

#include <wick.h>

static int fail(const char *what, wk_status s)
{
    fprintf(stderr, "consumer: %s: %s: %s\n", what, wk_status_string(s), wk_last_error());
    return 1;
}

int main(void)
{
    wk_build_info info;
    wk_get_build_info(&info);
    if (strcmp(info.version, WICK_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: header %s, library %s\n", WICK_VERSION_STRING, info.version);
        return 1;
    }
    wk_device *cpu = NULL;
    wk_status s = wk_device_get("cpu", &cpu);
    if (s != WK_OK)
        return fail("device_get", s);
    const double a_vals[6] = {1, 2, 3, 4, 5, 6}, b_vals[6] = {1, 0, 0, 1, 1, 1};
    const int64_t a_shape[2] = {2, 3}, b_shape[2] = {3, 2};
    wk_tensor *a = NULL, *b = NULL, *c = NULL, *total = NULL;
    double c_vals[4] = {0}, sum = 0;
    int rc = 1;
    if ((s = wk_tensor_from_host(cpu, WK_F64, 2, a_shape, a_vals, &a)) != WK_OK ||
        (s = wk_tensor_from_host(cpu, WK_F64, 2, b_shape, b_vals, &b)) != WK_OK)
        rc = fail("from_host", s);
    else if ((s = wk_matmul(a, b, &c)) != WK_OK) /* uses the BLAS: a static link must bring it along */
        rc = fail("matmul", s);
    else if ((s = wk_reduce(WK_REDUCE_SUM, c, NULL, 0, false, &total)) != WK_OK)
        rc = fail("reduce", s);
    else if ((s = wk_tensor_to_host(c, c_vals, sizeof c_vals)) != WK_OK ||
             (s = wk_tensor_to_host(total, &sum, sizeof sum)) != WK_OK)
        rc = fail("to_host", s);
    else if (c_vals[0] != 4 || c_vals[1] != 5 || c_vals[2] != 10 || c_vals[3] != 11 || sum != 30)
        fprintf(stderr, "consumer: wrong result %g %g %g %g (sum %g)\n", c_vals[0], c_vals[1], c_vals[2],
                c_vals[3], sum);
    else
        rc = 0;
    wk_tensor_release(a);
    wk_tensor_release(b);
    wk_tensor_release(c);
    wk_tensor_release(total);
    if (rc == 0)
        printf("consumer: wick %s OK\n", info.version);
    return rc;
}

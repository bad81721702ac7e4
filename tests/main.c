/* tests/main.c -- one Check runner for every suite, so `make check` prints one summary line.
 * The suite list is generated from the `Suite *suite_<name>(void)` definitions in tests/. */
#include <check.h>
#include <stdlib.h>

#define X(fn) Suite *fn(void);
#include "suites.h"
#undef X

int main(void)
{
    SRunner *sr = srunner_create(NULL);
#define X(fn) srunner_add_suite(sr, fn());
#include "suites.h"
#undef X
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

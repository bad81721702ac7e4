/* tests/main.c -- one Check runner for every suite, so `make check` prints one summary line.
 * The suite list is generated from the `Suite *suite_<name>(void)` definitions in tests/. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define X(fn) Suite *fn(void);
#include "suites.h"
#undef X

/* `gnnref-tests --measured-run RESULT PROGRAM ARG...`: run PROGRAM and write "<exit status>
 * <peak resident KB>" to RESULT. Tests that bound a command's memory start it through this
 * trampoline (a fresh exec of this binary, small), because a child forked straight from the
 * test process inherits that process's peak resident size, and wait4 reports it: under
 * CK_FORK=no (the ASan stage) the test process has run every suite before and holds hundreds
 * of MB, which a command of a few MB was then charged with. */
static int measured_run(char **argv)
{
    const pid_t pid = fork();
    if (pid < 0)
        return 126;
    if (pid == 0) {
        execv(argv[1], argv + 1);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return 126;
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    FILE *f = fopen(argv[0], "w");
    if (!f || fprintf(f, "%d %ld\n", rc, ru.ru_maxrss) < 0 || fclose(f) != 0)
        return 126;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--measured-run") == 0)
        return measured_run(argv + 2);
    SRunner *sr = srunner_create(NULL);
#define X(fn) srunner_add_suite(sr, fn());
#include "suites.h"
#undef X
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

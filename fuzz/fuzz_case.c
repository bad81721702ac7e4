/* fuzz/fuzz_case.c -- libFuzzer harness of the oracle's case-string parser (oracle/case.c,
 * `gnnref oracle --case '...'`; docs/oracle.md, docs/fuzzing.md). Parsing only: no case runs.
 *
 * The input is the case string (cut at 4096 bytes, NUL-terminated by the harness). A string
 * that parses must format (gnn_oracle_case_format) to a string that parses again to the same
 * case, and formats to the same text: the round trip the case strings promise (a saved replay
 * line means what it said). A break of it aborts the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    gnn_oracle_case c, d;
    gnn_err err = { { 0 } };
    if (gnn_oracle_case_parse(s, &c, &err) == GNN_OK) {
        char a[1024], b[1024];
        int la = gnn_oracle_case_format(&c, a, sizeof a);
        if (la < 0 || (size_t)la >= sizeof a) {
            fprintf(stderr, "fuzz_case: '%s' parses but formats to %d characters\n", s, la);
            abort();
        }
        if (gnn_oracle_case_parse(a, &d, &err) != GNN_OK) {
            fprintf(stderr, "fuzz_case: '%s' parses, its formatted form '%s' does not: %s\n", s, a, err.msg);
            abort();
        }
        int lb = gnn_oracle_case_format(&d, b, sizeof b);
        if (lb != la || strcmp(a, b) != 0 || d.entry != c.entry || d.impl != c.impl || d.threads != c.threads ||
            d.seed != c.seed) {
            fprintf(stderr, "fuzz_case: '%s' -> '%s' -> '%s': the round trip changes the case\n", s, a, b);
            abort();
        }
    }
    free(s);
    return 0;
}

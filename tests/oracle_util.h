/* tests/oracle_util.h -- what the oracle's self-test suites share (tests/test_oracle.c,
 * tests/test_oracle_sampling.c): running an entry's presets with any implementation, a mutant
 * included, and tallying the outcomes with the first failure; and the parameters of the
 * one-case test entries through which the comparators are exercised. Each including suite gets
 * its own static copy. */
#ifndef GNNREF_TESTS_ORACLE_UTIL_H
#define GNNREF_TESTS_ORACLE_UTIL_H

#include <check.h>
#include <stdio.h>
#include <string.h>
#include "gnnref/oracle.h"

typedef struct tally {
    int counts[GNN_ORACLE_OUTCOME_COUNT];
    char first_fail[4096]; /* case string and detail of the first FAIL */
} tally;

static void tally_visit(const gnn_oracle_case *c, const gnn_oracle_result *r, void *user)
{
    (void)c;
    tally *t = user;
    if (r->outcome == GNN_ORACLE_FAIL && !t->first_fail[0])
        snprintf(t->first_fail, sizeof t->first_fail, "%s\n%s", r->case_str, r->detail);
}

/* Every preset of entry `name`, `cases` seeds each, with implementation impl (any pointer:
 * mutants are not in the registry). */
static void run_with_impl(const char *name, const gnn_oracle_impl *impl, int threads, int cases, tally *t)
{
    memset(t, 0, sizeof *t);
    const gnn_oracle_entry *e = gnn_oracle_find(name);
    ck_assert_msg(e != NULL, "no entry %s", name);
    for (int p = 0; e->presets[p]; p++)
        for (int k = 0; k < cases; k++) {
            gnn_oracle_case c;
            gnn_err err;
            ck_assert_int_eq(gnn_oracle_case_init(&c, e, impl, threads, e->presets[p], 1 + (uint64_t)k, &err), GNN_OK);
            gnn_oracle_result r;
            gnn_oracle_outcome o = gnn_oracle_run(&c, &r);
            t->counts[o]++;
            tally_visit(&c, &r, t);
        }
}

/* A one-case test entry: one unused parameter, one preset, one implementation without a table. */
static const gnn_oracle_param k_test_params[] = { { "n", GNN_PARAM_INT, 0, 10, "unused" } };
static const char *const k_test_presets[] = { "n=1", NULL };
static const gnn_oracle_impl k_test_impl = { "test", NULL, 0 };
static const gnn_oracle_impl *const k_test_impls[] = { &k_test_impl, NULL };

#endif

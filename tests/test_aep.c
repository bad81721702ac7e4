/* tests/test_aep.c -- the AEP push selection (include/gnnref/aep.h): the kept vertices are
 * drawn with probability proportional to max(degree, 1), without replacement (chi-square
 * against the exact successive-sampling probabilities for nc = 1 and nc = 2), do not depend
 * on the order the candidates come in, all are kept when m <= nc, and bad arguments are
 * refused. The ref-vs-cpu comparison is the oracle entry aep.select (tests/test_oracle.c). */
#include <check.h>
#include <math.h>
#include <string.h>
#include "gnnref/aep.h"

static const int64_t k_vid[5] = { 40, 7, 1000, 3, 512 };
static const int64_t k_deg[5] = { 1, 0, 3, 4, 10 }; /* weights 1 1 3 4 10 (0 counts as 1) */

static double weight(int64_t d) { return d > 0 ? (double)d : 1.0; }

/* Pearson chi-square of counts against expected probabilities (which sum to `total`). */
static double chisq(const int64_t *count, const double *p, int n, int64_t draws)
{
    double x = 0;
    for (int i = 0; i < n; i++) {
        const double e = p[i] * (double)draws;
        x += ((double)count[i] - e) * ((double)count[i] - e) / e;
    }
    return x;
}

START_TEST(proportional_to_degree)
{
    const gnn_aep_ops *ops[2] = { &gnn_aep_ref, &gnn_aep_cpu };
    double W = 0;
    for (int i = 0; i < 5; i++)
        W += weight(k_deg[i]);
    for (int o = 0; o < 2; o++)
        for (int64_t nc = 1; nc <= 2; nc++) {
            /* exact inclusion probabilities of successive sampling (what A-ES is) */
            double p[5];
            for (int i = 0; i < 5; i++) {
                p[i] = weight(k_deg[i]) / W;
                if (nc == 2)
                    for (int j = 0; j < 5; j++)
                        if (j != i)
                            p[i] += weight(k_deg[j]) / W * weight(k_deg[i]) / (W - weight(k_deg[j]));
            }
            const int64_t steps = 20000;
            int64_t count[5] = { 0 };
            for (int64_t t = 0; t < steps; t++) {
                gnn_aep_select_args a = { .vid_o = k_vid, .deg = k_deg, .m = 5, .nc = nc, .seed = 77,
                                          .step = (uint32_t)t, .layer = 1, .dst_rank = 3 };
                uint8_t keep[5];
                int64_t kept;
                ck_assert_int_eq(gnn_aep_select(ops[o], &a, keep, &kept, NULL), GNN_OK);
                ck_assert_int_eq(kept, nc);
                for (int i = 0; i < 5; i++)
                    count[i] += keep[i];
            }
            /* the kept counts sum to nc * steps: normalize the probabilities to sum 1 */
            double q[5];
            for (int i = 0; i < 5; i++)
                q[i] = p[i] / (double)nc;
            const double x = chisq(count, q, 5, steps * nc);
            /* 4 degrees of freedom: P(X > 23.5) = 1e-4 */
            ck_assert_msg(x < 23.5, "%s nc=%lld: chi-square %.2f (counts %lld %lld %lld %lld %lld)", ops[o]->name,
                          (long long)nc, x, (long long)count[0], (long long)count[1], (long long)count[2],
                          (long long)count[3], (long long)count[4]);
        }
}
END_TEST

START_TEST(order_and_rank_invariance)
{
    /* the same vertices in another order keep the same vertices */
    const int64_t vid2[5] = { 512, 3, 40, 1000, 7 }, deg2[5] = { 10, 4, 1, 3, 0 };
    for (uint32_t t = 0; t < 200; t++) {
        gnn_aep_select_args a = { .vid_o = k_vid, .deg = k_deg, .m = 5, .nc = 2, .seed = 5, .step = t, .layer = 0,
                                  .dst_rank = 1 };
        gnn_aep_select_args b = a;
        b.vid_o = vid2;
        b.deg = deg2;
        uint8_t ka[5], kb[5];
        int64_t na, nb;
        ck_assert_int_eq(gnn_aep_select(&gnn_aep_cpu, &a, ka, &na, NULL), GNN_OK);
        ck_assert_int_eq(gnn_aep_select(&gnn_aep_ref, &b, kb, &nb, NULL), GNN_OK);
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                if (k_vid[i] == vid2[j])
                    ck_assert_int_eq(ka[i], kb[j]);
    }
    /* different destinations draw independently: over many steps they disagree sometimes */
    int differ = 0;
    for (uint32_t t = 0; t < 100; t++) {
        gnn_aep_select_args a = { .vid_o = k_vid, .deg = k_deg, .m = 5, .nc = 1, .seed = 5, .step = t, .layer = 0,
                                  .dst_rank = 1 };
        gnn_aep_select_args b = a;
        b.dst_rank = 2;
        uint8_t ka[5], kb[5];
        int64_t na, nb;
        ck_assert_int_eq(gnn_aep_select(&gnn_aep_ref, &a, ka, &na, NULL), GNN_OK);
        ck_assert_int_eq(gnn_aep_select(&gnn_aep_ref, &b, kb, &nb, NULL), GNN_OK);
        differ += memcmp(ka, kb, 5) != 0;
    }
    ck_assert_int_gt(differ, 10);
}
END_TEST

START_TEST(all_kept_and_errors)
{
    gnn_aep_select_args a = { .vid_o = k_vid, .deg = k_deg, .m = 5, .nc = 5, .seed = 1, .step = 0, .layer = 0,
                              .dst_rank = 0 };
    uint8_t keep[5];
    int64_t kept;
    ck_assert_int_eq(gnn_aep_select(&gnn_aep_ref, &a, keep, &kept, NULL), GNN_OK);
    ck_assert_int_eq(kept, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(keep[i], 1);
    gnn_err err = { "" };
    a.nc = -1;
    ck_assert_int_eq(gnn_aep_select(&gnn_aep_cpu, &a, keep, &kept, &err), GNN_ERR_INVAL);
    a.nc = 2;
    a.layer = 256;
    ck_assert_int_eq(gnn_aep_select(&gnn_aep_ref, &a, keep, &kept, &err), GNN_ERR_INVAL);
    a.layer = 0;
    const int64_t bad[5] = { 1, 2, -3, 4, 5 };
    a.deg = bad;
    ck_assert_int_eq(gnn_aep_select(&gnn_aep_cpu, &a, keep, &kept, &err), GNN_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "degree -3"));
    a.deg = k_deg;
    ck_assert_int_eq(gnn_aep_select(&gnn_aep_ref, NULL, keep, &kept, &err), GNN_ERR_INVAL);
}
END_TEST

Suite *suite_aep(void)
{
    Suite *s = suite_create("aep");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    /* 80,000 selections of 5 candidates each: OpenMP regions that a loaded machine slows
     * far past Check's default 4 s */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, proportional_to_degree);
    tcase_add_test(tc, order_and_rank_invariance);
    tcase_add_test(tc, all_kept_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

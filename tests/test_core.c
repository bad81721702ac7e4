/* tests/test_core.c -- core services: status table, aligned allocation, CRC32C, CSR building. */
#include <check.h>
#include <stdint.h>
#include <string.h>
#include "gnnref/crc32c.h"
#include "gnnref/graph.h"
#include "gnnref/rng.h"
#include "gnnref/tensor.h"

START_TEST(status_table)
{
    for (int s = 0; s < GNN_STATUS_COUNT; s++)
        ck_assert_ptr_nonnull(gnn_status_str((gnn_status)s));
    ck_assert_str_eq(gnn_status_str(GNN_OK), "ok");
    ck_assert_str_eq(gnn_status_str((gnn_status)999), "unknown status");
    gnn_err e;
    ck_assert_int_eq(gnn_err_set(&e, GNN_ERR_RANGE, "x=%d", 7), GNN_ERR_RANGE);
    ck_assert_str_eq(e.msg, "x=7");
    ck_assert_int_eq(gnn_err_set(NULL, GNN_ERR_IO, "ignored"), GNN_ERR_IO);
}
END_TEST

START_TEST(aligned_alloc_64)
{
    for (size_t n = 0; n < 200; n += 13) {
        void *p = gnn_malloc(n);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 64, 0);
        gnn_free(p);
    }
    gnn_tensor t;
    ck_assert_int_eq(gnn_tensor_alloc(&t, 3, 5), GNN_OK);
    ck_assert_uint_eq((uintptr_t)t.data % 64, 0);
    for (int i = 0; i < 15; i++)
        ck_assert(t.data[i] == 0.0f);
    ck_assert_ptr_eq(gnn_tensor_row(&t, 2), t.data + 10);
    gnn_tensor_free(&t);
    ck_assert_int_eq(gnn_tensor_alloc(&t, -1, 5), GNN_ERR_INVAL);
    ck_assert_ptr_null(gnn_calloc(SIZE_MAX / 2, 4));
}
END_TEST

START_TEST(crc32c_known)
{
    ck_assert_uint_eq(gnn_crc32c(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(gnn_crc32c(0, "", 0), 0);
    /* incremental == one shot, across the 8-byte fast path boundary */
    const char *s = "The quick brown fox jumps over the lazy dog";
    uint32_t one = gnn_crc32c(0, s, strlen(s));
    uint32_t inc = gnn_crc32c(gnn_crc32c(0, s, 11), s + 11, strlen(s) - 11);
    ck_assert_uint_eq(one, inc);
    ck_assert_uint_eq(one, 0x22620404u); /* published CRC32C of this sentence */
}
END_TEST

START_TEST(rng_addressing)
{
    /* the float and integer draws take the words DESIGN.md section 2 names */
    gnn_rng_stream s = gnn_rng_stream_make(0x0000000500000007ull, 2, 9, 3, 0x0000abcd12345678ull);
    ck_assert_uint_eq(s.key[0], 7);
    ck_assert_uint_eq(s.key[1], 5);
    ck_assert_uint_eq(s.ctr_id_lo, 0x12345678u);
    ck_assert_uint_eq(s.ctr_hi, 0xabcdu | 3u << 16 | 2u << 24);
    uint32_t w[4];
    gnn_rng_block(&s, 1, w);
    ck_assert(gnn_rng_float(&s, 6) == (float)(w[2] >> 8) * (1.0f / 16777216.0f));
    uint64_t r = (uint64_t)w[3] << 32 | w[2];
    ck_assert_uint_eq(gnn_rng_uint(&s, 3, 1000), (uint64_t)(((unsigned __int128)r * 1000) >> 64));
    ck_assert_uint_eq(gnn_rng_uint(&s, 3, 0), 0);
    /* shuffle is a permutation */
    int64_t v[50];
    for (int i = 0; i < 50; i++)
        v[i] = i;
    gnn_rng_shuffle_i64(&s, v, 50);
    int seen[50] = { 0 };
    for (int i = 0; i < 50; i++)
        seen[v[i]]++;
    for (int i = 0; i < 50; i++)
        ck_assert_int_eq(seen[i], 1);
}
END_TEST

/* The inline Philox used by hot loops gives the Random123 known answers too. */
START_TEST(philox_inline_kat)
{
    static const uint32_t ctr[3][4] = { { 0, 0, 0, 0 },
                                        { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu },
                                        { 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u } };
    static const uint32_t key[3][2] = { { 0, 0 }, { 0xffffffffu, 0xffffffffu }, { 0xa4093822u, 0x299f31d0u } };
    static const uint32_t want[3][4] = { { 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u },
                                         { 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu },
                                         { 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u } };
    for (int t = 0; t < 3; t++) {
        uint32_t out[4];
        gnn_philox4x32_10_inline(ctr[t], key[t], out);
        for (int i = 0; i < 4; i++)
            ck_assert_uint_eq(out[i], want[t][i]);
    }
}
END_TEST

START_TEST(csr_build_options)
{
    /* edges: 0->1, 0->1 (dup), 1->2, 2->2 (self), 3->0 */
    int64_t src[] = { 0, 0, 1, 2, 3 }, dst[] = { 1, 1, 2, 2, 0 };
    gnn_csr g;
    ck_assert_int_eq(gnn_csr_from_edges(&g, 4, 5, src, dst, 0, NULL), GNN_OK);
    ck_assert_int_eq(g.nnz, 5);
    ck_assert_int_eq(gnn_csr_degree(&g, 1), 2); /* in-neighbors of 1: 0, 0 */
    ck_assert_int_eq(gnn_csr_validate(&g, NULL), GNN_OK);
    gnn_csr_free(&g);
    ck_assert_int_eq(gnn_csr_from_edges(&g, 4, 5, src, dst, GNN_CSR_DEDUP | GNN_CSR_DROP_SELF, NULL), GNN_OK);
    ck_assert_int_eq(g.nnz, 3);
    gnn_csr_free(&g);
    ck_assert_int_eq(gnn_csr_from_edges(&g, 4, 5, src, dst,
                                        GNN_CSR_DEDUP | GNN_CSR_DROP_SELF | GNN_CSR_SYMMETRIZE, NULL), GNN_OK);
    ck_assert_int_eq(g.nnz, 6);
    /* row 0 = in-neighbors of 0 = {1, 3}, sorted */
    ck_assert_int_eq(g.indices[g.indptr[0]], 1);
    ck_assert_int_eq(g.indices[g.indptr[0] + 1], 3);
    gnn_block b;
    ck_assert_int_eq(gnn_block_full(&b, &g), GNN_OK);
    ck_assert_int_eq(gnn_block_validate(&b, NULL), GNN_OK);
    gnn_block_free(&b);
    /* validator catches corruption */
    g.indices[2] = 99;
    gnn_err e;
    ck_assert_int_eq(gnn_csr_validate(&g, &e), GNN_ERR_RANGE);
    ck_assert_ptr_nonnull(strstr(e.msg, "99"));
    g.indices[2] = 0;
    g.indptr[2] = g.indptr[1] - 1;
    ck_assert_int_eq(gnn_csr_validate(&g, &e), GNN_ERR_RANGE);
    gnn_csr_free(&g);
    int64_t bad_src[] = { 0 }, bad_dst[] = { 4 };
    ck_assert_int_eq(gnn_csr_from_edges(&g, 4, 1, bad_src, bad_dst, 0, &e), GNN_ERR_RANGE);
    ck_assert_int_eq(gnn_csr_from_edges(&g, -1, 0, NULL, NULL, 0, NULL), GNN_ERR_INVAL);
    /* by-src rows */
    ck_assert_int_eq(gnn_csr_from_edges(&g, 4, 5, src, dst, GNN_CSR_BY_SRC | GNN_CSR_DEDUP, NULL), GNN_OK);
    ck_assert_int_eq(gnn_csr_degree(&g, 0), 1);
    gnn_csr_free(&g);
}
END_TEST

Suite *suite_core(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("cpu");
    tcase_set_tags(tc, "cpu");
    tcase_add_test(tc, status_table);
    tcase_add_test(tc, aligned_alloc_64);
    tcase_add_test(tc, crc32c_known);
    tcase_add_test(tc, rng_addressing);
    tcase_add_test(tc, philox_inline_kat);
    tcase_add_test(tc, csr_build_options);
    suite_add_tcase(s, tc);
    return s;
}

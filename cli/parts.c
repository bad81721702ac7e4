/* cli/parts.c -- partitioning flags and checks shared by partition, partcheck and train. */
#include <string.h>

#include "cli/cli.h"
#include "cli/parts.h"

const cli_choice cli_part_methods[] = {
    { "metis", GNN_PART_METIS, 0 }, { "range", GNN_PART_RANGE, 0 }, { "hash", GNN_PART_HASH, 0 },
    { "random", GNN_PART_RANDOM, 0 }, { "ldg", GNN_PART_LDG, 0 }, { NULL, 0, 0 }
};

int cli_flag_parse_balance(const char *arg, void *dst, char *why, size_t cap)
{
    gnn_err err = { "" };
    unsigned b;
    if (gnn_part_balance_parse(arg, &b, &err)) {
        /* the library's message starts with "balance: " */
        const char *m = !strncmp(err.msg, "balance: ", 9) ? err.msg + 9 : err.msg;
        snprintf(why, cap, "%s", m);
        return 1;
    }
    memcpy(dst, &b, sizeof b);
    return 0;
}

void cli_balance_names(unsigned balance, const char *none, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < GNN_PART_MAX_CON && len < cap; c++)
        if (balance & (1u << c))
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", gnn_part_constraint_name(1u << c));
    if (!balance)
        snprintf(buf, cap, "%s", none);
}

json_object *cli_flag_json_balance(const void *src)
{
    unsigned b;
    memcpy(&b, src, sizeof b);
    json_object *a = json_object_new_array();
    for (int c = 0; c < GNN_PART_MAX_CON; c++)
        if (b & (1u << c))
            json_object_array_add(a, json_object_new_string(gnn_part_constraint_name(1u << c)));
    if (!b)
        json_object_array_add(a, json_object_new_string(gnn_part_constraint_name(0)));
    return a;
}

json_object *cli_flag_json_balance_str(const void *src)
{
    unsigned b;
    memcpy(&b, src, sizeof b);
    char buf[64];
    cli_balance_names(b, "", buf, sizeof buf);
    return b ? json_object_new_string(buf) : NULL;
}

gnn_status cli_set_check(const gnn_part_manifest *m, const char *dir, int P, const gnn_dataset *ds, const char *data,
                         const char *hint, gnn_err *err)
{
    if (m->k != P)
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "%s has %lld parts but %d ranks run: run it with --ranks %lld (mpirun -np %lld)", dir,
                           (long long)m->k, P, (long long)m->k, (long long)m->k);
    if (ds && (m->n != ds->graph.n || m->graph_crc != gnn_graph_crc(&ds->graph)))
        return gnn_err_set(err, GNN_ERR_INVAL,
                           "%s was not made from %s (its graph: %lld vertices, CRC32C 0x%08x; %s: %lld vertices, "
                           "0x%08x)%s",
                           dir, data, (long long)m->n, m->graph_crc, data, (long long)ds->graph.n,
                           gnn_graph_crc(&ds->graph), hint);
    return GNN_OK;
}

/* cli/backend.c -- the flags that choose a communicator backend (self, sim, mpi), the
 * simulator's model and faults, and the launcher that runs an SPMD function on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend.h"

void cli_backend_defaults(cli_backend *b)
{
    memset(b, 0, sizeof *b);
    b->kind = CLI_BACKEND_SELF;
    b->name = "self";
    gnn_sim_defaults(&b->sim);
}

const char *cli_backend_help(void)
{
    return "  --backend self|sim|mpi  communicator: one rank (default), the in-process simulator, or MPI\n"
           "                        (run under mpirun -np P); docs/comm.md, docs/simulator.md\n"
           "  --ranks P             sim: number of simulated ranks, 1..1024 (default 1)\n"
           "  --alpha S             sim: latency per message in seconds (default 2e-6)\n"
           "  --bandwidth G         sim: link bandwidth in Gbit/s (default 100)\n"
           "  --sim-timeout S       sim: bound on every wait in seconds (default 60)\n"
           "  --threads-per-rank N  sim: OpenMP threads inside each simulated rank (default 1)\n"
           "  --fault-seed S        sim: seed of the fault decisions (default 0)\n"
           "  --fault-drop P        sim: drop asynchronous segments with probability P\n"
           "  --fault-delay K       sim: delay asynchronous segments by K steps ...\n"
           "  --fault-delay-p P     sim: ... with probability P (default 1 when --fault-delay is given)\n"
           "  --fault-flip P        sim: flip one bit of a message with probability P (always detected)\n";
}

int cli_backend_option(int ch, const char *arg, cli_backend *b)
{
    int64_t v;
    double x;
    switch (ch) {
    case CLI_OPT_BACKEND:
        if (!strcmp(arg, "self"))
            b->kind = CLI_BACKEND_SELF;
        else if (!strcmp(arg, "sim"))
            b->kind = CLI_BACKEND_SIM;
        else if (!strcmp(arg, "mpi"))
            b->kind = CLI_BACKEND_MPI;
        else
            return cli_error(CLI_USAGE, "--backend '%s': expected self, sim or mpi", arg);
        b->name = b->kind == CLI_BACKEND_SIM ? "sim" : b->kind == CLI_BACKEND_MPI ? "mpi" : "self";
        return 0;
    case CLI_OPT_RANKS:
        if (cli_parse_i64(arg, 1, GNN_SIM_MAX_RANKS, &v)) /* the simulator's limit */
            return cli_error(CLI_USAGE, "--ranks '%s': expected an integer in 1..%d (the simulator's limit)", arg,
                             GNN_SIM_MAX_RANKS);
        b->sim.ranks = (int)v;
        b->ranks_given = 1;
        return 0;
    case CLI_OPT_ALPHA:
        if (cli_parse_f64(arg, 0.0, 1e3, &x))
            return cli_error(CLI_USAGE, "--alpha '%s': expected seconds in [0, 1000]", arg);
        b->sim.alpha_s = x;
        b->sim_flag = "--alpha";
        return 0;
    case CLI_OPT_BANDWIDTH:
        if (cli_parse_f64(arg, 1e-6, 1e6, &x))
            return cli_error(CLI_USAGE, "--bandwidth '%s': expected Gbit/s in (0, 1e6]", arg);
        b->sim.beta_Bps = x * 1e9 / 8.0;
        b->sim_flag = "--bandwidth";
        return 0;
    case CLI_OPT_SIM_TIMEOUT:
        if (cli_parse_f64(arg, 1e-3, 1e6, &x))
            return cli_error(CLI_USAGE, "--sim-timeout '%s': expected seconds > 0", arg);
        b->sim.timeout_s = x;
        b->sim_flag = "--sim-timeout";
        return 0;
    case CLI_OPT_TPR:
        if (cli_parse_i64(arg, 1, 1024, &v))
            return cli_error(CLI_USAGE, "--threads-per-rank '%s': expected an integer in 1..1024", arg);
        b->sim.threads_per_rank = (int)v;
        b->sim_flag = "--threads-per-rank";
        return 0;
    case CLI_OPT_FAULT_SEED:
        if (cli_parse_u64(arg, &b->sim.faults.seed))
            return cli_error(CLI_USAGE, "--fault-seed '%s': expected a non-negative integer", arg);
        b->sim_flag = "--fault-seed";
        return 0;
    case CLI_OPT_FAULT_DROP:
    case CLI_OPT_FAULT_DELAY_P:
    case CLI_OPT_FAULT_FLIP: {
        const char *flag = ch == CLI_OPT_FAULT_DROP ? "--fault-drop" : ch == CLI_OPT_FAULT_FLIP ? "--fault-flip" : "--fault-delay-p";
        if (cli_parse_f64(arg, 0.0, 1.0, &x))
            return cli_error(CLI_USAGE, "%s '%s': expected a probability in [0, 1]", flag, arg);
        if (ch == CLI_OPT_FAULT_DROP)
            b->sim.faults.drop_p = x;
        else if (ch == CLI_OPT_FAULT_FLIP)
            b->sim.faults.flip_p = x;
        else {
            b->sim.faults.delay_p = x;
            b->delay_p_given = 1;
        }
        b->sim_flag = flag;
        return 0;
    }
    case CLI_OPT_FAULT_DELAY:
        if (cli_parse_i64(arg, 1, 1000000, &v))
            return cli_error(CLI_USAGE, "--fault-delay '%s': expected a number of steps >= 1", arg);
        b->sim.faults.delay_steps = (int)v;
        if (!b->delay_p_given)
            b->sim.faults.delay_p = 1.0;
        b->sim_flag = "--fault-delay";
        return 0;
    default:
        return cli_error(CLI_USAGE, "internal: unknown backend option %d", ch);
    }
}

int cli_backend_check(cli_backend *b)
{
    if (b->kind != CLI_BACKEND_SIM && b->ranks_given)
        return cli_error(CLI_USAGE, "--ranks applies to --backend sim (under MPI, mpirun -np sets the ranks)");
    if (b->kind != CLI_BACKEND_SIM && b->sim_flag)
        return cli_error(CLI_USAGE, "%s applies to --backend sim only", b->sim_flag);
    if (b->delay_p_given && b->sim.faults.delay_steps < 1 && b->sim.faults.delay_p > 0)
        return cli_error(CLI_USAGE, "--fault-delay-p needs --fault-delay K");
    if (b->kind == CLI_BACKEND_MPI && !gnn_comm_mpi_built())
        return cli_error(CLI_USAGE, "--backend mpi: this gnnref was built without MPI (install openmpi-bin and "
                                    "libopenmpi-dev, or drop NO_MPI=1, and rebuild)");
    return 0;
}

gnn_status cli_backend_run(const cli_backend *b, gnn_spmd_fn fn, void *arg, gnn_sim_report *rep, gnn_err *err)
{
    if (b->kind == CLI_BACKEND_SIM)
        return gnn_sim_run(&b->sim, fn, arg, rep, err);
    gnn_comm *c = NULL;
    gnn_status st = b->kind == CLI_BACKEND_MPI ? gnn_comm_mpi(&c, err) : gnn_comm_self(&c);
    if (st) {
        if (b->kind != CLI_BACKEND_MPI)
            gnn_err_set(err, st, "cannot create the communicator: %s", gnn_status_str(st));
        return st;
    }
    st = fn(c, arg);
    if (st) {
        gnn_err_set(err, st, "rank %d: %s", c->rank, gnn_comm_errmsg(c));
        /* under MPI the other ranks may wait in a collective for this one: end them all */
        if (b->kind == CLI_BACKEND_MPI && c->size > 1) {
            fprintf(stderr, "gnnref: error: %s\n", err->msg);
            gnn_comm_mpi_abort(c, cli_status_code(st)); /* the exit code of the same error under sim */
        }
    }
    gnn_comm_free(c);
    return st;
}

void cli_shared_init(cli_shared *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
}

void cli_shared_destroy(cli_shared *s) { pthread_mutex_destroy(&s->lock); }

gnn_status cli_shared_once(cli_shared *s, gnn_status (*prepare)(void *arg, int P, gnn_err *err), void *arg, int P)
{
    pthread_mutex_lock(&s->lock);
    if (!s->done) {
        s->st = prepare(arg, P, &s->err);
        s->done = 1;
    }
    const gnn_status st = s->st;
    pthread_mutex_unlock(&s->lock);
    return st;
}

json_object *cli_backend_json(const cli_backend *b, const gnn_sim_report *rep)
{
    if (b->kind != CLI_BACKEND_SIM || !rep || !rep->clock_s)
        return NULL;
    json_object *o = json_object_new_object();
    const int P = rep->ranks;
    json_object_object_add(o, "alpha_s", json_object_new_double(b->sim.alpha_s));
    json_object_object_add(o, "beta_Bps", json_object_new_double(b->sim.beta_Bps));
    json_object_object_add(o, "timeout_s", json_object_new_double(b->sim.timeout_s));
    json_object_object_add(o, "threads_per_rank", json_object_new_int(b->sim.threads_per_rank));
    double predicted = 0.0, compute_sum = 0.0;
    json_object *pr = json_object_new_array();
    for (int r = 0; r < P; r++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "rank", json_object_new_int(r));
        json_object_object_add(e, "clock_s", json_object_new_double(rep->clock_s[r]));
        json_object_object_add(e, "compute_s", json_object_new_double(rep->compute_s[r]));
        json_object_object_add(e, "comm_s", json_object_new_double(rep->comm_s[r]));
        json_object_array_add(pr, e);
        if (rep->clock_s[r] > predicted)
            predicted = rep->clock_s[r];
        compute_sum += rep->compute_s[r];
    }
    json_object_object_add(o, "per_rank", pr);
    json_object_object_add(o, "predicted_s", json_object_new_double(predicted));
    json_object_object_add(o, "wall_s", json_object_new_double(rep->wall_s));
    json_object_object_add(o, "compute_sum_s", json_object_new_double(compute_sum));
    /* the simulator's own cost: wall time over the ranks' summed compute (1 = free) */
    json_object_object_add(o, "overhead", json_object_new_double(compute_sum > 0 ? rep->wall_s / compute_sum : 0.0));
    int64_t moved = 0;
    json_object *mv = json_object_new_array();
    for (int s = 0; s < P; s++) {
        json_object *row = json_object_new_array();
        for (int d = 0; d < P; d++) {
            json_object_array_add(row, json_object_new_int64(rep->bytes_moved[(size_t)s * P + d]));
            moved += rep->bytes_moved[(size_t)s * P + d];
        }
        json_object_array_add(mv, row);
    }
    json_object_object_add(o, "bytes_moved", mv);
    json_object_object_add(o, "bytes_moved_total", json_object_new_int64(moved));
    json_object *f = json_object_new_object();
    json_object_object_add(f, "seed", json_object_new_uint64(b->sim.faults.seed));
    json_object_object_add(f, "drop_p", json_object_new_double(b->sim.faults.drop_p));
    json_object_object_add(f, "delay_p", json_object_new_double(b->sim.faults.delay_p));
    json_object_object_add(f, "delay_steps", json_object_new_int(b->sim.faults.delay_steps));
    json_object_object_add(f, "flip_p", json_object_new_double(b->sim.faults.flip_p));
    json_object_object_add(f, "dropped", json_object_new_int64(rep->faults_dropped));
    json_object_object_add(f, "delayed", json_object_new_int64(rep->faults_delayed));
    json_object_object_add(f, "flipped", json_object_new_int64(rep->faults_flipped));
    json_object_object_add(f, "detected", json_object_new_int64(rep->faults_detected));
    json_object_object_add(f, "undelivered", json_object_new_int64(rep->undelivered));
    json_object_object_add(o, "faults", f);
    return o;
}

json_object *cli_traffic_json(const int64_t *bytes, const int64_t *msgs, int P)
{
    json_object *o = json_object_new_object(), *by = json_object_new_object();
    int64_t tb = 0, tm = 0;
    json_object *mb = json_object_new_array(), *mm = json_object_new_array();
    for (int s = 0; s < P; s++) {
        json_object *rb = json_object_new_array(), *rm = json_object_new_array();
        for (int d = 0; d < P; d++) {
            int64_t b = 0, m = 0;
            for (int op = 0; op < GNN_COMM_OP_COUNT; op++) {
                b += bytes[((size_t)op * P + s) * P + d];
                m += msgs[((size_t)op * P + s) * P + d];
            }
            json_object_array_add(rb, json_object_new_int64(b));
            json_object_array_add(rm, json_object_new_int64(m));
            tb += b;
            tm += m;
        }
        json_object_array_add(mb, rb);
        json_object_array_add(mm, rm);
    }
    for (int op = 1; op < GNN_COMM_OP_COUNT; op++) {
        int64_t b = 0, m = 0;
        for (size_t i = 0; i < (size_t)P * P; i++) {
            b += bytes[(size_t)op * P * P + i];
            m += msgs[(size_t)op * P * P + i];
        }
        json_object *e = json_object_new_object();
        json_object_object_add(e, "bytes", json_object_new_int64(b));
        json_object_object_add(e, "messages", json_object_new_int64(m));
        json_object_object_add(by, gnn_comm_op_name((gnn_comm_op)op), e);
    }
    json_object_object_add(o, "bytes", json_object_new_int64(tb));
    json_object_object_add(o, "messages", json_object_new_int64(tm));
    json_object_object_add(o, "by_op", by);
    json_object *mx = json_object_new_object();
    json_object_object_add(mx, "bytes", mb);
    json_object_object_add(mx, "messages", mm);
    json_object_object_add(o, "matrix", mx); /* [src][dst], every operation */
    return o;
}

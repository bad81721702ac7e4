/* cli/backend.c -- the table of flags that choose a communicator backend (self, sim, mpi),
 * the simulator's model and faults, and the launcher that runs an SPMD function on it. */
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
    b->bandwidth_gbit = b->sim.beta_Bps * 8e-9;
}

static const cli_choice k_backends[] = {
    { "self", CLI_BACKEND_SELF, 0 }, { "sim", CLI_BACKEND_SIM, 0 }, { "mpi", CLI_BACKEND_MPI, 0 }, { NULL, 0, 0 }
};

const cli_flag cli_backend_flags[] = {
    { .name = "backend", .type = CLI_CHOICE, CLI_AT(cli_backend, kind), .choices = k_backends,
      .help = "communicator: one rank, the in-process simulator, or MPI (run under mpirun -np P)" },
    { .name = "ranks", .type = CLI_INT, CLI_AT(cli_backend, sim.ranks), .meta = "P", .lo = 1,
      .hi = GNN_SIM_MAX_RANKS, .note = "the simulator's limit", .bits = CLI_TAG_SIM,
      .help = "sim: number of simulated ranks" },
    { .name = "alpha", .type = CLI_REAL, CLI_AT(cli_backend, sim.alpha_s), .meta = "S", .rlo = 0, .rhi = 1e3,
      .bits = CLI_TAG_SIM, .help = "sim: latency per message in seconds" },
    { .name = "bandwidth", .type = CLI_REAL, CLI_AT(cli_backend, bandwidth_gbit), .meta = "G", .rlo = 0, .rhi = 1e6,
      .bits = CLI_TAG_SIM | CLI_LO_OPEN, .help = "sim: link bandwidth in Gbit/s" },
    { .name = "sim-timeout", .type = CLI_REAL, CLI_AT(cli_backend, sim.timeout_s), .meta = "S", .rlo = 1e-3,
      .rhi = 1e6, .bits = CLI_TAG_SIM, .help = "sim: bound on every wait in seconds" },
    { .name = "threads-per-rank", .type = CLI_INT, CLI_AT(cli_backend, sim.threads_per_rank), .meta = "N", .lo = 1,
      .hi = 1024, .bits = CLI_TAG_SIM, .help = "sim: OpenMP threads inside each simulated rank" },
    { .name = "fault-seed", .type = CLI_U64, CLI_AT(cli_backend, sim.faults.seed), .meta = "S", .bits = CLI_TAG_SIM,
      .help = "sim: seed of the fault decisions" },
    { .name = "fault-drop", .type = CLI_REAL, CLI_AT(cli_backend, sim.faults.drop_p), .meta = "P", .rlo = 0,
      .rhi = 1, .bits = CLI_TAG_SIM, .help = "sim: drop asynchronous segments with probability P" },
    { .name = "fault-delay", .type = CLI_INT, CLI_AT(cli_backend, sim.faults.delay_steps), .meta = "K", .lo = 1,
      .hi = 1000000, .dflt = "0: none", .bits = CLI_TAG_SIM, .help = "sim: delay asynchronous segments by K steps ..." },
    { .name = "fault-delay-p", .type = CLI_REAL, CLI_AT(cli_backend, sim.faults.delay_p), .meta = "P", .rlo = 0,
      .rhi = 1, .dflt = "1 when --fault-delay is given", .bits = CLI_TAG_SIM, .help = "sim: ... with probability P" },
    { .name = "fault-flip", .type = CLI_REAL, CLI_AT(cli_backend, sim.faults.flip_p), .meta = "P", .rlo = 0, .rhi = 1,
      .bits = CLI_TAG_SIM, .help = "sim: flip one bit of a message with probability P (always detected)" },
    { .name = "fault-drop-blocking", .type = CLI_REAL, CLI_AT(cli_backend, sim.faults.drop_blocking_p), .meta = "P",
      .rlo = 0, .rhi = 1, .bits = CLI_TAG_SIM,
      .help = "sim: lose a message of a blocking collective with probability P (the run stops at once, naming "
              "both ranks)" },
    CLI_END
};

int cli_backend_check(cli_backend *b, const cli_args *a)
{
    b->name = b->kind == CLI_BACKEND_SIM ? "sim" : b->kind == CLI_BACKEND_MPI ? "mpi" : "self";
    const char *sim_flag = cli_given_tag(a, CLI_TAG_SIM);
    if (b->kind != CLI_BACKEND_SIM && cli_given(a, "ranks"))
        return cli_error(CLI_USAGE, "--ranks applies to --backend sim (under MPI, mpirun -np sets the ranks)");
    if (b->kind != CLI_BACKEND_SIM && sim_flag)
        return cli_error(CLI_USAGE, "%s applies to --backend sim only", sim_flag);
    const int delay_p_given = cli_given(a, "fault-delay-p");
    if (delay_p_given && b->sim.faults.delay_steps < 1 && b->sim.faults.delay_p > 0)
        return cli_error(CLI_USAGE, "--fault-delay-p needs --fault-delay K");
    if (cli_given(a, "fault-delay") && !delay_p_given)
        b->sim.faults.delay_p = 1.0; /* a delay alone delays every segment */
    b->sim.beta_Bps = b->bandwidth_gbit * 1e9 / 8.0;
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
    json_object_object_add(f, "drop_blocking_p", json_object_new_double(b->sim.faults.drop_blocking_p));
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

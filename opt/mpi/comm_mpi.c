/* opt/mpi/comm_mpi.c -- the OpenMPI backend of gnn_comm (DESIGN.md section 4, docs/comm.md).
 *
 * One handle wraps a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN, so every MPI error
 * comes back as a gnn_status with MPI's message in c->err; library code never aborts.
 *
 * Operations:
 *   barrier     MPI_Barrier
 *   bcast       MPI_Bcast (in pieces of at most INT_MAX elements)
 *   allgatherv  MPI_Allgatherv
 *   alltoallv   MPI_Alltoallv
 *   ialltoallv  point-to-point (below)
 *   allreduce   NULL: the wrapper's deterministic reduce-scatter + allgather (core/dist/comm.c), so
 *               MPI computes exactly the additions the simulator does.
 * Elements travel as typed MPI data (MPI_UINT8_T, MPI_INT32_T, MPI_INT64_T, MPI_FLOAT,
 * MPI_DOUBLE); MPI counts and displacements are int, so every count and displacement (in
 * elements) must be at most INT_MAX, else GNN_ERR_RANGE with a message naming it. MPI forbids
 * a send buffer that overlaps the receive buffer; the other backends allow it, so an
 * overlapping send part is copied first. gnn_comm_mpi_abort calls MPI_Abort (the CLI ends
 * the whole job with it when one rank fails, so the others do not wait forever).
 *
 * Asynchronous alltoallv on user tag T uses MPI tag GNN_MPI_TAG_BASE + T on the private
 * communicator. begin: MPI_Isend of segment q straight from the user's buffer to every rank
 * q != me (zero-length segments too, so that every rank sends exactly one message per step
 * to every other rank), and a copy of the own segment. wait (in post order per tag): for
 * each source q != me in rank order, MPI_Mprobe(q, tag) + MPI_Get_count + MPI_Mrecv into a
 * buffer owned by the request, then MPI_Waitall on the sends. MPI never lets two messages
 * with the same (source, tag, communicator) overtake each other, so the s-th wait on a tag
 * receives every rank's s-th post on it.
 *
 * Every wait is bounded (DESIGN.md section 4: nothing may hang): the probes and the completion
 * of the sends poll (MPI_Improbe, MPI_Testall) under one deadline for the whole call,
 * GNN_MPI_WAIT_TIMEOUT seconds after its entry (default 300; 0 = no bound; opt/mpi/wait_bound.h),
 * then fail with GNN_ERR_COMM naming the first rank that had sent nothing by then.
 * A rank that skips a post is then reported instead of leaving its peers waiting forever; the
 * CLI ends the job (gnn_comm_mpi_abort). The blocking collectives are MPI's own and have no
 * such bound; ci/mpi-check.sh puts a time limit around every run.
 *
 * The one piece of global state (allowed here, DESIGN.md section 4): whether this file
 * called MPI_Init_thread, and how many handles are alive; the last gnn_comm_free calls
 * MPI_Finalize if we initialized MPI. MPI cannot be initialized twice in a process. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnnref/comm.h"
#include "opt/mpi/wait_bound.h"

#ifndef GNN_HAVE_MPI_BUILD

int gnn_comm_mpi_built(void) { return 0; }

gnn_status gnn_comm_mpi(gnn_comm **out, gnn_err *err)
{
    if (out)
        *out = NULL;
    return gnn_err_set(err, GNN_ERR_UNSUPPORTED,
                       "the MPI backend is not built: gnnref was built without MPI (NO_MPI=1, or no mpicc "
                       "found); install openmpi-bin and libopenmpi-dev and rebuild");
}

void gnn_comm_mpi_abort(gnn_comm *c, int code) { (void)c, (void)code; }

#else /* GNN_HAVE_MPI_BUILD */

#include <mpi.h>

/* MPI tags of the asynchronous alltoallv: base + user tag (MPI guarantees tags up to 32767). */
#define GNN_MPI_TAG_BASE 1000

int gnn_comm_mpi_built(void) { return 1; }

/* default bound of an asynchronous wait: long enough for any step of a real run to finish on
 * a slow peer, short enough that a CI job with a skipped post ends */
#define GNN_MPI_WAIT_TIMEOUT_DEFAULT 300.0

typedef struct mpi_state {
    MPI_Comm comm;
    int64_t posted[GNN_COMM_MAX_TAG], waited[GNN_COMM_MAX_TAG];
    double wait_timeout; /* seconds; 0: no bound (GNN_MPI_WAIT_TIMEOUT) */
} mpi_state;

/* each backend has its own request type and casts it to the opaque gnn_comm_req */
typedef struct mpi_req {
    int tag;          /* user tag */
    int64_t step;     /* this rank's post number on tag */
    gnn_dtype t;
    int waited;       /* 1 once gnn_comm_wait returned its segments */
    int n_sends;      /* outstanding MPI_Isend requests (size - 1 until the wait) */
    MPI_Request *sends;
    gnn_comm_seg *segs; /* [size], by src */
    void **bufs;        /* [size], owned by the request */
} mpi_req;

static int g_we_initialized; /* MPI_Init_thread was called here */
static int g_live;           /* handles alive */

static gnn_status mpi_fail(gnn_comm *c, int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        len = 0;
    s[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = '\0';
    return gnn_err_set(&c->err, GNN_ERR_COMM, "mpi: %s failed on rank %d of %d: %s (MPI error %d)", what, c->rank,
                       c->size, len ? s : "unknown error", rc);
}

static MPI_Datatype mpi_type(gnn_dtype t)
{
    switch (t) {
    case GNN_DT_U8: return MPI_UINT8_T;
    case GNN_DT_I32: return MPI_INT32_T;
    case GNN_DT_I64: return MPI_INT64_T;
    case GNN_DT_F32: return MPI_FLOAT;
    case GNN_DT_F64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

/* v[0..n) as int, or GNN_ERR_RANGE naming the first value over INT_MAX */
static gnn_status to_int(gnn_comm *c, const char *op, const char *what, const int64_t *v, int n, int *out)
{
    for (int q = 0; q < n; q++) {
        if (v[q] < 0 || v[q] > INT_MAX)
            return gnn_err_set(&c->err, GNN_ERR_RANGE,
                               "mpi: %s: %s[%d] = %lld elements does not fit in an MPI int count (max %d); "
                               "split the message",
                               op, what, q, (long long)v[q], INT_MAX);
        out[q] = (int)v[q];
    }
    return GNN_OK;
}

/* the byte range [lo, hi) that counts/displs address in buf (hi == lo when empty) */
static void extent(const int64_t *counts, const int64_t *displs, int n, size_t s, size_t *lo, size_t *hi)
{
    size_t a = SIZE_MAX, b = 0;
    for (int q = 0; q < n; q++)
        if (counts[q] > 0) {
            const size_t x = (size_t)displs[q] * s, y = (size_t)(displs[q] + counts[q]) * s;
            a = x < a ? x : a;
            b = y > b ? y : b;
        }
    *lo = a == SIZE_MAX ? 0 : a;
    *hi = a == SIZE_MAX ? 0 : b;
}

/* MPI forbids a send buffer that overlaps the receive buffer; the other backends allow it
 * (memmove), so an overlapping send range [s_lo, s_hi) is copied first: *send then points to
 * the copy, which holds the bytes from s_lo on (the caller shifts its displacements by s_lo)
 * and is what to free. */
static gnn_status unalias(gnn_comm *c, const char *op, const void **send, size_t s_lo, size_t s_hi, const void *recv,
                          size_t r_lo, size_t r_hi, void **copy)
{
    *copy = NULL;
    if (s_hi <= s_lo || r_hi <= r_lo || !*send || !recv)
        return GNN_OK;
    const uintptr_t a0 = (uintptr_t)*send + s_lo, a1 = (uintptr_t)*send + s_hi;
    const uintptr_t b0 = (uintptr_t)recv + r_lo, b1 = (uintptr_t)recv + r_hi;
    if (a1 <= b0 || b1 <= a0)
        return GNN_OK;
    char *p = malloc(s_hi - s_lo);
    if (!p)
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "mpi: %s: out of memory copying an in-place send buffer", op);
    memcpy(p, (const char *)*send + s_lo, s_hi - s_lo);
    *copy = p;
    *send = p;
    return GNN_OK;
}

static gnn_status mpi_barrier(gnn_comm *c)
{
    mpi_state *S = c->impl;
    int rc = MPI_Barrier(S->comm);
    return rc == MPI_SUCCESS ? GNN_OK : mpi_fail(c, rc, "barrier (MPI_Barrier)");
}

static gnn_status mpi_bcast(gnn_comm *c, void *buf, int64_t count, gnn_dtype t, int root)
{
    mpi_state *S = c->impl;
    const size_t s = gnn_dtype_size(t);
    /* in pieces of at most INT_MAX elements: every rank cuts the same pieces from count */
    int64_t off = 0;
    do {
        const int64_t n = count - off < INT_MAX ? count - off : INT_MAX;
        int rc = MPI_Bcast(off ? (void *)((char *)buf + (size_t)off * s) : buf, (int)n, mpi_type(t), root, S->comm);
        if (rc != MPI_SUCCESS)
            return mpi_fail(c, rc, "bcast (MPI_Bcast)");
        off += n;
    } while (off < count);
    return GNN_OK;
}

static gnn_status mpi_allgatherv(gnn_comm *c, const void *send, int64_t count, void *recv, const int64_t *counts,
                                 const int64_t *displs, gnn_dtype t)
{
    mpi_state *S = c->impl;
    const int P = c->size;
    const size_t s = gnn_dtype_size(t);
    int *v = malloc(sizeof(int) * 2 * (size_t)P);
    void *copy = NULL;
    gnn_status st;
    if (!v)
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "mpi: allgatherv: out of memory");
    if ((st = to_int(c, "allgatherv", "counts", counts, P, v)) || (st = to_int(c, "allgatherv", "displs", displs, P, v + P)))
        goto done;
    size_t r_lo, r_hi;
    extent(counts, displs, P, s, &r_lo, &r_hi);
    if ((st = unalias(c, "allgatherv", &send, 0, (size_t)count * s, recv, r_lo, r_hi, &copy)))
        goto done;
    int rc = MPI_Allgatherv(send, v[c->rank], mpi_type(t), recv, v, v + P, mpi_type(t), S->comm);
    st = rc == MPI_SUCCESS ? GNN_OK : mpi_fail(c, rc, "allgatherv (MPI_Allgatherv)");
done:
    free(copy);
    free(v);
    return st;
}

static gnn_status mpi_alltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                                void *recv, const int64_t *rcounts, const int64_t *rdispls, gnn_dtype t)
{
    mpi_state *S = c->impl;
    const int P = c->size;
    const size_t s = gnn_dtype_size(t);
    int *v = malloc(sizeof(int) * 4 * (size_t)P);
    void *copy = NULL;
    gnn_status st;
    if (!v)
        return gnn_err_set(&c->err, GNN_ERR_NOMEM, "mpi: alltoallv: out of memory");
    if ((st = to_int(c, "alltoallv", "scounts", scounts, P, v)) ||
        (st = to_int(c, "alltoallv", "sdispls", sdispls, P, v + P)) ||
        (st = to_int(c, "alltoallv", "rcounts", rcounts, P, v + 2 * P)) ||
        (st = to_int(c, "alltoallv", "rdispls", rdispls, P, v + 3 * P)))
        goto done;
    size_t s_lo, s_hi, r_lo, r_hi;
    extent(scounts, sdispls, P, s, &s_lo, &s_hi);
    extent(rcounts, rdispls, P, s, &r_lo, &r_hi);
    if ((st = unalias(c, "alltoallv", &send, s_lo, s_hi, recv, r_lo, r_hi, &copy)))
        goto done;
    if (copy) /* the copy starts at element s_lo / s */
        for (int q = 0; q < P; q++)
            v[P + q] = v[q] ? v[P + q] - (int)(s_lo / s) : 0;
    int rc = MPI_Alltoallv(send, v, v + P, mpi_type(t), recv, v + 2 * P, v + 3 * P, mpi_type(t), S->comm);
    st = rc == MPI_SUCCESS ? GNN_OK : mpi_fail(c, rc, "alltoallv (MPI_Alltoallv)");
done:
    free(copy);
    free(v);
    return st;
}

static void req_release(mpi_req *r, int P)
{
    if (!r)
        return;
    if (r->bufs)
        for (int q = 0; q < P; q++)
            free(r->bufs[q]);
    free(r->bufs);
    free(r->segs);
    free(r->sends);
    free(r);
}

static gnn_status mpi_ialltoallv(gnn_comm *c, const void *send, const int64_t *scounts, const int64_t *sdispls,
                                 gnn_dtype t, int tag, gnn_comm_req **req)
{
    mpi_state *S = c->impl;
    const int P = c->size, me = c->rank;
    const size_t s = gnn_dtype_size(t);
    gnn_status st;
    *req = NULL;
    int *v = malloc(sizeof(int) * 2 * (size_t)P);
    mpi_req *r = calloc(1, sizeof *r);
    if (!v || !r || !(r->sends = calloc((size_t)P, sizeof *r->sends)) || !(r->segs = calloc((size_t)P, sizeof *r->segs)) ||
        !(r->bufs = calloc((size_t)P, sizeof *r->bufs))) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "mpi: ialltoallv: out of memory");
        goto fail;
    }
    if ((st = to_int(c, "ialltoallv", "scounts", scounts, P, v)) || (st = to_int(c, "ialltoallv", "sdispls", sdispls, P, v + P)))
        goto fail;
    r->tag = tag;
    r->t = t;
    r->step = S->posted[tag];
    /* the own segment: a copy, so that the wait's list is complete */
    if (!(r->bufs[me] = malloc((size_t)scounts[me] * s + 1))) {
        st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "mpi: ialltoallv: out of memory for %lld elements", (long long)scounts[me]);
        goto fail;
    }
    if (scounts[me])
        memcpy(r->bufs[me], (const char *)send + (size_t)sdispls[me] * s, (size_t)scounts[me] * s);
    r->segs[me] = (gnn_comm_seg){ .src = me, .step = r->step, .count = scounts[me], .data = r->bufs[me] };
    /* one message to every other rank, zero-length ones too, straight from the user's buffer */
    for (int k = 1; k < P; k++) {
        const int q = (me + k) % P;
        const void *p = scounts[q] ? (const char *)send + (size_t)sdispls[q] * s : send;
        int rc = MPI_Isend(p, v[q], mpi_type(t), q, GNN_MPI_TAG_BASE + tag, S->comm, &r->sends[r->n_sends]);
        if (rc != MPI_SUCCESS) {
            st = mpi_fail(c, rc, "ialltoallv (MPI_Isend)");
            goto fail;
        }
        r->n_sends++;
    }
    S->posted[tag]++;
    free(v);
    *req = (gnn_comm_req *)r;
    return GNN_OK;
fail:
    /* sends already posted cannot be taken back: let MPI complete them in the background */
    if (r)
        for (int i = 0; i < r->n_sends; i++)
            MPI_Request_free(&r->sends[i]);
    req_release(r, P);
    free(v);
    return st;
}

/* Polling with a growing pause: a few immediate retries (the message is usually on its way),
 * then sleeps from 10 us doubling to 200 us, so a waiting rank neither burns its core nor adds
 * more than 0.2 ms to a late message. */
static void backoff(int tries)
{
    if (tries <= 64)
        return;
    const int k = tries - 64 < 5 ? tries - 64 : 5;
    const struct timespec ts = { 0, 10000L << k < 200000L ? 10000L << k : 200000L };
    nanosleep(&ts, NULL);
}

/* The real clock of a wait (opt/mpi/wait_bound.h): MPI_Wtime, and the backoff above. */
static double wait_now(void *arg)
{
    (void)arg;
    return MPI_Wtime();
}

static void wait_pause(void *arg, int tries)
{
    (void)arg;
    backoff(tries);
}

/* One wait's targets for gnn_wait_bounded: 0 .. P - 2 the sources q != me in rank order
 * (MPI_Improbe, then the receive), P - 1 this rank's own sends (MPI_Testall). */
typedef struct wait_job {
    gnn_comm *c;
    mpi_req *r;
    int tag; /* MPI tag */
    gnn_status st; /* a failed poll's error, message in c->err */
} wait_job;

static int wait_source(int target, int me) { return target < me ? target : target + 1; }

/* The step-th message from each source on this tag is this step's (non-overtaking). */
static int wait_poll(void *arg, int target)
{
    wait_job *J = arg;
    gnn_comm *c = J->c;
    mpi_req *r = J->r;
    mpi_state *S = c->impl;
    int rc, flag = 0;
    if (target == c->size - 1) { /* the sends */
        if ((rc = MPI_Testall(r->n_sends, r->sends, &flag, MPI_STATUSES_IGNORE)) != MPI_SUCCESS) {
            J->st = mpi_fail(c, rc, "ialltoallv wait (MPI_Testall on the sends)");
            return -1;
        }
        return flag;
    }
    const int q = wait_source(target, c->rank);
    MPI_Message msg;
    MPI_Status status;
    int n = 0;
    if ((rc = MPI_Improbe(q, J->tag, S->comm, &flag, &msg, &status)) == MPI_SUCCESS && flag)
        rc = MPI_Get_count(&status, mpi_type(r->t), &n);
    if (rc != MPI_SUCCESS) {
        J->st = mpi_fail(c, rc, "ialltoallv wait (MPI_Improbe)");
        return -1;
    }
    if (!flag)
        return 0;
    if (n == MPI_UNDEFINED || n < 0) {
        J->st = gnn_err_set(&c->err, GNN_ERR_COMM,
                            "wait: tag %d step %lld: the message from rank %d is not a whole number of %s elements",
                            r->tag, (long long)r->step, q, gnn_dtype_name(r->t));
        return -1;
    }
    if (!(r->bufs[q] = malloc((size_t)n * gnn_dtype_size(r->t) + 1))) {
        J->st = gnn_err_set(&c->err, GNN_ERR_NOMEM, "mpi: wait: out of memory for %d elements from rank %d", n, q);
        return -1;
    }
    if ((rc = MPI_Mrecv(r->bufs[q], n, mpi_type(r->t), &msg, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
        J->st = mpi_fail(c, rc, "ialltoallv wait (MPI_Mrecv)");
        return -1;
    }
    r->segs[q] = (gnn_comm_seg){ .src = q, .step = r->step, .count = n, .data = r->bufs[q] };
    return 1;
}

static gnn_status mpi_wait(gnn_comm *c, gnn_comm_req *req, const gnn_comm_seg **segs, int *n_segs)
{
    mpi_state *S = c->impl;
    mpi_req *r = (mpi_req *)req;
    const int P = c->size;
    if (r->waited)
        return gnn_err_set(&c->err, GNN_ERR_COMM, "wait: tag %d: step %lld was already waited", r->tag, (long long)r->step);
    if (r->step != S->waited[r->tag])
        return gnn_err_set(&c->err, GNN_ERR_COMM, "wait: tag %d: step %lld waited before step %lld (waits on a tag must "
                                                  "come in post order)",
                           r->tag, (long long)r->step, (long long)S->waited[r->tag]);
    /* every source, then the sends, under one deadline: GNN_MPI_WAIT_TIMEOUT bounds the call */
    const gnn_wait_clock clk = { wait_now, wait_pause, NULL };
    wait_job J = { c, r, GNN_MPI_TAG_BASE + r->tag, GNN_OK };
    int stuck = -1;
    double waited = 0;
    const gnn_wait_outcome out = gnn_wait_bounded(&clk, S->wait_timeout, P, wait_poll, &J, &stuck, &waited);
    if (out == GNN_WAIT_FAILED)
        return J.st;
    if (out == GNN_WAIT_DEADLINE && stuck < P - 1) {
        const int q = wait_source(stuck, c->rank);
        return gnn_err_set(&c->err, GNN_ERR_COMM,
                           "wait: ialltoallv(tag %d, step %lld): nothing from rank %d within %g s "
                           "(GNN_MPI_WAIT_TIMEOUT, the bound of the whole wait; waited %.2f s): rank %d skipped that "
                           "post, or is that far behind",
                           r->tag, (long long)r->step, q, S->wait_timeout, waited, q);
    }
    if (out == GNN_WAIT_DEADLINE)
        return gnn_err_set(&c->err, GNN_ERR_COMM,
                           "wait: ialltoallv(tag %d, step %lld): the other ranks did not take this rank's segments "
                           "within %g s (GNN_MPI_WAIT_TIMEOUT, the bound of the whole wait; waited %.2f s)",
                           r->tag, (long long)r->step, S->wait_timeout, waited);
    r->n_sends = 0;
    r->waited = 1;
    S->waited[r->tag]++;
    *segs = r->segs;
    *n_segs = P;
    return GNN_OK;
}

static void mpi_req_free(gnn_comm *c, gnn_comm_req *req)
{
    mpi_req *r = (mpi_req *)req;
    /* freed before its wait (an error path): the sends stay with MPI, which completes them
     * when the receivers take them; later waits on this tag fail as out of order */
    for (int i = 0; i < r->n_sends; i++)
        if (r->sends[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&r->sends[i]);
    req_release(r, c->size);
}

static void mpi_destroy(gnn_comm *c)
{
    mpi_state *S = c->impl;
    if (S) {
        MPI_Comm_free(&S->comm);
        free(S);
    }
    if (--g_live == 0 && g_we_initialized) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin)
            MPI_Finalize();
    }
}

static const gnn_comm_ops k_mpi_ops = {
    .name = "mpi",
    .barrier = mpi_barrier,
    .bcast = mpi_bcast,
    .allgatherv = mpi_allgatherv,
    .alltoallv = mpi_alltoallv,
    .ialltoallv = mpi_ialltoallv,
    .wait = mpi_wait,
    .req_free = mpi_req_free,
    .allreduce = NULL, /* the deterministic generic one: sim and MPI agree bitwise */
    .destroy = mpi_destroy,
};

void gnn_comm_mpi_abort(gnn_comm *c, int code)
{
    /* only a handle of this backend; MPI_Abort ends every rank of the job (mpirun reports it) */
    if (!c || c->ops != &k_mpi_ops || !c->impl)
        return;
    mpi_state *S = c->impl;
    MPI_Abort(S->comm, code);
}

static gnn_status init_fail(gnn_err *err, int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        len = 0;
    s[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = '\0';
    return gnn_err_set(err, GNN_ERR_COMM, "mpi: %s failed: %s (MPI error %d)", what, len ? s : "unknown error", rc);
}

gnn_status gnn_comm_mpi(gnn_comm **out, gnn_err *err)
{
    if (!out)
        return gnn_err_set(err, GNN_ERR_INVAL, "gnn_comm_mpi: out is NULL");
    *out = NULL;
    /* the bound of every asynchronous wait, read before MPI is started, so a bad value leaves nothing to undo */
    double wait_timeout = GNN_MPI_WAIT_TIMEOUT_DEFAULT;
    const char *env = getenv("GNN_MPI_WAIT_TIMEOUT");
    if (env && *env) {
        char *end = NULL;
        wait_timeout = strtod(env, &end);
        if (*end || !(wait_timeout >= 0 && wait_timeout <= 1e9))
            return gnn_err_set(err, GNN_ERR_INVAL,
                               "mpi: GNN_MPI_WAIT_TIMEOUT = '%s' is not a number of seconds in [0, 1e9] (0: no bound)",
                               env);
    }
    int inited = 0, fin = 0, rc;
    MPI_Finalized(&fin);
    if (fin)
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED,
                           "mpi: MPI was already finalized in this process (the last MPI communicator was freed); "
                           "MPI can be initialized only once per process: keep one communicator for the whole run");
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        /* the MPI default error handler aborts; an init failure usually aborts inside MPI */
        if ((rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided)) != MPI_SUCCESS)
            return init_fail(err, rc, "MPI_Init_thread");
        g_we_initialized = 1;
        /* errors not tied to our communicator (MPI_COMM_WORLD's handler) must return too */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (provided < MPI_THREAD_FUNNELED) {
            gnn_status st = gnn_err_set(err, GNN_ERR_UNSUPPORTED,
                                        "mpi: the MPI library provides thread level %d, gnnref needs "
                                        "MPI_THREAD_FUNNELED (%d)",
                                        provided, MPI_THREAD_FUNNELED);
            if (g_live == 0)
                MPI_Finalize();
            return st;
        }
    }
    mpi_state *S = calloc(1, sizeof *S);
    if (!S)
        return gnn_err_set(err, GNN_ERR_NOMEM, "mpi: out of memory");
    S->wait_timeout = wait_timeout;
    if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &S->comm)) != MPI_SUCCESS) {
        free(S);
        gnn_status st = init_fail(err, rc, "MPI_Comm_dup(MPI_COMM_WORLD)");
        if (g_live == 0 && g_we_initialized)
            MPI_Finalize();
        return st;
    }
    MPI_Comm_set_errhandler(S->comm, MPI_ERRORS_RETURN);
    int rank = 0, size = 1, flag = 0;
    void *ub = NULL;
    MPI_Comm_rank(S->comm, &rank);
    MPI_Comm_size(S->comm, &size);
    MPI_Comm_get_attr(S->comm, MPI_TAG_UB, &ub, &flag);
    if (flag && ub && *(int *)ub < GNN_MPI_TAG_BASE + GNN_COMM_MAX_TAG - 1) {
        MPI_Comm_free(&S->comm);
        free(S);
        return gnn_err_set(err, GNN_ERR_UNSUPPORTED, "mpi: MPI_TAG_UB = %d is below the %d tags gnnref needs",
                           *(int *)ub, GNN_MPI_TAG_BASE + GNN_COMM_MAX_TAG);
    }
    gnn_status st = gnn_comm_alloc(&k_mpi_ops, rank, size, S, out);
    if (st) {
        MPI_Comm_free(&S->comm);
        free(S);
        return gnn_err_set(err, st, "mpi: out of memory for the communicator handle");
    }
    g_live++;
    return GNN_OK;
}

#endif /* GNN_HAVE_MPI_BUILD */

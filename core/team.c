/* core/team.c -- the adaptive OpenMP team size (include/gnnref/team.h states the rule). */
#include <stdio.h>
#include <string.h>
#include "gnnref/team.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

/* Cores this process may run on. */
static int cores(void)
{
#ifdef GNN_HAVE_OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

/* Tasks running or runnable on the machine right now, other than the caller: Linux's
 * procs_running (/proc/stat) less one; -1 where it cannot be read. A snapshot, so only the
 * first guess: the measurements decide after that. */
static int others_running(void)
{
#ifdef __linux__
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "procs_running ", 14)) {
            if (sscanf(line + 14, "%d", &n) != 1)
                n = -1;
            break;
        }
    fclose(f);
    return n >= 1 ? n - 1 : -1;
#else
    return -1;
#endif
}

static int current_threads(void)
{
#ifdef GNN_HAVE_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void set_threads(int n)
{
#ifdef GNN_HAVE_OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static void add_candidate(gnn_team *t, int size)
{
    for (int i = 0; i < t->n; i++)
        if (t->size[i] == size)
            return;
    if (t->n < GNN_TEAM_CANDIDATES && size >= 1)
        t->size[t->n++] = size;
}

void gnn_team_init_free(gnn_team *t, int threads, int adapt, int free_cores)
{
    *t = (gnn_team){ 0 };
    const int T = threads > 0 ? threads : current_threads();
    t->adapt = adapt;
    add_candidate(t, T);
    if (adapt) {
        add_candidate(t, T - 1); /* one core taken by another process: the common case */
        for (int s = T / 2; s >= 1; s /= 2)
            add_candidate(t, s);
    }
    for (int i = 0; i < GNN_TEAM_CANDIDATES; i++)
        t->avg[i] = -1.0;
    /* start with the largest candidate that fits the free cores (candidates descend) */
    while (t->cur + 1 < t->n && t->size[t->cur] > (free_cores > 1 ? free_cores : 1))
        t->cur++;
    t->next_probe = t->cur == 0 && t->n > 1 ? 1 : 0;
    t->probe_every = GNN_TEAM_PROBE_EVERY;
}

void gnn_team_init(gnn_team *t, int threads, int adapt)
{
    const int T = threads > 0 ? threads : current_threads();
    const int others = adapt ? others_running() : -1;
    gnn_team_init_free(t, T, adapt, others < 0 ? T : cores() - others);
}

/* The next candidate to probe: one never measured first, else the round robin's next, never
 * the current choice. */
static int probe_candidate(gnn_team *t)
{
    for (int i = 0; i < t->n; i++)
        if (i != t->cur && t->avg[i] < 0)
            return i;
    int i = t->next_probe;
    if (i == t->cur)
        i = (i + 1) % t->n;
    t->next_probe = (i + 1) % t->n;
    return i;
}

static int any_unmeasured(const gnn_team *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->avg[i] < 0)
            return 1;
    return 0;
}

int gnn_team_begin(gnn_team *t)
{
    t->running = t->cur;
    /* after the warm-up: once the current choice has a measurement, every other candidate
     * once, then one probe every probe_every units */
    if (t->adapt && t->n > 1 && t->done >= GNN_TEAM_WARMUP &&
        (t->since_probe >= t->probe_every || (t->avg[t->cur] >= 0 && any_unmeasured(t))))
        t->running = probe_candidate(t);
    set_threads(t->size[t->running]);
    return t->size[t->running];
}

void gnn_team_end(gnn_team *t, double seconds, double work)
{
    const int r = t->running;
    t->units[r]++;
    t->done++;
    t->since_probe = r == t->cur ? t->since_probe + 1 : 0;
    if (!t->adapt || t->done <= GNN_TEAM_WARMUP)
        return;
    const double per = seconds / (work > 0 ? work : 1.0);
    /* the current choice's average follows its last few units (weight 0.2 each); a probe's
     * single unit moves its candidate's average half way, so one noisy unit cannot flip the
     * choice unless that candidate was already close */
    const double w = r == t->cur ? 0.2 : 0.5;
    t->avg[r] = t->avg[r] < 0 ? per : (1.0 - w) * t->avg[r] + w * per;
    int best = t->cur;
    for (int i = 0; i < t->n; i++)
        if (t->avg[i] >= 0 && t->avg[i] < (1.0 - GNN_TEAM_MARGIN) * t->avg[best])
            best = i;
    if (best != t->cur) {
        t->cur = best;
        t->probe_every = GNN_TEAM_PROBE_EVERY;
        t->since_probe = 0;
    } else if (r != t->cur && !any_unmeasured(t) && t->probe_every < GNN_TEAM_PROBE_MAX) {
        t->probe_every *= 2; /* the probe confirmed the choice */
    }
}

double gnn_team_mean(const gnn_team *t)
{
    double s = 0.0;
    int64_t n = 0;
    for (int i = 0; i < t->n; i++) {
        s += (double)t->size[i] * (double)t->units[i];
        n += t->units[i];
    }
    return n ? s / (double)n : (double)t->size[0];
}

int gnn_team_apply(const gnn_team *t)
{
    set_threads(t->size[t->cur]);
    return t->size[t->cur];
}

void gnn_team_restore(const gnn_team *t)
{
    set_threads(t->size[0]);
}

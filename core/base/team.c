/* core/base/team.c -- the adaptive OpenMP team size (include/gnnref/team.h states the rule). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <dirent.h>
#endif
#include "gnnref/team.h"
#ifdef GNN_HAVE_OPENMP
#include <omp.h>
#endif

/* Cores of the machine that are online: the other tasks procs_running counts may run on any of
 * them, not only on the ones this process may use. */
static int cores(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 && n <= 1 << 20 ? (int)n : 1;
}

/* Linux's procs_running (/proc/stat): tasks running or runnable right now, the caller
 * included; -1 where it cannot be read. */
static int procs_running(void)
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
    return n >= 1 ? n : -1;
#else
    return -1;
#endif
}

/* Threads of this process that are running or runnable (state R in /proc/self/task/T/stat):
 * an OpenMP worker still on its way to sleep after the last region counts in procs_running
 * too, and is not another task. 1 (the caller) where it cannot be read. */
static int own_running(void)
{
#ifdef __linux__
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        const size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = 0;
        const char *paren = strrchr(buf, ')'); /* the name may hold spaces: the state follows ") " */
        if (paren && paren[1] == ' ' && paren[2] == 'R')
            n++;
    }
    closedir(d);
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

/* Tasks of other processes that keep running: the least of procs_running less this process's
 * running threads over 10 snapshots 0.5 ms apart (a task that only passes by, a kernel
 * worker, a process exiting, a shell starting, is missed by some of them; a busy process is
 * in all). -1 where it cannot be read. Only the first guess: the measurements decide after
 * that. */
static int others_running(void)
{
    int least = -1;
    for (int i = 0; i < 10; i++) {
        const int n = procs_running();
        if (n < 0)
            return -1;
        const int others = n - own_running();
        if (least < 0 || others < least)
            least = others < 0 ? 0 : others;
        if (least == 0)
            break;
        nanosleep(&(struct timespec){ 0, 500000 }, NULL);
    }
    return least;
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
    if (adapt && others >= 0) { /* an informed guess: trusted for a while before it is checked */
        t->informed = 1;
        t->probe_every = GNN_TEAM_PROBE_INFORMED;
    }
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

void gnn_team_expect(gnn_team *t, int64_t units)
{
    t->total = units > 0 ? units : 0;
}

int gnn_team_begin(gnn_team *t)
{
    t->running = t->cur;
    /* after the warm-up: once the current choice has a measurement, every other candidate
     * once, then one probe every probe_every units */
    if (t->adapt && t->n > 1 && t->done >= GNN_TEAM_WARMUP &&
        (t->since_probe >= t->probe_every || (!t->informed && t->avg[t->cur] >= 0 && any_unmeasured(t))) &&
        (t->total == 0 || t->total - t->done > t->probe_every))
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

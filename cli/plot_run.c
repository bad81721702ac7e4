/* cli/plot_run.c -- `gnnref plot`'s dealings with the outside (cli/plot.h): a private
 * temporary directory whose every file is removed again, gnuplot found on PATH and run in its
 * own process group with a timeout, and the PNG it wrote checked and copied into place. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/plot.h"

/* ---- the temporary directory ---- */

int plot_tmp_open(plot_tmp *t)
{
    memset(t, 0, sizeof *t);
    const char *base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    if (snprintf(t->dir, sizeof t->dir, "%s/gnnref-plot-XXXXXX", base) >= (int)sizeof t->dir) {
        t->dir[0] = '\0';
        return cli_error(CLI_FAIL, "plot: TMPDIR '%s' is too long", base);
    }
    if (!mkdtemp(t->dir)) {
        const int e = errno;
        t->dir[0] = '\0';
        return cli_error(CLI_FAIL, "plot: cannot make a temporary directory in '%s': %s", base, strerror(e));
    }
    return 0;
}

void plot_tmp_path(plot_tmp *t, const char *name, char *path, size_t cap)
{
    int known = 0;
    for (int i = 0; i < t->n; i++)
        known |= !strcmp(t->files[i], name);
    if (!known && t->n < PLOT_TMP_MAX)
        snprintf(t->files[t->n++], sizeof t->files[0], "%s", name);
    snprintf(path, cap, "%s/%s", t->dir, name);
}

FILE *plot_tmp_file(plot_tmp *t, const char *name, char *path, size_t cap)
{
    plot_tmp_path(t, name, path, cap);
    FILE *f = fopen(path, "w");
    if (!f)
        cli_error(CLI_FAIL, "plot: cannot write '%s': %s", path, strerror(errno));
    return f;
}

void plot_tmp_close(plot_tmp *t)
{
    if (!t->dir[0])
        return;
    char path[4200];
    for (int i = 0; i < t->n; i++) {
        snprintf(path, sizeof path, "%s/%s", t->dir, t->files[i]);
        unlink(path);
    }
    rmdir(t->dir);
    t->dir[0] = '\0';
    t->n = 0;
}

/* ---- finding and running gnuplot ---- */

int plot_find_gnuplot(char *path, size_t cap)
{
    const char *env = getenv("GNNREF_GNUPLOT");
    if (env && env[0]) {
        snprintf(path, cap, "%s", env);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        const size_t len = strcspn(p, ":");
        struct stat st;
        if (len == 0)
            snprintf(path, cap, "./gnuplot");
        else
            snprintf(path, cap, "%.*s/gnuplot", (int)len, p);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 0;
        p += len;
        if (*p == ':')
            p++;
    }
    path[0] = '\0';
    return -1;
}

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

int plot_run_gnuplot(const char *gnuplot, const char *script, const char *log, double timeout_s, char *why,
                     size_t cap)
{
    struct sigaction sa, old[3];
    static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_stop = 0;
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, cap, "cannot start gnuplot: fork: %s", strerror(errno));
        for (int i = 0; i < 3; i++)
            sigaction(sigs[i], &old[i], NULL);
        return 1;
    }
    if (pid == 0) {
        /* its own process group, so that a timeout kills whatever it started too */
        setpgid(0, 0);
        for (int i = 0; i < 3; i++)
            signal(sigs[i], SIG_DFL);
        const int in = open("/dev/null", O_RDONLY);
        const int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
            _exit(126);
        close(in);
        close(out);
        execl(gnuplot, "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* both sides: whichever runs first */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status = 0, rc = 1;
    for (;;) {
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(why, cap, "waiting for gnuplot: %s", strerror(errno));
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            goto out;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        const double el = (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec);
        if (g_stop || el > timeout_s) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            if (g_stop)
                snprintf(why, cap, "interrupted (signal %d): gnuplot stopped", (int)g_stop);
            else
                snprintf(why, cap, "gnuplot did not finish within %g s and was killed (GNNREF_PLOT_TIMEOUT sets "
                                   "the limit)",
                         timeout_s);
            goto out;
        }
        const struct timespec nap = { 0, 5 * 1000 * 1000 };
        nanosleep(&nap, NULL);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        rc = 0;
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(why, cap, "cannot run '%s'", gnuplot);
    else if (WIFEXITED(status))
        snprintf(why, cap, "gnuplot failed (exit %d)", WEXITSTATUS(status));
    else
        snprintf(why, cap, "gnuplot died of signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
out:
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    return rc;
}

/* ---- the picture ---- */

int plot_png_size(const char *path, uint32_t *w, uint32_t *h)
{
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    const size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n != sizeof b || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0)
        return -1;
    const uint32_t len = (uint32_t)b[8] << 24 | (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];
    if (len != 13)
        return -1;
    *w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
    *h = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
    return 0;
}

static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(dst, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[1 << 16];
    size_t n;
    int bad = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        bad |= fwrite(buf, 1, n, out) != n;
    bad |= ferror(in);
    fclose(in);
    bad |= fclose(out) != 0;
    return bad ? -1 : 0;
}

int plot_install(const char *src, const char *out)
{
    struct stat st;
    char tmp[4096 + 32];
    if ((lstat(out, &st) == 0 && !S_ISREG(st.st_mode)) ||
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid()) >= (int)sizeof tmp) {
        if (copy_file(src, out) != 0)
            return cli_error(CLI_FAIL, "-o %s: cannot write the picture: %s", out, strerror(errno));
        return 0;
    }
    if (copy_file(src, tmp) != 0) {
        const int e = errno;
        unlink(tmp);
        return cli_error(CLI_FAIL, "-o %s: cannot write the picture: %s", out, strerror(e));
    }
    if (rename(tmp, out) != 0) {
        const int e = errno;
        unlink(tmp);
        return cli_error(CLI_FAIL, "-o %s: cannot rename '%s' over it: %s", out, tmp, strerror(e));
    }
    return 0;
}

void plot_gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'')
            fputs("''", f);
        else if (*p < 0x20 || *p == 0x7f)
            fputc(' ', f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

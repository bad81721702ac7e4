/* fuzz/fuzz_report.c -- libFuzzer harness of the JSON that a command reads back: the reports
 * and gnnref-bench JSON that `gnnref plot` reads (cli/cmd_plot.c, cli/plot_draw.c; docs/plot.md,
 * docs/fuzzing.md).
 *
 * The input is one JSON file, or a bundle (fuzz/fuzz_util.h) of up to 8 of them ("@@ a.json\n
 * {...}\n@@ b.json\n{...}"): several reports make the scaling picture. The last byte of the
 * input chooses --kind (auto, loss, phases, traffic, ranks, scaling, bench; the value mod 8, 7
 * meaning auto again). The harness runs the command itself, gnn_cmd_plot, with everything up to
 * gnuplot: reading with json-c, telling the inputs apart, choosing the picture, and writing
 * every data file and the script from the values read. gnuplot is never run: GNNREF_GNUPLOT
 * names a file that does not exist, so a run that got that far ends with "not an executable
 * file" (exit 2), as every refused input does. The command's messages go to /dev/null
 * (FUZZ_VERBOSE=1: to stderr); the sanitizers' reports still reach fd 2. */
#include <dirent.h>
#include "fuzz/fuzz_util.h"

int gnn_cmd_plot(int argc, char **argv); /* cli/cmd_plot.c */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUTS 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char gp[FZ_PATH];
    snprintf(gp, sizeof gp, "%s/no-such-gnuplot", fz_scratch());
    setenv("GNNREF_GNUPLOT", gp, 1);
    setenv("TMPDIR", fz_scratch(), 1); /* the command's private directory goes there */
    if (!getenv("FUZZ_VERBOSE")) {
        FILE *null = fopen("/dev/null", "w");
        if (null)
            stdout = null, stderr = null; /* the command's lines only: ASan and UBSan write to fd 2 */
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The regular files directly in dir (full paths, malloc'ed), at most cap, sorted by name. */
static int list_files(const char *dir, char **list, int cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && n < cap && (e = readdir(d)) != NULL) {
        char p[FZ_PATH];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && (list[n] = strdup(p)) != NULL)
            n++;
    }
    if (d)
        closedir(d);
    qsort(list, (size_t)n, sizeof *list, by_name);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const kinds[8] = { "auto", "loss", "phases", "traffic", "ranks", "scaling", "bench", "auto" };
    if (size == 0)
        return 0;
    char dir[FZ_PATH], out[FZ_PATH];
    snprintf(dir, sizeof dir, "%s/report", fz_scratch());
    snprintf(out, sizeof out, "%s/out.png", fz_scratch());
    mkdir(dir, 0700);
    const char *kind = kinds[data[size - 1] & 7];
    size--;
    char *files[MAX_INPUTS];
    int n = 0;
    if (size >= 3 && !memcmp(data, "@@ ", 3)) {
        fz_unbundle(data, size, dir);
        char *list[64];
        const int m = list_files(dir, list, 64);
        for (int i = 0; i < m; i++) {
            if (n < MAX_INPUTS)
                files[n++] = list[i];
            else
                free(list[i]);
        }
    } else {
        char p[FZ_PATH];
        snprintf(p, sizeof p, "%s/report.json", dir);
        if (fz_write(p, data, size, 0) == 0 && (files[0] = strdup(p)))
            n = 1;
    }
    if (n > 0) {
        char *argv[MAX_INPUTS + 6];
        int argc = 0;
        argv[argc++] = "plot";
        for (int i = 0; i < n; i++)
            argv[argc++] = files[i];
        argv[argc++] = "-o";
        argv[argc++] = out;
        argv[argc++] = "--kind";
        argv[argc++] = (char *)kind;
        argv[argc] = NULL;
        const int rc = gnn_cmd_plot(argc, argv);
        if (rc != 2 && rc != 1) {
            /* without gnuplot no run can draw: exit 0 means a path that skipped its own checks */
            dprintf(2, "fuzz_report: plot returned %d without gnuplot\n", rc);
            abort();
        }
    }
    for (int i = 0; i < n; i++)
        free(files[i]);
    fz_rm_tree(dir, 0);
    remove(out);
    return 0;
}

/* fuzz/fuzz_ckpt.c -- libFuzzer harness of the checkpoint files that `gnnref train --resume DIR`
 * reads (core/io/checkpoint.c, and every trainer's restore: core/train/epoch.c, core/train/train.c,
 * core/train/train_part.c; docs/checkpoint.md, docs/fuzzing.md).
 *
 * At start the harness makes a small dataset (an SBM of 160 vertices, half of them training
 * vertices) and, for each of five settings, a real checkpoint written after the first of two
 * epochs: the run is made in a child process killed by the test hook
 * (GNNREF_TEST_KILL_AT_STEP) at the first step of the second epoch, as tests/test_checkpoint.c
 * does. The settings:
 *   0  one rank, mini-batch SAGE
 *   1  2 simulated ranks on partitions, --remote hec --hec-delay 1 (the HEC's state)
 *   2  2 simulated ranks, --remote hec --pipeline 2
 *   3  2 simulated ranks, --remote fetch --embed-dim 4 (sparse embeddings and their optimizer)
 *   4  2 simulated ranks, --remote fetch --match (Match's previous batch)
 * The input is rank 0's checkpoint file followed by one byte that chooses the setting (mod 5).
 * The harness makes the header's CRC and every section's CRC32C that lies in the file right (so
 * that mutations reach what the trainers do with the values), writes it beside the setting's
 * other files, and runs the command, gnn_cmd_train, with --resume: the run restores it and
 * trains the second epoch. Refusals are expected (exit 1 or 2); a crash, a sanitizer report, a
 * leak or a hang is a finding. FUZZ_CKPT_EXPORT=DIR writes the five template files there, with
 * their setting byte, and stops (fuzz/make-corpus.sh makes the seeds so). The command's output
 * goes to /dev/null (FUZZ_VERBOSE=1: shown). */
#include <signal.h>
#include <sys/wait.h>
#include "fuzz/fuzz_util.h"
#include "gnnref/checkpoint.h"

int gnn_cmd_train(int argc, char **argv); /* cli/cmd_train.c */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SETTINGS 5
static const char *const k_setting[SETTINGS] = {
    "",
    "--backend sim --ranks 2 --remote hec --hec-delay 1",
    "--backend sim --ranks 2 --remote hec --pipeline 2",
    "--backend sim --ranks 2 --remote fetch --embed-dim 4",
    "--backend sim --ranks 2 --remote fetch --match",
};
static char g_data[FZ_PATH];

static void die(const char *what)
{
    dprintf(2, "fuzz_ckpt: %s\n", what);
    abort();
}

/* gnnref train --data tiny.gnn ... SETTING --epochs 2 EXTRA... through the command itself. */
static int train(int setting, const char *extra1, const char *extra2)
{
    char line[1024];
    snprintf(line, sizeof line, "train --data %s --batch 8 --hidden 4 --layers 2 --fanouts 3,3 --epochs 2 --seed 3 "
                                "--quiet %s %s %s",
             g_data, k_setting[setting], extra1 ? extra1 : "", extra2 ? extra2 : "");
    char *argv[64];
    int argc = 0;
    for (char *t = strtok(line, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return gnn_cmd_train(argc, argv);
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc((size_t)n + 1);
    *len = *buf && n >= 0 ? fread(*buf, 1, (size_t)n, f) : 0;
    fclose(f);
    return *buf && (long)*len == n ? 0 : -1;
}

/* epochs_done of DIR's rank-0 file, or -1 */
static int epochs_done(const char *dir)
{
    char p[FZ_PATH];
    uint8_t *b = NULL;
    size_t n = 0;
    snprintf(p, sizeof p, "%s/rank-00000.ckpt", dir);
    int e = -1;
    if (read_file(p, &b, &n) == 0 && n >= GNN_CKPT_HEADER_SIZE)
        e = (int)fz_u32(b + 24);
    free(b);
    return e;
}

/* The setting's checkpoint after epoch 1 of 2, in <scratch>/ckpt-S: the run killed at the first
 * step of epoch 2 (its index is not known beforehand: tried from step 1 up). */
static void make_template(int setting)
{
    char dir[FZ_PATH];
    snprintf(dir, sizeof dir, "%s/ckpt-%d", fz_scratch(), setting);
    for (int kill = 1; kill < 64; kill++) {
        fz_rm_tree(dir, 0);
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0) {
            char k[16];
            snprintf(k, sizeof k, "%d", kill);
            setenv("GNNREF_TEST_KILL_AT_STEP", k, 1);
            int rc = train(setting, "--checkpoint", dir);
            _exit(rc == 0 ? 0 : 100 + rc);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            die("the template run failed (FUZZ_VERBOSE=1 shows why)");
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && epochs_done(dir) == 1)
            return;
    }
    die("no step of the template run left a checkpoint after epoch 1");
}

/* Header CRC, and the CRC of every section that lies in the file (up to the first that does not). */
static void fix_ckpt(uint8_t *b, size_t len)
{
    if (len < GNN_CKPT_HEADER_SIZE)
        return;
    fz_put_u32(b + 128, gnn_crc32c(0, b, 128));
    const uint32_t sections = fz_u32(b + 56);
    size_t o = GNN_CKPT_HEADER_SIZE;
    for (uint32_t s = 0; s < sections && len - o >= 16; s++) {
        const uint64_t n = fz_u64(b + o + 8);
        if (n > len - o - 16)
            break;
        fz_put_u32(b + o + 4, gnn_crc32c(0, b + o + 16, (size_t)n));
        o += 16 + (size_t)n;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const int verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (!verbose) {
        FILE *null = fopen("/dev/null", "w");
        if (null)
            stdout = null, stderr = null; /* the command's lines only: the sanitizers write to fd 2 */
    }
    gnn_sbm_params sp;
    gnn_sbm_defaults(&sp);
    sp.n = 160;
    sp.classes = 3;
    sp.num_features = 6;
    sp.deg_in = 4;
    sp.deg_out = 3;
    sp.train = 0.5, sp.val = 0.25, sp.test = 0.25;
    gnn_dataset ds;
    gnn_err err = { { 0 } };
    snprintf(g_data, sizeof g_data, "%s/tiny.gnn", fz_scratch());
    if (gnn_gen_sbm(&ds, &sp, &err) || gnn_dataset_save(&ds, g_data, &err))
        die(err.msg);
    gnn_dataset_free(&ds);
    for (int s = 0; s < SETTINGS; s++)
        make_template(s);
    const char *out = getenv("FUZZ_CKPT_EXPORT");
    if (out) {
        for (int s = 0; s < SETTINGS; s++) {
            char p[FZ_PATH];
            uint8_t *b = NULL;
            size_t n = 0;
            snprintf(p, sizeof p, "%s/ckpt-%d/rank-00000.ckpt", fz_scratch(), s);
            if (read_file(p, &b, &n))
                die("read template");
            b[n] = (uint8_t)s;
            snprintf(p, sizeof p, "%s/setting-%d.ckpt", out, s);
            if (fz_write(p, b, n + 1, 0))
                die("export");
            free(b);
        }
        fz_cleanup();
        _exit(0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    const int setting = data[size - 1] % SETTINGS;
    uint8_t *b = malloc(size);
    if (!b)
        return 0;
    memcpy(b, data, size - 1);
    fix_ckpt(b, size - 1);
    char dir[FZ_PATH], path[FZ_PATH];
    snprintf(dir, sizeof dir, "%s/ckpt-%d", fz_scratch(), setting);
    snprintf(path, sizeof path, "%s/rank-00000.ckpt", dir);
    /* the template's own file is restored after each input; only rank 0's file is the input */
    static uint8_t *tpl[SETTINGS];
    static size_t tpl_len[SETTINGS];
    if (!tpl[setting] && read_file(path, &tpl[setting], &tpl_len[setting]))
        die("read template");
    if (fz_write(path, b, size - 1, 0) == 0)
        train(setting, "--resume", dir);
    if (fz_write(path, tpl[setting], tpl_len[setting], 0))
        die("restore template");
    free(b);
    return 0;
}

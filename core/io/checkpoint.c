/* core/io/checkpoint.c -- checkpoint files (include/gnnref/checkpoint.h has the format; the
 * trainers decide what goes in: core/train/epoch.c the loop's state, core/train/train.c and
 * core/train_part*.c theirs; docs/checkpoint.md). Written as path.tmp then renamed, as
 * core/io/format.c writes datasets; every byte read is covered by a CRC32C before it is used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gnnref/checkpoint.h"
#include "gnnref/crc32c.h"
#include "gnnref/impl.h"
#include "gnnref/train_part.h"

static const char k_magic[8] = { 'G', 'N', 'N', 'C', 'K', 'P', 'T', 0 };

gnn_status gnn_ckpt_path(const char *dir, int rank, char *out, size_t size)
{
    const int n = snprintf(out, size, "%s/rank-%05d.ckpt", dir, rank);
    return n < 0 || (size_t)n >= size ? GNN_ERR_RANGE : GNN_OK;
}

/* ---- the configuration's CRC ------------------------------------------------------------- */

typedef struct crcw {
    uint32_t crc;
} crcw;
static void ci(crcw *w, int64_t v) { w->crc = gnn_crc32c(w->crc, &v, sizeof v); }
static void cf(crcw *w, float v) { w->crc = gnn_crc32c(w->crc, &v, sizeof v); }

uint32_t gnn_ckpt_config_crc(const gnn_train_config *c, const struct gnn_part_train_config *pc)
{
    crcw w = { 0 };
    ci(&w, c->model), ci(&w, c->mode), ci(&w, c->layers), ci(&w, c->hidden);
    for (int l = 0; l < c->layers && l < GNN_MAX_LAYERS; l++)
        ci(&w, c->fanouts[l]);
    ci(&w, c->batch), ci(&w, c->epochs), cf(&w, c->lr), cf(&w, c->dropout), cf(&w, c->weight_decay);
    ci(&w, (int64_t)c->seed), ci(&w, c->eval_every), ci(&w, c->patience), ci(&w, c->heads), ci(&w, c->out_heads);
    ci(&w, c->gat_variant), cf(&w, c->attn_dropout), cf(&w, c->gat_slope), ci(&w, c->layernorm);
    ci(&w, c->rgcn_bases), ci(&w, c->feat_norm), ci(&w, c->wd_scope);
    if (c->stop_rule != GNN_STOP_ACC) /* acc, the only rule before: its runs' files stay valid */
        ci(&w, c->stop_rule);
    const gnn_impl *im = c->impl ? c->impl : gnn_impl_opt();
    if (im && im->name)
        w.crc = gnn_crc32c(w.crc, im->name, strlen(im->name));
    if (pc) {
        ci(&w, pc->remote), ci(&w, pc->hec_cs), ci(&w, pc->hec_ls), ci(&w, pc->hec_nc), ci(&w, pc->hec_delay);
        ci(&w, pc->sampling), ci(&w, pc->embed_dim), ci(&w, pc->embed_opt), cf(&w, pc->embed_lr);
        ci(&w, pc->match), ci(&w, pc->reorder_window), ci(&w, pc->match_norm);
    }
    return w.crc;
}

uint32_t gnn_ckpt_data_crc(uint32_t crc, const uint8_t *split, const int32_t *labels, int64_t n)
{
    const int64_t have[2] = { split != NULL, labels != NULL };
    crc = gnn_crc32c(crc, have, sizeof have);
    if (split && n > 0)
        crc = gnn_crc32c(crc, split, (size_t)n);
    if (labels && n > 0)
        crc = gnn_crc32c(crc, labels, (size_t)n * sizeof(int32_t));
    return crc;
}

/* ---- writing ----------------------------------------------------------------------------- */

static void grow(gnn_ckpt *w, size_t more)
{
    if (w->failed)
        return;
    if (w->len + more <= w->cap)
        return;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + more)
        cap *= 2;
    unsigned char *b = realloc(w->buf, cap);
    if (!b) {
        w->failed = 1;
        return;
    }
    w->buf = b;
    w->cap = cap;
}

static void append(gnn_ckpt *w, const void *p, size_t n)
{
    grow(w, n);
    if (w->failed || n == 0)
        return;
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

gnn_status gnn_ckpt_begin(gnn_ckpt *w, const gnn_ckpt_fingerprint *fp, int32_t epochs_done, uint32_t step)
{
    memset(w, 0, sizeof *w);
    w->fp = *fp;
    w->epochs_done = epochs_done;
    w->step = step;
    grow(w, GNN_CKPT_HEADER_SIZE);
    if (w->failed)
        return GNN_ERR_NOMEM;
    memset(w->buf, 0, GNN_CKPT_HEADER_SIZE);
    w->len = GNN_CKPT_HEADER_SIZE;
    return GNN_OK;
}

void gnn_ckpt_put2(gnn_ckpt *w, uint32_t id, const void *a, size_t na, const void *b, size_t nb)
{
    uint32_t crc = na ? gnn_crc32c(0, a, na) : 0;
    if (nb)
        crc = gnn_crc32c(crc, b, nb);
    const uint64_t len = (uint64_t)na + nb;
    unsigned char h[16];
    memcpy(h, &id, 4);
    memcpy(h + 4, &crc, 4);
    memcpy(h + 8, &len, 8);
    append(w, h, sizeof h);
    append(w, a, na);
    append(w, b, nb);
    w->n_sections++;
}

void gnn_ckpt_put(gnn_ckpt *w, uint32_t id, const void *data, size_t bytes)
{
    gnn_ckpt_put2(w, id, data, bytes, NULL, 0);
}

static void encode_header(gnn_ckpt *w)
{
    unsigned char *h = w->buf;
    const uint32_t version = GNN_CKPT_VERSION, hsize = GNN_CKPT_HEADER_SIZE;
    const uint32_t rank = (uint32_t)w->fp.rank, ranks = (uint32_t)w->fp.ranks;
    memset(h, 0, GNN_CKPT_HEADER_SIZE);
    memcpy(h, k_magic, 8);
    memcpy(h + 8, &version, 4);
    memcpy(h + 12, &hsize, 4);
    memcpy(h + 16, &rank, 4);
    memcpy(h + 20, &ranks, 4);
    memcpy(h + 24, &w->epochs_done, 4);
    memcpy(h + 28, &w->step, 4);
    memcpy(h + 32, &w->fp.config_crc, 4);
    memcpy(h + 36, &w->fp.part_crc, 4);
    memcpy(h + 40, &w->fp.n, 8);
    memcpy(h + 48, &w->fp.nnz, 8);
    memcpy(h + 56, &w->n_sections, 4);
    memcpy(h + 64, w->fp.dataset, strnlen(w->fp.dataset, 63));
    const uint32_t crc = gnn_crc32c(0, h, 128);
    memcpy(h + 128, &crc, 4);
}

static gnn_status make_dir(const char *dir, gnn_err *err)
{
    struct stat sb;
    if (stat(dir, &sb) == 0)
        return S_ISDIR(sb.st_mode) ? GNN_OK
                                   : gnn_err_set(err, GNN_ERR_IO, "checkpoint %s: exists and is not a directory", dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return gnn_err_set(err, GNN_ERR_IO, "checkpoint %s: cannot create the directory: %s", dir, strerror(errno));
    return GNN_OK;
}

gnn_status gnn_ckpt_rename(const char *dir, int rank, gnn_err *err)
{
    char path[4096], tmp[4100];
    if (gnn_ckpt_path(dir, rank, path, sizeof path))
        return gnn_err_set(err, GNN_ERR_RANGE, "checkpoint %s: path too long", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (rename(tmp, path) != 0)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
    return GNN_OK;
}

gnn_status gnn_ckpt_commit(gnn_ckpt *w, const char *dir, int tmp_only, gnn_err *err)
{
    if (w->failed)
        return gnn_err_set(err, GNN_ERR_NOMEM, "checkpoint %s: out of memory", dir);
    gnn_status st = make_dir(dir, err);
    if (st)
        return st;
    char path[4096], tmp[4100];
    if (gnn_ckpt_path(dir, w->fp.rank, path, sizeof path))
        return gnn_err_set(err, GNN_ERR_RANGE, "checkpoint %s: path too long", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    encode_header(w);
    FILE *fp = fopen(tmp, "wb");
    if (!fp)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int bad = fwrite(w->buf, 1, w->len, fp) != w->len;
    int saved = errno;
    if (!bad && fflush(fp) != 0)
        bad = 1, saved = errno;
    if (!bad && fsync(fileno(fp)) != 0)
        bad = 1, saved = errno;
    if (fclose(fp) != 0 && !bad)
        bad = 1, saved = errno;
    if (bad) {
        unlink(tmp);
        return gnn_err_set(err, GNN_ERR_IO, "%s: write failed: %s", path, strerror(saved));
    }
    return tmp_only ? GNN_OK : gnn_ckpt_rename(dir, w->fp.rank, err);
}

/* ---- reading ----------------------------------------------------------------------------- */

void gnn_ckpt_free(gnn_ckpt *c)
{
    free(c->buf);
    memset(c, 0, sizeof *c);
}

/* The sections' bounds and CRCs. */
static gnn_status check_sections(const gnn_ckpt *r, gnn_err *err)
{
    size_t o = GNN_CKPT_HEADER_SIZE;
    for (uint32_t s = 0; s < r->n_sections; s++) {
        if (r->len - o < 16)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: section %u of %u has no header", r->path, s,
                               r->n_sections);
        uint32_t id, crc;
        uint64_t len;
        memcpy(&id, r->buf + o, 4);
        memcpy(&crc, r->buf + o + 4, 4);
        memcpy(&len, r->buf + o + 8, 8);
        o += 16;
        if (len > r->len - o)
            return gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: section %u (id %u) claims %llu bytes, %zu left",
                               r->path, s, id, (unsigned long long)len, r->len - o);
        const uint32_t got = len ? gnn_crc32c(0, r->buf + o, (size_t)len) : 0;
        if (got != crc)
            return gnn_err_set(err, GNN_ERR_CHECKSUM, "%s: section %u (id %u): checksum mismatch (stored 0x%08x, "
                                                      "computed 0x%08x)",
                               r->path, s, id, crc, got);
        o += (size_t)len;
    }
    if (o != r->len)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: %zu bytes after the last section", r->path, r->len - o);
    return GNN_OK;
}

static gnn_status compare(const gnn_ckpt *r, const gnn_ckpt_fingerprint *e, gnn_err *err)
{
    const gnn_ckpt_fingerprint *f = &r->fp;
    if (f->ranks != e->ranks)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: written by a run on %d ranks; this run has %d (resume with "
                                                  "the same rank count)",
                           r->path, f->ranks, e->ranks);
    if (f->rank != e->rank)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: holds rank %d's state, not rank %d's", r->path, f->rank,
                           e->rank);
    if (strncmp(f->dataset, e->dataset, 63) || f->n != e->n || f->nnz != e->nnz)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: written for dataset '%s' (n %lld, nnz %lld); this run trains "
                                                  "'%s' (n %lld, nnz %lld)",
                           r->path, f->dataset, (long long)f->n, (long long)f->nnz, e->dataset, (long long)e->n,
                           (long long)e->nnz);
    if (f->part_crc != e->part_crc)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: written for other training data (data CRC 0x%08x; this run's: "
                                                  "0x%08x): the partition, the split (--split) or the labels differ",
                           r->path, f->part_crc, e->part_crc);
    if (f->config_crc != e->config_crc)
        return gnn_err_set(err, GNN_ERR_INVAL, "%s: written with another training configuration (config CRC "
                                                  "0x%08x; this run's: 0x%08x): the model, optimizer, sampling, "
                                                  "epochs, seed, --impl and partition-training flags must be the "
                                                  "checkpointed run's",
                           r->path, f->config_crc, e->config_crc);
    return GNN_OK;
}

gnn_status gnn_ckpt_open(gnn_ckpt *r, const char *dir, const gnn_ckpt_fingerprint *expect, gnn_err *err)
{
    memset(r, 0, sizeof *r);
    if (gnn_ckpt_path(dir, expect->rank, r->path, sizeof r->path))
        return gnn_err_set(err, GNN_ERR_RANGE, "checkpoint %s: path too long", dir);
    FILE *fp = fopen(r->path, "rb");
    if (!fp)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s (no checkpoint of rank %d in %s)", r->path,
                           strerror(errno), expect->rank, dir);
    gnn_status st = GNN_OK;
    long size = -1;
    if (fseek(fp, 0, SEEK_END) == 0)
        size = ftell(fp);
    if (size < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot read: %s", r->path, strerror(errno));
    }
    if (size < GNN_CKPT_HEADER_SIZE) {
        fclose(fp);
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: truncated: %ld bytes, a header is %d", r->path, size,
                           GNN_CKPT_HEADER_SIZE);
    }
    r->len = (size_t)size;
    if (!(r->buf = malloc(r->len))) {
        fclose(fp);
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory (%zu bytes)", r->path, r->len);
    }
    if (fread(r->buf, 1, r->len, fp) != r->len)
        st = gnn_err_set(err, GNN_ERR_IO, "%s: short read", r->path);
    fclose(fp);
    if (st)
        return st;
    const unsigned char *h = r->buf;
    uint32_t version, hsize, rank, ranks, crc;
    memcpy(&version, h + 8, 4);
    memcpy(&hsize, h + 12, 4);
    memcpy(&crc, h + 128, 4);
    if (memcmp(h, k_magic, 8))
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: not a gnnref checkpoint (bad magic)", r->path);
    if (version != GNN_CKPT_VERSION || hsize != GNN_CKPT_HEADER_SIZE)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: checkpoint version %u (header %u bytes); this build reads version "
                                                "%u",
                           r->path, version, hsize, GNN_CKPT_VERSION);
    if (gnn_crc32c(0, h, 128) != crc)
        return gnn_err_set(err, GNN_ERR_CHECKSUM, "%s: header checksum mismatch (stored 0x%08x, computed 0x%08x)",
                           r->path, crc, gnn_crc32c(0, h, 128));
    memcpy(&rank, h + 16, 4);
    memcpy(&ranks, h + 20, 4);
    r->fp.rank = (int32_t)rank;
    r->fp.ranks = (int32_t)ranks;
    memcpy(&r->epochs_done, h + 24, 4);
    memcpy(&r->step, h + 28, 4);
    memcpy(&r->fp.config_crc, h + 32, 4);
    memcpy(&r->fp.part_crc, h + 36, 4);
    memcpy(&r->fp.n, h + 40, 8);
    memcpy(&r->fp.nnz, h + 48, 8);
    memcpy(&r->n_sections, h + 56, 4);
    memcpy(r->fp.dataset, h + 64, 63);
    r->fp.dataset[63] = 0;
    if ((st = check_sections(r, err)))
        return st;
    return compare(r, expect, err);
}

gnn_status gnn_ckpt_get(const gnn_ckpt *r, uint32_t id, const void **data, size_t *bytes, gnn_err *err)
{
    size_t o = GNN_CKPT_HEADER_SIZE;
    for (uint32_t s = 0; s < r->n_sections; s++) { /* bounds checked by gnn_ckpt_open */
        uint32_t sid;
        uint64_t len;
        memcpy(&sid, r->buf + o, 4);
        memcpy(&len, r->buf + o + 8, 8);
        if (sid == id) {
            *data = r->buf + o + 16;
            *bytes = (size_t)len;
            return GNN_OK;
        }
        o += 16 + (size_t)len;
    }
    return gnn_err_set(err, GNN_ERR_FORMAT, "%s: no section %u (written by another mode of training?)", r->path, id);
}

gnn_status gnn_ckpt_read(const gnn_ckpt *r, uint32_t id, void *out, size_t bytes, gnn_err *err)
{
    const void *p = NULL;
    size_t n = 0;
    gnn_status st = gnn_ckpt_get(r, id, &p, &n, err);
    if (st)
        return st;
    if (n != bytes)
        return gnn_err_set(err, GNN_ERR_FORMAT, "%s: section %u holds %zu bytes; this run expects %zu", r->path, id, n,
                           bytes);
    if (bytes)
        memcpy(out, p, bytes);
    return GNN_OK;
}

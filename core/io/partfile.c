/* core/io/partfile.c -- part vectors as METIS-style `.part` text files (include/gnnref/partfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnnref/partfile.h"
#include "gnnref/tensor.h"

gnn_status gnn_part_vector_write(const char *path, const int32_t *part, int64_t n, gnn_err *err)
{
    if (!path || n < 0 || (n > 0 && !part))
        return gnn_err_set(err, GNN_ERR_INVAL, "part vector: bad arguments");
    for (int64_t v = 0; v < n; v++)
        if (part[v] < 0)
            return gnn_err_set(err, GNN_ERR_INVAL, "part vector: vertex %lld has part %d", (long long)v, (int)part[v]);
    const size_t len = strlen(path);
    char *tmp = gnn_malloc(len + 5);
    if (!tmp)
        return gnn_err_set(err, GNN_ERR_NOMEM, "%s: out of memory", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    gnn_status st = GNN_OK;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        goto done;
    }
    int bad = 0;
    for (int64_t v = 0; v < n && !bad; v++)
        bad = fprintf(f, "%d\n", (int)part[v]) < 0;
    const int close_bad = fclose(f) != 0;
    if (bad || close_bad) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        goto done;
    }
    if (rename(tmp, path) != 0) {
        st = gnn_err_set(err, GNN_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
        remove(tmp);
    }
done:
    gnn_free(tmp);
    return st;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r'; }

/* One line (without '\n'): blank -> 1 with *blank = 1; a decimal id -> 1 with *id; else 0. */
static int parse_line(const char *s, size_t len, int64_t *id, int *blank)
{
    size_t a = 0, b = len;
    while (a < b && is_blank((unsigned char)s[a]))
        a++;
    while (b > a && is_blank((unsigned char)s[b - 1]))
        b--;
    *blank = a == b;
    if (*blank)
        return 1;
    if (b - a > 12)
        return 0;
    int64_t x = 0;
    for (size_t i = a; i < b; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        x = x * 10 + (s[i] - '0');
    }
    *id = x;
    return 1;
}

gnn_status gnn_part_vector_read(const char *path, int64_t n, int64_t k, int32_t *part, int64_t *k_seen, gnn_err *err)
{
    if (!path || n < 0 || (n > 0 && !part))
        return gnn_err_set(err, GNN_ERR_INVAL, "part vector: bad arguments");
    FILE *f = fopen(path, "r");
    if (!f)
        return gnn_err_set(err, GNN_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    const int64_t lim = k > 0 ? k : INT32_MAX;
    gnn_status st = GNN_OK;
    char buf[64];
    int64_t line = 0, v = 0, max = -1;
    int64_t blank_seen = 0; /* the first blank line: only blank lines may follow it */
    size_t len = 0;
    int c = 0, too_long = 0;
    while (c != EOF) {
        c = getc(f);
        if (c != '\n' && c != EOF) {
            if (len < sizeof buf - 1)
                buf[len++] = (char)c;
            else
                too_long = 1;
            continue;
        }
        if (c == EOF && len == 0 && !too_long)
            break; /* the file ended with '\n' (or is empty) */
        line++;
        buf[len] = 0;
        int64_t id = 0;
        int blank = 0;
        const char *nul = memchr(buf, 0, len);
        if (nul) { /* printed with %s, the line would end at the NUL and look like a valid id */
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s:%lld: a NUL byte at column %lld (a part file is text: one "
                             "decimal part id per line)", path, (long long)line, (long long)(nul - buf) + 1);
            break;
        }
        if (too_long || !parse_line(buf, len, &id, &blank)) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s:%lld: expected one part id (a non-negative decimal integer), "
                             "got '%.40s%s'", path, (long long)line, buf, too_long ? "..." : "");
            break;
        }
        len = 0;
        too_long = 0;
        if (blank) {
            if (!blank_seen)
                blank_seen = line;
            continue;
        }
        if (blank_seen && v < n) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s:%lld: empty line, expected the part id of vertex %lld", path,
                             (long long)blank_seen, (long long)v);
            break;
        }
        if (v == n) {
            st = gnn_err_set(err, GNN_ERR_FORMAT, "%s:%lld: more part ids than vertices (the graph has %lld, one "
                             "line each)", path, (long long)line, (long long)n);
            break;
        }
        if (id >= lim) {
            st = gnn_err_set(err, GNN_ERR_RANGE, "%s:%lld: part id %lld of vertex %lld is outside [0, %lld)", path,
                             (long long)line, (long long)id, (long long)v, (long long)lim);
            break;
        }
        part[v++] = (int32_t)id;
        if (id > max)
            max = id;
    }
    if (!st && ferror(f))
        st = gnn_err_set(err, GNN_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (!st && v < n)
        st = gnn_err_set(err, GNN_ERR_FORMAT, "%s: %lld part ids, but the graph has %lld vertices (one line each)",
                         path, (long long)v, (long long)n);
    fclose(f);
    if (!st && k_seen)
        *k_seen = max + 1;
    return st;
}

/*
** pg_source.c — the bounded scan of a PostgreSQL table (the 'jdbc'
** connector's source).
**
** Partitions. Without the scan.partition.* options the scan is one
** partition, read by subtask 0 (the other subtasks end at once). With them
** the range [lower-bound, upper-bound] of 'scan.partition.column' is split
** into 'scan.partition.num' ranges exactly as Flink's
** JdbcNumericBetweenParametersProvider splits it (sizes differ by at most
** one, the larger first; never more ranges than values), and partition i
** reads `WHERE column BETWEEN lo_i AND hi_i`. As in Flink, the bounds also
** filter: rows whose column is below the lower bound, above the upper bound
** or NULL are not read. Subtask s of p reads partitions s, s + p, s + 2p...
**
** Snapshots. Each subtask reads all of its partitions inside one
** transaction, BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY, through a
** cursor per partition (FETCH 'scan.fetch-size' rows, default 1000): one
** consistent snapshot per subtask. Subtasks do not share a snapshot (each
** takes its own when it starts reading), so a table written while a
** parallel scan starts may be seen at slightly different moments by
** different partitions.
**
** Positions and what a restart sees. The position is the number of this
** subtask's partitions finished and how many rows of the one in progress
** were handed out. Rows of a partition are read in a fixed order (the
** PRIMARY KEY's columns, then every declared column), so rereading an
** unchanged partition gives the same rows in the same order. After a
** restart: finished partitions are never read again; the partition in
** progress is read again from its start in a new snapshot and its first
** `rows` rows are skipped (MOVE FORWARD on the server); later partitions
** are read in that new snapshot. For a table that did not change, the
** rows read are then exactly the rows of one uninterrupted scan (the
** source is replayable). For a table
** that changed in between, the rows of the unfinished and later partitions
** come from the newer snapshot and the skipped count may no longer match
** the rows that were handed out: the source is replayable only for a table
** that does not change while it is read.
**
** COPY mode ('scan.copy' = 'true', how RECONCILE reads its ledger). Each
** partition is read by one `COPY (SELECT ... [WHERE range]) TO STDOUT`
** in the text format, without ORDER BY and without a cursor's round trips,
** in the same read-only transaction. Its rows come in the server's order
** (no fixed order): such a scan is not replayable, and restoring one from a
** position inside a partition is refused (0A000).
**
** Main routines: sl__pg_source_create; the sl_source_ops sl__pgs_poll,
** sl__pgs_position, sl__pgs_seek.
*/
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__PG_FETCH_DEFAULT 1000
#define SL__PG_POLL_MS 100 /* the longest a poll waits for the server */

typedef struct sl__pg_src {
    sl__pg_target t;       /* where the table is */
    char *table;           /* the table's name in the catalog, for messages */
    sl_kvlist *opts;       /* the table's options (for scrubbing errors) */
    int ncols;             /* declared columns */
    int subtask, par;      /* this instance and how many read the table */
    int nparts;            /* partitions of the whole scan (1 without partitioning) */
    int64_t *lo, *hi;      /* their bounds (partitioned scans) */
    char *select;          /* SELECT ... FROM ... (without the partition's WHERE) */
    char *order;           /* ORDER BY ... */
    char *pcol;            /* the partition column quoted, or NULL */
    int64_t fetch;         /* rows per FETCH */
    int next;              /* this subtask's partitions finished (k: partition s + k*p) */
    int64_t rows;          /* rows of the partition in progress consumed (handed out or skipped) */
    int64_t skip;          /* its first rows still to skip (after seek) */
    PGconn *conn;          /* the connection, in its read-only transaction; NULL before */
    bool cursor;           /* a cursor is open for partition `next` */
    bool busy;             /* a FETCH was sent, its result not read yet */
    bool eof;              /* the cursor has no more rows */
    PGresult *res;         /* fetched rows */
    int res_row;           /* the next of them to hand out */
    bool done;             /* every partition of this subtask read, transaction ended */
    bool copy;             /* COPY mode: `cursor` means a COPY of partition `next` runs */
    const char *where;     /* COPY mode: 'scan.copy.where', or NULL */
    sl_strbuf field;       /* COPY mode: a field's unescaped text */
} sl__pg_src;

static const sl_source_ops sl__pgs_ops;

/* The partition index of this subtask's k-th partition, or -1 past its last. */
static int sl__pgs_part(const sl__pg_src *s, int k)
{
    int64_t i = (int64_t)s->subtask + (int64_t)k * s->par;
    return i < s->nparts ? (int)i : -1;
}

/* Flink's JdbcNumericBetweenParametersProvider: [min, max] in num ranges. */
static void sl__pgs_split(sl__pg_src *s, int64_t min, int64_t max, int64_t num)
{
    __int128 count = (__int128)max - min + 1;
    if (num > count)
        num = (int64_t)count;
    __int128 size = (count + num - 1) / num;
    __int128 big = count - (size - 1) * num; /* ranges of the larger size */
    s->nparts = (int)num;
    s->lo = sl_calloc((size_t)num, sizeof(int64_t));
    s->hi = sl_calloc((size_t)num, sizeof(int64_t));
    __int128 start = min;
    for (int64_t i = 0; i < num; i++) {
        __int128 end = start + size - 1 - (i >= big ? 1 : 0);
        s->lo[i] = (int64_t)start;
        s->hi[i] = (int64_t)end;
        start = end + 1;
    }
}

static int sl__pgs_fail(sl__pg_src *s, sl_error *err)
{
    sl_option_scrub_error(err, s->opts);
    return -1;
}

/* Connect and begin the snapshot's transaction. */
static int sl__pgs_begin(sl__pg_src *s, sl_error *err)
{
    char app[64];
    snprintf(app, sizeof app, "sluice scan %d/%d", s->subtask, s->par);
    s->conn = sl__pg_connect(&s->t, app, 0, err);
    if (!s->conn)
        return sl__pgs_fail(s, err);
    if (sl__pg_run(s->conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "starting the scan",
                   err) != 0)
        return sl__pgs_fail(s, err);
    return 0;
}

/* Declare the cursor of partition `part`. */
static int sl__pgs_declare(sl__pg_src *s, int part, sl_error *err)
{
    sl_strbuf sql = SL_STRBUF_INIT;
    sl_strbuf_appendf(&sql, "DECLARE sluice_scan NO SCROLL CURSOR FOR %s", s->select);
    if (s->pcol) /* the bounds are numbers this file formatted: nothing the user wrote */
        sl_strbuf_appendf(&sql, " WHERE %s BETWEEN %" PRId64 " AND %" PRId64, s->pcol,
                          s->lo[part], s->hi[part]);
    sl_strbuf_appendf(&sql, " %s", s->order);
    char what[96];
    snprintf(what, sizeof what, "reading table \"%s\"", s->table);
    int rc = sl__pg_run(s->conn, sl_strbuf_cstr(&sql), what, err);
    sl_strbuf_free(&sql);
    if (rc != 0)
        return sl__pgs_fail(s, err);
    s->cursor = true;
    s->eof = false;
    if (s->skip > 0) { /* restored: pass the rows handed out before, on the server */
        char move[64];
        snprintf(move, sizeof move, "MOVE FORWARD %" PRId64 " IN sluice_scan", s->skip);
        PGresult *r = sl__pg_exec(s->conn, move, 0, NULL, what, err);
        if (!r)
            return sl__pgs_fail(s, err);
        s->rows += strtoll(PQcmdTuples(r), NULL, 10);
        s->skip = 0;
        PQclear(r);
    }
    return 0;
}

/* Wait up to SL__PG_POLL_MS for the FETCH in flight. 1 when its result is
** in s->res, 0 when not yet, -1 with err. */
static int sl__pgs_collect(sl__pg_src *s, sl_error *err)
{
    int64_t deadline = sl_monotonic_nanos() + SL__PG_POLL_MS * SL_NANOS_PER_MILLI;
    for (;;) {
        if (!PQconsumeInput(s->conn))
            return sl__pg_error(err, NULL, s->conn, "reading the table"), sl__pgs_fail(s, err);
        if (!PQisBusy(s->conn))
            break;
        int64_t left = (deadline - sl_monotonic_nanos()) / SL_NANOS_PER_MILLI;
        if (left <= 0)
            return 0;
        struct pollfd pfd = {PQsocket(s->conn), POLLIN, 0};
        poll(&pfd, 1, (int)left);
    }
    PGresult *r, *keep = NULL;
    while ((r = PQgetResult(s->conn)) != NULL) {
        if (!keep)
            keep = r;
        else
            PQclear(r);
    }
    s->busy = false;
    if (!keep || PQresultStatus(keep) != PGRES_TUPLES_OK) {
        char what[96];
        snprintf(what, sizeof what, "reading table \"%s\"", s->table);
        sl__pg_error(err, keep, s->conn, what);
        PQclear(keep);
        return sl__pgs_fail(s, err);
    }
    s->res = keep;
    s->res_row = 0;
    if (PQntuples(keep) < s->fetch)
        s->eof = true;
    return 1;
}

/* Hand out (or skip) rows of s->res into out. */
static int sl__pgs_emit(sl__pg_src *s, sl_chunk *out, sl_error *err)
{
    int n = PQntuples(s->res);
    while (s->res_row < n && (s->skip > 0 || out->nrows < out->cap)) {
        int i = s->res_row++;
        s->rows++;
        if (s->skip > 0) {
            s->skip--;
            continue;
        }
        int r = sl_chunk_append_row(out, SL_ROW_INSERT);
        for (int c = 0; c < s->ncols; c++) {
            if (PQgetisnull(s->res, i, c)) {
                if (out->cols[c].type.not_null) {
                    out->nrows--;
                    sl_error_set(err, "23502", -1,
                                 "null value in column \"%s\" of table \"%s\", declared NOT "
                                 "NULL",
                                 PQfname(s->res, c), s->table);
                    sl_error_hint(err, "Declare the column without NOT NULL, or make it NOT NULL "
                                       "in PostgreSQL.");
                    return sl__pgs_fail(s, err);
                }
                sl_chunk_set_null(out, c, r);
                continue;
            }
            if (sl__pg_decode_value(out, c, r, PQgetvalue(s->res, i, c),
                              (size_t)PQgetlength(s->res, i, c), err) != 0) {
                out->nrows--; /* the row is not handed out */
                int part = sl__pgs_part(s, s->next);
                sl_error_detail(err, "Column \"%s\" of table \"%s\", row %" PRId64 " of %s%d.",
                                PQfname(s->res, c), s->table, s->rows,
                                s->pcol ? "partition " : "the scan", s->pcol ? part : 0);
                return sl__pgs_fail(s, err);
            }
        }
    }
    if (s->res_row >= n) {
        PQclear(s->res);
        s->res = NULL;
    }
    return 0;
}

/* COPY's text format: the field [p, end) unescaped into s->field (\b \f
** \n \r \t \v, \ooo octal, \xhh hex, any other character after a backslash
** stands for itself). */
static void sl__pgs_unescape(sl__pg_src *s, const char *p, const char *end)
{
    sl_strbuf_reset(&s->field);
    while (p < end) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs) {
            sl_strbuf_append_n(&s->field, p, (size_t)(end - p));
            break;
        }
        sl_strbuf_append_n(&s->field, p, (size_t)(bs - p));
        p = bs + 1;
        if (p >= end)
            break;
        char c = *p++;
        int v = 0, n = 0;
        switch (c) {
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'v': c = '\v'; break;
        case 'x':
            while (n < 2 && p < end && ((*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f'))) {
                v = v * 16 + (*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
                p++;
                n++;
            }
            c = n ? (char)v : 'x';
            break;
        default:
            if (c >= '0' && c <= '7') {
                v = c - '0';
                while (++n < 3 && p < end && *p >= '0' && *p <= '7')
                    v = v * 8 + (*p++ - '0');
                c = (char)v;
            }
            break;
        }
        sl_strbuf_append_char(&s->field, c);
    }
}

/* One COPY row (a line, its newline included) into out (or skipped). */
static int sl__pgs_copy_row(sl__pg_src *s, const char *line, int len, sl_chunk *out,
                            sl_error *err)
{
    s->rows++;
    if (s->skip > 0) {
        s->skip--;
        return 0;
    }
    const char *p = line, *end = line + len;
    if (end > p && end[-1] == '\n')
        end--;
    int r = sl_chunk_append_row(out, SL_ROW_INSERT);
    for (int c = 0; c < s->ncols; c++) {
        const char *f = p;
        const char *tab = memchr(p, '\t', (size_t)(end - p));
        const char *fe = tab ? tab : end;
        if (f > end || (c + 1 < s->ncols && !tab) || (c + 1 == s->ncols && tab)) {
            out->nrows--;
            return sl_error_set(err, "08P01", -1,
                                "a COPY row of table \"%s\" has not %d columns", s->table,
                                s->ncols),
                   sl__pgs_fail(s, err);
        }
        p = fe + 1;
        if (fe - f == 2 && f[0] == '\\' && f[1] == 'N') {
            if (out->cols[c].type.not_null) {
                out->nrows--;
                sl_error_set(err, "23502", -1,
                             "null value in column %d of table \"%s\", declared NOT NULL",
                             c + 1, s->table);
                return sl__pgs_fail(s, err);
            }
            sl_chunk_set_null(out, c, r);
            continue;
        }
        const char *text = f;
        size_t tlen = (size_t)(fe - f);
        if (memchr(f, '\\', tlen)) {
            sl__pgs_unescape(s, f, fe);
            text = s->field.buf;
            tlen = s->field.len;
        }
        if (sl__pg_decode_value(out, c, r, text, tlen, err) != 0) {
            out->nrows--;
            sl_error_detail(err, "Column %d of table \"%s\", row %" PRId64 " of the scan.", c + 1,
                            s->table, s->rows);
            return sl__pgs_fail(s, err);
        }
    }
    return 0;
}

/* COPY mode's poll: each partition's COPY, its rows as they arrive. */
static int sl__pgs_copy_poll(sl__pg_src *s, sl_chunk *out, sl_error *err)
{
    int64_t deadline = sl_monotonic_nanos() + SL__PG_POLL_MS * SL_NANOS_PER_MILLI;
    char what[96];
    snprintf(what, sizeof what, "reading table \"%s\"", s->table);
    while (out->nrows < out->cap) {
        if (!s->cursor) {
            int part = sl__pgs_part(s, s->next);
            if (part < 0) {
                if (sl__pg_run(s->conn, "COMMIT", "ending the scan", err) != 0)
                    return sl__pgs_fail(s, err);
                PQfinish(s->conn);
                s->conn = NULL;
                s->done = true;
                return SL_SOURCE_END;
            }
            sl_strbuf sql = SL_STRBUF_INIT;
            sl_strbuf_appendf(&sql, "COPY (%s", s->select);
            if (s->pcol)
                sl_strbuf_appendf(&sql, " WHERE %s BETWEEN %" PRId64 " AND %" PRId64, s->pcol,
                                  s->lo[part], s->hi[part]);
            if (s->where)
                sl_strbuf_appendf(&sql, " %s (%s)", s->pcol ? "AND" : "WHERE", s->where);
            sl_strbuf_append(&sql, ") TO STDOUT");
            int ok = PQsendQuery(s->conn, sl_strbuf_cstr(&sql));
            sl_strbuf_free(&sql);
            PGresult *res = ok ? PQgetResult(s->conn) : NULL;
            if (!res || PQresultStatus(res) != PGRES_COPY_OUT) {
                sl__pg_error(err, res, s->conn, what);
                PQclear(res);
                return sl__pgs_fail(s, err);
            }
            PQclear(res);
            s->cursor = true;
        }
        char *line = NULL;
        int n = PQgetCopyData(s->conn, &line, 1);
        if (n > 0) {
            int rc = sl__pgs_copy_row(s, line, n, out, err);
            PQfreemem(line);
            if (rc != 0)
                return -1;
            continue;
        }
        if (n == 0) { /* nothing buffered: wait for the server, a while */
            int64_t left = (deadline - sl_monotonic_nanos()) / SL_NANOS_PER_MILLI;
            if (left <= 0)
                return SL_SOURCE_MORE; /* let the task pass barriers */
            struct pollfd pfd = {PQsocket(s->conn), POLLIN, 0};
            poll(&pfd, 1, (int)left);
            if (!PQconsumeInput(s->conn))
                return sl__pg_error(err, NULL, s->conn, what), sl__pgs_fail(s, err);
            continue;
        }
        /* -1: the COPY ended (its result says how); -2: the connection failed */
        PGresult *r, *bad = NULL;
        while ((r = PQgetResult(s->conn)) != NULL) {
            if (!bad && PQresultStatus(r) != PGRES_COMMAND_OK)
                bad = r;
            else
                PQclear(r);
        }
        if (n == -2 || bad) {
            sl__pg_error(err, bad, s->conn, what);
            PQclear(bad);
            return sl__pgs_fail(s, err);
        }
        s->cursor = false;
        s->next++;
        s->rows = 0;
        s->skip = 0;
    }
    return SL_SOURCE_MORE;
}

static int sl__pgs_poll(sl_source *src, sl_chunk *out, sl_error *err)
{
    sl__pg_src *s = src->impl;
    if (s->done)
        return SL_SOURCE_END;
    if (sl__pgs_part(s, s->next) < 0 && !s->conn) {
        s->done = true; /* nothing for this subtask */
        return SL_SOURCE_END;
    }
    if (!s->conn && sl__pgs_begin(s, err) != 0)
        return -1;
    if (s->copy)
        return sl__pgs_copy_poll(s, out, err);
    int64_t deadline = sl_monotonic_nanos() + SL__PG_POLL_MS * SL_NANOS_PER_MILLI;
    while (out->nrows < out->cap) {
        if (s->res) {
            if (sl__pgs_emit(s, out, err) != 0)
                return -1;
            continue;
        }
        if (s->busy) {
            int rc = sl__pgs_collect(s, err);
            if (rc < 0)
                return -1;
            if (rc == 0)
                return SL_SOURCE_MORE;
            continue;
        }
        if (s->cursor && s->eof) { /* the partition is finished */
            if (sl__pg_run(s->conn, "CLOSE sluice_scan", "reading the table", err) != 0)
                return sl__pgs_fail(s, err);
            s->cursor = false;
            s->next++;
            s->rows = 0;
            s->skip = 0;
            continue;
        }
        if (!s->cursor) {
            int part = sl__pgs_part(s, s->next);
            if (part < 0) {
                if (sl__pg_run(s->conn, "COMMIT", "ending the scan", err) != 0)
                    return sl__pgs_fail(s, err);
                PQfinish(s->conn);
                s->conn = NULL;
                s->done = true;
                return SL_SOURCE_END;
            }
            if (sl__pgs_declare(s, part, err) != 0)
                return -1;
        }
        if (sl_monotonic_nanos() > deadline)
            return SL_SOURCE_MORE; /* let the task pass barriers */
        char sql[64];
        snprintf(sql, sizeof sql, "FETCH %" PRId64 " FROM sluice_scan", s->fetch);
        if (!PQsendQuery(s->conn, sql))
            return sl__pg_error(err, NULL, s->conn, "reading the table"), sl__pgs_fail(s, err);
        s->busy = true;
    }
    return SL_SOURCE_MORE;
}

static int sl__pgs_position(sl_source *src, sl_strbuf *out, sl_error *err)
{
    (void)err;
    sl__pg_src *s = src->impl;
    sl_strbuf_appendf(out, "jdbc;parallelism=%d;subtask=%d;partitions=%d;done=%d;rows=%" PRId64,
                      s->par, s->subtask, s->nparts, s->next, s->rows + s->skip);
    return 0;
}

static int sl__pgs_seek(sl_source *src, const char *pos, size_t len, sl_error *err)
{
    sl__pg_src *s = src->impl;
    char buf[200];
    int p = 0, k = 0, np = 0, next = 0, used = -1;
    int64_t rows = 0;
    if (len < sizeof buf) {
        memcpy(buf, pos, len);
        buf[len] = 0;
        if (sscanf(buf, "jdbc;parallelism=%d;subtask=%d;partitions=%d;done=%d;rows=%" SCNd64 "%n",
                   &p, &k, &np, &next, &rows, &used) != 5)
            used = -1;
    }
    if (used < 0 || (size_t)used != len || p <= 0 || k < 0 || k >= p || next < 0 || rows < 0) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid jdbc source position");
        sl_error_detail(err, "The position is \"%.*s\".", (int)(len < 100 ? len : 100), pos);
        return -1;
    }
    if (p != s->par || k != s->subtask || np != s->nparts) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "a jdbc source cannot be restored with a different parallelism or "
                     "partitioning");
        sl_error_detail(err,
                        "The checkpoint was taken by subtask %d of %d reading %d partitions; this "
                        "is subtask %d of %d reading %d.",
                        k, p, np, s->subtask, s->par, s->nparts);
        sl_error_hint(err, "Restore the job with parallelism %d and the same scan.partition.* "
                           "options.",
                      p);
        return -1;
    }
    if (s->copy && rows > 0) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "a jdbc source read with 'scan.copy' cannot be restored inside a partition");
        sl_error_hint(err, "Its rows have no fixed order: read the table without 'scan.copy'.");
        return -1;
    }
    s->next = next;
    s->rows = 0;
    s->skip = rows;
    return 0;
}

static int64_t sl__pgs_skipped(sl_source *src)
{
    (void)src;
    return 0;
}

static void sl__pgs_free(sl_source *src)
{
    if (!src)
        return;
    sl__pg_src *s = src->impl;
    PQclear(s->res);
    if (s->conn)
        PQfinish(s->conn); /* ends the read-only transaction */
    sl__pg_target_clear(&s->t);
    sl_free(s->table);
    sl_free(s->lo);
    sl_free(s->hi);
    sl_free(s->select);
    sl_free(s->order);
    sl_free(s->pcol);
    sl_strbuf_free(&s->field);
    sl_kvlist_free(s->opts);
    sl_free(s);
    sl_free(src);
}

static const sl_source_ops sl__pgs_ops = {
    .poll = sl__pgs_poll,
    .position = sl__pgs_position,
    .seek = sl__pgs_seek,
    .skipped = sl__pgs_skipped,
    .free = sl__pgs_free,
};

int sl__pg_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    sl__pg_src *s = sl_calloc(1, sizeof *s);
    if (sl__pg_target_parse(args->options, &s->t, err) != 0) {
        sl_free(s);
        return -1;
    }
    s->table = sl_strdup(args->table ? args->table : s->t.table);
    s->opts = sl_kvlist_dup(args->options);
    s->ncols = args->ncols;
    s->subtask = args->subtask;
    s->par = args->parallelism > 0 ? args->parallelism : 1;
    s->nparts = 1;
    s->fetch = SL__PG_FETCH_DEFAULT;
    const sl_kv *fs = sl_kvlist_find(args->options, "scan.fetch-size");
    int64_t v = 0;
    if (fs && sl_option_parse_int(fs->value, &v, fs->value_pos, err) != 0)
        goto fail;
    if (v > 0)
        s->fetch = v;
    const sl_kv *cp = sl_kvlist_find(args->options, "scan.copy");
    if (cp && sl_option_parse_bool(cp->value, &s->copy, cp->value_pos, err) != 0)
        goto fail;
    s->where = sl_kvlist_get(args->options, "scan.copy.where"); /* the options outlive it */
    const char *pcol = sl_kvlist_get(args->options, "scan.partition.column");
    if (pcol) {
        int64_t num = 0, lo = 0, hi = 0;
        if (sl_option_parse_int(sl_kvlist_get(args->options, "scan.partition.num"), &num, -1,
                                err) != 0 ||
            sl_option_parse_int(sl_kvlist_get(args->options, "scan.partition.lower-bound"), &lo, -1,
                                err) != 0 ||
            sl_option_parse_int(sl_kvlist_get(args->options, "scan.partition.upper-bound"), &hi, -1,
                                err) != 0)
            goto fail;
        if (num < 1 || lo > hi || num > INT32_MAX) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "invalid scan.partition.* options");
            goto fail;
        }
        sl__pgs_split(s, lo, hi, num);
        sl_strbuf q = SL_STRBUF_INIT;
        sl__pg_quote_ident(&q, pcol);
        s->pcol = sl_strbuf_detach(&q);
    }
    /* SELECT the declared columns; ORDER BY the key, then every column. */
    sl_strbuf sel = SL_STRBUF_INIT, ord = SL_STRBUF_INIT;
    sl_strbuf_append(&sel, "SELECT ");
    for (int i = 0; i < args->ncols; i++) {
        if (i)
            sl_strbuf_append(&sel, ", ");
        sl__pg_quote_ident(&sel, args->names[i]);
    }
    if (args->ncols == 0)
        sl_strbuf_append(&sel, "NULL");
    sl_strbuf_appendf(&sel, " FROM %s", s->t.qualified);
    sl_strbuf_append(&ord, "ORDER BY ");
    bool first = true;
    for (int k = 0; k < args->npk && args->pk; k++) {
        sl_strbuf_appendf(&ord, "%s%d", first ? "" : ", ", args->pk[k] + 1);
        first = false;
    }
    for (int i = 0; i < args->ncols; i++) {
        bool in_pk = false;
        for (int k = 0; k < args->npk && args->pk; k++)
            in_pk |= args->pk[k] == i;
        if (!in_pk) {
            sl_strbuf_appendf(&ord, "%s%d", first ? "" : ", ", i + 1);
            first = false;
        }
    }
    s->select = sl_strbuf_detach(&sel);
    if (first)
        sl_strbuf_reset(&ord);
    s->order = sl_strbuf_detach(&ord);
    sl_source *src = sl_calloc(1, sizeof *src);
    src->ops = &sl__pgs_ops;
    src->impl = s;
    *out = src;
    return 0;
fail:
    sl_option_scrub_error(err, args->options);
    sl__pg_target_clear(&s->t);
    sl_free(s->table);
    sl_free(s->lo);
    sl_free(s->hi);
    sl_free(s->pcol);
    sl_kvlist_free(s->opts);
    sl_free(s);
    return -1;
}

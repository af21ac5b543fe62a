/*
** my_write.c — the row writer of the jdbc sink on MariaDB/MySQL, and the
** sink's driver for that database (the sink itself is pg_sink.c's, run over
** sl__my_driver).
**
** Rows go out as multi-row statements of SQL literals (sl__my_literal), at
** most SL__MY_BATCH_ROWS rows or SL__MY_BATCH_BYTES bytes each, in the
** order of the changelog, inside the caller's open transaction (the sink's
** own, or the epoch's XA transaction of my_txn.c):
**
**   append   no PRIMARY KEY: INSERT INTO t (c..) VALUES (..), (..)
**   update   a PRIMARY KEY, 'sink.on-duplicate-key' = 'update' (default):
**            INSERT ... ON DUPLICATE KEY UPDATE c = VALUES(c) ..; -D rows
**            DELETE ... WHERE (k..) IN ((..), ..); a -U row is left out
**            when the next row is its key's +U, else it deletes by key, as
**            Flink's JDBC sink treats -U.
**   ignore   INSERT ... ON DUPLICATE KEY UPDATE k = k (the stored row is
**            kept: the idempotent ledger insert). Before it, one query
**            finds the batch's rows whose key the table holds with other
**            values (the server compares, with <=>, so a DECIMAL or a
**            DATETIME is compared as such, not as text): conflicts,
**            counted and logged with their key, and with
**            'sink.conflict-table' inserted into that table in the same
**            transaction (the key, the stored and the conflicting row as
**            JSON_OBJECT texts; the columns of PostgreSQL's conflict
**            table, created by the sink when missing). An identical
**            duplicate is absorbed quietly. A key twice in one batch ends
**            the batch before it, so each row meets the table as the rows
**            before it left it.
**   error    the same; a conflict fails with 23505 naming the key.
**
** Main routines: sl__my_driver's writer functions.
*/
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__MY_BATCH_ROWS 1000         /* rows per statement */
#define SL__MY_BATCH_BYTES (1u << 20)  /* bytes per statement (max_allowed_packet >= 16 MiB) */

typedef enum sl__myw_mode {
    SL__MYW_APPEND,
    SL__MYW_UPDATE,
    SL__MYW_IGNORE,
    SL__MYW_ERROR,
} sl__myw_mode;

typedef struct sl__my_writer {
    sl__myw_mode mode;
    char *table;        /* the sink table's name (messages) */
    char *qualified;    /* the database's table, quoted */
    int ncols;
    char **names;       /* column names */
    int npk;
    int *pk;            /* key column indexes */
    char *head;         /* "INSERT INTO t (c..) VALUES " */
    char *tail;         /* " ON DUPLICATE KEY UPDATE ..." or "" */
    sl_strbuf stmt;     /* the statement being built */
    int nrows;          /* its rows */
    uint64_t *keys;     /* their keys' hashes (ignore / error) */
    int *rows;          /* their row numbers in the chunk (ignore / error) */
    sl_strbuf lit;      /* scratch: one row's literals */
    char *conflict_table; /* 'sink.conflict-table', quoted and qualified, or NULL */
    char *dbtable;      /* 'table-name' as written (conflict records) */
    char *job;          /* the job's name (conflict records) */
    _Atomic int64_t conflicts;
} sl__my_writer;

static void sl__myw_free(void *p);

static int sl__myw_new(const sl_sink_args *args, void **out, sl_error *err)
{
    *out = NULL;
    sl__pg_target t;
    if (sl__pg_target_parse(args->options, &t, err) != 0)
        return -1;
    sl__my_writer *w = sl_calloc(1, sizeof *w);
    w->table = sl_strdup(args->table ? args->table : t.table);
    w->qualified = sl_strdup(t.qualified);
    sl__pg_target_clear(&t);
    w->ncols = args->ncols;
    w->npk = args->npk;
    sl__jdbc_columns_copy(args, &w->names, NULL, &w->pk);
    const char *dup = sl_kvlist_get(args->options, "sink.on-duplicate-key");
    if (w->npk == 0)
        w->mode = SL__MYW_APPEND;
    else if (dup && sl_strcasecmp(dup, "ignore") == 0)
        w->mode = SL__MYW_IGNORE;
    else if (dup && sl_strcasecmp(dup, "error") == 0)
        w->mode = SL__MYW_ERROR;
    else
        w->mode = SL__MYW_UPDATE;
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_appendf(&sb, "INSERT INTO %s (", w->qualified);
    for (int i = 0; i < w->ncols; i++) {
        if (i)
            sl_strbuf_append(&sb, ", ");
        sl__my_quote_ident(&sb, w->names[i]);
    }
    sl_strbuf_append(&sb, ") VALUES ");
    w->head = sl_strbuf_detach(&sb);
    if (w->mode != SL__MYW_APPEND) {
        sl_strbuf_append(&sb, " ON DUPLICATE KEY UPDATE ");
        int n = 0;
        for (int i = 0; w->mode == SL__MYW_UPDATE && i < w->ncols; i++) {
            bool key = false;
            for (int k = 0; k < w->npk; k++)
                key |= w->pk[k] == i;
            if (key)
                continue;
            if (n++)
                sl_strbuf_append(&sb, ", ");
            sl__my_quote_ident(&sb, w->names[i]);
            sl_strbuf_append(&sb, " = VALUES(");
            sl__my_quote_ident(&sb, w->names[i]);
            sl_strbuf_append_char(&sb, ')');
        }
        if (n == 0) { /* keep the stored row: a no-op update of the key */
            sl__my_quote_ident(&sb, w->names[w->pk[0]]);
            sl_strbuf_append(&sb, " = ");
            sl__my_quote_ident(&sb, w->names[w->pk[0]]);
        }
    }
    w->tail = sl_strbuf_detach(&sb);
    w->keys = sl_calloc(SL__MY_BATCH_ROWS, sizeof(uint64_t));
    w->rows = sl_calloc(SL__MY_BATCH_ROWS, sizeof(int));
    w->dbtable = sl_strdup(sl_kvlist_get(args->options, "table-name"));
    w->job = sl_strdup(args->job ? args->job : "");
    const char *ct = sl_kvlist_get(args->options, "sink.conflict-table");
    if (ct && w->mode == SL__MYW_IGNORE) {
        sl_kvlist *o = sl_kvlist_new();
        sl_kvlist_add(o, "url", sl_kvlist_get(args->options, "url"), -1, -1);
        sl_kvlist_add(o, "table-name", ct, -1, -1);
        int rc = sl__pg_target_parse(o, &t, err);
        sl_kvlist_free(o);
        if (rc != 0) {
            sl__myw_free(w);
            return -1;
        }
        w->conflict_table = sl_strdup(t.qualified);
        sl__pg_target_clear(&t);
    }
    *out = w;
    return 0;
}

static void sl__myw_free(void *p)
{
    sl__my_writer *w = p;
    if (!w)
        return;
    sl__jdbc_columns_free(w->names, NULL, w->pk);
    sl_free(w->table);
    sl_free(w->qualified);
    sl_free(w->head);
    sl_free(w->tail);
    sl_free(w->keys);
    sl_free(w->rows);
    sl_strbuf_free(&w->stmt);
    sl_strbuf_free(&w->lit);
    sl_free(w->conflict_table);
    sl_free(w->dbtable);
    sl_free(w->job);
    sl_free(w);
}

/* "(lit, lit, ...)" of the columns cols (n of them; NULL: all) of row r. */
static int sl__myw_tuple(sl__my_writer *w, const sl_chunk *c, int r, int n, const int *cols,
                         sl_strbuf *sb, sl_error *err)
{
    sl_strbuf_append_char(sb, '(');
    for (int i = 0; i < n; i++) {
        int col = cols ? cols[i] : i;
        if (i)
            sl_strbuf_append(sb, ", ");
        sl_error e = SL_ERROR_INIT;
        if (sl__my_literal(sb, &c->cols[col], r, &e) != 0) {
            sl_error_set(err, e.sqlstate, -1, "writing \"%s\", column %s: %s", w->table,
                         w->names[col], e.message);
            sl_error_reset(&e);
            return -1;
        }
    }
    sl_strbuf_append_char(sb, ')');
    return 0;
}

/* The row's key as PostgreSQL words it: (a, b)=(1, x). */
static void sl__myw_key_text(sl__my_writer *w, const sl_chunk *c, int r, sl_strbuf *sb)
{
    sl_strbuf_append_char(sb, '(');
    for (int k = 0; k < w->npk; k++)
        sl_strbuf_appendf(sb, "%s%s", k ? ", " : "", w->names[w->pk[k]]);
    sl_strbuf_append(sb, ")=(");
    for (int k = 0; k < w->npk; k++) {
        if (k)
            sl_strbuf_append(sb, ", ");
        if (!sl_value_format(sb, &c->cols[w->pk[k]], r))
            sl_strbuf_append(sb, "null");
    }
    sl_strbuf_append_char(sb, ')');
}

static uint64_t sl__myw_key_hash(sl__my_writer *w, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&w->lit);
    sl_error ignore = SL_ERROR_INIT;
    sl__myw_tuple(w, c, r, w->npk, w->pk, &w->lit, &ignore);
    sl_error_reset(&ignore);
    return sl_hash_bytes(w->lit.buf, w->lit.len, 0x736c75696365ull);
}

/* ignore / error: the batch's rows whose key the table holds with other
** values. One query: the rows as a derived table joined to the table. */
static int sl__myw_conflicts(sl__my_writer *w, MYSQL *conn, const sl_chunk *c, int64_t epoch,
                             sl_error *err)
{
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_append(&q, "SELECT n.sluice_i, JSON_OBJECT(");
    for (int k = 0; k < w->npk; k++) { /* the key, the stored and the conflicting row */
        sl_strbuf_append(&q, k ? ", " : "");
        sl__my_quote_literal(&q, w->names[w->pk[k]]);
        sl_strbuf_appendf(&q, ", n.c%d", w->pk[k]);
    }
    for (int side = 0; side < 2; side++) {
        sl_strbuf_append(&q, "), JSON_OBJECT(");
        for (int col = 0; col < w->ncols; col++) {
            sl_strbuf_append(&q, col ? ", " : "");
            sl__my_quote_literal(&q, w->names[col]);
            if (side == 0) {
                sl_strbuf_append(&q, ", s.");
                sl__my_quote_ident(&q, w->names[col]);
            } else {
                sl_strbuf_appendf(&q, ", n.c%d", col);
            }
        }
    }
    sl_strbuf_append(&q, ") FROM (");
    for (int i = 0; i < w->nrows; i++) {
        int r = w->rows[i];
        sl_strbuf_appendf(&q, "%sSELECT %d AS sluice_i", i ? " UNION ALL " : "", i);
        for (int col = 0; col < w->ncols; col++) {
            sl_strbuf_append(&q, ", ");
            if (sl__my_literal(&q, &c->cols[col], r, err) != 0) {
                sl_strbuf_free(&q);
                return -1;
            }
            sl_strbuf_appendf(&q, " AS c%d", col);
        }
    }
    sl_strbuf_appendf(&q, ") AS n JOIN %s AS s ON ", w->qualified);
    for (int k = 0; k < w->npk; k++) {
        sl_strbuf_append(&q, k ? " AND s." : "s.");
        sl__my_quote_ident(&q, w->names[w->pk[k]]);
        sl_strbuf_appendf(&q, " = n.c%d", w->pk[k]);
    }
    sl_strbuf_append(&q, " WHERE NOT (TRUE");
    for (int col = 0; col < w->ncols; col++) {
        sl_strbuf_append(&q, " AND s.");
        sl__my_quote_ident(&q, w->names[col]);
        sl_strbuf_appendf(&q, " <=> n.c%d", col);
    }
    sl_strbuf_append(&q, ") ORDER BY n.sluice_i");
    char *what = sl_sprintf("writing \"%s\"", w->table);
    MYSQL_RES *res = sl__my_query(conn, sl_strbuf_cstr(&q), what, err);
    sl_free(what);
    sl_strbuf_free(&q);
    if (!res)
        return -1;
    int rc = 0;
    MYSQL_ROW row;
    sl_strbuf rec = SL_STRBUF_INIT; /* the conflict records' INSERT */
    while (rc == 0 && (row = mysql_fetch_row(res))) {
        int r = w->rows[atoi(row[0])];
        if (w->conflict_table && w->mode == SL__MYW_IGNORE) {
            if (rec.len == 0)
                sl_strbuf_appendf(&rec, "INSERT INTO %s (sink_table, conflict_key, stored_row, "
                                        "conflicting_row, job, epoch, recorded_at) VALUES ",
                                  w->conflict_table);
            else
                sl_strbuf_append(&rec, ", ");
            sl_strbuf_append_char(&rec, '(');
            sl__my_quote_literal(&rec, w->dbtable ? w->dbtable : w->table);
            for (int i = 1; i <= 3; i++) {
                sl_strbuf_append(&rec, ", ");
                if (row[i])
                    sl__my_quote_literal(&rec, row[i]);
                else
                    sl_strbuf_append(&rec, "NULL");
            }
            sl_strbuf_append(&rec, ", ");
            sl__my_quote_literal(&rec, w->job);
            if (epoch >= 0)
                sl_strbuf_appendf(&rec, ", %lld, UTC_TIMESTAMP(6))", (long long)epoch);
            else
                sl_strbuf_append(&rec, ", NULL, UTC_TIMESTAMP(6))");
        }
        sl_strbuf key = SL_STRBUF_INIT;
        sl__myw_key_text(w, c, r, &key);
        if (w->mode == SL__MYW_ERROR) {
            rc = sl_error_set(err, "23505", -1,
                              "writing \"%s\": duplicate key value with different values: Key %s",
                              w->table, sl_strbuf_cstr(&key));
            sl_error_hint(err, "'sink.on-duplicate-key' = 'ignore' keeps the stored row and "
                               "counts the conflict; 'update' overwrites it.");
        } else {
            atomic_fetch_add(&w->conflicts, 1);
            sl_log(SL_LOG_WARN, "jdbc sink \"%s\": conflict: Key %s is stored with other values; "
                                "the row %s was not written (stored: %s)",
                   w->table, sl_strbuf_cstr(&key), row[3] ? row[3] : "?",
                   row[2] ? row[2] : "?");
        }
        sl_strbuf_free(&key);
    }
    mysql_free_result(res);
    if (rc == 0 && rec.len) {
        char *what2 = sl_sprintf("recording conflicts of \"%s\" in the conflict table", w->table);
        rc = sl__my_run(conn, sl_strbuf_cstr(&rec), what2, err);
        sl_free(what2);
    }
    sl_strbuf_free(&rec);
    return rc;
}

/* Send the batch being built (if any). */
static int sl__myw_flush(sl__my_writer *w, MYSQL *conn, const sl_chunk *c, int64_t epoch,
                         sl_error *err)
{
    if (w->nrows == 0)
        return 0;
    int rc = 0;
    if (w->mode == SL__MYW_IGNORE || w->mode == SL__MYW_ERROR)
        rc = sl__myw_conflicts(w, conn, c, epoch, err);
    if (rc == 0) {
        sl_strbuf_append(&w->stmt, w->tail);
        char *what = sl_sprintf("writing \"%s\"", w->table);
        rc = sl__my_run(conn, sl_strbuf_cstr(&w->stmt), what, err);
        sl_free(what);
    }
    sl_strbuf_reset(&w->stmt);
    w->nrows = 0;
    return rc;
}

/* DELETE the keys of rows [r0, r1) of c whose kind deletes (consecutive). */
static int sl__myw_delete(sl__my_writer *w, MYSQL *conn, const sl_chunk *c, const int *rows, int n,
                          sl_error *err)
{
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_appendf(&q, "DELETE FROM %s WHERE (", w->qualified);
    for (int k = 0; k < w->npk; k++) {
        if (k)
            sl_strbuf_append(&q, ", ");
        sl__my_quote_ident(&q, w->names[w->pk[k]]);
    }
    sl_strbuf_append(&q, ") IN (");
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (i)
            sl_strbuf_append(&q, ", ");
        rc = sl__myw_tuple(w, c, rows[i], w->npk, w->pk, &q, err);
    }
    sl_strbuf_append_char(&q, ')');
    if (rc == 0) {
        char *what = sl_sprintf("deleting from \"%s\"", w->table);
        rc = sl__my_run(conn, sl_strbuf_cstr(&q), what, err);
        sl_free(what);
    }
    sl_strbuf_free(&q);
    return rc;
}

static bool sl__myw_same_key(sl__my_writer *w, const sl_chunk *c, int a, int b)
{
    for (int k = 0; k < w->npk; k++) {
        const sl_vector *v = &c->cols[w->pk[k]];
        sl_strbuf x = SL_STRBUF_INIT, y = SL_STRBUF_INIT;
        bool nx = sl_value_format(&x, v, a), ny = sl_value_format(&y, v, b);
        bool same = nx == ny && x.len == y.len && (x.len == 0 || memcmp(x.buf, y.buf, x.len) == 0) == 0;
        sl_strbuf_free(&x);
        sl_strbuf_free(&y);
        if (!same)
            return false;
    }
    return true;
}

static int sl__myw_put(void *p, void *conn_, const sl_chunk *c, int64_t epoch, sl_error *err)
{
    sl__my_writer *w = p;
    MYSQL *conn = conn_;
    bool track = w->mode == SL__MYW_IGNORE || w->mode == SL__MYW_ERROR;
    int del[64];
    int ndel = 0;
    int rc = 0;
    for (int r = 0; r < c->nrows && rc == 0; r++) {
        sl_row_kind kind = (sl_row_kind)c->kinds[r];
        bool deletes = kind == SL_ROW_DELETE;
        if (kind == SL_ROW_UPDATE_BEFORE) {
            if (w->npk == 0)
                continue; /* an append-only table takes no retraction (the planner's) */
            if (r + 1 < c->nrows && c->kinds[r + 1] == SL_ROW_UPDATE_AFTER &&
                sl__myw_same_key(w, c, r, r + 1))
                continue; /* its +U replaces the row */
            deletes = true;
        }
        if (deletes) {
            if (w->npk == 0)
                continue;
            if ((rc = sl__myw_flush(w, conn, c, epoch, err)) != 0)
                break;
            del[ndel++] = r;
            if (ndel == (int)SL_ARRAY_LEN(del) || r + 1 == c->nrows ||
                (c->kinds[r + 1] != SL_ROW_DELETE && c->kinds[r + 1] != SL_ROW_UPDATE_BEFORE)) {
                rc = sl__myw_delete(w, conn, c, del, ndel, err);
                ndel = 0;
            }
            continue;
        }
        if (ndel) {
            if ((rc = sl__myw_delete(w, conn, c, del, ndel, err)) != 0)
                break;
            ndel = 0;
        }
        uint64_t h = 0;
        if (track) {
            h = sl__myw_key_hash(w, c, r);
            for (int i = 0; i < w->nrows; i++)
                if (w->keys[i] == h) { /* the key again: the batch ends before it */
                    rc = sl__myw_flush(w, conn, c, epoch, err);
                    break;
                }
            if (rc != 0)
                break;
        }
        if (w->nrows == 0)
            sl_strbuf_append(&w->stmt, w->head);
        else
            sl_strbuf_append(&w->stmt, ", ");
        if ((rc = sl__myw_tuple(w, c, r, w->ncols, NULL, &w->stmt, err)) != 0)
            break;
        if (track) {
            w->keys[w->nrows] = h;
            w->rows[w->nrows] = r;
        }
        w->nrows++;
        if (w->nrows == SL__MY_BATCH_ROWS || w->stmt.len >= SL__MY_BATCH_BYTES)
            rc = sl__myw_flush(w, conn, c, epoch, err);
    }
    if (rc == 0 && ndel)
        rc = sl__myw_delete(w, conn, c, del, ndel, err);
    if (rc == 0)
        rc = sl__myw_flush(w, conn, c, epoch, err); /* rows refer to c: never kept across chunks */
    if (rc != 0) {
        sl_strbuf_reset(&w->stmt);
        w->nrows = 0;
    }
    return rc;
}

static int sl__myw_finish(void *w, sl_error *err)
{
    (void)w, (void)err;
    return 0;
}

static void sl__myw_forget(void *w)
{
    (void)w;
}

static int64_t sl__myw_conflicts_count(const void *p)
{
    const sl__my_writer *w = p;
    return atomic_load(&((sl__my_writer *)w)->conflicts);
}

/* The conflict table, created when missing (outside any epoch). */
static int sl__myw_setup(const void *p, void *conn, sl_error *err)
{
    const sl__my_writer *w = p;
    if (!w->conflict_table)
        return 0;
    char *sql = sl_sprintf("CREATE TABLE IF NOT EXISTS %s (sink_table VARCHAR(1024) NOT NULL, "
                           "conflict_key TEXT, stored_row TEXT, conflicting_row TEXT, job "
                           "VARCHAR(1024) NOT NULL, epoch BIGINT NULL, recorded_at DATETIME(6) "
                           "NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
                           w->conflict_table);
    int rc = sl__my_run(conn, sql, "creating the conflict table", err);
    sl_free(sql);
    return rc;
}

/* ------------------------------------------------------------------------
** The driver of pg_sink.c's sink.
*/
static void *sl__my_drv_connect(const sl__pg_target *t, const char *appname, int64_t timeout_ms,
                                sl_error *err)
{
    (void)appname;
    return sl__my_connect(t, timeout_ms, err);
}

static bool sl__my_drv_alive(void *conn)
{
    return sl__my_alive(conn);
}

static void sl__my_drv_close(void *conn)
{
    if (conn)
        mysql_close(conn);
}

static int sl__my_drv_run(void *conn, const char *sql, const char *what, sl_error *err)
{
    return sl__my_run(conn, sql, what, err);
}

const sl__jdbc_driver sl__my_driver = {
    .system = "mariadb",
    .connect = sl__my_drv_connect,
    .alive = sl__my_drv_alive,
    .close = sl__my_drv_close,
    .run = sl__my_drv_run,
    .retryable = sl__my_retryable,
    .writer_new = sl__myw_new,
    .writer_put = sl__myw_put,
    .writer_finish = sl__myw_finish,
    .writer_forget = sl__myw_forget,
    .writer_conflicts = sl__myw_conflicts_count,
    .writer_setup = sl__myw_setup,
    .writer_free = sl__myw_free,
    .txn_write = sl__my_txn_write,
};

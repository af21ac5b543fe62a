/*
** pg_write.c — the row writer of the jdbc sink: the rows of a chunk into
** the sink's table, inside a transaction the caller opened (the sink's own
** for none / at-least-once, the epoch's of pg_txn.c for exactly-once).
**
** The mode comes from the table:
**
**   append   no PRIMARY KEY: +I rows streamed with COPY ... FROM STDIN in
**            the text format (values escaped for it: \\ \t \n \r, NULL as
**            \N). sl__pg_writer_write ends the COPY before it returns;
**            sl__pg_writer_put leaves it open, so that the server parses
**            while the next rows are encoded, until sl__pg_writer_finish
**            (before COMMIT or PREPARE). One COPY per chunk made the sink
**            wait for the server after every chunk: half the ceiling's
**            rate (bench_pg); COPY is 4-5 times faster than prepared
**            INSERTs in pipeline mode.
**   update   a PRIMARY KEY, 'sink.on-duplicate-key' = 'update' (default):
**            +I/+U rows by INSERT ... ON CONFLICT (key) DO UPDATE, -D rows
**            by DELETE ... WHERE key; a -U row is left out when the +U
**            of its key follows it (it replaces the row), else it deletes
**            by key (a filter dropped its +U), as Flink's JDBC sink treats
**            -U. One prepared
**            statement per row in libpq's pipeline mode, one sync per
**            SL__PG_PIPELINE_ROWS rows: a key's changes keep their order.
**   ignore   ON CONFLICT (key) DO NOTHING, the idempotent ledger insert.
**            Each row's statement also returns the stored row (as JSON)
**            when it has the key and its columns differ from the row's
**            (the CTE's main query sees the table as it was before the
**            statement): a conflict. It is counted, logged with its key,
**            and with 'sink.conflict-table' inserted into that table by
**            the same statement (so in the same transaction):
**
**              WITH ins AS (INSERT INTO t (c..) VALUES ($1..) ON CONFLICT
**                           (k..) DO NOTHING),
**                   old AS (SELECT row_to_json(s)::text AS j FROM t s
**                           WHERE s.k = $k.. AND (s.c..) IS DISTINCT FROM
**                           ($1..)),
**                   rec AS (INSERT INTO conflicts (...) SELECT ... FROM old)
**              SELECT j FROM old
**
**            An identical duplicate returns nothing: absorbed quietly.
**   error    the same without the conflict table; a conflict fails the
**            write with 23505 naming the key, the stored and the row.
**
** The conflict table's columns (created by the sink, pg_sink.c):
**   sink_table text ('table-name'), conflict_key text (JSON object of the key columns),
**   stored_row text (JSON), conflicting_row text (JSON), job text,
**   epoch bigint (NULL unless exactly-once), recorded_at timestamptz.
**
** No temporary objects: PostgreSQL refuses to PREPARE TRANSACTION a
** transaction that touched one, and exactly-once prepares these.
**
** Main routines: sl__pg_writer_new, sl__pg_writer_write,
** sl__pg_writer_conflicts, sl__pg_writer_setup.
*/
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__PG_PIPELINE_ROWS 128   /* rows per pipeline sync (results stay small) */
#define SL__PG_COPY_CHUNK 65536    /* bytes handed to PQputCopyData at once */
#define SL__PG_MAX_PREPARED 8      /* connections the statements are prepared on */

typedef enum sl__pgw_mode {
    SL__PGW_APPEND, /* COPY */
    SL__PGW_UPDATE, /* ON CONFLICT DO UPDATE */
    SL__PGW_IGNORE, /* ON CONFLICT DO NOTHING, conflicts recorded */
    SL__PGW_ERROR,  /* ON CONFLICT DO NOTHING, a conflict fails */
} sl__pgw_mode;

/* A connection the statements were prepared on (its backend's pid tells a
** new connection that happens to get the same address). */
typedef struct sl__pgw_conn {
    const PGconn *conn; /* the connection */
    int pid;            /* its backend */
} sl__pgw_conn;

struct sl__pg_writer {
    sl__pgw_mode mode;          /* how rows are written */
    char *table;                /* the sink table's name in Sluice (messages) */
    char *qualified;            /* the database table, quoted */
    char *dbtable;              /* ... as 'table-name' names it (conflict records) */
    int ncols;                  /* columns */
    char **names;               /* their names */
    sl_type *types;             /* their types */
    int npk;                    /* key columns */
    int *pk;                    /* their indexes */
    bool conflict_table;        /* ignore: conflicts are inserted into a table */
    char *conflict_qualified;   /* ... that table, quoted, or NULL */
    char *copy_sql;             /* append: COPY ... FROM STDIN */
    char *put_sql;              /* key modes: the row's INSERT */
    char *delete_sql;           /* key modes: DELETE by key */
    char stmt_put[32];          /* prepared statement names (unique in the process) */
    char stmt_delete[32];
    sl__pgw_conn prepared[SL__PG_MAX_PREPARED]; /* where they are prepared */
    int nprepared;              /* entries used (a ring when full) */
    sl_strbuf text;             /* one value's text */
    sl_strbuf rowbuf;           /* COPY data, or every parameter of one row */
    char **params;              /* a row's parameter values (pointers into rowbufs) */
    sl_strbuf *pbufs;           /* one buffer per parameter */
    int64_t conflicts;          /* conflicts so far */
    PGconn *copy_conn;          /* append: the connection with a COPY open, or NULL */
};

static atomic_int sl__pgw_seq; /* statement names */

/* ------------------------------------------------------------------------
** Values -> PostgreSQL's text input format (the connection runs with
** DateStyle ISO, TimeZone UTC). The engine's own text (sl_value_format,
** CAST(... AS STRING)) is PostgreSQL's for every type but these: BYTES
** (bytea's \x hex), TIMESTAMP_LTZ (an instant: written with +00), and the
** intervals (Flink's "+1 02:03:04.000" is not PostgreSQL's: written as
** days and milliseconds / months, which reads back exactly).
*/

/* Append row r of v; false (nothing appended) for NULL. */
bool sl__pg_encode(sl_strbuf *sb, const sl_vector *v, int r)
{
    if (v->nulls[r] || v->type.id == SL_TYPE_NULL)
        return false;
    switch (v->type.id) {
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: {
        static const char hex[] = "0123456789abcdef";
        const sl_str *s = &v->v.str[r];
        sl_strbuf_reserve(sb, 2 + 2 * (size_t)s->len);
        sl_strbuf_append(sb, "\\x");
        for (uint32_t i = 0; i < s->len; i++) {
            unsigned char b = (unsigned char)s->ptr[i];
            sl_strbuf_append_char(sb, hex[b >> 4]);
            sl_strbuf_append_char(sb, hex[b & 15]);
        }
        return true;
    }
    case SL_TYPE_TIMESTAMP_LTZ:
        sl_value_format(sb, v, r);
        sl_strbuf_append(sb, "+00");
        return true;
    case SL_TYPE_INTERVAL_DT: {
        int64_t ms = v->v.i64[r];
        sl_strbuf_appendf(sb, "%lld days %lld milliseconds", (long long)(ms / 86400000),
                          (long long)(ms % 86400000));
        return true;
    }
    case SL_TYPE_INTERVAL_YM:
        sl_strbuf_appendf(sb, "%lld months", (long long)v->v.i64[r]);
        return true;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_strbuf_append_i64(sb, v->v.i64[r]); return true; /* no printf */
    default: return sl_value_format(sb, v, r);
    }
}

/* Append s[0..n) escaped for COPY's text format. */
static void sl__pg_copy_escape(sl_strbuf *sb, const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        char e = 0;
        switch (s[i]) {
        case '\\': e = '\\'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\t': e = 't'; break;
        default: continue;
        }
        sl_strbuf_append_n(sb, s + start, i - start);
        sl_strbuf_append_char(sb, '\\');
        sl_strbuf_append_char(sb, e);
        start = i + 1;
    }
    sl_strbuf_append_n(sb, s + start, n - start);
}

/* The row's key as PostgreSQL words it: (a, b)=(1, x). */
static void sl__pg_key_text(sl__pg_writer *w, const sl_chunk *c, int r, sl_strbuf *sb)
{
    sl_strbuf_append_char(sb, '(');
    for (int k = 0; k < w->npk; k++)
        sl_strbuf_appendf(sb, "%s%s", k ? ", " : "", w->names[w->pk[k]]);
    sl_strbuf_append(sb, ")=(");
    for (int k = 0; k < w->npk; k++) {
        if (k)
            sl_strbuf_append(sb, ", ");
        if (!sl__pg_encode(sb, &c->cols[w->pk[k]], r))
            sl_strbuf_append(sb, "null");
    }
    sl_strbuf_append_char(sb, ')');
}

/* ------------------------------------------------------------------------
** Statements
*/

static void sl__pg_col_list(sl_strbuf *sb, const sl__pg_writer *w, const char *prefix)
{
    for (int i = 0; i < w->ncols; i++) {
        if (i)
            sl_strbuf_append(sb, ", ");
        sl_strbuf_append(sb, prefix);
        sl__pg_quote_ident(sb, w->names[i]);
    }
}

static void sl__pg_param_list(sl_strbuf *sb, int n)
{
    for (int i = 0; i < n; i++)
        sl_strbuf_appendf(sb, "%s$%d", i ? ", " : "", i + 1);
}

/* WHERE s.k1 = $i1 AND ... (the key's parameters are the columns'). */
static void sl__pg_key_match(sl_strbuf *sb, const sl__pg_writer *w, const char *prefix,
                             bool key_params)
{
    for (int k = 0; k < w->npk; k++) {
        sl_strbuf_append(sb, k ? " AND " : "");
        sl_strbuf_append(sb, prefix);
        sl__pg_quote_ident(sb, w->names[w->pk[k]]);
        sl_strbuf_appendf(sb, " = $%d", key_params ? k + 1 : w->pk[k] + 1);
    }
}

/* json_build_object('a', $1, ...) of some columns. */
static void sl__pg_json_of(sl_strbuf *sb, const sl__pg_writer *w, int n, const int *cols)
{
    sl_strbuf_append(sb, "json_build_object(");
    for (int i = 0; i < n; i++) {
        int c = cols ? cols[i] : i;
        if (i)
            sl_strbuf_append(sb, ", ");
        sl__pg_quote_literal(sb, w->names[c]);
        sl_strbuf_appendf(sb, ", $%d", c + 1);
    }
    sl_strbuf_append(sb, ")::text");
}

static void sl__pg_build_sql(sl__pg_writer *w, const char *conflict_qualified, const char *job)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    if (w->mode == SL__PGW_APPEND) {
        sl_strbuf_appendf(&sb, "COPY %s (", w->qualified);
        sl__pg_col_list(&sb, w, "");
        sl_strbuf_append(&sb, ") FROM STDIN");
        w->copy_sql = sl_strbuf_detach(&sb);
        return;
    }
    sl_strbuf insert = SL_STRBUF_INIT;
    sl_strbuf_appendf(&insert, "INSERT INTO %s (", w->qualified);
    sl__pg_col_list(&insert, w, "");
    sl_strbuf_append(&insert, ") VALUES (");
    sl__pg_param_list(&insert, w->ncols);
    sl_strbuf_append(&insert, ") ON CONFLICT (");
    for (int k = 0; k < w->npk; k++) {
        if (k)
            sl_strbuf_append(&insert, ", ");
        sl__pg_quote_ident(&insert, w->names[w->pk[k]]);
    }
    sl_strbuf_append(&insert, ") DO ");
    if (w->mode == SL__PGW_UPDATE) {
        bool any = false;
        for (int i = 0; i < w->ncols; i++) {
            bool key = false;
            for (int k = 0; k < w->npk; k++)
                key |= w->pk[k] == i;
            if (key)
                continue;
            sl_strbuf_append(&insert, any ? ", " : "UPDATE SET ");
            sl__pg_quote_ident(&insert, w->names[i]);
            sl_strbuf_append(&insert, " = EXCLUDED.");
            sl__pg_quote_ident(&insert, w->names[i]);
            any = true;
        }
        if (!any)
            sl_strbuf_append(&insert, "NOTHING");
        w->put_sql = sl_strbuf_detach(&insert);
    } else {
        sl_strbuf_append(&insert, "NOTHING");
        sl_strbuf_appendf(&sb,
                          "WITH ins AS (%s), old AS (SELECT row_to_json(s)::text AS j FROM %s s "
                          "WHERE ",
                          sl_strbuf_cstr(&insert), w->qualified);
        sl__pg_key_match(&sb, w, "s.", false);
        sl_strbuf_append(&sb, " AND (");
        sl__pg_col_list(&sb, w, "s.");
        sl_strbuf_append(&sb, ") IS DISTINCT FROM (");
        sl__pg_param_list(&sb, w->ncols);
        sl_strbuf_append(&sb, "))");
        if (conflict_qualified) {
            sl_strbuf_appendf(&sb,
                              ", rec AS (INSERT INTO %s (sink_table, conflict_key, stored_row, "
                              "conflicting_row, job, epoch) SELECT ",
                              conflict_qualified);
            sl__pg_quote_literal(&sb, w->dbtable);
            sl_strbuf_append(&sb, ", ");
            sl__pg_json_of(&sb, w, w->npk, w->pk);
            sl_strbuf_append(&sb, ", old.j, ");
            sl__pg_json_of(&sb, w, w->ncols, NULL);
            sl_strbuf_append(&sb, ", ");
            sl__pg_quote_literal(&sb, job);
            sl_strbuf_appendf(&sb, ", $%d::bigint FROM old)", w->ncols + 1);
        }
        sl_strbuf_append(&sb, " SELECT j FROM old");
        w->put_sql = sl_strbuf_detach(&sb);
        sl_strbuf_free(&insert);
    }
    sl_strbuf_appendf(&sb, "DELETE FROM %s WHERE ", w->qualified);
    sl__pg_key_match(&sb, w, "", true);
    w->delete_sql = sl_strbuf_detach(&sb);
}

int sl__pg_writer_setup(const sl__pg_writer *w, PGconn *conn, sl_error *err)
{
    if (!w->conflict_qualified)
        return 0;
    char *sql = sl_sprintf("CREATE TABLE IF NOT EXISTS %s (sink_table text NOT NULL, "
                           "conflict_key text NOT NULL, stored_row text NOT NULL, "
                           "conflicting_row text NOT NULL, job text NOT NULL, epoch bigint, "
                           "recorded_at timestamptz NOT NULL DEFAULT now())",
                           w->conflict_qualified);
    char *what = sl_sprintf("creating the conflict table of \"%s\"", w->table);
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc != 0; attempt++) {
        sl_error_reset(err);
        rc = sl__pg_run(conn, sql, what, err);
        /* two instances creating it at once: one of them sees a unique
        ** violation of the catalog; the table exists then */
        if (rc != 0 && strcmp(err->sqlstate, "23505") != 0 && strcmp(err->sqlstate, "42P07") != 0)
            break;
    }
    sl_free(sql);
    sl_free(what);
    return rc;
}

int sl__pg_writer_new(const sl_sink_args *args, sl__pg_writer **out, sl_error *err)
{
    *out = NULL;
    sl__pg_target t;
    if (sl__pg_target_parse(args->options, &t, err) != 0)
        return -1;
    sl__pg_writer *w = sl_calloc(1, sizeof *w);
    w->table = sl_strdup(args->table ? args->table : t.table);
    w->qualified = sl_strdup(t.qualified);
    w->dbtable = sl_strdup(sl_kvlist_get(args->options, "table-name"));
    sl__pg_target_clear(&t);
    w->ncols = args->ncols;
    w->npk = args->npk;
    sl__jdbc_columns_copy(args, &w->names, &w->types, &w->pk);
    const char *dup = sl_kvlist_get(args->options, "sink.on-duplicate-key");
    if (w->npk == 0)
        w->mode = SL__PGW_APPEND;
    else if (dup && sl_strcasecmp(dup, "ignore") == 0)
        w->mode = SL__PGW_IGNORE;
    else if (dup && sl_strcasecmp(dup, "error") == 0)
        w->mode = SL__PGW_ERROR;
    else
        w->mode = SL__PGW_UPDATE;
    char *conflict = NULL;
    const char *ct = sl_kvlist_get(args->options, "sink.conflict-table");
    if (ct && w->mode == SL__PGW_IGNORE) {
        sl_kvlist *o = sl_kvlist_new();
        sl_kvlist_add(o, "url", sl_kvlist_get(args->options, "url"), -1, -1);
        sl_kvlist_add(o, "table-name", ct, -1, -1);
        if (sl__pg_target_parse(o, &t, err) != 0) {
            sl_kvlist_free(o);
            sl__pg_writer_free(w);
            return -1;
        }
        sl_kvlist_free(o);
        conflict = sl_strdup(t.qualified);
        sl__pg_target_clear(&t);
        w->conflict_table = true;
    }
    sl__pg_build_sql(w, conflict, args->job ? args->job : "");
    w->conflict_qualified = conflict;
    int id = atomic_fetch_add(&sl__pgw_seq, 1);
    snprintf(w->stmt_put, sizeof w->stmt_put, "sluice_w%d_put", id);
    snprintf(w->stmt_delete, sizeof w->stmt_delete, "sluice_w%d_del", id);
    int np = w->ncols + 1;
    w->params = sl_calloc((size_t)np, sizeof(char *));
    w->pbufs = sl_calloc((size_t)np, sizeof(sl_strbuf));
    *out = w;
    return 0;
}

void sl__pg_writer_free(sl__pg_writer *w)
{
    if (!w)
        return;
    sl__jdbc_columns_free(w->names, w->types, w->pk);
    for (int i = 0; w->pbufs && i <= w->ncols; i++)
        sl_strbuf_free(&w->pbufs[i]);
    sl_free(w->pbufs);
    sl_free(w->params);
    sl_free(w->table);
    sl_free(w->qualified);
    sl_free(w->dbtable);
    sl_free(w->conflict_qualified);
    sl_free(w->copy_sql);
    sl_free(w->put_sql);
    sl_free(w->delete_sql);
    sl_strbuf_free(&w->text);
    sl_strbuf_free(&w->rowbuf);
    sl_free(w);
}

int64_t sl__pg_writer_conflicts(const sl__pg_writer *w)
{
    return w ? w->conflicts : 0;
}

/* ------------------------------------------------------------------------
** Append: COPY
*/

/* End the open COPY (if any) and take its result. */
static int sl__pg_copy_finish(sl__pg_writer *w, sl_error *err)
{
    PGconn *conn = w->copy_conn;
    if (!conn)
        return 0;
    w->copy_conn = NULL;
    char what[256];
    snprintf(what, sizeof what, "writing \"%s\"", w->table);
    bool failed = w->rowbuf.len > 0 && PQputCopyData(conn, w->rowbuf.buf, (int)w->rowbuf.len) != 1;
    sl_strbuf_reset(&w->rowbuf);
    failed = failed || PQputCopyEnd(conn, NULL) != 1;
    int rc = 0;
    bool seen = false;
    PGresult *res;
    while ((res = PQgetResult(conn))) {
        if (!seen && PQresultStatus(res) != PGRES_COMMAND_OK) {
            rc = sl__pg_error(err, res, conn, what);
            seen = true;
        }
        PQclear(res);
    }
    if (failed && !seen)
        rc = sl__pg_error(err, NULL, conn, what);
    return rc;
}

/* Stream c's rows into a COPY on conn, begun when none is open there. */
static int sl__pg_copy_put(sl__pg_writer *w, PGconn *conn, const sl_chunk *c, sl_error *err)
{
    char what[256];
    snprintf(what, sizeof what, "writing \"%s\"", w->table);
    for (int r = 0; r < c->nrows; r++)
        if (c->kinds[r] != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "writing \"%s\": a %s row reached a table without a PRIMARY KEY",
                                w->table, sl_row_kind_name((sl_row_kind)c->kinds[r]));
    if (w->copy_conn && w->copy_conn != conn && sl__pg_copy_finish(w, err) != 0)
        return -1;
    if (!w->copy_conn) {
        PGresult *res = PQexec(conn, w->copy_sql);
        if (PQresultStatus(res) != PGRES_COPY_IN) {
            sl__pg_error(err, res, conn, what);
            PQclear(res);
            return -1;
        }
        PQclear(res);
        w->copy_conn = conn;
    }
    sl_strbuf *b = &w->rowbuf; /* sent in pieces of SL__PG_COPY_CHUNK (the rest at the finish) */
    for (int r = 0; r < c->nrows; r++) {
        for (int i = 0; i < w->ncols; i++) {
            if (i)
                sl_strbuf_append_char(b, '\t');
            const sl_vector *v = &c->cols[i];
            if (v->phys == SL_PHYS_STR) {
                if (v->nulls[r]) {
                    sl_strbuf_append(b, "\\N");
                } else if (v->type.id == SL_TYPE_CHAR || v->type.id == SL_TYPE_VARCHAR) {
                    sl__pg_copy_escape(b, v->v.str[r].ptr, v->v.str[r].len);
                } else {
                    sl_strbuf_reset(&w->text);
                    sl__pg_encode(&w->text, v, r);
                    sl__pg_copy_escape(b, w->text.buf, w->text.len);
                }
            } else if (!sl__pg_encode(b, v, r)) {
                sl_strbuf_append(b, "\\N");
            }
        }
        sl_strbuf_append_char(b, '\n');
        if (b->len >= SL__PG_COPY_CHUNK) {
            if (PQputCopyData(conn, b->buf, (int)b->len) != 1) {
                sl_strbuf_reset(b);
                w->copy_conn = NULL; /* the connection failed: nothing to end */
                return sl__pg_error(err, NULL, conn, what);
            }
            sl_strbuf_reset(b);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Keys: prepared statements in pipeline mode
*/

static int sl__pg_prepare(sl__pg_writer *w, PGconn *conn, sl_error *err)
{
    int pid = PQbackendPID(conn);
    for (int i = 0; i < w->nprepared; i++)
        if (w->prepared[i].conn == conn && w->prepared[i].pid == pid)
            return 0;
    char what[256];
    snprintf(what, sizeof what, "preparing the writes of \"%s\"", w->table);
    int nput = w->ncols + (w->conflict_table ? 1 : 0);
    PGresult *r = PQprepare(conn, w->stmt_put, w->put_sql, nput, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        sl__pg_error(err, r, conn, what);
        PQclear(r);
        return -1;
    }
    PQclear(r);
    r = PQprepare(conn, w->stmt_delete, w->delete_sql, w->npk, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        sl__pg_error(err, r, conn, what);
        PQclear(r);
        return -1;
    }
    PQclear(r);
    int slot = w->nprepared < SL__PG_MAX_PREPARED ? w->nprepared++ : pid % SL__PG_MAX_PREPARED;
    w->prepared[slot] = (sl__pgw_conn){conn, pid};
    return 0;
}

/* Row r's parameters into w->params (NULL for NULL). */
static void sl__pg_row_params(sl__pg_writer *w, const sl_chunk *c, int r, bool key_only,
                              int64_t epoch)
{
    int n = key_only ? w->npk : w->ncols;
    for (int i = 0; i < n; i++) {
        int col = key_only ? w->pk[i] : i;
        sl_strbuf *pb = &w->pbufs[i];
        sl_strbuf_reset(pb);
        w->params[i] = sl__pg_encode(pb, &c->cols[col], r) ? (char *)sl_strbuf_cstr(pb) : NULL;
    }
    if (!key_only && w->conflict_table) {
        sl_strbuf *pb = &w->pbufs[w->ncols];
        sl_strbuf_reset(pb);
        sl_strbuf_appendf(pb, "%lld", (long long)epoch);
        w->params[w->ncols] = epoch >= 0 ? (char *)sl_strbuf_cstr(pb) : NULL;
    }
}

/* A conflict of row r with the stored row (JSON). */
static int sl__pg_conflict(sl__pg_writer *w, const sl_chunk *c, int r, const char *stored,
                           sl_error *err)
{
    sl_strbuf key = SL_STRBUF_INIT, row = SL_STRBUF_INIT;
    sl__pg_key_text(w, c, r, &key);
    sl_strbuf_append_char(&row, '(');
    for (int i = 0; i < w->ncols; i++) {
        if (i)
            sl_strbuf_append(&row, ", ");
        if (!sl__pg_encode(&row, &c->cols[i], r))
            sl_strbuf_append(&row, "null");
    }
    sl_strbuf_append_char(&row, ')');
    int rc = 0;
    if (w->mode == SL__PGW_ERROR) {
        rc = sl_error_set(err, "23505", -1,
                          "writing \"%s\": duplicate key value with different values: Key %s",
                          w->table, sl_strbuf_cstr(&key));
        sl_error_detail(err, "The table holds %s; the row is %s.", stored, sl_strbuf_cstr(&row));
        sl_error_hint(err, "'sink.on-duplicate-key' = 'ignore' keeps the stored row and records "
                           "the conflict; 'update' overwrites it.");
    } else {
        w->conflicts++;
        sl_log(SL_LOG_WARN,
               "jdbc sink \"%s\": conflict: Key %s is stored with other values; the row %s was "
               "not written (stored: %s)",
               w->table, sl_strbuf_cstr(&key), sl_strbuf_cstr(&row), stored);
    }
    sl_strbuf_free(&key);
    sl_strbuf_free(&row);
    return rc;
}

/* Whether row r (a -U) is followed in c by the +U of the same key. */
static bool sl__pg_replaced(sl__pg_writer *w, const sl_chunk *c, int r)
{
    if (r + 1 >= c->nrows || c->kinds[r + 1] != SL_ROW_UPDATE_AFTER)
        return false;
    sl_strbuf a = SL_STRBUF_INIT, b = SL_STRBUF_INIT;
    sl__pg_key_text(w, c, r, &a);
    sl__pg_key_text(w, c, r + 1, &b);
    bool same = strcmp(sl_strbuf_cstr(&a), sl_strbuf_cstr(&b)) == 0;
    sl_strbuf_free(&a);
    sl_strbuf_free(&b);
    return same;
}

static int sl__pg_write_keyed(sl__pg_writer *w, PGconn *conn, const sl_chunk *c, int64_t epoch,
                              sl_error *err)
{
    if (sl__pg_prepare(w, conn, err) != 0)
        return -1;
    char what[256];
    snprintf(what, sizeof what, "writing \"%s\"", w->table);
    if (PQenterPipelineMode(conn) != 1)
        return sl__pg_error(err, NULL, conn, what);
    int rc = 0;
    int *sent = sl_calloc((size_t)SL__PG_PIPELINE_ROWS, sizeof(int));
    for (int r0 = 0; r0 < c->nrows && rc == 0;) {
        /* send up to SL__PG_PIPELINE_ROWS rows, then one sync */
        int nsent = 0, r = r0;
        for (; r < c->nrows && nsent < SL__PG_PIPELINE_ROWS; r++) {
            sl_row_kind k = (sl_row_kind)c->kinds[r];
            if (k == SL_ROW_UPDATE_BEFORE && sl__pg_replaced(w, c, r))
                continue; /* the +U right after it replaces the row */
            /* A -U alone retracts the row (a filter dropped its +U: the key
            ** no longer qualifies): deleted, as Flink's JDBC sink does. */
            bool del = k == SL_ROW_DELETE || k == SL_ROW_UPDATE_BEFORE;
            sl__pg_row_params(w, c, r, del, epoch);
            int np = del ? w->npk : w->ncols + (w->conflict_table ? 1 : 0);
            if (PQsendQueryPrepared(conn, del ? w->stmt_delete : w->stmt_put, np,
                                    (const char *const *)w->params, NULL, NULL, 0) != 1) {
                rc = sl__pg_error(err, NULL, conn, what);
                break;
            }
            sent[nsent++] = r;
        }
        r0 = r;
        if (PQpipelineSync(conn) != 1 && rc == 0)
            rc = sl__pg_error(err, NULL, conn, what);
        /* one result (then NULL) per query, then the sync's */
        for (int q = 0; q < nsent; q++) {
            PGresult *res = PQgetResult(conn);
            if (!res) {
                if (rc == 0)
                    rc = sl__pg_error(err, NULL, conn, what);
                break;
            }
            ExecStatusType st = PQresultStatus(res);
            if (st == PGRES_TUPLES_OK && PQntuples(res) > 0 && rc == 0 &&
                !PQgetisnull(res, 0, 0)) {
                rc = sl__pg_conflict(w, c, sent[q], PQgetvalue(res, 0, 0), err);
            } else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && rc == 0) {
                rc = sl__pg_error(err, res, conn, what);
                if (st == PGRES_FATAL_ERROR) { /* name the row's key */
                    sl_strbuf key = SL_STRBUF_INIT;
                    sl__pg_key_text(w, c, sent[q], &key);
                    char *m = sl_sprintf("%s (Key %s)", err->message, sl_strbuf_cstr(&key));
                    sl_free(err->message);
                    err->message = m;
                    sl_strbuf_free(&key);
                }
            }
            PQclear(res);
            while ((res = PQgetResult(conn))) /* the end of this query's results */
                PQclear(res);
        }
        for (int nulls = 0;;) { /* up to the sync */
            PGresult *res = PQgetResult(conn);
            if (!res) {
                if (PQstatus(conn) == CONNECTION_BAD || ++nulls > 2 * SL__PG_PIPELINE_ROWS) {
                    if (rc == 0)
                        rc = sl__pg_error(err, NULL, conn, what);
                    break;
                }
                continue;
            }
            ExecStatusType st = PQresultStatus(res);
            PQclear(res);
            if (st == PGRES_PIPELINE_SYNC)
                break;
        }
        if (PQstatus(conn) == CONNECTION_BAD)
            break;
    }
    sl_free(sent);
    if (PQstatus(conn) != CONNECTION_BAD && PQexitPipelineMode(conn) != 1 && rc == 0)
        rc = sl__pg_error(err, NULL, conn, what);
    return rc;
}

int sl__pg_writer_put(sl__pg_writer *w, PGconn *conn, const sl_chunk *c, int64_t epoch,
                      sl_error *err)
{
    if (c->nrows == 0)
        return 0;
    return w->mode == SL__PGW_APPEND ? sl__pg_copy_put(w, conn, c, err)
                                     : sl__pg_write_keyed(w, conn, c, epoch, err);
}

int sl__pg_writer_finish(sl__pg_writer *w, sl_error *err)
{
    return sl__pg_copy_finish(w, err);
}

void sl__pg_writer_forget(sl__pg_writer *w)
{
    w->copy_conn = NULL;
    sl_strbuf_reset(&w->rowbuf);
}

int sl__pg_writer_write(sl__pg_writer *w, PGconn *conn, const sl_chunk *c, int64_t epoch,
                        sl_error *err)
{
    if (sl__pg_writer_put(w, conn, c, epoch, err) != 0) {
        if (w->copy_conn == conn) {
            sl_error ignored = SL_ERROR_INIT;
            sl__pg_copy_finish(w, &ignored);
            sl_error_reset(&ignored);
        }
        return -1;
    }
    return sl__pg_copy_finish(w, err);
}

/*
** my_check.c — what is checked when an INSERT into a MariaDB/MySQL jdbc
** table is planned (the table, its columns and their types, the key, the
** privileges), the guarantee resolver's live probe, and the check before
** DROP TABLE. The same checks and SQLSTATEs as pg_check.c's for PostgreSQL;
** the server is read through information_schema.
**
** The probe decides what exactly-once can be on this server. A prepared XA
** transaction, and a commit, survive a crash only when InnoDB flushes its
** log at every commit and, with the binary log on, the binary log is
** synced at every commit too (with log_bin the binary log is the
** transaction coordinator: InnoDB's recovery rolls back what it prepared
** and the binary log lost): tests/mariadb/xa_test.py shows the XA facts
** with these settings. So:
**
**   innodb_flush_log_at_trx_commit = 1, and log_bin OFF or sync_binlog = 1,
**   and the table is InnoDB            exactly-once, XA (preparable)
**   the same, but XA RECOVER refused   exactly-once as the last resource
**   (MySQL 8 without XA_RECOVER_ADMIN)
**   anything else                      at-least-once, with the reason
**
** Main routines: sl__my_check_sink, sl__my_probe, sl__my_drop_check.
*/
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__MY_CHECK_TIMEOUT_MS 10000 /* plan-time checks wait at most this */

static MYSQL *sl__my_check_connect(const sl__pg_target *t, int64_t timeout_ms, sl_error *err)
{
    int64_t ms = t->retry_timeout_ms;
    if (ms <= 0 || ms > timeout_ms)
        ms = timeout_ms;
    return sl__my_connect(t, ms, err);
}

/* "database" of t: its qualifier or the connection's. */
static void sl__my_schema_expr(const sl__pg_target *t, sl_strbuf *q)
{
    if (t->schema)
        sl__my_quote_literal(q, t->schema);
    else
        sl_strbuf_append(q, "DATABASE()");
}

typedef struct sl__my_col {
    char *name, *data_type, *column_type;
    bool not_null, has_default, generated;
} sl__my_col;

/* NULL when a column of MariaDB type data_type (information_schema's
** DATA_TYPE, lower case) / column_type holds every value of the declared
** type, else why not. */
static const char *sl__my_type_writable(sl_type d, const char *dt, const char *ct)
{
    static const char *const ints[] = {"tinyint", "smallint", "mediumint", "int", "bigint"};
    int iw = -1;
    for (int i = 0; i < (int)SL_ARRAY_LEN(ints); i++)
        if (strcmp(dt, ints[i]) == 0)
            iw = i;
    bool is_unsigned = strstr(ct, "unsigned") != NULL;
    bool text = strstr(dt, "char") || strstr(dt, "text") || strcmp(dt, "enum") == 0 ||
                strcmp(dt, "set") == 0 || strcmp(dt, "json") == 0 || strcmp(dt, "longtext") == 0;
    bool bin = strstr(dt, "binary") || strstr(dt, "blob");
    switch (d.id) {
    case SL_TYPE_BOOLEAN:
        return iw >= 0 || strcmp(dt, "bit") == 0 ? NULL : "it is not an integer or BIT column";
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        int need = d.id == SL_TYPE_TINYINT ? 0 : d.id == SL_TYPE_SMALLINT ? 1
                 : d.id == SL_TYPE_INT     ? 3 : 4;
        if (iw >= 0)
            return iw < need || is_unsigned ? "it is a narrower (or unsigned) integer" : NULL;
        if (strcmp(dt, "decimal") == 0 || strcmp(dt, "double") == 0)
            return NULL;
        return "it is not a numeric column";
    }
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE:
        if (strcmp(dt, "double") == 0 || (strcmp(dt, "float") == 0 && d.id == SL_TYPE_FLOAT))
            return NULL;
        return "it is not a DOUBLE (or FLOAT) column";
    case SL_TYPE_DECIMAL: {
        if (strcmp(dt, "double") == 0)
            return NULL;
        if (strcmp(dt, "decimal") != 0)
            return "it is not a DECIMAL column";
        int p = 0, s = 0;
        const char *paren = strchr(ct, '(');
        if (paren && sscanf(paren, "(%d,%d)", &p, &s) >= 1 &&
            (s < d.scale || p - s < d.precision - d.scale))
            return "it has fewer integer or fraction digits";
        return NULL;
    }
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: return text ? NULL : "it is not a character column";
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: return bin ? NULL : "it is not a binary column";
    case SL_TYPE_DATE:
        return strcmp(dt, "date") == 0 || strcmp(dt, "datetime") == 0 ? NULL
                                                                         : "it is not a DATE column";
    case SL_TYPE_TIME: return strcmp(dt, "time") == 0 ? NULL : "it is not a TIME column";
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        return strcmp(dt, "datetime") == 0 || strcmp(dt, "timestamp") == 0
                   ? NULL
                   : "it is not a DATETIME or TIMESTAMP column";
    default: return "MariaDB has no column type for it";
    }
}

static int sl__my_check_sink_on(MYSQL *c, const sl__pg_target *t, const sl_kvlist *opts,
                                const sl_table_shape *shape, sl_error *err)
{
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_append(&q, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, "
                         "COLUMN_DEFAULT IS NOT NULL OR EXTRA LIKE '%auto_increment%', "
                         "EXTRA LIKE '%GENERATED%', "
                         "(SELECT ENGINE FROM information_schema.TABLES s WHERE s.TABLE_SCHEMA = "
                         "c.TABLE_SCHEMA AND s.TABLE_NAME = c.TABLE_NAME), c.TABLE_SCHEMA "
                         "FROM information_schema.COLUMNS c WHERE TABLE_SCHEMA = ");
    sl__my_schema_expr(t, &q);
    sl_strbuf_append(&q, " AND TABLE_NAME = ");
    sl__my_quote_literal(&q, t->table);
    sl_strbuf_append(&q, " ORDER BY ORDINAL_POSITION");
    MYSQL_RES *r = sl__my_query(c, sl_strbuf_cstr(&q), "reading the table's columns", err);
    sl_strbuf_free(&q);
    if (!r)
        return -1;
    int n = (int)mysql_num_rows(r);
    sl__my_col *cols = sl_calloc((size_t)n + 1, sizeof *cols);
    char *engine = NULL, *schema = NULL;
    MYSQL_ROW row;
    for (int i = 0; i < n && (row = mysql_fetch_row(r)); i++) {
        cols[i].name = sl_strdup(row[0] ? row[0] : "");
        cols[i].data_type = sl_strdup(row[1] ? row[1] : "");
        for (char *p = cols[i].data_type; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        cols[i].column_type = sl_strdup(row[2] ? row[2] : "");
        cols[i].not_null = row[3] && strcmp(row[3], "NO") == 0;
        cols[i].has_default = row[4] && strcmp(row[4], "1") == 0;
        cols[i].generated = row[5] && strcmp(row[5], "1") == 0;
        if (!engine && row[6])
            engine = sl_strdup(row[6]);
        if (!schema && row[7])
            schema = sl_strdup(row[7]);
    }
    mysql_free_result(r);
    int rc = -1;
    if (n == 0) {
        sl_error_set(err, SL_ERR_UNDEFINED_TABLE, -1, "relation \"%s\" does not exist", t->table);
        sl_error_detail(err, "MariaDB at %s has no table \"%s\" in database %s.", t->display,
                        t->table, t->schema ? t->schema : "(the URL's)");
        sl_error_hint(err, "Create the table in MariaDB first: the jdbc sink writes into an "
                           "existing table.");
        goto done;
    }
    for (int i = 0; i < shape->ncols; i++) {
        sl__my_col *col = NULL;
        for (int k = 0; k < n && !col; k++)
            if (sl_strcasecmp(cols[k].name, shape->names[i]) == 0) /* MariaDB's names are */
                col = &cols[k];                                    /* case-insensitive */
        if (!col) {
            sl_strbuf sb = SL_STRBUF_INIT;
            for (int k = 0; k < n; k++)
                sl_strbuf_appendf(&sb, "%s%s", k ? ", " : "", cols[k].name);
            sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, -1,
                         "column \"%s\" of relation \"%s\" does not exist", shape->names[i],
                         t->table);
            sl_error_detail(err, "The columns of \"%s.%s\": %s.", schema ? schema : "",
                            t->table, sl_strbuf_cstr(&sb));
            sl_error_hint(err, "Declare only columns the table has, with the same names.");
            sl_strbuf_free(&sb);
            goto done;
        }
        if (col->generated) {
            sl_error_set(err, "428C9", -1, "column \"%s\" of table \"%s\" is a generated column",
                         col->name, t->table);
            sl_error_detail(err, "The server computes its values; they cannot be written.");
            sl_error_hint(err, "Leave the column out of the sink table's declaration.");
            goto done;
        }
        const char *why = sl__my_type_writable(shape->types[i], col->data_type, col->column_type);
        if (why) {
            char *d = sl_type_to_string(shape->types[i]);
            sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, -1,
                         "column \"%s\" is %s in table \"%s\", declared %s", col->name,
                         col->column_type, t->table, d);
            sl_error_detail(err, "Writing needs a column that holds every declared value: %s.",
                            why);
            sl_free(d);
            goto done;
        }
    }
    for (int i = 0; i < n; i++) {
        bool declared = false;
        for (int k = 0; k < shape->ncols && !declared; k++)
            declared = sl_strcasecmp(shape->names[k], cols[i].name) == 0;
        if (!declared && cols[i].not_null && !cols[i].has_default && !cols[i].generated) {
            sl_error_set(err, "23502", -1,
                         "column \"%s\" of table \"%s\" is NOT NULL without a default and is not "
                         "declared",
                         cols[i].name, t->table);
            sl_error_detail(err, "Every row written would leave it NULL and be refused.");
            sl_error_hint(err, "Declare the column in the sink table, or give it a DEFAULT.");
            goto done;
        }
    }
    if (shape->npk > 0 && shape->pk) {
        /* A unique index (PRIMARY or UNIQUE) on exactly the key's columns. */
        sl_strbuf k = SL_STRBUF_INIT;
        sl_strbuf_append(&k, "SELECT INDEX_NAME, GROUP_CONCAT(LOWER(COLUMN_NAME) ORDER BY "
                             "COLUMN_NAME SEPARATOR ',') FROM information_schema.STATISTICS "
                             "WHERE NON_UNIQUE = 0 AND TABLE_SCHEMA = ");
        sl__my_schema_expr(t, &k);
        sl_strbuf_append(&k, " AND TABLE_NAME = ");
        sl__my_quote_literal(&k, t->table);
        sl_strbuf_append(&k, " GROUP BY INDEX_NAME");
        r = sl__my_query(c, sl_strbuf_cstr(&k), "reading the table's unique indexes", err);
        sl_strbuf_free(&k);
        if (!r)
            goto done;
        /* the key's names, lower case, sorted, comma-joined */
        char **names = sl_calloc((size_t)shape->npk + 1, sizeof(char *));
        for (int i = 0; i < shape->npk; i++) {
            names[i] = sl_strdup(shape->names[shape->pk[i]]);
            for (char *p = names[i]; *p; p++)
                *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        }
        for (int i = 1; i < shape->npk; i++)
            for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                char *tmp = names[j];
                names[j] = names[j - 1];
                names[j - 1] = tmp;
            }
        sl_strbuf want = SL_STRBUF_INIT, keys = SL_STRBUF_INIT;
        for (int i = 0; i < shape->npk; i++) {
            sl_strbuf_appendf(&want, "%s%s", i ? "," : "", names[i]);
            sl_strbuf_appendf(&keys, "%s%s", i ? ", " : "", shape->names[shape->pk[i]]);
            sl_free(names[i]);
        }
        sl_free(names);
        bool found = false;
        char *other = NULL; /* another unique index */
        while ((row = mysql_fetch_row(r))) {
            bool same = row[1] && strcmp(row[1], sl_strbuf_cstr(&want)) == 0;
            found |= same;
            if (!same && !other)
                other = sl_strdup(row[0] ? row[0] : "?");
        }
        mysql_free_result(r);
        if (!found)
            sl_error_set(err, SL_ERR_INVALID_COLUMN_REF, -1,
                         "there is no unique or exclusion constraint matching the PRIMARY KEY "
                         "(%s) of table \"%s\"",
                         sl_strbuf_cstr(&keys), t->table);
        if (!found)
            sl_error_hint(err, "Give the MariaDB table a PRIMARY KEY or UNIQUE index on (%s): "
                               "upserts (ON DUPLICATE KEY UPDATE) find rows by it.",
                          sl_strbuf_cstr(&keys));
        else if (other) {
            /* ON DUPLICATE KEY fires on any unique index: a row colliding
            ** on another one would update (or, under 'ignore', keep) that
            ** index's row instead of inserting its own: refused. */
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                         "table \"%s\" has the unique index \"%s\" besides the one on its PRIMARY "
                         "KEY (%s)",
                         t->table, other, sl_strbuf_cstr(&keys));
            sl_error_detail(err, "MariaDB's INSERT ... ON DUPLICATE KEY UPDATE acts on whichever "
                                 "unique index a row collides on: a row with a new key but a "
                                 "stored \"%s\" would change the other row and never be written.",
                            other);
            sl_error_hint(err, "Write into a table whose only unique index is the key's, or "
                               "declare no PRIMARY KEY (rows are inserted; a collision then fails "
                               "with 23505).");
            found = false;
        }
        sl_free(other);
        sl_strbuf_free(&want);
        sl_strbuf_free(&keys);
        if (!found)
            goto done;
    }
    /* Privileges: the server checks them when a statement is prepared. */
    {
        const char *dup = sl_kvlist_get(opts, "sink.on-duplicate-key");
        sl_strbuf s = SL_STRBUF_INIT;
        sl_strbuf_appendf(&s, "INSERT INTO %s (", t->qualified);
        for (int i = 0; i < shape->ncols; i++) {
            sl_strbuf_append(&s, i ? ", " : "");
            sl__my_quote_ident(&s, shape->names[i]);
        }
        sl_strbuf_append(&s, ") VALUES (");
        for (int i = 0; i < shape->ncols; i++)
            sl_strbuf_append(&s, i ? ", ?" : "?");
        sl_strbuf_append_char(&s, ')');
        if (shape->npk > 0 && (!dup || sl_strcasecmp(dup, "update") == 0)) {
            sl_strbuf_append(&s, " ON DUPLICATE KEY UPDATE ");
            sl__my_quote_ident(&s, shape->names[0]);
            sl_strbuf_append(&s, " = VALUES(");
            sl__my_quote_ident(&s, shape->names[0]);
            sl_strbuf_append_char(&s, ')');
        }
        const char *what = shape->npk > 0 && (!dup || sl_strcasecmp(dup, "update") == 0)
                               ? "The sink upserts rows (INSERT ... ON DUPLICATE KEY UPDATE)"
                               : "The sink inserts rows";
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                if (shape->npk == 0)
                    break;
                sl_strbuf_reset(&s);
                sl_strbuf_appendf(&s, "DELETE FROM %s WHERE ", t->qualified);
                sl__my_quote_ident(&s, shape->names[shape->pk[0]]);
                sl_strbuf_append(&s, " = ?");
                what = "The sink deletes rows by the PRIMARY KEY when its query retracts them";
            }
            MYSQL_STMT *st = mysql_stmt_init(c);
            if (st && mysql_stmt_prepare(st, s.buf, s.len) != 0) {
                unsigned e = mysql_stmt_errno(st);
                const char *state = sl__my_sqlstate(e, mysql_stmt_sqlstate(st));
                sl_error_set(err, state, -1, "%s%s", strcmp(state, "42501") == 0
                                                         ? "permission denied: "
                                                         : "",
                             mysql_stmt_error(st));
                sl_error_detail(err, "%s. MariaDB error %u.", what, e);
                mysql_stmt_close(st);
                sl_strbuf_free(&s);
                goto done;
            }
            if (st)
                mysql_stmt_close(st);
        }
        sl_strbuf_free(&s);
    }
    rc = 0;
done:
    for (int i = 0; i < n; i++) {
        sl_free(cols[i].name);
        sl_free(cols[i].data_type);
        sl_free(cols[i].column_type);
    }
    sl_free(cols);
    sl_free(engine);
    sl_free(schema);
    return rc;
}

int sl__my_check_sink(const sl_connector *conn, const sl_kvlist *opts, const sl_table_shape *shape,
                      sl_error *err)
{
    (void)conn;
    sl__pg_target t;
    if (sl__pg_target_parse(opts, &t, err) != 0)
        return -1;
    MYSQL *c = sl__my_check_connect(&t, SL__MY_CHECK_TIMEOUT_MS, err);
    int rc = c ? sl__my_check_sink_on(c, &t, opts, shape, err) : -1;
    if (c)
        mysql_close(c);
    if (rc != 0)
        sl_option_scrub_error(err, opts);
    sl__pg_target_clear(&t);
    return rc;
}

int sl__my_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err)
{
    const char *prefix = sl_kvlist_get(opts, "sink.transactional-id-prefix");
    if (prefix && strlen(prefix) > SL__MY_PREFIX_MAX) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "invalid value for option 'sink.transactional-id-prefix': %zu bytes, more "
                     "than %d",
                     strlen(prefix), SL__MY_PREFIX_MAX);
        sl_error_detail(err, "It names the XA transactions ('sluice:<prefix>:'), whose global "
                             "id MariaDB limits to 64 bytes.");
        sl_error_hint(err, "Choose a prefix of at most %d bytes.", SL__MY_PREFIX_MAX);
        return -1;
    }
    sl__pg_target t;
    if (sl__pg_target_parse(opts, &t, err) != 0)
        return -1;
    MYSQL *c = sl__my_check_connect(&t, timeout_ms > 0 ? timeout_ms : 5000, err);
    if (!c) {
        sl_option_scrub_error(err, opts);
        sl__pg_target_clear(&t);
        return -1;
    }
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_append(&q, "SELECT @@version, @@log_bin, @@sync_binlog, "
                         "@@innodb_flush_log_at_trx_commit, (SELECT ENGINE FROM "
                         "information_schema.TABLES WHERE TABLE_SCHEMA = ");
    sl__my_schema_expr(&t, &q);
    sl_strbuf_append(&q, " AND TABLE_NAME = ");
    sl__my_quote_literal(&q, t.table);
    sl_strbuf_append(&q, ")");
    MYSQL_RES *r = sl__my_query(c, sl_strbuf_cstr(&q), "probing the server", err);
    sl_strbuf_free(&q);
    int rc = -1;
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    if (row) {
        const char *version = row[0] ? row[0] : "?";
        bool log_bin = row[1] && strcmp(row[1], "1") == 0;
        long sync_binlog = row[2] ? atol(row[2]) : 0;
        long flush = row[3] ? atol(row[3]) : 0;
        const char *engine = row[4];
        out->mech = SL_MECH_2PC_PREPARABLE;
        if (engine && sl_strcasecmp(engine, "InnoDB") != 0) {
            out->max = SL_GUARANTEE_AT_LEAST_ONCE;
            out->why = sl_sprintf("table \"%s\" on %s is ENGINE=%s, which has no transactions "
                                  "(exactly-once needs InnoDB)",
                                  t.table, t.display, engine);
        } else if (flush != 1) {
            out->max = SL_GUARANTEE_AT_LEAST_ONCE;
            out->why = sl_sprintf("innodb_flush_log_at_trx_commit is %ld on %s (MariaDB %s): a "
                                  "commit or a prepared XA transaction may be lost in a crash "
                                  "(exactly-once needs 1)",
                                  flush, t.display, version);
        } else if (log_bin && sync_binlog != 1) {
            out->max = SL_GUARANTEE_AT_LEAST_ONCE;
            out->why = sl_sprintf("sync_binlog is %ld with the binary log on, on %s (MariaDB %s): "
                                  "a commit or a prepared XA transaction may be lost in a crash "
                                  "(exactly-once needs sync_binlog = 1, or log_bin off)",
                                  sync_binlog, t.display, version);
        } else {
            /* XA RECOVER refused (MySQL 8 without XA_RECOVER_ADMIN): no XA. */
            sl_error e = SL_ERROR_INIT;
            const char *no_xa = getenv("SLUICE_TEST_MARIADB_NO_XA"); /* tests: the role */
            MYSQL_RES *x = no_xa && *no_xa ? NULL : sl__my_query(c, "XA RECOVER", NULL, &e);
            if (x) {
                mysql_free_result(x);
            } else {
                out->mech = SL_MECH_LAST_RESOURCE;
                out->why = sl_sprintf("XA RECOVER is refused on %s%s%s: exactly-once commits as "
                                      "the job's last resource",
                                      t.display, e.message ? ": " : "",
                                      e.message ? e.message : "");
            }
            sl_error_reset(&e);
        }
        rc = 0;
    } else if (r) {
        sl_error_set(err, SL_ERR_INTERNAL, -1, "jdbc: the probe of %s returned no row",
                     t.display);
    }
    if (r)
        mysql_free_result(r);
    mysql_close(c);
    if (rc != 0)
        sl_option_scrub_error(err, opts);
    sl__pg_target_clear(&t);
    return rc;
}

/* DROP TABLE: refused while the server holds prepared XA transactions of
** the table's prefix (they hold its rows locked; the job's restart
** resolves them). */
int sl__my_drop_check(const sl_connector *conn, const sl_kvlist *opts, sl_error *err)
{
    (void)conn;
    const char *prefix = sl_kvlist_get(opts, "sink.transactional-id-prefix");
    if (!prefix || !prefix[0])
        return 0;
    sl__pg_target t;
    sl_error e = SL_ERROR_INIT;
    if (sl__pg_target_parse(opts, &t, &e) != 0) {
        sl_error_reset(&e);
        return 0;
    }
    MYSQL *c = sl__my_connect(&t, 5000, &e);
    MYSQL_RES *r = c ? sl__my_query(c, "XA RECOVER", NULL, &e) : NULL;
    if (!r) {
        sl_option_scrub_error(&e, opts);
        sl_log(SL_LOG_WARN, "jdbc: could not look for prepared XA transactions of prefix '%s' in "
                            "%s before dropping the table: %s",
               prefix, t.display, e.message ? e.message : "");
    }
    int n = 0;
    sl_strbuf xids = SL_STRBUF_INIT;
    MYSQL_ROW row;
    while (r && (row = mysql_fetch_row(r))) {
        unsigned long *lens = mysql_fetch_lengths(r);
        if (!row[1] || !row[3])
            continue;
        if (sl__my_xid_epoch(row[3], (size_t)strtoul(row[1], NULL, 10), lens[3], prefix) >= 0 &&
            n++ < 5)
            sl_strbuf_appendf(&xids, "%s'%.*s'", n > 1 ? ", " : "", (int)lens[3], row[3]);
    }
    int rc = n > 0 ? sl__jdbc_drop_refused(err, true, &t, prefix, n, sl_strbuf_cstr(&xids)) : 0;
    sl_strbuf_free(&xids);
    sl_error_reset(&e);
    if (r)
        mysql_free_result(r);
    if (c)
        mysql_close(c);
    sl__pg_target_clear(&t);
    return rc;
}

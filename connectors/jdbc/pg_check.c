/*
** pg_check.c — what is checked against the live server when a jdbc table
** is planned, so that a bad configuration fails the statement instead of
** the job's first write or read.
**
** A written table (sl__pg_check_sink, the declaration's check_sink, run
** when an INSERT is planned):
**   - the server is reached within min('connection.max-retry-timeout', 10 s)
**     (08001; a wrong password is 28P01, a missing database 3D000);
**   - the table exists (42P01, naming where it looked: the schema, or the
**     search path) and is one rows can be inserted into (42809);
**   - every declared column exists (42703) with a type that holds every
**     value of the declared one (42804, naming both types; pg_types.c) and
**     is not generated (428C9);
**   - every column of the table that is not declared is nullable or has a
**     default (23502: the INSERT would fail on every row);
**   - with a PRIMARY KEY: a unique index on exactly those columns, not
**     partial, not on expressions, not deferrable (42P10: ON CONFLICT needs
**     it as its arbiter);
**   - the role may INSERT, and with a key also UPDATE, DELETE and SELECT
**     (42501, naming the role and the table);
**   - 'sink.conflict-table': the role may INSERT into it, or CREATE in its
**     schema when it does not exist yet (42501).
** A read table (sl__pg_check_source, check_source, run when a query that
** scans it is planned): it exists, the declared columns exist with types
** they read into, the role may SELECT them.
**
** Every catalog query takes the user's names as parameters; nothing the
** user wrote is interpolated into SQL. Errors keep the position -1 (the
** planner points them at the statement) and never hold the password.
**
** Main routines: sl__pg_check_sink, sl__pg_check_source,
** sl__pg_table_describe.
*/
#include <stdlib.h>
#include <string.h>

#include "jdbc_int.h"

#define SL__PG_CHECK_TIMEOUT_MS 10000 /* the longest a plan-time check waits for the server */

void sl__pg_table_clear(sl__pg_table *tb)
{
    for (int i = 0; i < tb->ncols; i++) {
        sl_free(tb->cols[i].name);
        sl_free(tb->cols[i].display);
        sl_free(tb->cols[i].typname);
    }
    sl_free(tb->cols);
    sl_free(tb->oid);
    sl_free(tb->schema);
    sl_free(tb->name);
    memset(tb, 0, sizeof *tb);
}

/* 42P01 in PostgreSQL's words, with where it looked. */
static int sl__pg_missing(PGconn *c, const sl__pg_target *t, sl_error *err)
{
    sl_error_set(err, SL_ERR_UNDEFINED_TABLE, -1, "relation \"%s%s%s\" does not exist",
                 t->schema ? t->schema : "", t->schema ? "." : "", t->table);
    if (t->schema) {
        sl_error_detail(err, "Looked in schema \"%s\" of database \"%s\" at %s.", t->schema,
                        PQdb(c), t->display);
    } else {
        sl_error set_tmp = SL_ERROR_INIT;
        PGresult *r =
            sl__pg_exec(c, "SELECT pg_catalog.array_to_string(pg_catalog.current_schemas(false), "
                           "', ')",
                        0, NULL, NULL, &set_tmp);
        sl_error_detail(err, "Looked in the search path (%s) of database \"%s\" at %s.",
                        r && PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "?", PQdb(c), t->display);
        PQclear(r);
        sl_error_reset(&set_tmp);
    }
    sl_error_hint(err, "Create the table first, or correct 'table-name' ('schema.table').");
    return -1;
}

int sl__pg_table_describe(PGconn *c, const sl__pg_target *t, sl__pg_table *out, sl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p1[1] = {t->qualified};
    PGresult *r = sl__pg_exec(c,
                              "SELECT c.oid::text, n.nspname, c.relname, c.relkind::text "
                              "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                              "ON n.oid = c.relnamespace WHERE c.oid = pg_catalog.to_regclass($1)",
                              1, p1, "looking up the table", err);
    if (!r)
        return -1;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return sl__pg_missing(c, t, err);
    }
    out->oid = sl_strdup(PQgetvalue(r, 0, 0));
    out->schema = sl_strdup(PQgetvalue(r, 0, 1));
    out->name = sl_strdup(PQgetvalue(r, 0, 2));
    out->relkind = PQgetvalue(r, 0, 3)[0];
    PQclear(r);
    const char *p2[1] = {out->oid};
    r = sl__pg_exec(c,
                    "SELECT a.attname, a.attnum, pg_catalog.format_type(a.atttypid, a.atttypmod), "
                    "bt.typname, CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END, "
                    "a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), "
                    "a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' "
                    "OR (t.typtype = 'd' AND t.typdefault IS NOT NULL), a.attgenerated <> '' "
                    "FROM pg_catalog.pg_attribute a "
                    "JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
                    "JOIN pg_catalog.pg_type bt ON bt.oid = "
                    "CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END "
                    "WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped "
                    "ORDER BY a.attnum",
                    1, p2, "reading the table's columns", err);
    if (!r) {
        sl__pg_table_clear(out);
        return -1;
    }
    out->ncols = PQntuples(r);
    out->cols = sl_calloc((size_t)out->ncols + 1, sizeof *out->cols);
    for (int i = 0; i < out->ncols; i++) {
        sl__pg_column *col = &out->cols[i];
        col->name = sl_strdup(PQgetvalue(r, i, 0));
        col->attnum = atoi(PQgetvalue(r, i, 1));
        col->display = sl_strdup(PQgetvalue(r, i, 2));
        col->typname = sl_strdup(PQgetvalue(r, i, 3));
        col->typmod = atoi(PQgetvalue(r, i, 4));
        col->not_null = PQgetvalue(r, i, 5)[0] == 't';
        col->has_default = PQgetvalue(r, i, 6)[0] == 't';
        col->generated = PQgetvalue(r, i, 7)[0] == 't';
    }
    PQclear(r);
    return 0;
}

static const sl__pg_column *sl__pg_find_col(const sl__pg_table *tb, const char *name)
{
    for (int i = 0; i < tb->ncols; i++)
        if (strcmp(tb->cols[i].name, name) == 0)
            return &tb->cols[i];
    return NULL;
}

/* 42703 for a declared column the table lacks. */
static int sl__pg_no_column(const sl__pg_table *tb, const char *name, sl_error *err)
{
    sl_error_set(err, SL_ERR_UNDEFINED_COLUMN, -1,
                 "column \"%s\" of relation \"%s\" does not exist", name, tb->name);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < tb->ncols; i++)
        sl_strbuf_appendf(&sb, "%s%s", i ? ", " : "", tb->cols[i].name);
    sl_error_detail(err, "The columns of \"%s.%s\": %s.", tb->schema, tb->name,
                    tb->ncols ? sl_strbuf_cstr(&sb) : "none");
    sl_strbuf_free(&sb);
    for (int i = 0; i < tb->ncols; i++)
        if (sl_strcasecmp(tb->cols[i].name, name) == 0) {
            sl_error_hint(err,
                          "Names are compared exactly (PostgreSQL folds unquoted names to lower "
                          "case): declare the column as `%s`.",
                          tb->cols[i].name);
            return -1;
        }
    sl_error_hint(err, "Declare only columns the table has, with the same names.");
    return -1;
}

/* 42804 naming both types. */
static int sl__pg_type_mismatch(const sl__pg_table *tb, const sl__pg_column *col, sl_type declared,
                                const char *why, bool writing, sl_error *err)
{
    char *d = sl_type_to_string(declared);
    sl_error_set(err, SL_ERR_DATATYPE_MISMATCH, -1,
                 "column \"%s\" is %s in table \"%s\", declared %s", col->name, col->display,
                 tb->name, d);
    sl_error_detail(err, "%s %s: %s.", writing ? "Writing" : "Reading",
                    writing ? "needs a column that holds every declared value"
                            : "needs a declared type that holds every value of the column",
                    why);
    bool mapped;
    sl_type f = sl__pg_flink_type(col->typname, col->typmod, &mapped);
    if (mapped) {
        f.not_null = declared.not_null;
        char *fs = sl_type_to_string(f);
        sl_error_hint(err, "Flink's JDBC type mapping reads %s as %s: declare that type, or change "
                           "the column in PostgreSQL.",
                      col->display, fs);
        sl_free(fs);
    } else {
        sl_error_hint(err, "%s has no type in Flink's JDBC mapping for PostgreSQL.", col->display);
    }
    sl_free(d);
    return -1;
}

/* A text[] literal of the declared column names ({"a","b\"c"}). */
static char *sl__pg_name_array(const sl_table_shape *shape)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append_char(&sb, '{');
    for (int i = 0; i < shape->ncols; i++) {
        if (i)
            sl_strbuf_append_char(&sb, ',');
        sl_strbuf_append_char(&sb, '"');
        for (const char *p = shape->names[i]; *p; p++) {
            if (*p == '"' || *p == '\\')
                sl_strbuf_append_char(&sb, '\\');
            sl_strbuf_append_char(&sb, *p);
        }
        sl_strbuf_append_char(&sb, '"');
    }
    sl_strbuf_append_char(&sb, '}');
    return sl_strbuf_detach(&sb);
}

/* 42501 unless the role holds priv on the table (or, for INSERT, UPDATE and
** SELECT, on every declared column). */
static int sl__pg_need_privilege(PGconn *c, const sl__pg_table *tb, const sl_table_shape *shape,
                                 const char *priv, const char *why, sl_error *err)
{
    char *names = sl__pg_name_array(shape);
    const char *p[3] = {tb->oid, priv, names};
    PGresult *r = sl__pg_exec(
        c,
        "SELECT pg_catalog.has_table_privilege($1::oid, $2) OR ($2 <> 'DELETE' AND "
        "(SELECT pg_catalog.bool_and(pg_catalog.has_column_privilege($1::oid, n, $2)) "
        "FROM pg_catalog.unnest($3::text[]) n)), current_user",
        3, p, "checking privileges", err);
    sl_free(names);
    if (!r)
        return -1;
    bool ok = PQgetvalue(r, 0, 0)[0] == 't';
    if (!ok) {
        sl_error_set(err, "42501", -1, "permission denied: role \"%s\" may not %s table \"%s.%s\"",
                     PQgetvalue(r, 0, 1), priv, tb->schema, tb->name);
        sl_error_detail(err, "%s.", why);
        sl_error_hint(err, "GRANT %s ON %s.%s TO %s; or connect as a role that holds it.", priv,
                      tb->schema, tb->name, PQgetvalue(r, 0, 1));
    }
    PQclear(r);
    return ok ? 0 : -1;
}

/* With a PRIMARY KEY: a unique index on exactly its columns. */
static int sl__pg_check_key(PGconn *c, const sl__pg_table *tb, const sl_table_shape *shape,
                            sl_error *err)
{
    int *want = sl_calloc((size_t)shape->npk + 1, sizeof(int));
    sl_strbuf keys = SL_STRBUF_INIT;
    for (int k = 0; k < shape->npk; k++) {
        const char *name = shape->names[shape->pk[k]];
        const sl__pg_column *col = sl__pg_find_col(tb, name);
        want[k] = col ? col->attnum : -1;
        sl_strbuf_appendf(&keys, "%s%s", k ? ", " : "", name);
    }
    const char *p[1] = {tb->oid};
    PGresult *r = sl__pg_exec(c,
                              "SELECT i.indkey::text, i.indpred IS NULL AND i.indexprs IS NULL, "
                              "i.indimmediate, i.indisvalid, ic.relname "
                              "FROM pg_catalog.pg_index i "
                              "JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "
                              "WHERE i.indrelid = $1::oid AND i.indisunique ORDER BY 5",
                              1, p, "reading the table's unique indexes", err);
    if (!r) {
        sl_free(want);
        sl_strbuf_free(&keys);
        return -1;
    }
    bool found = false;
    const char *near = NULL, *near_why = NULL;
    for (int i = 0; i < PQntuples(r) && !found; i++) {
        /* indkey "1 3": the same set of columns as the key? */
        int n = 0;
        bool same = true;
        const char *s = PQgetvalue(r, i, 0);
        while (*s) {
            char *end;
            long a = strtol(s, &end, 10);
            if (end == s)
                break;
            s = end;
            n++;
            bool in = false;
            for (int k = 0; k < shape->npk; k++)
                in |= want[k] == a;
            same &= in;
        }
        if (!same || n != shape->npk)
            continue;
        if (PQgetvalue(r, i, 1)[0] != 't') {
            near = PQgetvalue(r, i, 4);
            near_why = "is partial or on expressions";
        } else if (PQgetvalue(r, i, 2)[0] != 't') {
            near = PQgetvalue(r, i, 4);
            near_why = "is deferrable (ON CONFLICT cannot use it)";
        } else if (PQgetvalue(r, i, 3)[0] != 't') {
            near = PQgetvalue(r, i, 4);
            near_why = "is not valid (a failed CREATE INDEX CONCURRENTLY)";
        } else {
            found = true;
        }
    }
    if (!found) {
        sl_error_set(err, SL_ERR_INVALID_COLUMN_REF, -1,
                     "there is no unique or exclusion constraint on (%s) of table \"%s\"",
                     sl_strbuf_cstr(&keys), tb->name);
        if (near)
            sl_error_detail(err, "The PRIMARY KEY is written with INSERT ... ON CONFLICT (%s), "
                                 "which needs a unique index on exactly those columns; index "
                                 "\"%s\" %s.",
                            sl_strbuf_cstr(&keys), near, near_why);
        else
            sl_error_detail(err, "The PRIMARY KEY is written with INSERT ... ON CONFLICT (%s), "
                                 "which needs a unique index on exactly those columns.",
                            sl_strbuf_cstr(&keys));
        sl_error_hint(err, "ALTER TABLE %s.%s ADD UNIQUE (%s); or declare the table's own key.",
                      tb->schema, tb->name, sl_strbuf_cstr(&keys));
    }
    PQclear(r);
    sl_free(want);
    sl_strbuf_free(&keys);
    return found ? 0 : -1;
}

/* 'sink.conflict-table': INSERT into it, or CREATE in its schema. */
static int sl__pg_check_conflict_table(PGconn *c, const sl_kvlist *opts, sl_error *err)
{
    const char *conf = sl_kvlist_get(opts, "sink.conflict-table");
    if (!conf)
        return 0;
    sl_kvlist *o = sl_kvlist_new();
    sl_kvlist_add(o, "url", sl_kvlist_get(opts, "url"), -1, -1);
    sl_kvlist_add(o, "table-name", conf, -1, -1);
    sl__pg_target t;
    int rc = sl__pg_target_parse(o, &t, err);
    sl_kvlist_free(o);
    if (rc != 0)
        return -1;
    const char *p[2] = {t.qualified, t.schema};
    PGresult *r = sl__pg_exec(
        c,
        "SELECT pg_catalog.to_regclass($1) IS NOT NULL, "
        "CASE WHEN pg_catalog.to_regclass($1) IS NOT NULL "
        "THEN pg_catalog.has_table_privilege(pg_catalog.to_regclass($1), 'INSERT') "
        "ELSE pg_catalog.has_schema_privilege(COALESCE($2, current_schema()), 'CREATE') END, "
        "COALESCE($2, current_schema()), current_user",
        2, p, "checking 'sink.conflict-table'", err);
    if (!r) {
        sl__pg_target_clear(&t);
        return -1;
    }
    bool exists = PQgetvalue(r, 0, 0)[0] == 't';
    bool ok = PQgetvalue(r, 0, 1)[0] == 't';
    const char *schema = PQgetisnull(r, 0, 2) ? NULL : PQgetvalue(r, 0, 2);
    if (!exists && !schema) {
        sl_error_set(err, "3F000", -1,
                     "no schema has been selected to create the conflict table in");
        sl_error_hint(err, "Qualify 'sink.conflict-table' with a schema.");
        ok = false;
    } else if (!ok && exists) {
        sl_error_set(err, "42501", -1, "permission denied: role \"%s\" may not INSERT into the "
                                       "conflict table \"%s\"",
                     PQgetvalue(r, 0, 3), conf);
        sl_error_hint(err, "GRANT INSERT ON %s TO %s;", t.qualified, PQgetvalue(r, 0, 3));
    } else if (!ok) {
        sl_error_set(err, "42501", -1,
                     "permission denied: role \"%s\" may not create the conflict table \"%s\" in "
                     "schema \"%s\"",
                     PQgetvalue(r, 0, 3), conf, schema);
        sl_error_detail(err, "'sink.conflict-table' is created when it does not exist.");
        sl_error_hint(err, "Create it beforehand, or GRANT CREATE ON SCHEMA %s TO %s;", schema,
                      PQgetvalue(r, 0, 3));
    }
    PQclear(r);
    sl__pg_target_clear(&t);
    return ok ? 0 : -1;
}

/* Connect for a plan-time check: at most 10 s. */
static PGconn *sl__pg_check_connect(const sl__pg_target *t, sl_error *err)
{
    int64_t ms = t->retry_timeout_ms;
    if (ms <= 0 || ms > SL__PG_CHECK_TIMEOUT_MS)
        ms = SL__PG_CHECK_TIMEOUT_MS;
    return sl__pg_connect(t, "sluice plan check", ms, err);
}

static int sl__pg_check_sink_on(PGconn *c, const sl__pg_target *t, const sl_kvlist *opts,
                                const sl_table_shape *shape, sl_error *err)
{
    sl__pg_table tb;
    if (sl__pg_table_describe(c, t, &tb, err) != 0)
        return -1;
    int rc = -1;
    if (!strchr("rpfv", tb.relkind)) {
        sl_error_set(err, SL_ERR_WRONG_OBJECT_TYPE, -1, "\"%s.%s\" is not a table", tb.schema,
                     tb.name);
        sl_error_detail(err, "Rows can be written into tables, partitioned tables, foreign "
                             "tables and updatable views.");
        goto done;
    }
    for (int i = 0; i < shape->ncols; i++) {
        const sl__pg_column *col = sl__pg_find_col(&tb, shape->names[i]);
        if (!col) {
            sl__pg_no_column(&tb, shape->names[i], err);
            goto done;
        }
        if (col->generated) {
            sl_error_set(err, "428C9", -1, "column \"%s\" of table \"%s\" is a generated column",
                         col->name, tb.name);
            sl_error_detail(err, "The server computes its values; they cannot be written.");
            sl_error_hint(err, "Leave the column out of the sink table's declaration.");
            goto done;
        }
        const char *why = sl__pg_type_writable(shape->types[i], col->typname, col->typmod);
        if (why) {
            sl__pg_type_mismatch(&tb, col, shape->types[i], why, true, err);
            goto done;
        }
    }
    for (int i = 0; i < tb.ncols; i++) {
        const sl__pg_column *col = &tb.cols[i];
        bool declared = false;
        for (int k = 0; k < shape->ncols && !declared; k++)
            declared = strcmp(shape->names[k], col->name) == 0;
        if (!declared && col->not_null && !col->has_default) {
            sl_error_set(err, "23502", -1,
                         "column \"%s\" of table \"%s\" is NOT NULL without a default and is not "
                         "declared",
                         col->name, tb.name);
            sl_error_detail(err, "Every row written would leave it NULL and be refused.");
            sl_error_hint(err, "Declare the column in the sink table, or give it a DEFAULT.");
            goto done;
        }
    }
    if (shape->npk > 0 && shape->pk && sl__pg_check_key(c, &tb, shape, err) != 0)
        goto done;
    if (sl__pg_need_privilege(c, &tb, shape, "INSERT", "The sink inserts rows", err) != 0)
        goto done;
    if (shape->npk > 0) {
        const char *dup = sl_kvlist_get(opts, "sink.on-duplicate-key");
        if ((!dup || sl_strcasecmp(dup, "update") == 0) &&
            sl__pg_need_privilege(c, &tb, shape, "UPDATE",
                                  "The sink upserts by the PRIMARY KEY (ON CONFLICT DO UPDATE)",
                                  err) != 0)
            goto done;
        if (sl__pg_need_privilege(c, &tb, shape, "DELETE",
                                  "The sink deletes rows by the PRIMARY KEY when its query "
                                  "retracts them",
                                  err) != 0 ||
            sl__pg_need_privilege(c, &tb, shape, "SELECT",
                                  "The sink reads the rows its keys conflict with (ON CONFLICT)",
                                  err) != 0)
            goto done;
    }
    if (sl__pg_check_conflict_table(c, opts, err) != 0)
        goto done;
    rc = 0;
done:
    sl__pg_table_clear(&tb);
    return rc;
}

static int sl__pg_check_source_on(PGconn *c, const sl__pg_target *t, const sl_table_shape *shape,
                                  sl_error *err)
{
    sl__pg_table tb;
    if (sl__pg_table_describe(c, t, &tb, err) != 0)
        return -1;
    int rc = -1;
    if (!strchr("rpfvm", tb.relkind)) {
        sl_error_set(err, SL_ERR_WRONG_OBJECT_TYPE, -1, "\"%s.%s\" is not a table", tb.schema,
                     tb.name);
        goto done;
    }
    for (int i = 0; i < shape->ncols; i++) {
        const sl__pg_column *col = sl__pg_find_col(&tb, shape->names[i]);
        if (!col) {
            sl__pg_no_column(&tb, shape->names[i], err);
            goto done;
        }
        const char *why = sl__pg_type_readable(shape->types[i], col->typname, col->typmod);
        if (why) {
            sl__pg_type_mismatch(&tb, col, shape->types[i], why, false, err);
            goto done;
        }
    }
    if (sl__pg_need_privilege(c, &tb, shape, "SELECT", "The source reads the table", err) != 0)
        goto done;
    rc = 0;
done:
    sl__pg_table_clear(&tb);
    return rc;
}

/* Connect to opts' server (bounded) and run one of the checks above on the
** connection; the password is scrubbed from whatever went wrong. */
static int sl__pg_check_with(const sl_kvlist *opts, const sl_table_shape *shape, bool sink,
                             sl_error *err)
{
    sl__pg_target t;
    if (sl__pg_target_parse(opts, &t, err) != 0)
        return -1;
    int rc = -1;
    PGconn *c = sl__pg_check_connect(&t, err);
    if (c) {
        rc = sink ? sl__pg_check_sink_on(c, &t, opts, shape, err)
                  : sl__pg_check_source_on(c, &t, shape, err);
        PQfinish(c);
    }
    if (rc != 0)
        sl_option_scrub_error(err, opts);
    sl__pg_target_clear(&t);
    return rc;
}

int sl__pg_check_sink(const sl_connector *cn, const sl_kvlist *opts, const sl_table_shape *shape,
                      sl_error *err)
{
    (void)cn;
    return sl__pg_check_with(opts, shape, true, err);
}

int sl__pg_check_source(const sl_connector *cn, const sl_kvlist *opts, const sl_table_shape *shape,
                        sl_error *err)
{
    (void)cn;
    return sl__pg_check_with(opts, shape, false, err);
}

/*
** session_flink.c — the Flink SQL client's own statements: HELP, the one
** catalog and database (SHOW CATALOGS / DATABASES / CURRENT CATALOG /
** CURRENT DATABASE, USE [CATALOG]), ALTER TABLE ... RENAME TO, and the
** client's statement set: BEGIN STATEMENT SET; INSERT ...; ... END; (the
** INSERTs are checked and collected, END runs them as one EXECUTE STATEMENT
** SET job).
**
** Main routines: sl__flink_stmt, sl__flink_show, sl__set_collect.
*/
#include "session_int.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------
** HELP
*/

/* Each statement with one line, as the Flink SQL client's HELP lists them. */
static const char *const sl__help[][2] = {
    {"HELP", "Prints the available statements."},
    {"QUIT, EXIT, \\q", "Quits the shell."},
    {"\\?", "Lists the shell's backslash commands (\\dt, \\d name, ...)."},
    {"SET", "Sets a session setting ('key' = 'value'); SET alone lists their effective values."},
    {"RESET", "Resets a session setting ('key') or all of them to their defaults."},
    {"SHOW CATALOGS", "Shows the catalogs: default_catalog."},
    {"SHOW DATABASES", "Shows the databases: default_database."},
    {"SHOW CURRENT CATALOG", "Shows the current catalog."},
    {"SHOW CURRENT DATABASE", "Shows the current database."},
    {"USE CATALOG", "Sets the current catalog (default_catalog)."},
    {"USE", "Sets the current database (default_database)."},
    {"SHOW TABLES", "Shows the tables, temporary ones included."},
    {"SHOW VIEWS", "Shows the views, temporary ones included."},
    {"SHOW FUNCTIONS", "Shows the built-in functions."},
    {"SHOW CONNECTORS", "Shows the connectors and the guarantees of their sinks."},
    {"SHOW JOBS", "Shows the jobs and their status."},
    {"SHOW CREATE TABLE", "Shows the CREATE TABLE statement of a table."},
    {"SHOW CREATE VIEW", "Shows the CREATE VIEW statement of a view."},
    {"DESCRIBE", "Describes the columns of a table or view; DESCRIBE EXTENDED adds its "
                 "options."},
    {"CREATE TABLE", "Creates a table; TEMPORARY: for this session only; ... LIKE t copies t's "
                     "definition."},
    {"CREATE VIEW", "Creates a view; CREATE TEMPORARY VIEW one for this session."},
    {"ALTER TABLE", "Renames a table (RENAME TO) or changes its options (SET / RESET)."},
    {"DROP TABLE", "Drops a table (DROP TEMPORARY TABLE a temporary one)."},
    {"DROP VIEW", "Drops a view."},
    {"SELECT", "Runs a query and shows its result."},
    {"INSERT INTO", "Runs a job that writes a query's rows into a table."},
    {"EXECUTE STATEMENT SET", "Runs several INSERTs as one job: BEGIN INSERT ...; ... END."},
    {"BEGIN STATEMENT SET", "Collects the INSERTs that follow until END, then runs them as "
                            "one job."},
    {"EXPLAIN", "Explains the plan of a query or INSERT (CHANGELOG_MODE, "
                "JSON_EXECUTION_PLAN)."},
    {"STOP JOB", "Stops a job ('name'), WITH SAVEPOINT to resume it later."},
};

static int sl__help_stmt(const sl_result_sink *out)
{
    sl__table_out t;
    const char *cols[] = {"statement", "description"};
    sl__result_begin(&t, out, 2, cols);
    int n = (int)SL_ARRAY_LEN(sl__help);
    for (int i = 0; i < n; i++)
        sl__result_row(&t, sl__help[i]);
    char tag[32];
    snprintf(tag, sizeof tag, "SHOW %d", n);
    sl__result_complete(out, tag);
    return 0;
}

/* ------------------------------------------------------------------------
** The catalog and the database
*/

static void sl__one_value(const sl_result_sink *out, const char *column, const char *value)
{
    sl__table_out t;
    const char *cols[] = {column};
    sl__result_begin(&t, out, 1, cols);
    const char *vals[] = {value};
    sl__result_row(&t, vals);
    sl__result_complete(out, "SHOW 1");
}

int sl__flink_show(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    (void)s;
    switch (st->show) {
    case SL_SHOW_CATALOGS: sl__one_value(out, "catalog name", SL_CATALOG_NAME); return 0;
    case SL_SHOW_DATABASES: sl__one_value(out, "database name", SL_DATABASE_NAME); return 0;
    case SL_SHOW_CURRENT_CATALOG:
        sl__one_value(out, "current catalog name", SL_CATALOG_NAME);
        return 0;
    case SL_SHOW_CURRENT_DATABASE:
        sl__one_value(out, "current database name", SL_DATABASE_NAME);
        return 0;
    default: return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown SHOW");
    }
}

static void sl__one_catalog_hint(sl_error *err)
{
    sl_error_hint(err, "Sluice has one catalog, " SL_CATALOG_NAME ", with one database, "
                       SL_DATABASE_NAME ".");
}

static int sl__use_stmt(const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    if (st->value && strcmp(st->value, SL_CATALOG_NAME) != 0) {
        sl_error_set(err, SL_ERR_UNDEFINED_DATABASE, st->value_pos,
                     "a catalog with name [%s] does not exist", st->value);
        sl__one_catalog_hint(err);
        return -1;
    }
    if (st->name && strcmp(st->name, SL_DATABASE_NAME) != 0) {
        sl_error_set(err, SL_ERR_UNDEFINED_DATABASE, st->name_pos,
                     "a database with name [%s] does not exist in the catalog: [%s]", st->name,
                     SL_CATALOG_NAME);
        sl__one_catalog_hint(err);
        return -1;
    }
    sl__result_complete(out, st->name ? "USE" : "USE CATALOG");
    return 0;
}

/* ------------------------------------------------------------------------
** ALTER TABLE ... RENAME TO
*/

/* A running job keeps the snapshot of the catalog it was planned with, so
** renaming never breaks it; a view naming the old name no longer binds
** (as in Flink, which expands a view when a query reads it). */
static int sl__rename_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                           sl_error *err)
{
    if (sl__temp_unalterable(s, st, err) != 0)
        return -1;
    const sl_catalog *cat = s->eng->cat;
    const sl_table *t = sl_catalog_table(cat, st->name);
    if (!t) {
        sl_binder b = sl__binder(s, err);
        if (sl_binder_view(&b, st->name)) {
            sl_error_set(err, SL_ERR_WRONG_OBJECT_TYPE, st->name_pos, "\"%s\" is not a table",
                         st->name);
            sl_error_hint(err, "A view cannot be renamed: DROP VIEW it and CREATE VIEW it "
                               "again.");
            return -1;
        }
        return sl_error_set(err, SL_ERR_UNDEFINED_TABLE, st->name_pos,
                            "table \"%s\" does not exist", st->name);
    }
    sl_binder b = sl__binder(s, err);
    if (sl_catalog_table(cat, st->value) || sl_binder_view(&b, st->value) ||
        sl__ttable(s, st->value))
        return sl_error_set(err, SL_ERR_DUPLICATE_TABLE, st->value_pos,
                            "a table or view named \"%s\" already exists", st->value);
    if (sl_catalog_rename_table(s->eng->cat, st->name, st->value, err) != 0)
        return -1;
    sl__result_complete(out, "ALTER TABLE");
    return 0;
}

/* ------------------------------------------------------------------------
** BEGIN STATEMENT SET; INSERT ...; END;
*/

/* The open statement set's INSERTs (sl_stmt*), or NULL outside one. */
static sl_list *sl__set_list(sl_session *s)
{
    return s->stmt_set;
}

void sl__set_free(sl_session *s)
{
    sl_list_free(s->stmt_set, sl_stmt_free_v);
    s->stmt_set = NULL;
}

int sl__set_collect(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    sl_list *set = sl__set_list(s);
    if (!set)
        return 1;
    if (st->kind == SL_STMT_TXN && st->sub == SL_TXN_END) {
        sl_stmt run = {0};
        run.kind = SL_STMT_STATEMENT_SET;
        run.pos = st->pos;
        run.end = st->end;
        run.name_pos = run.pk_pos = run.options_pos = run.value_pos = -1;
        run.stmts = set;
        s->stmt_set = NULL;
        int rc = set->n ? sl__run_stmt(s, &run, out, err)
                        : (sl__result_complete(out, "END"), 0);
        if (rc != 0 && err->position >= 0)
            err->position = st->pos; /* the INSERT's own text is gone */
        sl_list_free(set, sl_stmt_free_v);
        return rc;
    }
    if (st->kind == SL_STMT_BEGIN_SET)
        return sl_error_set(err, SL_ERR_NOT_IN_STATE, st->pos, "a statement set is already open");
    if (st->kind != SL_STMT_INSERT) {
        sl_error_set(err, SL_ERR_SYNTAX, st->pos,
                     "only INSERT statements can be added to a statement set");
        sl_error_hint(err, "END; runs the statement set's INSERTs (%d so far).", set->n);
        return -1;
    }
    /* Checked now, as Flink's client does, so an error points into its text. */
    sl_stmt check = {0};
    check.kind = SL_STMT_EXPLAIN;
    check.name_pos = check.pk_pos = check.options_pos = check.value_pos = -1;
    check.inner = (sl_stmt *)st;
    sl_result_sink quiet = {0};
    if (sl__explain_stmt(s, &check, &quiet, err) != 0)
        return -1;
    sl_list_push(set, sl_stmt_dup(st));
    sl__notice(out, SL_SEV_NOTICE, "INSERT INTO %s added to the statement set (%d)", st->name,
               set->n);
    sl__result_complete(out, "INSERT 0 0");
    return 0;
}

/* ------------------------------------------------------------------------
** Dispatch
*/

int sl__flink_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    switch (st->kind) {
    case SL_STMT_HELP: return sl__help_stmt(out);
    case SL_STMT_USE: return sl__use_stmt(st, out, err);
    case SL_STMT_ALTER_RENAME: return sl__rename_stmt(s, st, out, err);
    case SL_STMT_BEGIN_SET:
        if (s->stmt_set)
            return sl_error_set(err, SL_ERR_NOT_IN_STATE, st->pos,
                                "a statement set is already open");
        s->stmt_set = sl_list_new();
        sl__result_complete(out, "BEGIN STATEMENT SET");
        return 0;
    default: return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "unknown statement");
    }
}

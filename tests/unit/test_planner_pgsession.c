/*
** test_planner_pgsession.c — PostgreSQL's session state through the session
** API the wire server uses (planner/session_pg.c, planner/session_fn.c):
**   - the transaction block's states ('I', 'T', 'E'), 25P02 in a failed
**     block, COMMIT of a failed block reporting ROLLBACK, a syntax error
**     failing the block, ROLLBACK restoring SETs, SET LOCAL ending with
**     the block, the warning for what ROLLBACK cannot undo;
**   - sl_session_on_param: called once per changed reported parameter
**     (SET, SET TIME ZONE, RESET ALL, ROLLBACK), never for an unchanged or
**     unreported one; a control without the hook;
**   - sl_session_set_param: the startup packet's values (checked as SET,
**     kept as what RESET returns to), refused ones with their SQLSTATE;
**   - SELECT without FROM: names and types as PostgreSQL gives them, the
**     session functions' values;
**   - DISCARD ALL and its refusal inside a block.
*/
#include "sl_session_fixture.h"

typedef struct reports {
    sl_strbuf text; /* "name=value\n" per call */
    int calls;      /* how many */
} reports;

static void on_param(void *ctx, const char *name, const char *value)
{
    reports *r = ctx;
    sl_strbuf_appendf(&r->text, "%s=%s\n", name, value);
    r->calls++;
}

static sl_engine *eng;

static sl_session *session(void)
{
    if (!eng) {
        char *dir = tmpdir("pgsession");
        sl_error err = SL_ERROR_INIT;
        if (sl_engine_open(dir, &eng, &err) != 0)
            fprintf(stderr, "open: %s\n", err.message);
        sl_error_reset(&err);
        sl_free(dir);
    }
    return sl_session_new(eng);
}

static void t_transaction_states(void)
{
    sl_session *s = session();
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    CHECK(sl_session_txn_status(s) == 'I');
    CHECK(run(s, "BEGIN", &c, &err) == 0);
    CHECK_STR(c.tag, "BEGIN");
    CHECK(sl_session_txn_status(s) == 'T');
    CHECK(run(s, "SELECT 1", &c, &err) == 0);
    CHECK(sl_session_txn_status(s) == 'T');
    CHECK(run(s, "SELECT nosuch", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "42703");
    CHECK(sl_session_txn_status(s) == 'E');
    CHECK(run(s, "SELECT 1", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "25P02");
    CHECK_STR(err.message, "current transaction is aborted, commands ignored until end of "
                           "transaction block");
    CHECK(run(s, "SHOW application_name", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "25P02");
    CHECK(run(s, "COMMIT", &c, &err) == 0);
    CHECK_STR(c.tag, "ROLLBACK");
    CHECK(sl_session_txn_status(s) == 'I');
    CHECK(run(s, "SELECT 1", &c, &err) == 0);
    /* the control: the same failing statement outside a block fails alone */
    CHECK(run(s, "SELECT nosuch", &c, &err) != 0);
    CHECK(sl_session_txn_status(s) == 'I');
    CHECK(run(s, "SELECT 1", &c, &err) == 0);
    /* a syntax error fails the block too; ROLLBACK TO a savepoint recovers it */
    CHECK(run(s, "START TRANSACTION READ ONLY", &c, &err) == 0);
    CHECK_STR(c.tag, "START TRANSACTION");
    CHECK(run(s, "SAVEPOINT sp", &c, &err) == 0);
    CHECK_STR(c.tag, "SAVEPOINT");
    CHECK(run(s, "SELEC 1", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "42601");
    CHECK(sl_session_txn_status(s) == 'E');
    CHECK(run(s, "ROLLBACK TO SAVEPOINT nosuch", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "3B001");
    CHECK(run(s, "ROLLBACK TO sp", &c, &err) == 0);
    CHECK(sl_session_txn_status(s) == 'T');
    CHECK(run(s, "END", &c, &err) == 0);
    CHECK_STR(c.tag, "COMMIT");
    CHECK(sl_session_txn_status(s) == 'I');
    /* outside a block: warnings, errors */
    CHECK(run(s, "ROLLBACK", &c, &err) == 0);
    CHECK_STR(c.notices.buf, "there is no transaction in progress\n");
    CHECK(run(s, "RELEASE sp", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "25P01");
    CHECK(run(s, "BEGIN; ", &c, &err) == 0);
    CHECK(run(s, "BEGIN WORK", &c, &err) == 0);
    CHECK_STR(c.notices.buf, "there is already a transaction in progress\n");
    CHECK(run(s, "DISCARD ALL", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "25001");
    CHECK(run(s, "ABORT", &c, &err) == 0);
    CHECK_STR(c.tag, "ROLLBACK");
    c_free(&c);
    sl_error_reset(&err);
    sl_session_free(s);
}

static void t_rollback_restores_settings(void)
{
    sl_session *s = session();
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    CHECK(run(s, "SET application_name = 'before'", &c, &err) == 0);
    CHECK(run(s, "BEGIN", &c, &err) == 0);
    CHECK(run(s, "SET application_name = 'inside'", &c, &err) == 0);
    CHECK(run(s, "SET 'parallelism.default' = '3'", &c, &err) == 0);
    CHECK(run(s, "CREATE TEMPORARY VIEW tv AS SELECT 1 AS one", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "application_name"), "inside");
    CHECK(run(s, "ROLLBACK", &c, &err) == 0);
    CHECK_STR(c.notices.buf, "ROLLBACK could not undo 1 statement: CREATE VIEW tv\n");
    CHECK_STR(sl_session_param(s, "application_name"), "before");
    CHECK(run(s, "SET", &c, &err) == 0);
    CHECK(strstr(c.rows.buf, "parallelism.default|") != NULL);
    CHECK(strstr(c.rows.buf, "parallelism.default|3") == NULL);
    /* SET LOCAL lasts until the block ends, COMMIT or not */
    CHECK(run(s, "BEGIN", &c, &err) == 0);
    CHECK(run(s, "SET LOCAL application_name = 'local'", &c, &err) == 0);
    CHECK(run(s, "SET LOCAL TIME ZONE 'Asia/Tokyo'", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "application_name"), "local");
    CHECK_STR(sl_session_param(s, "TimeZone"), "Asia/Tokyo");
    CHECK(run(s, "COMMIT", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "application_name"), "before");
    CHECK(strcmp(sl_session_param(s, "TimeZone"), "Asia/Tokyo") != 0);
    /* outside a block SET LOCAL warns and changes nothing */
    CHECK(run(s, "SET LOCAL application_name = 'x'", &c, &err) == 0);
    CHECK_STR(c.notices.buf, "SET LOCAL can only be used in transaction blocks\n");
    CHECK_STR(sl_session_param(s, "application_name"), "before");
    c_free(&c);
    sl_error_reset(&err);
    sl_session_free(s);
}

static void t_parameter_status(void)
{
    sl_session *s = session();
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    reports r = {SL_STRBUF_INIT, 0};
    /* the control: without the hook nothing is reported */
    CHECK(run(s, "SET application_name = 'a'", &c, &err) == 0);
    CHECK(r.calls == 0);
    sl_session_on_param(s, on_param, &r);
    CHECK(run(s, "SET application_name = 'b'", &c, &err) == 0);
    CHECK(run(s, "SET application_name TO 'b'", &c, &err) == 0); /* unchanged */
    CHECK(run(s, "SET extra_float_digits = 2", &c, &err) == 0);  /* not reported */
    CHECK(run(s, "SET TIME ZONE 'Europe/Paris'", &c, &err) == 0);
    CHECK(run(s, "SET 'table.local-time-zone' = 'Europe/Paris'", &c, &err) == 0);
    CHECK(run(s, "SET DateStyle TO 'iso, ymd'", &c, &err) == 0);
    CHECK(run(s, "SET client_encoding = 'LATIN1'", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "22023");
    CHECK(err.position == (int)strlen("SET client_encoding = "));
    CHECK_STR(r.text.buf, "application_name=b\nTimeZone=Europe/Paris\nDateStyle=ISO, YMD\n");
    sl_strbuf_reset(&r.text);
    CHECK(run(s, "RESET ALL", &c, &err) == 0);
    CHECK(strstr(r.text.buf, "application_name=\n") != NULL);
    CHECK(strstr(r.text.buf, "DateStyle=ISO, MDY\n") != NULL);
    CHECK(strstr(r.text.buf, "TimeZone=") != NULL);
    sl_strbuf_reset(&r.text);
    CHECK(run(s, "SELECT set_config('application_name', 'via fn', false)", &c, &err) == 0);
    CHECK_STR(c.rows.buf, "via fn\n");
    CHECK_STR(r.text.buf, "application_name=via fn\n");
    sl_strbuf_free(&r.text);
    c_free(&c);
    sl_error_reset(&err);
    sl_session_free(s);
}

static void t_startup_params(void)
{
    sl_session *s = session();
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    CHECK(sl_session_set_param(s, "application_name", "psql", &err) == 0);
    CHECK(sl_session_set_param(s, "user", "alice", &err) == 0);
    CHECK(sl_session_set_param(s, "database", "shop", &err) == 0);
    CHECK(sl_session_set_param(s, "TimeZone", "America/New_York", &err) == 0);
    CHECK(sl_session_set_param(s, "client_encoding", "UTF8", &err) == 0);
    CHECK(sl_session_set_param(s, "extra_float_digits", "3", &err) == 0);
    CHECK(sl_session_set_param(s, "DateStyle", "ISO", &err) == 0);
    CHECK_STR(sl_session_param(s, "session_authorization"), "alice");
    CHECK_STR(sl_session_param(s, "timezone"), "America/New_York");
    CHECK(run(s, "SELECT current_user AS u, current_database(), current_schema(), current_schema, "
                 "current_catalog", &c, &err) == 0);
    CHECK_STR(c.rows.buf, "alice|shop|public|public|shop\n");
    CHECK(run(s, "SET application_name = 'other'", &c, &err) == 0);
    CHECK(run(s, "RESET application_name", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "application_name"), "psql"); /* the session's default */
    CHECK(run(s, "SET TIME ZONE DEFAULT", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "TimeZone"), "America/New_York");
    CHECK(sl_session_set_param(s, "DateStyle", "Postgres, DMY", &err) != 0);
    CHECK_STR(err.sqlstate, "22023");
    sl_error_reset(&err);
    /* the packet's options: -c name=value, --name=value, backslash-escaped spaces */
    CHECK(sl_session_set_param(s, "options", "-c extra_float_digits=2 --search-path=a\\ b "
                                             "-csearch_path=c\\ d", &err) == 0);
    CHECK_STR(sl_session_param(s, "extra_float_digits"), "2");
    CHECK_STR(sl_session_param(s, "search_path"), "c d");
    /* Sluice's own: the text the wire server sends values in */
    CHECK_STR(sl_session_param(s, "sluice.result_format"), "postgres");
    CHECK(sl_session_set_param(s, "options", "-c sluice.result_format=Engine", &err) == 0);
    CHECK_STR(sl_session_param(s, "Sluice.Result_Format"), "engine");
    CHECK(run(s, "SET sluice.result_format = postgres", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "sluice.result_format"), "postgres");
    CHECK(run(s, "RESET sluice.result_format", &c, &err) == 0);
    CHECK_STR(sl_session_param(s, "sluice.result_format"), "engine"); /* the startup value */
    CHECK(run(s, "SET sluice.result_format = binary", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_STR(err.message, "invalid value for parameter \"sluice.result_format\": \"binary\"");
    sl_error_reset(&err);
    CHECK(sl_session_set_param(s, "options", "-x", &err) != 0);
    CHECK_STR(err.sqlstate, "22023");
    sl_error_reset(&err);
    CHECK(sl_session_set_param(s, "options", "-c nosuch=1", &err) != 0);
    CHECK_STR(err.sqlstate, "42704");
    sl_error_reset(&err);
    CHECK(sl_session_set_param(s, "nosuch", "1", &err) != 0);
    CHECK_STR(err.sqlstate, "42704");
    CHECK_STR(err.message, "unrecognized configuration parameter \"nosuch\"");
    sl_error_reset(&err);
    CHECK(sl_session_set_param(s, "server_version", "16", &err) != 0);
    CHECK_STR(err.sqlstate, "55P02");
    sl_error_reset(&err);
    CHECK(run(s, "SET session_authorization = 'bob'", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "55P02");
    CHECK(run(s, "SHOW session_database", &c, &err) == 0); /* hidden, still shown by name */
    CHECK_STR(c.rows.buf, "shop\n");
    c_free(&c);
    sl_error_reset(&err);
    sl_session_free(s);
}

typedef struct described {
    char names[256];
    sl_type types[8];
    int ncols;
} described;

static int d_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    described *d = ctx;
    d->ncols = ncols;
    d->names[0] = 0;
    for (int i = 0; i < ncols && i < 8; i++) {
        snprintf(d->names + strlen(d->names), sizeof d->names - strlen(d->names), "%s%s",
                 i ? "|" : "", names[i]);
        d->types[i] = types[i];
    }
    return 0;
}

static void t_select_without_from(void)
{
    sl_session *s = session();
    sl_error err = SL_ERROR_INIT;
    described d = {{0}, {{0}}, 0};
    sl_result_sink out = {&d, d_begin, NULL, NULL, NULL, NULL};
    const char *q = "SELECT 1, 1 + 1 AS two, version(), CAST(NULL AS INT), user, CASE WHEN TRUE "
                    "THEN 'y' END, pg_backend_pid() > 0, 2.5";
    CHECK(sl_session_exec(s, q, strlen(q), &out, &err) == 0);
    CHECK_STR(d.names, "?column?|two|version|?column?|user|case|?column?|?column?");
    CHECK(d.ncols == 8);
    CHECK(d.types[0].id == SL_TYPE_INT);
    CHECK(d.types[2].id == SL_TYPE_VARCHAR);
    CHECK(d.types[3].id == SL_TYPE_INT);
    CHECK(d.types[6].id == SL_TYPE_BOOLEAN);
    CHECK(d.types[7].id == SL_TYPE_DECIMAL);
    collect c = {0};
    CHECK(run(s, "SELECT 7 * 6, CAST(NULL AS STRING), upper('é' || current_schema())", &c, &err) == 0);
    CHECK_STR(c.rows.buf, "42|<NULL>|ÉPUBLIC\n"); /* UPPER maps Latin-1 */
    CHECK_STR(c.tag, "SELECT 1");
    /* errors keep their SQLSTATE and position */
    CHECK(run(s, "SELECT 1, 1 / 0", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "22012");
    CHECK(err.position == 10);
    CHECK(run(s, "SELECT current_setting('nosuch')", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "42704");
    CHECK(err.position == 23);
    CHECK(run(s, "SELECT current_setting(application_name)", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "0A000");
    /* an aggregate without FROM goes the query path (a job over VALUES) */
    sl_strbuf_reset(&c.rows);
    CHECK(run(s, "SELECT COUNT(*)", &c, &err) == 0);
    CHECK_STR(c.rows.buf, "+I|1\n"); /* streaming: an updating result, with its row kind */
    c_free(&c);
    sl_error_reset(&err);
    sl_session_free(s);
}

static void t_discard_and_show_all(void)
{
    sl_session *s = session();
    collect c = {0};
    sl_error err = SL_ERROR_INIT;
    CHECK(sl_session_set_param(s, "application_name", "start", &err) == 0);
    CHECK(run(s, "SET application_name = 'changed'", &c, &err) == 0);
    CHECK(run(s, "SET 'parallelism.default' = '2'", &c, &err) == 0);
    CHECK(run(s, "CREATE TEMPORARY VIEW tv AS SELECT 1 AS one", &c, &err) == 0);
    CHECK(run(s, "DISCARD ALL", &c, &err) == 0);
    CHECK_STR(c.tag, "DISCARD ALL");
    CHECK_STR(sl_session_param(s, "application_name"), "start");
    CHECK(run(s, "SELECT one FROM tv", &c, &err) != 0);
    CHECK_STR(err.sqlstate, "42P01");
    CHECK(run(s, "SHOW ALL", &c, &err) == 0);
    CHECK(strncmp(c.rows.buf, "application_name|start|", 23) == 0);
    CHECK(strstr(c.rows.buf, "session_database") == NULL);
    CHECK(strstr(c.rows.buf, "\nTimeZone|") != NULL);
    c_free(&c);
    sl_error_reset(&err);
    sl_session_free(s);
}

static void t_done(void)
{
    sl_engine_close(eng);
    eng = NULL;
}

SL_TESTS(t_transaction_states, t_rollback_restores_settings, t_parameter_status, t_startup_params,
         t_select_without_from, t_discard_and_show_all, t_done)

/*
** test_planner_cursor.c — what the wire server needs of a session, through
** planner/sl_planner.h: $n parameters (parsing, the types binding infers,
** values of each type, NULL, bad values and missing ones with their
** SQLSTATE and position), sl_session_describe (queries, SHOW, INSERT: no
** job starts), cursors over a bounded and an unbounded datagen table (rows
** read in pieces, the session's interrupt ends a wait, closing a running
** query frees everything: run under ASan) and DECLARE / FETCH / MOVE /
** CLOSE.
*/
#include "sl_session_fixture.h"

#include "../../parser/sl_parser.h"
#include "../../planner/session_int.h"

#include <dirent.h>

static const char *SRC_NUMS =
    "CREATE TABLE nums (id BIGINT, name STRING) WITH ('connector' = 'datagen', "
    "'number-of-rows' = '25', 'fields.id.kind' = 'sequence', "
    "'fields.id.start' = '1', 'fields.id.end' = '25', 'fields.name.length' = '3')";

static const char *SRC_ENDLESS =
    "CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', "
    "'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
    "'fields.id.end' = '1000000000')";

static const char *SRC_OUT =
    "CREATE TABLE out_t (a SMALLINT, b DECIMAL(10, 2), c TIMESTAMP(3)) WITH ("
    "'connector' = 'blackhole')";

typedef struct fixture {
    char *dir;
    sl_engine *eng;
    sl_session *s;
    collect c;
    sl_error err;
} fixture;

static void fx_open(fixture *fx, const char *name)
{
    memset(fx, 0, sizeof *fx);
    fx->err = (sl_error)SL_ERROR_INIT;
    fx->dir = tmpdir(name);
    REQUIRE(sl_engine_open(fx->dir, &fx->eng, &fx->err) == 0);
    fx->s = sl_session_new(fx->eng);
    sl_session_set_dml_sync(fx->s, true);
    REQUIRE(run(fx->s, "SET 'parallelism.default' = '1'", &fx->c, &fx->err) == 0);
    REQUIRE(run(fx->s, SRC_NUMS, &fx->c, &fx->err) == 0);
    REQUIRE(run(fx->s, SRC_ENDLESS, &fx->c, &fx->err) == 0);
}

static void fx_close(fixture *fx)
{
    sl_session_free(fx->s);
    sl_engine_close(fx->eng);
    c_free(&fx->c);
    sl_error_reset(&fx->err);
    sl_free(fx->dir);
}

static int run_params(fixture *fx, const char *sql, int n, const sl_param *p)
{
    sl_strbuf_reset(&fx->c.rows);
    fx->c.tag[0] = 0;
    fx->c.ncols = fx->c.nrows = 0;
    sl_result_sink out = {&fx->c, c_begin, c_row, c_notice, c_complete, NULL};
    sl_error_reset(&fx->err);
    return sl_session_exec_params(fx->s, sql, strlen(sql), n, p, &out, &fx->err);
}

static sl_param P(const char *v, sl_type_id id)
{
    sl_param p = {v, v ? strlen(v) : 0, sl_type_make(id)};
    if (id == SL_TYPE_VARCHAR)
        p.type = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    return p;
}

/* ---------------------------------------------------------------- parsing */

static void t_parse_params(void)
{
    sl_error err = SL_ERROR_INIT;
    const char *sql = "SELECT $1, a FROM t WHERE b = $12 LIMIT $2";
    sl_stmt *st = sl_parse_one(sql, strlen(sql), &err);
    REQUIRE(st);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, st, NULL, NULL);
    CHECK_STR(sl_strbuf_cstr(&sb), "SELECT $1, a FROM t WHERE b = $12 LIMIT $2");
    sl_stmt *again = sl_parse_one(sb.buf, sb.len, &err);
    CHECK(again && sl_stmt_equal(st, again));
    sl_stmt_free(again);
    sl_stmt_free(st);
    sl_strbuf_free(&sb);

    /* X'..' (either case) prints as X'..' with lower-case digits */
    sql = "SELECT x'0A1b' = X'', $1";
    st = sl_parse_one(sql, strlen(sql), &err);
    REQUIRE(st);
    sl_strbuf_reset(&sb);
    sl_stmt_print(&sb, st, NULL, NULL);
    CHECK_STR(sl_strbuf_cstr(&sb), "SELECT X'0a1b' = X'', $1");
    again = sl_parse_one(sb.buf, sb.len, &err);
    CHECK(again && sl_stmt_equal(st, again));
    sl_stmt_free(again);
    sl_stmt_free(st);
    sl_strbuf_free(&sb);

    st = sl_parse_one("SELECT $0", 9, &err); /* no such parameter, at the $ */
    CHECK(!st);
    CHECK_STR(err.sqlstate, "42P02");
    CHECK_INT(err.position, 7);
    sl_error_reset(&err);
    st = sl_parse_one("SELECT $1x", 10, &err);
    CHECK(!st);
    CHECK_STR(err.sqlstate, "42601");
    sl_error_reset(&err);
}

static void t_parse_cursor_stmts(void)
{
    static const char *const in[] = {
        "DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT a FROM t",
        "DECLARE c BINARY CURSOR WITHOUT HOLD FOR SELECT a FROM t",
        "FETCH FORWARD 10 FROM c", "FETCH 3 IN c", "FETCH c", "FETCH NEXT FROM c",
        "FETCH ALL c", "FETCH FORWARD ALL FROM c", "MOVE 5 IN c", "CLOSE c", "CLOSE ALL"};
    static const char *const want[] = {
        "DECLARE c CURSOR FOR SELECT a FROM t", "DECLARE c BINARY CURSOR FOR SELECT a FROM t",
        "FETCH 10 FROM c", "FETCH 3 FROM c", "FETCH 1 FROM c", "FETCH 1 FROM c",
        "FETCH ALL FROM c", "FETCH ALL FROM c", "MOVE 5 FROM c", "CLOSE c", "CLOSE ALL"};
    for (size_t i = 0; i < SL_ARRAY_LEN(in); i++) {
        sl_error err = SL_ERROR_INIT;
        sl_stmt *st = sl_parse_one(in[i], strlen(in[i]), &err);
        CHECK(st != NULL);
        if (!st) {
            fprintf(stderr, "  %s: %s\n", in[i], err.message);
            sl_error_reset(&err);
            continue;
        }
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_stmt_print(&sb, st, NULL, NULL);
        CHECK_STR(sl_strbuf_cstr(&sb), want[i]);
        sl_stmt *again = sl_parse_one(sb.buf, sb.len, &err);
        CHECK(again && sl_stmt_equal(st, again));
        sl_stmt_free(again);
        sl_stmt_free(st);
        sl_strbuf_free(&sb);
    }
    /* backward and absolute moves: 0A000 at the keyword */
    static const char *const back[] = {"FETCH BACKWARD 1 FROM c", "FETCH PRIOR FROM c",
                                       "MOVE ABSOLUTE 3 IN c", "FETCH RELATIVE -1 FROM c",
                                       "FETCH -2 FROM c", "FETCH LAST FROM c"};
    for (size_t i = 0; i < SL_ARRAY_LEN(back); i++) {
        sl_error e = SL_ERROR_INIT;
        sl_stmt *st = sl_parse_one(back[i], strlen(back[i]), &e);
        CHECK(st == NULL);
        CHECK_STR(e.sqlstate, "0A000");
        CHECK_INT(e.position, strchr(back[i], ' ') - back[i] + 1);
        sl_stmt_free(st);
        sl_error_reset(&e);
    }
    /* the keywords stay names */
    sl_error err = SL_ERROR_INIT;
    const char *q = "SELECT next, close, cursor, prior, backward FROM fetch";
    sl_stmt *st = sl_parse_one(q, strlen(q), &err);
    CHECK(st != NULL);
    sl_stmt_free(st);
    sl_error_reset(&err);
}

/* ---------------------------------------------------------------- describe */

static char *type_str(sl_type t)
{
    return sl_type_to_string(t);
}

static void t_describe(void)
{
    fixture fx;
    fx_open(&fx, "describe");
    REQUIRE(run(fx.s, SRC_OUT, &fx.c, &fx.err) == 0);
    sl_stmt_desc d;
    const char *q = "SELECT id, name, id + $4 AS more FROM nums WHERE id > $1 AND name LIKE $2 "
                    "LIMIT $3";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    CHECK_INT(d.nparams, 4);
    const char *want_p[] = {"BIGINT", "STRING", "BIGINT", "BIGINT"};
    for (int i = 0; i < 4 && i < d.nparams; i++) {
        char *t = type_str(d.param_types[i]);
        CHECK_STR(t, want_p[i]);
        sl_free(t);
    }
    REQUIRE(d.ncols == 3);
    CHECK_STR(d.names[0], "id");
    CHECK_STR(d.names[2], "more");
    char *t0 = type_str(d.types[0]), *t1 = type_str(d.types[1]);
    CHECK_STR(t0, "BIGINT");
    CHECK_STR(t1, "STRING");
    sl_free(t0);
    sl_free(t1);
    sl_stmt_desc_free(&d);

    /* declared types win; an unused declared one is still counted */
    sl_type decl[3] = {sl_type_make(SL_TYPE_INT), sl_type_make(SL_TYPE_NULL),
                       sl_type_make(SL_TYPE_DOUBLE)};
    q = "SELECT $1, $2 FROM nums";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 3, decl, &d, &fx.err) == 0);
    CHECK_INT(d.nparams, 3);
    char *a = type_str(d.param_types[0]), *b = type_str(d.param_types[1]),
         *c = type_str(d.param_types[2]);
    CHECK_STR(a, "INT");
    CHECK_STR(b, "STRING"); /* nothing to infer from */
    CHECK_STR(c, "DOUBLE");
    sl_free(a);
    sl_free(b);
    sl_free(c);
    CHECK_INT(d.ncols, 2);
    sl_stmt_desc_free(&d);

    /* bytes: an X'..' types its side, and || of bytes; the result is BINARY(n) */
    q = "SELECT $1 = X'00ff', $2 || X'0a' FROM nums";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    REQUIRE(d.nparams == 2 && d.ncols == 2);
    a = type_str(d.param_types[0]);
    b = type_str(d.param_types[1]);
    c = type_str(d.types[1]);
    CHECK_STR(a, "BYTES");
    CHECK_STR(b, "BYTES");
    CHECK_STR(c, "BYTES");
    sl_free(a);
    sl_free(b);
    sl_free(c);
    sl_stmt_desc_free(&d);

    /* INSERT: its target columns type the values; no rows, and no job */
    q = "INSERT INTO out_t VALUES ($1, $2, $3)";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    CHECK_INT(d.nparams, 3);
    CHECK_INT(d.ncols, 0);
    const char *want_i[] = {"SMALLINT", "DECIMAL(10, 2)", "TIMESTAMP(3)"};
    for (int i = 0; i < 3 && i < d.nparams; i++) {
        char *t = type_str(d.param_types[i]);
        CHECK_STR(t, want_i[i]);
        sl_free(t);
    }
    sl_stmt_desc_free(&d);
    CHECK_INT(sl_engine_running_jobs(fx.eng), 0);
    REQUIRE(run(fx.s, "SHOW JOBS", &fx.c, &fx.err) == 0);
    CHECK_INT(fx.c.nrows, 0);

    /* SHOW returns its rows' columns; DDL none; errors as exec's */
    q = "SHOW TABLES";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    CHECK_INT(d.ncols, 1);
    sl_stmt_desc_free(&d);
    q = "CREATE TABLE never (a INT) WITH ('connector' = 'blackhole')";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    CHECK_INT(d.ncols, 0);
    sl_stmt_desc_free(&d);
    REQUIRE(run(fx.s, "SHOW TABLES", &fx.c, &fx.err) == 0);
    CHECK(strstr(fx.c.rows.buf, "never") == NULL);
    q = "EXPLAIN SELECT id FROM nums WHERE id = $1";
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    CHECK_INT(d.nparams, 1);
    CHECK_INT(d.ncols, 1);
    sl_stmt_desc_free(&d);
    q = "SELECT nope FROM nums WHERE id = $1";
    CHECK(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "42703");
    CHECK_INT(fx.err.position, 7);
    CHECK_INT(d.nparams, 0);
    fx_close(&fx);
}

/* ---------------------------------------------------------------- values */

static void t_exec_params_types(void)
{
    fixture fx;
    fx_open(&fx, "params");
    sl_param p[] = {P("42", SL_TYPE_BIGINT),       P("-7", SL_TYPE_INT),
                    P("2.50", SL_TYPE_DECIMAL),    P("1.5e3", SL_TYPE_DOUBLE),
                    P("true", SL_TYPE_BOOLEAN),    P("2026-01-31", SL_TYPE_DATE),
                    P("2026-01-31 12:30:00.125", SL_TYPE_TIMESTAMP),
                    P("it's; DROP TABLE nums", SL_TYPE_VARCHAR), P(NULL, SL_TYPE_BIGINT)};
    p[2].type = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    p[6].type = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    const char *q = "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM nums LIMIT 1";
    int prc = run_params(&fx, q, 9, p);
    if (prc != 0)
        fprintf(stderr, "  %s %s at %d\n", fx.err.sqlstate, fx.err.message, fx.err.position);
    REQUIRE(prc == 0);
    CHECK_STR(fx.c.rows.buf,
              "42|-7|2.50|1500.0|TRUE|2026-01-31|2026-01-31 12:30:00.125|"
              "it's; DROP TABLE nums|<NULL>\n");

    /* a timestamp as drivers send it: 'T', a zone (ignored, as PostgreSQL's
    ** timestamp input does) */
    sl_param ts[] = {P("2026-01-31T12:30:00.125+01", SL_TYPE_TIMESTAMP), P(" 12 ", SL_TYPE_INT)};
    ts[0].type = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    REQUIRE(run_params(&fx, "SELECT $1, $2 FROM nums LIMIT 1", 2, ts) == 0);
    CHECK_STR(fx.c.rows.buf, "2026-01-31 12:30:00.125|12\n");

    /* inferred from the column: a number compared with BIGINT; LIMIT */
    sl_param w[] = {P("20", SL_TYPE_NULL), P("3", SL_TYPE_NULL)};
    q = "SELECT id FROM nums WHERE id > $1 LIMIT $2";
    REQUIRE(run_params(&fx, q, 2, w) == 0);
    CHECK_STR(fx.c.rows.buf, "21\n22\n23\n");
    CHECK_STR(fx.c.tag, "SELECT 3");

    /* a value is a value, never SQL */
    sl_param inj[] = {P("1 OR 1 = 1", SL_TYPE_NULL)};
    q = "SELECT id FROM nums WHERE id = $1";
    CHECK(run_params(&fx, q, 1, inj) == -1);
    CHECK_STR(fx.err.sqlstate, "22P02");
    CHECK_INT(fx.err.position, (int)(strstr(q, "$1") - q));
    CHECK(strstr(fx.err.message, "BIGINT") != NULL);
    CHECK(fx.err.detail && strstr(fx.err.detail, "$1") != NULL);

    /* a bad value names its parameter and points at it */
    sl_param bad[] = {P("1", SL_TYPE_NULL), P("abc", SL_TYPE_INT)};
    q = "SELECT id FROM nums WHERE id > $1 AND id < $2";
    CHECK(run_params(&fx, q, 2, bad) == -1);
    CHECK_STR(fx.err.sqlstate, "22P02");
    CHECK_INT(fx.err.position, (int)(strstr(q, "$2") - q));
    CHECK(fx.err.detail && strstr(fx.err.detail, "$2") != NULL);
    sl_param big[] = {P("99999999999", SL_TYPE_INT)};
    CHECK(run_params(&fx, "SELECT $1 FROM nums", 1, big) == -1);
    CHECK_STR(fx.err.sqlstate, "22003");
    sl_param day[] = {P("2026-02-30", SL_TYPE_DATE)};
    CHECK(run_params(&fx, "SELECT $1 FROM nums", 1, day) == -1);
    CHECK(fx.err.sqlstate[0] == '2' && fx.err.sqlstate[1] == '2');
    /* BYTES: hex digits, as inside X'...' */
    sl_param hex[] = {P("616263", SL_TYPE_VARBINARY)};
    hex[0].type = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    REQUIRE(run_params(&fx, "SELECT $1 FROM nums LIMIT 1", 1, hex) == 0);
    CHECK(strstr(fx.c.rows.buf, "616263") != NULL); /* shown as x'616263' */
    hex[0] = P("61x", SL_TYPE_VARBINARY);
    hex[0].type = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    CHECK(run_params(&fx, "SELECT $1 FROM nums", 1, hex) == -1);
    CHECK_STR(fx.err.sqlstate, "22P02");
    /* any bytes: NUL, bytes that are not UTF-8, upper-case digits; typed
    ** by the client, and untyped (the X'..' it is compared with types it) */
    sl_param nul[] = {P("00FF0a00", SL_TYPE_VARBINARY), P("00ff0A00", SL_TYPE_NULL),
                      P("", SL_TYPE_VARBINARY), P("00", SL_TYPE_NULL)};
    nul[0].type = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    nul[2].type = nul[0].type;
    q = "SELECT $1, $1 = X'00ff0a00', $1 = $2, $2 = X'00FF0A00', $1 > X'00fe', $3, "
        "$3 < X'00', $1 IN (X'00', $4) FROM nums LIMIT 1";
    prc = run_params(&fx, q, 4, nul);
    if (prc != 0)
        fprintf(stderr, "  %s %s at %d\n", fx.err.sqlstate, fx.err.message, fx.err.position);
    REQUIRE(prc == 0);
    CHECK_STR(fx.c.rows.buf, "x'00ff0a00'|TRUE|TRUE|TRUE|TRUE|x''|TRUE|FALSE\n");
    nul[3] = P("0a", SL_TYPE_NULL);
    CHECK(run_params(&fx, "SELECT id FROM nums WHERE id = 3 AND $4 IN (X'0A', $3)", 4, nul) == 0);
    CHECK_STR(fx.c.rows.buf, "3\n");
    nul[0] = P("00f", SL_TYPE_VARBINARY); /* an odd count of digits */
    nul[0].type = nul[2].type;
    q = "SELECT id FROM nums WHERE $1 = X'00'";
    CHECK(run_params(&fx, q, 1, nul) == -1);
    CHECK_STR(fx.err.sqlstate, "22P02");
    CHECK_INT(fx.err.position, (int)(strstr(q, "$1") - q));
    CHECK(fx.err.detail && strstr(fx.err.detail, "$1") != NULL);
    sl_param yes[] = {P("maybe", SL_TYPE_BOOLEAN)};
    CHECK(run_params(&fx, "SELECT $1 FROM nums", 1, yes) == -1);
    CHECK_STR(fx.err.sqlstate, "22P02");

    /* missing: 42P02 at the first $n without a value */
    q = "SELECT id FROM nums WHERE id > $1 AND id < $3";
    CHECK(run_params(&fx, q, 2, bad) == -1);
    CHECK_STR(fx.err.sqlstate, "42P02");
    CHECK_STR(fx.err.message, "there is no parameter $3");
    CHECK_INT(fx.err.position, (int)(strstr(q, "$3") - q));
    collect c = {0};
    CHECK(run(fx.s, "SELECT id FROM nums WHERE id = $1", &c, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "42P02");
    c_free(&c);
    fx_close(&fx);
}

/* INSERT ... SELECT with parameters (its target column types the value),
** read back from the files the job committed. */
static void t_insert_params(void)
{
    fixture fx;
    fx_open(&fx, "insert");
    char *files = sl_sprintf("%s-files", fx.dir);
    char *ddl = sl_sprintf("CREATE TABLE fs (id BIGINT, tag STRING, amount DECIMAL(10, 2)) WITH ("
                           "'connector' = 'filesystem', 'path' = '%s', 'format' = 'json')",
                           files);
    REQUIRE(run(fx.s, ddl, &fx.c, &fx.err) == 0);
    sl_param p[] = {P("it's", SL_TYPE_NULL), P("3.5", SL_TYPE_NULL), P("4", SL_TYPE_NULL)};
    const char *q = "INSERT INTO fs SELECT id, $1, $2 FROM nums WHERE id <= $3";
    sl_stmt_desc d;
    REQUIRE(sl_session_describe(fx.s, q, strlen(q), 0, NULL, &d, &fx.err) == 0);
    char *t1 = type_str(d.param_types[1]), *t2 = type_str(d.param_types[2]);
    CHECK_STR(t1, "DECIMAL(10, 2)");
    CHECK_STR(t2, "BIGINT");
    sl_free(t1);
    sl_free(t2);
    sl_stmt_desc_free(&d);
    int rc = run_params(&fx, q, 3, p);
    if (rc != 0)
        fprintf(stderr, "  %s %s\n", fx.err.sqlstate, fx.err.message);
    REQUIRE(rc == 0);
    DIR *dir = opendir(files);
    int rows = 0, tagged = 0, amounts = 0;
    struct dirent *de;
    while (dir && (de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, "part-", 5) != 0)
            continue;
        char *path = sl_path_join(files, de->d_name);
        char *text = slurp(path);
        for (const char *x = text ? strstr(text, "\"id\"") : NULL; x; x = strstr(x + 1, "\"id\""))
            rows++;
        for (const char *x = text ? strstr(text, "it's") : NULL; x; x = strstr(x + 1, "it's"))
            tagged++;
        for (const char *x = text ? strstr(text, "3.50") : NULL; x; x = strstr(x + 1, "3.50"))
            amounts++;
        sl_free(text);
        sl_free(path);
    }
    if (dir)
        closedir(dir);
    CHECK_INT(rows, 4);
    CHECK_INT(tagged, 4);
    CHECK_INT(amounts, 4);
    sl_free(ddl);
    sl_free(files);
    fx_close(&fx);
}

/* ---------------------------------------------------------------- cursors */

static sl_cursor *open_cursor(fixture *fx, const char *sql)
{
    sl_cursor *cur = NULL;
    sl_error_reset(&fx->err);
    CHECK(sl_session_open_cursor(fx->s, sql, strlen(sql), 0, NULL, &cur, &fx->err) == 0);
    return cur;
}

static int fetch(fixture *fx, sl_cursor *cur, int64_t max)
{
    sl_result_sink out = {&fx->c, NULL, c_row, c_notice, c_complete, NULL};
    fx->c.tag[0] = 0;
    sl_error_reset(&fx->err);
    return sl_cursor_fetch(cur, max, &out, &fx->err);
}

static void t_cursor_bounded(void)
{
    fixture fx;
    fx_open(&fx, "bounded");
    sl_cursor *cur = open_cursor(&fx, "SELECT id, name FROM nums");
    REQUIRE(cur);
    int n = 0;
    const char *const *names;
    const sl_type *types;
    REQUIRE(sl_cursor_columns(cur, &n, &names, &types) == 0);
    CHECK_INT(n, 2);
    CHECK_STR(names[1], "name");
    fx.c.ncols = n;
    sl_strbuf_reset(&fx.c.rows);
    CHECK_INT(fetch(&fx, cur, 10), 1);
    CHECK_INT(fx.c.nrows, 10);
    CHECK_STR(fx.c.tag, "");
    CHECK_INT(fetch(&fx, cur, 10), 1);
    CHECK_INT(fx.c.nrows, 20);
    CHECK_INT(fetch(&fx, cur, 10), 0);
    CHECK_INT(fx.c.nrows, 25);
    CHECK_STR(fx.c.tag, "SELECT 25");
    CHECK_INT(fetch(&fx, cur, 10), 0); /* ended: nothing more */
    CHECK_INT(fx.c.nrows, 25);
    /* every id once, in order (one task) */
    const char *p = fx.c.rows.buf;
    for (int i = 1; i <= 25; i++) {
        CHECK_INT(atoi(p), i);
        p = strchr(p, '\n');
        REQUIRE(p);
        p++;
    }
    sl_cursor_close(cur);

    /* only queries; errors come with the open */
    cur = NULL;
    const char *q = "SHOW TABLES";
    CHECK(sl_session_open_cursor(fx.s, q, strlen(q), 0, NULL, &cur, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "42P11");
    CHECK(cur == NULL);
    sl_error_reset(&fx.err);
    q = "SELECT nope FROM nums";
    CHECK(sl_session_open_cursor(fx.s, q, strlen(q), 0, NULL, &cur, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "42703");
    /* a query the runtime refuses after planning: the open fails too */
    q = "SELECT id FROM nums ORDER BY id"; /* streaming: no sort on id (Flink's 0A000) */
    sl_error_reset(&fx.err);
    CHECK(sl_session_open_cursor(fx.s, q, strlen(q), 0, NULL, &cur, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "0A000");
    CHECK(cur == NULL);
    /* with parameters */
    sl_param lim[] = {P("22", SL_TYPE_NULL)};
    q = "SELECT id FROM nums WHERE id > $1";
    sl_error_reset(&fx.err);
    REQUIRE(sl_session_open_cursor(fx.s, q, strlen(q), 1, lim, &cur, &fx.err) == 0);
    fx.c.ncols = 1;
    sl_strbuf_reset(&fx.c.rows);
    fx.c.nrows = 0;
    CHECK_INT(fetch(&fx, cur, 0), 0);
    CHECK_STR(fx.c.rows.buf, "23\n24\n25\n");
    sl_cursor_close(cur);
    fx_close(&fx);
}

static volatile sig_atomic_t g_interrupt;

static void t_cursor_unbounded(void)
{
    fixture fx;
    fx_open(&fx, "unbounded");
    sl_session_set_interrupt(fx.s, &g_interrupt);
    sl_cursor *cur = open_cursor(&fx, "SELECT id FROM endless");
    REQUIRE(cur);
    fx.c.ncols = 1;
    for (int k = 1; k <= 3; k++) {
        CHECK_INT(fetch(&fx, cur, 5), 1);
        CHECK_INT(fx.c.nrows, 5 * k);
    }
    /* FETCH ALL of an endless query waits; the interrupt ends the wait */
    g_interrupt = 1;
    CHECK_INT(fetch(&fx, cur, 0), -1);
    CHECK_STR(fx.err.sqlstate, "57014");
    g_interrupt = 0;
    /* the cursor is still usable, then closed while its query runs */
    CHECK_INT(fetch(&fx, cur, 5), 1);
    sl_cursor_close(cur);
    CHECK_INT(sl_engine_running_jobs(fx.eng), 0);
    /* a cursor whose producer waits on a full queue closes as well */
    cur = open_cursor(&fx, "SELECT id FROM endless");
    REQUIRE(cur);
    CHECK_INT(fetch(&fx, cur, 1), 1);
    sl_cursor_close(cur);
    fx_close(&fx);
}

/* Backpressure: a reader that does not read holds the producer at the
** queue's bound — rows, or bytes for wide rows — never above it. The
** queue is watched until it has been full for a while (bounded by a
** deadline); a queue without a bound grows past it at once here. */
static void watch_queue(sl_cursor *cur, int64_t max_rows, size_t max_bytes)
{
    int full = 0;
    for (int i = 0; i < 60000 && full < 200; i++) {
        int64_t rows;
        size_t bytes;
        sl__cursor_queued(cur, &rows, &bytes);
        CHECK(rows <= max_rows);
        CHECK(bytes < max_bytes + 256 * 1024); /* one row past the byte bound at most */
        if (rows > max_rows || bytes >= max_bytes + 256 * 1024)
            return;
        if (rows == max_rows || bytes >= max_bytes)
            full++;
        usleep(1000);
    }
    CHECK(full >= 200); /* it filled up, and stayed there */
}

static void t_cursor_backpressure(void)
{
    fixture fx;
    fx_open(&fx, "backpressure");
    REQUIRE(run(fx.s,
                "CREATE TABLE fast (id BIGINT) WITH ('connector' = 'datagen', "
                "'rows-per-second' = '1000000', 'fields.id.kind' = 'sequence', "
                "'fields.id.start' = '1', 'fields.id.end' = '1000000000')",
                &fx.c, &fx.err) == 0);
    REQUIRE(run(fx.s,
                "CREATE TABLE wide (s STRING) WITH ('connector' = 'datagen', "
                "'rows-per-second' = '1000000', 'fields.s.length' = '200000')",
                &fx.c, &fx.err) == 0);
    sl_cursor *cur = open_cursor(&fx, "SELECT id FROM fast");
    REQUIRE(cur);
    fx.c.ncols = 1;
    CHECK_INT(fetch(&fx, cur, 1), 1);
    watch_queue(cur, SL__CURSOR_MAX_ROWS, SIZE_MAX / 2);
    /* the rows are all there, in order, after the wait */
    sl_strbuf_reset(&fx.c.rows);
    CHECK_INT(fetch(&fx, cur, 3000), 1);
    const char *p = fx.c.rows.buf;
    for (int i = 2; i <= 3001 && p; i++) {
        CHECK_INT(atoll(p), i);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    sl_cursor_close(cur);
    cur = open_cursor(&fx, "SELECT s FROM wide");
    REQUIRE(cur);
    watch_queue(cur, SL__CURSOR_MAX_BYTES / 200000 + 1, SL__CURSOR_MAX_BYTES);
    sl_cursor_close(cur);
    fx_close(&fx);
}

/* ---------------------------------------------------------------- SQL */

static void t_sql_cursors(void)
{
    fixture fx;
    fx_open(&fx, "sql");
    collect *c = &fx.c;
    REQUIRE(run(fx.s, "DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT id FROM nums", c,
                &fx.err) == 0);
    CHECK_STR(c->tag, "DECLARE CURSOR");
    REQUIRE(run(fx.s, "FETCH FORWARD 3 FROM c", c, &fx.err) == 0);
    CHECK_STR(c->rows.buf, "1\n2\n3\n");
    CHECK_STR(c->tag, "FETCH 3");
    REQUIRE(run(fx.s, "MOVE 10 IN c", c, &fx.err) == 0);
    CHECK_STR(c->tag, "MOVE 10");
    CHECK_INT(c->nrows, 0);
    REQUIRE(run(fx.s, "FETCH c", c, &fx.err) == 0);
    CHECK_STR(c->rows.buf, "14\n");
    REQUIRE(run(fx.s, "FETCH ALL FROM c", c, &fx.err) == 0);
    CHECK_STR(c->tag, "FETCH 11");
    REQUIRE(run(fx.s, "FETCH 5 FROM c", c, &fx.err) == 0);
    CHECK_STR(c->tag, "FETCH 0");
    CHECK(run(fx.s, "DECLARE c CURSOR FOR SELECT id FROM nums", c, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "42P03");
    REQUIRE(run(fx.s, "CLOSE c", c, &fx.err) == 0);
    CHECK_STR(c->tag, "CLOSE CURSOR");
    CHECK(run(fx.s, "FETCH 1 FROM c", c, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "34000");
    CHECK_STR(fx.err.message, "cursor \"c\" does not exist");
    CHECK_INT(fx.err.position, 13);
    CHECK(run(fx.s, "CLOSE c", c, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "34000");
    CHECK(run(fx.s, "DECLARE b BINARY CURSOR FOR SELECT id FROM nums", c, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "0A000");
    CHECK(run(fx.s, "DECLARE b CURSOR FOR SELECT nope FROM nums", c, &fx.err) == -1);
    CHECK_STR(fx.err.sqlstate, "42703");
    /* a SET after DECLARE does not change the cursor's query */
    REQUIRE(run(fx.s, "DECLARE e CURSOR FOR SELECT id FROM endless", c, &fx.err) == 0);
    REQUIRE(run(fx.s, "FETCH 2 FROM e", c, &fx.err) == 0);
    CHECK_STR(c->rows.buf, "1\n2\n");
    REQUIRE(run(fx.s, "DECLARE e2 CURSOR FOR SELECT id FROM endless", c, &fx.err) == 0);
    REQUIRE(run(fx.s, "CLOSE ALL", c, &fx.err) == 0);
    CHECK(run(fx.s, "FETCH 1 FROM e", c, &fx.err) == -1);
    /* cursors left open are closed with the session (ASan: no leak) */
    REQUIRE(run(fx.s, "DECLARE left_open CURSOR FOR SELECT id FROM endless", c, &fx.err) == 0);
    REQUIRE(run(fx.s, "FETCH 1 FROM left_open", c, &fx.err) == 0);
    fx_close(&fx);
}

SL_TESTS(t_parse_params, t_parse_cursor_stmts, t_describe, t_exec_params_types, t_insert_params,
         t_cursor_bounded,
         t_cursor_unbounded, t_cursor_backpressure, t_sql_cursors)

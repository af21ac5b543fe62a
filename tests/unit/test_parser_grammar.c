/*
** test_parser_grammar.c — every statement form of the grammar parses into the
** expected AST (kinds, names, positions, types, options, tree shape for
** precedence); Flink documentation examples parse unchanged; and every input
** round-trips through the printer: print(parse(x)) parses to an equal AST
** and prints the same text again.
*/
#include "sl_parser.h"
#include "sl_test.h"

/* Parse exactly one statement; NULL (and a message) on error. */
static sl_stmt *parse1(const char *sql)
{
    sl_error err = SL_ERROR_INIT;
    sl_stmt *s = sl_parse_one(sql, strlen(sql), &err);
    if (!s)
        fprintf(stderr, "parse failed: %s\n  %s (%s) at %d\n", sql, err.message, err.sqlstate,
                err.position);
    sl_error_reset(&err);
    return s;
}

/* The error of parsing sql (must fail); the caller resets it. */
static sl_error parse_err(const char *sql)
{
    sl_error err = SL_ERROR_INIT;
    sl_list *l = sl_list_new();
    int rc = sl_parse(sql, strlen(sql), l, &err);
    CHECK(rc == -1);
    CHECK(l->n == 0);
    sl_list_free(l, sl_stmt_free_v);
    return err;
}

static char *print_stmt(const sl_stmt *s)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, s, NULL, NULL);
    return sl_strbuf_detach(&sb);
}

static char *print_expr(const sl_expr *e)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_expr_print(&sb, e);
    return sl_strbuf_detach(&sb);
}

/* print(parse(sql)) parses to an equal AST, and printing that is stable. */
static void roundtrip(const char *sql)
{
    sl_error err = SL_ERROR_INIT;
    sl_list *a = sl_list_new();
    if (sl_parse(sql, strlen(sql), a, &err) != 0) {
        fprintf(stderr, "roundtrip: parse failed: %s\n  %s at %d\n", sql, err.message,
                err.position);
        CHECK(0);
        sl_error_reset(&err);
        sl_list_free(a, sl_stmt_free_v);
        return;
    }
    for (int i = 0; i < a->n; i++) {
        char *t1 = print_stmt(a->items[i]);
        sl_stmt *b = sl_parse_one(t1, strlen(t1), &err);
        if (!b) {
            fprintf(stderr, "roundtrip: printed text does not parse:\n  %s\n  %s at %d\n", t1,
                    err.message, err.position);
            CHECK(0);
            sl_error_reset(&err);
        } else {
            if (!sl_stmt_equal(a->items[i], b)) {
                fprintf(stderr, "roundtrip: AST differs after print:\n  in:  %s\n  out: %s\n", sql,
                        t1);
                CHECK(0);
            }
            char *t2 = print_stmt(b);
            CHECK_STR(t2, t1);
            sl_free(t2);
            sl_stmt_free(b);
        }
        sl_free(t1);
    }
    sl_list_free(a, sl_stmt_free_v);
}

/* ------------------------------------------------------------------ inputs
** Every statement below is parsed and round-tripped in t_roundtrip_all. */
static const char *const corpus[] = {
    /* Flink documentation examples (window TVFs, dedup, top-n, DDL, sets). */
    "SELECT window_start, window_end, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), "
    "INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;",
    "SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES));",
    "SELECT * FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), "
    "SIZE => INTERVAL '10' MINUTES));",
    "SELECT * FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, "
    "INTERVAL '10' MINUTES));",
    "SELECT * FROM TABLE(HOP(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), "
    "SLIDE => INTERVAL '5' MINUTES, SIZE => INTERVAL '10' MINUTES));",
    "SELECT window_start, window_end, SUM(price) FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), "
    "INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;",
    "SELECT * FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, "
    "INTERVAL '10' MINUTES));",
    "SELECT window_start, window_end, SUM(price) FROM TABLE(CUMULATE(TABLE Bid, "
    "DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)) "
    "GROUP BY window_start, window_end;",
    "SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, "
    "INTERVAL '1' MINUTES));",
    "SELECT order_id, user, product, num FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id "
    "ORDER BY proctime ASC) AS row_num FROM Orders) WHERE row_num = 1",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS "
    "row_num FROM ShopSales) WHERE row_num <= 5",
    "CREATE TABLE Orders (\n  `user` BIGINT,\n  product STRING,\n  amount INT,\n"
    "  order_time TIMESTAMP(3),\n  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND\n"
    ") WITH (\n  'connector' = 'kafka',\n  'topic' = 'orders',\n"
    "  'properties.bootstrap.servers' = 'localhost:9092',\n  'format' = 'json'\n)",
    "CREATE TABLE MyUserTable (\n  user_id BIGINT,\n  name STRING,\n  PRIMARY KEY (user_id) NOT "
    "ENFORCED\n) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://localhost:3306/mydatabase', "
    "'table-name' = 'users')",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO pageview_pv_sink SELECT page_id, count(1) FROM "
    "pageviews GROUP BY page_id; INSERT INTO pageview_uv_sink SELECT page_id, count(distinct "
    "user_id) FROM pageviews GROUP BY page_id; END;",
    "INSERT INTO country_page_view SELECT `user`, cnt FROM page_view_source",
    "INSERT INTO students VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32)",
    /* DDL */
    "CREATE TABLE IF NOT EXISTS t (data STRING, key INT NOT NULL PRIMARY KEY NOT ENFORCED "
    "COMMENT 'the key', ts TIMESTAMP(3)) COMMENT 'a table' WITH ('connector' = 'datagen')",
    "CREATE TABLE t (a INT, b INT, CONSTRAINT pk PRIMARY KEY (a, b) NOT ENFORCED)",
    "CREATE TABLE types (a BOOLEAN, b TINYINT, c SMALLINT, d INT, e INTEGER, f BIGINT, g FLOAT, "
    "h DOUBLE, i DOUBLE PRECISION, j DECIMAL, k DECIMAL(10), l DEC(10, 2), m NUMERIC(38, 0), "
    "n STRING, o VARCHAR, p VARCHAR(20), q CHAR, r CHAR(3), s BYTES, t BINARY, u BINARY(4), "
    "v VARBINARY(8), w DATE, x TIME, y TIME(3), z TIMESTAMP, aa TIMESTAMP(9) WITHOUT TIME ZONE, "
    "bb TIMESTAMP(3) WITH LOCAL TIME ZONE, cc TIMESTAMP_LTZ, dd TIMESTAMP_LTZ(3), "
    "ee STRING NOT NULL, ff INT NULL)",
    "DROP TABLE t",
    "DROP TABLE IF EXISTS `my table`",
    "ALTER TABLE t SET ('a' = '1', 'b.c' = 'it''s')",
    "ALTER TABLE t RESET ('a', 'b')",
    "CREATE VIEW v AS SELECT 1",
    "CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t",
    "DROP VIEW v",
    "DROP TEMPORARY VIEW IF EXISTS v",
    /* DML */
    "INSERT INTO t (a, b) SELECT x, y FROM u",
    "INSERT INTO t (SELECT 1)",
    "INSERT INTO t VALUES (1)",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b VALUES (2) END",
    /* queries */
    "SELECT 1",
    "SELECT DISTINCT a, b AS c, d e, t.*, * FROM t",
    "SELECT ALL a FROM t AS x WHERE a > 1 GROUP BY a HAVING COUNT(*) > 1 ORDER BY a DESC NULLS "
    "LAST, b ASC NULLS FIRST LIMIT 10 OFFSET 5",
    "SELECT a FROM t UNION ALL SELECT b FROM u UNION SELECT c FROM v",
    "SELECT a FROM t UNION (SELECT b FROM u UNION ALL SELECT c FROM v)",
    "(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u LIMIT 2) ORDER BY 1",
    "SELECT * FROM a, b, c",
    "SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c ON c.y = b.y LEFT OUTER JOIN d ON TRUE "
    "RIGHT JOIN e ON FALSE RIGHT OUTER JOIN f ON 1 = 1 FULL JOIN g ON 1 = 1 FULL OUTER JOIN h "
    "ON 1 = 1 INNER JOIN i ON 1 = 1 CROSS JOIN j",
    "SELECT * FROM a, (b JOIN c ON b.x = c.x)",
    "SELECT * FROM (SELECT 1) AS s, (SELECT 2) s2, (SELECT 3)",
    "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) AS w",
    "SELECT * FROM TABLE(CUMULATE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), STEP => INTERVAL "
    "'1' HOUR, SIZE => INTERVAL '1' DAY, OFFSET => INTERVAL '8' HOURS))",
    "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), SIZE => INTERVAL '1' SECOND))",
    "VALUES (1, 'a'), (2, 'b')",
    "SELECT * FROM (VALUES (1), (2)) AS v",
    /* expressions */
    "SELECT - -5, -a, +b, NOT NOT c, 1 - -1, 2 * (3 + 4), (1 + 2) * 3, 1 + 2 * 3 - 4 / 5 % 6",
    "SELECT a OR b AND NOT c = d, (a OR b) AND c, a = b IS TRUE, a || b || 'c'",
    "SELECT a IS NULL, a IS NOT NULL, a IS TRUE, a IS NOT TRUE, a IS FALSE, a IS NOT FALSE, "
    "a IS UNKNOWN, a IS NOT UNKNOWN",
    "SELECT a BETWEEN 1 AND 2, a NOT BETWEEN b + 1 AND c * 2 AND d, a IN (1, 2, 3), a NOT IN "
    "('x'), s LIKE 'a%', s NOT LIKE 'a\\%' ESCAPE '\\'",
    "SELECT CASE WHEN a = 1 THEN 'one' WHEN a = 2 THEN 'two' ELSE 'many' END, CASE a WHEN 1 "
    "THEN 'x' END",
    "SELECT CAST(a AS INT), TRY_CAST(b AS DECIMAL(10, 2)), CAST(c AS TIMESTAMP(3)), "
    "CAST(d AS STRING), CAST(e AS VARCHAR(5))",
    "SELECT COUNT(*), COUNT(DISTINCT a), SUM(ALL b), f(), g(1, 'x', h(2)), LEFT(s, 2), RIGHT(s, "
    "1), IF(a > 1, 'y', 'n'), TRUNCATE(1.5, 0), `my fn`(a)",
    "SELECT CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIMESTAMP, LOCALTIME",
    "SELECT SUBSTRING(s FROM 2), SUBSTRING(s FROM 2 FOR 3), SUBSTRING(s, 1, 2)",
    "SELECT ROW_NUMBER() OVER (), RANK() OVER (ORDER BY a), SUM(x) OVER (PARTITION BY a, b "
    "ORDER BY c DESC NULLS FIRST)",
    "SELECT SUM(x) OVER (PARTITION BY a ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "
    "MAX(x) OVER (ORDER BY ts ROWS 2 PRECEDING), MIN(x) OVER (ORDER BY ts RANGE UNBOUNDED "
    "PRECEDING), AVG(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT "
    "ROW), COUNT(*) OVER (ORDER BY ts ROWS CURRENT ROW)",
    "SELECT SUM(x) OVER w, COUNT(*) OVER v FROM t WHERE a > 1 GROUP BY a HAVING b "
    "WINDOW w AS (PARTITION BY a ORDER BY ts), v AS (ORDER BY ts ROWS 1 PRECEDING)",
    "SELECT rows, range, preceding, unbounded, current, row FROM t",
    "SELECT COUNT(*) FILTER (WHERE a > 1), COUNT(DISTINCT a) FILTER (WHERE b), filter, a filter",
    "SELECT 0, 12, 1.50, 1e3, 1.5E-3, .5, 'it''s', '', TRUE, FALSE, NULL",
    "SELECT DATE '2024-01-01', TIME '12:00:00', TIMESTAMP '2024-01-01 12:00:00.123', "
    "TIMESTAMP_LTZ '2024-01-01 00:00:00'",
    "SELECT INTERVAL '5' SECOND, INTERVAL '5' SECONDS, INTERVAL '1.5' SECOND(3), INTERVAL '10' "
    "MINUTES, INTERVAL '2' HOURS, INTERVAL '3' DAYS, INTERVAL '4' MONTHS, INTERVAL '5' YEARS, "
    "INTERVAL '1 02:03:04.5' DAY TO SECOND(3), INTERVAL '1-2' YEAR TO MONTH, INTERVAL '1 2' DAY "
    "TO HOUR, INTERVAL '1:2' HOUR TO MINUTE, INTERVAL '2:03' MINUTE TO SECOND",
    "SELECT data, key, ts, watermark, tumble, hop, cumulate, descriptor, job, jobs, connectors, "
    "tables, views, comment, temporary, savepoint, stop, enforced, string, bytes, first, last, "
    "nulls, plan, size, slide, step, timecol, year, second FROM t",
    "SELECT `select`, `a``b`, `from`.`where` FROM `from`",
    "SELECT t.a, t.b FROM t WHERE t.a = 'x' -- trailing comment",
    "/* leading */ SELECT 1 /* inner */ + 2",
    /* utility */
    "SET",
    "SET 'sink.guarantee-fallback' = 'downgrade'",
    "RESET",
    "RESET 'a.b'",
    "SHOW TABLES",
    "SHOW VIEWS",
    "SHOW JOBS",
    "SHOW CONNECTORS",
    "SHOW CREATE TABLE t",
    "SHOW CREATE VIEW v",
    "SHOW FUNCTIONS",
    "SHOW USER FUNCTIONS",
    "DROP FUNCTION IF EXISTS f",
    "DROP TEMPORARY FUNCTION IF EXISTS `my f`",
    "DROP TEMPORARY SYSTEM FUNCTION IF EXISTS f",
    "DESCRIBE t",
    "DESC t",
    "EXPLAIN SELECT 1",
    "EXPLAIN PLAN FOR INSERT INTO t SELECT 1",
    "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END",
    "STOP JOB 'abc'",
    "STOP JOB 'abc' WITH SAVEPOINT",
    "SET 'a' = 'b'; SELECT 1; ; SHOW TABLES",
    /* PostgreSQL session statements */
    "SET application_name = 'x'",
    "SET SESSION extra_float_digits TO 3",
    "SET LOCAL search_path = a, 'b c', -1",
    "SET DateStyle TO DEFAULT",
    "SET TIME ZONE 'UTC'",
    "SET TIME ZONE LOCAL",
    "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY NOT DEFERRABLE",
    "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    "SHOW application_name",
    "SHOW user",
    "SHOW user.x",
    "SHOW ALL",
    "SHOW TIME ZONE",
    "SHOW TRANSACTION ISOLATION LEVEL",
    "SHOW SESSION AUTHORIZATION",
    "RESET search_path",
    "RESET ALL",
    "SET sluice.result_format = engine",
    "SHOW sluice.result_format",
    "RESET sluice.result_format",
    "BEGIN",
    "BEGIN WORK ISOLATION LEVEL REPEATABLE READ READ WRITE",
    "START TRANSACTION",
    "COMMIT TRANSACTION",
    "END",
    "ROLLBACK",
    "ABORT WORK",
    "SAVEPOINT s1",
    "RELEASE s1",
    "RELEASE SAVEPOINT s1",
    "ROLLBACK TO s1",
    "ROLLBACK WORK TO SAVEPOINT s1",
    "DISCARD ALL",
    "DISCARD TEMP",
    "SELECT current_user, session_user, user, version(), `user` FROM t",
    "SELECT current_schema, current_schema(), current_catalog",
    /* RECONCILE (planner/session_reconcile.c) */
    "RECONCILE ledger AGAINST clicks ON event_id",
    "RECONCILE `l` AGAINST c ON a, b COMPARE x, y WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' "
    "AND ts < TIMESTAMP '2026-10-05 00:00:00' FOR JOB 'bill''ing' REPAIR",
    "RECONCILE l AGAINST c ON k REPAIR",
};

static void t_roundtrip_all(void)
{
    for (size_t i = 0; i < SL_ARRAY_LEN(corpus); i++)
        roundtrip(corpus[i]);
}

/* ------------------------------------------------------------------ DDL */
static void t_create_table(void)
{
    const char *sql = "CREATE TABLE IF NOT EXISTS t (data STRING, key INT NOT NULL PRIMARY KEY "
                      "NOT ENFORCED COMMENT 'the key', ts TIMESTAMP(3), WATERMARK FOR ts AS ts - "
                      "INTERVAL '5' SECOND) COMMENT 'tbl' WITH ('connector' = 'datagen', 'x' = "
                      "'it''s');";
    sl_stmt *s = parse1(sql);
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_CREATE_TABLE);
    CHECK_INT(s->pos, 0);
    CHECK_INT(s->end, (int)strlen(sql) - 1);
    CHECK(s->if_not_exists);
    CHECK_STR(s->name, "t");
    CHECK_INT(s->name_pos, 27);
    REQUIRE(sl_list_len(s->columns) == 3);
    sl_column_def *c0 = sl_list_get(s->columns, 0), *c1 = sl_list_get(s->columns, 1),
                  *c2 = sl_list_get(s->columns, 2);
    CHECK_STR(c0->name, "data");
    CHECK_INT(c0->pos, 30);
    CHECK_INT(c0->type.id, SL_TYPE_VARCHAR);
    CHECK_INT(c0->type.precision, SL_MAX_LENGTH);
    CHECK(!c0->type.not_null);
    CHECK_INT(c0->type_pos, 35);
    CHECK(!c0->comment);
    CHECK_STR(c1->name, "key");
    CHECK_INT(c1->type.id, SL_TYPE_INT);
    CHECK(c1->type.not_null);
    CHECK_STR(c1->comment, "the key");
    CHECK_INT(c2->type.id, SL_TYPE_TIMESTAMP);
    CHECK_INT(c2->type.precision, 3);
    REQUIRE(sl_list_len(s->primary_key) == 1);
    sl_ident *pk = sl_list_get(s->primary_key, 0);
    CHECK_STR(pk->name, "key");
    CHECK_INT(pk->pos, 43);
    CHECK_INT(s->pk_pos, (int)(strstr(sql, "PRIMARY") - sql));
    REQUIRE(s->wm_column);
    CHECK_STR(s->wm_column->name, "ts");
    REQUIRE(s->wm_expr);
    CHECK_INT(s->wm_expr->kind, SL_EXPR_BINARY);
    CHECK_INT(s->wm_expr->op, SL_OP_SUB);
    CHECK_INT(s->wm_expr->right->kind, SL_EXPR_INTERVAL);
    CHECK_STR(s->wm_expr->right->text, "5");
    CHECK_INT(s->wm_expr->right->unit, SL_UNIT_SECOND);
    CHECK_STR(s->comment, "tbl");
    REQUIRE(s->options && s->options->n == 2);
    CHECK_INT(s->options_pos, (int)(strstr(sql, "WITH") - sql));
    CHECK_STR(s->options->items[0].key, "connector");
    CHECK_STR(s->options->items[0].value, "datagen");
    CHECK_INT(s->options->items[0].key_pos, (int)(strstr(sql, "'connector'") - sql));
    CHECK_INT(s->options->items[0].value_pos, (int)(strstr(sql, "'datagen'") - sql));
    CHECK_STR(s->options->items[1].value, "it's");
    sl_stmt_free(s);

    s = parse1("CREATE TABLE t (a INT, b INT, CONSTRAINT pk PRIMARY KEY (a, b) NOT ENFORCED)");
    REQUIRE(s);
    CHECK(!s->options);
    CHECK_INT(s->options_pos, -1);
    CHECK(!s->wm_column);
    REQUIRE(sl_list_len(s->primary_key) == 2);
    CHECK_STR(((sl_ident *)sl_list_get(s->primary_key, 1))->name, "b");
    CHECK_INT(((sl_ident *)sl_list_get(s->primary_key, 1))->pos, 60);
    CHECK_INT(s->pk_pos, 44);
    sl_stmt_free(s);
}

static void t_types(void)
{
    static const struct {
        const char *sql;
        sl_type_id id;
        int precision, scale;
    } cases[] = {
        {"BOOLEAN", SL_TYPE_BOOLEAN, -1, 0}, {"TINYINT", SL_TYPE_TINYINT, -1, 0},
        {"SMALLINT", SL_TYPE_SMALLINT, -1, 0}, {"INT", SL_TYPE_INT, -1, 0},
        {"integer", SL_TYPE_INT, -1, 0}, {"BIGINT", SL_TYPE_BIGINT, -1, 0},
        {"FLOAT", SL_TYPE_FLOAT, -1, 0}, {"DOUBLE", SL_TYPE_DOUBLE, -1, 0},
        {"DOUBLE PRECISION", SL_TYPE_DOUBLE, -1, 0}, {"DECIMAL", SL_TYPE_DECIMAL, 10, 0},
        {"DECIMAL(12)", SL_TYPE_DECIMAL, 12, 0}, {"DEC(12, 3)", SL_TYPE_DECIMAL, 12, 3},
        {"NUMERIC(38, 38)", SL_TYPE_DECIMAL, 38, 38}, {"STRING", SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0},
        {"VARCHAR", SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0}, {"VARCHAR(20)", SL_TYPE_VARCHAR, 20, 0},
        {"CHAR", SL_TYPE_CHAR, 1, 0}, {"CHAR(5)", SL_TYPE_CHAR, 5, 0},
        {"BYTES", SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0}, {"BINARY(2)", SL_TYPE_BINARY, 2, 0},
        {"BINARY", SL_TYPE_BINARY, 1, 0}, {"VARBINARY", SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0},
        {"NUMERIC", SL_TYPE_DECIMAL, 10, 0}, {"DEC", SL_TYPE_DECIMAL, 10, 0},
        {"VARBINARY(9)", SL_TYPE_VARBINARY, 9, 0}, {"DATE", SL_TYPE_DATE, -1, 0},
        {"TIME", SL_TYPE_TIME, 0, 0}, {"TIME(3)", SL_TYPE_TIME, 3, 0},
        {"TIMESTAMP", SL_TYPE_TIMESTAMP, 6, 0}, {"TIMESTAMP(3)", SL_TYPE_TIMESTAMP, 3, 0},
        {"TIMESTAMP(0) WITHOUT TIME ZONE", SL_TYPE_TIMESTAMP, 0, 0},
        {"TIMESTAMP WITH LOCAL TIME ZONE", SL_TYPE_TIMESTAMP_LTZ, 6, 0},
        {"TIMESTAMP(3) WITH LOCAL TIME ZONE", SL_TYPE_TIMESTAMP_LTZ, 3, 0},
        {"TIMESTAMP_LTZ", SL_TYPE_TIMESTAMP_LTZ, 6, 0}, {"TIMESTAMP_LTZ(9)", SL_TYPE_TIMESTAMP_LTZ, 9, 0},
        /* The SQL standard's spellings. */
        {"CHARACTER", SL_TYPE_CHAR, 1, 0}, {"character(7)", SL_TYPE_CHAR, 7, 0},
        {"CHARACTER VARYING", SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0},
        {"CHARACTER VARYING(8)", SL_TYPE_VARCHAR, 8, 0}, {"char varying(3)", SL_TYPE_VARCHAR, 3, 0},
        {"CHAR VARYING", SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0},
        {"BINARY VARYING(4)", SL_TYPE_VARBINARY, 4, 0},
        {"BINARY VARYING", SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        char sql[128];
        snprintf(sql, sizeof(sql), "SELECT CAST(x AS %s)", cases[i].sql);
        sl_stmt *s = parse1(sql);
        REQUIRE(s);
        sl_select_item *it = sl_list_get(s->query->items, 0);
        CHECK_INT(it->expr->kind, SL_EXPR_CAST);
        CHECK_INT(it->expr->type.id, cases[i].id);
        if (cases[i].precision >= 0)
            CHECK_INT(it->expr->type.precision, cases[i].precision);
        CHECK_INT(it->expr->type.scale, cases[i].scale);
        CHECK(!it->expr->type.not_null);
        sl_type want = cases[i].precision >= 0
                           ? sl_type_make_p(cases[i].id, cases[i].precision, cases[i].scale)
                           : sl_type_make(cases[i].id);
        CHECK(sl_type_equal(it->expr->type, want));
        sl_stmt_free(s);
    }
    /* Out-of-range arguments are errors at the type. */
    const char *bad[] = {"SELECT CAST(x AS DECIMAL(39))", "SELECT CAST(x AS VARCHAR(0))",
                         "SELECT CAST(x AS TIMESTAMP(10))", "SELECT CAST(x AS DECIMAL(5, 6))",
                         "SELECT CAST(x AS VARCHAR(1, 2))", "SELECT CAST(x AS CHAR(99999999999))"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        sl_error err = parse_err(bad[i]);
        CHECK(err.sqlstate[0]);
        CHECK(err.position >= 17 && err.position <= (int)strlen(bad[i]));
        sl_error_reset(&err);
    }
}

/* Flink's function DDL parses in full and is refused with 0A000 at the
** statement's first keyword; anything else stays a syntax error. */
static void t_function_ddl(void)
{
    static const struct { const char *sql; const char *msg; } refused[] = {
        {"CREATE FUNCTION f AS 'a.B'", "CREATE FUNCTION is not supported"},
        {"CREATE TEMPORARY FUNCTION IF NOT EXISTS c.d.f AS 'a.B' LANGUAGE JAVA",
         "CREATE FUNCTION is not supported"},
        {"CREATE TEMPORARY SYSTEM FUNCTION f AS 'm.f' LANGUAGE PYTHON",
         "CREATE FUNCTION is not supported"},
        {"CREATE FUNCTION f AS 'a.B' LANGUAGE SCALA USING JAR 'x.jar', JAR 'y.jar'",
         "CREATE FUNCTION is not supported"},
        {"ALTER FUNCTION d.f AS 'a.C'", "ALTER FUNCTION is not supported"},
        {"ALTER TEMPORARY SYSTEM FUNCTION IF EXISTS f AS 'a.C' LANGUAGE JAVA",
         "ALTER FUNCTION is not supported"},
        {"DROP FUNCTION f", "DROP FUNCTION is not supported"},
        {"DROP TEMPORARY FUNCTION c.d.f", "DROP FUNCTION is not supported"},
        {"drop temporary system function f", "DROP FUNCTION is not supported"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(refused); i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT 1; %s; SELECT 2", refused[i].sql);
        sl_error err = parse_err(sql);
        CHECK_STR(err.sqlstate, SL_ERR_NOT_SUPPORTED);
        CHECK_STR(err.message, refused[i].msg);
        CHECK_INT(err.position, 10);
        CHECK(err.detail && strstr(err.detail, "Java, Scala or Python"));
        CHECK(err.hint && strstr(err.hint, "SHOW FUNCTIONS"));
        sl_error_reset(&err);
    }
    /* DROP ... IF EXISTS: the no-op statement (the name's last part). */
    static const struct { const char *sql; bool temp; int system; } drops[] = {
        {"DROP FUNCTION IF EXISTS f", false, 0},
        {"DROP TEMPORARY FUNCTION IF EXISTS c.d.f", true, 0},
        {"drop temporary system function if exists `f`", true, 1},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(drops); i++) {
        sl_stmt *s = parse1(drops[i].sql);
        REQUIRE(s);
        CHECK_INT(s->kind, SL_STMT_DROP_FUNCTION);
        CHECK_STR(s->name, "f");
        CHECK(s->if_exists);
        CHECK_INT(s->temporary, drops[i].temp);
        CHECK_INT(s->sub, drops[i].system);
        sl_stmt_free(s);
    }
    static const char *const syntax[] = {
        "CREATE FUNCTION f", "CREATE FUNCTION f AS x", "CREATE FUNCTION f AS 'a' USING 'x.jar'",
        "DROP FUNCTION", "ALTER FUNCTION f", "CREATE SYSTEM FUNCTION f AS 'a'",
        "CREATE FUNCTION f AS 'a' USING JAR 'x', 'y'",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(syntax); i++) {
        sl_error err = parse_err(syntax[i]);
        CHECK_STR(err.sqlstate, SL_ERR_SYNTAX);
        sl_error_reset(&err);
    }
}

static void t_ddl_misc(void)
{
    sl_stmt *s = parse1("DROP TABLE IF EXISTS `my table`");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_DROP_TABLE);
    CHECK(s->if_exists);
    CHECK_STR(s->name, "my table");
    CHECK_INT(s->name_pos, 21);
    sl_stmt_free(s);

    s = parse1("ALTER TABLE t SET ('a' = '1', 'b' = '2')");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_ALTER_SET);
    CHECK_INT(s->options_pos, 14);
    REQUIRE(s->options->n == 2);
    CHECK_STR(s->options->items[1].key, "b");
    CHECK_INT(s->options->items[1].key_pos, 30);
    CHECK_INT(s->options->items[1].value_pos, 36);
    sl_stmt_free(s);

    s = parse1("ALTER TABLE t RESET ('a', 'b')");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_ALTER_RESET);
    REQUIRE(s->options->n == 2);
    CHECK(!s->options->items[0].value);
    CHECK_INT(s->options->items[0].value_pos, -1);
    CHECK_INT(s->options->items[1].key_pos, 26);
    sl_stmt_free(s);

    s = parse1("CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_CREATE_VIEW);
    CHECK(s->temporary && s->if_not_exists);
    CHECK_STR(s->name, "v");
    REQUIRE(sl_list_len(s->column_names) == 2);
    CHECK_STR(((sl_ident *)sl_list_get(s->column_names, 1))->name, "y");
    CHECK_INT(((sl_ident *)sl_list_get(s->column_names, 1))->pos, 42);
    REQUIRE(s->query);
    CHECK_INT(s->query->pos, 48);
    sl_stmt_free(s);

    s = parse1("DROP TEMPORARY VIEW v");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_DROP_VIEW);
    CHECK(s->temporary && !s->if_exists);
    sl_stmt_free(s);
}

/* ------------------------------------------------------------------ DML */
static void t_insert_and_sets(void)
{
    sl_stmt *s = parse1("INSERT INTO t (a, b) SELECT x, y FROM u");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_INSERT);
    CHECK_STR(s->name, "t");
    CHECK_INT(s->name_pos, 12);
    REQUIRE(sl_list_len(s->column_names) == 2);
    CHECK_INT(s->query->kind, SL_QUERY_SELECT);
    sl_stmt_free(s);

    s = parse1("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    REQUIRE(s);
    CHECK(!s->column_names);
    REQUIRE(s->query);
    CHECK_INT(s->query->kind, SL_QUERY_VALUES);
    CHECK_INT(s->query->pos, 14);
    REQUIRE(sl_list_len(s->query->rows) == 2);
    sl_list *row = sl_list_get(s->query->rows, 1);
    REQUIRE(sl_list_len(row) == 2);
    CHECK_STR(((sl_expr *)sl_list_get(row, 1))->text, "b");
    sl_stmt_free(s);

    const char *sql = "EXECUTE STATEMENT SET BEGIN\n  INSERT INTO a SELECT 1;\n  INSERT INTO b "
                      "SELECT 2;\nEND;";
    s = parse1(sql);
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_STATEMENT_SET);
    CHECK_INT(s->pos, 0);
    CHECK_INT(s->end, (int)strlen(sql) - 1);
    REQUIRE(sl_list_len(s->stmts) == 2);
    sl_stmt *i0 = sl_list_get(s->stmts, 0), *i1 = sl_list_get(s->stmts, 1);
    CHECK_INT(i0->kind, SL_STMT_INSERT);
    CHECK_INT(i0->pos, 30);
    CHECK_INT(i0->end, 52);
    CHECK_STR(i1->name, "b");
    CHECK_INT(i1->end, (int)(strstr(sql, "2;") - sql) + 1);
    sl_stmt_free(s);

    /* The trailing ';' before END is optional. */
    s = parse1("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b VALUES (2) END");
    REQUIRE(s);
    REQUIRE(sl_list_len(s->stmts) == 2);
    CHECK_INT(((sl_stmt *)sl_list_get(s->stmts, 1))->end, 76);
    sl_stmt_free(s);
}

/* ------------------------------------------------------------------ queries */
static void t_select_clauses(void)
{
    const char *sql = "SELECT DISTINCT a, b AS c, d e, t.*, * FROM t AS x WHERE a > 1 GROUP BY a, "
                      "b HAVING COUNT(*) > 1 ORDER BY a DESC NULLS LAST, b LIMIT 10 OFFSET 5";
    sl_stmt *s = parse1(sql);
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_QUERY);
    sl_query *q = s->query;
    CHECK_INT(q->kind, SL_QUERY_SELECT);
    CHECK(q->distinct);
    REQUIRE(sl_list_len(q->items) == 5);
    sl_select_item *i1 = sl_list_get(q->items, 1), *i2 = sl_list_get(q->items, 2),
                   *i3 = sl_list_get(q->items, 3), *i4 = sl_list_get(q->items, 4);
    CHECK_STR(i1->alias, "c");
    CHECK_INT(i1->alias_pos, 24);
    CHECK_STR(i2->alias, "e");
    CHECK_INT(i3->expr->kind, SL_EXPR_STAR);
    CHECK_STR(i3->expr->qualifier, "t");
    CHECK_INT(i3->expr->pos, 32);
    CHECK_INT(i4->expr->kind, SL_EXPR_STAR);
    CHECK(!i4->expr->qualifier);
    CHECK(!i4->alias);
    CHECK_INT(i4->alias_pos, -1);
    REQUIRE(q->from);
    CHECK_INT(q->from->kind, SL_FROM_TABLE);
    CHECK_STR(q->from->name, "t");
    CHECK_STR(q->from->alias, "x");
    CHECK_INT(q->from->alias_pos, 49);
    REQUIRE(q->where);
    CHECK_INT(q->where->op, SL_OP_GT);
    CHECK_INT(sl_list_len(q->group_by), 2);
    REQUIRE(q->having);
    sl_expr *cnt = q->having->left;
    CHECK_INT(cnt->kind, SL_EXPR_FUNC);
    CHECK_STR(cnt->text, "COUNT");
    CHECK_INT(cnt->ival, 1);
    CHECK(!cnt->args);
    REQUIRE(sl_list_len(q->order_by) == 2);
    sl_order_item *o0 = sl_list_get(q->order_by, 0), *o1 = sl_list_get(q->order_by, 1);
    CHECK(o0->desc);
    CHECK_INT(o0->nulls, 2);
    CHECK(!o1->desc);
    CHECK_INT(o1->nulls, 0);
    CHECK_STR(q->limit->text, "10");
    CHECK_STR(q->offset->text, "5");
    sl_stmt_free(s);
}

static void t_union_and_nesting(void)
{
    sl_stmt *s = parse1("SELECT a FROM t UNION ALL SELECT b FROM u UNION SELECT c FROM v LIMIT 3");
    REQUIRE(s);
    sl_query *q = s->query;
    CHECK_INT(q->kind, SL_QUERY_UNION);
    CHECK(!q->all);
    CHECK_STR(q->limit->text, "3");
    REQUIRE(q->left);
    CHECK_INT(q->left->kind, SL_QUERY_UNION); /* left-associative */
    CHECK(q->left->all);
    CHECK_INT(q->left->pos, 0);
    CHECK_INT(q->right->kind, SL_QUERY_SELECT);
    sl_stmt_free(s);

    s = parse1("(SELECT a FROM t LIMIT 1) UNION (SELECT b FROM u UNION ALL SELECT c FROM v)");
    REQUIRE(s);
    q = s->query;
    CHECK_INT(q->kind, SL_QUERY_UNION);
    CHECK_STR(q->left->limit->text, "1");
    CHECK_INT(q->right->kind, SL_QUERY_UNION);
    CHECK_INT(s->pos, 0);
    sl_stmt_free(s);

    /* A parenthesized query is no node: ORDER BY attaches to it. */
    s = parse1("((SELECT 1)) ORDER BY 1");
    REQUIRE(s);
    CHECK_INT(s->query->kind, SL_QUERY_SELECT);
    CHECK_INT(sl_list_len(s->query->order_by), 1);
    sl_stmt_free(s);
}

static void t_from_and_joins(void)
{
    sl_stmt *s = parse1("SELECT * FROM a, b JOIN c ON b.x = c.x LEFT OUTER JOIN d ON TRUE");
    REQUIRE(s);
    sl_from *f = s->query->from;
    /* comma binds loosest: a CROSS ((b JOIN c) LEFT JOIN d) */
    CHECK_INT(f->kind, SL_FROM_JOIN);
    CHECK_INT(f->join_type, SL_JOIN_CROSS);
    CHECK(!f->on);
    CHECK_STR(f->left->name, "a");
    REQUIRE(f->right && f->right->kind == SL_FROM_JOIN);
    CHECK_INT(f->right->join_type, SL_JOIN_LEFT);
    CHECK_INT(f->right->left->join_type, SL_JOIN_INNER);
    CHECK_INT(f->right->left->on->kind, SL_EXPR_BINARY);
    CHECK_STR(f->right->left->on->left->qualifier, "b");
    CHECK_INT(f->right->pos, 17);
    sl_stmt_free(s);

    static const struct { const char *kw; int type; } joins[] = {
        {"JOIN", SL_JOIN_INNER}, {"INNER JOIN", SL_JOIN_INNER}, {"LEFT JOIN", SL_JOIN_LEFT},
        {"LEFT OUTER JOIN", SL_JOIN_LEFT}, {"RIGHT JOIN", SL_JOIN_RIGHT},
        {"RIGHT OUTER JOIN", SL_JOIN_RIGHT}, {"FULL JOIN", SL_JOIN_FULL},
        {"FULL OUTER JOIN", SL_JOIN_FULL},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(joins); i++) {
        char sql[128];
        snprintf(sql, sizeof(sql), "SELECT * FROM a x %s b y ON x.k = y.k", joins[i].kw);
        s = parse1(sql);
        REQUIRE(s);
        CHECK_INT(s->query->from->join_type, joins[i].type);
        CHECK_STR(s->query->from->left->alias, "x");
        CHECK_STR(s->query->from->right->alias, "y");
        sl_stmt_free(s);
    }

    s = parse1("SELECT * FROM (SELECT 1 AS one) AS s CROSS JOIN t");
    REQUIRE(s);
    f = s->query->from;
    CHECK_INT(f->join_type, SL_JOIN_CROSS);
    CHECK_INT(f->left->kind, SL_FROM_SUBQUERY);
    CHECK_STR(f->left->alias, "s");
    CHECK_INT(f->left->pos, 14);
    REQUIRE(f->left->subquery);
    CHECK_INT(f->left->subquery->pos, 15);
    sl_stmt_free(s);
}

static void t_window_tvf(void)
{
    const char *sql = "SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' "
                      "MINUTES)) AS w";
    sl_stmt *s = parse1(sql);
    REQUIRE(s);
    sl_from *f = s->query->from;
    CHECK_INT(f->kind, SL_FROM_WINDOW);
    CHECK_INT(f->pos, 14);
    CHECK_INT(f->window_fn, SL_WIN_TUMBLE);
    REQUIRE(f->input);
    CHECK_INT(f->input->kind, SL_FROM_TABLE);
    CHECK_STR(f->input->name, "Bid");
    CHECK_INT(f->input->pos, 33);
    CHECK_STR(f->time_col, "bidtime");
    CHECK_INT(f->time_col_pos, 49);
    REQUIRE(sl_list_len(f->args) == 1);
    sl_expr *size = sl_list_get(f->args, 0);
    CHECK_INT(size->kind, SL_EXPR_INTERVAL);
    CHECK_STR(size->text, "10");
    CHECK_INT(size->unit, SL_UNIT_MINUTE);
    CHECK_INT(size->unit_to, SL_UNIT_NONE);
    CHECK_INT(size->unit_precision, -1);
    CHECK_STR(f->alias, "w");
    sl_stmt_free(s);

    /* Named arguments in any order normalize to the positional order. */
    const char *named[] = {
        "SELECT * FROM TABLE(HOP(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL "
        "'1' MINUTE, SIZE => INTERVAL '5' MINUTE))",
        "SELECT * FROM TABLE(HOP(SIZE => INTERVAL '5' MINUTE, timecol => DESCRIPTOR(ts), slide "
        "=> INTERVAL '1' MINUTE, data => TABLE t))",
        "SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), SIZE => INTERVAL '5' MINUTE, SLIDE => "
        "INTERVAL '1' MINUTE))",
        "SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' "
        "MINUTE))",
    };
    sl_stmt *first = NULL;
    for (size_t i = 0; i < SL_ARRAY_LEN(named); i++) {
        s = parse1(named[i]);
        REQUIRE(s);
        f = s->query->from;
        CHECK_INT(f->window_fn, SL_WIN_HOP);
        CHECK_STR(f->input->name, "t");
        CHECK_STR(f->time_col, "ts");
        REQUIRE(sl_list_len(f->args) == 2);
        CHECK_STR(((sl_expr *)sl_list_get(f->args, 0))->text, "1");
        CHECK_STR(((sl_expr *)sl_list_get(f->args, 1))->text, "5");
        if (!first)
            first = s;
        else {
            CHECK(sl_stmt_equal(first, s));
            sl_stmt_free(s);
        }
    }
    sl_stmt_free(first);

    s = parse1("SELECT * FROM TABLE(CUMULATE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), STEP => "
               "INTERVAL '1' HOUR, SIZE => INTERVAL '1' DAY, OFFSET => INTERVAL '8' HOURS))");
    REQUIRE(s);
    f = s->query->from;
    CHECK_INT(f->window_fn, SL_WIN_CUMULATE);
    REQUIRE(sl_list_len(f->args) == 3);
    CHECK_INT(((sl_expr *)sl_list_get(f->args, 2))->unit, SL_UNIT_HOUR);
    sl_stmt_free(s);

    /* Unknown / duplicated names: 42601 at the name. */
    const char *bad = "SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), "
                      "WIDTH => INTERVAL '1' MINUTE))";
    sl_error err = parse_err(bad);
    CHECK_STR(err.sqlstate, SL_ERR_SYNTAX);
    CHECK_INT(err.position, (int)(strstr(bad, "WIDTH") - bad));
    CHECK(err.hint && strstr(err.hint, "SIZE"));
    sl_error_reset(&err);
    bad = "SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, DATA => TABLE u, TIMECOL => "
          "DESCRIPTOR(ts), SIZE => INTERVAL '1' MINUTE))";
    err = parse_err(bad);
    CHECK_STR(err.sqlstate, SL_ERR_SYNTAX);
    CHECK_INT(err.position, 44);
    sl_error_reset(&err);
    bad = "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts)))";
    err = parse_err(bad);
    CHECK(strstr(err.message, "SIZE"));
    CHECK_INT(err.position, 20);
    sl_error_reset(&err);
    bad = "SELECT * FROM TABLE(TUMBLE(DESCRIPTOR(ts), TABLE t, INTERVAL '1' MINUTE))";
    err = parse_err(bad);
    CHECK_INT(err.position, 27);
    sl_error_reset(&err);
    bad = "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL "
          "'1' MINUTE, INTERVAL '1' MINUTE))";
    err = parse_err(bad);
    CHECK(strstr(err.message, "too many"));
    sl_error_reset(&err);
}

/* ------------------------------------------------------------------ expressions */
static sl_expr *item_expr(sl_stmt *s, int i)
{
    return ((sl_select_item *)sl_list_get(s->query->items, i))->expr;
}

/* The printed (fully parenthesized where it matters) form of the first select item. */
static void check_shape(const char *expr_sql, const char *want)
{
    char sql[512];
    snprintf(sql, sizeof(sql), "SELECT %s", expr_sql);
    sl_stmt *s = parse1(sql);
    REQUIRE(s);
    char *got = print_expr(item_expr(s, 0));
    CHECK_STR(got, want);
    sl_free(got);
    sl_stmt_free(s);
}

static void t_precedence(void)
{
    sl_stmt *s = parse1("SELECT 1 + 2 * 3, (1 + 2) * 3, a OR b AND c, NOT a = b, - -5, 1 - 2 - 3");
    REQUIRE(s);
    sl_expr *e = item_expr(s, 0);
    CHECK_INT(e->op, SL_OP_ADD);
    CHECK_INT(e->right->op, SL_OP_MUL);
    CHECK_INT(e->op_pos, 9);
    CHECK_INT(e->pos, 7);
    e = item_expr(s, 1);
    CHECK_INT(e->op, SL_OP_MUL);
    CHECK_INT(e->left->op, SL_OP_ADD);
    e = item_expr(s, 2);
    CHECK_INT(e->op, SL_OP_OR);
    CHECK_INT(e->right->op, SL_OP_AND);
    e = item_expr(s, 3);
    CHECK_INT(e->kind, SL_EXPR_UNARY);
    CHECK_INT(e->op, SL_OP_NOT);
    CHECK_INT(e->left->op, SL_OP_EQ);
    e = item_expr(s, 4);
    CHECK_INT(e->kind, SL_EXPR_UNARY);
    CHECK_INT(e->op, SL_OP_NEG);
    CHECK_INT(e->left->kind, SL_EXPR_UNARY);
    CHECK_INT(e->left->left->kind, SL_EXPR_NUMBER);
    CHECK_STR(e->left->left->text, "5");
    e = item_expr(s, 5);
    CHECK_INT(e->op, SL_OP_SUB);
    CHECK_INT(e->left->op, SL_OP_SUB); /* left-associative */
    CHECK_STR(e->right->text, "3");
    sl_stmt_free(s);

    /* BETWEEN binds tighter than AND; comparison tighter than NOT; || with + */
    s = parse1("SELECT a BETWEEN 1 AND 2 AND b, a = 1 IS NULL, x LIKE 'a' || 'b', -a * b");
    REQUIRE(s);
    e = item_expr(s, 0);
    CHECK_INT(e->kind, SL_EXPR_BINARY);
    CHECK_INT(e->op, SL_OP_AND);
    CHECK_INT(e->left->kind, SL_EXPR_BETWEEN);
    CHECK_INT(sl_list_len(e->left->args), 2);
    e = item_expr(s, 1);
    CHECK_INT(e->kind, SL_EXPR_IS); /* %left: (a = 1) IS NULL */
    CHECK_INT(e->left->op, SL_OP_EQ);
    e = item_expr(s, 2);
    CHECK_INT(e->kind, SL_EXPR_LIKE);
    CHECK_INT(e->right->op, SL_OP_CONCAT);
    e = item_expr(s, 3);
    CHECK_INT(e->op, SL_OP_MUL);
    CHECK_INT(e->left->op, SL_OP_NEG);
    sl_stmt_free(s);

    check_shape("a + b * c", "a + b * c");
    check_shape("(a + b) * c", "(a + b) * c");
}

static void t_expr_forms(void)
{
    sl_stmt *s = parse1("SELECT a IS NOT NULL, b NOT BETWEEN 1 AND 2, c NOT IN (1, 2), d NOT LIKE "
                        "'x%' ESCAPE '!', CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END, "
                        "CASE WHEN y THEN 1 END, TRY_CAST(z AS INT), f(DISTINCT a, b), "
                        "t.c, `a``b`, SUBSTRING(s FROM 2 FOR 3), CURRENT_TIMESTAMP, 'it''s'");
    REQUIRE(s);
    sl_expr *e = item_expr(s, 0);
    CHECK_INT(e->kind, SL_EXPR_IS);
    CHECK_INT(e->op, SL_IS_NULL);
    CHECK(e->negated);
    CHECK_INT(e->op_pos, 9);
    e = item_expr(s, 1);
    CHECK_INT(e->kind, SL_EXPR_BETWEEN);
    CHECK(e->negated);
    e = item_expr(s, 2);
    CHECK_INT(e->kind, SL_EXPR_IN);
    CHECK(e->negated);
    CHECK_INT(sl_list_len(e->args), 2);
    e = item_expr(s, 3);
    CHECK_INT(e->kind, SL_EXPR_LIKE);
    CHECK(e->negated);
    CHECK_STR(e->right->text, "x%");
    REQUIRE(sl_list_len(e->args) == 1);
    CHECK_STR(((sl_expr *)sl_list_get(e->args, 0))->text, "!");
    e = item_expr(s, 4);
    CHECK_INT(e->kind, SL_EXPR_CASE);
    REQUIRE(e->left);
    CHECK_STR(e->left->text, "x");
    CHECK_INT(sl_list_len(e->args), 4);
    CHECK_STR(e->right->text, "c");
    e = item_expr(s, 5);
    CHECK(!e->left);
    CHECK(!e->right);
    CHECK_INT(sl_list_len(e->args), 2);
    e = item_expr(s, 6);
    CHECK_INT(e->kind, SL_EXPR_CAST);
    CHECK_INT(e->ival, 1);
    CHECK_INT(e->type.id, SL_TYPE_INT);
    e = item_expr(s, 7);
    CHECK_INT(e->kind, SL_EXPR_FUNC);
    CHECK(e->distinct);
    CHECK_INT(sl_list_len(e->args), 2);
    e = item_expr(s, 8);
    CHECK_INT(e->kind, SL_EXPR_COLUMN);
    CHECK_STR(e->qualifier, "t");
    CHECK_STR(e->text, "c");
    e = item_expr(s, 9);
    CHECK_STR(e->text, "a`b");
    CHECK(!e->qualifier);
    e = item_expr(s, 10);
    CHECK_INT(e->kind, SL_EXPR_FUNC);
    CHECK(sl_strcasecmp(e->text, "SUBSTRING") == 0);
    CHECK_INT(sl_list_len(e->args), 3);
    e = item_expr(s, 11);
    CHECK_INT(e->kind, SL_EXPR_FUNC);
    CHECK_STR(e->text, "CURRENT_TIMESTAMP");
    CHECK(!e->args);
    e = item_expr(s, 12);
    CHECK_INT(e->kind, SL_EXPR_STRING);
    CHECK_STR(e->text, "it's");
    sl_stmt_free(s);

    s = parse1("SELECT ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY c DESC), LEFT(s, 1), IF(a, b, "
               "c), RIGHT(s, 2)");
    REQUIRE(s);
    e = item_expr(s, 0);
    CHECK_STR(e->text, "ROW_NUMBER");
    REQUIRE(e->over);
    CHECK_INT(sl_list_len(e->over->partition_by), 2);
    REQUIRE(sl_list_len(e->over->order_by) == 1);
    CHECK(((sl_order_item *)sl_list_get(e->over->order_by, 0))->desc);
    CHECK_STR(item_expr(s, 1)->text, "LEFT");
    CHECK_STR(item_expr(s, 2)->text, "IF");
    CHECK_STR(item_expr(s, 3)->text, "RIGHT");
    sl_stmt_free(s);
}

static void t_literals(void)
{
    sl_stmt *s = parse1("SELECT 12, 1.50, 1e3, 2.5E-2, .5, TRUE, FALSE, NULL, DATE '2024-01-01', "
                        "TIMESTAMP '2024-01-01 00:00:00', INTERVAL '1.5' SECOND(3), INTERVAL "
                        "'1 02:00:00' DAY TO SECOND, INTERVAL '1-2' YEAR TO MONTH, INTERVAL '3' "
                        "HOURS, TIME '10:00:00'");
    REQUIRE(s);
    const char *nums[] = {"12", "1.50", "1e3", "2.5E-2", ".5"};
    for (int i = 0; i < 5; i++) {
        CHECK_INT(item_expr(s, i)->kind, SL_EXPR_NUMBER);
        CHECK_STR(item_expr(s, i)->text, nums[i]);
    }
    CHECK_INT(item_expr(s, 5)->kind, SL_EXPR_BOOL);
    CHECK_INT(item_expr(s, 5)->ival, 1);
    CHECK_INT(item_expr(s, 6)->ival, 0);
    CHECK_INT(item_expr(s, 7)->kind, SL_EXPR_NULL);
    sl_expr *e = item_expr(s, 8);
    CHECK_INT(e->kind, SL_EXPR_TYPED);
    CHECK_INT(e->type.id, SL_TYPE_DATE);
    CHECK_INT(e->type.precision, 0);
    CHECK_STR(e->text, "2024-01-01");
    CHECK_INT(item_expr(s, 9)->type.id, SL_TYPE_TIMESTAMP);
    e = item_expr(s, 10);
    CHECK_INT(e->kind, SL_EXPR_INTERVAL);
    CHECK_INT(e->unit, SL_UNIT_SECOND);
    CHECK_INT(e->unit_precision, 3);
    e = item_expr(s, 11);
    CHECK_INT(e->unit, SL_UNIT_DAY);
    CHECK_INT(e->unit_to, SL_UNIT_SECOND);
    CHECK_INT(e->unit_precision, -1);
    e = item_expr(s, 12);
    CHECK_INT(e->unit, SL_UNIT_YEAR);
    CHECK_INT(e->unit_to, SL_UNIT_MONTH);
    CHECK_INT(item_expr(s, 13)->unit, SL_UNIT_HOUR);
    CHECK_INT(item_expr(s, 14)->type.id, SL_TYPE_TIME);
    sl_stmt_free(s);

    const char *bad[] = {"SELECT INTERVAL '1' SECOND TO DAY", "SELECT INTERVAL '1' MONTH TO DAY",
                         "SELECT INTERVAL '1' DAY(3)"};
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        sl_error err = parse_err(bad[i]);
        CHECK_STR(err.sqlstate, SL_ERR_SYNTAX);
        CHECK_INT(err.position, 7);
        sl_error_reset(&err);
    }
}

static void t_nonreserved_names(void)
{
    sl_stmt *s = parse1("CREATE TABLE t (data STRING, key INT, ts TIMESTAMP(3), `timestamp` "
                        "TIMESTAMP, date DATE, comment STRING, size INT, job STRING, string "
                        "STRING, bytes BYTES, year INT, if INT, left_x INT)");
    REQUIRE(s);
    REQUIRE(sl_list_len(s->columns) == 13);
    CHECK_STR(((sl_column_def *)sl_list_get(s->columns, 4))->name, "date");
    CHECK_STR(((sl_column_def *)sl_list_get(s->columns, 11))->name, "if");
    sl_stmt_free(s);
    s = parse1("SELECT data, key, watermark, tumble, hop, job, jobs, tables, nulls, first, last, "
               "plan, temporary, savepoint, stop FROM data AS job WHERE key = 1");
    REQUIRE(s);
    CHECK_STR(item_expr(s, 2)->text, "watermark");
    CHECK_STR(s->query->from->name, "data");
    CHECK_STR(s->query->from->alias, "job");
    sl_stmt_free(s);
    /* The function DDL's and type spellings' keywords, as names and aliases. */
    s = parse1("SELECT function, functions, language, jar, system, using, varying, character "
               "FROM function AS language");
    REQUIRE(s);
    CHECK_STR(item_expr(s, 7)->text, "character");
    CHECK_STR(s->query->from->name, "function");
    CHECK_STR(s->query->from->alias, "language");
    sl_stmt_free(s);
    /* Identifiers keep their case; keywords do not care. */
    s = parse1("select MyCol from MyTable");
    REQUIRE(s);
    CHECK_STR(item_expr(s, 0)->text, "MyCol");
    CHECK_STR(s->query->from->name, "MyTable");
    sl_stmt_free(s);
}

/* ------------------------------------------------------------------ utility statements */
static void t_utility(void)
{
    sl_stmt *s = parse1("SET 'sink.guarantee-fallback' = 'downgrade'");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_SET);
    CHECK_STR(s->name, "sink.guarantee-fallback");
    CHECK_INT(s->name_pos, 4);
    REQUIRE(s->options && s->options->n == 1);
    CHECK_STR(s->options->items[0].key, "sink.guarantee-fallback");
    CHECK_STR(s->options->items[0].value, "downgrade");
    CHECK_INT(s->options->items[0].value_pos, 32);
    CHECK_INT(s->options_pos, 0);
    sl_stmt_free(s);

    s = parse1("SET");
    REQUIRE(s);
    CHECK(!s->name && !s->options);
    sl_stmt_free(s);
    s = parse1("RESET 'a'");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_RESET);
    CHECK_STR(s->name, "a");
    sl_stmt_free(s);
    s = parse1("RESET;");
    REQUIRE(s);
    CHECK(!s->name);
    CHECK_INT(s->end, 5);
    sl_stmt_free(s);
    /* A PostgreSQL parameter's prefix.name: one name, unquoted, no spaces. */
    s = parse1("SET LOCAL sluice.result_format TO engine");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_PG_SET);
    CHECK_STR(s->name, "sluice.result_format");
    CHECK_INT(s->name_pos, 10);
    CHECK(s->local);
    sl_stmt_free(s);
    s = parse1("SHOW sluice.result_format");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_PG_SHOW);
    CHECK_STR(s->name, "sluice.result_format");
    sl_stmt_free(s);
    s = parse1("RESET Sluice.Result_Format");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_PG_RESET);
    CHECK_STR(s->name, "Sluice.Result_Format");
    sl_stmt_free(s);
    static const char *const dotted_bad[] = {"SET sluice . result_format = engine",
                                             "SHOW \"sluice\".result_format",
                                             "RESET sluice.`result_format`"};
    for (size_t i = 0; i < SL_ARRAY_LEN(dotted_bad); i++) {
        sl_error e = parse_err(dotted_bad[i]);
        CHECK_STR(e.sqlstate, SL_ERR_SYNTAX);
        CHECK(e.position > 0 && e.hint && strstr(e.hint, "prefix.name"));
        sl_error_reset(&e);
    }

    static const struct { const char *sql; int show; const char *name; } shows[] = {
        {"SHOW TABLES", SL_SHOW_TABLES, NULL}, {"show views", SL_SHOW_VIEWS, NULL},
        {"SHOW JOBS", SL_SHOW_JOBS, NULL}, {"SHOW CONNECTORS", SL_SHOW_CONNECTORS, NULL},
        {"SHOW CREATE TABLE t", SL_SHOW_CREATE_TABLE, "t"},
        {"SHOW CREATE VIEW `v`", SL_SHOW_CREATE_VIEW, "v"},
        {"SHOW FUNCTIONS", SL_SHOW_FUNCTIONS, NULL},
        {"show user functions", SL_SHOW_USER_FUNCTIONS, NULL},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(shows); i++) {
        s = parse1(shows[i].sql);
        REQUIRE(s);
        CHECK_INT(s->kind, SL_STMT_SHOW);
        CHECK_INT(s->show, shows[i].show);
        if (shows[i].name)
            CHECK_STR(s->name, shows[i].name);
        else
            CHECK(!s->name);
        sl_stmt_free(s);
    }
    s = parse1("DESC t");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_DESCRIBE);
    CHECK_STR(s->name, "t");
    sl_stmt_free(s);

    s = parse1("EXPLAIN PLAN FOR INSERT INTO t SELECT 1");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_EXPLAIN);
    REQUIRE(s->inner);
    CHECK_INT(s->inner->kind, SL_STMT_INSERT);
    CHECK_INT(s->inner->pos, 17);
    CHECK_INT(s->inner->end, 39);
    sl_stmt_free(s);

    s = parse1("RECONCILE ledger AGAINST clicks ON event_id, day COMPARE amount "
               "WHERE amount > 1 FOR JOB 'billing' REPAIR");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_RECONCILE);
    CHECK_STR(s->name, "ledger");
    CHECK_STR(s->source->name, "clicks");
    CHECK_INT(s->source->pos, 25);
    CHECK_INT(sl_list_len(s->keys), 2);
    CHECK_STR(((sl_ident *)sl_list_get(s->keys, 1))->name, "day");
    CHECK_INT(sl_list_len(s->compare), 1);
    CHECK(s->where != NULL);
    CHECK_STR(s->job, "billing");
    CHECK(s->repair);
    sl_stmt_free(s);

    s = parse1("STOP JOB 'a1b2' WITH SAVEPOINT");
    REQUIRE(s);
    CHECK_INT(s->kind, SL_STMT_STOP_JOB);
    CHECK_STR(s->name, "a1b2");
    CHECK(s->with_savepoint);
    sl_stmt_free(s);
}

static void t_multi_statements(void)
{
    const char *sql = "  SET 'a' = 'b';\n-- c\nSELECT 1 ;; /* x */ (SELECT 2) ; SHOW TABLES  ";
    sl_error err = SL_ERROR_INIT;
    sl_list *l = sl_list_new();
    REQUIRE(sl_parse(sql, strlen(sql), l, &err) == 0);
    REQUIRE(l->n == 4);
    sl_stmt *s0 = l->items[0], *s1 = l->items[1], *s2 = l->items[2], *s3 = l->items[3];
    CHECK_INT(s0->pos, 2);
    CHECK_INT(s0->end, 15);
    CHECK_INT(s1->pos, 22);
    CHECK_INT(s1->end, 30);
    CHECK_INT(s2->pos, 42);
    CHECK_INT(s2->end, 52);
    CHECK_INT(s3->pos, 55);
    CHECK_INT(s3->end, 66);
    sl_list_free(l, sl_stmt_free_v);

    /* Empty text: no statements, no error. */
    l = sl_list_new();
    CHECK(sl_parse("  -- only a comment\n /* and this */ ", 36, l, &err) == 0);
    CHECK_INT(l->n, 0);
    CHECK(sl_parse(";;", 2, l, &err) == 0);
    CHECK_INT(l->n, 0);
    sl_list_free(l, NULL);

    /* sl_parse_one refuses zero or several statements. */
    CHECK(!sl_parse_one("SELECT 1; SELECT 2", 18, &err));
    CHECK_STR(err.sqlstate, SL_ERR_SYNTAX);
    CHECK_INT(err.position, 10);
    sl_error_reset(&err);
    CHECK(!sl_parse_one(" ", 1, &err));
    CHECK_INT(err.position, 1);
    sl_error_reset(&err);
}

static void t_public_builders(void)
{
    sl_expr *a = sl_expr_literal(SL_EXPR_NUMBER, "12345", 2, 3);
    CHECK_STR(a->text, "12");
    CHECK_INT(a->pos, 3);
    sl_expr *b = sl_expr_column(NULL, sl_strdup("x"), 8);
    sl_expr *e = sl_expr_binary(SL_OP_ADD, a, b, 6);
    CHECK_INT(e->pos, 3);
    CHECK_INT(e->op_pos, 6);
    sl_expr *n = sl_expr_unary(SL_OP_NEG, e, 1);
    CHECK_INT(n->pos, 1);
    sl_list *args = sl_list_new();
    sl_list_push(args, n);
    sl_expr *f = sl_expr_func(sl_strdup("abs"), args, false, 0);
    char *txt = print_expr(f);
    CHECK_STR(txt, "abs(-(12 + x))");
    sl_free(txt);
    sl_expr_free(f);
    /* NULL children are accepted */
    sl_expr_free(sl_expr_binary(SL_OP_SUB, NULL, NULL, 4));
    sl_expr_free(sl_expr_unary(SL_OP_NOT, NULL, 4));
}

SL_TESTS(t_roundtrip_all, t_create_table, t_types, t_function_ddl, t_ddl_misc, t_insert_and_sets,
         t_select_clauses, t_union_and_nesting, t_from_and_joins, t_window_tvf, t_precedence,
         t_expr_forms, t_literals, t_nonreserved_names, t_utility, t_multi_statements,
         t_public_builders)

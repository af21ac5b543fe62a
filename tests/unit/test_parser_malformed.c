/*
** test_parser_malformed.c — malformed SQL must fail cleanly: -1, a SQLSTATE,
** a position within [0, len], a non-empty message, nothing returned, nothing
** leaked (LSan). Exact positions are checked for most inputs. Also: garbage
** and NUL bytes, every byte value, deep nesting, and every prefix of valid
** statements (which must parse or fail cleanly, never crash).
*/
#include "sl_parser.h"
#include "sl_test.h"

typedef struct bad {
    const char *sql;
    int pos;           /* expected position; -2 = do not check */
    const char *state; /* expected SQLSTATE; NULL = 42601 */
    const char *msg;   /* substring of the message, or NULL */
} bad;

#define END -1 /* position = len (end of input) */

static const bad corpus[] = {
    {"SELECT", END, NULL, "at end of input"},
    {"SELECT FROM t", 7, NULL, "syntax error at or near \"FROM\""},
    {"SELECT 1 FROM", END, NULL, "end of input"},
    {"SELEC 1", 0, NULL, "\"SELEC\""},
    {"CREATE TABLE t (a INT", END, NULL, NULL},
    {"CREATE TABLE t (a INT,)", 22, NULL, NULL},
    {"CREATE TABLE t ()", 16, NULL, NULL},
    {"CREATE TABLE t (a FOO)", 18, "42704", "type \"FOO\" does not exist"},
    {"CREATE TABLE t (a INT) WITH ('a')", 32, NULL, NULL},
    {"CREATE TABLE t (a INT) WITH ('a' = 1)", 35, NULL, NULL},
    {"CREATE TABLE t (a INT) WITH ('a' = 'b',)", 39, NULL, NULL},
    {"CREATE TABLE t (a INT) WITH ()", 29, NULL, NULL},
    {"CREATE TABLE t (a INT PRIMARY KEY)", 22, SL_ERR_NOT_SUPPORTED, "NOT ENFORCED"},
    {"CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, b INT PRIMARY KEY NOT ENFORCED)", 54,
     SL_ERR_INVALID_TABLE_DEF, "primary key"},
    {"CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)", 53,
     SL_ERR_INVALID_TABLE_DEF, NULL},
    {"CREATE TABLE t (a INT, WATERMARK FOR a AS a, WATERMARK FOR a AS a)", 45,
     SL_ERR_NOT_SUPPORTED, "WATERMARK"},
    {"CREATE TABLE t (a INT, WATERMARK FOR a)", 38, NULL, NULL},
    {"CREATE TEMPORARY TEMPORARY TABLE t (a INT)", 17, NULL, NULL},
    {"CREATE VIEW v SELECT 1", 14, NULL, NULL},
    {"CREATE VIEW v AS", END, NULL, NULL},
    {"SELECT \"\" FROM t", 7, NULL, "zero-length delimited identifier"},
    {"SELECT \"unterminated", 7, NULL, "unterminated quoted identifier"},
    {"SELECT 'abc", 7, NULL, "unterminated quoted string"},
    {"SELECT 'it''", 7, NULL, "unterminated quoted string"},
    {"SELECT `abc", 7, NULL, "unterminated quoted identifier"},
    {"SELECT 1 /* abc", 9, NULL, "unterminated /* comment"},
    {"SELECT 12abc", 7, NULL, "trailing junk"},
    {"SELECT 1.2.3", 7, NULL, "trailing junk"},
    {"SELECT ``", 7, NULL, "zero-length"},
    {"SELECT a FROM t WHERE", END, NULL, NULL},
    {"SELECT a FROM t GROUP a", 22, NULL, NULL},
    {"SELECT (1", END, NULL, NULL},
    {"SELECT 1)", 8, NULL, "\")\""},
    {"SELECT a b c", 11, NULL, NULL},
    {"SELECT * FROM", END, NULL, NULL},
    {"SELECT * FROM t JOIN u", END, NULL, NULL},
    {"SELECT * FROM t LEFT u", 21, NULL, NULL},
    {"SELECT * FROM t AS", END, NULL, NULL},
    {"SELECT 1 UNION", END, NULL, NULL},
    {"SELECT 1 ORDER BY", END, NULL, NULL},
    {"SELECT 1 LIMIT", END, NULL, NULL},
    {"(SELECT 1 LIMIT 1) LIMIT 2", 25, SL_ERR_NOT_SUPPORTED, NULL},
    {"SELECT 1 SELECT 2", 9, NULL, NULL},
    {"SELECT 1; SELECT", END, NULL, NULL},
    {"INSERT t SELECT 1", 7, NULL, NULL},
    {"INSERT INTO t", END, NULL, NULL},
    {"INSERT INTO t ()", 15, NULL, NULL},
    {"DROP t", 5, NULL, NULL},
    {"DROP TABLE", END, NULL, NULL},
    {"ALTER TABLE t SET ()", 19, NULL, NULL},
    {"ALTER TABLE t RESET ('a' = 'b')", 25, NULL, NULL},
    {"SET a = b c", 10, NULL, NULL}, /* SET a = b is PostgreSQL's SET */
    {"SET a =", END, NULL, NULL},
    {"SET TRANSACTION ISOLATION", 16, NULL, "ISOLATION"},
    {"BEGIN READ", 6, NULL, "READ"},
    {"ROLLBACK TO", END, NULL, NULL},
    {"DISCARD EVERYTHING", 8, NULL, "EVERYTHING"},
    {"SHOW TRANSACTION ISOLATION", END, NULL, NULL},
    {"SET 'a' =", END, NULL, NULL},
    {"RESET a b", 8, NULL, NULL},
    {"SHOW", END, NULL, NULL},
    {"SHOW TABLE", 5, NULL, NULL},
    {"STOP JOB abc", 9, NULL, NULL},
    {"DESCRIBE", END, NULL, NULL},
    {"EXPLAIN", END, NULL, NULL},
    {"EXPLAIN SHOW TABLES", 8, SL_ERR_NOT_SUPPORTED, NULL},
    {"EXPLAIN EXPLAIN SELECT 1", 8, SL_ERR_NOT_SUPPORTED, NULL},
    {"EXECUTE STATEMENT SET BEGIN END", 0, NULL, "at least one"},
    {"EXECUTE STATEMENT SET BEGIN SELECT 1; END", 28, NULL, NULL},
    {"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;", END, NULL, NULL},
    {"EXECUTE STATEMENT SET INSERT INTO a SELECT 1", 22, NULL, NULL},
    {"SELECT CAST(a AS)", 16, NULL, NULL},
    {"SELECT CAST(a AS FOO)", 17, "42704", "type \"FOO\" does not exist"},
    {"SELECT CAST(a AS DECIMAL(50))", 17, "", NULL},
    {"SELECT CAST(a AS VARCHAR(-1))", 25, NULL, NULL},
    {"SELECT CAST(a AS VARCHAR(1.5))", 25, NULL, NULL},
    {"SELECT CASE END", 12, NULL, NULL},
    {"SELECT CASE WHEN 1 END", 19, NULL, NULL},
    {"SELECT a BETWEEN 1", END, NULL, NULL},
    {"SELECT a NOT", END, NULL, NULL},
    {"SELECT a IS", END, NULL, NULL},
    {"SELECT a IS 5", 12, NULL, NULL},
    {"SELECT a IN ()", 13, NULL, NULL},
    {"SELECT a LIKE", END, NULL, NULL},
    {"SELECT f(", END, NULL, NULL},
    {"SELECT f(,)", 9, NULL, NULL},
    {"SELECT f(DISTINCT)", 17, NULL, NULL},
    {"SELECT ROW_NUMBER() OVER", END, NULL, NULL},
    {"SELECT ROW_NUMBER() OVER (PARTITION a)", 36, NULL, NULL},
    {"SELECT COUNT(*) FILTER", END, NULL, NULL},
    {"SELECT COUNT(*) FILTER (a > 1)", 24, NULL, NULL},
    {"SELECT COUNT(*) FILTER (WHERE)", 29, NULL, NULL},
    {"SELECT INTERVAL '1'", END, NULL, NULL},
    {"SELECT INTERVAL 1 DAY", 16, NULL, NULL},
    {"SELECT INTERVAL '1' WEEK", 20, NULL, NULL},
    {"SELECT INTERVAL '1' DAY TO", END, NULL, NULL},
    {"SELECT DATE", END, NULL, NULL},
    {"SELECT SUBSTRING(s FROM)", 23, NULL, NULL},
    {"SELECT * FROM TABLE(TUMBLE(TABLE t))", 20, NULL, "TIMECOL"},
    {"SELECT * FROM TABLE(FOO(TABLE t))", 20, NULL, NULL},
    {"SELECT * FROM TABLE t", 20, NULL, NULL},
    {"SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), SIZE => INTERVAL '1' MINUTE, SIZE => "
     "INTERVAL '1' MINUTE))",
     81, NULL, "more than once"},
    {"SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))", 44,
     NULL, "positional"},
    {"SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), TABLE u))", 52, NULL, "SIZE"},
    {"SELECT ?", 7, NULL, NULL},
    {"SELECT a | b", 9, NULL, NULL},
    {"SELECT a ! b", 9, NULL, NULL},
    {"SELECT 'a' = = 'b'", 13, NULL, NULL},
    {"SELECT {}", 7, NULL, NULL},
    {"SELECT 1 -- comment only\n FROM", END, NULL, NULL},
    {"\x01\x02\x03", 0, NULL, "\\x01"},
    {"\xff\xfe", 0, SL_ERR_CHARACTER_NOT_IN_REPERTOIRE, "0xff"},
    {";;SELECT 1 2", 11, NULL, NULL},
    {"VALUES", END, NULL, NULL},
    {"VALUES ()", 8, NULL, NULL},
    {"SELECT 1 FROM t WHERE a = 1 HAVING", END, NULL, NULL},
};

static void check_bad(const char *sql, size_t len, int pos, const char *state, const char *msg)
{
    char *b = malloc(len ? len : 1); /* exactly len bytes: ASan catches over-reads */
    memcpy(b, sql, len);
    sl_error err = SL_ERROR_INIT;
    sl_list *l = sl_list_new();
    int rc = sl_parse(b, len, l, &err);
    if (rc != -1)
        fprintf(stderr, "accepted: %.*s\n", (int)len, sql);
    CHECK_INT(rc, -1);
    CHECK_INT(l->n, 0);
    CHECK_INT(strlen(err.sqlstate), 5);
    CHECK(err.message && err.message[0]);
    CHECK(err.position >= 0 && err.position <= (int)len);
    int want = pos == END ? (int)len : pos;
    if (pos != -2 && err.position != want)
        fprintf(stderr, "%.*s\n  -> %s at %d\n", (int)len, sql, err.message, err.position);
    if (pos != -2)
        CHECK_INT(err.position, want);
    if (state && state[0])
        CHECK_STR(err.sqlstate, state);
    else if (!state)
        CHECK_STR(err.sqlstate, SL_ERR_SYNTAX);
    if (msg && !(err.message && strstr(err.message, msg))) {
        fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", sql, err.message, msg);
        CHECK(0);
    }
    /* sl_parse_one agrees */
    sl_stmt *s = sl_parse_one(b, len, &err);
    CHECK(s == NULL);
    sl_list_free(l, sl_stmt_free_v);
    sl_error_reset(&err);
    free(b);
}

static void t_corpus(void)
{
    CHECK(SL_ARRAY_LEN(corpus) >= 60);
    for (size_t i = 0; i < SL_ARRAY_LEN(corpus); i++)
        check_bad(corpus[i].sql, strlen(corpus[i].sql), corpus[i].pos, corpus[i].state,
                  corpus[i].msg);
}

/* PostgreSQL's double-quoted identifiers are identifiers (case kept, ""
** escapes "); an unterminated one is an error at its quote. */
static void t_double_quote_identifier(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_list *l = sl_list_new();
    CHECK(sl_parse("SELECT \"Col\"\"x\" FROM t", 22, l, &err) == 0);
    REQUIRE(l->n == 1);
    const sl_stmt *st = l->items[0];
    const sl_select_item *it = sl_list_get(st->query->items, 0);
    CHECK_STR(it->expr->text, "Col\"x");
    sl_list_free(l, sl_stmt_free_v);
    l = sl_list_new();
    CHECK(sl_parse("SELECT \"col", 11, l, &err) == -1);
    CHECK_INT(err.position, 7);
    CHECK(strstr(err.message, "unterminated quoted identifier") != NULL);
    sl_error_reset(&err);
    /* no text at all */
    CHECK(sl_parse(NULL, 0, l, &err) == 0);
    CHECK_INT(l->n, 0);
    size_t n = 0;
    CHECK_INT(sl_sql_split(NULL, 0, &n), -1);
    sl_list_free(l, NULL);
}

static void t_nul_bytes(void)
{
    check_bad("SELECT \0 FROM t", 15, 7, NULL, "\\x00");
    check_bad("\0", 1, 0, NULL, NULL);
    check_bad("SELECT 'a\0b", 11, 7, NULL, "unterminated");
    check_bad("SELECT 1;\0", 10, 9, NULL, NULL);
    /* Names and values are C strings: a NUL inside quotes is refused at the NUL. */
    check_bad("SELECT 'a\0b'", 12, 9, NULL, "NUL");
    check_bad("SELECT `a\0b`", 12, 9, NULL, "NUL");
    check_bad("CREATE TABLE t (a INT) WITH ('k' = 'v\0')", 40, 37, NULL, "NUL");
}

/* Invalid UTF-8 anywhere in the text: 22021 at the first bad byte, whatever
** the token (comments, option values, quoted identifiers, literals). */
/* sql fails with 22021 at pos, the message naming the bytes in msg. */
static void bad8(const char *sql, int pos, const char *msg)
{
    check_bad(sql, strlen(sql), pos, SL_ERR_CHARACTER_NOT_IN_REPERTOIRE, msg);
}

static void t_bad_utf8(void)
{
    /* a comment: -- and block */
    bad8("CREATE TABLE t (a INT) -- caf\xc3\n WITH ('connector' = 'datagen')", 29,
              "invalid byte sequence for encoding \"UTF8\": 0xc3");
    bad8("SELECT 1 /* \xff */", 12, "0xff");
    /* an option value and an option key */
    bad8("CREATE TABLE t (a INT) WITH ('connector' = 'data\xe9gen')", 48, "0xe9");
    bad8("CREATE TABLE t (a INT) WITH ('conn\x80' = 'datagen')", 34, "0x80");
    /* a back-quoted identifier: an overlong sequence and a surrogate */
    bad8("CREATE TABLE `t\xc0\xaf` (a INT)", 15, "0xc0");
    bad8("SELECT `a\xed\xa0\x80` FROM t", 9, "0xed 0xa0 0x80");
    /* a string literal in a view, a truncated sequence at the very end */
    bad8("CREATE VIEW v AS SELECT 'caf\xc3' AS s", 28, "0xc3");
    bad8("SELECT 'x' || '\xf0\x9f\x98", 15, "0xf0 0x9f 0x98"); /* and unterminated */
    bad8("SELECT 1 -- \xf0\x9f\x98", 12, "0xf0 0x9f 0x98");
    /* a bare identifier, and after a number */
    bad8("SELECT ab\xfe FROM t", 9, "0xfe");
    bad8("SELECT 12\xff", 9, "0xff");
    /* past U+10FFFF */
    bad8("SELECT '\xf4\x90\x80\x80'", 8, "0xf4");
    /* Well-formed UTF-8 of every length is accepted everywhere. */
    const char *ok = "CREATE VIEW `vue_é` AS SELECT 'ü€\xf0\x9f\x98\x80名' AS `s€` -- ∑ comment\n"
                     "/* ok: \xf4\x8f\xbf\xbf */";
    sl_error err = SL_ERROR_INIT;
    sl_list *l = sl_list_new();
    CHECK_INT(sl_parse(ok, strlen(ok), l, &err), 0);
    CHECK_INT(l->n, 1);
    sl_list_free(l, sl_stmt_free_v);
    sl_error_reset(&err);
    /* The splitter still finds the statement's end, so a script reports it. */
    size_t n = 0;
    const char *two = "SELECT '\xff'; SELECT 2;";
    CHECK_INT(sl_sql_split(two, strlen(two), &n), 1);
    CHECK_INT(n, 11);
}

/* Every byte value after SELECT: parses or fails cleanly. */
static void t_every_byte(void)
{
    for (int c = 0; c < 256; c++) {
        char sql[16] = "SELECT 1 ";
        sql[9] = (char)c;
        char *b = malloc(10);
        memcpy(b, sql, 10);
        sl_error err = SL_ERROR_INIT;
        sl_list *l = sl_list_new();
        int rc = sl_parse(b, 10, l, &err);
        if (rc == -1) {
            CHECK(err.position >= 0 && err.position <= 10);
            CHECK(err.message != NULL);
        }
        sl_list_free(l, sl_stmt_free_v);
        sl_error_reset(&err);
        free(b);
    }
}

static char *repeat(const char *prefix, const char *unit, int n, const char *mid, const char *end,
                    int m)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, prefix);
    for (int i = 0; i < n; i++)
        sl_strbuf_append(&sb, unit);
    sl_strbuf_append(&sb, mid);
    for (int i = 0; i < m; i++)
        sl_strbuf_append(&sb, end);
    return sl_strbuf_detach(&sb);
}

static void expect_limit(char *sql)
{
    sl_error err = SL_ERROR_INIT;
    sl_list *l = sl_list_new();
    size_t len = strlen(sql);
    CHECK_INT(sl_parse(sql, len, l, &err), -1);
    CHECK_STR(err.sqlstate, SL_ERR_TOO_COMPLEX);
    CHECK(err.position >= 0 && err.position <= (int)len);
    sl_list_free(l, sl_stmt_free_v);
    sl_error_reset(&err);
    sl_free(sql);
}

static void expect_ok(char *sql)
{
    sl_error err = SL_ERROR_INIT;
    sl_stmt *s = sl_parse_one(sql, strlen(sql), &err);
    if (!s)
        fprintf(stderr, "%s at %d\n", err.message, err.position);
    CHECK(s != NULL);
    sl_stmt_free(s);
    sl_error_reset(&err);
    sl_free(sql);
}

static void t_deep_nesting(void)
{
    expect_limit(repeat("SELECT ", "(", 100000, "1", ")", 100000));
    expect_limit(repeat("SELECT ", "(", 5000, "1", ")", 0)); /* unbalanced, deep */
    expect_limit(repeat("SELECT 1", " + 1", 5000, "", "", 0));
    expect_limit(repeat("SELECT ", "NOT ", 5000, "TRUE", "", 0));
    expect_limit(repeat("SELECT ", "- ", 5000, "1", "", 0));
    expect_limit(repeat("SELECT ", "f(", 3000, "1", ")", 3000));
    expect_limit(repeat("SELECT * FROM ", "(SELECT * FROM ", 2000, "t", ")", 2000));
    expect_limit(repeat("SELECT 1", " UNION SELECT 1", 3000, "", "", 0));
    expect_limit(repeat("SELECT * FROM t", " JOIN t ON TRUE", 3000, "", "", 0));
    expect_limit(repeat("SELECT a", " IS NULL", 3000, "", "", 0));
    expect_limit(repeat("SELECT CASE WHEN TRUE THEN ", "CASE WHEN TRUE THEN ", 3000, "1", " END",
                        3001));
    /* Reasonable depth is fine. */
    expect_ok(repeat("SELECT ", "(", 200, "1", ")", 200));
    expect_ok(repeat("SELECT 1", " + 1", 500, "", "", 0));
    expect_ok(repeat("SELECT * FROM ", "(SELECT * FROM ", 100, "t", ")", 100));
    /* Long flat lists are not nesting. */
    expect_ok(repeat("SELECT 1", ", 1", 20000, "", "", 0));
    expect_ok(repeat("SELECT a IN (1", ", 1", 20000, ")", "", 0));
    expect_ok(repeat("VALUES (1)", ", (1)", 20000, "", "", 0));
}

/* Every prefix of valid statements parses or fails cleanly (no crash, no leak). */
static void t_truncations(void)
{
    static const char *const valid[] = {
        "CREATE TABLE IF NOT EXISTS t (data STRING, key INT NOT NULL PRIMARY KEY NOT ENFORCED "
        "COMMENT 'k', ts TIMESTAMP(3) WITH LOCAL TIME ZONE, WATERMARK FOR ts AS ts - INTERVAL '5' "
        "SECOND) COMMENT 'x' WITH ('connector' = 'datagen', 'a' = 'it''s');",
        "SELECT window_start, SUM(price) FROM TABLE(HOP(DATA => TABLE Bid, TIMECOL => "
        "DESCRIPTOR(bidtime), SLIDE => INTERVAL '5' MINUTES, SIZE => INTERVAL '10' MINUTES)) AS "
        "w GROUP BY window_start HAVING SUM(price) > 1 ORDER BY 1 DESC NULLS LAST LIMIT 3;",
        "EXECUTE STATEMENT SET BEGIN INSERT INTO a (x) SELECT CASE WHEN `b``c` IS NOT NULL THEN "
        "CAST(d AS DECIMAL(10, 2)) ELSE -1.5e3 END FROM t LEFT JOIN u ON t.k = u.k; INSERT INTO "
        "b VALUES (1, 'x'), (2, 'y') END;",
        "SELECT a FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM t) "
        "WHERE rn = 1 AND s NOT LIKE 'a%' ESCAPE '!' OR x NOT BETWEEN 1 AND 2 /* c */ -- d",
        "EXPLAIN PLAN FOR SELECT SUBSTRING(s FROM 1 FOR 2), CURRENT_TIMESTAMP, DATE '2020-01-01' "
        "UNION ALL SELECT 1, 2, 3; SET 'a' = 'b'; STOP JOB 'j' WITH SAVEPOINT; SHOW CREATE VIEW v",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(valid); i++) {
        size_t n = strlen(valid[i]);
        for (size_t k = 0; k <= n; k++) {
            char *b = malloc(k ? k : 1);
            memcpy(b, valid[i], k);
            sl_error err = SL_ERROR_INIT;
            sl_list *l = sl_list_new();
            int rc = sl_parse(b, k, l, &err);
            if (rc == 0) {
                CHECK(!sl_error_isset(&err));
            } else {
                CHECK_INT(rc, -1);
                CHECK_INT(l->n, 0);
                CHECK(err.position >= 0 && err.position <= (int)k);
                CHECK(err.message && err.message[0]);
            }
            if (k == n)
                CHECK_INT(rc, 0);
            sl_list_free(l, sl_stmt_free_v);
            sl_error_reset(&err);
            free(b);
        }
    }
}

/* The first error wins and a stale error from the caller does not stick. */
static void t_error_state(void)
{
    sl_error err = SL_ERROR_INIT;
    sl_error_set(&err, SL_ERR_INTERNAL, 3, "stale");
    sl_list *l = sl_list_new();
    CHECK_INT(sl_parse("SELECT 1", 8, l, &err), 0);
    CHECK(!sl_error_isset(&err));
    sl_list_free(l, sl_stmt_free_v);
    l = sl_list_new();
    /* two problems: the first one is reported */
    CHECK_INT(sl_parse("SELECT 'a' 'b', \"x\"", 19, l, &err), -1);
    CHECK_INT(err.position, 11);
    sl_list_free(l, sl_stmt_free_v);
    sl_error_reset(&err);
}

SL_TESTS(t_corpus, t_double_quote_identifier, t_nul_bytes, t_bad_utf8, t_every_byte, t_deep_nesting, t_truncations,
         t_error_state)

/*
** test_parser_print.c — the canonical printer (print.c).
**
** Part 1: exact output for hand-built trees (sl_ast_fixture.h): identifier
** and string quoting, operator parenthesization, unary minus, every
** expression, query and statement form, the CREATE TABLE layout and secret
** redaction.
** Part 2: round trips through the real parser over a large list of
** statements: parse -> print -> parse gives an equal AST, and printing is a
** fixpoint.
*/
#include "sl_ast_fixture.h"
#include "sl_test.h"

/* Check the printed form of e, then free e. */
#define CHECK_EXPR(e, expected)                                                        \
    do {                                                                               \
        sl_expr *e_ = (e);                                                             \
        char *s_ = fx_print_expr(e_);                                                  \
        CHECK_STR(s_, expected);                                                       \
        sl_free(s_);                                                                   \
        sl_expr_free(e_);                                                              \
    } while (0)

#define CHECK_QUERY(q, expected)                                                       \
    do {                                                                               \
        sl_query *q_ = (q);                                                            \
        char *s_ = fx_print_query(q_);                                                 \
        CHECK_STR(s_, expected);                                                       \
        sl_free(s_);                                                                   \
        sl_query_free(q_);                                                             \
    } while (0)

#define CHECK_STMT(st, expected)                                                       \
    do {                                                                               \
        sl_stmt *st_ = (st);                                                           \
        char *s_ = fx_print_stmt(st_, NULL, NULL);                                     \
        CHECK_STR(s_, expected);                                                       \
        sl_free(s_);                                                                   \
        sl_stmt_free(st_);                                                             \
    } while (0)

static sl_expr *c(const char *name) { return fx_col(NULL, name); }
static sl_expr *n(const char *text) { return fx_num(text); }
static sl_expr *bin(int op, sl_expr *l, sl_expr *r) { return fx_bin(op, l, r); }

/* SELECT items FROM t (one column per item name). */
static sl_query *sel_cols(const char *col, const char *table)
{
    return fx_select(fx_list(1, fx_item(c(col), NULL)), table ? fx_table(table, NULL) : NULL);
}

static char *ident(const char *name)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_ident_print(&sb, name);
    return sl_strbuf_detach(&sb);
}

/* ------------------------------------------------------------------------
** Names, quoting, literals.
*/

static void t_names(void)
{
    CHECK_STR(sl_op_name(SL_OP_ADD), "+");
    CHECK_STR(sl_op_name(SL_OP_NE), "<>");
    CHECK_STR(sl_op_name(SL_OP_CONCAT), "||");
    CHECK_STR(sl_op_name(SL_OP_AND), "AND");
    CHECK_STR(sl_op_name(SL_OP_NOT), "NOT");
    CHECK_STR(sl_op_name(SL_OP_MOD), "%");
    CHECK_STR(sl_op_name(SL_OP_GE), ">=");
    CHECK_STR(sl_unit_name(SL_UNIT_SECOND), "SECOND");
    CHECK_STR(sl_unit_name(SL_UNIT_YEAR), "YEAR");
    CHECK_STR(sl_unit_name(SL_UNIT_MILLISECOND), "MILLISECOND");
}

static void t_ident_quoting(void)
{
    static const char *const cases[][2] = {
        {"abc", "abc"},         {"_x1", "_x1"},           {"CamelCase", "CamelCase"},
        {"my col", "`my col`"}, {"a`b", "`a``b`"},        {"``", "``````"},
        {"1a", "`1a`"},         {"a-b", "`a-b`"},          {"", "``"},
        {"select", "`select`"}, {"Select", "`Select`"},    {"FROM", "`FROM`"},
        {"table", "`table`"},   {"order", "`order`"},      {"caf\xc3\xa9", "`caf\xc3\xa9`"},
        {"a.b", "`a.b`"},       {"selected", "selected"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
        char *s = ident(cases[i][0]);
        CHECK_STR(s, cases[i][1]);
        sl_free(s);
    }
    /* every keyword is quoted */
    int nk = 0;
    const char *const *kw = sl_keywords(&nk);
    CHECK(nk > 20);
    for (int i = 0; i < nk; i++) {
        char *s = ident(kw[i]);
        CHECK(s[0] == '`');
        sl_free(s);
    }
}

static void t_literals(void)
{
    CHECK_EXPR(n("42"), "42");
    CHECK_EXPR(n("1.50"), "1.50");
    CHECK_EXPR(n("1e3"), "1e3");
    CHECK_EXPR(fx_str("it's"), "'it''s'");
    CHECK_EXPR(fx_str(""), "''");
    CHECK_EXPR(fx_str("''"), "''''''");
    CHECK_EXPR(fx_str("a`b\"c"), "'a`b\"c'");
    CHECK_EXPR(fx_str("line\nbreak"), "'line\nbreak'");
    CHECK_EXPR(fx_null(), "NULL");
    CHECK_EXPR(fx_bool(1), "TRUE");
    CHECK_EXPR(fx_bool(0), "FALSE");
    CHECK_EXPR(fx_typed(SL_TYPE_DATE, "2024-01-31"), "DATE '2024-01-31'");
    CHECK_EXPR(fx_typed(SL_TYPE_TIME, "12:00:01"), "TIME '12:00:01'");
    CHECK_EXPR(fx_typed(SL_TYPE_TIMESTAMP, "2024-01-31 12:00:00.123"),
               "TIMESTAMP '2024-01-31 12:00:00.123'");
    CHECK_EXPR(fx_typed(SL_TYPE_TIMESTAMP_LTZ, "2024-01-31 12:00:00"),
               "TIMESTAMP_LTZ '2024-01-31 12:00:00'");
    CHECK_EXPR(fx_interval("5", SL_UNIT_SECOND, SL_UNIT_NONE, -1), "INTERVAL '5' SECOND");
    CHECK_EXPR(fx_interval("10", SL_UNIT_MINUTE, SL_UNIT_NONE, -1), "INTERVAL '10' MINUTE");
    CHECK_EXPR(fx_interval("1.5", SL_UNIT_SECOND, SL_UNIT_NONE, 3), "INTERVAL '1.5' SECOND(3)");
    CHECK_EXPR(fx_interval("1-2", SL_UNIT_YEAR, SL_UNIT_MONTH, -1),
               "INTERVAL '1-2' YEAR TO MONTH");
    CHECK_EXPR(fx_interval("1 02:03:04.5", SL_UNIT_DAY, SL_UNIT_SECOND, 3),
               "INTERVAL '1 02:03:04.5' DAY TO SECOND(3)");
    CHECK_EXPR(fx_interval("100", SL_UNIT_MILLISECOND, SL_UNIT_NONE, -1),
               "INTERVAL '100' MILLISECOND");
    CHECK_EXPR(fx_interval("3", SL_UNIT_DAY, SL_UNIT_NONE, -1), "INTERVAL '3' DAY");
}

static void t_columns(void)
{
    CHECK_EXPR(c("a"), "a");
    CHECK_EXPR(fx_col("t", "a"), "t.a");
    CHECK_EXPR(fx_col("from", "select"), "`from`.`select`");
    CHECK_EXPR(fx_col("my t", "x`y"), "`my t`.`x``y`");
    CHECK_EXPR(fx_star(NULL), "*");
    CHECK_EXPR(fx_star("t"), "t.*");
    CHECK_EXPR(fx_star("order"), "`order`.*");
}

/* ------------------------------------------------------------------------
** Operators and parentheses.
*/

static void t_arithmetic_parens(void)
{
    CHECK_EXPR(bin(SL_OP_ADD, c("a"), bin(SL_OP_MUL, c("b"), c("c"))), "a + b * c");
    CHECK_EXPR(bin(SL_OP_MUL, bin(SL_OP_ADD, c("a"), c("b")), c("c")), "(a + b) * c");
    CHECK_EXPR(bin(SL_OP_SUB, bin(SL_OP_SUB, c("a"), c("b")), c("c")), "a - b - c");
    CHECK_EXPR(bin(SL_OP_SUB, c("a"), bin(SL_OP_SUB, c("b"), c("c"))), "a - (b - c)");
    CHECK_EXPR(bin(SL_OP_ADD, c("a"), bin(SL_OP_ADD, c("b"), c("c"))), "a + (b + c)");
    CHECK_EXPR(bin(SL_OP_ADD, bin(SL_OP_SUB, c("a"), c("b")), c("c")), "a - b + c");
    CHECK_EXPR(bin(SL_OP_DIV, bin(SL_OP_MUL, c("a"), c("b")), c("c")), "a * b / c");
    CHECK_EXPR(bin(SL_OP_MUL, c("a"), bin(SL_OP_DIV, c("b"), c("c"))), "a * (b / c)");
    CHECK_EXPR(bin(SL_OP_MOD, bin(SL_OP_ADD, c("a"), n("1")), n("7")), "(a + 1) % 7");
    CHECK_EXPR(bin(SL_OP_SUB, c("ts"), fx_interval("5", SL_UNIT_SECOND, SL_UNIT_NONE, -1)),
               "ts - INTERVAL '5' SECOND");
}

static void t_unary(void)
{
    CHECK_EXPR(fx_un(SL_OP_NEG, c("a")), "-a");
    CHECK_EXPR(fx_un(SL_OP_PLUS, n("5")), "+5");
    CHECK_EXPR(fx_un(SL_OP_NEG, n("5")), "-5");
    /* never "--": that starts a comment */
    CHECK_EXPR(fx_un(SL_OP_NEG, fx_un(SL_OP_NEG, n("5"))), "-(-5)");
    CHECK_EXPR(fx_un(SL_OP_NEG, n("-5")), "-(-5)");
    CHECK_EXPR(fx_un(SL_OP_NEG, fx_un(SL_OP_PLUS, n("5"))), "-(+5)");
    CHECK_EXPR(bin(SL_OP_SUB, c("a"), fx_un(SL_OP_NEG, c("b"))), "a - -b");
    CHECK_EXPR(bin(SL_OP_SUB, c("a"), n("-5")), "a - -5");
    CHECK_EXPR(fx_un(SL_OP_NEG, bin(SL_OP_ADD, c("a"), c("b"))), "-(a + b)");
    CHECK_EXPR(bin(SL_OP_MUL, fx_un(SL_OP_NEG, c("a")), c("b")), "-a * b");
    CHECK_EXPR(fx_un(SL_OP_NOT, c("a")), "NOT a");
    CHECK_EXPR(fx_un(SL_OP_NOT, fx_un(SL_OP_NOT, c("a"))), "NOT (NOT a)");
    CHECK_EXPR(fx_un(SL_OP_NOT, bin(SL_OP_EQ, c("a"), n("1"))), "NOT (a = 1)");
    CHECK_EXPR(fx_un(SL_OP_NOT, fx_is(c("a"), SL_IS_NULL, false)), "NOT (a IS NULL)");
    CHECK_EXPR(fx_un(SL_OP_NEG, fx_func("abs", fx_list(1, c("x")))), "-abs(x)");
}

static void t_logic_parens(void)
{
    CHECK_EXPR(bin(SL_OP_AND, fx_un(SL_OP_NOT, c("a")), c("b")), "NOT a AND b");
    CHECK_EXPR(bin(SL_OP_OR, bin(SL_OP_AND, c("a"), c("b")), bin(SL_OP_AND, c("c"), c("d"))),
               "a AND b OR c AND d");
    CHECK_EXPR(bin(SL_OP_AND, bin(SL_OP_OR, c("a"), c("b")), c("c")), "(a OR b) AND c");
    CHECK_EXPR(bin(SL_OP_AND, c("a"), bin(SL_OP_OR, c("b"), c("c"))), "a AND (b OR c)");
    CHECK_EXPR(bin(SL_OP_AND, bin(SL_OP_AND, c("a"), c("b")), c("c")), "a AND b AND c");
    CHECK_EXPR(bin(SL_OP_OR, c("a"), bin(SL_OP_OR, c("b"), c("c"))), "a OR (b OR c)");
    CHECK_EXPR(bin(SL_OP_AND, bin(SL_OP_EQ, c("a"), n("1")), bin(SL_OP_LT, c("b"), n("2"))),
               "a = 1 AND b < 2");
    CHECK_EXPR(bin(SL_OP_EQ, bin(SL_OP_EQ, c("a"), c("b")), fx_bool(1)), "(a = b) = TRUE");
    CHECK_EXPR(bin(SL_OP_EQ, c("a"), bin(SL_OP_AND, c("b"), c("c"))), "a = (b AND c)");
    CHECK_EXPR(bin(SL_OP_GT, bin(SL_OP_ADD, c("a"), n("1")), bin(SL_OP_MUL, c("b"), n("2"))),
               "a + 1 > b * 2");
    CHECK_EXPR(bin(SL_OP_NE, c("a"), fx_un(SL_OP_NOT, c("b"))), "a <> (NOT b)");
    CHECK_EXPR(bin(SL_OP_LE, c("a"), n("1")), "a <= 1");
    CHECK_EXPR(bin(SL_OP_GE, c("a"), n("1")), "a >= 1");
}

static void t_concat_parens(void)
{
    CHECK_EXPR(bin(SL_OP_CONCAT, bin(SL_OP_CONCAT, c("a"), c("b")), c("c")), "a || b || c");
    CHECK_EXPR(bin(SL_OP_CONCAT, c("a"), bin(SL_OP_CONCAT, c("b"), c("c"))), "a || (b || c)");
    CHECK_EXPR(bin(SL_OP_CONCAT, bin(SL_OP_ADD, c("a"), c("b")), c("c")), "(a + b) || c");
    CHECK_EXPR(bin(SL_OP_CONCAT, c("a"), bin(SL_OP_MUL, c("b"), c("c"))), "a || (b * c)");
    CHECK_EXPR(bin(SL_OP_ADD, bin(SL_OP_CONCAT, c("a"), c("b")), c("c")), "(a || b) + c");
    CHECK_EXPR(bin(SL_OP_MUL, c("a"), bin(SL_OP_CONCAT, c("b"), c("c"))), "a * (b || c)");
    CHECK_EXPR(bin(SL_OP_EQ, bin(SL_OP_CONCAT, c("a"), c("b")), fx_str("ab")), "a || b = 'ab'");
}

static void t_predicates(void)
{
    CHECK_EXPR(fx_is(c("a"), SL_IS_NULL, false), "a IS NULL");
    CHECK_EXPR(fx_is(c("a"), SL_IS_NULL, true), "a IS NOT NULL");
    CHECK_EXPR(fx_is(c("a"), SL_IS_TRUE, false), "a IS TRUE");
    CHECK_EXPR(fx_is(c("a"), SL_IS_FALSE, true), "a IS NOT FALSE");
    CHECK_EXPR(fx_is(c("a"), SL_IS_UNKNOWN, false), "a IS UNKNOWN");
    CHECK_EXPR(fx_is(bin(SL_OP_EQ, c("a"), c("b")), SL_IS_TRUE, true), "(a = b) IS NOT TRUE");
    CHECK_EXPR(fx_is(bin(SL_OP_ADD, c("a"), n("1")), SL_IS_NULL, false), "a + 1 IS NULL");
    CHECK_EXPR(fx_is(fx_is(c("a"), SL_IS_NULL, false), SL_IS_FALSE, false),
               "(a IS NULL) IS FALSE");
    CHECK_EXPR(fx_between(c("x"), n("1"), n("10"), false), "x BETWEEN 1 AND 10");
    CHECK_EXPR(fx_between(c("x"), bin(SL_OP_ADD, c("a"), n("1")), c("b"), true),
               "x NOT BETWEEN a + 1 AND b");
    CHECK_EXPR(fx_between(c("x"), bin(SL_OP_AND, c("a"), c("b")), c("c"), false),
               "x BETWEEN (a AND b) AND c");
    CHECK_EXPR(fx_between(bin(SL_OP_LT, c("a"), c("b")), fx_bool(0), fx_bool(1), false),
               "(a < b) BETWEEN FALSE AND TRUE");
    CHECK_EXPR(bin(SL_OP_AND, fx_between(c("x"), n("1"), n("2"), false), c("y")),
               "x BETWEEN 1 AND 2 AND y");
    CHECK_EXPR(fx_in(c("x"), false, fx_list(3, n("1"), fx_str("a"), bin(SL_OP_ADD, c("b"), n("1")))),
               "x IN (1, 'a', b + 1)");
    CHECK_EXPR(fx_in(c("x"), true, fx_list(1, bin(SL_OP_OR, c("a"), c("b")))),
               "x NOT IN (a OR b)");
    CHECK_EXPR(fx_in(bin(SL_OP_EQ, c("a"), c("b")), false, fx_list(1, fx_bool(1))),
               "(a = b) IN (TRUE)");
    CHECK_EXPR(fx_like(c("name"), fx_str("a%"), NULL, false), "name LIKE 'a%'");
    CHECK_EXPR(fx_like(c("name"), fx_str("a\\_%"), fx_str("\\"), true),
               "name NOT LIKE 'a\\_%' ESCAPE '\\'");
    CHECK_EXPR(fx_like(bin(SL_OP_CONCAT, c("a"), c("b")), fx_str("x%"), NULL, false),
               "a || b LIKE 'x%'");
    CHECK_EXPR(fx_like(fx_like(c("a"), c("b"), NULL, false), fx_bool(1), NULL, false),
               "(a LIKE b) LIKE TRUE");
    CHECK_EXPR(bin(SL_OP_OR, fx_like(c("a"), fx_str("x"), NULL, false),
                   fx_in(c("b"), false, fx_list(1, n("1")))),
               "a LIKE 'x' OR b IN (1)");
}

static void t_case_cast(void)
{
    CHECK_EXPR(fx_case(NULL, fx_list(2, bin(SL_OP_GT, c("a"), n("1")), fx_str("x")), fx_null()),
               "CASE WHEN a > 1 THEN 'x' ELSE NULL END");
    CHECK_EXPR(fx_case(c("k"), fx_list(4, n("1"), fx_str("one"), n("2"), fx_str("two")), NULL),
               "CASE k WHEN 1 THEN 'one' WHEN 2 THEN 'two' END");
    CHECK_EXPR(bin(SL_OP_ADD, fx_case(NULL, fx_list(2, c("b"), n("1")), n("0")), n("1")),
               "CASE WHEN b THEN 1 ELSE 0 END + 1");
    CHECK_EXPR(fx_cast(c("a"), sl_type_make_p(SL_TYPE_DECIMAL, 10, 2), false),
               "CAST(a AS DECIMAL(10, 2))");
    CHECK_EXPR(fx_cast(fx_str("1"), sl_type_make(SL_TYPE_INT), true), "TRY_CAST('1' AS INT)");
    CHECK_EXPR(fx_cast(c("s"), sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), false),
               "CAST(s AS STRING)");
    CHECK_EXPR(fx_cast(c("s"), sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0), false),
               "CAST(s AS TIMESTAMP_LTZ(3))");
    CHECK_EXPR(fx_cast(bin(SL_OP_ADD, c("a"), c("b")), sl_type_make(SL_TYPE_BIGINT), false),
               "CAST(a + b AS BIGINT)");
}

static void t_functions(void)
{
    sl_expr *e = fx_func("COUNT", NULL);
    e->ival = 1;
    CHECK_EXPR(e, "COUNT(*)");
    e = fx_func("count", fx_list(1, c("a")));
    e->distinct = true;
    CHECK_EXPR(e, "count(DISTINCT a)");
    CHECK_EXPR(fx_func("PROCTIME", NULL), "PROCTIME()");
    CHECK_EXPR(fx_func("CURRENT_TIMESTAMP", NULL), "CURRENT_TIMESTAMP");
    CHECK_EXPR(fx_func("current_date", sl_list_new()), "current_date");
    CHECK_EXPR(fx_func("CONCAT_WS", fx_list(3, fx_str("-"), c("a"), bin(SL_OP_ADD, c("b"), n("1")))),
               "CONCAT_WS('-', a, b + 1)");
    CHECK_EXPR(fx_func("my func", fx_list(1, c("a"))), "`my func`(a)");
    e = fx_func("SUM", fx_list(1, c("x")));
    e->over = fx_over(fx_list(2, c("a"), fx_col("t", "b")),
                      fx_list(1, fx_order(c("ts"), true, 1)));
    CHECK_EXPR(e, "SUM(x) OVER (PARTITION BY a, t.b ORDER BY ts DESC NULLS FIRST)");
    e = fx_func("ROW_NUMBER", NULL);
    e->over = fx_over(NULL, fx_list(2, fx_order(c("ts"), false, 2), fx_order(c("id"), false, 0)));
    CHECK_EXPR(e, "ROW_NUMBER() OVER (ORDER BY ts NULLS LAST, id)");
    e = fx_func("COUNT", NULL);
    e->ival = 1;
    e->over = fx_over(fx_list(1, c("k")), NULL);
    CHECK_EXPR(e, "COUNT(*) OVER (PARTITION BY k)");
    e = fx_func("f", NULL);
    e->over = fx_over(NULL, NULL);
    CHECK_EXPR(e, "f() OVER ()");
}

/* ------------------------------------------------------------------------
** Queries.
*/

static void t_select(void)
{
    CHECK_QUERY(fx_select(fx_list(1, fx_item(fx_star(NULL), NULL)), fx_table("t", NULL)),
                "SELECT * FROM t");
    CHECK_QUERY(fx_select(fx_list(1, fx_item(n("1"), NULL)), NULL), "SELECT 1");
    sl_query *q = fx_select(fx_list(3, fx_item(c("a"), NULL), fx_item(c("b"), "x y"),
                                    fx_item(fx_func("COUNT", fx_list(1, c("c"))), "cnt")),
                            fx_table("t", "u"));
    q->distinct = true;
    q->where = bin(SL_OP_GT, c("a"), n("1"));
    q->group_by = fx_list(2, c("a"), c("b"));
    q->having = bin(SL_OP_GT, fx_func("COUNT", fx_list(1, c("c"))), n("1"));
    q->order_by = fx_list(2, fx_order(c("a"), true, 2), fx_order(c("b"), false, 0));
    q->limit = n("10");
    q->offset = n("5");
    CHECK_QUERY(q, "SELECT DISTINCT a, b AS `x y`, COUNT(c) AS cnt FROM t AS u WHERE a > 1 "
                   "GROUP BY a, b HAVING COUNT(c) > 1 ORDER BY a DESC NULLS LAST, b "
                   "LIMIT 10 OFFSET 5");
    q = fx_select(fx_list(1, fx_item(fx_col("s", "a"), "select")),
                  fx_subquery(sel_cols("a", "t"), "s"));
    CHECK_QUERY(q, "SELECT s.a AS `select` FROM (SELECT a FROM t) AS s");
    q = sel_cols("a", "order");
    CHECK_QUERY(q, "SELECT a FROM `order`");
}

static void t_union(void)
{
    CHECK_QUERY(fx_union(fx_union(sel_cols("a", "t1"), sel_cols("a", "t2"), false),
                         sel_cols("a", "t3"), true),
                "SELECT a FROM t1 UNION SELECT a FROM t2 UNION ALL SELECT a FROM t3");
    CHECK_QUERY(fx_union(sel_cols("a", "t1"),
                         fx_union(sel_cols("a", "t2"), sel_cols("a", "t3"), false), true),
                "SELECT a FROM t1 UNION ALL (SELECT a FROM t2 UNION SELECT a FROM t3)");
    sl_query *l = sel_cols("a", "t1");
    l->order_by = fx_list(1, fx_order(c("a"), false, 0));
    l->limit = n("1");
    sl_query *r = sel_cols("a", "t2");
    r->limit = n("2");
    CHECK_QUERY(fx_union(l, r, false),
                "(SELECT a FROM t1 ORDER BY a LIMIT 1) UNION (SELECT a FROM t2 LIMIT 2)");
    sl_query *u = fx_union(sel_cols("a", "t1"), sel_cols("a", "t2"), true);
    u->order_by = fx_list(1, fx_order(c("a"), true, 0));
    u->limit = n("3");
    CHECK_QUERY(fx_union(u, sel_cols("b", "t3"), false),
                "(SELECT a FROM t1 UNION ALL SELECT a FROM t2 ORDER BY a DESC LIMIT 3) "
                "UNION SELECT b FROM t3");
    u = fx_union(sel_cols("a", "t1"), sel_cols("a", "t2"), true);
    u->order_by = fx_list(1, fx_order(c("a"), false, 0));
    CHECK_QUERY(u, "SELECT a FROM t1 UNION ALL SELECT a FROM t2 ORDER BY a");
}

static void t_values(void)
{
    CHECK_QUERY(fx_values(fx_list(2, fx_list(2, n("1"), fx_str("a")), fx_list(2, n("2"), fx_null()))),
                "VALUES (1, 'a'), (2, NULL)");
    CHECK_QUERY(fx_union(fx_values(fx_list(1, fx_list(1, n("1")))), sel_cols("a", "t"), true),
                "VALUES (1) UNION ALL SELECT a FROM t");
}

static void t_joins(void)
{
    sl_from *j = fx_join(SL_JOIN_INNER, fx_table("a", "x"), fx_table("b", NULL),
                         bin(SL_OP_EQ, fx_col("x", "id"), fx_col("b", "id")));
    j = fx_join(SL_JOIN_LEFT, j, fx_table("c", NULL), bin(SL_OP_EQ, fx_col("c", "id"), fx_col("x", "id")));
    j = fx_join(SL_JOIN_CROSS, j, fx_table("d", NULL), NULL);
    j = fx_join(SL_JOIN_RIGHT, j, fx_table("e", NULL), fx_bool(1));
    j = fx_join(SL_JOIN_FULL, j, fx_subquery(sel_cols("k", "f"), "f"), bin(SL_OP_AND, fx_bool(1), fx_bool(0)));
    CHECK_QUERY(fx_select(fx_list(1, fx_item(fx_star(NULL), NULL)), j),
                "SELECT * FROM a AS x INNER JOIN b ON x.id = b.id "
                "LEFT JOIN c ON c.id = x.id CROSS JOIN d RIGHT JOIN e ON TRUE "
                "FULL JOIN (SELECT k FROM f) AS f ON TRUE AND FALSE");
    j = fx_join(SL_JOIN_INNER, fx_table("a", NULL),
                fx_join(SL_JOIN_INNER, fx_table("b", NULL), fx_table("c", NULL), fx_bool(1)),
                fx_bool(0));
    CHECK_QUERY(fx_select(fx_list(1, fx_item(fx_star(NULL), NULL)), j),
                "SELECT * FROM a INNER JOIN (b INNER JOIN c ON TRUE) ON FALSE");
}

static void t_window_tvf(void)
{
    sl_query *q = fx_select(fx_list(2, fx_item(c("window_start"), NULL),
                                    fx_item(fx_func("SUM", fx_list(1, c("price"))), "total")),
                            fx_window(SL_WIN_TUMBLE, "orders", "ts",
                                      fx_list(1, fx_interval("10", SL_UNIT_MINUTE, 0, -1)), NULL));
    q->group_by = fx_list(2, c("window_start"), c("window_end"));
    CHECK_QUERY(q, "SELECT window_start, SUM(price) AS total FROM TABLE(TUMBLE(TABLE orders, "
                   "DESCRIPTOR(ts), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end");
    q = fx_select(fx_list(1, fx_item(fx_star(NULL), NULL)),
                  fx_window(SL_WIN_HOP, "my orders", "time",
                            fx_list(2, fx_interval("5", SL_UNIT_MINUTE, 0, -1),
                                    fx_interval("1", SL_UNIT_HOUR, 0, -1)),
                            "w"));
    CHECK_QUERY(q, "SELECT * FROM TABLE(HOP(TABLE `my orders`, DESCRIPTOR(`time`), "
                   "INTERVAL '5' MINUTE, INTERVAL '1' HOUR)) AS w");
    q = fx_select(fx_list(1, fx_item(fx_star(NULL), NULL)),
                  fx_window(SL_WIN_CUMULATE, "t", "ts",
                            fx_list(3, fx_interval("1", SL_UNIT_HOUR, 0, -1),
                                    fx_interval("1", SL_UNIT_DAY, 0, -1),
                                    fx_interval("8", SL_UNIT_HOUR, 0, -1)),
                            NULL));
    CHECK_QUERY(q, "SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR, "
                   "INTERVAL '1' DAY, INTERVAL '8' HOUR))");
}

/* ------------------------------------------------------------------------
** Statements.
*/

static bool is_secret(const char *key, void *ctx)
{
    int *calls = ctx;
    (*calls)++;
    return strstr(key, "password") != NULL || strstr(key, "secret") != NULL;
}

static sl_stmt *orders_table(void)
{
    sl_stmt *s = fx_stmt(SL_STMT_CREATE_TABLE, "orders");
    s->columns = fx_list(4, fx_coldef("id", fx_type_nn(SL_TYPE_BIGINT), "the 'key'"),
                         fx_coldef("amount", sl_type_make_p(SL_TYPE_DECIMAL, 10, 2), NULL),
                         fx_coldef("name", sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), NULL),
                         fx_coldef("ts", sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0), NULL));
    s->primary_key = fx_list(2, fx_ident("id"), fx_ident("name"));
    s->wm_column = fx_ident("ts");
    s->wm_expr = bin(SL_OP_SUB, c("ts"), fx_interval("5", SL_UNIT_SECOND, 0, -1));
    s->comment = sl_strdup("all orders");
    s->options = fx_kv(3, "connector", "kafka", "topic", "orders",
                       "properties.sasl.jaas.password", "hunter2");
    return s;
}

static void t_create_table(void)
{
    CHECK_STMT(orders_table(),
               "CREATE TABLE `orders` (\n"
               "  `id` BIGINT NOT NULL COMMENT 'the ''key''',\n"
               "  `amount` DECIMAL(10, 2),\n"
               "  `name` STRING,\n"
               "  `ts` TIMESTAMP(3),\n"
               "  PRIMARY KEY (`id`, `name`) NOT ENFORCED,\n"
               "  WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND\n"
               ") COMMENT 'all orders' WITH (\n"
               "  'connector' = 'kafka',\n"
               "  'topic' = 'orders',\n"
               "  'properties.sasl.jaas.password' = 'hunter2'\n"
               ")");

    /* minimal: no constraints, no comment, no options; IF NOT EXISTS */
    sl_stmt *s = fx_stmt(SL_STMT_CREATE_TABLE, "t");
    s->if_not_exists = true;
    s->columns = fx_list(1, fx_coldef("a", sl_type_make(SL_TYPE_INT), NULL));
    CHECK_STMT(s, "CREATE TABLE IF NOT EXISTS `t` (\n  `a` INT\n)");

    /* empty options print no WITH; comment alone */
    s = fx_stmt(SL_STMT_CREATE_TABLE, "a`b");
    s->columns = fx_list(2, fx_coldef("select", sl_type_make(SL_TYPE_BOOLEAN), NULL),
                         fx_coldef("my col", sl_type_make_p(SL_TYPE_VARCHAR, 20, 0), "c"));
    s->options = sl_kvlist_new();
    s->comment = sl_strdup("");
    CHECK_STMT(s, "CREATE TABLE `a``b` (\n  `select` BOOLEAN,\n  `my col` VARCHAR(20) COMMENT 'c'\n"
                  ") COMMENT ''");

    /* watermark expression: identifiers quoted, functions not */
    s = fx_stmt(SL_STMT_CREATE_TABLE, "t");
    s->columns = fx_list(1, fx_coldef("ts", sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0), NULL));
    s->wm_column = fx_ident("ts");
    s->wm_expr = fx_func("TO_TIMESTAMP_LTZ", fx_list(2, fx_col("t", "ts"), n("3")));
    s->options = fx_kv(1, "connector", "datagen");
    CHECK_STMT(s, "CREATE TABLE `t` (\n  `ts` TIMESTAMP_LTZ(3),\n"
                  "  WATERMARK FOR `ts` AS TO_TIMESTAMP_LTZ(`t`.`ts`, 3)\n"
                  ") WITH (\n  'connector' = 'datagen'\n)");

    /* the quoting mode does not leak into later statements */
    s = fx_stmt(SL_STMT_DESCRIBE, "t");
    CHECK_STMT(s, "DESCRIBE t");
}

static void t_secrets(void)
{
    int calls = 0;
    sl_stmt *s = orders_table();
    char *out = fx_print_stmt(s, is_secret, &calls);
    CHECK(strstr(out, "'properties.sasl.jaas.password' = '******'\n") != NULL);
    CHECK(strstr(out, "hunter2") == NULL);
    CHECK(strstr(out, "'connector' = 'kafka'") != NULL);
    CHECK_INT(calls, 3);
    sl_free(out);
    /* without a secret function nothing is redacted */
    out = fx_print_stmt(s, NULL, NULL);
    CHECK(strstr(out, "'hunter2'") != NULL);
    sl_free(out);
    sl_stmt_free(s);

    s = fx_stmt(SL_STMT_ALTER_SET, "t");
    s->options = fx_kv(2, "password", "p'w", "format", "json");
    out = fx_print_stmt(s, is_secret, &calls);
    CHECK_STR(out, "ALTER TABLE t SET ('password' = '******', 'format' = 'json')");
    sl_free(out);
    out = fx_print_stmt(s, NULL, NULL);
    CHECK_STR(out, "ALTER TABLE t SET ('password' = 'p''w', 'format' = 'json')");
    sl_free(out);
    sl_stmt_free(s);

    s = fx_stmt(SL_STMT_SET, "my.secret");
    s->options = fx_kv(1, "my.secret", "x");
    out = fx_print_stmt(s, is_secret, &calls);
    CHECK_STR(out, "SET 'my.secret' = '******'");
    sl_free(out);
    sl_stmt_free(s);

    /* EXPLAIN passes the redaction on */
    s = fx_stmt(SL_STMT_EXPLAIN, NULL);
    s->inner = fx_stmt(SL_STMT_ALTER_SET, "t");
    s->inner->options = fx_kv(1, "secret", "x");
    out = fx_print_stmt(s, is_secret, &calls);
    CHECK_STR(out, "EXPLAIN ALTER TABLE t SET ('secret' = '******')");
    sl_free(out);
    sl_stmt_free(s);
}

static void t_statements(void)
{
    sl_stmt *s = fx_stmt(SL_STMT_DROP_TABLE, "orders");
    CHECK_STMT(s, "DROP TABLE orders");
    s = fx_stmt(SL_STMT_DROP_TABLE, "from");
    s->if_exists = true;
    CHECK_STMT(s, "DROP TABLE IF EXISTS `from`");

    s = fx_stmt(SL_STMT_ALTER_SET, "t");
    s->options = fx_kv(1, "scan.startup.mode", "latest-offset");
    CHECK_STMT(s, "ALTER TABLE t SET ('scan.startup.mode' = 'latest-offset')");
    s = fx_stmt(SL_STMT_ALTER_RESET, "t");
    s->options = fx_kv(2, "a", NULL, "b'c", NULL);
    CHECK_STMT(s, "ALTER TABLE t RESET ('a', 'b''c')");

    s = fx_stmt(SL_STMT_CREATE_VIEW, "v");
    s->query = sel_cols("a", "t");
    CHECK_STMT(s, "CREATE VIEW v AS SELECT a FROM t");
    s = fx_stmt(SL_STMT_CREATE_VIEW, "v");
    s->temporary = true;
    s->if_not_exists = true;
    s->column_names = fx_list(2, fx_ident("x"), fx_ident("select"));
    s->query = sel_cols("a", "t");
    CHECK_STMT(s, "CREATE TEMPORARY VIEW IF NOT EXISTS v (x, `select`) AS SELECT a FROM t");
    s = fx_stmt(SL_STMT_DROP_VIEW, "v");
    CHECK_STMT(s, "DROP VIEW v");
    s = fx_stmt(SL_STMT_DROP_VIEW, "v");
    s->temporary = true;
    s->if_exists = true;
    CHECK_STMT(s, "DROP TEMPORARY VIEW IF EXISTS v");

    s = fx_stmt(SL_STMT_INSERT, "sink");
    s->query = sel_cols("a", "src");
    CHECK_STMT(s, "INSERT INTO sink SELECT a FROM src");
    s = fx_stmt(SL_STMT_INSERT, "sink");
    s->column_names = fx_list(2, fx_ident("a"), fx_ident("b"));
    s->query = fx_values(fx_list(1, fx_list(2, n("1"), fx_str("x"))));
    CHECK_STMT(s, "INSERT INTO sink (a, b) VALUES (1, 'x')");

    s = fx_stmt(SL_STMT_STATEMENT_SET, NULL);
    sl_stmt *i1 = fx_stmt(SL_STMT_INSERT, "s1"), *i2 = fx_stmt(SL_STMT_INSERT, "s2");
    i1->query = sel_cols("a", "t");
    i2->query = sel_cols("b", "t");
    s->stmts = fx_list(2, i1, i2);
    CHECK_STMT(s, "EXECUTE STATEMENT SET BEGIN INSERT INTO s1 SELECT a FROM t; "
                  "INSERT INTO s2 SELECT b FROM t; END");

    CHECK_STMT(fx_query_stmt(sel_cols("a", "t")), "SELECT a FROM t");

    s = fx_stmt(SL_STMT_SET, "parallelism.default");
    s->options = fx_kv(1, "parallelism.default", "4");
    CHECK_STMT(s, "SET 'parallelism.default' = '4'");
    CHECK_STMT(fx_stmt(SL_STMT_SET, NULL), "SET");
    CHECK_STMT(fx_stmt(SL_STMT_RESET, "k'x"), "RESET 'k''x'");
    CHECK_STMT(fx_stmt(SL_STMT_RESET, NULL), "RESET");

    static const char *const shows[] = {"SHOW TABLES", "SHOW VIEWS", "SHOW JOBS",
                                        "SHOW CONNECTORS"};
    for (int i = SL_SHOW_TABLES; i <= SL_SHOW_CONNECTORS; i++) {
        s = fx_stmt(SL_STMT_SHOW, NULL);
        s->show = i;
        CHECK_STMT(s, shows[i]);
    }
    s = fx_stmt(SL_STMT_SHOW, "orders");
    s->show = SL_SHOW_CREATE_TABLE;
    CHECK_STMT(s, "SHOW CREATE TABLE orders");
    s = fx_stmt(SL_STMT_SHOW, "my view");
    s->show = SL_SHOW_CREATE_VIEW;
    CHECK_STMT(s, "SHOW CREATE VIEW `my view`");

    CHECK_STMT(fx_stmt(SL_STMT_DESCRIBE, "orders"), "DESCRIBE orders");

    s = fx_stmt(SL_STMT_EXPLAIN, NULL);
    s->inner = fx_stmt(SL_STMT_INSERT, "sink");
    s->inner->query = sel_cols("a", "t");
    CHECK_STMT(s, "EXPLAIN INSERT INTO sink SELECT a FROM t");

    CHECK_STMT(fx_stmt(SL_STMT_STOP_JOB, "job-42"), "STOP JOB 'job-42'");
    s = fx_stmt(SL_STMT_STOP_JOB, "j'1");
    s->with_savepoint = true;
    CHECK_STMT(s, "STOP JOB 'j''1' WITH SAVEPOINT");
}

/* Printing appends: the buffer's earlier content stays. */
static void t_appends(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, "x: ");
    sl_expr *e = bin(SL_OP_ADD, n("1"), n("2"));
    sl_expr_print(&sb, e);
    sl_strbuf_append(&sb, "; ");
    sl_ident_print(&sb, "a b");
    CHECK_STR(sl_strbuf_cstr(&sb), "x: 1 + 2; `a b`");
    sl_expr_free(e);
    sl_strbuf_free(&sb);
}

/* ------------------------------------------------------------------------
** Round trips through the parser (parse.c / sql.y / build.c / tokenize.c):
** parse -> print -> parse gives an equal AST, and print is a fixpoint.
*/

/* Statements in many spellings; each must parse. */
static const char *const roundtrip_sql[] = {
    /* CREATE TABLE */
    "CREATE TABLE t (a INT)",
    "create table IF NOT EXISTS `my table` (`a b` int not null, c STRING COMMENT 'it''s')",
    "CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2), name VARCHAR(20), "
    "ts TIMESTAMP(3), PRIMARY KEY (id, name) NOT ENFORCED, "
    "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) COMMENT 'all orders' "
    "WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'k:9092')",
    "CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, v DOUBLE) WITH ('connector' = 'datagen')",
    "CREATE TABLE t (a TINYINT, b SMALLINT, c INTEGER, d BIGINT, e FLOAT, f DOUBLE, "
    "g DOUBLE PRECISION, h DECIMAL, i DEC(5), j NUMERIC(38, 10), k BOOLEAN)",
    "CREATE TABLE t (a CHAR, b CHAR(3), c VARCHAR, d STRING, e BINARY(4), f VARBINARY(8), "
    "g BYTES)",
    "CREATE TABLE t (a DATE, b TIME, c TIME(3), d TIMESTAMP, e TIMESTAMP(9), "
    "f TIMESTAMP(3) WITHOUT TIME ZONE, g TIMESTAMP(3) WITH LOCAL TIME ZONE, h TIMESTAMP_LTZ(6))",
    "CREATE TABLE t (ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) WITH ('a' = '')",
    "CREATE TABLE t (a INT, CONSTRAINT pk PRIMARY KEY (a) NOT ENFORCED)",
    "CREATE TABLE t (`select` INT NULL, `from` STRING NOT NULL, `x``y` INT)",
    "CREATE TABLE t (a INT COMMENT '') COMMENT 'x' WITH ('k' = 'v''q', 'password' = 's')",
    "CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS CAST(ts AS TIMESTAMP(3)) - "
    "INTERVAL '1' MINUTE)",
    /* DROP / ALTER */
    "DROP TABLE t",
    "DROP TABLE IF EXISTS `order`",
    "ALTER TABLE t SET ('scan.startup.mode' = 'earliest-offset')",
    "ALTER TABLE t SET ('a' = '1', 'b' = '2')",
    "ALTER TABLE t RESET ('a')",
    "ALTER TABLE t RESET ('a', 'b''c')",
    /* views */
    "CREATE VIEW v AS SELECT a FROM t",
    "CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t WHERE a > 1",
    "CREATE VIEW `my view` AS SELECT * FROM t UNION ALL SELECT * FROM u",
    "DROP VIEW v",
    "DROP TEMPORARY VIEW IF EXISTS v",
    /* INSERT and statement sets */
    "INSERT INTO sink SELECT * FROM src",
    "INSERT INTO sink (a, b) SELECT x, y FROM src",
    "INSERT INTO sink VALUES (1, 'a'), (2, NULL)",
    "INSERT INTO sink (a) VALUES (-1)",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t; INSERT INTO b SELECT * FROM t; END",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t; END",
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t END",
    /* utility */
    "SET",
    "SET 'parallelism.default' = '4'",
    "SET 'table.exec.sink.not-null-enforcer' = 'DROP'",
    "RESET",
    "RESET 'parallelism.default'",
    "SHOW TABLES",
    "SHOW VIEWS",
    "SHOW JOBS",
    "SHOW CONNECTORS",
    "SHOW CREATE TABLE orders",
    "SHOW CREATE VIEW `v 1`",
    "DESCRIBE orders",
    "DESC orders",
    "EXPLAIN SELECT * FROM t",
    "EXPLAIN PLAN FOR INSERT INTO s SELECT a FROM t",
    "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t; END",
    "STOP JOB 'abc-123'",
    "STOP JOB 'abc' WITH SAVEPOINT",
    /* queries */
    "SELECT 1",
    "SELECT * FROM t",
    "SELECT t.* FROM t",
    "SELECT DISTINCT a, b AS bb, c cc FROM t AS x",
    "SELECT ALL a FROM t",
    "SELECT a FROM t WHERE a > 1 AND b < 2 OR NOT c",
    "SELECT a, COUNT(*) AS n FROM t GROUP BY a HAVING COUNT(*) > 1",
    "SELECT a FROM t ORDER BY a DESC NULLS LAST, b ASC NULLS FIRST, c LIMIT 10 OFFSET 5",
    "SELECT a FROM t LIMIT 1",
    "SELECT a FROM t OFFSET 3",
    "SELECT a FROM t1 UNION SELECT a FROM t2",
    "SELECT a FROM t1 UNION DISTINCT SELECT a FROM t2 UNION ALL SELECT a FROM t3",
    "SELECT a FROM t1 UNION ALL (SELECT a FROM t2 UNION SELECT a FROM t3)",
    "(SELECT a FROM t1 ORDER BY a LIMIT 1) UNION (SELECT a FROM t2 LIMIT 2) ORDER BY a",
    "SELECT a FROM t1 UNION ALL SELECT a FROM t2 ORDER BY a LIMIT 5",
    "((SELECT a FROM t1 UNION SELECT a FROM t2) LIMIT 3) UNION SELECT b FROM t3",
    "VALUES (1, 'a'), (2, 'b')",
    "VALUES (1) UNION ALL SELECT a FROM t",
    "SELECT s.a FROM (SELECT a FROM t) AS s",
    "SELECT * FROM (SELECT a FROM t UNION SELECT b FROM u) s",
    "SELECT * FROM a JOIN b ON a.id = b.id",
    "SELECT * FROM a INNER JOIN b ON a.id = b.id LEFT JOIN c ON c.id = a.id "
    "LEFT OUTER JOIN d ON TRUE RIGHT JOIN e ON e.x = d.x RIGHT OUTER JOIN f ON 1 = 1 "
    "FULL JOIN g ON g.k = a.k FULL OUTER JOIN h ON h.k = g.k",
    "SELECT * FROM a, b, c WHERE a.id = b.id",
    "SELECT * FROM a CROSS JOIN b",
    "SELECT * FROM a x JOIN (SELECT * FROM b) y ON x.id = y.id",
    "SELECT window_start, window_end, SUM(price) FROM TABLE(TUMBLE(TABLE orders, "
    "DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
    "SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' MINUTE, "
    "INTERVAL '1' HOUR)) AS w",
    "SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(`time`), INTERVAL '1' HOUR, "
    "INTERVAL '1' DAY))",
    "SELECT * FROM TABLE(TUMBLE(DATA => TABLE orders, TIMECOL => DESCRIPTOR(ts), "
    "SIZE => INTERVAL '10' MINUTES))",
    "SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' MINUTE, "
    "INTERVAL '1' MINUTE)) w JOIN dim ON w.k = dim.k",
    /* expressions */
    "SELECT a + b * c - d / e % f FROM t",
    "SELECT (a + b) * c, a - (b - c), a - b - c, -a, - -a, -(-5), +a, -(a + b) FROM t",
    "SELECT a || b || 'c', (a || b) || c, a || (b || c), a + b || c FROM t",
    "SELECT NOT a, NOT NOT a, NOT a = b, a AND NOT b, (a OR b) AND c FROM t",
    "SELECT a = b, a <> b, a != b, a < b, a <= b, a > b, a >= b FROM t",
    "SELECT a IS NULL, a IS NOT NULL, a IS TRUE, a IS NOT TRUE, a IS FALSE, "
    "a IS NOT FALSE, a IS UNKNOWN, a IS NOT UNKNOWN FROM t",
    "SELECT a BETWEEN 1 AND 10, a NOT BETWEEN b + 1 AND c * 2 AND d FROM t",
    "SELECT a IN (1, 2, 3), a NOT IN ('x'), (a = b) IN (TRUE) FROM t",
    "SELECT a LIKE 'x%', a NOT LIKE 'a\\_%' ESCAPE '\\', a || b LIKE c FROM t",
    "SELECT CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE NULL END FROM t",
    "SELECT CASE a WHEN 1 THEN 'one' END, CASE WHEN b THEN 1 ELSE 0 END + 1 FROM t",
    "SELECT CAST(a AS INT), TRY_CAST(b AS DECIMAL(10, 2)), CAST(c AS STRING), "
    "CAST(d AS TIMESTAMP(3)), CAST(e AS VARCHAR(5)), CAST(f AS TIMESTAMP_LTZ(3)) FROM t",
    "SELECT COUNT(*), count(DISTINCT a), SUM(ALL b), MAX(c), f(), g(1, 'x', h(2)) FROM t",
    "SELECT SUM(x) OVER (PARTITION BY a, b ORDER BY ts DESC NULLS FIRST), "
    "ROW_NUMBER() OVER (ORDER BY ts), COUNT(*) OVER (PARTITION BY k), f() OVER () FROM t",
    "SELECT SUM(x) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "
    "MAX(y) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW), "
    "COUNT(*) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
    "MIN(z) OVER (ORDER BY ts RANGE BETWEEN CURRENT ROW AND CURRENT ROW) FROM t",
    "SELECT COUNT(*) FILTER (WHERE a > 1), SUM(DISTINCT b) FILTER (WHERE c AND d IS NULL), filter "
    "FROM t GROUP BY filter HAVING MAX(x) FILTER (WHERE y = 'z') > 0",
    "SELECT CURRENT_TIMESTAMP, current_date, CURRENT_TIME, LOCALTIMESTAMP, LOCALTIME(), "
    "PROCTIME() FROM t",
    "SELECT SUBSTRING(s FROM 2), SUBSTRING(s FROM 2 FOR 3), SUBSTRING(s, 1, 2) FROM t",
    "SELECT LEFT(s, 2), RIGHT(s, 2), HOUR(ts), IF(a, 1, 2) FROM t",
    "SELECT DATE '2024-01-31', TIME '12:00:01', TIMESTAMP '2024-01-31 12:00:00.123', "
    "TIMESTAMP_LTZ '2024-01-31 12:00:00' FROM t",
    "SELECT INTERVAL '5' SECOND, INTERVAL '1.5' SECOND(3), INTERVAL '1-2' YEAR TO MONTH, "
    "INTERVAL '1 02:03:04.5' DAY TO SECOND(3), INTERVAL '2' DAYS, INTERVAL '3' HOURS FROM t",
    "SELECT ts - INTERVAL '5' SECOND, ts + INTERVAL '1' DAY FROM t",
    "SELECT 'it''s', '', 1.50, 1e3, .5, TRUE, FALSE, NULL FROM t",
    "SELECT `my col`, `select`, `a``b`, t.`from`, `x y`.z FROM `x y`",
    "SELECT a AS `select`, b AS `Order` FROM t",
    "SELECT `key`, `data`, `time`, `value` FROM t WHERE `key` = 'k'",
    "SELECT a FROM t WHERE a > 1 AND (b = 2 OR c = 3) AND d IS NOT NULL",
    "SELECT a FROM t WHERE a = 1 OR b = 2 AND c = 3",
    "select A, B from T where A = 'x'",
    "SELECT a /* comment */ FROM t -- trailing\n",
    "SELECT CAST(a + b AS BIGINT) * 2 - -c FROM t",
};

/* Parse one statement; report the text on failure. */
static sl_stmt *rt_parse(const char *sql)
{
    sl_error err = SL_ERROR_INIT;
    sl_stmt *s = sl_parse_one(sql, strlen(sql), &err);
    if (!s)
        fprintf(stderr, "  cannot parse: %s\n  error: %s (position %d)\n", sql,
                err.message ? err.message : "?", err.position);
    sl_error_reset(&err);
    return s;
}

/* parse(sql) -> print -> parse: equal, and the second print is the same text. */
static bool rt_check(const char *sql)
{
    bool ok = false;
    sl_stmt *s1 = rt_parse(sql), *s2 = NULL;
    char *p1 = NULL, *p2 = NULL;
    if (!s1)
        return false;
    p1 = fx_print_stmt(s1, NULL, NULL);
    s2 = rt_parse(p1);
    if (!s2)
        goto done;
    if (!sl_stmt_equal(s1, s2)) {
        fprintf(stderr, "  round trip changed the AST:\n  in:      %s\n  printed: %s\n", sql, p1);
        goto done;
    }
    p2 = fx_print_stmt(s2, NULL, NULL);
    if (strcmp(p1, p2) != 0) {
        fprintf(stderr, "  print is not a fixpoint:\n  first:  %s\n  second: %s\n", p1, p2);
        goto done;
    }
    ok = true;
done:
    sl_free(p1);
    sl_free(p2);
    sl_stmt_free(s1);
    sl_stmt_free(s2);
    return ok;
}

static void t_roundtrip(void)
{
    CHECK(SL_ARRAY_LEN(roundtrip_sql) >= 80);
    for (size_t i = 0; i < SL_ARRAY_LEN(roundtrip_sql); i++)
        CHECK(rt_check(roundtrip_sql[i]));
}

/* Hand-built trees (parenthesization shapes) print to text that parses back
** to the same tree. */
static void t_roundtrip_expressions(void)
{
    sl_expr *trees[] = {
        bin(SL_OP_ADD, c("a"), bin(SL_OP_ADD, c("b"), c("c"))),
        bin(SL_OP_SUB, c("a"), bin(SL_OP_SUB, c("b"), c("c"))),
        bin(SL_OP_SUB, bin(SL_OP_SUB, c("a"), c("b")), c("c")),
        bin(SL_OP_MUL, bin(SL_OP_ADD, c("a"), c("b")), bin(SL_OP_DIV, c("c"), c("d"))),
        bin(SL_OP_MOD, c("a"), bin(SL_OP_MUL, c("b"), c("c"))),
        bin(SL_OP_CONCAT, bin(SL_OP_ADD, c("a"), c("b")), c("c")),
        bin(SL_OP_ADD, c("a"), bin(SL_OP_CONCAT, c("b"), c("c"))),
        bin(SL_OP_CONCAT, c("a"), bin(SL_OP_CONCAT, c("b"), c("c"))),
        fx_un(SL_OP_NEG, fx_un(SL_OP_NEG, n("5"))),
        fx_un(SL_OP_NEG, bin(SL_OP_MUL, c("a"), c("b"))),
        bin(SL_OP_MUL, fx_un(SL_OP_NEG, c("a")), c("b")),
        bin(SL_OP_SUB, c("a"), fx_un(SL_OP_NEG, fx_un(SL_OP_NEG, c("b")))),
        fx_un(SL_OP_NOT, bin(SL_OP_AND, c("a"), c("b"))),
        fx_un(SL_OP_NOT, fx_un(SL_OP_NOT, c("a"))),
        bin(SL_OP_AND, fx_un(SL_OP_NOT, c("a")), fx_un(SL_OP_NOT, c("b"))),
        bin(SL_OP_OR, c("a"), bin(SL_OP_OR, c("b"), c("c"))),
        bin(SL_OP_AND, bin(SL_OP_OR, c("a"), c("b")), bin(SL_OP_OR, c("c"), c("d"))),
        bin(SL_OP_EQ, bin(SL_OP_EQ, c("a"), c("b")), bin(SL_OP_LT, c("c"), c("d"))),
        bin(SL_OP_EQ, c("a"), bin(SL_OP_AND, c("b"), c("c"))),
        bin(SL_OP_NE, c("a"), fx_un(SL_OP_NOT, c("b"))),
        fx_is(bin(SL_OP_EQ, c("a"), c("b")), SL_IS_TRUE, true),
        fx_is(fx_is(c("a"), SL_IS_NULL, false), SL_IS_FALSE, false),
        fx_is(fx_un(SL_OP_NOT, c("a")), SL_IS_NULL, false),
        fx_between(bin(SL_OP_LT, c("a"), c("b")), bin(SL_OP_AND, c("c"), c("d")),
                   bin(SL_OP_OR, c("e"), c("f")), true),
        bin(SL_OP_AND, fx_between(c("x"), n("1"), n("2"), false), c("y")),
        fx_in(bin(SL_OP_EQ, c("a"), c("b")), true, fx_list(2, bin(SL_OP_OR, c("c"), c("d")), n("1"))),
        fx_like(fx_like(c("a"), c("b"), NULL, false), bin(SL_OP_EQ, c("c"), c("d")),
                fx_is(c("e"), SL_IS_NULL, false), true),
        bin(SL_OP_EQ, fx_like(c("a"), c("b"), NULL, false), fx_in(c("c"), false, fx_list(1, n("1")))),
        fx_un(SL_OP_NEG, fx_case(NULL, fx_list(2, c("b"), n("1")), n("0"))),
        bin(SL_OP_SUB, c("ts"), fx_interval("5", SL_UNIT_SECOND, SL_UNIT_NONE, -1)),
        fx_cast(bin(SL_OP_OR, c("a"), c("b")), sl_type_make(SL_TYPE_BOOLEAN), true),
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(trees); i++) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_strbuf_append(&sb, "SELECT ");
        sl_expr_print(&sb, trees[i]);
        sl_stmt *s = rt_parse(sl_strbuf_cstr(&sb));
        if (s) {
            sl_select_item *it = sl_list_get(s->query->items, 0);
            if (sl_list_len(s->query->items) != 1 || !sl_expr_equal(it->expr, trees[i])) {
                fprintf(stderr, "  tree #%zu printed as \"%s\" parses to another tree\n", i,
                        sl_strbuf_cstr(&sb));
                CHECK(0);
            }
        } else {
            CHECK(0);
        }
        sl_stmt_free(s);
        sl_strbuf_free(&sb);
        sl_expr_free(trees[i]);
    }
}

/* Hand-built statements of every kind print to text that parses back equal. */
static void t_roundtrip_stable(void)
{
    sl_stmt *view = fx_stmt(SL_STMT_CREATE_VIEW, "my view");
    view->temporary = true;
    view->column_names = fx_list(2, fx_ident("x"), fx_ident("time"));
    view->query = fx_select(fx_list(2, fx_item(c("window_start"), NULL),
                                    fx_item(fx_func("COUNT", NULL), "n")),
                            fx_window(SL_WIN_HOP, "orders", "ts",
                                      fx_list(2, fx_interval("5", SL_UNIT_MINUTE, 0, -1),
                                              fx_interval("1", SL_UNIT_HOUR, 0, -1)),
                                      "w"));
    ((sl_select_item *)sl_list_get(view->query->items, 1))->expr->ival = 1;
    view->query->group_by = fx_list(1, c("window_start"));
    sl_stmt *set = fx_stmt(SL_STMT_STATEMENT_SET, NULL);
    sl_stmt *ins = fx_stmt(SL_STMT_INSERT, "sink");
    ins->column_names = fx_list(1, fx_ident("a"));
    ins->query = fx_values(fx_list(2, fx_list(1, fx_un(SL_OP_NEG, n("1"))), fx_list(1, fx_null())));
    set->stmts = fx_list(1, ins);
    sl_stmt *stop = fx_stmt(SL_STMT_STOP_JOB, "j-1");
    stop->with_savepoint = true;
    sl_stmt *reset = fx_stmt(SL_STMT_ALTER_RESET, "t");
    reset->options = fx_kv(2, "a", NULL, "b", NULL);
    sl_stmt *show = fx_stmt(SL_STMT_SHOW, "v");
    show->show = SL_SHOW_CREATE_VIEW;
    sl_stmt *stmts[] = {
        orders_table(), view, set, stop, reset, show,
        fx_query_stmt(fx_union(sel_cols("a", "t1"),
                               fx_union(sel_cols("a", "t2"), sel_cols("a", "t3"), false), true)),
        fx_stmt(SL_STMT_DESCRIBE, "select"),
        fx_stmt(SL_STMT_RESET, "k'x"),
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(stmts); i++) {
        char *p = fx_print_stmt(stmts[i], NULL, NULL);
        sl_stmt *s = rt_parse(p);
        if (!s || !sl_stmt_equal(s, stmts[i])) {
            fprintf(stderr, "  statement #%zu printed as \"%s\" parses to another tree\n", i, p);
            CHECK(0);
        }
        sl_stmt_free(s);
        sl_free(p);
        sl_stmt_free(stmts[i]);
    }
}

SL_TESTS(t_names, t_ident_quoting, t_literals, t_columns, t_arithmetic_parens, t_unary,
         t_logic_parens, t_concat_parens, t_predicates, t_case_cast, t_functions, t_select,
         t_union, t_values, t_joins, t_window_tvf, t_create_table, t_secrets, t_statements,
         t_appends, t_roundtrip, t_roundtrip_expressions, t_roundtrip_stable)

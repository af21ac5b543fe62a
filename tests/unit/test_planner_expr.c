/*
** test_planner_expr.c — the expression binder (planner/bind_expr.c) and
** bound expressions (planner/bexpr.c): column resolution and its errors,
** every operator and function (result types, arity and type errors with
** positions), CAST validity, CASE / IN common types, the hook protocol,
** conditions, the EXPLAIN printer, dup and is_constant.
**
** Trees are built by hand (sl_ast_fixture.h) so that the binder is tested
** on its own; t_sql_* tests also bind expressions parsed from SQL text.
*/
#include "sl_ast_fixture.h"
#include "sl_bind.h"
#include "sl_test.h"

/* ------------------------------------------------------------------------
** Fixture: one scope over two tables t and u.
*/
static sl_scope_col cols[] = {
    {"t", "a", {SL_TYPE_INT, 0, 0, true}, false},                  /* 0 */
    {"t", "b", {SL_TYPE_BIGINT, 0, 0, false}, false},              /* 1 */
    {"t", "name", {SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false}, false}, /* 2 */
    {"t", "price", {SL_TYPE_DECIMAL, 10, 2, false}, false},        /* 3 */
    {"t", "ts", {SL_TYPE_TIMESTAMP, 3, 0, false}, false},          /* 4 */
    {"t", "flag", {SL_TYPE_BOOLEAN, 0, 0, false}, false},          /* 5 */
    {"u", "a", {SL_TYPE_INT, 0, 0, false}, false},                 /* 6 */
    {"u", "d", {SL_TYPE_DATE, 0, 0, true}, false},                 /* 7 */
    {"t", "amount", {SL_TYPE_DOUBLE, 0, 0, false}, false},         /* 8 */
    {"u", "Name", {SL_TYPE_VARCHAR, 20, 0, false}, true},          /* 9 */
    {NULL, "x y", {SL_TYPE_SMALLINT, 0, 0, true}, false},          /* 10 */
};
static const char *const colnames[] = {"a", "b", "name", "price", "ts", "flag", "a", "d", "amount", "Name", "x y"};
static sl_scope scope = {(int)SL_ARRAY_LEN(cols), cols};

static char out[1024]; /* result of the helpers below */

/* Bind e (freed) in ctx; on success "TYPE :: printed", else
** "ERR sqlstate@pos message | hint". */
static const char *run(sl_expr *e, const char *clause,
                       int (*hook)(sl_bind_ctx *, const sl_expr *, sl_bexpr **))
{
    sl_error err = SL_ERROR_INIT;
    sl_bind_ctx ctx = {&scope, &err, clause, hook, NULL, NULL};
    sl_bexpr *b = sl_bind_expr(&ctx, e);
    if (b) {
        CHECK(!sl_error_isset(&err));
        char *t = sl_type_to_string(b->type);
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_bexpr_print(&sb, b, colnames);
        snprintf(out, sizeof out, "%s :: %s", t, sl_strbuf_cstr(&sb));
        sl_strbuf_free(&sb);
        sl_free(t);
        /* a copy prints the same and is freed independently */
        sl_bexpr *d = sl_bexpr_dup(b);
        sl_strbuf s1 = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
        sl_bexpr_print(&s1, b, colnames);
        sl_bexpr_print(&s2, d, colnames);
        CHECK_STR(sl_strbuf_cstr(&s1), sl_strbuf_cstr(&s2));
        CHECK(sl_type_equal(b->type, d->type));
        sl_strbuf_free(&s1);
        sl_strbuf_free(&s2);
        sl_bexpr_free(d);
    } else {
        CHECK(sl_error_isset(&err));
        snprintf(out, sizeof out, "ERR %s@%d %s | %s", err.sqlstate, err.position,
                 err.message ? err.message : "?", err.hint ? err.hint : "");
    }
    sl_bexpr_free(b);
    sl_error_reset(&err);
    sl_expr_free(e);
    return out;
}

static const char *B(sl_expr *e) { return run(e, NULL, NULL); }

/* Shorthands. */
static sl_expr *C(const char *name) { return fx_col(NULL, name); }
static sl_expr *QC(const char *q, const char *name) { return fx_col(q, name); }
static sl_expr *N(const char *t) { return fx_num(t); }
static sl_expr *S(const char *t) { return fx_str(t); }
static sl_expr *at(sl_expr *e, int pos) { e->pos = pos; return e; }
static sl_expr *op_at(sl_expr *e, int pos) { e->op_pos = pos; return e; }
static sl_expr *F0(const char *f) { return fx_func(f, NULL); }
static sl_expr *F1(const char *f, sl_expr *a) { return fx_func(f, fx_list(1, a)); }
static sl_expr *F2(const char *f, sl_expr *a, sl_expr *b) { return fx_func(f, fx_list(2, a, b)); }
static sl_expr *F3(const char *f, sl_expr *a, sl_expr *b, sl_expr *c) { return fx_func(f, fx_list(3, a, b, c)); }
static sl_expr *BIN(int op, sl_expr *l, sl_expr *r) { return fx_bin(op, l, r); }
static sl_type TY(sl_type_id id, int p, int s) { return sl_type_make_p(id, p, s); }

/* ------------------------------------------------------------------------
** Columns.
*/

static void t_columns(void)
{
    CHECK_STR(B(C("b")), "BIGINT :: b");
    CHECK_STR(B(QC("t", "a")), "INT NOT NULL :: a");
    CHECK_STR(B(QC("u", "a")), "INT :: a");
    CHECK_STR(B(C("Name")), "VARCHAR(20) :: Name"); /* hidden, still resolvable; case-sensitive */
    CHECK_STR(B(C("x y")), "SMALLINT NOT NULL :: `x y`");
    CHECK_STR(B(at(C("a"), 12)), "ERR 42702@12 column reference \"a\" is ambiguous | ");
    CHECK_STR(B(at(C("nme"), 7)),
              "ERR 42703@7 column \"nme\" does not exist | Perhaps you meant to reference the column \"name\".");
    CHECK_STR(B(at(C("NAME"), 7)),
              "ERR 42703@7 column \"NAME\" does not exist | Perhaps you meant to reference the column \"name\".");
    CHECK_STR(B(at(C("zzzzzz"), 3)), "ERR 42703@3 column \"zzzzzz\" does not exist | ");
    CHECK_STR(B(at(QC("u", "dd"), 5)),
              "ERR 42703@5 column u.dd does not exist | Perhaps you meant to reference the column \"u.d\".");
    CHECK_STR(B(at(QC("u", "price"), 5)), "ERR 42703@5 column u.price does not exist | ");
    CHECK_STR(B(at(QC("v", "a"), 9)), "ERR 42P01@9 missing FROM-clause entry for table \"v\" | ");
    CHECK_STR(B(at(fx_star(NULL), 4)),
              "ERR 42601@4 * is not allowed here | * may only appear in a select list or as COUNT(*).");

    /* sl_scope_resolve directly */
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_scope_resolve(&scope, "u", "d", 0, &err), 7);
    CHECK_INT(sl_scope_resolve(&scope, NULL, "amount", 0, &err), 8);
    CHECK(!sl_error_isset(&err));
    CHECK_INT(sl_scope_resolve(&scope, NULL, "a", 0, &err), -1);
    CHECK_STR(err.sqlstate, "42702");
    sl_error_reset(&err);
    sl_scope empty = {0, NULL};
    CHECK_INT(sl_scope_resolve(&empty, NULL, "a", 2, &err), -1);
    CHECK_STR(err.sqlstate, "42703");
    CHECK_INT(err.position, 2);
    sl_error_reset(&err);
}

/* ------------------------------------------------------------------------
** Operators.
*/

static void t_arithmetic(void)
{
    CHECK_STR(B(BIN(SL_OP_ADD, QC("t", "a"), C("b"))), "BIGINT :: a + b");
    CHECK_STR(B(BIN(SL_OP_ADD, QC("t", "a"), N("1"))), "INT NOT NULL :: a + 1");
    CHECK_STR(B(BIN(SL_OP_MUL, C("price"), N("2"))), "DECIMAL(20, 2) :: price * 2");
    CHECK_STR(B(BIN(SL_OP_ADD, QC("t", "a"), C("price"))), "DECIMAL(13, 2) :: a + price");
    CHECK_STR(B(BIN(SL_OP_DIV, C("price"), N("1.5"))), "DECIMAL(15, 6) :: price / 1.5");
    CHECK_STR(B(BIN(SL_OP_DIV, QC("t", "a"), N("2"))), "INT NOT NULL :: a / 2");
    CHECK_STR(B(BIN(SL_OP_MOD, C("b"), N("7"))), "INT :: b % 7");
    CHECK_STR(B(BIN(SL_OP_SUB, C("amount"), C("b"))), "DOUBLE :: amount - b");
    CHECK_STR(B(BIN(SL_OP_MUL, BIN(SL_OP_ADD, QC("t", "a"), N("1")), N("2"))),
              "INT NOT NULL :: (a + 1) * 2");
    CHECK_STR(B(BIN(SL_OP_ADD, QC("t", "a"), BIN(SL_OP_MUL, N("1"), N("2")))),
              "INT NOT NULL :: a + (1 * 2)");
    CHECK_STR(B(BIN(SL_OP_SUB, C("ts"), fx_interval("5", SL_UNIT_SECOND, 0, -1))),
              "TIMESTAMP(3) :: ts - INTERVAL '5' SECOND");
    CHECK_STR(B(BIN(SL_OP_ADD, C("d"), fx_interval("1", SL_UNIT_DAY, 0, -1))),
              "DATE NOT NULL :: d + INTERVAL '1' DAY");
    CHECK_STR(B(BIN(SL_OP_ADD, QC("t", "a"), fx_null())), "INT :: a + NULL");
    CHECK_STR(B(fx_un(SL_OP_NEG, C("price"))), "DECIMAL(10, 2) :: -price");
    CHECK_STR(B(fx_un(SL_OP_NEG, BIN(SL_OP_ADD, QC("t", "a"), N("1")))), "INT NOT NULL :: -(a + 1)");
    CHECK_STR(B(fx_un(SL_OP_PLUS, C("b"))), "BIGINT :: b");
    CHECK_STR(B(fx_un(SL_OP_NEG, fx_interval("2", SL_UNIT_HOUR, 0, -1))),
              "INTERVAL SECOND(3) NOT NULL :: -INTERVAL '2' HOUR");
    /* errors point at the operator */
    CHECK_STR(B(op_at(BIN(SL_OP_SUB, C("ts"), C("ts")), 20)),
              "ERR 42883@20 operator does not exist: TIMESTAMP(3) - TIMESTAMP(3) | No operator matches "
              "the given argument types. You might need to add explicit type casts.");
    CHECK_STR(B(op_at(BIN(SL_OP_ADD, C("name"), N("1")), 9)),
              "ERR 42883@9 operator does not exist: STRING + INT | No operator matches the given "
              "argument types. You might need to add explicit type casts.");
    CHECK_STR(B(op_at(BIN(SL_OP_ADD, fx_null(), fx_null()), 5)),
              "ERR 42883@5 operator does not exist: NULL + NULL | Use CAST(NULL AS type) to give NULL a type.");
    CHECK_STR(B(op_at(fx_un(SL_OP_NEG, C("name")), 0)),
              "ERR 42883@0 operator does not exist: - STRING | No operator matches the given argument "
              "types. You might need to add explicit type casts.");
}

static void t_concat(void)
{
    CHECK_STR(B(BIN(SL_OP_CONCAT, S("ab"), S("cde"))), "CHAR(5) NOT NULL :: 'ab' || 'cde'");
    CHECK_STR(B(BIN(SL_OP_CONCAT, C("Name"), S("x"))), "VARCHAR(21) :: Name || 'x'");
    CHECK_STR(B(BIN(SL_OP_CONCAT, C("name"), S("x"))), "STRING :: name || 'x'");
    CHECK_STR(B(BIN(SL_OP_CONCAT, C("name"), fx_null())), "STRING :: name || NULL");
    CHECK_STR(B(op_at(BIN(SL_OP_CONCAT, C("name"), QC("t", "a")), 4)),
              "ERR 42883@4 operator does not exist: STRING || INT | No operator matches the given "
              "argument types. You might need to add explicit type casts.");
}

static void t_comparison_and_logic(void)
{
    CHECK_STR(B(BIN(SL_OP_GT, C("price"), N("10"))), "BOOLEAN :: price > 10");
    CHECK_STR(B(BIN(SL_OP_EQ, QC("t", "a"), N("1"))), "BOOLEAN NOT NULL :: a = 1");
    CHECK_STR(B(BIN(SL_OP_NE, C("name"), S("x"))), "BOOLEAN :: name <> 'x'");
    CHECK_STR(B(BIN(SL_OP_LE, C("ts"), fx_typed(SL_TYPE_TIMESTAMP, "2026-01-01 00:00:00"))),
              "BOOLEAN :: ts <= TIMESTAMP '2026-01-01 00:00:00'");
    CHECK_STR(B(BIN(SL_OP_GE, C("d"), fx_typed(SL_TYPE_DATE, "2026-01-01"))),
              "BOOLEAN NOT NULL :: d >= DATE '2026-01-01'");
    CHECK_STR(B(BIN(SL_OP_LT, C("b"), fx_null())), "BOOLEAN :: b < NULL");
    CHECK_STR(B(BIN(SL_OP_EQ, C("flag"), fx_bool(1))), "BOOLEAN :: flag = TRUE");
    CHECK_STR(B(op_at(BIN(SL_OP_EQ, QC("t", "a"), C("name")), 14)),
              "ERR 42804@14 cannot compare INT with STRING | Use CAST to convert one side.");
    CHECK_STR(B(op_at(BIN(SL_OP_LT, C("d"), C("ts")), 3)),
              "ERR 42804@3 cannot compare DATE with TIMESTAMP(3) | Use CAST to convert one side.");
    CHECK_STR(B(op_at(BIN(SL_OP_EQ, C("flag"), N("1")), 3)),
              "ERR 42804@3 cannot compare BOOLEAN with INT | Use CAST to convert one side.");

    CHECK_STR(B(BIN(SL_OP_AND, BIN(SL_OP_GT, C("price"), N("10")),
                    fx_like(F1("upper", C("name")), S("A%"), NULL, false))),
              "BOOLEAN :: (price > 10) AND (UPPER(name) LIKE 'A%')");
    CHECK_STR(B(BIN(SL_OP_OR, BIN(SL_OP_EQ, QC("t", "a"), N("1")), fx_bool(0))),
              "BOOLEAN NOT NULL :: (a = 1) OR FALSE");
    CHECK_STR(B(BIN(SL_OP_AND, C("flag"), fx_null())), "BOOLEAN :: flag AND NULL");
    CHECK_STR(B(BIN(SL_OP_AND, C("flag"), at(C("b"), 30))),
              "ERR 42804@30 argument of AND must be type BOOLEAN, not type BIGINT | ");
    CHECK_STR(B(BIN(SL_OP_OR, at(S("x"), 2), C("flag"))),
              "ERR 42804@2 argument of OR must be type BOOLEAN, not type CHAR(1) | ");
    CHECK_STR(B(fx_un(SL_OP_NOT, C("flag"))), "BOOLEAN :: NOT flag");
    CHECK_STR(B(fx_un(SL_OP_NOT, BIN(SL_OP_AND, C("flag"), fx_bool(1)))), "BOOLEAN :: NOT (flag AND TRUE)");
    CHECK_STR(B(fx_un(SL_OP_NOT, at(QC("t", "a"), 4))),
              "ERR 42804@4 argument of NOT must be type BOOLEAN, not type INT | ");
}

static void t_is_between_in_like(void)
{
    CHECK_STR(B(fx_is(C("b"), SL_IS_NULL, false)), "BOOLEAN NOT NULL :: b IS NULL");
    CHECK_STR(B(fx_is(C("name"), SL_IS_NULL, true)), "BOOLEAN NOT NULL :: name IS NOT NULL");
    CHECK_STR(B(fx_is(C("flag"), SL_IS_TRUE, false)), "BOOLEAN NOT NULL :: flag IS TRUE");
    CHECK_STR(B(fx_is(C("flag"), SL_IS_TRUE, true)), "BOOLEAN NOT NULL :: flag IS NOT TRUE");
    CHECK_STR(B(fx_is(C("flag"), SL_IS_FALSE, false)), "BOOLEAN NOT NULL :: flag IS FALSE");
    CHECK_STR(B(fx_is(C("flag"), SL_IS_FALSE, true)), "BOOLEAN NOT NULL :: flag IS NOT FALSE");
    CHECK_STR(B(fx_is(C("flag"), SL_IS_UNKNOWN, false)), "BOOLEAN NOT NULL :: flag IS NULL");
    CHECK_STR(B(fx_is(BIN(SL_OP_ADD, QC("t", "a"), N("1")), SL_IS_NULL, false)),
              "BOOLEAN NOT NULL :: (a + 1) IS NULL");
    CHECK_STR(B(fx_is(at(C("b"), 6), SL_IS_TRUE, false)),
              "ERR 42804@6 argument of IS TRUE must be type BOOLEAN, not type BIGINT | ");

    CHECK_STR(B(fx_between(QC("t", "a"), N("1"), N("10"), false)),
              "BOOLEAN NOT NULL :: a BETWEEN 1 AND 10");
    CHECK_STR(B(fx_between(C("price"), N("1"), N("9.99"), true)),
              "BOOLEAN :: price NOT BETWEEN 1 AND 9.99");
    CHECK_STR(B(fx_between(C("b"), N("1"), at(S("z"), 11), false)),
              "ERR 42804@11 cannot compare BIGINT with CHAR(1) | Use CAST to convert one side.");

    CHECK_STR(B(fx_in(QC("t", "a"), false, fx_list(3, N("1"), N("2"), N("3")))),
              "BOOLEAN NOT NULL :: a IN (1, 2, 3)");
    CHECK_STR(B(fx_in(QC("t", "a"), true, fx_list(2, N("1"), N("2.5")))),
              "BOOLEAN NOT NULL :: a NOT IN (1, 2.5)");
    CHECK_STR(B(fx_in(C("name"), false, fx_list(2, S("x"), fx_null()))), "BOOLEAN :: name IN ('x', NULL)");
    CHECK_STR(B(fx_in(C("name"), false, fx_list(2, S("x"), at(N("1"), 19)))),
              "ERR 42804@19 cannot compare STRING with INT | Use CAST to convert one side.");

    CHECK_STR(B(fx_like(C("name"), S("a%"), NULL, false)), "BOOLEAN :: name LIKE 'a%'");
    CHECK_STR(B(fx_like(S("abc"), S("a!%"), S("!"), true)),
              "BOOLEAN NOT NULL :: 'abc' NOT LIKE 'a!%' ESCAPE '!'");
    CHECK_STR(B(op_at(fx_like(QC("t", "a"), S("1%"), NULL, false), 8)),
              "ERR 42883@8 operator does not exist: INT LIKE CHAR(2) | No operator matches the given "
              "argument types. You might need to add explicit type casts.");
    CHECK_STR(B(fx_like(C("name"), S("a%"), at(S("!!"), 21), false)),
              "ERR 22025@21 invalid escape string | Escape string must be one character.");
    CHECK_STR(B(fx_like(C("name"), S("a%"), at(N("1"), 21), false)),
              "ERR 42804@21 argument of ESCAPE must be a string, not type INT | ");
}

static void t_case(void)
{
    CHECK_STR(B(fx_case(NULL, fx_list(2, BIN(SL_OP_GT, QC("t", "a"), N("1")), S("big")), S("small"))),
              "VARCHAR(5) NOT NULL :: CASE WHEN a > 1 THEN 'big' ELSE 'small' END");
    CHECK_STR(B(fx_case(NULL, fx_list(2, C("flag"), N("1")), NULL)),
              "INT :: CASE WHEN flag THEN 1 END");
    CHECK_STR(B(fx_case(NULL, fx_list(4, C("flag"), N("1"), fx_bool(1), N("2.50")), C("b"))),
              "DECIMAL(21, 2) :: CASE WHEN flag THEN 1 WHEN TRUE THEN 2.50 ELSE b END");
    CHECK_STR(B(fx_case(NULL, fx_list(2, C("flag"), fx_null()), N("1"))),
              "INT :: CASE WHEN flag THEN NULL ELSE 1 END");
    /* simple CASE becomes comparisons */
    CHECK_STR(B(fx_case(QC("t", "a"), fx_list(4, N("1"), S("one"), N("2"), S("two")), S("many"))),
              "VARCHAR(4) NOT NULL :: CASE WHEN a = 1 THEN 'one' WHEN a = 2 THEN 'two' ELSE 'many' END");
    CHECK_STR(B(fx_case(QC("t", "a"), fx_list(2, at(S("x"), 17), N("1")), NULL)),
              "ERR 42804@17 cannot compare INT with CHAR(1) | Use CAST to convert one side.");
    CHECK_STR(B(fx_case(NULL, fx_list(2, at(QC("t", "a"), 10), N("1")), NULL)),
              "ERR 42804@10 argument of CASE/WHEN must be type BOOLEAN, not type INT | ");
    CHECK_STR(B(fx_case(NULL, fx_list(2, C("flag"), N("1")), at(S("x"), 33))),
              "ERR 42804@33 CASE types INT and CHAR(1) cannot be matched | ");
    CHECK_STR(B(at(fx_case(NULL, fx_list(2, C("flag"), fx_null()), NULL), 1)),
              "ERR 42804@1 at least one THEN or ELSE result of CASE must not be NULL | Use CAST(NULL AS "
              "type) to give the result a type.");
}

static void t_cast(void)
{
    CHECK_STR(B(fx_cast(QC("t", "a"), TY(SL_TYPE_BIGINT, 0, 0), false)), "BIGINT NOT NULL :: CAST(a AS BIGINT)");
    CHECK_STR(B(fx_cast(C("name"), TY(SL_TYPE_DECIMAL, 10, 2), false)),
              "DECIMAL(10, 2) :: CAST(name AS DECIMAL(10, 2))");
    CHECK_STR(B(fx_cast(S("12"), TY(SL_TYPE_INT, 0, 0), true)), "INT :: TRY_CAST('12' AS INT)");
    CHECK_STR(B(fx_cast(C("ts"), TY(SL_TYPE_DATE, 0, 0), false)), "DATE :: CAST(ts AS DATE)");
    CHECK_STR(B(fx_cast(C("d"), TY(SL_TYPE_TIMESTAMP, 3, 0), false)),
              "TIMESTAMP(3) NOT NULL :: CAST(d AS TIMESTAMP(3))");
    CHECK_STR(B(fx_cast(C("flag"), TY(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), false)),
              "STRING :: CAST(flag AS STRING)");
    CHECK_STR(B(fx_cast(fx_null(), TY(SL_TYPE_DATE, 0, 0), false)), "DATE :: CAST(NULL AS DATE)");
    CHECK_STR(B(fx_cast(BIN(SL_OP_ADD, QC("t", "a"), N("1")), TY(SL_TYPE_DOUBLE, 0, 0), false)),
              "DOUBLE NOT NULL :: CAST(a + 1 AS DOUBLE)");
    CHECK_STR(B(at(fx_cast(C("flag"), TY(SL_TYPE_DATE, 0, 0), false), 2)),
              "ERR 42846@2 cannot cast type BOOLEAN to DATE | ");
    CHECK_STR(B(at(fx_cast(QC("t", "a"), TY(SL_TYPE_TIMESTAMP, 3, 0), false), 2)),
              "ERR 42846@2 cannot cast type INT to TIMESTAMP(3) | ");
    CHECK_STR(B(at(fx_cast(C("d"), TY(SL_TYPE_TIME, 0, 0), false), 2)),
              "ERR 42846@2 cannot cast type DATE to TIME(0) | ");
    CHECK_STR(B(at(fx_cast(QC("t", "a"), TY(SL_TYPE_DECIMAL, 50, 2), false), 2)),
              "ERR 22023@2 DECIMAL precision 50 must be between 1 and 38 | ");
}

/* ------------------------------------------------------------------------
** Functions.
*/

static void t_string_functions(void)
{
    CHECK_STR(B(F1("upper", C("name"))), "STRING :: UPPER(name)");
    CHECK_STR(B(F1("LOWER", S("AbC"))), "CHAR(3) NOT NULL :: LOWER('AbC')");
    CHECK_STR(B(F2("substring", C("name"), N("2"))), "STRING :: SUBSTRING(name, 2)");
    CHECK_STR(B(F3("substr", S("hello"), N("2"), N("3"))), "VARCHAR(5) NOT NULL :: SUBSTRING('hello', 2, 3)");
    CHECK_STR(B(F1("trim", S(" x "))), "VARCHAR(3) NOT NULL :: TRIM(' x ')");
    CHECK_STR(B(F1("ltrim", C("Name"))), "VARCHAR(20) :: LTRIM(Name)");
    CHECK_STR(B(F1("rtrim", C("name"))), "STRING :: RTRIM(name)");
    CHECK_STR(B(F1("char_length", C("name"))), "INT :: CHAR_LENGTH(name)");
    CHECK_STR(B(F1("character_length", S("abc"))), "INT NOT NULL :: CHAR_LENGTH('abc')");
    CHECK_STR(B(F3("replace", C("name"), S("a"), S("b"))), "STRING :: REPLACE(name, 'a', 'b')");
    CHECK_STR(B(F2("position", S("b"), C("name"))), "INT :: POSITION('b', name)");
    CHECK_STR(B(F3("lpad", C("name"), N("5"), S("0"))), "STRING :: LPAD(name, 5, '0')");
    CHECK_STR(B(F3("rpad", S("x"), N("5"), S("-"))), "STRING NOT NULL :: RPAD('x', 5, '-')");
    CHECK_STR(B(fx_func("concat", fx_list(3, C("name"), S("-"), C("Name")))),
              "STRING :: CONCAT(name, '-', Name)");
    CHECK_STR(B(F2("concat", S("a"), S("b"))), "STRING NOT NULL :: CONCAT('a', 'b')");
    /* type and arity errors name the types and the expected signature */
    CHECK_STR(B(at(F1("upper", N("1")), 7)),
              "ERR 42883@7 function UPPER(INT) does not exist | Expected UPPER(STRING).");
    CHECK_STR(B(at(F2("upper", C("name"), C("name")), 7)),
              "ERR 42883@7 function UPPER(STRING, STRING) does not exist | Expected UPPER(STRING).");
    CHECK_STR(B(at(F0("upper"), 7)), "ERR 42883@7 function UPPER() does not exist | Expected UPPER(STRING).");
    CHECK_STR(B(at(F2("substr", C("name"), S("2")), 0)),
              "ERR 42883@0 function SUBSTR(STRING, CHAR(1)) does not exist | Expected SUBSTRING(STRING, INT [, INT]).");
    CHECK_STR(B(at(F2("concat", C("name"), QC("t", "a")), 0)),
              "ERR 42883@0 function CONCAT(STRING, INT) does not exist | Expected CONCAT(STRING, ...).");
    CHECK_STR(B(at(F3("lpad", C("name"), S("5"), S("0")), 1)),
              "ERR 42883@1 function LPAD(STRING, CHAR(1), CHAR(1)) does not exist | Expected LPAD(STRING, INT, STRING).");
}

static void t_numeric_functions(void)
{
    CHECK_STR(B(F1("abs", C("price"))), "DECIMAL(10, 2) :: ABS(price)");
    CHECK_STR(B(F1("abs", QC("t", "a"))), "INT NOT NULL :: ABS(a)");
    CHECK_STR(B(F1("round", C("amount"))), "DOUBLE :: ROUND(amount)");
    CHECK_STR(B(F1("round", C("price"))), "DECIMAL(9, 0) :: ROUND(price)");
    CHECK_STR(B(F2("round", C("price"), N("1"))), "DECIMAL(10, 1) :: ROUND(price, 1)");
    CHECK_STR(B(F2("round", C("price"), N("5"))), "DECIMAL(10, 2) :: ROUND(price, 5)");
    CHECK_STR(B(F2("round", C("price"), fx_un(SL_OP_NEG, N("1")))), "DECIMAL(9, 0) :: ROUND(price, -1)");
    CHECK_STR(B(F2("round", C("price"), QC("t", "a"))), "DECIMAL(10, 2) :: ROUND(price, a)");
    CHECK_STR(B(F2("round", C("b"), N("2"))), "BIGINT :: ROUND(b, 2)");
    CHECK_STR(B(F1("floor", C("price"))), "DECIMAL(9, 0) :: FLOOR(price)");
    CHECK_STR(B(F1("ceil", C("amount"))), "DOUBLE :: CEIL(amount)");
    CHECK_STR(B(F1("ceiling", QC("t", "a"))), "INT NOT NULL :: CEIL(a)");
    CHECK_STR(B(F2("mod", C("b"), N("3"))), "INT :: MOD(b, 3)");
    CHECK_STR(B(F2("mod", C("price"), N("3"))), "DECIMAL(10, 2) :: MOD(price, 3)");
    CHECK_STR(B(F2("power", QC("t", "a"), N("2"))), "DOUBLE NOT NULL :: POWER(a, 2)");
    CHECK_STR(B(F1("sqrt", C("price"))), "DOUBLE :: SQRT(price)");
    CHECK_STR(B(at(F1("abs", C("name")), 3)),
              "ERR 42883@3 function ABS(STRING) does not exist | Expected ABS(NUMERIC).");
    CHECK_STR(B(at(F2("round", C("price"), N("1.5")), 3)),
              "ERR 42883@3 function ROUND(DECIMAL(10, 2), DECIMAL(2, 1)) does not exist | Expected "
              "ROUND(NUMERIC [, INT]).");
    CHECK_STR(B(at(F1("sqrt", C("ts")), 3)),
              "ERR 42883@3 function SQRT(TIMESTAMP(3)) does not exist | Expected SQRT(NUMERIC).");
}

static void t_conditional_functions(void)
{
    CHECK_STR(B(F2("coalesce", C("b"), N("0"))), "BIGINT NOT NULL :: COALESCE(b, 0)");
    CHECK_STR(B(F2("coalesce", C("b"), C("price"))), "DECIMAL(21, 2) :: COALESCE(b, price)");
    CHECK_STR(B(F2("coalesce", C("name"), S("n/a"))), "STRING NOT NULL :: COALESCE(name, 'n/a')");
    CHECK_STR(B(F2("coalesce", fx_null(), C("b"))), "BIGINT :: COALESCE(NULL, b)");
    CHECK_STR(B(F2("coalesce", C("b"), at(C("name"), 12))),
              "ERR 42804@12 COALESCE types BIGINT and STRING cannot be matched | ");
    CHECK_STR(B(F2("nullif", QC("t", "a"), N("0"))), "INT :: NULLIF(a, 0)");
    CHECK_STR(B(at(F2("nullif", QC("t", "a"), S("0")), 2)),
              "ERR 42883@2 function NULLIF(INT, CHAR(1)) does not exist | Expected NULLIF(value, value) "
              "with comparable values.");
    CHECK_STR(B(F3("if", C("flag"), N("1"), N("2"))), "INT NOT NULL :: IF(flag, 1, 2)");
    CHECK_STR(B(F3("if", C("flag"), S("yes"), C("name"))), "STRING :: IF(flag, 'yes', name)");
    CHECK_STR(B(F3("if", fx_null(), N("1"), N("2"))), "INT NOT NULL :: IF(NULL, 1, 2)");
    CHECK_STR(B(at(F3("if", QC("t", "a"), N("1"), N("2")), 4)),
              "ERR 42883@4 function IF(INT, INT, INT) does not exist | Expected IF(BOOLEAN, value, value) "
              "with values of one common type.");
    CHECK_STR(B(F3("if", C("flag"), N("1"), at(S("x"), 9))),
              "ERR 42804@9 IF types INT and CHAR(1) cannot be matched | ");
}

static void t_time_functions(void)
{
    CHECK_STR(B(F2("date_format", C("ts"), S("yyyy-MM-dd"))), "STRING :: DATE_FORMAT(ts, 'yyyy-MM-dd')");
    CHECK_STR(B(F2("date_format", S("2026-01-01 00:00:00"), S("yyyy"))),
              "STRING :: DATE_FORMAT('2026-01-01 00:00:00', 'yyyy')");
    CHECK_STR(B(F1("to_timestamp", S("2026-01-01 00:00:00"))),
              "TIMESTAMP(3) :: TO_TIMESTAMP('2026-01-01 00:00:00')");
    CHECK_STR(B(F2("to_timestamp", C("name"), S("yyyy"))), "TIMESTAMP(3) :: TO_TIMESTAMP(name, 'yyyy')");
    CHECK_STR(B(F1("to_date", C("name"))), "DATE :: TO_DATE(name)");
    CHECK_STR(B(F0("current_timestamp")), "TIMESTAMP_LTZ(3) NOT NULL :: CURRENT_TIMESTAMP");
    CHECK_STR(B(F0("current_date")), "DATE NOT NULL :: CURRENT_DATE");
    CHECK_STR(B(F0("localtimestamp")), "TIMESTAMP(3) NOT NULL :: LOCALTIMESTAMP");
    CHECK_STR(B(F0("now")), "TIMESTAMP_LTZ(3) NOT NULL :: NOW()");
    /* written without parentheses, the parser gives a column */
    CHECK_STR(B(C("CURRENT_TIMESTAMP")), "TIMESTAMP_LTZ(3) NOT NULL :: CURRENT_TIMESTAMP");
    CHECK_STR(B(C("current_date")), "DATE NOT NULL :: CURRENT_DATE");
    CHECK_STR(B(F0("unix_timestamp")), "BIGINT NOT NULL :: UNIX_TIMESTAMP()");
    CHECK_STR(B(F1("unix_timestamp", C("name"))), "BIGINT :: UNIX_TIMESTAMP(name)");
    CHECK_STR(B(F2("unix_timestamp", S("2026"), S("yyyy"))), "BIGINT :: UNIX_TIMESTAMP('2026', 'yyyy')");
    CHECK_STR(B(F1("from_unixtime", C("b"))), "STRING :: FROM_UNIXTIME(b)");
    CHECK_STR(B(F2("from_unixtime", QC("t", "a"), S("yyyy"))), "STRING NOT NULL :: FROM_UNIXTIME(a, 'yyyy')");
    CHECK_STR(B(at(F1("date_format", C("ts")), 0)),
              "ERR 42883@0 function DATE_FORMAT(TIMESTAMP(3)) does not exist | Expected "
              "DATE_FORMAT(TIMESTAMP, STRING) or DATE_FORMAT(STRING, STRING).");
    CHECK_STR(B(at(F1("to_timestamp", C("b")), 0)),
              "ERR 42883@0 function TO_TIMESTAMP(BIGINT) does not exist | Expected TO_TIMESTAMP(STRING [, STRING]).");
    CHECK_STR(B(at(F1("now", N("1")), 0)), "ERR 42883@0 function NOW(INT) does not exist | Expected NOW().");
    CHECK_STR(B(at(F1("from_unixtime", C("price")), 0)),
              "ERR 42883@0 function FROM_UNIXTIME(DECIMAL(10, 2)) does not exist | Expected "
              "FROM_UNIXTIME(BIGINT [, STRING]).");
}

static void t_function_errors(void)
{
    CHECK_STR(B(at(F1("uper", C("name")), 5)), "ERR 42883@5 function uper does not exist | Did you mean UPPER?");
    CHECK_STR(B(at(F1("frobnicate", C("name")), 5)), "ERR 42883@5 function frobnicate does not exist | ");
    /* aggregates and windows without a hook */
    sl_expr *cnt = F0("count");
    cnt->ival = 1;
    cnt->pos = 6;
    CHECK_STR(run(cnt, "WHERE", NULL), "ERR 42803@6 aggregate functions are not allowed in WHERE | ");
    CHECK_STR(B(at(F1("sum", C("b")), 6)), "ERR 42803@6 aggregate functions are not allowed here | ");
    sl_expr *rn = at(F0("row_number"), 8);
    CHECK_STR(B(rn), "ERR 42P20@8 window function ROW_NUMBER requires an OVER clause | ");
    rn = at(F0("row_number"), 8);
    rn->over = fx_over(NULL, NULL);
    CHECK_STR(run(rn, "WHERE", NULL), "ERR 42P20@8 window functions are not allowed in WHERE | ");
    sl_expr *up = at(F1("upper", C("name")), 2);
    up->over = fx_over(NULL, NULL);
    CHECK_STR(B(up), "ERR 42809@2 OVER specified, but UPPER is not a window function nor an aggregate function | ");
    up = at(F0("upper"), 2);
    up->ival = 1;
    CHECK_STR(B(up), "ERR 42809@2 UPPER(*) specified, but UPPER is not an aggregate function | ");
    up = at(F1("upper", C("name")), 2);
    up->distinct = true;
    CHECK_STR(B(up), "ERR 42809@2 DISTINCT specified, but UPPER is not an aggregate function | ");
    /* an error inside an argument wins and nothing leaks */
    CHECK_STR(B(F2("coalesce", C("b"), at(C("nope"), 40))), "ERR 42703@40 column \"nope\" does not exist | ");
    CHECK_STR(B(BIN(SL_OP_AND, C("flag"), BIN(SL_OP_GT, at(C("nope"), 41), N("1")))),
              "ERR 42703@41 column \"nope\" does not exist | ");
}

/* ------------------------------------------------------------------------
** Hook protocol.
*/

static int hook_calls;

/* Replaces COUNT(*) by input column 1 (as an aggregate's output), leaves
** everything else alone, and fails on a function named BOOM. */
static int count_hook(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **outp)
{
    hook_calls++;
    if (e->kind == SL_EXPR_FUNC && sl_strcasecmp(e->text, "count") == 0 && e->ival == 1) {
        sl_type t = sl_type_make(SL_TYPE_BIGINT);
        t.not_null = true;
        sl_bexpr *b = sl_bexpr_new(SL_BX_COLUMN, t, e->pos);
        b->col = 1;
        *outp = b;
        return 1;
    }
    if (e->kind == SL_EXPR_FUNC && sl_strcasecmp(e->text, "boom") == 0) {
        sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos, "boom");
        return -1;
    }
    return 0;
}

static void t_hook(void)
{
    sl_expr *cnt = F0("count");
    cnt->ival = 1;
    hook_calls = 0;
    CHECK_STR(run(BIN(SL_OP_GT, cnt, N("10")), "HAVING", count_hook), "BOOLEAN NOT NULL :: b > 10");
    CHECK_INT(hook_calls, 3); /* the comparison, COUNT(*) and 10 */
    /* the hook sees nested nodes too */
    cnt = F0("COUNT");
    cnt->ival = 1;
    CHECK_STR(run(F2("coalesce", fx_cast(cnt, sl_type_make(SL_TYPE_INT), false), N("0")), "HAVING", count_hook),
              "INT NOT NULL :: COALESCE(CAST(b AS INT), 0)");
    /* aggregates the hook declines are errors naming the clause */
    CHECK_STR(run(at(F1("sum", C("b")), 3), "HAVING", count_hook),
              "ERR 42803@3 aggregate functions are not allowed in HAVING | ");
    /* a failing hook stops binding */
    CHECK_STR(run(BIN(SL_OP_ADD, N("1"), at(F0("boom"), 4)), NULL, count_hook), "ERR 42803@4 boom | ");
}

/* ------------------------------------------------------------------------
** Conditions, printer, constants.
*/

static const char *cond(sl_expr *e, const char *clause)
{
    sl_error err = SL_ERROR_INIT;
    sl_bind_ctx ctx = {&scope, &err, clause, NULL, NULL, NULL};
    sl_bexpr *b = (sl_bexpr *)0x1;
    int rc = sl_bind_condition(&ctx, e, &b);
    if (rc == 0) {
        char *t = sl_type_to_string(b->type);
        snprintf(out, sizeof out, "%s", t);
        sl_free(t);
    } else {
        CHECK(b == NULL);
        snprintf(out, sizeof out, "ERR %s@%d %s", err.sqlstate, err.position, err.message);
    }
    sl_bexpr_free(rc == 0 ? b : NULL);
    sl_error_reset(&err);
    sl_expr_free(e);
    return out;
}

static void t_condition(void)
{
    CHECK_STR(cond(BIN(SL_OP_GT, C("b"), N("1")), "WHERE"), "BOOLEAN");
    CHECK_STR(cond(C("flag"), "WHERE"), "BOOLEAN");
    CHECK_STR(cond(fx_null(), "WHERE"), "BOOLEAN");
    CHECK_STR(cond(at(QC("t", "a"), 22), "WHERE"), "ERR 42804@22 argument of WHERE must be type BOOLEAN, not type INT");
    CHECK_STR(cond(at(C("name"), 3), "JOIN/ON"),
              "ERR 42804@3 argument of JOIN/ON must be type BOOLEAN, not type STRING");
    CHECK_STR(cond(at(N("1"), 3), NULL), "ERR 42804@3 argument of condition must be type BOOLEAN, not type INT");
    CHECK_STR(cond(at(C("zz"), 3), "WHERE"), "ERR 42703@3 column \"zz\" does not exist");
}

static void t_print_literals(void)
{
    CHECK_STR(B(S("it's")), "CHAR(4) NOT NULL :: 'it''s'");
    CHECK_STR(B(S("")), "VARCHAR(1) NOT NULL :: ''");
    CHECK_STR(B(N("1.50")), "DECIMAL(3, 2) NOT NULL :: 1.50");
    CHECK_STR(B(N("2.5e3")), "DOUBLE NOT NULL :: 2.5e3");
    CHECK_STR(B(fx_null()), "NULL :: NULL");
    CHECK_STR(B(fx_typed(SL_TYPE_TIME, "12:30:00.5")), "TIME(1) NOT NULL :: TIME '12:30:00.5'");
    CHECK_STR(B(fx_typed(SL_TYPE_TIMESTAMP_LTZ, "2026-01-31 12:00:00")),
              "TIMESTAMP_LTZ(0) NOT NULL :: TIMESTAMP_LTZ '2026-01-31 12:00:00'");
    CHECK_STR(B(fx_interval("90", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL :: INTERVAL '90' SECOND");
    CHECK_STR(B(fx_interval("120", SL_UNIT_MINUTE, 0, -1)), "INTERVAL SECOND(3) NOT NULL :: INTERVAL '2' HOUR");
    CHECK_STR(B(fx_interval("1.5", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL :: INTERVAL '1.5' SECOND");
    CHECK_STR(B(fx_interval("0.25", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL :: INTERVAL '0.25' SECOND");
    CHECK_STR(B(fx_interval("1.001", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL :: INTERVAL '1.001' SECOND");
    CHECK_STR(B(fx_interval("-1 00:00", SL_UNIT_DAY, SL_UNIT_MINUTE, -1)),
              "INTERVAL SECOND(3) NOT NULL :: INTERVAL '-1' DAY");
    CHECK_STR(B(fx_interval("0", SL_UNIT_MINUTE, 0, -1)), "INTERVAL SECOND(3) NOT NULL :: INTERVAL '0' SECOND");
    CHECK_STR(B(fx_interval("1-0", SL_UNIT_YEAR, SL_UNIT_MONTH, -1)), "INTERVAL MONTH NOT NULL :: INTERVAL '1' YEAR");
    CHECK_STR(B(fx_interval("-14", SL_UNIT_MONTH, 0, -1)), "INTERVAL MONTH NOT NULL :: INTERVAL '-14' MONTH");

    /* no names: columns print by index */
    sl_bexpr *b = sl_bexpr_new(SL_BX_COLUMN, sl_type_make(SL_TYPE_INT), 0);
    b->col = 3;
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_bexpr_print(&sb, b, NULL);
    CHECK_STR(sl_strbuf_cstr(&sb), "$3");
    sl_strbuf_free(&sb);
    sl_bexpr_free(b);
}

/* Bind e (freed) and report sl_bexpr_is_constant. */
static int is_const(sl_expr *e)
{
    sl_error err = SL_ERROR_INIT;
    sl_bind_ctx ctx = {&scope, &err, NULL, NULL, NULL, NULL};
    sl_bexpr *b = sl_bind_expr(&ctx, e);
    int r = b ? sl_bexpr_is_constant(b) : -1;
    sl_bexpr_free(b);
    sl_error_reset(&err);
    sl_expr_free(e);
    return r;
}

static void t_constant(void)
{
    CHECK_INT(is_const(BIN(SL_OP_ADD, N("1"), N("2"))), 1);
    CHECK_INT(is_const(F1("upper", S("x"))), 1);
    CHECK_INT(is_const(fx_cast(S("1"), sl_type_make(SL_TYPE_INT), false)), 1);
    CHECK_INT(is_const(fx_case(NULL, fx_list(2, fx_bool(1), N("1")), N("2"))), 1);
    CHECK_INT(is_const(BIN(SL_OP_ADD, QC("t", "a"), N("2"))), 0);
    CHECK_INT(is_const(F0("now")), 0);
    CHECK_INT(is_const(C("CURRENT_TIMESTAMP")), 0);
    CHECK_INT(is_const(BIN(SL_OP_SUB, F0("current_timestamp"), fx_interval("1", SL_UNIT_HOUR, 0, -1))), 0);
    CHECK_INT(is_const(F0("unix_timestamp")), 0);
    CHECK_INT(is_const(F1("unix_timestamp", S("2026-01-01 00:00:00"))), 1);
    CHECK_INT(is_const(fx_case(NULL, fx_list(2, fx_bool(1), N("1")), C("b"))), 0);
}

/* ------------------------------------------------------------------------
** From SQL text: parse "SELECT <expr> FROM t" and bind the select item.
** Error positions are reported relative to the start of <expr>.
*/

#define SQL_PREFIX "SELECT "

static const char *Q(const char *expr, const char *clause,
                     int (*hook)(sl_bind_ctx *, const sl_expr *, sl_bexpr **))
{
    static char res[1024];
    char sql[512];
    snprintf(sql, sizeof sql, SQL_PREFIX "%s FROM t", expr);
    sl_error err = SL_ERROR_INIT;
    sl_stmt *s = sl_parse_one(sql, strlen(sql), &err);
    if (!s) {
        snprintf(res, sizeof res, "PARSE ERROR %s@%d %s", err.sqlstate, err.position, err.message);
        sl_error_reset(&err);
        return res;
    }
    REQUIRE(s->kind == SL_STMT_QUERY && s->query && sl_list_len(s->query->items) == 1);
    sl_select_item *it = sl_list_get(s->query->items, 0);
    sl_expr *e = it->expr;
    it->expr = NULL; /* run() frees it */
    sl_stmt_free(s);
    snprintf(res, sizeof res, "%s", run(e, clause, hook));
    /* shift "ERR xxxxx@pos" to be relative to expr */
    int pos;
    char state[6];
    if (sscanf(res, "ERR %5s@%d", state, &pos) == 2) {
        const char *rest = strchr(res, ' ');
        rest = strchr(rest + 1, ' ');
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "ERR %s@%d%s", state, pos - (int)strlen(SQL_PREFIX), rest);
        snprintf(res, sizeof res, "%s", tmp);
    }
    return res;
}

static const char *SQ(const char *expr) { return Q(expr, NULL, NULL); }

static void t_sql_types_and_print(void)
{
    CHECK_STR(SQ("price * 2 > 10 AND UPPER(name) LIKE 'A%'"),
              "BOOLEAN :: ((price * 2) > 10) AND (UPPER(name) LIKE 'A%')");
    CHECK_STR(SQ("t.a + 1 * b"), "BIGINT :: a + (1 * b)");
    CHECK_STR(SQ("(t.a + 1) * b"), "BIGINT :: (a + 1) * b");
    CHECK_STR(SQ("-5"), "INT NOT NULL :: -5");
    CHECK_STR(SQ("12.50 + 0.5"), "DECIMAL(5, 2) NOT NULL :: 12.50 + 0.5");
    CHECK_STR(SQ("CAST(price AS DECIMAL(12, 4))"), "DECIMAL(12, 4) :: CAST(price AS DECIMAL(12, 4))");
    CHECK_STR(SQ("TRY_CAST(name AS INT)"), "INT :: TRY_CAST(name AS INT)");
    CHECK_STR(SQ("CASE t.a WHEN 1 THEN 'one' ELSE 'other' END"),
              "VARCHAR(5) NOT NULL :: CASE WHEN a = 1 THEN 'one' ELSE 'other' END");
    CHECK_STR(SQ("b NOT IN (1, 2)"), "BOOLEAN :: b NOT IN (1, 2)");
    CHECK_STR(SQ("price NOT BETWEEN 1 AND 2"), "BOOLEAN :: price NOT BETWEEN 1 AND 2");
    CHECK_STR(SQ("name IS NOT NULL"), "BOOLEAN NOT NULL :: name IS NOT NULL");
    CHECK_STR(SQ("name LIKE 'a!%' ESCAPE '!'"), "BOOLEAN :: name LIKE 'a!%' ESCAPE '!'");
    CHECK_STR(SQ("CURRENT_TIMESTAMP - INTERVAL '1' HOUR"),
              "TIMESTAMP_LTZ(3) NOT NULL :: CURRENT_TIMESTAMP - INTERVAL '1' HOUR");
    CHECK_STR(SQ("ts + INTERVAL '1 02:00' DAY TO MINUTE"), "TIMESTAMP(3) :: ts + INTERVAL '26' HOUR");
    CHECK_STR(SQ("d - INTERVAL '1-6' YEAR TO MONTH"), "DATE NOT NULL :: d - INTERVAL '18' MONTH");
    CHECK_STR(SQ("TIMESTAMP '2026-01-31 12:00:00.5'"),
              "TIMESTAMP(1) NOT NULL :: TIMESTAMP '2026-01-31 12:00:00.5'");
    CHECK_STR(SQ("COALESCE(name, 'it''s')"), "STRING NOT NULL :: COALESCE(name, 'it''s')");
    CHECK_STR(SQ("IF(flag, t.a, 0)"), "INT NOT NULL :: IF(flag, a, 0)");
    CHECK_STR(SQ("name || '-' || name"), "STRING :: (name || '-') || name");
    CHECK_STR(SQ("DATE_FORMAT(ts, 'yyyy')"), "STRING :: DATE_FORMAT(ts, 'yyyy')");
    CHECK_STR(SQ("NOT flag"), "BOOLEAN :: NOT flag");
    CHECK_STR(SQ("u.d"), "DATE NOT NULL :: d");
}

static void t_sql_errors_positions(void)
{
    CHECK_STR(SQ("UPPER(1)"), "ERR 42883@0 function UPPER(INT) does not exist | Expected UPPER(STRING).");
    CHECK_STR(SQ("name || UPPER(1)"),
              "ERR 42883@8 function UPPER(INT) does not exist | Expected UPPER(STRING).");
    CHECK_STR(SQ("uper(name)"), "ERR 42883@0 function uper does not exist | Did you mean UPPER?");
    CHECK_STR(SQ("b = name"), "ERR 42804@2 cannot compare BIGINT with STRING | Use CAST to convert one side.");
    CHECK_STR(SQ("t.a + name"),
              "ERR 42883@4 operator does not exist: INT + STRING | No operator matches the given "
              "argument types. You might need to add explicit type casts.");
    CHECK_STR(SQ("ts - ts"),
              "ERR 42883@3 operator does not exist: TIMESTAMP(3) - TIMESTAMP(3) | No operator matches "
              "the given argument types. You might need to add explicit type casts.");
    CHECK_STR(SQ("1 + CAST(flag AS DATE)"), "ERR 42846@4 cannot cast type BOOLEAN to DATE | ");
    CHECK_STR(SQ("1 + DATE '2026-02-30'"),
              "ERR 22007@4 invalid date literal '2026-02-30' | Expected DATE 'YYYY-MM-DD'.");
    CHECK_STR(SQ("ts + INTERVAL 'x' SECOND"),
              "ERR 22007@5 invalid interval literal 'x' for SECOND | Expected 'n[.fff]'.");
    CHECK_STR(SQ("b + 123456789012345678901234567890123456789"),
              "ERR 22003@4 numeric literal 123456789012345678901234567890123456789 is out of range | "
              "Integer literals have at most 38 digits.");
    CHECK_STR(SQ("a"), "ERR 42702@0 column reference \"a\" is ambiguous | ");
    CHECK_STR(SQ("price + nme"),
              "ERR 42703@8 column \"nme\" does not exist | Perhaps you meant to reference the column \"name\".");
    CHECK_STR(SQ("t.nme"),
              "ERR 42703@0 column t.nme does not exist | Perhaps you meant to reference the column \"t.name\".");
    CHECK_STR(SQ("x.a"), "ERR 42P01@0 missing FROM-clause entry for table \"x\" | ");
    CHECK_STR(Q("b > 1 AND SUM(b) > 1", "WHERE", NULL),
              "ERR 42803@10 aggregate functions are not allowed in WHERE | ");
    CHECK_STR(SQ("flag AND b"), "ERR 42804@9 argument of AND must be type BOOLEAN, not type BIGINT | ");
}

static void t_sql_hook(void)
{
    hook_calls = 0;
    CHECK_STR(Q("COUNT(*) * 2", "SELECT", count_hook), "BIGINT NOT NULL :: b * 2");
    CHECK_STR(Q("SUM(b)", "SELECT", count_hook), "ERR 42803@0 aggregate functions are not allowed in SELECT | ");
    CHECK(hook_calls > 0);
}

SL_TESTS(t_columns, t_arithmetic, t_concat, t_comparison_and_logic, t_is_between_in_like, t_case,
         t_cast, t_string_functions, t_numeric_functions, t_conditional_functions, t_time_functions,
         t_function_errors, t_hook, t_condition, t_print_literals, t_constant, t_sql_types_and_print,
         t_sql_errors_positions, t_sql_hook)

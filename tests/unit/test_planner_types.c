/*
** test_planner_types.c — Flink's type rules as Sluice implements them
** (planner/types.c), literal typing and validation (sl_bind_literal), the
** function registry and aggregate result types (planner/functions.c).
*/
#include "sl_ast_fixture.h"
#include "sl_bind.h"
#include "sl_test.h"

static sl_type T(sl_type_id id) { return sl_type_make(id); }
static sl_type TP(sl_type_id id, int p, int s) { return sl_type_make_p(id, p, s); }
static sl_type NN(sl_type t) { t.not_null = true; return t; }
static sl_type DEC(int p, int s) { return TP(SL_TYPE_DECIMAL, p, s); }
static sl_type STR(void) { return TP(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0); }

/* Formatted result type, or "none"; in a static buffer (one per call site use). */
static const char *fmt(bool ok, sl_type t)
{
    static char buf[8][64];
    static int k;
    char *b = buf[k++ % 8];
    if (!ok) {
        snprintf(b, 64, "none");
        return b;
    }
    char *s = sl_type_to_string(t);
    snprintf(b, 64, "%s", s);
    sl_free(s);
    return b;
}

static const char *arith(sl_func_id op, sl_type a, sl_type b)
{
    sl_type r;
    bool ok = sl_type_arith(op, a, b, &r);
    return fmt(ok, r);
}

static const char *common(sl_type a, sl_type b)
{
    sl_type r;
    bool ok = sl_type_common(a, b, &r);
    return fmt(ok, r);
}

/* ------------------------------------------------------------------------ */

static void t_arith_integers_and_approx(void)
{
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_TINYINT), T(SL_TYPE_TINYINT)), "TINYINT");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_SMALLINT), T(SL_TYPE_INT)), "INT");
    CHECK_STR(arith(SL_FN_MUL, T(SL_TYPE_INT), T(SL_TYPE_BIGINT)), "BIGINT");
    CHECK_STR(arith(SL_FN_DIV, T(SL_TYPE_INT), T(SL_TYPE_INT)), "INT");
    CHECK_STR(arith(SL_FN_DIV, T(SL_TYPE_BIGINT), T(SL_TYPE_TINYINT)), "BIGINT");
    CHECK_STR(arith(SL_FN_MOD, T(SL_TYPE_BIGINT), T(SL_TYPE_INT)), "INT");
    CHECK_STR(arith(SL_FN_MOD, T(SL_TYPE_INT), T(SL_TYPE_BIGINT)), "BIGINT");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_INT), T(SL_TYPE_FLOAT)), "FLOAT");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_FLOAT), T(SL_TYPE_FLOAT)), "FLOAT");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_FLOAT), T(SL_TYPE_DOUBLE)), "DOUBLE");
    CHECK_STR(arith(SL_FN_SUB, T(SL_TYPE_BIGINT), T(SL_TYPE_DOUBLE)), "DOUBLE");
    CHECK_STR(arith(SL_FN_MUL, DEC(10, 2), T(SL_TYPE_DOUBLE)), "DOUBLE");
    CHECK_STR(arith(SL_FN_MUL, DEC(10, 2), T(SL_TYPE_FLOAT)), "DOUBLE");
    CHECK_STR(arith(SL_FN_MOD, T(SL_TYPE_DOUBLE), T(SL_TYPE_INT)), "DOUBLE");
}

static void t_arith_decimal(void)
{
    /* + / -: scale = max(s1, s2), precision = max(p1-s1, p2-s2) + scale + 1 */
    CHECK_STR(arith(SL_FN_ADD, DEC(10, 2), DEC(5, 3)), "DECIMAL(12, 3)");
    CHECK_STR(arith(SL_FN_SUB, DEC(10, 2), DEC(10, 2)), "DECIMAL(11, 2)");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_INT), DEC(10, 2)), "DECIMAL(13, 2)");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_TINYINT), DEC(2, 1)), "DECIMAL(5, 1)");
    CHECK_STR(arith(SL_FN_ADD, DEC(5, 0), T(SL_TYPE_SMALLINT)), "DECIMAL(6, 0)");
    CHECK_STR(arith(SL_FN_ADD, DEC(38, 2), DEC(38, 2)), "DECIMAL(38, 2)");
    /* *: p1 + p2, s1 + s2 */
    CHECK_STR(arith(SL_FN_MUL, DEC(10, 2), DEC(5, 3)), "DECIMAL(15, 5)");
    CHECK_STR(arith(SL_FN_MUL, DEC(20, 10), DEC(20, 10)), "DECIMAL(38, 18)");
    CHECK_STR(arith(SL_FN_MUL, DEC(38, 0), DEC(38, 0)), "DECIMAL(38, 0)");
    CHECK_STR(arith(SL_FN_MUL, T(SL_TYPE_BIGINT), DEC(20, 2)), "DECIMAL(38, 2)");
    CHECK_STR(arith(SL_FN_MUL, DEC(30, 20), DEC(30, 20)), "DECIMAL(38, 18)");
    CHECK_STR(arith(SL_FN_MUL, DEC(38, 10), DEC(10, 5)), "DECIMAL(38, 6)");
    /* /: scale = max(6, s1 + p2 + 1), precision = p1 - s1 + s2 + scale */
    CHECK_STR(arith(SL_FN_DIV, DEC(10, 2), DEC(5, 3)), "DECIMAL(19, 8)");
    CHECK_STR(arith(SL_FN_DIV, DEC(38, 10), DEC(10, 2)), "DECIMAL(38, 8)");
    CHECK_STR(arith(SL_FN_DIV, T(SL_TYPE_INT), DEC(2, 0)), "DECIMAL(16, 6)");
    CHECK_STR(arith(SL_FN_DIV, DEC(4, 2), T(SL_TYPE_INT)), "DECIMAL(15, 13)");
    /* MOD: scale = max(s1, s2), precision = min(p1-s1, p2-s2) + scale */
    CHECK_STR(arith(SL_FN_MOD, DEC(10, 2), DEC(5, 3)), "DECIMAL(5, 3)");
    CHECK_STR(arith(SL_FN_MOD, T(SL_TYPE_INT), DEC(5, 2)), "DECIMAL(5, 2)");
}

static void t_arith_temporal_and_errors(void)
{
    sl_type ts3 = TP(SL_TYPE_TIMESTAMP, 3, 0), dt = T(SL_TYPE_INTERVAL_DT), ym = T(SL_TYPE_INTERVAL_YM);
    CHECK_STR(arith(SL_FN_ADD, ts3, dt), "TIMESTAMP(3)");
    CHECK_STR(arith(SL_FN_ADD, dt, ts3), "TIMESTAMP(3)");
    CHECK_STR(arith(SL_FN_SUB, ts3, ym), "TIMESTAMP(3)");
    CHECK_STR(arith(SL_FN_SUB, TP(SL_TYPE_TIMESTAMP_LTZ, 3, 0), dt), "TIMESTAMP_LTZ(3)");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_DATE), ym), "DATE");
    CHECK_STR(arith(SL_FN_SUB, T(SL_TYPE_DATE), dt), "DATE");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_TIME), dt), "TIME(0)");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_TIME), ym), "none");
    CHECK_STR(arith(SL_FN_SUB, dt, ts3), "none");
    CHECK_STR(arith(SL_FN_SUB, ts3, ts3), "none");
    CHECK_STR(arith(SL_FN_SUB, T(SL_TYPE_DATE), T(SL_TYPE_DATE)), "none");
    CHECK_STR(arith(SL_FN_ADD, ts3, T(SL_TYPE_INT)), "none");
    CHECK_STR(arith(SL_FN_ADD, dt, dt), "INTERVAL SECOND(3)");
    CHECK_STR(arith(SL_FN_ADD, ym, ym), "INTERVAL MONTH");
    CHECK_STR(arith(SL_FN_ADD, dt, ym), "none");
    CHECK_STR(arith(SL_FN_MUL, dt, T(SL_TYPE_INT)), "INTERVAL SECOND(3)");
    CHECK_STR(arith(SL_FN_MUL, T(SL_TYPE_INT), ym), "INTERVAL MONTH");
    CHECK_STR(arith(SL_FN_DIV, dt, T(SL_TYPE_INT)), "INTERVAL SECOND(3)");
    CHECK_STR(arith(SL_FN_DIV, T(SL_TYPE_INT), dt), "none");
    CHECK_STR(arith(SL_FN_ADD, TP(SL_TYPE_CHAR, 1, 0), T(SL_TYPE_INT)), "none");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_BOOLEAN), T(SL_TYPE_BOOLEAN)), "none");
    CHECK_STR(arith(SL_FN_ADD, T(SL_TYPE_NULL), T(SL_TYPE_NULL)), "none");
}

static void t_arith_nullability(void)
{
    CHECK_STR(arith(SL_FN_ADD, NN(T(SL_TYPE_INT)), NN(T(SL_TYPE_INT))), "INT NOT NULL");
    CHECK_STR(arith(SL_FN_ADD, NN(T(SL_TYPE_INT)), T(SL_TYPE_INT)), "INT");
    CHECK_STR(arith(SL_FN_ADD, NN(T(SL_TYPE_INT)), T(SL_TYPE_NULL)), "INT");
    CHECK_STR(arith(SL_FN_MUL, T(SL_TYPE_NULL), NN(DEC(5, 2))), "DECIMAL(10, 4)");
    CHECK_STR(arith(SL_FN_ADD, NN(TP(SL_TYPE_TIMESTAMP, 3, 0)), NN(T(SL_TYPE_INTERVAL_DT))),
              "TIMESTAMP(3) NOT NULL");
}

static void t_common(void)
{
    CHECK_STR(common(T(SL_TYPE_INT), T(SL_TYPE_BIGINT)), "BIGINT");
    CHECK_STR(common(T(SL_TYPE_TINYINT), T(SL_TYPE_SMALLINT)), "SMALLINT");
    CHECK_STR(common(T(SL_TYPE_INT), DEC(10, 2)), "DECIMAL(12, 2)");
    CHECK_STR(common(DEC(5, 4), DEC(10, 0)), "DECIMAL(14, 4)");
    CHECK_STR(common(DEC(38, 0), DEC(38, 2)), "DECIMAL(38, 2)");
    CHECK_STR(common(T(SL_TYPE_DOUBLE), DEC(10, 2)), "DOUBLE");
    CHECK_STR(common(T(SL_TYPE_FLOAT), T(SL_TYPE_INT)), "FLOAT");
    CHECK_STR(common(TP(SL_TYPE_CHAR, 3, 0), TP(SL_TYPE_CHAR, 3, 0)), "CHAR(3)");
    CHECK_STR(common(TP(SL_TYPE_CHAR, 3, 0), TP(SL_TYPE_CHAR, 5, 0)), "VARCHAR(5)");
    CHECK_STR(common(TP(SL_TYPE_CHAR, 3, 0), STR()), "STRING");
    CHECK_STR(common(TP(SL_TYPE_VARCHAR, 10, 0), TP(SL_TYPE_CHAR, 20, 0)), "VARCHAR(20)");
    CHECK_STR(common(T(SL_TYPE_NULL), NN(T(SL_TYPE_INT))), "INT");
    CHECK_STR(common(NN(T(SL_TYPE_INT)), T(SL_TYPE_NULL)), "INT");
    CHECK_STR(common(T(SL_TYPE_NULL), T(SL_TYPE_NULL)), "NULL");
    CHECK_STR(common(NN(T(SL_TYPE_INT)), NN(T(SL_TYPE_BIGINT))), "BIGINT NOT NULL");
    CHECK_STR(common(NN(T(SL_TYPE_INT)), T(SL_TYPE_BIGINT)), "BIGINT");
    CHECK_STR(common(T(SL_TYPE_DATE), TP(SL_TYPE_TIMESTAMP, 3, 0)), "TIMESTAMP(3)");
    CHECK_STR(common(TP(SL_TYPE_TIMESTAMP, 3, 0), TP(SL_TYPE_TIMESTAMP, 6, 0)), "TIMESTAMP(6)");
    CHECK_STR(common(TP(SL_TYPE_TIMESTAMP_LTZ, 3, 0), TP(SL_TYPE_TIMESTAMP_LTZ, 0, 0)),
              "TIMESTAMP_LTZ(3)");
    CHECK_STR(common(TP(SL_TYPE_TIMESTAMP, 3, 0), TP(SL_TYPE_TIMESTAMP_LTZ, 3, 0)), "none");
    CHECK_STR(common(T(SL_TYPE_BOOLEAN), T(SL_TYPE_BOOLEAN)), "BOOLEAN");
    CHECK_STR(common(T(SL_TYPE_INT), STR()), "none");
    CHECK_STR(common(T(SL_TYPE_BOOLEAN), T(SL_TYPE_INT)), "none");
    CHECK_STR(common(T(SL_TYPE_DATE), T(SL_TYPE_TIME)), "none");
    CHECK_STR(common(T(SL_TYPE_INTERVAL_DT), T(SL_TYPE_INTERVAL_YM)), "none");
}

static void t_assignable(void)
{
    CHECK(sl_type_assignable(T(SL_TYPE_INT), T(SL_TYPE_BIGINT)));
    CHECK(sl_type_assignable(T(SL_TYPE_TINYINT), T(SL_TYPE_INT)));
    CHECK(!sl_type_assignable(T(SL_TYPE_BIGINT), T(SL_TYPE_INT)));
    CHECK(sl_type_assignable(T(SL_TYPE_INT), DEC(12, 2)));
    CHECK(sl_type_assignable(DEC(10, 2), DEC(20, 4)));
    CHECK(!sl_type_assignable(DEC(10, 2), T(SL_TYPE_BIGINT)));
    CHECK(sl_type_assignable(DEC(10, 2), T(SL_TYPE_DOUBLE)));
    CHECK(sl_type_assignable(T(SL_TYPE_INT), T(SL_TYPE_DOUBLE)));
    CHECK(sl_type_assignable(T(SL_TYPE_FLOAT), T(SL_TYPE_DOUBLE)));
    CHECK(!sl_type_assignable(T(SL_TYPE_DOUBLE), T(SL_TYPE_FLOAT)));
    CHECK(!sl_type_assignable(T(SL_TYPE_DOUBLE), DEC(10, 2)));
    CHECK(sl_type_assignable(TP(SL_TYPE_CHAR, 3, 0), STR()));
    CHECK(sl_type_assignable(STR(), TP(SL_TYPE_VARCHAR, 10, 0)));
    CHECK(!sl_type_assignable(STR(), T(SL_TYPE_INT)));
    CHECK(!sl_type_assignable(T(SL_TYPE_INT), STR()));
    CHECK(!sl_type_assignable(T(SL_TYPE_BOOLEAN), T(SL_TYPE_INT)));
    CHECK(sl_type_assignable(T(SL_TYPE_DATE), TP(SL_TYPE_TIMESTAMP, 3, 0)));
    CHECK(sl_type_assignable(TP(SL_TYPE_TIMESTAMP, 6, 0), TP(SL_TYPE_TIMESTAMP, 3, 0)));
    CHECK(sl_type_assignable(TP(SL_TYPE_TIMESTAMP, 3, 0), TP(SL_TYPE_TIMESTAMP_LTZ, 3, 0)));
    CHECK(!sl_type_assignable(TP(SL_TYPE_TIMESTAMP, 3, 0), T(SL_TYPE_DATE)));
    CHECK(!sl_type_assignable(STR(), TP(SL_TYPE_TIMESTAMP, 3, 0)));
    CHECK(sl_type_assignable(T(SL_TYPE_NULL), T(SL_TYPE_DATE)));
    CHECK(sl_type_assignable(T(SL_TYPE_INTERVAL_DT), T(SL_TYPE_INTERVAL_DT)));
    CHECK(!sl_type_assignable(T(SL_TYPE_INTERVAL_DT), T(SL_TYPE_INTERVAL_YM)));
    /* nullability is not part of assignability (the sink enforces NOT NULL) */
    CHECK(sl_type_assignable(T(SL_TYPE_INT), NN(T(SL_TYPE_INT))));
}

static void t_comparable(void)
{
    CHECK(sl_type_comparable(T(SL_TYPE_INT), DEC(10, 2)));
    CHECK(sl_type_comparable(T(SL_TYPE_TINYINT), T(SL_TYPE_DOUBLE)));
    CHECK(sl_type_comparable(TP(SL_TYPE_CHAR, 3, 0), STR()));
    CHECK(sl_type_comparable(TP(SL_TYPE_TIMESTAMP, 3, 0), TP(SL_TYPE_TIMESTAMP, 9, 0)));
    CHECK(sl_type_comparable(T(SL_TYPE_DATE), T(SL_TYPE_DATE)));
    CHECK(sl_type_comparable(T(SL_TYPE_BOOLEAN), T(SL_TYPE_BOOLEAN)));
    CHECK(sl_type_comparable(T(SL_TYPE_NULL), T(SL_TYPE_DATE)));
    CHECK(sl_type_comparable(STR(), T(SL_TYPE_NULL)));
    CHECK(sl_type_comparable(T(SL_TYPE_INTERVAL_DT), T(SL_TYPE_INTERVAL_DT)));
    CHECK(!sl_type_comparable(T(SL_TYPE_INT), STR()));
    CHECK(!sl_type_comparable(STR(), T(SL_TYPE_INT)));
    CHECK(!sl_type_comparable(T(SL_TYPE_DATE), TP(SL_TYPE_TIMESTAMP, 3, 0)));
    CHECK(!sl_type_comparable(T(SL_TYPE_BOOLEAN), T(SL_TYPE_INT)));
    CHECK(!sl_type_comparable(TP(SL_TYPE_TIMESTAMP, 3, 0), TP(SL_TYPE_TIMESTAMP_LTZ, 3, 0)));
    CHECK(!sl_type_comparable(T(SL_TYPE_INTERVAL_DT), T(SL_TYPE_INTERVAL_YM)));
    CHECK(!sl_type_comparable(STR(), T(SL_TYPE_DATE)));
}

static void t_castable(void)
{
    sl_type ts = TP(SL_TYPE_TIMESTAMP, 3, 0), ltz = TP(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
    sl_type s = STR(), b = T(SL_TYPE_BOOLEAN), i = T(SL_TYPE_INT), d = DEC(10, 2);
    /* allowed */
    CHECK(sl_type_castable(i, d));
    CHECK(sl_type_castable(d, T(SL_TYPE_TINYINT)));
    CHECK(sl_type_castable(T(SL_TYPE_DOUBLE), T(SL_TYPE_BIGINT)));
    CHECK(sl_type_castable(i, s));
    CHECK(sl_type_castable(s, d));
    CHECK(sl_type_castable(b, s));
    CHECK(sl_type_castable(s, b));
    CHECK(sl_type_castable(b, i));
    CHECK(sl_type_castable(i, b));
    CHECK(sl_type_castable(s, ts));
    CHECK(sl_type_castable(s, T(SL_TYPE_DATE)));
    CHECK(sl_type_castable(s, T(SL_TYPE_TIME)));
    CHECK(sl_type_castable(ts, s));
    CHECK(sl_type_castable(T(SL_TYPE_DATE), ts));
    CHECK(sl_type_castable(ts, T(SL_TYPE_DATE)));
    CHECK(sl_type_castable(ts, ltz));
    CHECK(sl_type_castable(ltz, ts));
    CHECK(sl_type_castable(ts, T(SL_TYPE_TIME)));
    CHECK(sl_type_castable(T(SL_TYPE_NULL), T(SL_TYPE_DATE)));
    CHECK(sl_type_castable(s, TP(SL_TYPE_VARBINARY, 10, 0)));
    CHECK(sl_type_castable(T(SL_TYPE_INTERVAL_DT), s));
    CHECK(sl_type_castable(ts, TP(SL_TYPE_TIMESTAMP, 9, 0)));
    /* rejected */
    CHECK(!sl_type_castable(b, T(SL_TYPE_DATE)));
    CHECK(!sl_type_castable(T(SL_TYPE_DATE), b));
    CHECK(!sl_type_castable(i, ts));
    CHECK(!sl_type_castable(ts, i));
    CHECK(!sl_type_castable(T(SL_TYPE_DATE), T(SL_TYPE_TIME)));
    CHECK(!sl_type_castable(T(SL_TYPE_TIME), T(SL_TYPE_DATE)));
    CHECK(!sl_type_castable(i, T(SL_TYPE_INTERVAL_DT)));
    CHECK(!sl_type_castable(s, T(SL_TYPE_INTERVAL_DT)));
    CHECK(!sl_type_castable(TP(SL_TYPE_VARBINARY, 10, 0), i));
}

/* ------------------------------------------------------------------------
** Literals.
*/

/* Bind a literal node (takes and frees e); returns "TYPE|text" or
** "ERR sqlstate@pos message" (static buffer). */
static const char *lit(sl_expr *e)
{
    static char buf[512];
    e->pos = 7;
    sl_error err = SL_ERROR_INIT;
    sl_bexpr *b = sl_bind_literal(e, &err);
    if (!b) {
        snprintf(buf, sizeof buf, "ERR %s@%d %s", err.sqlstate, err.position,
                 err.message ? err.message : "?");
    } else {
        char *t = sl_type_to_string(b->type);
        snprintf(buf, sizeof buf, "%s|%s", t, b->text ? b->text : "(null)");
        sl_free(t);
        CHECK(!sl_error_isset(&err));
    }
    sl_bexpr_free(b);
    sl_error_reset(&err);
    sl_expr_free(e);
    return buf;
}

static void t_literal_numbers(void)
{
    CHECK_STR(lit(fx_num("12")), "INT NOT NULL|12");
    CHECK_STR(lit(fx_num("007")), "INT NOT NULL|7");
    CHECK_STR(lit(fx_num("0")), "INT NOT NULL|0");
    CHECK_STR(lit(fx_num("000")), "INT NOT NULL|0");
    CHECK_STR(lit(fx_num("2147483647")), "INT NOT NULL|2147483647");
    CHECK_STR(lit(fx_num("2147483648")), "BIGINT NOT NULL|2147483648");
    CHECK_STR(lit(fx_num("9223372036854775807")), "BIGINT NOT NULL|9223372036854775807");
    CHECK_STR(lit(fx_num("9223372036854775808")), "DECIMAL(19, 0) NOT NULL|9223372036854775808");
    CHECK_STR(lit(fx_num("12345678901234567890123456789012345678")),
              "DECIMAL(38, 0) NOT NULL|12345678901234567890123456789012345678");
    CHECK_STR(lit(fx_num("123456789012345678901234567890123456789")),
              "ERR 22003@7 numeric literal 123456789012345678901234567890123456789 is out of range");
    CHECK_STR(lit(fx_num("12.50")), "DECIMAL(4, 2) NOT NULL|12.50");
    CHECK_STR(lit(fx_num("0.5")), "DECIMAL(1, 1) NOT NULL|0.5");
    CHECK_STR(lit(fx_num(".5")), "DECIMAL(1, 1) NOT NULL|0.5");
    CHECK_STR(lit(fx_num("00.050")), "DECIMAL(3, 3) NOT NULL|0.050");
    CHECK_STR(lit(fx_num("5.")), "DECIMAL(1, 0) NOT NULL|5");
    CHECK_STR(lit(fx_num("0.")), "DECIMAL(1, 0) NOT NULL|0");
    CHECK_STR(lit(fx_num("100.001")), "DECIMAL(6, 3) NOT NULL|100.001");
    CHECK_STR(lit(fx_num("1234567890123456789012345678901234567.8")),
              "DECIMAL(38, 1) NOT NULL|1234567890123456789012345678901234567.8");
    CHECK_STR(lit(fx_num("1234567890123456789012345678901234567.89")),
              "ERR 22003@7 numeric literal 1234567890123456789012345678901234567.89 is out of range");
    CHECK_STR(lit(fx_num("1e3")), "DOUBLE NOT NULL|1e3");
    CHECK_STR(lit(fx_num("1.5E-3")), "DOUBLE NOT NULL|1.5E-3");
    CHECK_STR(lit(fx_num("1e999")), "ERR 22003@7 numeric literal 1e999 is out of range for type DOUBLE");
    CHECK_STR(lit(fx_num("1e")), "ERR 22P02@7 invalid input syntax for type DOUBLE: \"1e\"");
    CHECK_STR(lit(fx_num("1.2.3")), "ERR 22P02@7 invalid input syntax for type numeric: \"1.2.3\"");
}

static void t_literal_simple(void)
{
    CHECK_STR(lit(fx_str("abc")), "CHAR(3) NOT NULL|abc");
    CHECK_STR(lit(fx_str("h\xc3\xa9llo")), "CHAR(5) NOT NULL|h\xc3\xa9llo"); /* 5 characters, 6 bytes */
    CHECK_STR(lit(fx_str("it's")), "CHAR(4) NOT NULL|it's");
    CHECK_STR(lit(fx_str("")), "VARCHAR(1) NOT NULL|");
    CHECK_STR(lit(fx_bool(1)), "BOOLEAN NOT NULL|TRUE");
    CHECK_STR(lit(fx_bool(0)), "BOOLEAN NOT NULL|FALSE");
    CHECK_STR(lit(fx_null()), "NULL|(null)");
}

static void t_literal_datetime(void)
{
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2026-01-31")), "DATE NOT NULL|2026-01-31");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, " 2026-1-5 ")), "DATE NOT NULL|2026-01-05");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2024-02-29")), "DATE NOT NULL|2024-02-29");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2000-02-29")), "DATE NOT NULL|2000-02-29");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2026-02-30")), "ERR 22007@7 invalid date literal '2026-02-30'");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2023-02-29")), "ERR 22007@7 invalid date literal '2023-02-29'");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "1900-02-29")), "ERR 22007@7 invalid date literal '1900-02-29'");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2026-13-01")), "ERR 22007@7 invalid date literal '2026-13-01'");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2026-04-31")), "ERR 22007@7 invalid date literal '2026-04-31'");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "2026-01-01 00:00:00")),
              "ERR 22007@7 invalid date literal '2026-01-01 00:00:00'");
    CHECK_STR(lit(fx_typed(SL_TYPE_DATE, "yesterday")), "ERR 22007@7 invalid date literal 'yesterday'");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIME, "12:00:00")), "TIME(0) NOT NULL|12:00:00");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIME, "9:05:01.250")), "TIME(3) NOT NULL|09:05:01.250");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIME, "24:00:00")), "ERR 22007@7 invalid time literal '24:00:00'");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIME, "12:60:00")), "ERR 22007@7 invalid time literal '12:60:00'");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-01-31 12:00:00")),
              "TIMESTAMP(0) NOT NULL|2026-01-31 12:00:00");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-01-31 12:00:00.123")),
              "TIMESTAMP(3) NOT NULL|2026-01-31 12:00:00.123");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-01-31 12:00:00.123456789")),
              "TIMESTAMP(9) NOT NULL|2026-01-31 12:00:00.123456789");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-01-31 12:00:00.1234567890")),
              "ERR 22007@7 invalid timestamp literal '2026-01-31 12:00:00.1234567890'");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP_LTZ, "2026-01-31 1:02:03.5")),
              "TIMESTAMP_LTZ(1) NOT NULL|2026-01-31 01:02:03.5");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-01-31")),
              "ERR 22007@7 invalid timestamp literal '2026-01-31'");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-02-30 00:00:00")),
              "ERR 22007@7 invalid timestamp literal '2026-02-30 00:00:00'");
    CHECK_STR(lit(fx_typed(SL_TYPE_TIMESTAMP, "2026-01-3112:00:00")),
              "ERR 22007@7 invalid timestamp literal '2026-01-3112:00:00'");

    /* the hint names the expected form */
    sl_error err = SL_ERROR_INIT;
    sl_expr *e = fx_typed(SL_TYPE_DATE, "2026-02-30");
    CHECK(sl_bind_literal(e, &err) == NULL);
    CHECK_STR(err.hint, "Expected DATE 'YYYY-MM-DD'.");
    sl_error_reset(&err);
    sl_expr_free(e);
}

static void t_literal_interval(void)
{
    CHECK_STR(lit(fx_interval("5", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|5000");
    CHECK_STR(lit(fx_interval("1.5", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|1500");
    CHECK_STR(lit(fx_interval("0.001", SL_UNIT_SECOND, 0, 3)), "INTERVAL SECOND(3) NOT NULL|1");
    CHECK_STR(lit(fx_interval("10", SL_UNIT_MINUTE, 0, -1)), "INTERVAL SECOND(3) NOT NULL|600000");
    CHECK_STR(lit(fx_interval("2", SL_UNIT_HOUR, 0, -1)), "INTERVAL SECOND(3) NOT NULL|7200000");
    CHECK_STR(lit(fx_interval("1", SL_UNIT_DAY, 0, -1)), "INTERVAL SECOND(3) NOT NULL|86400000");
    CHECK_STR(lit(fx_interval("250", SL_UNIT_MILLISECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|250");
    CHECK_STR(lit(fx_interval("-5", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|-5000");
    CHECK_STR(lit(fx_interval(" +5 ", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|5000");
    CHECK_STR(lit(fx_interval("-0", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|0");
    CHECK_STR(lit(fx_interval("1 02:03:04.5", SL_UNIT_DAY, SL_UNIT_SECOND, -1)),
              "INTERVAL SECOND(3) NOT NULL|93784500");
    CHECK_STR(lit(fx_interval("1 02", SL_UNIT_DAY, SL_UNIT_HOUR, -1)),
              "INTERVAL SECOND(3) NOT NULL|93600000");
    CHECK_STR(lit(fx_interval("1 02:30", SL_UNIT_DAY, SL_UNIT_MINUTE, -1)),
              "INTERVAL SECOND(3) NOT NULL|95400000");
    CHECK_STR(lit(fx_interval("01:30", SL_UNIT_HOUR, SL_UNIT_MINUTE, -1)),
              "INTERVAL SECOND(3) NOT NULL|5400000");
    CHECK_STR(lit(fx_interval("-1:00:01", SL_UNIT_HOUR, SL_UNIT_SECOND, -1)),
              "INTERVAL SECOND(3) NOT NULL|-3601000");
    CHECK_STR(lit(fx_interval("90:30", SL_UNIT_MINUTE, SL_UNIT_SECOND, -1)),
              "INTERVAL SECOND(3) NOT NULL|5430000");
    CHECK_STR(lit(fx_interval("2", SL_UNIT_YEAR, 0, -1)), "INTERVAL MONTH NOT NULL|24");
    CHECK_STR(lit(fx_interval("14", SL_UNIT_MONTH, 0, -1)), "INTERVAL MONTH NOT NULL|14");
    CHECK_STR(lit(fx_interval("1-2", SL_UNIT_YEAR, SL_UNIT_MONTH, -1)), "INTERVAL MONTH NOT NULL|14");
    CHECK_STR(lit(fx_interval("-1-2", SL_UNIT_YEAR, SL_UNIT_MONTH, -1)), "INTERVAL MONTH NOT NULL|-14");
    /* errors */
    CHECK_STR(lit(fx_interval("abc", SL_UNIT_SECOND, 0, -1)),
              "ERR 22007@7 invalid interval literal 'abc' for SECOND");
    CHECK_STR(lit(fx_interval("1.5", SL_UNIT_MINUTE, 0, -1)),
              "ERR 22007@7 invalid interval literal '1.5' for MINUTE");
    CHECK_STR(lit(fx_interval("", SL_UNIT_DAY, 0, -1)), "ERR 22007@7 invalid interval literal '' for DAY");
    CHECK_STR(lit(fx_interval("1-12", SL_UNIT_YEAR, SL_UNIT_MONTH, -1)),
              "ERR 22007@7 invalid interval literal '1-12' for YEAR TO MONTH");
    CHECK_STR(lit(fx_interval("1 24:00:00", SL_UNIT_DAY, SL_UNIT_SECOND, -1)),
              "ERR 22007@7 invalid interval literal '1 24:00:00' for DAY TO SECOND");
    CHECK_STR(lit(fx_interval("1:60", SL_UNIT_HOUR, SL_UNIT_MINUTE, -1)),
              "ERR 22007@7 invalid interval literal '1:60' for HOUR TO MINUTE");
    CHECK_STR(lit(fx_interval("5", SL_UNIT_DAY, SL_UNIT_SECOND, -1)),
              "ERR 22007@7 invalid interval literal '5' for DAY TO SECOND");
    CHECK_STR(lit(fx_interval("1.0005", SL_UNIT_SECOND, 0, -1)),
              "ERR 22007@7 interval literal '1.0005' is more precise than milliseconds");
    CHECK_STR(lit(fx_interval("1.000500000", SL_UNIT_SECOND, 0, -1)),
              "ERR 22007@7 interval literal '1.000500000' is more precise than milliseconds");
    CHECK_STR(lit(fx_interval("1.500000", SL_UNIT_SECOND, 0, -1)), "INTERVAL SECOND(3) NOT NULL|1500");
    CHECK_STR(lit(fx_interval("999999999999999999", SL_UNIT_DAY, 0, -1)),
              "ERR 22007@7 interval literal '999999999999999999' is out of range");
    CHECK_STR(lit(fx_interval("9223372036854776", SL_UNIT_SECOND, 0, -1)),
              "ERR 22007@7 interval literal '9223372036854776' is out of range");
    CHECK_STR(lit(fx_interval("9223372036854775", SL_UNIT_SECOND, 0, -1)),
              "INTERVAL SECOND(3) NOT NULL|9223372036854775000");
    CHECK_STR(lit(fx_interval("3000000000", SL_UNIT_MONTH, 0, -1)),
              "ERR 22007@7 interval literal '3000000000' is out of range");
    CHECK_STR(lit(fx_interval("1", SL_UNIT_MONTH, SL_UNIT_DAY, -1)),
              "ERR 42601@7 invalid interval qualifier MONTH TO DAY");

    sl_error err = SL_ERROR_INIT;
    sl_expr *e = fx_interval("1:2:3", SL_UNIT_DAY, SL_UNIT_SECOND, -1);
    CHECK(sl_bind_literal(e, &err) == NULL);
    CHECK_STR(err.hint, "Expected 'D H:M:S[.fff]'.");
    sl_error_reset(&err);
    sl_expr_free(e);
}

/* ------------------------------------------------------------------------
** Registry and aggregates.
*/

static void t_registry(void)
{
    const sl_func *f = sl_func_find("upper");
    REQUIRE(f != NULL);
    CHECK_STR(f->name, "UPPER");
    CHECK_INT(f->id, SL_FN_UPPER);
    CHECK_INT(f->kind, SL_FUNC_SCALAR);
    CHECK(sl_func_find("SubStr") == sl_func_find("SUBSTRING"));
    CHECK(sl_func_find("character_length") == sl_func_get(SL_FN_CHAR_LENGTH));
    CHECK(sl_func_find("ceiling") == sl_func_get(SL_FN_CEIL));
    CHECK_INT(sl_func_find("mod")->id, SL_FN_MOD_FN);
    CHECK_INT(sl_func_find("concat")->id, SL_FN_CONCAT_FN);
    CHECK_INT(sl_func_find("count")->kind, SL_FUNC_AGGREGATE);
    CHECK_INT(sl_func_find("row_number")->kind, SL_FUNC_WINDOW);
    CHECK(sl_func_find("+") == NULL);
    CHECK(sl_func_find("AND") == NULL);
    CHECK(sl_func_find("IS NULL") == NULL);
    CHECK(sl_func_find("nope") == NULL);
    CHECK_STR(sl_func_get(SL_FN_ADD)->name, "+");
    CHECK_STR(sl_func_get(SL_FN_NE)->name, "<>");
    /* every id has an entry whose id matches its slot */
    for (int i = 0; i < SL_FN__COUNT; i++) {
        const sl_func *g = sl_func_get((sl_func_id)i);
        REQUIRE(g != NULL);
        CHECK_INT(g->id, i);
    }
    int n = 0;
    const char *const *names = sl_func_names(&n);
    CHECK(n >= 40);
    CHECK(names[n] == NULL);
    for (int i = 0; i < n; i++)
        CHECK(sl_func_find(names[i]) != NULL);

    CHECK(sl_func_is_deterministic(sl_func_get(SL_FN_UPPER), 1));
    CHECK(!sl_func_is_deterministic(sl_func_get(SL_FN_NOW), 0));
    CHECK(!sl_func_is_deterministic(sl_func_get(SL_FN_CURRENT_TIMESTAMP), 0));
    CHECK(!sl_func_is_deterministic(sl_func_get(SL_FN_UNIX_TIMESTAMP), 0));
    CHECK(sl_func_is_deterministic(sl_func_get(SL_FN_UNIX_TIMESTAMP), 1));
}

static const char *agg(sl_func_id id, const sl_type *arg)
{
    static char buf[256];
    sl_error err = SL_ERROR_INIT;
    sl_type r;
    if (sl_func_agg_type(sl_func_get(id), arg, 3, &r, &err) == 0) {
        char *s = sl_type_to_string(r);
        snprintf(buf, sizeof buf, "%s", s);
        sl_free(s);
    } else {
        snprintf(buf, sizeof buf, "ERR %s@%d %s | %s", err.sqlstate, err.position, err.message,
                 err.hint ? err.hint : "");
    }
    sl_error_reset(&err);
    return buf;
}

static void t_agg_types(void)
{
    sl_type i = NN(T(SL_TYPE_INT)), ti = T(SL_TYPE_TINYINT), d = DEC(10, 2), d8 = DEC(20, 8);
    sl_type db = T(SL_TYPE_DOUBLE), fl = T(SL_TYPE_FLOAT), s = STR(), ts = TP(SL_TYPE_TIMESTAMP, 3, 0);
    CHECK_STR(agg(SL_FN_COUNT, NULL), "BIGINT NOT NULL");
    CHECK_STR(agg(SL_FN_COUNT, &s), "BIGINT NOT NULL");
    CHECK_STR(agg(SL_FN_SUM, &i), "BIGINT");
    CHECK_STR(agg(SL_FN_SUM, &ti), "BIGINT");
    CHECK_STR(agg(SL_FN_SUM, &d), "DECIMAL(38, 2)");
    CHECK_STR(agg(SL_FN_SUM, &fl), "DOUBLE");
    CHECK_STR(agg(SL_FN_SUM, &db), "DOUBLE");
    CHECK_STR(agg(SL_FN_SUM, &s), "ERR 42883@3 function SUM(STRING) does not exist | Expected SUM(NUMERIC).");
    CHECK_STR(agg(SL_FN_AVG, &i), "INT");
    CHECK_STR(agg(SL_FN_AVG, &ti), "TINYINT");
    CHECK_STR(agg(SL_FN_AVG, &d), "DECIMAL(38, 6)");
    CHECK_STR(agg(SL_FN_AVG, &d8), "DECIMAL(38, 8)");
    CHECK_STR(agg(SL_FN_AVG, &db), "DOUBLE");
    CHECK_STR(agg(SL_FN_AVG, &ts), "ERR 42883@3 function AVG(TIMESTAMP(3)) does not exist | Expected AVG(NUMERIC).");
    CHECK_STR(agg(SL_FN_MIN, &i), "INT");
    CHECK_STR(agg(SL_FN_MAX, &s), "STRING");
    CHECK_STR(agg(SL_FN_MAX, &ts), "TIMESTAMP(3)");
    CHECK_STR(agg(SL_FN_MAX, NULL), "ERR 42883@3 function MAX() does not exist | Expected MAX(value).");
    CHECK_STR(agg(SL_FN_ROW_NUMBER, NULL), "BIGINT NOT NULL");
    sl_type v20 = TP(SL_TYPE_VARCHAR, 20, 0), c3 = NN(TP(SL_TYPE_CHAR, 3, 0));
    CHECK_STR(agg(SL_FN_LISTAGG, &s), "STRING");
    CHECK_STR(agg(SL_FN_LISTAGG, &v20), "STRING");
    CHECK_STR(agg(SL_FN_LISTAGG, &c3), "STRING");
    CHECK_STR(agg(SL_FN_LISTAGG, &i),
              "ERR 42883@3 function LISTAGG(INT) does not exist | Expected LISTAGG(STRING [, STRING]).");
    CHECK(sl_func_find("string_agg") == sl_func_get(SL_FN_LISTAGG));
}

SL_TESTS(t_arith_integers_and_approx, t_arith_decimal, t_arith_temporal_and_errors,
         t_arith_nullability, t_common, t_assignable, t_comparable, t_castable,
         t_literal_numbers, t_literal_simple, t_literal_datetime, t_literal_interval, t_registry,
         t_agg_types)

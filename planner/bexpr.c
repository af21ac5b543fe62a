/*
** bexpr.c — bound expressions: construction, lifetime, deep copy, the
** readable printer used by EXPLAIN, and the constant test.
**
** Printer conventions (stable; EXPLAIN output and golden files rely on them):
**   - operators infix ("a + b", "a AND b", "a || b"), prefix ("-a", "NOT a"),
**     postfix ("a IS NULL"); an operator operand of an operator is wrapped
**     in parentheses: "(a + b) * c", "(x > 1) AND (y LIKE 'A%')";
**   - "x BETWEEN a AND b", "x NOT IN (1, 2)", "x LIKE p ESCAPE '!'";
**   - functions upper-case with their arguments: "UPPER(name)"; COUNT with no
**     argument prints "COUNT(*)"; CURRENT_TIMESTAMP, CURRENT_DATE and
**     LOCALTIMESTAMP print without parentheses;
**   - "CAST(x AS DECIMAL(10, 2))" / "TRY_CAST(...)" (target without NOT NULL);
**   - "CASE WHEN c THEN r ... ELSE e END";
**   - columns by name (back-quoted unless [A-Za-z_$][A-Za-z0-9_$]*), "$3"
**     when no names are given;
**   - literals as SQL: 12, 1.50, 1e3, TRUE, NULL, 'it''s', X'0a1b', DATE '2026-01-31',
**     TIME '..', TIMESTAMP '..', TIMESTAMP_LTZ '..'; INTERVAL_DT milliseconds
**     in the largest unit that divides them (INTERVAL '2' HOUR, INTERVAL '90'
**     SECOND), else INTERVAL '1.5' SECOND; INTERVAL_YM as INTERVAL 'n' YEAR
**     when divisible by 12, else INTERVAL 'n' MONTH; negative values keep
**     their sign inside the quotes.
**
** Main routines: sl_bexpr_new, sl_bexpr_free, sl_bexpr_dup, sl_bexpr_print,
** sl_bexpr_is_constant.
*/
#include "sl_bind.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

sl_bexpr *sl_bexpr_new(sl_bexpr_kind kind, sl_type type, int pos)
{
    sl_bexpr *b = sl_calloc(1, sizeof(sl_bexpr));
    b->kind = kind;
    b->type = type;
    b->pos = pos;
    b->col = -1;
    return b;
}

void sl_bexpr_free(sl_bexpr *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->nargs; i++)
        sl_bexpr_free(b->args[i]);
    sl_free(b->args);
    sl_free(b->text);
    sl_free(b);
}

sl_bexpr *sl_bexpr_dup(const sl_bexpr *b)
{
    if (!b)
        return NULL;
    sl_bexpr *d = sl_malloc(sizeof(sl_bexpr));
    *d = *b;
    d->text = sl_strdup(b->text);
    d->args = NULL;
    if (b->nargs > 0) {
        d->args = sl_malloc((size_t)b->nargs * sizeof(sl_bexpr *));
        for (int i = 0; i < b->nargs; i++)
            d->args[i] = sl_bexpr_dup(b->args[i]);
    }
    return d;
}

/* ------------------------------------------------------------------------
** Printing.
*/

/* Whether b prints as an operator form that needs parentheses when it is
** the operand of another operator. */
static bool sl__is_operator(const sl_bexpr *b)
{
    return b->kind == SL_BX_CALL && b->fn && b->fn->id < SL_FN_UPPER;
}

static void sl__print(sl_strbuf *sb, const sl_bexpr *b, const char *const *names);

/* Print an operand of an operator, parenthesized when it is one itself. */
static void sl__print_operand(sl_strbuf *sb, const sl_bexpr *b, const char *const *names)
{
    if (sl__is_operator(b)) {
        sl_strbuf_append_char(sb, '(');
        sl__print(sb, b, names);
        sl_strbuf_append_char(sb, ')');
    } else {
        sl__print(sb, b, names);
    }
}

/* A column name, back-quoted unless it is a plain identifier; '$' counts as
** plain so the planner's own names (EXPR$0, $f1, agg$0) print as Flink's do. */
static void sl__print_name(sl_strbuf *sb, const char *name)
{
    bool plain = name[0] != 0 && (isalpha((unsigned char)name[0]) || name[0] == '_' ||
                                  name[0] == '$');
    for (const char *p = name; plain && *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '$')
            plain = false;
    if (plain)
        sl_strbuf_append(sb, name);
    else
        sl_strbuf_append_quoted(sb, name, '`');
}

void sl_interval_print(sl_strbuf *sb, sl_type_id id, int64_t value)
{
    long long v = (long long)value;
    const char *sign = v < 0 ? "-" : "";
    unsigned long long a = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    if (id == SL_TYPE_INTERVAL_YM) {
        if (a % 12 == 0 && a != 0)
            sl_strbuf_appendf(sb, "INTERVAL '%s%llu' YEAR", sign, a / 12);
        else
            sl_strbuf_appendf(sb, "INTERVAL '%s%llu' MONTH", sign, a);
        return;
    }
    static const struct {
        unsigned long long ms;
        const char *unit;
    } units[] = {{86400000ULL, "DAY"}, {3600000ULL, "HOUR"}, {60000ULL, "MINUTE"}, {1000ULL, "SECOND"}};
    for (size_t i = 0; i < SL_ARRAY_LEN(units); i++) {
        if (a != 0 && a % units[i].ms == 0) {
            sl_strbuf_appendf(sb, "INTERVAL '%s%llu' %s", sign, a / units[i].ms, units[i].unit);
            return;
        }
    }
    if (a % 1000 == 0) /* zero */
        sl_strbuf_appendf(sb, "INTERVAL '%s%llu' SECOND", sign, a / 1000);
    else if (a % 100 == 0)
        sl_strbuf_appendf(sb, "INTERVAL '%s%llu.%01llu' SECOND", sign, a / 1000, (a % 1000) / 100);
    else if (a % 10 == 0)
        sl_strbuf_appendf(sb, "INTERVAL '%s%llu.%02llu' SECOND", sign, a / 1000, (a % 1000) / 10);
    else
        sl_strbuf_appendf(sb, "INTERVAL '%s%llu.%03llu' SECOND", sign, a / 1000, a % 1000);
}

/* INTERVAL literal from its canonical text (ms or months). */
static void sl__print_interval(sl_strbuf *sb, const sl_bexpr *b)
{
    sl_interval_print(sb, b->type.id, strtoll(b->text, NULL, 10));
}

/* A literal as SQL (see the file header). */
static void sl__print_literal(sl_strbuf *sb, const sl_bexpr *b)
{
    if (!b->text) {
        sl_strbuf_append(sb, "NULL");
        return;
    }
    switch (b->type.id) {
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
        sl_strbuf_append_quoted(sb, b->text, '\'');
        break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        sl_strbuf_appendf(sb, "X'%s'", b->text);
        break;
    case SL_TYPE_DATE:
        sl_strbuf_append(sb, "DATE ");
        sl_strbuf_append_quoted(sb, b->text, '\'');
        break;
    case SL_TYPE_TIME:
        sl_strbuf_append(sb, "TIME ");
        sl_strbuf_append_quoted(sb, b->text, '\'');
        break;
    case SL_TYPE_TIMESTAMP:
        sl_strbuf_append(sb, "TIMESTAMP ");
        sl_strbuf_append_quoted(sb, b->text, '\'');
        break;
    case SL_TYPE_TIMESTAMP_LTZ:
        sl_strbuf_append(sb, "TIMESTAMP_LTZ ");
        sl_strbuf_append_quoted(sb, b->text, '\'');
        break;
    case SL_TYPE_INTERVAL_DT:
    case SL_TYPE_INTERVAL_YM:
        sl__print_interval(sb, b);
        break;
    default: /* numbers, BOOLEAN */
        sl_strbuf_append(sb, b->text);
        break;
    }
}

/* Infix spelling of a binary operator; NULL for other functions. */
static const char *sl__infix(sl_func_id id)
{
    switch (id) {
    case SL_FN_ADD: return "+";
    case SL_FN_SUB: return "-";
    case SL_FN_MUL: return "*";
    case SL_FN_DIV: return "/";
    case SL_FN_MOD: return "%";
    case SL_FN_EQ: return "=";
    case SL_FN_NE: return "<>";
    case SL_FN_LT: return "<";
    case SL_FN_LE: return "<=";
    case SL_FN_GT: return ">";
    case SL_FN_GE: return ">=";
    case SL_FN_AND: return "AND";
    case SL_FN_OR: return "OR";
    case SL_FN_CONCAT: return "||";
    case SL_FN_LIKE: return "LIKE";
    case SL_FN_NOT_LIKE: return "NOT LIKE";
    case SL_FN_REGEX: return "~";
    case SL_FN_NOT_REGEX: return "!~";
    case SL_FN_IREGEX: return "~*";
    case SL_FN_NOT_IREGEX: return "!~*";
    case SL_FN_IS_DISTINCT: return "IS DISTINCT FROM";
    case SL_FN_IS_NOT_DISTINCT: return "IS NOT DISTINCT FROM";
    default: return NULL;
    }
}

/* args[from..] separated by ", ". */
static void sl__print_args(sl_strbuf *sb, const sl_bexpr *b, int from, const char *const *names)
{
    for (int i = from; i < b->nargs; i++) {
        if (i > from)
            sl_strbuf_append(sb, ", ");
        sl__print(sb, b->args[i], names);
    }
}

/* An operator or function call. */
static void sl__print_call(sl_strbuf *sb, const sl_bexpr *b, const char *const *names)
{
    sl_func_id id = b->fn->id;
    const char *op = sl__infix(id);
    if (op && b->nargs >= 2) {
        sl__print_operand(sb, b->args[0], names);
        sl_strbuf_appendf(sb, " %s ", op);
        sl__print_operand(sb, b->args[1], names);
        if ((id == SL_FN_LIKE || id == SL_FN_NOT_LIKE) && b->nargs == 3) {
            sl_strbuf_append(sb, " ESCAPE ");
            sl__print_operand(sb, b->args[2], names);
        }
        return;
    }
    switch (id) {
    case SL_FN_NEG:
        sl_strbuf_append_char(sb, '-');
        sl__print_operand(sb, b->args[0], names);
        return;
    case SL_FN_NOT:
        sl_strbuf_append(sb, "NOT ");
        sl__print_operand(sb, b->args[0], names);
        return;
    case SL_FN_IS_NULL:
    case SL_FN_IS_NOT_NULL:
    case SL_FN_IS_TRUE:
    case SL_FN_IS_NOT_TRUE:
    case SL_FN_IS_FALSE:
    case SL_FN_IS_NOT_FALSE:
        sl__print_operand(sb, b->args[0], names);
        sl_strbuf_appendf(sb, " %s", b->fn->name);
        return;
    case SL_FN_BETWEEN:
    case SL_FN_NOT_BETWEEN:
        sl__print_operand(sb, b->args[0], names);
        sl_strbuf_appendf(sb, " %s ", b->fn->name);
        sl__print_operand(sb, b->args[1], names);
        sl_strbuf_append(sb, " AND ");
        sl__print_operand(sb, b->args[2], names);
        return;
    case SL_FN_IN:
    case SL_FN_NOT_IN:
        sl__print_operand(sb, b->args[0], names);
        sl_strbuf_appendf(sb, " %s (", b->fn->name);
        sl__print_args(sb, b, 1, names);
        sl_strbuf_append_char(sb, ')');
        return;
    case SL_FN_CURRENT_TIMESTAMP:
    case SL_FN_CURRENT_DATE:
    case SL_FN_LOCALTIMESTAMP:
        sl_strbuf_append(sb, b->fn->name);
        return;
    case SL_FN_COUNT:
        if (b->nargs == 0) {
            sl_strbuf_append(sb, "COUNT(*)");
            return;
        }
        break;
    default:
        break;
    }
    sl_strbuf_append(sb, b->fn->name);
    sl_strbuf_append_char(sb, '(');
    sl__print_args(sb, b, 0, names);
    sl_strbuf_append_char(sb, ')');
}

/* Any node. */
static void sl__print(sl_strbuf *sb, const sl_bexpr *b, const char *const *names)
{
    switch (b->kind) {
    case SL_BX_COLUMN:
        if (names && b->col >= 0 && names[b->col])
            sl__print_name(sb, names[b->col]);
        else
            sl_strbuf_appendf(sb, "$%d", b->col);
        return;
    case SL_BX_LITERAL:
        sl__print_literal(sb, b);
        return;
    case SL_BX_CALL:
        if (b->fn)
            sl__print_call(sb, b, names);
        else
            sl_strbuf_append(sb, "?()");
        return;
    case SL_BX_CAST: {
        sl_type t = b->type;
        t.not_null = false;
        sl_strbuf_append(sb, b->try_cast ? "TRY_CAST(" : "CAST(");
        if (b->nargs > 0)
            sl__print(sb, b->args[0], names);
        sl_strbuf_append(sb, " AS ");
        sl_type_format(sb, t);
        sl_strbuf_append_char(sb, ')');
        return;
    }
    case SL_BX_CASE: {
        int pairs = b->has_else ? b->nargs - 1 : b->nargs;
        sl_strbuf_append(sb, "CASE");
        for (int i = 0; i + 1 < pairs; i += 2) {
            sl_strbuf_append(sb, " WHEN ");
            sl__print(sb, b->args[i], names);
            sl_strbuf_append(sb, " THEN ");
            sl__print(sb, b->args[i + 1], names);
        }
        if (b->has_else && b->nargs > 0) {
            sl_strbuf_append(sb, " ELSE ");
            sl__print(sb, b->args[b->nargs - 1], names);
        }
        sl_strbuf_append(sb, " END");
        return;
    }
    }
}

void sl_bexpr_print(sl_strbuf *sb, const sl_bexpr *b, const char *const *names)
{
    if (!b) {
        sl_strbuf_append(sb, "?");
        return;
    }
    sl__print(sb, b, names);
}

bool sl_bexpr_is_constant(const sl_bexpr *b)
{
    if (b->kind == SL_BX_COLUMN)
        return false;
    if (b->kind == SL_BX_CALL && (!b->fn || !sl_func_is_deterministic(b->fn, b->nargs)))
        return false;
    for (int i = 0; i < b->nargs; i++)
        if (!sl_bexpr_is_constant(b->args[i]))
            return false;
    return true;
}

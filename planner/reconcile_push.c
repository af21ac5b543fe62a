/*
** reconcile_push.c — RECONCILE's range predicate pushed into a PostgreSQL
** ledger's COPY: a day's settlement reads the day's rows of a ledger that
** holds a year, not the year.
**
** The predicate still filters the ledger's rows through the one evaluator
** (session_reconcile.c's query keeps its WHERE): what is pushed only has
** to keep every row the predicate keeps. So each conjunct of the WHERE is
** pushed when it has one of the forms below, and left out otherwise (a
** weaker condition, never a wrong one):
**
**   col op literal, literal op col   op: = <> < <= > >=
**   col [NOT] BETWEEN literal AND literal
**   col [NOT] IN (literal, ...)
**   col IS [NOT] NULL
**
** where col is a ledger column and each literal is of the column's kind,
** chosen so that PostgreSQL compares exactly as Sluice does:
**   numbers (TINYINT .. DECIMAL, FLOAT, DOUBLE) with a numeric literal;
**   DATE and TIMESTAMP with a DATE '..' / TIMESTAMP '..' literal (no time
**     zone is involved: a timestamptz column read as TIMESTAMP is shown in
**     the connection's time zone, which is what the cast of the literal
**     uses too);
**   strings only with = / <> / IN (a collation orders strings otherwise
**     than Sluice's bytes; PostgreSQL's deterministic collations compare
**     equal only equal bytes).
** TIMESTAMP_LTZ and every other type are not pushed.
**
** Main routine: sl__rec_pg_where.
*/
#include "reconcile_int.h"

#include <string.h>

typedef enum { SL__K_NONE, SL__K_NUM, SL__K_TIME, SL__K_STR } sl__kind;

static sl__kind sl__col_kind(const sl_table *t, const sl_expr *e)
{
    if (!e || e->kind != SL_EXPR_COLUMN)
        return SL__K_NONE;
    const sl_column *c = sl__rec_col_of(t, e->text);
    if (!c)
        return SL__K_NONE;
    sl_type_id id = c->type.id;
    if (sl_type_is_numeric(id))
        return SL__K_NUM;
    if (id == SL_TYPE_DATE || id == SL_TYPE_TIMESTAMP)
        return SL__K_TIME;
    if (sl_type_is_string(id))
        return SL__K_STR;
    return SL__K_NONE;
}

/* A number's text as written: digits, one '.', an exponent. */
static bool sl__number_ok(const char *t)
{
    if (!t || !*t)
        return false;
    for (const char *p = t; *p; p++)
        if (!strchr("0123456789.eE+-", *p))
            return false;
    return true;
}

/* A literal of kind k appended, or false. */
static bool sl__literal(sl_strbuf *sb, const sl_expr *e, sl__kind k)
{
    bool neg = false;
    if (e && e->kind == SL_EXPR_UNARY && e->op == SL_OP_NEG && k == SL__K_NUM) {
        neg = true;
        e = e->left;
    }
    if (!e)
        return false;
    switch (k) {
    case SL__K_NUM:
        if (e->kind != SL_EXPR_NUMBER || !sl__number_ok(e->text))
            return false;
        sl_strbuf_appendf(sb, "%s%s", neg ? "-" : "", e->text);
        return true;
    case SL__K_TIME:
        if (e->kind != SL_EXPR_TYPED ||
            (e->type.id != SL_TYPE_DATE && e->type.id != SL_TYPE_TIMESTAMP))
            return false;
        sl_strbuf_append(sb, e->type.id == SL_TYPE_DATE ? "DATE " : "TIMESTAMP ");
        sl_strbuf_append_quoted(sb, e->text, '\'');
        return true;
    case SL__K_STR:
        if (e->kind != SL_EXPR_STRING)
            return false;
        sl_strbuf_append_quoted(sb, e->text, '\'');
        return true;
    default:
        return false;
    }
}

/* The comparisons pushed (their text is sl_op_name's). */
static bool sl__cmp(int op)
{
    return op == SL_OP_EQ || op == SL_OP_NE || op == SL_OP_LT || op == SL_OP_LE ||
           op == SL_OP_GT || op == SL_OP_GE;
}

static int sl__flip(int op)
{
    switch (op) {
    case SL_OP_LT: return SL_OP_GT;
    case SL_OP_LE: return SL_OP_GE;
    case SL_OP_GT: return SL_OP_LT;
    case SL_OP_GE: return SL_OP_LE;
    default: return op;
    }
}

/* One conjunct as PostgreSQL's condition into sb, or false (sb unchanged). */
static bool sl__conjunct(const sl_table *t, const sl_expr *e, sl_strbuf *sb)
{
    size_t at = sb->len;
    bool ok = false;
    if (e->kind == SL_EXPR_BINARY && sl__cmp(e->op)) {
        const sl_expr *col = e->left, *lit = e->right;
        int op = e->op;
        if (sl__col_kind(t, col) == SL__K_NONE) {
            col = e->right;
            lit = e->left;
            op = sl__flip(op);
        }
        sl__kind k = sl__col_kind(t, col);
        if (k != SL__K_NONE && (k != SL__K_STR || op == SL_OP_EQ || op == SL_OP_NE)) {
            sl_strbuf_append_quoted(sb, col->text, '"');
            sl_strbuf_appendf(sb, " %s ", sl_op_name(op));
            ok = sl__literal(sb, lit, k);
        }
    } else if (e->kind == SL_EXPR_BETWEEN && sl_list_len(e->args) == 2) {
        sl__kind k = sl__col_kind(t, e->left);
        if (k == SL__K_NUM || k == SL__K_TIME) {
            sl_strbuf_append_quoted(sb, e->left->text, '"');
            sl_strbuf_append(sb, e->negated ? " NOT BETWEEN " : " BETWEEN ");
            ok = sl__literal(sb, sl_list_get(e->args, 0), k);
            sl_strbuf_append(sb, " AND ");
            ok = ok && sl__literal(sb, sl_list_get(e->args, 1), k);
        }
    } else if (e->kind == SL_EXPR_IN && !e->query && sl_list_len(e->args) > 0) {
        sl__kind k = sl__col_kind(t, e->left);
        if (k != SL__K_NONE) {
            sl_strbuf_append_quoted(sb, e->left->text, '"');
            sl_strbuf_append(sb, e->negated ? " NOT IN (" : " IN (");
            ok = true;
            for (int i = 0; ok && i < sl_list_len(e->args); i++) {
                if (i)
                    sl_strbuf_append(sb, ", ");
                ok = sl__literal(sb, sl_list_get(e->args, i), k);
            }
            sl_strbuf_append_char(sb, ')');
        }
    } else if (e->kind == SL_EXPR_IS && e->op == SL_IS_NULL && e->left &&
               e->left->kind == SL_EXPR_COLUMN && sl__rec_col_of(t, e->left->text)) {
        sl_strbuf_append_quoted(sb, e->left->text, '"');
        sl_strbuf_append(sb, e->negated ? " IS NOT NULL" : " IS NULL");
        ok = true;
    }
    if (!ok)
        sb->len = at;
    if (sb->buf)
        sb->buf[sb->len] = 0;
    return ok;
}

static void sl__walk(const sl_table *t, const sl_expr *e, sl_strbuf *sb)
{
    if (!e)
        return;
    if (e->kind == SL_EXPR_BINARY && e->op == SL_OP_AND) {
        sl__walk(t, e->left, sb);
        sl__walk(t, e->right, sb);
        return;
    }
    size_t at = sb->len;
    if (at)
        sl_strbuf_append(sb, " AND ");
    if (!sl__conjunct(t, e, sb)) {
        sb->len = at;
        if (sb->buf)
            sb->buf[at] = 0;
    }
}

char *sl__rec_pg_where(const sl_table *ledger, const sl_expr *where)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl__walk(ledger, where, &sb);
    if (sb.len == 0) {
        sl_strbuf_free(&sb);
        return NULL;
    }
    return sl_strbuf_detach(&sb);
}

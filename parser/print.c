/*
** print.c — the canonical printer: AST -> Flink SQL text.
**
** The output parses back to an equal AST (sl_stmt_equal); the catalog
** persists statements in this form and SHOW CREATE TABLE shows it, so the
** output is deterministic and loses nothing that sl_*_equal compares.
**
** Rules:
**   - identifiers print bare when plain ([A-Za-z_][A-Za-z0-9_]*, not a
**     keyword), otherwise back-quoted with `` doubling (sl_ident_print); inside
**     CREATE TABLE every identifier is back-quoted (Flink's SHOW CREATE TABLE);
**   - strings are single-quoted with '' doubling; numbers print as written;
**   - an operator operand that is itself an operator is parenthesized unless
**     every SQL grammar agrees it binds tighter (pr_needs_parens), and a unary
**     minus never prints "--" (that would start a comment);
**   - CREATE TABLE prints on several lines, every other statement on one.
**
** Main routines: sl_stmt_print, sl_query_print, sl_expr_print, sl_ident_print.
*/
#include "sl_parser.h"

#include <string.h>

/* Printing context: the output and whether every identifier is quoted. */
typedef struct pr_ctx {
    sl_strbuf *sb;        /* output */
    bool quote_all;       /* back-quote every identifier (CREATE TABLE) */
    sl_secret_fn secret;  /* option keys whose values are redacted, or NULL */
    void *secret_ctx;     /* argument of secret */
} pr_ctx;

static void pr_expr(pr_ctx *p, const sl_expr *e);
static void pr_query(pr_ctx *p, const sl_query *q);
static void pr_stmt(pr_ctx *p, const sl_stmt *s);
static void pr_pg_stmt(pr_ctx *p, const sl_stmt *s);

/* ------------------------------------------------------------------------
** Names.
*/

/* SQL spelling of an sl_op ("+", "<>", "AND"); "?" for an unknown code. */
const char *sl_op_name(int op)
{
    switch (op) {
    case SL_OP_NEG: return "-";
    case SL_OP_PLUS: return "+";
    case SL_OP_NOT: return "NOT";
    case SL_OP_ADD: return "+";
    case SL_OP_SUB: return "-";
    case SL_OP_MUL: return "*";
    case SL_OP_DIV: return "/";
    case SL_OP_MOD: return "%";
    case SL_OP_CONCAT: return "||";
    case SL_OP_EQ: return "=";
    case SL_OP_NE: return "<>";
    case SL_OP_LT: return "<";
    case SL_OP_LE: return "<=";
    case SL_OP_GT: return ">";
    case SL_OP_GE: return ">=";
    case SL_OP_AND: return "AND";
    case SL_OP_OR: return "OR";
    case SL_OP_REGEX: return "~";
    case SL_OP_NOT_REGEX: return "!~";
    case SL_OP_IREGEX: return "~*";
    case SL_OP_NOT_IREGEX: return "!~*";
    case SL_OP_IS_DISTINCT: return "IS DISTINCT FROM";
    case SL_OP_IS_NOT_DISTINCT: return "IS NOT DISTINCT FROM";
    default: return "?";
    }
}

/* Singular SQL name of an sl_time_unit ("SECOND"); "?" for an unknown code. */
const char *sl_unit_name(int unit)
{
    switch (unit) {
    case SL_UNIT_YEAR: return "YEAR";
    case SL_UNIT_MONTH: return "MONTH";
    case SL_UNIT_DAY: return "DAY";
    case SL_UNIT_HOUR: return "HOUR";
    case SL_UNIT_MINUTE: return "MINUTE";
    case SL_UNIT_SECOND: return "SECOND";
    case SL_UNIT_MILLISECOND: return "MILLISECOND";
    default: return "?";
    }
}

/* True when name matches [A-Za-z_][A-Za-z0-9_]*. */
static bool pr_is_plain_syntax(const char *name)
{
    if (!name || !*name)
        return false;
    for (const char *c = name; *c; c++) {
        bool alpha = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '_';
        bool digit = *c >= '0' && *c <= '9';
        if (!alpha && !(digit && c != name))
            return false;
    }
    return true;
}

/* True when name is a keyword (any case). A linear scan: the list is short
** and the order of sl_keywords() does not matter here. */
static bool pr_is_keyword(const char *name)
{
    int n = 0;
    const char *const *kw = sl_keywords(&n);
    for (int i = 0; i < n; i++)
        if (sl_strcasecmp(kw[i], name) == 0)
            return true;
    return false;
}

/* Append name bare when plain and not a keyword, else back-quoted with ``
** doubling. NULL prints as ``. */
void sl_ident_print(sl_strbuf *sb, const char *name)
{
    if (pr_is_plain_syntax(name) && !pr_is_keyword(name))
        sl_strbuf_append(sb, name);
    else
        sl_strbuf_append_quoted(sb, name ? name : "", '`');
}

/* An identifier under the context's quoting rule. */
static void pr_ident(pr_ctx *p, const char *name)
{
    if (p->quote_all)
        sl_strbuf_append_quoted(p->sb, name ? name : "", '`');
    else
        sl_ident_print(p->sb, name);
}

/* A single-quoted string literal. */
static void pr_string(pr_ctx *p, const char *s)
{
    sl_strbuf_append_quoted(p->sb, s ? s : "", '\'');
}

void sl_column_def_type_format(sl_strbuf *sb, const sl_column_def *c, int flags)
{
    if (c->type.id != SL_TYPE_ROW) {
        sl_type t = c->type;
        t.not_null = t.not_null && !(flags & SL_TYPEFMT_NULLABLE);
        sl_type_format(sb, t);
        return;
    }
    sl_strbuf_append(sb, "ROW<");
    for (int i = 0; i < sl_list_len(c->fields); i++) {
        const sl_column_def *f = sl_list_get(c->fields, i);
        if (i)
            sl_strbuf_append(sb, ", ");
        sl_strbuf_append_quoted(sb, f->name ? f->name : "", '`');
        sl_strbuf_append_char(sb, ' ');
        sl_column_def_type_format(sb, f, flags & SL_TYPEFMT_COMMENTS);
        if (f->comment && (flags & SL_TYPEFMT_COMMENTS)) {
            sl_strbuf_append_char(sb, ' ');
            sl_strbuf_append_quoted(sb, f->comment, '\'');
        }
    }
    sl_strbuf_append_char(sb, '>');
    if (c->type.not_null && !(flags & SL_TYPEFMT_NULLABLE))
        sl_strbuf_append(sb, " NOT NULL");
}

void sl_column_def_meta_format(sl_strbuf *sb, const sl_column_def *c)
{
    sl_strbuf_append(sb, "METADATA");
    if (c->meta_key) {
        sl_strbuf_append(sb, " FROM ");
        sl_strbuf_append_quoted(sb, c->meta_key, '\'');
    }
    if (c->is_virtual)
        sl_strbuf_append(sb, " VIRTUAL");
}

/* A list of sl_ident*, comma separated, in parentheses. */
static void pr_ident_list(pr_ctx *p, const sl_list *l)
{
    sl_strbuf_append_char(p->sb, '(');
    for (int i = 0; i < sl_list_len(l); i++) {
        const sl_ident *id = sl_list_get(l, i);
        if (i)
            sl_strbuf_append(p->sb, ", ");
        pr_ident(p, id ? id->name : NULL);
    }
    sl_strbuf_append_char(p->sb, ')');
}

/* ------------------------------------------------------------------------
** Expressions.
*/

/* Binding strength of an expression as an operand; 100 = atomic (a literal,
** name, call, CASE, CAST: never needs parentheses). */
enum { PREC_OR = 1, PREC_AND, PREC_NOT, PREC_CMP, PREC_CONCAT, PREC_ADD, PREC_MUL,
       PREC_UNARY, PREC_ATOM = 100 };

static int pr_prec(const sl_expr *e)
{
    switch (e->kind) {
    case SL_EXPR_UNARY:
        return e->op == SL_OP_NOT ? PREC_NOT : PREC_UNARY;
    case SL_EXPR_BINARY:
        switch (e->op) {
        case SL_OP_OR: return PREC_OR;
        case SL_OP_AND: return PREC_AND;
        case SL_OP_CONCAT: return PREC_CONCAT;
        case SL_OP_ADD: case SL_OP_SUB: return PREC_ADD;
        case SL_OP_MUL: case SL_OP_DIV: case SL_OP_MOD: return PREC_MUL;
        default: return PREC_CMP;
        }
    case SL_EXPR_IS:
    case SL_EXPR_BETWEEN:
    case SL_EXPR_IN:
    case SL_EXPR_LIKE:
        return PREC_CMP;
    case SL_EXPR_NUMBER:
        /* a negative literal behaves like a unary minus */
        return e->text && e->text[0] == '-' ? PREC_UNARY : PREC_ATOM;
    default:
        return PREC_ATOM;
    }
}

/* Does child need parentheses as an operand of parent? right: it is the
** right operand of a binary operator. Only orderings that every SQL dialect
** shares are relied on: OR < AND < NOT < comparison/IS/BETWEEN/IN/LIKE <
** {||, arithmetic}, + - < * / %, unary minus tightest, left associativity of
** binary operators. || is kept apart from arithmetic (dialects differ). */
static bool pr_needs_parens(const sl_expr *child, const sl_expr *parent, bool right)
{
    int cp = pr_prec(child);
    if (cp == PREC_ATOM)
        return false;
    if (parent->kind == SL_EXPR_UNARY)
        return true; /* NOT (..), -(..): also keeps "-" "-" apart */
    if (parent->kind != SL_EXPR_BINARY)
        return cp <= PREC_CMP; /* IS / BETWEEN / IN / LIKE operands */
    int pp = pr_prec(parent);
    if (pp == PREC_CMP)
        return cp <= PREC_CMP; /* comparisons do not chain */
    if (pp == PREC_CONCAT)
        return !(cp == PREC_CONCAT && !right);
    if (cp == PREC_CONCAT)
        return true;
    return right ? cp <= pp : cp < pp;
}

/* child as an operand of parent, parenthesized when needed. */
static void pr_operand(pr_ctx *p, const sl_expr *child, const sl_expr *parent, bool right)
{
    if (child && pr_needs_parens(child, parent, right)) {
        sl_strbuf_append_char(p->sb, '(');
        pr_expr(p, child);
        sl_strbuf_append_char(p->sb, ')');
    } else {
        pr_expr(p, child);
    }
}

/* Comma-separated sl_expr* list. */
static void pr_expr_list(pr_ctx *p, const sl_list *l)
{
    for (int i = 0; i < sl_list_len(l); i++) {
        if (i)
            sl_strbuf_append(p->sb, ", ");
        pr_expr(p, sl_list_get(l, i));
    }
}

static void pr_order_list(pr_ctx *p, const sl_list *l)
{
    for (int i = 0; i < sl_list_len(l); i++) {
        const sl_order_item *o = sl_list_get(l, i);
        if (i)
            sl_strbuf_append(p->sb, ", ");
        pr_expr(p, o->expr);
        if (o->desc)
            sl_strbuf_append(p->sb, " DESC");
        if (o->nulls == 1)
            sl_strbuf_append(p->sb, " NULLS FIRST");
        else if (o->nulls == 2)
            sl_strbuf_append(p->sb, " NULLS LAST");
    }
}

/* The keyword of a typed literal: DATE '..' etc. */
static const char *pr_typed_name(sl_type_id id)
{
    switch (id) {
    case SL_TYPE_DATE: return "DATE";
    case SL_TYPE_TIME: return "TIME";
    case SL_TYPE_TIMESTAMP_LTZ: return "TIMESTAMP_LTZ";
    default: return "TIMESTAMP";
    }
}

/* Functions that SQL calls without parentheses. */
static bool pr_is_niladic(const char *name)
{
    static const char *const names[] = {"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
                                        "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_USER",
                                        "SESSION_USER", "USER", "CURRENT_SCHEMA",
                                        "CURRENT_CATALOG"};
    for (size_t i = 0; i < SL_ARRAY_LEN(names); i++)
        if (name && sl_strcasecmp(name, names[i]) == 0)
            return true;
    return false;
}

/* Keywords that are also names of built-in functions, and that the grammar
** accepts in call position: these print bare. */
static bool pr_is_keyword_function(const char *name)
{
    static const char *const names[] = {"LEFT", "RIGHT", "SUBSTRING", "IF", "YEAR", "MONTH",
                                        "DAY", "HOUR", "MINUTE", "SECOND"};
    for (size_t i = 0; i < SL_ARRAY_LEN(names); i++)
        if (name && sl_strcasecmp(name, names[i]) == 0)
            return true;
    return false;
}

static void pr_func(pr_ctx *p, const sl_expr *e)
{
    sl_strbuf *sb = p->sb;
    if (!e->ival && !e->distinct && sl_list_len(e->args) == 0 && pr_is_niladic(e->text) &&
        !e->over && !e->filter) {
        sl_strbuf_append(sb, e->text);
        return;
    }
    /* Function names are case-insensitive and print as written; keywords
    ** that the grammar also takes as function names (LEFT, HOUR, IF ...)
    ** print bare, other keywords back-quoted like any identifier. */
    if (pr_is_keyword_function(e->text))
        sl_strbuf_append(sb, e->text);
    else
        sl_ident_print(sb, e->text);
    sl_strbuf_append_char(sb, '(');
    if (e->distinct)
        sl_strbuf_append(sb, "DISTINCT ");
    if (e->ival) {
        sl_strbuf_append_char(sb, '*');
        if (sl_list_len(e->args))
            sl_strbuf_append(sb, ", ");
    }
    pr_expr_list(p, e->args);
    sl_strbuf_append_char(sb, ')');
    if (e->filter) {
        sl_strbuf_append(sb, " FILTER (WHERE ");
        pr_expr(p, e->filter);
        sl_strbuf_append_char(sb, ')');
    }
    if (e->over && e->over->name) { /* a window no WINDOW clause defines: the binder reports it */
        sl_strbuf_append(sb, " OVER ");
        pr_ident(p, e->over->name);
    } else if (e->over) {
        bool any = false;
        sl_strbuf_append(sb, " OVER (");
        if (sl_list_len(e->over->partition_by)) {
            sl_strbuf_append(sb, "PARTITION BY ");
            pr_expr_list(p, e->over->partition_by);
            any = true;
        }
        if (sl_list_len(e->over->order_by)) {
            sl_strbuf_append(sb, any ? " ORDER BY " : "ORDER BY ");
            pr_order_list(p, e->over->order_by);
        }
        if (e->over->frame != SL_FRAME_NONE) {
            sl_strbuf_append(sb, e->over->frame == SL_FRAME_ROWS ? " ROWS BETWEEN " : " RANGE BETWEEN ");
            if (e->over->current_row) {
                sl_strbuf_append(sb, "CURRENT ROW");
            } else if (e->over->preceding) {
                pr_expr(p, e->over->preceding);
                sl_strbuf_append(sb, " PRECEDING");
            } else {
                sl_strbuf_append(sb, "UNBOUNDED PRECEDING");
            }
            sl_strbuf_append(sb, " AND CURRENT ROW");
        }
        sl_strbuf_append_char(sb, ')');
    }
}

static void pr_expr(pr_ctx *p, const sl_expr *e)
{
    sl_strbuf *sb = p->sb;
    if (!e) {
        sl_strbuf_append(sb, "NULL");
        return;
    }
    switch (e->kind) {
    case SL_EXPR_NULL:
        sl_strbuf_append(sb, "NULL");
        break;
    case SL_EXPR_BOOL:
        sl_strbuf_append(sb, e->ival ? "TRUE" : "FALSE");
        break;
    case SL_EXPR_NUMBER:
        sl_strbuf_append(sb, e->text ? e->text : "0");
        break;
    case SL_EXPR_STRING:
        pr_string(p, e->text);
        break;
    case SL_EXPR_XSTRING: /* hex digits only: nothing to quote */
        sl_strbuf_appendf(sb, "X'%s'", e->text ? e->text : "");
        break;
    case SL_EXPR_TYPED:
        sl_strbuf_append(sb, pr_typed_name(e->type.id));
        sl_strbuf_append_char(sb, ' ');
        pr_string(p, e->text);
        break;
    case SL_EXPR_INTERVAL:
        /* INTERVAL 'text' UNIT[(p)] [TO UNIT]; the precision belongs to the
        ** unit it follows in the source: the leading one, or SECOND after TO. */
        sl_strbuf_append(sb, "INTERVAL ");
        pr_string(p, e->text);
        sl_strbuf_append_char(sb, ' ');
        sl_strbuf_append(sb, sl_unit_name(e->unit));
        if (e->unit_to == SL_UNIT_NONE) {
            if (e->unit_precision >= 0)
                sl_strbuf_appendf(sb, "(%d)", e->unit_precision);
        } else {
            sl_strbuf_append(sb, " TO ");
            sl_strbuf_append(sb, sl_unit_name(e->unit_to));
            if (e->unit_precision >= 0)
                sl_strbuf_appendf(sb, "(%d)", e->unit_precision);
        }
        break;
    case SL_EXPR_COLUMN:
        if (e->qualifier) {
            pr_ident(p, e->qualifier);
            sl_strbuf_append_char(sb, '.');
        }
        pr_ident(p, e->text);
        break;
    case SL_EXPR_STAR:
        if (e->qualifier) {
            pr_ident(p, e->qualifier);
            sl_strbuf_append_char(sb, '.');
        }
        sl_strbuf_append_char(sb, '*');
        break;
    case SL_EXPR_UNARY:
        sl_strbuf_append(sb, sl_op_name(e->op));
        if (e->op == SL_OP_NOT)
            sl_strbuf_append_char(sb, ' ');
        pr_operand(p, e->left, e, false);
        break;
    case SL_EXPR_BINARY:
        pr_operand(p, e->left, e, false);
        sl_strbuf_append_char(sb, ' ');
        sl_strbuf_append(sb, sl_op_name(e->op));
        sl_strbuf_append_char(sb, ' ');
        pr_operand(p, e->right, e, true);
        break;
    case SL_EXPR_IS: {
        static const char *const what[] = {"NULL", "TRUE", "FALSE", "UNKNOWN"};
        pr_operand(p, e->left, e, false);
        sl_strbuf_append(sb, e->negated ? " IS NOT " : " IS ");
        sl_strbuf_append(sb, e->op >= 0 && e->op < (int)SL_ARRAY_LEN(what) ? what[e->op] : "?");
        break;
    }
    case SL_EXPR_BETWEEN:
        pr_operand(p, e->left, e, false);
        sl_strbuf_append(sb, e->negated ? " NOT BETWEEN " : " BETWEEN ");
        pr_operand(p, sl_list_len(e->args) > 0 ? sl_list_get(e->args, 0) : NULL, e, true);
        sl_strbuf_append(sb, " AND ");
        pr_operand(p, sl_list_len(e->args) > 1 ? sl_list_get(e->args, 1) : NULL, e, true);
        break;
    case SL_EXPR_IN:
        pr_operand(p, e->left, e, false);
        sl_strbuf_append(sb, e->negated ? " NOT IN (" : " IN (");
        if (e->query)
            pr_query(p, e->query);
        else
            pr_expr_list(p, e->args);
        sl_strbuf_append_char(sb, ')');
        break;
    case SL_EXPR_LIKE:
        pr_operand(p, e->left, e, false);
        sl_strbuf_append(sb, e->negated ? " NOT LIKE " : " LIKE ");
        pr_operand(p, e->right, e, true);
        if (sl_list_len(e->args)) {
            sl_strbuf_append(sb, " ESCAPE ");
            pr_operand(p, sl_list_get(e->args, 0), e, true);
        }
        break;
    case SL_EXPR_CASE:
        sl_strbuf_append(sb, "CASE");
        if (e->left) {
            sl_strbuf_append_char(sb, ' ');
            pr_expr(p, e->left);
        }
        for (int i = 0; i + 1 < sl_list_len(e->args); i += 2) {
            sl_strbuf_append(sb, " WHEN ");
            pr_expr(p, sl_list_get(e->args, i));
            sl_strbuf_append(sb, " THEN ");
            pr_expr(p, sl_list_get(e->args, i + 1));
        }
        if (e->right) {
            sl_strbuf_append(sb, " ELSE ");
            pr_expr(p, e->right);
        }
        sl_strbuf_append(sb, " END");
        break;
    case SL_EXPR_CAST:
        sl_strbuf_append(sb, e->ival ? "TRY_CAST(" : "CAST(");
        pr_expr(p, e->left);
        sl_strbuf_append(sb, " AS ");
        sl_type_format(sb, e->type);
        sl_strbuf_append_char(sb, ')');
        break;
    case SL_EXPR_FUNC:
        if (!e->over && !e->distinct && e->text &&
            (sl_strcasecmp(e->text, "ARRAY") == 0 || sl_strcasecmp(e->text, "MAP") == 0)) {
            /* the constructors ARRAY[...] and MAP[...] */
            sl_strbuf_append(sb, sl_strcasecmp(e->text, "MAP") == 0 ? "MAP[" : "ARRAY[");
            for (int i = 0; i < sl_list_len(e->args); i++) {
                if (i > 0)
                    sl_strbuf_append(sb, ", ");
                pr_expr(p, sl_list_get(e->args, i));
            }
            sl_strbuf_append_char(sb, ']');
            break;
        }
        pr_func(p, e);
        break;
    case SL_EXPR_PARAM:
        sl_strbuf_appendf(sb, "$%lld", (long long)e->ival);
        break;
    case SL_EXPR_SUBQUERY:
        sl_strbuf_append(sb, e->ival ? "ARRAY(" : "(");
        pr_query(p, e->query);
        sl_strbuf_append_char(sb, ')');
        break;
    case SL_EXPR_EXISTS:
        sl_strbuf_append(sb, "EXISTS (");
        pr_query(p, e->query);
        sl_strbuf_append_char(sb, ')');
        break;
    case SL_EXPR_FIELD:
        if (e->ival) { /* a dotted path a.b.c */
            pr_expr(p, e->left);
            sl_strbuf_append_char(sb, '.');
            pr_ident(p, e->text);
            break;
        }
        sl_strbuf_append_char(sb, '(');
        pr_expr(p, e->left);
        sl_strbuf_append(sb, ").");
        pr_ident(p, e->text);
        break;
    }
}

/* Append the canonical text of an expression (NULL prints as NULL). */
void sl_expr_print(sl_strbuf *sb, const sl_expr *e)
{
    pr_ctx p = {sb, false, NULL, NULL};
    pr_expr(&p, e);
}

/* ------------------------------------------------------------------------
** Queries.
*/

static bool pr_has_tail(const sl_query *q)
{
    return sl_list_len(q->order_by) || q->limit || q->offset;
}

static void pr_from(pr_ctx *p, const sl_from *f)
{
    static const char *const joins[] = {" INNER JOIN ", " LEFT JOIN ", " RIGHT JOIN ",
                                        " FULL JOIN ", " CROSS JOIN "};
    static const char *const wins[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
    sl_strbuf *sb = p->sb;
    if (!f)
        return;
    switch (f->kind) {
    case SL_FROM_TABLE:
        if (f->schema) {
            pr_ident(p, f->schema);
            sl_strbuf_append_char(sb, '.');
        }
        pr_ident(p, f->name);
        if (f->as_of) {
            sl_strbuf_append(sb, " FOR SYSTEM_TIME AS OF ");
            pr_expr(p, f->as_of);
        }
        break;
    case SL_FROM_SUBQUERY:
        sl_strbuf_append_char(sb, '(');
        pr_query(p, f->subquery);
        sl_strbuf_append_char(sb, ')');
        break;
    case SL_FROM_FUNCTION:
        pr_ident(p, f->name);
        sl_strbuf_append_char(sb, '(');
        for (int i = 0; i < sl_list_len(f->args); i++) {
            if (i > 0)
                sl_strbuf_append(sb, ", ");
            pr_expr(p, sl_list_get(f->args, i));
        }
        sl_strbuf_append_char(sb, ')');
        if (f->ordinality)
            sl_strbuf_append(sb, " WITH ORDINALITY");
        if (f->alias && f->columns) { /* UNNEST(arr) AS t(x) */
            sl_strbuf_append(sb, " AS ");
            pr_ident(p, f->alias);
            for (int i = 0; i < sl_list_len(f->columns); i++) {
                const sl_ident *c = sl_list_get(f->columns, i);
                sl_strbuf_append(sb, i ? ", " : "(");
                pr_ident(p, c->name);
            }
            sl_strbuf_append_char(sb, ')');
            return;
        }
        break;
    case SL_FROM_JOIN:
        pr_from(p, f->left);
        sl_strbuf_append(sb, f->join_type >= 0 && f->join_type < (int)SL_ARRAY_LEN(joins)
                                 ? joins[f->join_type] : " JOIN ");
        if (f->right && f->right->kind == SL_FROM_JOIN) {
            sl_strbuf_append_char(sb, '(');
            pr_from(p, f->right);
            sl_strbuf_append_char(sb, ')');
        } else {
            pr_from(p, f->right);
        }
        if (f->on) {
            sl_strbuf_append(sb, " ON ");
            pr_expr(p, f->on);
        }
        return; /* a join carries no alias */
    case SL_FROM_WINDOW:
        sl_strbuf_append(sb, "TABLE(");
        sl_strbuf_append(sb, f->window_fn >= 0 && f->window_fn < (int)SL_ARRAY_LEN(wins)
                                 ? wins[f->window_fn] : "?");
        sl_strbuf_append(sb, "(TABLE ");
        pr_ident(p, f->input ? f->input->name : NULL);
        for (int i = 0; i < sl_list_len(f->partition); i++) {
            const sl_ident *k = sl_list_get(f->partition, i);
            sl_strbuf_append(sb, i ? ", " : " PARTITION BY (");
            pr_ident(p, k->name);
        }
        if (sl_list_len(f->partition))
            sl_strbuf_append_char(sb, ')');
        sl_strbuf_append(sb, ", DESCRIPTOR(");
        pr_ident(p, f->time_col);
        sl_strbuf_append_char(sb, ')');
        for (int i = 0; i < sl_list_len(f->args); i++) {
            sl_strbuf_append(sb, ", ");
            pr_expr(p, sl_list_get(f->args, i));
        }
        sl_strbuf_append(sb, "))");
        break;
    }
    if (f->alias) {
        sl_strbuf_append(sb, " AS ");
        pr_ident(p, f->alias);
    }
}

/* A UNION operand: parenthesized when it has its own ORDER BY / LIMIT /
** OFFSET, or (as a right operand) when it is itself a UNION. */
static void pr_union_operand(pr_ctx *p, const sl_query *q, bool right)
{
    if (q && (pr_has_tail(q) || (right && q->kind == SL_QUERY_UNION))) {
        sl_strbuf_append_char(p->sb, '(');
        pr_query(p, q);
        sl_strbuf_append_char(p->sb, ')');
    } else {
        pr_query(p, q);
    }
}

static void pr_query(pr_ctx *p, const sl_query *q)
{
    sl_strbuf *sb = p->sb;
    if (!q)
        return;
    switch (q->kind) {
    case SL_QUERY_SELECT:
        sl_strbuf_append(sb, q->distinct ? "SELECT DISTINCT " : "SELECT ");
        for (int i = 0; i < sl_list_len(q->items); i++) {
            const sl_select_item *it = sl_list_get(q->items, i);
            if (i)
                sl_strbuf_append(sb, ", ");
            pr_expr(p, it->expr);
            if (it->alias) {
                sl_strbuf_append(sb, " AS ");
                pr_ident(p, it->alias);
            }
        }
        if (q->from) {
            sl_strbuf_append(sb, " FROM ");
            pr_from(p, q->from);
        }
        if (q->where) {
            sl_strbuf_append(sb, " WHERE ");
            pr_expr(p, q->where);
        }
        if (sl_list_len(q->group_by)) {
            sl_strbuf_append(sb, " GROUP BY ");
            pr_expr_list(p, q->group_by);
        }
        if (q->having) {
            sl_strbuf_append(sb, " HAVING ");
            pr_expr(p, q->having);
        }
        break;
    case SL_QUERY_UNION:
        pr_union_operand(p, q->left, false);
        sl_strbuf_append(sb, q->all ? " UNION ALL " : " UNION ");
        pr_union_operand(p, q->right, true);
        break;
    case SL_QUERY_VALUES:
        sl_strbuf_append(sb, "VALUES ");
        for (int i = 0; i < sl_list_len(q->rows); i++) {
            if (i)
                sl_strbuf_append(sb, ", ");
            sl_strbuf_append_char(sb, '(');
            pr_expr_list(p, sl_list_get(q->rows, i));
            sl_strbuf_append_char(sb, ')');
        }
        break;
    }
    if (sl_list_len(q->order_by)) {
        sl_strbuf_append(sb, " ORDER BY ");
        pr_order_list(p, q->order_by);
    }
    if (q->limit) {
        sl_strbuf_append(sb, " LIMIT ");
        pr_expr(p, q->limit);
    }
    if (q->offset) {
        sl_strbuf_append(sb, " OFFSET ");
        pr_expr(p, q->offset);
    }
}

/* Append the canonical text of a query (one line). */
void sl_query_print(sl_strbuf *sb, const sl_query *q)
{
    pr_ctx p = {sb, false, NULL, NULL};
    pr_query(&p, q);
}

/* ------------------------------------------------------------------------
** Statements.
*/

/* An option value, or '******' (SL_REDACTED) when its key is secret. */
static void pr_option_value(pr_ctx *p, const sl_kv *kv)
{
    if (p->secret && kv->key && p->secret(kv->key, p->secret_ctx))
        sl_strbuf_append(p->sb, "'" SL_REDACTED "'");
    else
        pr_string(p, kv->value);
}

/* ('k' = 'v', ...) on one line; keys_only for RESET ('k', ...). */
static void pr_options_inline(pr_ctx *p, const sl_kvlist *o, bool keys_only)
{
    sl_strbuf_append_char(p->sb, '(');
    for (int i = 0; o && i < o->n; i++) {
        if (i)
            sl_strbuf_append(p->sb, ", ");
        pr_string(p, o->items[i].key);
        if (!keys_only) {
            sl_strbuf_append(p->sb, " = ");
            pr_option_value(p, &o->items[i]);
        }
    }
    sl_strbuf_append_char(p->sb, ')');
}

/* CREATE TABLE in Flink's SHOW CREATE TABLE layout (see sl_parser.h). */
static void pr_create_table(pr_ctx *p, const sl_stmt *s)
{
    sl_strbuf *sb = p->sb;
    bool saved = p->quote_all;
    int parts = 0;
    p->quote_all = true;
    sl_strbuf_append(sb, s->temporary ? "CREATE TEMPORARY TABLE " : "CREATE TABLE ");
    if (s->if_not_exists)
        sl_strbuf_append(sb, "IF NOT EXISTS ");
    pr_ident(p, s->name);
    sl_strbuf_append(sb, " (\n");
    for (int i = 0; i < sl_list_len(s->columns); i++) {
        const sl_column_def *c = sl_list_get(s->columns, i);
        if (parts++)
            sl_strbuf_append(sb, ",\n");
        sl_strbuf_append(sb, "  ");
        pr_ident(p, c->name);
        if (c->expr) {
            sl_strbuf_append(sb, " AS ");
            pr_expr(p, c->expr);
        } else {
            sl_strbuf_append_char(sb, ' ');
            sl_column_def_type_format(sb, c, SL_TYPEFMT_COMMENTS);
        }
        if (c->metadata) {
            sl_strbuf_append_char(sb, ' ');
            sl_column_def_meta_format(sb, c);
        }
        if (c->comment) {
            sl_strbuf_append(sb, " COMMENT ");
            pr_string(p, c->comment);
        }
    }
    if (sl_list_len(s->primary_key)) {
        if (parts++)
            sl_strbuf_append(sb, ",\n");
        sl_strbuf_append(sb, "  PRIMARY KEY ");
        pr_ident_list(p, s->primary_key);
        sl_strbuf_append(sb, " NOT ENFORCED");
    }
    if (s->wm_column) {
        if (parts++)
            sl_strbuf_append(sb, ",\n");
        sl_strbuf_append(sb, "  WATERMARK FOR ");
        pr_ident(p, s->wm_column->name);
        sl_strbuf_append(sb, " AS ");
        pr_expr(p, s->wm_expr);
    }
    sl_strbuf_append(sb, "\n)");
    if (s->comment) {
        sl_strbuf_append(sb, " COMMENT ");
        pr_string(p, s->comment);
    }
    if (sl_list_len(s->partition_by)) {
        sl_strbuf_append(sb, " PARTITIONED BY ");
        pr_ident_list(p, s->partition_by);
    }
    if (s->options && s->options->n > 0) {
        sl_strbuf_append(sb, " WITH (\n");
        for (int i = 0; i < s->options->n; i++) {
            if (i)
                sl_strbuf_append(sb, ",\n");
            sl_strbuf_append(sb, "  ");
            pr_string(p, s->options->items[i].key);
            sl_strbuf_append(sb, " = ");
            pr_option_value(p, &s->options->items[i]);
        }
        sl_strbuf_append(sb, "\n)");
    }
    if (s->like) {
        static const char *const modes[] = {NULL, "INCLUDING", "EXCLUDING", "OVERWRITING"};
        static const char *const feats[] = {"ALL", "CONSTRAINTS", "GENERATED", "OPTIONS",
                                            "PARTITIONS", "WATERMARKS", "METADATA"};
        sl_strbuf_append(sb, " LIKE ");
        pr_ident(p, s->like->name);
        int n = 0;
        for (int f = 0; f < SL_LIKE_NFEATURES; f++) {
            int m = s->like_opts[f];
            if (!m || (f != SL_LIKE_ALL && m == s->like_opts[SL_LIKE_ALL]))
                continue;
            sl_strbuf_appendf(sb, "%s%s %s", n++ ? " " : " (", modes[m], feats[f]);
        }
        if (n)
            sl_strbuf_append(sb, ")");
    }
    p->quote_all = saved;
}

static void pr_stmt(pr_ctx *p, const sl_stmt *s)
{
    static const char *const shows[] = {"SHOW TABLES", "SHOW VIEWS", "SHOW JOBS",
                                        "SHOW CONNECTORS", "SHOW CREATE TABLE ",
                                        "SHOW CREATE VIEW ", "SHOW FUNCTIONS",
                                        "SHOW USER FUNCTIONS", "SHOW JOB ", "SHOW CATALOGS",
                                        "SHOW DATABASES", "SHOW CURRENT CATALOG",
                                        "SHOW CURRENT DATABASE"};
    sl_strbuf *sb = p->sb;
    if (!s)
        return;
    switch (s->kind) {
    case SL_STMT_CREATE_TABLE:
        pr_create_table(p, s);
        break;
    case SL_STMT_DROP_TABLE:
        sl_strbuf_append(sb, s->temporary ? "DROP TEMPORARY TABLE " : "DROP TABLE ");
        if (s->if_exists)
            sl_strbuf_append(sb, "IF EXISTS ");
        pr_ident(p, s->name);
        break;
    case SL_STMT_ALTER_SET:
    case SL_STMT_ALTER_RESET:
        sl_strbuf_append(sb, "ALTER TABLE ");
        pr_ident(p, s->name);
        sl_strbuf_append(sb, s->kind == SL_STMT_ALTER_SET ? " SET " : " RESET ");
        pr_options_inline(p, s->options, s->kind == SL_STMT_ALTER_RESET);
        break;
    case SL_STMT_CREATE_VIEW:
        sl_strbuf_append(sb, s->temporary ? "CREATE TEMPORARY VIEW " : "CREATE VIEW ");
        if (s->if_not_exists)
            sl_strbuf_append(sb, "IF NOT EXISTS ");
        pr_ident(p, s->name);
        if (sl_list_len(s->column_names)) {
            sl_strbuf_append_char(sb, ' ');
            pr_ident_list(p, s->column_names);
        }
        sl_strbuf_append(sb, " AS ");
        pr_query(p, s->query);
        break;
    case SL_STMT_DROP_VIEW:
        sl_strbuf_append(sb, s->temporary ? "DROP TEMPORARY VIEW " : "DROP VIEW ");
        if (s->if_exists)
            sl_strbuf_append(sb, "IF EXISTS ");
        pr_ident(p, s->name);
        break;
    case SL_STMT_INSERT:
        sl_strbuf_append(sb, "INSERT INTO ");
        pr_ident(p, s->name);
        if (sl_list_len(s->column_names)) {
            sl_strbuf_append_char(sb, ' ');
            pr_ident_list(p, s->column_names);
        }
        sl_strbuf_append_char(sb, ' ');
        pr_query(p, s->query);
        break;
    case SL_STMT_STATEMENT_SET:
        sl_strbuf_append(sb, "EXECUTE STATEMENT SET BEGIN ");
        for (int i = 0; i < sl_list_len(s->stmts); i++) {
            pr_stmt(p, sl_list_get(s->stmts, i));
            sl_strbuf_append(sb, "; ");
        }
        sl_strbuf_append(sb, "END");
        break;
    case SL_STMT_QUERY:
        pr_query(p, s->query);
        break;
    case SL_STMT_SET:
        sl_strbuf_append(sb, "SET");
        if (s->options && s->options->n > 0) {
            sl_strbuf_append_char(sb, ' ');
            pr_string(p, s->options->items[0].key);
            sl_strbuf_append(sb, " = ");
            pr_option_value(p, &s->options->items[0]);
        } else if (s->name) {
            sl_strbuf_append_char(sb, ' ');
            pr_string(p, s->name);
        }
        break;
    case SL_STMT_RESET:
        sl_strbuf_append(sb, "RESET");
        if (s->name) {
            sl_strbuf_append_char(sb, ' ');
            pr_string(p, s->name);
        }
        break;
    case SL_STMT_SHOW:
        sl_strbuf_append(sb, s->show >= 0 && s->show < (int)SL_ARRAY_LEN(shows) ? shows[s->show]
                                                                               : "SHOW ?");
        if (s->show == SL_SHOW_CREATE_TABLE || s->show == SL_SHOW_CREATE_VIEW)
            pr_ident(p, s->name);
        else if (s->show == SL_SHOW_JOB)
            pr_string(p, s->name);
        break;
    case SL_STMT_DESCRIBE:
        sl_strbuf_append(sb, s->sub ? "DESCRIBE EXTENDED " : "DESCRIBE ");
        pr_ident(p, s->name);
        break;
    case SL_STMT_EXPLAIN: {
        static const char *const details[] = {"CHANGELOG_MODE", "ESTIMATED_COST",
                                              "JSON_EXECUTION_PLAN", "PLAN_ADVICE"};
        sl_strbuf_append(sb, "EXPLAIN ");
        for (int i = 0, n = 0; i < (int)SL_ARRAY_LEN(details); i++)
            if (s->sub & (1 << i))
                sl_strbuf_appendf(sb, "%s%s", n++ ? ", " : "", details[i]);
        if (s->sub)
            sl_strbuf_append_char(sb, ' ');
        pr_stmt(p, s->inner);
        break;
    }
    case SL_STMT_HELP:
        sl_strbuf_append(sb, "HELP");
        break;
    case SL_STMT_USE:
        sl_strbuf_append(sb, s->name ? "USE " : "USE CATALOG ");
        if (s->value)
            pr_ident(p, s->value);
        if (s->value && s->name)
            sl_strbuf_append_char(sb, '.');
        if (s->name)
            pr_ident(p, s->name);
        break;
    case SL_STMT_ALTER_RENAME:
        sl_strbuf_append(sb, "ALTER TABLE ");
        pr_ident(p, s->name);
        sl_strbuf_append(sb, " RENAME TO ");
        pr_ident(p, s->value);
        break;
    case SL_STMT_BEGIN_SET:
        sl_strbuf_append(sb, "BEGIN STATEMENT SET");
        break;
    case SL_STMT_STOP_JOB:
        sl_strbuf_append(sb, "STOP JOB ");
        pr_string(p, s->name);
        if (s->with_savepoint)
            sl_strbuf_append(sb, " WITH SAVEPOINT");
        break;
    case SL_STMT_RECONCILE:
        sl_strbuf_append(sb, "RECONCILE ");
        pr_ident(p, s->name);
        sl_strbuf_append(sb, " AGAINST ");
        pr_ident(p, s->source->name);
        for (int i = 0; i < sl_list_len(s->keys); i++) {
            sl_strbuf_append(sb, i ? ", " : " ON ");
            pr_ident(p, ((const sl_ident *)sl_list_get(s->keys, i))->name);
        }
        for (int i = 0; i < sl_list_len(s->compare); i++) {
            sl_strbuf_append(sb, i ? ", " : " COMPARE ");
            pr_ident(p, ((const sl_ident *)sl_list_get(s->compare, i))->name);
        }
        if (s->where) {
            sl_strbuf_append(sb, " WHERE ");
            pr_expr(p, s->where);
        }
        if (s->job) {
            sl_strbuf_append(sb, " FOR JOB ");
            pr_string(p, s->job);
        }
        if (s->repair)
            sl_strbuf_append(sb, " REPAIR");
        break;
    case SL_STMT_DROP_JOB:
        sl_strbuf_append(sb, "DROP JOB ");
        pr_string(p, s->name);
        if (s->with_savepoint)
            sl_strbuf_append(sb, " WITH SAVEPOINTS");
        break;
    case SL_STMT_DECLARE_CURSOR:
        sl_strbuf_append(sb, "DECLARE ");
        pr_ident(p, s->name);
        sl_strbuf_append(sb, s->binary ? " BINARY CURSOR FOR " : " CURSOR FOR ");
        pr_query(p, s->query);
        break;
    case SL_STMT_FETCH:
    case SL_STMT_MOVE:
        sl_strbuf_append(sb, s->kind == SL_STMT_FETCH ? "FETCH " : "MOVE ");
        if (s->count < 0)
            sl_strbuf_append(sb, "ALL");
        else
            sl_strbuf_appendf(sb, "%lld", (long long)s->count);
        sl_strbuf_append(sb, " FROM ");
        pr_ident(p, s->name);
        break;
    case SL_STMT_DROP_FUNCTION:
        sl_strbuf_append(sb, s->sub ? "DROP TEMPORARY SYSTEM FUNCTION "
                                    : s->temporary ? "DROP TEMPORARY FUNCTION " : "DROP FUNCTION ");
        if (s->if_exists)
            sl_strbuf_append(sb, "IF EXISTS ");
        pr_ident(p, s->name);
        break;
    case SL_STMT_CLOSE_CURSOR:
        sl_strbuf_append(sb, "CLOSE ");
        if (s->name)
            pr_ident(p, s->name);
        else
            sl_strbuf_append(sb, "ALL");
        break;
    case SL_STMT_PG_SET:
    case SL_STMT_PG_SHOW:
    case SL_STMT_PG_RESET:
    case SL_STMT_TXN:
    case SL_STMT_DISCARD:
        pr_pg_stmt(p, s);
        break;
    }
}

/* PostgreSQL's session statements; names print back-quoted when needed,
** values as strings. */
static void pr_pg_stmt(pr_ctx *p, const sl_stmt *s)
{
    static const char *const txns[] = {"BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK",
                                       "SAVEPOINT ", "RELEASE SAVEPOINT ",
                                       "ROLLBACK TO SAVEPOINT ", "END"};
    static const char *const discards[] = {"ALL", "PLANS", "SEQUENCES", "TEMP"};
    sl_strbuf *sb = p->sb;
    switch (s->kind) {
    case SL_STMT_PG_SET:
        sl_strbuf_append(sb, s->local ? "SET LOCAL " : "SET ");
        if (!s->name) {
            sl_strbuf_append(sb, "TRANSACTION");
            break;
        }
        pr_ident(p, s->name);
        sl_strbuf_append(sb, " = ");
        if (s->value)
            pr_string(p, s->value);
        else
            sl_strbuf_append(sb, "DEFAULT");
        break;
    case SL_STMT_PG_SHOW:
    case SL_STMT_PG_RESET:
        sl_strbuf_append(sb, s->kind == SL_STMT_PG_SHOW ? "SHOW " : "RESET ");
        if (s->name)
            pr_ident(p, s->name);
        else
            sl_strbuf_append(sb, "ALL");
        break;
    case SL_STMT_TXN:
        sl_strbuf_append(sb, s->sub >= 0 && s->sub < (int)SL_ARRAY_LEN(txns) ? txns[s->sub] : "?");
        if (s->name)
            pr_ident(p, s->name);
        break;
    case SL_STMT_DISCARD:
        sl_strbuf_append(sb, "DISCARD ");
        sl_strbuf_append(sb, s->sub >= 0 && s->sub < (int)SL_ARRAY_LEN(discards) ? discards[s->sub]
                                                                                 : "?");
        break;
    default: break;
    }
}

/* Append the canonical text of a statement, without a trailing ';'. Option
** values whose key is_secret(key, ctx) print as '******' (is_secret may be NULL). */
void sl_stmt_print(sl_strbuf *sb, const sl_stmt *s, sl_secret_fn is_secret, void *ctx)
{
    pr_ctx p = {sb, false, is_secret, ctx};
    pr_stmt(&p, s);
}
